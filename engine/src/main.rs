//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation; `bench` the search.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xqcli::out;

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
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Search the fixed bench positions; the last line is `N nodes K nps`.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = xqengine::bench::BENCH_DEPTH)]
        depth: i32,
    },
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
        Some(Command::Bench { depth }) => bench(depth),
        Some(Command::Match { args }) => run_xqmatch(&args),
        None => {
            xqengine::session::run_stdio();
            ExitCode::SUCCESS
        }
    }
}
