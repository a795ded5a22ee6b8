//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation, `bench` the search,
//! `solve` searches puzzles with known answers, `options` lists the
//! options, `judge` rules a game. Each command lives in its own module of
//! `cmd`; this file parses and dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

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
        eval: Option<cmd::bench::BenchEval>,
        /// Evaluate with this net file instead of the built-in net (to
        /// compare a new net's speed and signature with the shipped one's).
        #[arg(long, value_name = "FILE", conflicts_with = "eval")]
        net: Option<PathBuf>,
    },
    /// Search each position of a puzzle file (data/mates.txt: mates in n
    /// with their first move, and mated positions) without book or
    /// tables, and say which are solved; fails unless all are.
    Solve {
        /// The puzzle file.
        file: PathBuf,
        /// Milliseconds a position.
        #[arg(long, default_value_t = 500)]
        movetime: u64,
        /// Search this many nodes a position instead of a time.
        #[arg(long)]
        nodes: Option<u64>,
    },
}

impl Command {
    /// The name a failure of the command is said under: `xqengine perft`.
    fn program(&self) -> &'static str {
        match self {
            Command::Perft { .. } => "xqengine perft",
            Command::Match { .. } => "xqengine match",
            Command::Options => "xqengine options",
            Command::Params => "xqengine params",
            Command::Judge { .. } => "xqengine judge",
            Command::Bench { .. } => "xqengine bench",
            Command::Solve { .. } => "xqengine solve",
        }
    }
}

fn dispatch(command: Command) -> xqcli::Result {
    match command {
        Command::Perft { depth, fen } => cmd::perft::run(depth, fen.as_deref()),
        Command::Match { args } => cmd::xqmatch::run(&args),
        Command::Options => cmd::listing::options(),
        Command::Params => cmd::listing::params(),
        Command::Judge { fen, moves } => cmd::judge::run(fen.as_deref(), &moves),
        Command::Bench { depth, eval, net } => cmd::bench::run(depth, eval, net.as_deref()),
        Command::Solve {
            file,
            movetime,
            nodes,
        } => cmd::solve::run(&file, movetime, nodes),
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(command) => xqcli::finish(command.program(), dispatch(command)),
        None => {
            xqengine::run_stdio(cmd::engine_with_shipped_data());
            ExitCode::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
