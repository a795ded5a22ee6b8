//! `xqmatch`: plays xiangqi engines against each other over UCCI or UCI,
//! two in a match or many in a tournament, and reports their scores; or
//! tunes an engine's parameters (`spsa`), or rates the engines of
//! tournaments played apart (`ratings`). This file reads the command line
//! and hands it to its command ([`cmd`]).

mod cmd;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};

use cmd::play::{Ended, PlayArgs};
use cmd::ratings::RatingsArgs;
use cmd::spsa::SpsaArgs;

/// Play engines against each other and report their scores.
///
/// Two engines (`--engine1`, `--engine2`) play a match; any number
/// (`--engine` repeated) a round robin or a gauntlet. Each engine is a
/// command line run by `sh -c`, spoken to in UCCI or UCI (found out at the
/// handshake unless told). Each opening is played twice in an encounter,
/// once with each colour. Games end by the rules (no legal move loses,
/// perpetual check or perpetual chase loses at the third repetition, other
/// repetitions draw, 120 plies without capture draw), at the length cap
/// (draw), by an illegal move, a resignation, a flag fall or an engine
/// failure (loss), or, when asked, by the engines' scores (`--resign`,
/// `--draw`) or the endgame tables (`--tables`). An engine that crashes,
/// hangs or answers garbage loses that game and is started afresh.
/// Ctrl-C stops the tournament (a second one at once): no finished game is
/// lost, and `--resume` goes on from the PGN.
#[derive(Parser)]
#[command(name = "xqmatch", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    play: PlayArgs,
}

#[derive(clap::Subcommand)]
enum Command {
    Spsa(Box<SpsaArgs>),
    Ratings(RatingsArgs),
}

/// The command line, with the words of each `--engine` grouped (clap
/// gives them flat).
fn parse_args() -> Cli {
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.play.engine_groups = matches
        .get_occurrences::<String>("engine")
        .map(|groups| groups.map(|words| words.cloned().collect()).collect())
        .unwrap_or_default();
    cli
}

fn main() -> ExitCode {
    let cli = parse_args();
    match &cli.command {
        Some(Command::Spsa(args)) => xqcli::finish("xqmatch spsa", cmd::spsa::run(args)),
        Some(Command::Ratings(args)) => xqcli::finish("xqmatch ratings", cmd::ratings::run(args)),
        None => match cmd::play::run(&cli.play) {
            Ok(Ended::Interrupted) => ExitCode::from(cmd::INTERRUPTED),
            ran => xqcli::finish("xqmatch", ran.map(drop)),
        },
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
