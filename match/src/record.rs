//! A game as it ended: the moves, what the engines said of each
//! ([`MoveStats`]), the result and why the game ended ([`Termination`]).
//! Plain data that the game, the clocks and the adjudicators fill in and
//! the reports and PGN read.

use std::fmt;
use std::time::Duration;

use xqcore::{GameResult, Move, Outcome};
use xqrecords::Opening;

use crate::protocol::EngineScore;

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it: no legal move, perpetual check, repetition, the
    /// natural-move limit.
    Rules(Outcome),
    /// The game reached [`MatchConfig::max_plies`](crate::MatchConfig::max_plies): a draw.
    LengthCap,
    /// The engine answered with this illegal or unreadable move (or no
    /// move while it had legal moves).
    IllegalMove(String),
    Resignation,
    TimeForfeit,
    /// The engine could not be talked to, or did not answer in time.
    EngineFailure(String),
    /// Both engines' scores agreed on a winner long enough
    /// ([`ScoreAdjudication::resign`](crate::ScoreAdjudication::resign)).
    ResignAdjudication,
    /// Both engines' scores stayed near zero long enough
    /// ([`ScoreAdjudication::draw`](crate::ScoreAdjudication::draw)).
    DrawAdjudication,
    /// The endgame tables hold the position ([`MatchConfig::tables`](crate::MatchConfig::tables)).
    TablesAdjudication,
}

/// Every kind of end ([`Termination::kind`]), and the words its text
/// ([`Termination`]'s `Display`) starts with.
const KINDS: [(&str, &str); 14] = [
    ("checkmate or stalemate", "no legal move"),
    ("perpetual check", "perpetual check"),
    ("perpetual chase", "perpetual chase"),
    ("repetition", "repetition"),
    ("natural-move limit", "natural-move limit"),
    ("length cap", "length cap"),
    ("illegal move", "illegal move"),
    ("resignation", "resignation"),
    ("time forfeit", "time forfeit"),
    ("engine failure", "engine failure"),
    ("resign adjudication", "resign adjudication"),
    ("draw adjudication", "draw adjudication"),
    ("tables adjudication", "tables adjudication"),
    ("rules", "rules"),
];

impl Termination {
    /// The kind of end, without its particulars (which side, which move):
    /// what a match's summary counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Termination::Rules(Outcome::NoLegalMove { .. }) => "no legal move",
            Termination::Rules(Outcome::PerpetualCheck { .. }) => "perpetual check",
            Termination::Rules(Outcome::PerpetualChase { .. }) => "perpetual chase",
            Termination::Rules(Outcome::Repetition) => "repetition",
            Termination::Rules(Outcome::NaturalMoveLimit) => "natural-move limit",
            Termination::Rules(_) => "rules",
            Termination::LengthCap => "length cap",
            Termination::IllegalMove(_) => "illegal move",
            Termination::Resignation => "resignation",
            Termination::TimeForfeit => "time forfeit",
            Termination::EngineFailure(_) => "engine failure",
            Termination::ResignAdjudication => "resign adjudication",
            Termination::DrawAdjudication => "draw adjudication",
            Termination::TablesAdjudication => "tables adjudication",
        }
    }

    /// The kind of end a termination's text (as `Display` writes it, in a
    /// PGN's `Termination` tag) tells; `None` for other text.
    pub fn kind_of_text(text: &str) -> Option<&'static str> {
        KINDS
            .iter()
            .find(|(words, _)| text.starts_with(words))
            .map(|&(_, kind)| kind)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules(outcome) => outcome.fmt(f),
            Termination::LengthCap => f.write_str("length cap"),
            Termination::IllegalMove(mv) => write!(f, "illegal move {mv}"),
            Termination::Resignation => f.write_str("resignation"),
            Termination::TimeForfeit => f.write_str("time forfeit"),
            Termination::EngineFailure(why) => write!(f, "engine failure: {why}"),
            Termination::ResignAdjudication
            | Termination::DrawAdjudication
            | Termination::TablesAdjudication => f.write_str(self.kind()),
        }
    }
}

/// What an engine said about a move it played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    /// Its last reported score, from the mover's side.
    pub score: Option<EngineScore>,
    /// Its last reported depth.
    pub depth: Option<u32>,
    /// Time it took to answer.
    pub took: Duration,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub red: String,
    pub black: String,
    pub opening: Opening,
    /// The moves played after the opening.
    pub moves: Vec<Move>,
    /// What the engines said about each of [`GameRecord::moves`].
    pub stats: Vec<MoveStats>,
    pub result: GameResult,
    pub termination: Termination,
    /// Under a clock, the longest time a side took beyond its clock, in ms
    /// (negative when every move was in time); `None` without a clock or a move.
    pub worst_overrun_ms: Option<i64>,
}

impl GameRecord {
    /// Every move from the opening's start position: the opening, then the game.
    pub fn all_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.opening.moves.iter().chain(self.moves.iter()).copied()
    }

    /// The number of plies from the opening's start position.
    pub fn plies(&self) -> usize {
        self.opening.moves.len() + self.moves.len()
    }
}

#[cfg(test)]
mod tests {
    use xqcore::Color;

    use super::*;

    #[test]
    fn every_kind_of_end_is_read_back_from_its_text() {
        let ends = [
            Termination::Rules(Outcome::NoLegalMove { loser: Color::Red }),
            Termination::Rules(Outcome::PerpetualCheck { by: Color::Black }),
            Termination::Rules(Outcome::PerpetualChase { by: Color::Red }),
            Termination::Rules(Outcome::Repetition),
            Termination::Rules(Outcome::NaturalMoveLimit),
            Termination::LengthCap,
            Termination::IllegalMove("a0a5".into()),
            Termination::Resignation,
            Termination::TimeForfeit,
            Termination::EngineFailure("engine: exited".into()),
            Termination::ResignAdjudication,
            Termination::DrawAdjudication,
            Termination::TablesAdjudication,
        ];
        for end in ends {
            assert_eq!(
                Termination::kind_of_text(&end.to_string()),
                Some(end.kind()),
                "{end}"
            );
        }
        assert_eq!(Termination::kind_of_text("abandoned"), None);
    }
}
