//! `xqengine`: with no arguments, the protocol loop; `perft` checks move generation.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "xqengine",
    version,
    about = "Xiangqi engine (UCCI, and UCI when the first command is `uci`)"
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft { depth, fen }) => {
            match xqengine::perft_cmd::run(fen.as_deref(), depth) {
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
        None => {
            eprintln!("xqengine: the protocol loop is not built yet; try `xqengine perft 4`");
            ExitCode::FAILURE
        }
    }
}
