//! `xqtrain`: self-play data for the evaluation tuner, and the tuner.

use std::fs::OpenOptions;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use xqcli::out;
use xqmatch::load_openings;

#[derive(Parser)]
#[command(
    name = "xqtrain",
    version,
    about = "Training tools for xqengine's evaluation: self-play data and Texel tuning"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play fast self-play games and append their quiet positions, labelled
    /// with score and result, to a file for `tune`.
    Datagen(DatagenArgs),
    /// Fit the evaluation weights to labelled positions (Texel tuning) and
    /// write them as Rust source.
    Tune(TuneArgs),
}

/// Arguments of `xqtrain datagen`.
#[derive(Args)]
struct DatagenArgs {
    /// File the `FEN | score | result` lines are appended to.
    #[arg(long)]
    out: PathBuf,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 10_000)]
    nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Up to this many random plies after the opening line.
    #[arg(long, default_value_t = 6)]
    random_plies: usize,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Opening lines, one per line in ICCS [default: the 60 bundled lines of
    /// data/openings.txt].
    #[arg(long)]
    openings: Option<PathBuf>,
}

/// Arguments of `xqtrain tune`.
#[derive(Args)]
struct TuneArgs {
    /// Files of `FEN | score | result` lines (from `datagen`).
    data: Vec<PathBuf>,
    /// Game records (PGN in ICCS, WXF or Chinese notation, any encoding;
    /// or XQF): their quiet positions, labelled with the game results,
    /// join the data.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Where to write the fitted weights (Rust source).
    #[arg(long, default_value = "engine/src/eval/weights.rs")]
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

fn datagen(args: &DatagenArgs) -> ExitCode {
    let openings = match load_openings(args.openings.as_deref()) {
        Ok(lines) => lines,
        Err(e) => {
            eprintln!("xqtrain datagen: {e}");
            return ExitCode::from(2);
        }
    };
    let mut file = match OpenOptions::new().create(true).append(true).open(&args.out) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("xqtrain datagen: {}: {e}", args.out.display());
            return ExitCode::from(2);
        }
    };
    let cfg = xqtrain::datagen::DatagenConfig {
        games: args.games,
        nodes: args.nodes.max(1),
        threads: args.threads.max(1),
        random_plies: args.random_plies,
        seed: args.seed,
    };
    let started = std::time::Instant::now();
    let progress = |games: usize, positions: usize| {
        if games.is_multiple_of(10) || games == args.games {
            eprintln!(
                "{games}/{} games, {positions} positions, {:.0} s",
                args.games,
                started.elapsed().as_secs_f64()
            );
        }
    };
    match xqtrain::datagen::generate(&openings, &cfg, &mut file, &progress) {
        Ok(n) => {
            out!("{n} positions appended to {}", args.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqtrain datagen: {}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}

fn tune(args: &TuneArgs) -> ExitCode {
    use xqtrain::tune::{error, fit_k, tune, weights_source, Dataset, TuneConfig, Weights};
    let mut data = Dataset::default();
    for path in &args.data {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("xqtrain tune: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let bad = data.add_text(&text, 1);
        for b in bad.iter().take(5) {
            eprintln!("{}:{}: skipped: {}", path.display(), b.line, b.reason);
        }
        if bad.len() > 5 {
            eprintln!(
                "{}: {} more bad lines skipped",
                path.display(),
                bad.len() - 5
            );
        }
    }
    for path in &args.pgn {
        match xqrecords::read_file(path, &xqrecords::ReadOptions::default(), &|_| {}) {
            Ok(records) => {
                let used = records.games.iter().filter(|g| data.add_game(g)).count();
                let skipped = records.games.len() - used + records.errors.len();
                eprintln!(
                    "{}: {used} games used, {skipped} skipped (unreadable or no result)",
                    path.display()
                );
            }
            Err(e) => {
                eprintln!("xqtrain tune: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if data.is_empty() {
        eprintln!("xqtrain tune: no positions");
        return ExitCode::from(2);
    }
    let free = if args.only.is_empty() {
        None
    } else {
        match xqtrain::tune::free_weights(&args.only) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("xqtrain tune: --only: {e}");
                return ExitCode::from(2);
            }
        }
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
    let tmp = args.out.with_extension("rs.tmp");
    if let Err(e) = std::fs::write(&tmp, source).and_then(|_| std::fs::rename(&tmp, &args.out)) {
        eprintln!("xqtrain tune: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    out!("{note}");
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Datagen(args) => datagen(&args),
        Command::Tune(args) => tune(&args),
    }
}
