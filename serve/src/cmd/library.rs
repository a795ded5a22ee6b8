//! The serving options, and the library of books, tables and engine they
//! name, opened and checked before anything is served.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use xqcli::Failure;
use xqserve::analysers::{Analysers, AnalysisConfig};
use xqserve::chessdb::{Library, Policy};
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::store::Store;
use xqserve::workers::Tokens;

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
    /// Milliseconds the engine may think on a `queryengine` (and, with
    /// --search-unknown, on a position nobody knows); it stops sooner once
    /// an iteration ends past 0.6 of it.
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// Engine searches at once.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Engine searches that may wait for a turn; more are refused (503).
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// The store: an SQLite file of every position analysed, the queue
    /// and the engine's answers, created when missing [default: in
    /// memory, for the server's life].
    #[arg(long, alias = "cache")]
    store: Option<PathBuf>,
    /// Analysers: threads that search queued positions at idle priority
    /// and write the results to the store.
    #[arg(long, default_value_t = 1)]
    analysers: usize,
    /// Milliseconds an analyser searches a queued position.
    #[arg(long, default_value_t = 3000)]
    analyse_ms: u64,
    /// Moves an analyser scores in a position (the best few, each with a
    /// line of its own).
    #[arg(long, default_value_t = 5)]
    lines: usize,
    /// Seconds a worker may hold a queued position before it goes back
    /// to the queue for another.
    #[arg(long, default_value_t = 600)]
    lease_secs: u64,
    /// Seconds between backups of the scores through the whole store
    /// while the analysers add to it (each query backs up the positions
    /// around the one asked about as well).
    #[arg(long, default_value_t = 600)]
    learn_secs: u64,
    /// Answer a position no table, book or stored analysis knows with a
    /// search of at most --think-ms, as before the store (otherwise it is
    /// `unknown`, and queued).
    #[arg(long)]
    search_unknown: bool,
    /// File whose first line is the secret workers' tokens are made from
    /// (`xqserve work` reads the same file); without it every write
    /// (`store`, `getqueue`, `ackqueue`) is refused.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Queries a client may make in a second, as chessdb limits them
    /// (0: no limit); queries from this machine are not counted.
    #[arg(long, default_value_t = 5)]
    rate_limit: u32,
    /// Folder whose files are served at every path but `/chessdb.php`,
    /// `/api/...` and `/` (e.g. chessdb's own query page: `--web-root
    /// ../shared/clients/chessdb-web`, then open `/query_en/`).
    #[arg(long, value_name = "DIR")]
    pub web_root: Option<PathBuf>,
}

/// What the library is opened for.
pub enum Use {
    /// Serving: the store the options name, its analysers at work.
    Serve,
    /// A bench: a store of its own in this file, no analysers.
    Bench(PathBuf),
}

/// Opens the books, the tables and the store the options name, saying
/// how many books and tables there are, and starts the analysers when
/// serving. A book whose analysis cannot be used answers by its games; a
/// table that cannot be opened is named with the reason, and the
/// positions that need it get no answer.
///
/// # Errors
///
/// A book, the table directory or the store cannot be opened, or a bench
/// is given a store (exit status 2).
pub fn open(args: &ServeArgs, usage: Use) -> xqcli::Result<(Library, Analysers)> {
    let (store_path, analyse) = match usage {
        Use::Serve => (args.store.clone(), true),
        Use::Bench(_) if args.store.is_some() => {
            return Err(Failure::usage(
                "--store: a bench fills a store of its own, and never writes to yours",
            ))
        }
        Use::Bench(scratch) => (Some(scratch), false),
    };
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
    let store = Arc::new(Store::open(store_path.as_deref()).map_err(Failure::usage)?);
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(args.think_ms.max(1)),
            workers: args.workers.max(1),
            queue: args.queue,
            search: search.clone(),
        },
        store.clone(),
    );
    let analysers = Analysers::start(
        store.clone(),
        AnalysisConfig {
            think: Duration::from_millis(args.analyse_ms.max(1)),
            lines: args.lines.max(1),
            lease: Duration::from_secs(args.lease_secs.max(1)),
            search,
        },
        if analyse { args.analysers } else { 0 },
        Some(Duration::from_secs(args.learn_secs.max(1))),
    );
    let tokens = match &args.token_file {
        Some(path) => Tokens::from_file(path).map_err(Failure::usage)?,
        None => Tokens::none(),
    };
    let policy = Policy {
        search_unknown: args.search_unknown,
        tokens,
        rate_limit: args.rate_limit,
        lease: Duration::from_secs(args.lease_secs.max(1)),
    };
    let library = Library::new(books, tables, engine, store)
        .with_policy(policy)
        .ringing(analysers.bell());
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
    let counts = library.store.counts().map_err(Failure::usage)?;
    eprintln!(
        "store {}: {} position(s), {} queued; {} analyser(s)",
        library.store.describe(),
        counts.positions,
        counts.queued,
        if analyse { args.analysers } else { 0 }
    );
    Ok((library, analysers))
}
