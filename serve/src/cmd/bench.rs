//! `xqserve bench`: the server on a free local port, loaded with each kind
//! of query in turn: answers per second and latency percentiles.

use std::sync::Arc;
use std::time::Duration;

use xqcli::{out, Failure};
use xqserve::chessdb::Library;
use xqserve::load::{run as load, LoadReport};

/// Arguments of `xqserve bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Clients at once, each on its own connection.
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// Queries of each kind.
    #[arg(long, default_value_t = 10_000)]
    queries: usize,
    /// Distinct positions the engine queries ask about.
    #[arg(long, default_value_t = 40)]
    engine_positions: usize,
}

/// Serves `library` on a free local port and loads it with each kind of
/// query, a line of figures per kind.
///
/// # Errors
///
/// No local port, or queries left unanswered.
pub async fn run(library: Arc<Library>, args: &BenchArgs) -> xqcli::Result {
    let kinds = xqserve::bench::query_sets(&library, args.engine_positions);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, xqserve::http::router(library)).await });
    out!(
        "{:<8} {:>8} {:>9} {:>10} {:>9} {:>9}  statuses",
        "kind",
        "queries",
        "answered",
        "per second",
        "p50 ms",
        "p99 ms"
    );
    let mut unanswered = 0;
    for (kind, paths) in kinds {
        if paths.is_empty() {
            out!("{kind:<8} no positions (no tables?)");
            continue;
        }
        let r: LoadReport = load(addr, args.clients, args.queries, Arc::new(paths)).await;
        unanswered += r.unanswered;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        out!(
            "{kind:<8} {:>8} {:>9} {:>10.0} {:>9.2} {:>9.2}  {:?}{}",
            args.queries,
            r.answered(),
            r.per_second(),
            ms(r.percentile(0.5)),
            ms(r.percentile(0.99)),
            r.statuses,
            if r.unanswered > 0 {
                format!(", {} unanswered", r.unanswered)
            } else {
                String::new()
            }
        );
    }
    match unanswered {
        0 => Ok(()),
        n => Err(Failure::new(format!("{n} queries unanswered"))),
    }
}
