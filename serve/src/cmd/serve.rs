//! Serving: the routes on the address asked for, until Ctrl-C.

use std::sync::Arc;

use xqcli::Failure;
use xqserve::chessdb::Library;
use xqserve::http::WebRoot;

use super::library::ServeArgs;

/// The folder `--web-root` names, checked before anything is opened.
///
/// # Errors
///
/// It cannot be resolved or is not a folder (exit status 2).
pub fn web_root(args: &ServeArgs) -> xqcli::Result<Option<WebRoot>> {
    let Some(dir) = &args.web_root else {
        return Ok(None);
    };
    WebRoot::open(dir)
        .map(Some)
        .map_err(|e| Failure::usage(e).context(format!("--web-root {}", dir.display())))
}

/// Serves `library` (and the files of `web_root`) on the address `args`
/// name, saying where the API and the board are.
///
/// # Errors
///
/// The address cannot be bound (exit status 2), or serving fails.
pub async fn run(
    library: Arc<Library>,
    args: &ServeArgs,
    web_root: Option<WebRoot>,
) -> xqcli::Result {
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
    axum::serve(
        listener,
        xqserve::http::router_with_files(library, web_root),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    Ok(())
}
