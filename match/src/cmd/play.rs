//! A match of two engines or a tournament of more, what `xqmatch` does
//! without a subcommand: the games played and printed as they finish,
//! written to `--pgn` and `--results`, and the scores at the end.

use xqcli::{out, Failure};
use xqmatch::{pgn, report, run_tournament, PlayedGame, TournamentReport, TournamentSpec};

pub use super::play_args::PlayArgs;
use super::results_files::{games_played_before, Appended};
use super::setup::tournament_spec;
use super::stop_on_interrupt;

/// How a tournament that ran ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every game was played, or the SPRT decided.
    Finished,
    /// Ctrl-C stopped it; `--resume` goes on.
    Interrupted,
}

/// What a tournament needs before its first game.
struct Tournament {
    spec: TournamentSpec,
    /// The games of the PGN a `--resume` goes on from.
    played: Vec<PlayedGame>,
    pgn: Option<Appended>,
    results: Option<Appended>,
}

/// The tournament of `args`, its earlier games read and its files open.
fn prepare(args: &PlayArgs) -> xqcli::Result<Tournament> {
    let spec = tournament_spec(args)?;
    let played = match (&args.pgn, args.resume) {
        (Some(path), true) => games_played_before(path)?,
        _ => Vec::new(),
    };
    let pgn = args
        .pgn
        .as_deref()
        .map(|p| Appended::open(p, "--pgn"))
        .transpose()?;
    let results = args
        .results
        .as_deref()
        .map(|p| Appended::open(p, "--results"))
        .transpose()?;
    Ok(Tournament {
        spec,
        played,
        pgn,
        results,
    })
}

/// Plays the match or tournament of `args`, printing a line a game (and
/// with more than two engines the standings every `--report-every` games),
/// then the summary.
///
/// # Errors
///
/// Arguments refused before any engine starts (exit status 2); an engine
/// that cannot be started or set up (no summary is printed then, no game
/// having been played), or a file that cannot be written (exit status 1).
pub fn run(args: &PlayArgs) -> xqcli::Result<Ended> {
    let mut tournament = prepare(args)?;
    let stop = stop_on_interrupt();
    let many = tournament.spec.players.len() > 2;
    let mut outcome = run_tournament(
        &tournament.spec,
        &tournament.played,
        stop,
        |game, results| {
            let spec = &tournament.spec;
            out!("{}", report::game_line(game, results, spec.sprt.as_ref()));
            if let Some(pgn_file) = tournament.pgn.as_mut() {
                pgn_file.append(&pgn::tournament_game(spec, game, &pgn::pgn_date_today()))?;
            }
            if let Some(results_file) = tournament.results.as_mut() {
                results_file.append(&report::result_json(game))?;
            }
            let games = results.table.games() as usize;
            if many && args.report_every > 0 && games.is_multiple_of(args.report_every) {
                out!("{}", report::standings_and_crosstable(results));
            }
            Ok(())
        },
    );
    if outcome.results.table.games() == 0 {
        if let Some(failure) = outcome.failure.take() {
            // Stopped before its first game: there is no score to print.
            return Err(Failure::new(failure));
        }
    }
    out!("{}", report::summary(&tournament.spec, &outcome));
    finish(&outcome)
}

/// How a tournament that printed its summary ends: interrupted, failed, or
/// finished.
fn finish(outcome: &TournamentReport) -> xqcli::Result<Ended> {
    if outcome.interrupted {
        eprintln!(
            "xqmatch: stopped after {} games; run the same command with --resume to go on",
            outcome.results.table.games()
        );
        return Ok(Ended::Interrupted);
    }
    match &outcome.failure {
        Some(e) => Err(Failure::new(e)),
        None => Ok(Ended::Finished),
    }
}
