//! The commands of `xqmatch`: a match or tournament ([`play`], what it
//! does without a subcommand) and the tuning of an engine's parameters
//! ([`spsa`]); and what both take: a protocol, the adjudication rules, the
//! openings, and a stop on Ctrl-C.

pub mod play;
mod play_args;
pub mod ratings;
mod results_files;
mod setup;
pub mod spsa;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::ValueEnum;
use xqcli::Failure;
use xqmatch::{DrawRule, Protocol, ResignRule, ScoreAdjudication};
use xqrecords::Opening;

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as a shell
/// reports it).
pub const INTERRUPTED: u8 = 130;

/// `--proto1`, `--proto2`, `--proto`.
#[derive(Clone, Copy, ValueEnum)]
pub enum ProtocolArg {
    Auto,
    Ucci,
    Uci,
}

impl ProtocolArg {
    /// The protocol to speak; `None` finds it out at the handshake.
    pub fn protocol(self) -> Option<Protocol> {
        match self {
            ProtocolArg::Auto => None,
            ProtocolArg::Ucci => Some(Protocol::Ucci),
            ProtocolArg::Uci => Some(Protocol::Uci),
        }
    }
}

/// `--resign` and `--draw`, of a match and of `spsa`.
#[derive(clap::Args)]
pub struct AdjudicationArgs {
    /// Adjudicate a win once both engines have scored it at least SCORE cp
    /// for the same side on each of their last MOVES moves (cutechess-cli's
    /// `-resign`, but both engines must agree), e.g. `movecount=3,score=600`.
    #[arg(long, value_name = "movecount=MOVES,score=SCORE")]
    resign: Option<ResignRule>,
    /// Adjudicate a draw once, from move NUMBER on, both engines have scored
    /// the game within SCORE cp of zero on each of their last MOVES moves
    /// (cutechess-cli's `-draw`), e.g. `movenumber=30,movecount=8,score=10`.
    #[arg(long, value_name = "movenumber=NUMBER,movecount=MOVES,score=SCORE")]
    draw: Option<DrawRule>,
}

impl AdjudicationArgs {
    /// The rules asked for.
    pub fn rules(&self) -> ScoreAdjudication {
        ScoreAdjudication {
            resign: self.resign,
            draw: self.draw,
        }
    }
}

/// The openings of `--openings` (or the bundled ones), cut to `plies`; the
/// games a game-record file holds that are no opening are counted on
/// standard error.
///
/// # Errors
///
/// The file cannot be read, or holds a line that is no opening (its
/// message names the file and the line): refused before any game.
pub fn openings_of(path: Option<&Path>, plies: Option<usize>) -> xqcli::Result<Vec<Opening>> {
    let mut openings = match path {
        Some(path) => {
            let read = xqrecords::read_any_openings(path).map_err(Failure::usage)?;
            if let Some(first) = read.skipped.first() {
                eprintln!(
                    "xqmatch: {}: {} games skipped (the first: {first})",
                    path.display(),
                    read.skipped.len()
                );
            }
            read.openings
        }
        None => xqrecords::bundled_openings(),
    };
    if let Some(plies) = plies {
        openings = openings.into_iter().map(|o| o.truncated(plies)).collect();
    }
    Ok(openings)
}

/// The first Ctrl-C (or SIGTERM) stops new games and abandons the running
/// ones at their next move; a second ends the program at once.
pub fn stop_on_interrupt() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("xqmatch: interrupted again: stopping at once");
            std::process::exit(i32::from(INTERRUPTED));
        }
        eprintln!(
            "xqmatch: interrupted: abandoning the games in progress (Ctrl-C again to quit at once)"
        );
    });
    &STOP
}
