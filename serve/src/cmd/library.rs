//! The serving options, and the library of books, tables and engine they
//! name, opened and checked before anything is served.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use xqcli::Failure;
use xqserve::chessdb::Library;
use xqserve::engine::{EngineConfig, EngineError, EnginePool};

/// How to serve.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (another than 127.0.0.1 only when asked).
    #[arg(long, default_value = "127.0.0.1:8000")]
    pub listen: SocketAddr,
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
    /// Folder whose files are served at every path but `/chessdb.php`,
    /// `/api/...` and `/` (e.g. chessdb's own query page: `--web-root
    /// ../shared/clients/chessdb-web`, then open `/query_en/`).
    #[arg(long, value_name = "DIR")]
    pub web_root: Option<PathBuf>,
}

/// Opens the books, the tables and the engine's cache the options name,
/// saying how many books and tables there are. A book whose analysis
/// cannot be used answers by its games; a table that cannot be opened is
/// named with the reason, and the positions that need it get no answer.
///
/// # Errors
///
/// A book, the table directory or the cache cannot be opened (exit
/// status 2).
pub fn open(args: &ServeArgs) -> xqcli::Result<Library> {
    let book_paths: Vec<PathBuf> = if args.book.is_empty() {
        xqcli::data::default_book().into_iter().collect()
    } else {
        args.book.clone()
    };
    // A book's errors name its file already.
    let mut books = Vec::new();
    for path in &book_paths {
        let (book, unusable) = xqbook::BookFile::open(path).map_err(Failure::usage)?;
        if let Some(e) = unusable {
            eprintln!(
                "xqserve: book analysis not used, {} answers by its games: {e}",
                path.display()
            );
        }
        books.push(book);
    }
    let tables = xqcli::data::open_tables_option(args.tables.as_deref())
        .map_err(Failure::usage)?
        .map(|(tb, _)| tb);
    let search = xqengine::SearchConfig {
        egtb: tables.clone(),
        ..xqengine::SearchConfig::default()
    };
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(args.think_ms.max(1)),
            workers: args.workers.max(1),
            queue: args.queue,
            search,
        },
        args.cache.as_deref(),
    )
    .map_err(|e| Failure::usage(cache_error(args.cache.as_deref(), &e)))?;
    let library = Library::new(books, tables, engine);
    // Every table opened now: a damaged one is named before a query
    // needs it (a damaged block shows when a probe reads it).
    if let Some(tb) = &library.tables {
        for e in tb.open_all() {
            library.log_table_error(&e);
        }
    }
    eprintln!(
        "{} book(s), {} table(s)",
        library.books.len(),
        library.tables.as_ref().map_or(0, |t| t.len())
    );
    Ok(library)
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
