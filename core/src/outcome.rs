//! How a game ended, as game records write it.

use std::fmt;
use std::str::FromStr;

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
}
