//! `xqmatch ratings`: the ratings of every engine in the games of one or
//! more tournaments, fitted on all of them at once, e.g. a ladder of
//! levels and a gauntlet against an anchor engine played apart.

use std::path::PathBuf;

use xqcli::Failure;
use xqmatch::pgn::read_played_games;
use xqmatch::report::{crosstable, endings_line, standings_anchored};
use xqmatch::Results;

/// Rate the engines of tournaments' PGNs together: every game of every
/// file counts, the ratings fitted on all of them at once (as the
/// standings of a tournament are), optionally anchored on one engine.
#[derive(clap::Args)]
pub struct RatingsArgs {
    /// PGN files written by `xqmatch --pgn`
    #[arg(required = true, value_name = "PGN")]
    files: Vec<PathBuf>,
    /// Rate this engine at this Elo and the others from it (`NAME=ELO`);
    /// without it the ratings are centred on the engines' average
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
}

/// Reads the files and prints the standings and the crosstable.
///
/// # Errors
///
/// A file that cannot be read or holds a game `xqmatch` did not write
/// (named with the game and its line), or an anchor that is no engine of
/// the games.
pub fn run(args: &RatingsArgs) -> xqcli::Result<()> {
    let mut games = Vec::new();
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        let played = read_played_games(&text)
            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        games.extend(played.games);
    }
    let results = Results::of_games(&games);
    if results.names.is_empty() {
        return Err(Failure::usage("no complete game in the files"));
    }
    let anchor = args
        .anchor
        .as_deref()
        .map(|text| anchor_of(text, &results))
        .transpose()?;
    xqcli::out!(
        "{}{}\n{}",
        standings_anchored(&results, anchor),
        crosstable(&results),
        endings_line(&results)
    );
    Ok(())
}

/// The engine and Elo of `--anchor NAME=ELO`.
fn anchor_of(text: &str, results: &Results) -> xqcli::Result<(usize, f64)> {
    let bad = |why: &str| Failure::usage(format!("--anchor {text}: {why}"));
    let (name, elo) = text.rsplit_once('=').ok_or_else(|| bad("not NAME=ELO"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .map_err(|_| bad("the Elo is no number"))?;
    let index = results
        .names
        .iter()
        .position(|n| n == name.trim())
        .ok_or_else(|| {
            bad(&format!(
                "no engine of that name (the games have {})",
                results.names.join(", ")
            ))
        })?;
    Ok((index, elo))
}
