//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation; `bench` the search.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use xqcli::out;
use xqengine::arena::{
    pgn, read_openings, report, run_match, EngineSpec, FinishedGame, MatchConfig, MatchSpec,
    MoveLimit, Sprt,
};

#[derive(Parser)]
#[command(
    name = "xqengine",
    version,
    about = "Xiangqi engine: speaks UCCI on stdin/stdout (UCI when the first command is `uci`)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree: one line per root move, then `nodes N`.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Start from this FEN instead of the initial position.
        #[arg(long)]
        fen: Option<String>,
    },
    /// Play engine against engine over UCCI and report the first engine's score.
    Match(Box<MatchArgs>),
    /// Search the fixed bench positions; the last line is `N nodes K nps`.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = xqengine::bench::BENCH_DEPTH)]
        depth: i32,
    },
    /// Play fast self-play games and append their quiet positions, labelled
    /// with score and result, to a file for `tune`.
    Datagen(DatagenArgs),
    /// Fit the evaluation weights to labelled positions (Texel tuning) and
    /// write them as Rust source.
    Tune(TuneArgs),
}

/// Arguments of `xqengine datagen`.
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

/// Arguments of `xqengine tune`.
#[derive(Args)]
struct TuneArgs {
    /// Files of `FEN | score | result` lines (from `datagen`).
    data: Vec<PathBuf>,
    /// Game records in PGN with ICCS moves: their quiet positions, labelled
    /// with the game results, join the data.
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
            eprintln!("xqengine datagen: {e}");
            return ExitCode::from(2);
        }
    };
    let mut file = match OpenOptions::new().create(true).append(true).open(&args.out) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("xqengine datagen: {}: {e}", args.out.display());
            return ExitCode::from(2);
        }
    };
    let cfg = xqengine::datagen::DatagenConfig {
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
    match xqengine::datagen::generate(&openings, &cfg, &mut file, &progress) {
        Ok(n) => {
            out!("{n} positions appended to {}", args.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqengine datagen: {}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}

fn tune(args: &TuneArgs) -> ExitCode {
    use xqengine::tune::{error, fit_k, tune, weights_source, Dataset, TuneConfig, Weights};
    let mut data = Dataset::default();
    for path in &args.data {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("xqengine tune: {}: {e}", path.display());
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
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (used, skipped) = data.add_iccs_pgn(&text);
                eprintln!("{}: {used} games used, {skipped} skipped", path.display());
            }
            Err(e) => {
                eprintln!("xqengine tune: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    if data.is_empty() {
        eprintln!("xqengine tune: no positions");
        return ExitCode::from(2);
    }
    let free = if args.only.is_empty() {
        None
    } else {
        match xqengine::tune::free_weights(&args.only) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("xqengine tune: --only: {e}");
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
        eprintln!("xqengine tune: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    out!("{note}");
    ExitCode::SUCCESS
}

fn perft(depth: u32, fen: Option<&str>) -> ExitCode {
    match xqengine::perft_cmd::run(fen, depth) {
        Ok(report) => {
            let mut out = std::io::stdout().lock();
            if xqengine::perft_cmd::print(&report, &mut out).is_err() {
                return ExitCode::FAILURE;
            }
            let secs = report.elapsed.as_secs_f64();
            eprintln!(
                "time {:.3} s, {:.0} nodes/s",
                secs,
                report.nodes as f64 / secs.max(1e-9)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqengine perft: bad --fen: {e}");
            ExitCode::from(2)
        }
    }
}

fn bench(depth: i32) -> ExitCode {
    let r = xqengine::bench::run(depth, |fen, nodes| out!("{nodes:>12} {fen}"));
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    out!("time {:.3} s", secs);
    out!("{} nodes {} nps", r.nodes, (r.nodes as f64 / secs) as u64);
    ExitCode::SUCCESS
}

/// Arguments of `xqengine match`.
#[derive(Args)]
struct MatchArgs {
    /// Command starting the first engine (run by `sh -c`).
    #[arg(long)]
    engine1: String,
    /// Command starting the second engine.
    #[arg(long)]
    engine2: String,
    /// `setoption` lines for the first engine, e.g. `--option1 "hashsize 64"`.
    #[arg(long)]
    option1: Vec<String>,
    /// `setoption` lines for the second engine.
    #[arg(long)]
    option2: Vec<String>,
    /// Number of games (colours alternate on each opening).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Games played at once, each with its own two engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Time control: base seconds + increment seconds.
    #[arg(long, default_value = "10+0.1", conflicts_with_all = ["depth", "nodes"])]
    tc: String,
    /// Search every move to this depth (`go depth D`) instead of using a clock;
    /// a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "nodes")]
    depth: Option<u32>,
    /// Search every move this many nodes (`go nodes N`) instead of using a
    /// clock; a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Opening lines, one per line in ICCS [default: the 60 bundled lines of
    /// data/openings.txt].
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Milliseconds a move may run over the clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    tolerance: u64,
    /// Append every finished game to this file as PGN.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Sequential probability ratio test of H0 "Elo = ELO0" against H1
    /// "Elo = ELO1" (alpha = beta = 0.05); no new game starts once it decides.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt)]
    sprt: Option<Sprt>,
    /// Keep each pair of engine processes for all the games it plays
    /// (`setoption newgame` between games) instead of fresh ones every game:
    /// an endurance test. Each game line then ends with both engines' memory.
    #[arg(long)]
    keep_engines: bool,
}

fn parse_sprt(text: &str) -> Result<Sprt, String> {
    let bounds = text
        .split_once(',')
        .and_then(|(elo0, elo1)| Some((elo0.trim().parse().ok()?, elo1.trim().parse().ok()?)));
    bounds
        .and_then(|(elo0, elo1)| Sprt::new(elo0, elo1))
        .ok_or_else(|| format!("'{text}' is not ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,5)"))
}

fn parse_tc(tc: &str) -> Option<(Duration, Duration)> {
    let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
    let secs = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e9)
            .map(Duration::from_secs_f64)
    };
    Some((secs(base)?, secs(inc)?))
}

fn move_limit(args: &MatchArgs) -> Result<MoveLimit, String> {
    if let Some(depth) = args.depth {
        return Ok(MoveLimit::Depth(depth));
    }
    if let Some(nodes) = args.nodes {
        return Ok(MoveLimit::Nodes(nodes));
    }
    let (base, increment) = parse_tc(&args.tc)
        .ok_or_else(|| format!("--tc '{}' is not BASE+INC in seconds", args.tc))?;
    Ok(MoveLimit::Clock {
        base,
        increment,
        tolerance: Duration::from_millis(args.tolerance),
    })
}

/// Opening lines bundled into the binary, so matches run from any directory.
const BUNDLED_OPENINGS: &str = include_str!("../../data/openings.txt");

/// The opening lines of `path` (the bundled ones when none is given); the
/// start position alone when the file has none.
fn load_openings(path: Option<&Path>) -> Result<Vec<Vec<xqcore::Move>>, String> {
    let lines = match path {
        None => read_openings(BUNDLED_OPENINGS).map_err(|e| format!("bundled openings: {e}"))?,
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| read_openings(&text))
            .map_err(|e| format!("{}: {e}", path.display()))?,
    };
    Ok(if lines.is_empty() {
        vec![Vec::new()]
    } else {
        lines
    })
}

fn match_spec(args: &MatchArgs) -> Result<MatchSpec, String> {
    let engine = |command: &str, options: &[String]| EngineSpec {
        command: command.to_string(),
        options: options.to_vec(),
    };
    Ok(MatchSpec {
        engines: [
            engine(&args.engine1, &args.option1),
            engine(&args.engine2, &args.option2),
        ],
        openings: load_openings(args.openings.as_deref())?,
        games: args.games,
        concurrency: args.concurrency as usize,
        config: MatchConfig::new(move_limit(args)?),
        sprt: args.sprt,
        keep_engines: args.keep_engines,
    })
}

fn open_pgn(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("--pgn {}: {e}", path.display()))
}

fn write_pgn(
    file: &mut File,
    path: &Path,
    game: &FinishedGame,
    time_control: &str,
) -> Result<(), String> {
    let date = pgn::pgn_date_today();
    let tags = pgn::PgnTags {
        event: "xqengine match",
        date: &date,
        round: game.number,
        time_control,
    };
    pgn::append_game(file, &pgn::format_game(&game.record, &tags))
        .map_err(|e| format!("--pgn {}: {e}", path.display()))
}

fn play_match(args: &MatchArgs) -> ExitCode {
    let setup = match_spec(args).and_then(|spec| {
        let pgn_out = args
            .pgn
            .as_deref()
            .map(|path| open_pgn(path).map(|file| (file, path)))
            .transpose()?;
        Ok((spec, pgn_out))
    });
    let (spec, mut pgn_out) = match setup {
        Ok(setup) => setup,
        Err(e) => {
            eprintln!("xqengine match: {e}");
            return ExitCode::from(2);
        }
    };
    let time_control = spec.config.limit.to_string();
    let report = run_match(&spec, |game, tally| {
        out!("{}", report::game_line(game, tally));
        match pgn_out.as_mut() {
            Some((file, path)) => write_pgn(file, path, game, &time_control),
            None => Ok(()),
        }
    });
    out!("{}", report::summary_line(&report.tally));
    if let Some(sprt) = &spec.sprt {
        out!("{}", report::sprt_line(sprt, &report));
    }
    match report.failure {
        Some(e) => {
            eprintln!("xqengine match: {e}");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(Command::Perft { depth, fen }) => perft(depth, fen.as_deref()),
        Some(Command::Bench { depth }) => bench(depth),
        Some(Command::Match(args)) => play_match(&args),
        Some(Command::Datagen(args)) => datagen(&args),
        Some(Command::Tune(args)) => tune(&args),
        None => {
            xqengine::session::run_stdio();
            ExitCode::SUCCESS
        }
    }
}
