//! `egtbgen`: builds, probes, describes and checks xiangqi endgame tables.
//! The work is in the `egtbgen` and `xqegtb` libraries and in a module per
//! command (`cmd/`); this file parses the command line and dispatches.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "egtbgen",
    version,
    about = "Build, probe and check xiangqi endgame tables (retrograde analysis)",
    long_about = "Build, probe and check xiangqi endgame tables.\n\n\
        Tables are named by material with FEN letters, stronger side first, kings included: \
        KRKAABB is king and rook against king, two advisors and two elephants. \
        Each table holds win/draw/loss and the distance to mate in plies for both sides to move.\n\n\
        Rules (Asian): a side with no legal move loses (stalemate too). A side that can only \
        avoid losing by checking for ever loses: such results are reported as by the \
        perpetual-check rule, with distances from 1000 plies up. Where both sides have a rook, \
        horse or cannon, a side that can only avoid losing by chasing one piece for ever, \
        against a side that neither checks nor chases, loses too: results that need this rule \
        have distances from 2000 plies up. Every other repetition is scored as a draw."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build tables and every smaller table their captures lead into.
    Gen(cmd::gen::GenArgs),
    /// Write the jobs that build a set of tables, one `egtbgen gen` per
    /// table, for make (`make -j N`) or Slurm (job arrays by dependency
    /// level), and print what each table is estimated to cost.
    Plan(cmd::plan::PlanArgs),
    /// Print the value of a position and the best move by the tables.
    Probe(cmd::probe::ProbeArgs),
    /// Describe a table file: positions, results per side to move, the longest mate.
    Info(cmd::info::InfoArgs),
    /// Time probes: the median with the block already decompressed, and the
    /// median of first probes into a block (decompressing it).
    Bench(cmd::bench::BenchArgs),
    /// Check that every position's value agrees with its successors': one
    /// table, several, or every table of a directory (smallest first).
    /// Fails when any table does, after checking them all.
    Verify(cmd::verify::VerifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    xqcli::remove_unfinished_files_on_interrupt("egtbgen");
    xqcli::finish("egtbgen", dispatch(&cli.command))
}

fn dispatch(command: &Command) -> xqcli::Result {
    match command {
        Command::Gen(args) => cmd::gen::run(args),
        Command::Plan(args) => cmd::plan::run(args),
        Command::Probe(args) => cmd::probe::run(args),
        Command::Info(args) => cmd::info::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Verify(args) => cmd::verify::run(args),
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
