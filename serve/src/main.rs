//! `xqserve`: the books, tables and engine over a chessdb-compatible web
//! API. A module per command (`cmd/`) does the work; this file parses the
//! command line and dispatches.

mod cmd;

use std::process::ExitCode;
use std::sync::Arc;

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
    /// Serve on a free local port and load it: book, table and engine
    /// queries from many clients at once; reports answers per second and
    /// latency percentiles.
    Bench(cmd::bench::BenchArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let web_root = match cmd::serve::web_root(&cli.serve) {
        Ok(web_root) => web_root,
        Err(failure) => return xqcli::finish("xqserve", Err(failure)),
    };
    let library = match cmd::library::open(&cli.serve) {
        Ok(library) => Arc::new(library),
        Err(failure) => return xqcli::finish("xqserve", Err(failure)),
    };
    match &cli.command {
        Some(Command::Bench(args)) => {
            xqcli::finish("xqserve bench", cmd::bench::run(library, args).await)
        }
        None => xqcli::finish(
            "xqserve",
            cmd::serve::run(library, &cli.serve, web_root).await,
        ),
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
