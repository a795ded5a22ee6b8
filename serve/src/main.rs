//! `xqserve`: the books, tables and engine over a chessdb-compatible web
//! API. A module per command (`cmd/`) does the work; this file parses the
//! command line and dispatches.

mod cmd;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "xqserve",
    version,
    about = "Serve our books, endgame tables and engine over a chessdb-compatible web API \
             (GET /chessdb.php?action=queryall&board=FEN), with an analysis board for the \
             browser at / (GET /)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: cmd::library::ServeArgs,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Fill a store of its own, serve it on a free local port and load
    /// it: book, table, stored, unknown and engine queries from many
    /// clients at once while workers send results; reports answers per
    /// second and latency percentiles. (Serving options go before `bench`.)
    Bench(cmd::bench::BenchArgs),
    /// Work for a server, here or on another machine: take its queued
    /// positions, analyse them and send the results back.
    Work(cmd::work::WorkArgs),
    /// Write the store as a book with its analysis (backed up through the
    /// whole store), for the engine and for bookgen export.
    Dump(cmd::store::DumpArgs),
    /// Put an analysed book's positions into the store.
    Seed(cmd::store::SeedArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        None => xqcli::finish("xqserve", cmd::serve::run(&cli.serve).await),
        Some(Command::Bench(args)) => {
            xqcli::finish("xqserve bench", cmd::bench::run(&cli.serve, args).await)
        }
        Some(Command::Work(args)) => xqcli::finish("xqserve work", cmd::work::run(args)),
        Some(Command::Dump(args)) => xqcli::finish("xqserve dump", cmd::store::run_dump(args)),
        Some(Command::Seed(args)) => xqcli::finish("xqserve seed", cmd::store::run_seed(args)),
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
