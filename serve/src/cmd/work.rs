//! `xqserve work`: a worker for a server on this or another machine.

use std::path::PathBuf;
use std::time::Duration;

use xqcli::Failure;
use xqserve::analysers::AnalysisConfig;
use xqserve::work::{work, WorkConfig};
use xqserve::workers::Tokens;

/// Arguments of `xqserve work`.
#[derive(clap::Args)]
pub struct WorkArgs {
    /// The server: `http://HOST:PORT` (or its `.../chessdb.php`).
    #[arg(long)]
    server: String,
    /// The server's token file (its first line is the secret).
    #[arg(long)]
    token_file: PathBuf,
    /// Milliseconds a position is searched.
    #[arg(long, default_value_t = 3000)]
    analyse_ms: u64,
    /// Moves scored in a position (the best few, each with a line of its
    /// own).
    #[arg(long, default_value_t = 5)]
    lines: usize,
    /// Directory of endgame tables the searches probe [default: data/egtb];
    /// `none`: no tables.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Workers in this process, each searching on a core of its own.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Stop when the queue is empty (otherwise wait for more work).
    #[arg(long)]
    until_empty: bool,
    /// Stop after this many positions (each worker).
    #[arg(long)]
    positions: Option<u64>,
}

/// Works for the server, saying how many positions were analysed.
///
/// # Errors
///
/// The token file or the tables cannot be read (exit status 2), or the
/// server cannot be reached or refuses the worker.
pub fn run(args: &WorkArgs) -> xqcli::Result {
    let tokens = Tokens::from_file(&args.token_file).map_err(Failure::usage)?;
    let tables = xqcli::data::open_tables_option(args.tables.as_deref())
        .map_err(Failure::usage)?
        .map(|(tb, _)| tb);
    let config = WorkConfig {
        server: args.server.clone(),
        tokens,
        analysis: AnalysisConfig {
            think: Duration::from_millis(args.analyse_ms.max(1)),
            lines: args.lines.max(1),
            lease: Duration::ZERO,
            search: xqengine::SearchConfig {
                egtb: tables,
                ..xqengine::SearchConfig::default()
            },
        },
        until_empty: args.until_empty,
        max_positions: args.positions,
        idle: Duration::from_secs(5),
    };
    let done: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.threads.max(1))
            .map(|_| scope.spawn(|| work(&config)))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a worker does not panic"))
            .collect()
    });
    let mut analysed = 0;
    for result in done {
        analysed += result.map_err(Failure::from)?;
    }
    eprintln!("xqserve work: {analysed} position(s) analysed");
    Ok(())
}
