//! Serving: the routes on the address asked for, until Ctrl-C.

use std::sync::Arc;

use xqcli::Failure;
use xqserve::http::WebRoot;

use super::library::{open, ServeArgs, Use};

/// The folder `--web-root` names, checked before anything is opened.
///
/// # Errors
///
/// It cannot be resolved or is not a folder (exit status 2).
fn web_root(args: &ServeArgs) -> xqcli::Result<Option<WebRoot>> {
    let Some(dir) = &args.web_root else {
        return Ok(None);
    };
    WebRoot::open(dir)
        .map(Some)
        .map_err(|e| Failure::usage(e).context(format!("--web-root {}", dir.display())))
}

/// Opens the library `args` name, starts the analysers and serves on the
/// address asked for (with the files of `--web-root`), saying where the
/// API and the board are.
///
/// # Errors
///
/// The web root, the library or the address cannot be used (exit status
/// 2), or serving fails.
pub async fn run(args: &ServeArgs) -> xqcli::Result {
    let web_root = web_root(args)?;
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
    if let Some(root) = &web_root {
        eprintln!("web root: {}", root.path().display());
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    xqserve::http::serve(listener, library, web_root, shutdown).await?;
    Ok(())
}
