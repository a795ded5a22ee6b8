//! `xqserve bench`: the server on a free local port with a store of its
//! own, filled first by a generator, loaded with each kind of query in
//! turn while workers send results: answers per second and latency
//! percentiles.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use xqcli::{out, Failure};
use xqserve::chessdb::Policy;
use xqserve::load::{run as load, LoadReport};
use xqserve::workers::Tokens;

use super::library::{open, ServeArgs, Use};

/// Arguments of `xqserve bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Clients at once, each on its own connection.
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// Queries of each kind.
    #[arg(long, default_value_t = 10_000)]
    queries: usize,
    /// Distinct positions the engine queries (`queryengine`) ask about.
    #[arg(long, default_value_t = 40)]
    engine_positions: usize,
    /// Positions the bench's own store is filled with first: positions of
    /// random games, five scored moves each.
    #[arg(long, default_value_t = 100_000)]
    fill: usize,
    /// Workers sending results (`store`) while each kind of query runs,
    /// each on its own connection; 0: none.
    #[arg(long, default_value_t = 4)]
    writers: usize,
}

/// The bench's store: a file of its own in the temporary directory,
/// removed (with its journal) when done.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let name = format!("xqserve-bench-{}.sqlite", std::process::id());
        Scratch(std::env::temp_dir().join(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Fills a store of its own, serves it with the books and tables `serve`
/// names on a free local port, and loads it with each kind of query (and
/// the writers' results at the same time), a line of figures per kind.
///
/// # Errors
///
/// The library cannot be opened (exit status 2), no local port, or
/// queries left unanswered.
pub async fn run(serve: &ServeArgs, args: &BenchArgs) -> xqcli::Result {
    let scratch = Scratch::new();
    let (library, _) = open(serve, Use::Bench(scratch.0.clone()))?;
    let secret = format!("bench {}", std::process::id());
    let policy = Policy {
        tokens: Tokens::from_secret(&secret),
        ..library.policy.clone()
    };
    let library = library.with_policy(policy);
    let token = library
        .policy
        .tokens
        .worker_token("127.0.0.1")
        .expect("a secret");

    let started = Instant::now();
    let stored = xqserve::bench::fill(&library.store, args.fill, |done| {
        if done % 100_000 == 0 || done == args.fill {
            eprintln!("store: {done} of {} positions", args.fill);
        }
    })
    .map_err(Failure::from)?;
    let bytes = library.store.bytes().map_err(Failure::from)?;
    let each = if args.fill > 0 {
        format!(" ({:.0} a position)", bytes as f64 / args.fill as f64)
    } else {
        String::new()
    };
    out!(
        "store: {} positions filled in {:.1} s, {bytes} bytes{each}",
        args.fill,
        started.elapsed().as_secs_f64(),
    );

    let library = Arc::new(library);
    let kinds = xqserve::bench::query_sets(&library, &stored, args.engine_positions);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let served = library.clone();
    tokio::spawn(async move {
        xqserve::http::serve(listener, served, None, std::future::pending()).await
    });
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
    for (round, (kind, paths)) in kinds.into_iter().enumerate() {
        if paths.is_empty() {
            let why = match kind {
                "book" => "no book",
                "table" => "no tables",
                "store" => "--fill 0",
                _ => "none made",
            };
            out!("{kind:<8} no positions ({why})");
            continue;
        }
        let writes = xqserve::bench::result_paths(&token, args.queries, 100 + round as u64);
        let queries = load(addr, args.clients, args.queries, Arc::new(paths));
        let writing = async {
            if args.writers == 0 {
                return None;
            }
            let total = writes.len();
            Some(load(addr, args.writers, total, Arc::new(writes)).await)
        };
        let (r, w) = tokio::join!(queries, writing);
        unanswered += r.unanswered;
        report(kind, args.queries, &r);
        if let Some(w) = w {
            unanswered += w.unanswered;
            report("  writes", args.queries, &w);
        }
    }
    drop(scratch);
    match unanswered {
        0 => Ok(()),
        n => Err(Failure::new(format!("{n} queries unanswered"))),
    }
}

/// A line of figures.
fn report(kind: &str, queries: usize, r: &LoadReport) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    out!(
        "{kind:<8} {:>8} {:>9} {:>10.0} {:>9.2} {:>9.2}  {:?}{}",
        queries,
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
