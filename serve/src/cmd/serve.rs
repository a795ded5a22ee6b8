//! Serving: the routes on the address asked for, until Ctrl-C.

use std::sync::Arc;

use xqcli::Failure;

use super::library::{open, ServeArgs, Use};

/// Opens the library `args` name, starts the analysers and serves on the
/// address asked for, saying where the API and the board are.
///
/// # Errors
///
/// The library cannot be opened or the address bound (exit status 2),
/// or serving fails.
pub async fn run(args: &ServeArgs) -> xqcli::Result {
    let (library, _analysers) = open(args, Use::Serve)?;
    let library = Arc::new(library);
    let listen = args.listen;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| Failure::usage(e).context(listen))?;
    // The address bound (a port of 0 asks the system for a free one).
    let bound = listener.local_addr().unwrap_or(listen);
    eprintln!("listening on http://{bound}/chessdb.php");
    eprintln!("board: http://{bound}/");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    xqserve::http::serve(listener, library, shutdown).await?;
    Ok(())
}
