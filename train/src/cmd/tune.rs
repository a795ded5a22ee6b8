//! `xqtrain tune`: Texel tuning of the hand-crafted evaluation's weights
//! on games files, `FEN | score | result` lines and game records, written
//! as Rust source where `--out` says.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use clap::Args;
use xqcli::{out, Failure};
use xqlearn::{GamesError, GamesFileDamage, GamesFileError};
use xqtrain::tune::{
    error, fit_k, free_weights, tune, weights_source, Dataset, TuneConfig, Weights,
};

/// Bad lines of a text file shown one by one; the rest are counted.
const BAD_LINES_SHOWN: usize = 5;

/// Arguments of `xqtrain tune`.
#[derive(Args)]
pub struct TuneArgs {
    /// Games files (from `datagen`) or files of `FEN | score | result` lines.
    data: Vec<PathBuf>,
    /// Game records (PGN in ICCS, WXF or Chinese notation, any encoding;
    /// or XQF): their quiet positions, labelled with the game results,
    /// join the data.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Where to write the fitted weights (Rust source). The engine's own
    /// are engine/src/eval/weights.rs, rewritten only when named here.
    #[arg(long)]
    out: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 1000)]
    epochs: usize,
    /// Adam step size, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    learning_rate: f64,
    /// Weight of the game result in the target (the rest: the recorded score).
    #[arg(long, default_value_t = 0.5)]
    result_weight: f64,
    /// Tune only these weight groups (comma-separated: material, pst,
    /// mobility, king, threats, tempo); the rest stay as they are.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// L2 pull of every weight toward its current value.
    #[arg(long, default_value_t = 1e-8)]
    regularization: f64,
    /// Threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

/// Reads the data, fits `K` and then the weights, and writes them to
/// `--out`.
///
/// # Errors
///
/// A data or record file that cannot be read, no positions in them, or
/// an unknown weight group (exit status 2); weights that cannot be
/// written.
pub fn run(args: &TuneArgs) -> xqcli::Result {
    let mut data = Dataset::default();
    for path in &args.data {
        add_data_file(&mut data, path)?;
    }
    for path in &args.pgn {
        let records = xqrecords::read_file(path, &xqrecords::ReadOptions::default(), &|_| {})
            .map_err(Failure::usage)?;
        let used = records.games.iter().filter(|g| data.add_game(g)).count();
        let skipped = records.games.len() - used + records.errors.len();
        eprintln!(
            "{}: {used} games used, {skipped} skipped (unreadable or no result)",
            path.display()
        );
    }
    if data.is_empty() {
        return Err(Failure::usage("no positions"));
    }
    let free = if args.only.is_empty() {
        None
    } else {
        Some(free_weights(&args.only).map_err(|e| Failure::usage(e).context("--only"))?)
    };
    let start = Weights::current();
    let k = fit_k(&data, &start, args.threads);
    let cfg = TuneConfig {
        result_weight: args.result_weight.clamp(0.0, 1.0),
        epochs: args.epochs,
        learning_rate: args.learning_rate,
        free,
        regularization: args.regularization.max(0.0),
        threads: args.threads.max(1),
    };
    let before = error(&data, &start, k, cfg.result_weight, cfg.threads);
    eprintln!("{} positions, K = {k:.6}, error {before:.6}", data.len());
    let tuned = tune(&data, start, k, &cfg, |epoch, e| {
        eprintln!("epoch {epoch}: error {e:.6}");
    });
    let after = error(&data, &tuned, k, cfg.result_weight, cfg.threads);
    let note = format!(
        "Fitted to {} positions, K = {k:.6}, result weight {}, {} epochs: error {before:.6} -> {after:.6}.",
        data.len(),
        cfg.result_weight,
        cfg.epochs
    );
    let source = weights_source(&tuned.rounded(), &note);
    xqlearn::write_atomically(&args.out, source.as_bytes())
        .map_err(|e| Failure::new(e).context(args.out.display()))?;
    out!("{note}");
    Ok(())
}

/// Adds the positions of a data file: a games file or a reservoir of
/// games (their quiet searched positions), else text of
/// `FEN | score | result` lines.
///
/// # Errors
///
/// The file cannot be read, is a damaged reservoir or a games file of
/// another version, or is neither games nor text (exit status 2).
fn add_data_file(data: &mut Dataset, path: &Path) -> xqcli::Result {
    match xqlearn::read_games_file(path) {
        Ok((games, damage)) => {
            games.iter().for_each(|g| data.add_record(g));
            if let Some(d) = damage {
                eprintln!(
                    "{}: {}; the games before it are used",
                    path.display(),
                    d.damage
                );
            }
            Ok(())
        }
        Err(GamesFileError {
            source: GamesFileDamage::Games(GamesError::NotGames),
            ..
        }) => add_text_file(data, path),
        Err(e) => Err(Failure::usage(e)),
    }
}

/// Adds the positions of a file of `FEN | score | result` lines, saying
/// which lines were skipped and why.
fn add_text_file(data: &mut Dataset, path: &Path) -> xqcli::Result {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        ErrorKind::InvalidData => Failure::usage(format!(
            "{}: not a games file (no XQGAMES header), nor text of `FEN | score | result` lines",
            path.display()
        )),
        _ => Failure::usage(e).context(path.display()),
    })?;
    let bad = data.add_text(&text, 1);
    for b in bad.iter().take(BAD_LINES_SHOWN) {
        eprintln!("{}:{}: skipped: {}", path.display(), b.line, b.reason);
    }
    if bad.len() > BAD_LINES_SHOWN {
        eprintln!(
            "{}: {} more bad lines skipped",
            path.display(),
            bad.len() - BAD_LINES_SHOWN
        );
    }
    Ok(())
}
