//! How a game ends: by the rules ([`Outcome`], found by
//! [`crate::Position::outcome`]), and as game records write it
//! ([`GameResult`]).

use std::fmt;
use std::str::FromStr;

use crate::types::Color;

/// Plies in a row without a capture after which the game is drawn (the
/// natural-move limit: 60 moves by each side).
pub const NATURAL_MOVE_LIMIT: u32 = 120;

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// Red won (`1-0`).
    RedWins,
    /// Drawn (`1/2-1/2`).
    Draw,
    /// Black won (`0-1`).
    BlackWins,
    /// Not known or not finished (`*`).
    Unknown,
}

impl GameResult {
    /// The result when `winner` wins.
    pub fn win_for(winner: Color) -> GameResult {
        match winner {
            Color::Red => GameResult::RedWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl FromStr for GameResult {
    type Err = ();

    /// Reads a PGN result token: `1-0`, `0-1`, `1/2-1/2` (also `½-½`), `*`.
    fn from_str(s: &str) -> Result<GameResult, ()> {
        match s.trim() {
            "1-0" => Ok(GameResult::RedWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" | "½-½" | "0.5-0.5" => Ok(GameResult::Draw),
            "*" => Ok(GameResult::Unknown),
            _ => Err(()),
        }
    }
}

impl fmt::Display for GameResult {
    /// The PGN token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::RedWins => "1-0",
            GameResult::Draw => "1/2-1/2",
            GameResult::BlackWins => "0-1",
            GameResult::Unknown => "*",
        })
    }
}

/// How the rules end a game, and so who wins it.
///
/// Only the rules are here: a game also ends by agreement, resignation, a
/// clock or an illegal move, which a referee (a match runner, a GUI)
/// decides, not the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// The side to move has no legal move, checkmated or stalemated
    /// alike: it has lost.
    NoLegalMove { loser: Color },
    /// A position repeated while `by` gave check on every one of its moves
    /// of the cycle: `by` loses.
    PerpetualCheck { by: Color },
    /// A position repeated while `by` chased one and the same piece on
    /// every one of its moves of the cycle, and the other side did no
    /// worse: `by` loses.
    PerpetualChase { by: Color },
    /// A position repeated and no rule forbids the cycle (idle moves, or
    /// both sides checking on every move): a draw.
    Repetition,
    /// [`EndRules::natural_move_limit`] plies without a capture: a draw.
    NaturalMoveLimit,
}

impl Outcome {
    /// The side that wins, `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::NoLegalMove { loser } => Some(!loser),
            Outcome::PerpetualCheck { by } | Outcome::PerpetualChase { by } => Some(!by),
            Outcome::Repetition | Outcome::NaturalMoveLimit => None,
        }
    }

    /// The game's result, as records write it.
    pub fn result(self) -> GameResult {
        self.winner().map_or(GameResult::Draw, GameResult::win_for)
    }

    /// The rule that ended the game: `no legal move`, `perpetual check`,
    /// `perpetual chase`, `repetition`, `natural-move limit`.
    pub fn rule(self) -> &'static str {
        match self {
            Outcome::NoLegalMove { .. } => "no legal move",
            Outcome::PerpetualCheck { .. } => "perpetual check",
            Outcome::PerpetualChase { .. } => "perpetual chase",
            Outcome::Repetition => "repetition",
            Outcome::NaturalMoveLimit => "natural-move limit",
        }
    }

    /// The ruling as a referee says it: `red loses: perpetual chase`,
    /// `draw: repetition`.
    pub fn ruling(self) -> String {
        match self.winner() {
            Some(winner) => format!("{} loses: {}", (!winner).name(), self.rule()),
            None => format!("draw: {}", self.rule()),
        }
    }
}

impl fmt::Display for Outcome {
    /// Why the game ended, in words: `checkmate or stalemate`, `perpetual
    /// check by red`, `repetition`, `natural-move limit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::NoLegalMove { .. } => f.write_str("checkmate or stalemate"),
            Outcome::PerpetualCheck { by } => write!(f, "perpetual check by {}", by.name()),
            Outcome::PerpetualChase { by } => write!(f, "perpetual chase by {}", by.name()),
            Outcome::Repetition => f.write_str("repetition"),
            Outcome::NaturalMoveLimit => f.write_str("natural-move limit"),
        }
    }
}

/// When a repetition or the natural-move limit ends a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndRules {
    /// The occurrence of a position that ends the game: 3 in play (a
    /// position seen a third time), 2 to rule at the first return.
    pub occurrences: usize,
    /// Plies without a capture that draw the game.
    pub natural_move_limit: u32,
}

impl Default for EndRules {
    /// The third occurrence, and [`NATURAL_MOVE_LIMIT`].
    fn default() -> Self {
        EndRules {
            occurrences: 3,
            natural_move_limit: NATURAL_MOVE_LIMIT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip_through_their_tokens() {
        for r in [
            GameResult::RedWins,
            GameResult::Draw,
            GameResult::BlackWins,
            GameResult::Unknown,
        ] {
            assert_eq!(r.to_string().parse(), Ok(r));
        }
        assert_eq!("½-½".parse(), Ok(GameResult::Draw));
        assert_eq!("2-0".parse::<GameResult>(), Err(()));
    }

    #[test]
    fn outcomes_name_the_winner() {
        let mate = Outcome::NoLegalMove {
            loser: Color::Black,
        };
        assert_eq!(mate.winner(), Some(Color::Red));
        assert_eq!(mate.result(), GameResult::RedWins);
        let check = Outcome::PerpetualCheck { by: Color::Red };
        assert_eq!(check.result(), GameResult::BlackWins);
        assert_eq!(check.to_string(), "perpetual check by red");
        assert_eq!(Outcome::Repetition.result(), GameResult::Draw);
        assert_eq!(Outcome::NaturalMoveLimit.winner(), None);
        assert_eq!(mate.ruling(), "black loses: no legal move");
        let chase = Outcome::PerpetualChase { by: Color::Red };
        assert_eq!(chase.ruling(), "red loses: perpetual chase");
        assert_eq!(chase.to_string(), "perpetual chase by red");
        assert_eq!(
            Outcome::NaturalMoveLimit.ruling(),
            "draw: natural-move limit"
        );
    }
}
