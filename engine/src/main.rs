//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation, `bench` the search,
//! `solve` searches puzzles with known answers, `options` lists the
//! options, `judge` rules a game.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use xqcli::out;
use xqcore::{perft_divide, EndRules, Position};
use xqengine::{all_options, EngineOptions, Evaluation};

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
    /// The match runner is `xqmatch` now: this runs it (it sits beside
    /// `xqengine`), with the same arguments.
    #[command(disable_help_flag = true)]
    Match {
        /// xqmatch's arguments (`xqmatch --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// List every option: its UCCI and UCI names, kind, default and range,
    /// and what it sets.
    Options,
    /// List the search's tunable parameters, one a line: `name default min
    /// max step`, the parameter file `xqmatch spsa` reads. An engine built
    /// with `--features tune` takes each as an option of the same name.
    Params,
    /// Rule a game: replay the moves from the start (or --fen) and say how
    /// the game stands by the rules after the last one (`red loses:
    /// perpetual chase`, `draw: repetition`, `ongoing`, ...): Asian rules, a
    /// repetition ruled at its third occurrence.
    Judge {
        /// Start from this FEN instead of the initial position.
        #[arg(long)]
        fen: Option<String>,
        /// The moves, in ICCS (`h2e2`).
        moves: Vec<String>,
    },
    /// Search the fixed bench positions; the last line is `N nodes K nps`.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = xqengine::bench::BENCH_DEPTH)]
        depth: u32,
        /// Evaluation: the built-in net or the hand-crafted terms [default:
        /// the engine's default, the `evaluation` option's].
        #[arg(long, value_enum)]
        eval: Option<BenchEval>,
        /// Evaluate with this net file instead of the built-in net (to
        /// compare a new net's speed and signature with the shipped one's).
        #[arg(long, value_name = "FILE", conflicts_with = "eval")]
        net: Option<std::path::PathBuf>,
    },
    /// Search each position of a puzzle file (data/mates.txt: mates in n
    /// with their first move, and mated positions) without book or
    /// tables, and say which are solved; fails unless all are.
    Solve {
        /// The puzzle file.
        file: std::path::PathBuf,
        /// Milliseconds a position.
        #[arg(long, default_value_t = 500)]
        movetime: u64,
        /// Search this many nodes a position instead of a time.
        #[arg(long)]
        nodes: Option<u64>,
    },
}

/// The evaluations `bench` can run with.
#[derive(Clone, Copy, clap::ValueEnum)]
enum BenchEval {
    Nnue,
    Hce,
}

/// `move: count` for each root move, then `nodes N`; the time on stderr.
fn perft(depth: u32, fen: Option<&str>) -> ExitCode {
    let mut pos = match fen.map(Position::from_fen).transpose() {
        Ok(pos) => pos.unwrap_or_else(Position::start),
        Err(e) => {
            eprintln!("xqengine perft: bad --fen: {e}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let divide = if depth == 0 {
        Vec::new()
    } else {
        perft_divide(&mut pos, depth)
    };
    let nodes = if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    };
    let secs = started.elapsed().as_secs_f64();
    for (m, n) in &divide {
        out!("{m}: {n}");
    }
    out!("nodes {nodes}");
    eprintln!(
        "time {secs:.3} s, {:.0} nodes/s",
        nodes as f64 / secs.max(1e-9)
    );
    ExitCode::SUCCESS
}

/// The ruling after `moves` from `fen` (or the start), or why the input
/// cannot be ruled.
fn judge(fen: Option<&str>, moves: &[String]) -> ExitCode {
    let mut pos = match fen.map(Position::from_fen).transpose() {
        Ok(pos) => pos.unwrap_or_else(Position::start),
        Err(e) => {
            eprintln!("xqengine judge: bad --fen: {e}");
            return ExitCode::from(2);
        }
    };
    for (i, text) in moves.iter().enumerate() {
        if pos.outcome(&EndRules::default()).is_some() {
            eprintln!(
                "xqengine judge: move {} ({text}): the game was already over",
                i + 1
            );
            return ExitCode::from(2);
        }
        match pos.parse_move(text) {
            Ok(mv) => pos.make_move(mv),
            Err(e) => {
                eprintln!("xqengine judge: move {} ({text}): {e}", i + 1);
                return ExitCode::from(2);
            }
        }
    }
    match pos.outcome(&EndRules::default()) {
        Some(outcome) => out!("{}", outcome.ruling()),
        None => out!("ongoing"),
    }
    ExitCode::SUCCESS
}

/// One line a tunable parameter, in the tuner's format.
fn params() -> ExitCode {
    let tuning = if cfg!(feature = "tune") {
        "this build takes them as options"
    } else {
        "this build does not take them as options: build with --features tune"
    };
    out!("# name default min max step ({tuning})");
    for t in xqengine::TUNABLES {
        out!("{} {} {} {} {}", t.name, t.default, t.min, t.max, t.step);
    }
    ExitCode::SUCCESS
}

/// One line an option: UCCI name, UCI name, kind with default and range,
/// and what it sets.
fn options() -> ExitCode {
    out!("{:<12} {:<12} {:<46} effect", "UCCI", "UCI", "kind");
    for spec in all_options() {
        out!(
            "{:<12} {:<12} {:<46} {}",
            spec.ucci.unwrap_or("-"),
            spec.uci.unwrap_or("-"),
            spec.kind.to_string(),
            spec.effect
        );
    }
    ExitCode::SUCCESS
}

fn bench(depth: u32, eval: Option<BenchEval>, net_file: Option<&std::path::Path>) -> ExitCode {
    let eval = match eval {
        Some(BenchEval::Nnue) => Evaluation::Nnue,
        Some(BenchEval::Hce) => Evaluation::Hce,
        None => EngineOptions::default().evaluation,
    };
    let net = match net_file {
        Some(file) => match xqnnue::Network::load(file) {
            Ok(net) => Some(net),
            Err(e) => {
                eprintln!("xqengine bench: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        },
        None => (eval == Evaluation::Nnue).then(|| xqnnue::Network::embedded().clone()),
    };
    if let Some(net) = &net {
        eprintln!("net {:08x} ({})", net.checksum(), net.architecture());
    }
    let r = xqengine::bench::run(depth, net.map(std::sync::Arc::new), |fen, nodes| {
        out!("{nodes:>12} {fen}")
    });
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    out!("time {:.3} s", secs);
    out!("{} nodes {} nps", r.nodes, (r.nodes as f64 / secs) as u64);
    ExitCode::SUCCESS
}

/// One line a puzzle of `file` (solved or not, the move, and the score,
/// depth, nodes and time of the last iteration), then `solved K of N`;
/// success when all are.
fn solve(file: &std::path::Path, movetime: u64, nodes: Option<u64>) -> ExitCode {
    use xqengine::puzzles::{self, Expected};
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("xqengine solve: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let puzzles = match puzzles::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("xqengine solve: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let limits = match nodes {
        Some(n) => xqengine::Limits::nodes(n),
        None => xqengine::Limits::movetime(std::time::Duration::from_millis(movetime)),
    };
    let mut engine = xqengine::Engine::new();
    engine.options.use_book = false;
    engine.options.use_egtb = false;
    let mut solved = 0;
    for p in &puzzles {
        let v = puzzles::solve(&mut engine, p, limits.clone());
        solved += usize::from(v.solved);
        let want = match p.expected {
            Expected::MateIn(n, mv) => format!("mate {n} {mv}"),
            Expected::NoMove => "no move".to_string(),
        };
        let got = v.played.map_or("(none)".to_string(), |m| m.to_string());
        let score = match v.score {
            Some(xqengine::Score::Mate(n)) => format!("mate {n}"),
            Some(xqengine::Score::Cp(cp)) => format!("cp {cp}"),
            None => "-".to_string(),
        };
        out!(
            "{} line {:>3}: want {want}, played {got} ({score}, depth {}, {} nodes, {} ms)",
            if v.solved { "solved" } else { "FAILED" },
            p.line,
            v.depth,
            v.nodes,
            v.time.as_millis()
        );
    }
    out!("solved {solved} of {}", puzzles.len());
    if solved == puzzles.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs `xqmatch` from beside this executable with `args`, for scripts
/// written when the match runner was `xqengine match`.
fn run_xqmatch(args: &[std::ffi::OsString]) -> ExitCode {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join("xqmatch")))
        .filter(|p| p.is_file());
    let Some(exe) = exe else {
        eprintln!("xqengine match: the match runner is xqmatch now; build it with `cargo build --release -p xqmatch`");
        return ExitCode::from(2);
    };
    match std::process::Command::new(&exe).args(args).status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c as u8)),
        Err(e) => {
            eprintln!("xqengine match: {}: {e}", exe.display());
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(Command::Perft { depth, fen }) => perft(depth, fen.as_deref()),
        Some(Command::Bench { depth, eval, net }) => bench(depth, eval, net.as_deref()),
        Some(Command::Solve {
            file,
            movetime,
            nodes,
        }) => solve(&file, movetime, nodes),
        Some(Command::Options) => options(),
        Some(Command::Params) => params(),
        Some(Command::Judge { fen, moves }) => judge(fen.as_deref(), &moves),
        Some(Command::Match { args }) => run_xqmatch(&args),
        None => {
            // The library plays from the files it is given: the shipped
            // book and tables, found under the working directory or beside
            // the executable, unless an option names others.
            let mut engine = xqengine::Engine::new();
            engine.options.default_book_files = xqcli::data::default_book().into_iter().collect();
            engine.options.default_egtb_dirs =
                xqcli::data::default_egtb_dir().into_iter().collect();
            xqengine::run_stdio(engine);
            ExitCode::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
