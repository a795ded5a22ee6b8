//! `xqserve`: the books, tables and engine over a chessdb-compatible web API.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use xqserve::chessdb::Library;
use xqserve::engine::{EngineConfig, EngineError, EnginePool};

#[derive(Parser)]
#[command(
    name = "xqserve",
    version,
    about = "Serve our books, endgame tables and engine over a chessdb-compatible web API \
             (GET /chessdb.php?action=queryall&board=FEN), with an analysis board for the \
             browser at / (GET /)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Serve on a free local port and load it: book, table and engine
    /// queries from many clients at once; reports answers per second and
    /// latency percentiles.
    Bench {
        /// Clients at once, each on its own connection.
        #[arg(long, default_value_t = 100)]
        clients: usize,
        /// Queries of each kind.
        #[arg(long, default_value_t = 10_000)]
        queries: usize,
        /// Distinct positions the engine queries ask about.
        #[arg(long, default_value_t = 40)]
        engine_positions: usize,
    },
}

/// How to serve.
#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on (another than 127.0.0.1 only when asked).
    #[arg(long, default_value = "127.0.0.1:8000")]
    listen: SocketAddr,
    /// Book files, probed in order [default: data/book.xqb].
    #[arg(long)]
    book: Vec<PathBuf>,
    /// Directory of endgame tables [default: data/egtb]; `none`: no tables.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Milliseconds the engine may think on a position no book or table
    /// knows (it stops sooner once an iteration ends past 0.6 of it).
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// Engine searches at once.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Engine searches that may wait for a turn; more are refused (503).
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// SQLite file caching the engine's answers [default: in memory].
    #[arg(long)]
    cache: Option<PathBuf>,
}

fn library(cli: &ServeArgs) -> Result<Library, String> {
    let book_paths: Vec<PathBuf> = if cli.book.is_empty() {
        xqcli::data::default_book().into_iter().collect()
    } else {
        cli.book.clone()
    };
    // A book's errors name its file already.
    let mut books = Vec::new();
    for path in &book_paths {
        let (book, unusable) = xqbook::BookFile::open(path).map_err(|e| e.to_string())?;
        if let Some(e) = unusable {
            eprintln!(
                "xqserve: book analysis not used, {} answers by its games: {e}",
                path.display()
            );
        }
        books.push(book);
    }
    let tables = xqcli::data::open_tables_option(cli.tables.as_deref())
        .map_err(|e| e.to_string())?
        .map(|(tb, _)| tb);
    let search = xqengine::SearchConfig {
        egtb: tables.clone(),
        ..xqengine::SearchConfig::default()
    };
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(cli.think_ms.max(1)),
            workers: cli.workers.max(1),
            queue: cli.queue,
            search,
        },
        cli.cache.as_deref(),
    )
    .map_err(|e| cache_error(cli.cache.as_deref(), &e))?;
    eprintln!(
        "{} book(s), {} table(s)",
        books.len(),
        tables.as_ref().map_or(0, |t| t.len())
    );
    Ok(Library {
        books,
        tables,
        engine,
    })
}

/// Why the engine's cache cannot be used, naming its file once: SQLite's
/// message for a file it cannot open ends with the path already.
fn cache_error(path: Option<&Path>, e: &EngineError) -> String {
    let reason = match e {
        EngineError::Cache(e) => e.to_string(),
        other => other.to_string(),
    };
    match path {
        Some(path) => {
            let path = path.display().to_string();
            let reason = reason.strip_suffix(&format!(": {path}")).unwrap_or(&reason);
            format!("cache {path}: {reason}")
        }
        None => format!("cache in memory: {reason}"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let library = match library(&cli.serve) {
        Ok(l) => Arc::new(l),
        Err(e) => {
            eprintln!("xqserve: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(Command::Bench {
        clients,
        queries,
        engine_positions,
    }) = cli.command
    {
        return bench(library, clients, queries, engine_positions).await;
    }
    let cli = cli.serve;
    let listener = match tokio::net::TcpListener::bind(cli.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("xqserve: {}: {e}", cli.listen);
            return ExitCode::from(2);
        }
    };
    // The address bound (a port of 0 asks the system for a free one).
    let bound = listener.local_addr().unwrap_or(cli.listen);
    eprintln!("listening on http://{bound}/chessdb.php");
    eprintln!("board: http://{bound}/");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match axum::serve(listener, xqserve::http::router(library))
        .with_graceful_shutdown(shutdown)
        .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xqserve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `xqserve bench`: the server on a free local port, loaded with each kind
/// of query in turn.
async fn bench(
    library: Arc<Library>,
    clients: usize,
    queries: usize,
    engine_positions: usize,
) -> ExitCode {
    use xqserve::load::{run, LoadReport};
    let kinds = xqserve::bench::query_sets(&library, engine_positions);
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("xqserve bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Ok(addr) = listener.local_addr() else {
        return ExitCode::FAILURE;
    };
    tokio::spawn(async move { axum::serve(listener, xqserve::http::router(library)).await });
    xqcli::out!(
        "{:<8} {:>8} {:>9} {:>10} {:>9} {:>9}  statuses",
        "kind",
        "queries",
        "answered",
        "per second",
        "p50 ms",
        "p99 ms"
    );
    let mut complete = true;
    for (kind, paths) in kinds {
        if paths.is_empty() {
            xqcli::out!("{kind:<8} no positions (no tables?)");
            continue;
        }
        let r: LoadReport = run(addr, clients, queries, Arc::new(paths)).await;
        complete &= r.unanswered == 0;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        xqcli::out!(
            "{kind:<8} {queries:>8} {:>9} {:>10.0} {:>9.2} {:>9.2}  {:?}{}",
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
    if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
