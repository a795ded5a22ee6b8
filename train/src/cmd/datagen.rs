//! `xqtrain datagen`: plays fast self-play games and appends them, every
//! searched move with its score, to a games file.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use xqcli::{out, Failure};
use xqnnue::Network;
use xqrecords::load_openings;
use xqtrain::datagen::{generate, DatagenConfig, DatagenSummary, Openings};

/// How often a run without a terminal logs its progress.
const LOG_EVERY: Duration = Duration::from_secs(600);

/// Arguments of `xqtrain datagen`.
#[derive(Args)]
pub struct DatagenArgs {
    /// Games file the games are appended to (created with its header when
    /// missing; an existing one must be a games file).
    #[arg(long)]
    out: PathBuf,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5_000)]
    nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Book whose weighted-random moves open each game [default:
    /// data/book.xqb when present].
    #[arg(long, conflicts_with = "openings")]
    book: Option<PathBuf>,
    /// Up to this many book plies (uniformly drawn per game).
    #[arg(long, default_value_t = 16)]
    book_plies: usize,
    /// Openings file instead of a book: one opening a line, ICCS moves
    /// from the start or `fen FEN [moves ...]`, taken in turn.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Up to this many random plies after the opening (at least half).
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of endgame tables: a game reaching them ends with their
    /// exact result [default: data/egtb when present]. `none`: no tables.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Play with the learned evaluation of this net file (`builtin`: the
    /// net inside the engine) instead of the hand-crafted one.
    #[arg(long)]
    net: Option<PathBuf>,
}

/// Plays the games and appends them to `--out`, with a progress bar (or,
/// without a terminal, a line every ten minutes).
///
/// # Errors
///
/// Openings, a book, tables, a net or a games file that cannot be used
/// (exit status 2); a game that cannot be written.
pub fn run(args: &DatagenArgs) -> xqcli::Result {
    let openings = openings(args)?;
    let tables =
        match xqcli::data::open_tables_option(args.tables.as_deref()).map_err(Failure::usage)? {
            Some((tb, dir)) => {
                eprintln!("{} tables from {}", tb.len(), dir.display());
                Some(tb)
            }
            None => None,
        };
    let net = net(args.net.as_deref())?;
    if let Some(net) = &net {
        eprintln!("evaluating with net {:08x}", net.checksum());
    }
    let mut file =
        open_games_file(&args.out).map_err(|e| Failure::usage(e).context(args.out.display()))?;
    let cfg = DatagenConfig {
        games: args.games,
        nodes: args.nodes.max(1),
        threads: args.threads.max(1),
        random_plies: args.random_plies,
        seed: args.seed,
        tables,
        net: net.map(Arc::new),
    };
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {per_sec} {eta} {wide_msg}")
            .expect("a valid template"),
    );
    let started = Instant::now();
    // Without a terminal (a run in the background, its output in a log) the
    // bar is hidden: a line every ten minutes says how far it is instead.
    let logged = Mutex::new(started);
    let progress = |s: &DatagenSummary| {
        bar.set_position(s.games as u64);
        let seconds = started.elapsed().as_secs_f64();
        let rate = s.positions as f64 / seconds;
        bar.set_message(format!(
            "{} positions ({rate:.0}/s), {} ended by tables",
            s.positions, s.by_tables
        ));
        if !bar.is_hidden() {
            return;
        }
        let mut last = logged.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() >= LOG_EVERY {
            *last = Instant::now();
            eprintln!(
                "{} games, {} positions in {:.0} min: {:.0} games and {:.0} positions an hour",
                s.games,
                s.positions,
                seconds / 60.0,
                s.games as f64 * 3600.0 / seconds,
                rate * 3600.0
            );
        }
    };
    let result = generate(&openings, &cfg, &mut file, &progress);
    bar.finish_and_clear();
    let s = result.map_err(|e| Failure::new(e).context(args.out.display()))?;
    out!(
        "{} games, {} positions ({} games ended by tables) appended to {} in {:.0} s",
        s.games,
        s.positions,
        s.by_tables,
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Where the games start: the openings file, else the book (named or the
/// default one), else the built-in openings.
fn openings(args: &DatagenArgs) -> xqcli::Result<Openings> {
    if let Some(path) = &args.openings {
        return Ok(Openings::Lines(
            load_openings(Some(path)).map_err(Failure::usage)?,
        ));
    }
    match args.book.clone().or_else(xqcli::data::default_book) {
        // The book's errors name its file.
        Some(path) => Ok(Openings::Book(
            xqbook::open(&path).map_err(Failure::usage)?,
            args.book_plies,
        )),
        None => Ok(Openings::Lines(
            load_openings(None).map_err(Failure::usage)?,
        )),
    }
}

/// The net of `--net`: none, the built-in one, or a file.
fn net(option: Option<&Path>) -> xqcli::Result<Option<Network>> {
    match option {
        None => Ok(None),
        Some(p) if p.as_os_str() == "builtin" => Ok(Some(Network::embedded().clone())),
        Some(p) => Network::load(p)
            .map(Some)
            .map_err(|e| Failure::usage(e).context(p.display())),
    }
}

/// Opens a games file for appending: a new one gets the header, an
/// existing one must start with it.
fn open_games_file(path: &Path) -> std::io::Result<BufWriter<File>> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    if file.metadata()?.len() == 0 {
        xqlearn::write_header(&mut file)?;
    } else {
        // A file cut inside the header is not a games file either.
        let mut head = Vec::new();
        (&mut file).take(10).read_to_end(&mut head)?;
        xqlearn::check_header(&head).map_err(std::io::Error::other)?;
    }
    Ok(BufWriter::new(file))
}
