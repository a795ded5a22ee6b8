//! Serving: the routes on the address asked for, until Ctrl-C.

use std::net::SocketAddr;
use std::sync::Arc;

use xqcli::Failure;
use xqserve::chessdb::Library;

/// Serves `library` on `listen`, saying where the API and the board are.
///
/// # Errors
///
/// The address cannot be bound (exit status 2), or serving fails.
pub async fn run(library: Arc<Library>, listen: SocketAddr) -> xqcli::Result {
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
