//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation; `bench` the search.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    let r = xqengine::bench::run(depth, |fen, nodes| println!("{nodes:>12} {fen}"));
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    println!("time {:.3} s", secs);
    println!("{} nodes {} nps", r.nodes, (r.nodes as f64 / secs) as u64);
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(Command::Perft { depth, fen }) => perft(depth, fen.as_deref()),
        Some(Command::Bench { depth }) => bench(depth),
        None => {
            xqengine::session::run_stdio();
            ExitCode::SUCCESS
        }
    }
}
