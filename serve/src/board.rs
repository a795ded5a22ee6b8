//! The `board` parameter: a FEN, optionally followed by `moves` and the
//! moves played from it (`rnbakabnr/9/... w moves h2e2 h9g7`), as chessdb
//! takes it. The moves are replayed, so the position keeps its history
//! (repetitions are ruled on it).

use xqcore::{EndRules, Position};

/// Longest `board` accepted: a FEN and 1,000 moves. Longer is refused
/// before any parsing.
pub const MAX_BOARD_LEN: usize = 100 + 5 * 1_000;

/// Why a `board` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("board of {0} bytes (at most {MAX_BOARD_LEN})")]
    TooLong(usize),
    #[error("invalid FEN: {0}")]
    Fen(String),
    #[error("move {number} ({text}): {reason}")]
    Move {
        number: usize,
        text: String,
        reason: String,
    },
}

/// The position of a `board` parameter.
pub fn parse_board(text: &str) -> Result<Position, BoardError> {
    if text.len() > MAX_BOARD_LEN {
        return Err(BoardError::TooLong(text.len()));
    }
    let (fen, moves) = match text.find(" moves") {
        Some(at) => (&text[..at], Some(&text[at + " moves".len()..])),
        None => (text, None),
    };
    let mut pos = Position::from_fen(fen.trim()).map_err(|e| BoardError::Fen(e.to_string()))?;
    for (i, word) in moves.unwrap_or("").split_whitespace().enumerate() {
        let bad = |reason: String| BoardError::Move {
            number: i + 1,
            text: word.chars().take(12).collect(),
            reason,
        };
        if pos.outcome(&EndRules::default()).is_some() {
            return Err(bad("the game was already over".into()));
        }
        let m = pos.parse_move(word).map_err(|e| bad(e.to_string()))?;
        pos.make_move(m);
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";

    #[test]
    fn fens_with_and_without_moves() {
        assert_eq!(parse_board(START).unwrap().fen(), Position::start().fen());
        let pos = parse_board(&format!("{START} moves h2e2 h9g7")).unwrap();
        assert_eq!(pos.ply(), 2);
        assert!(parse_board(&format!("{START} moves")).is_ok());
    }

    #[test]
    fn bad_boards_say_why() {
        assert!(matches!(
            parse_board("rnbakabnr/9 w"),
            Err(BoardError::Fen(_))
        ));
        assert!(matches!(parse_board(""), Err(BoardError::Fen(_))));
        let e = parse_board(&format!("{START} moves h2e2 h2e2")).unwrap_err();
        assert!(matches!(e, BoardError::Move { number: 2, .. }), "{e}");
        let e = parse_board(&format!("{START} moves ../../etc/passwd")).unwrap_err();
        assert!(matches!(e, BoardError::Move { number: 1, .. }), "{e}");
        let long = format!("{START} moves {}", "h2e2 e2h2 ".repeat(600));
        assert!(matches!(parse_board(&long), Err(BoardError::TooLong(_))));
    }
}
