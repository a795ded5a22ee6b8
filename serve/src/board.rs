//! The `board` parameter: a FEN as chessdb reads it (its board extension's
//! `ccbgetfen`), optionally followed by `moves` and the moves played from
//! it (`rnbakabnr/9/... w moves h2e2 h9g7`). The moves are replayed, so the
//! position keeps its history (repetitions are ruled on it).
//!
//! chessdb reads the 90 squares from a8... that is, rank 9 to rank 0, files
//! a to i, whatever separates the ranks: a digit skips that many squares, a
//! piece letter (`KABNRCP`, with `G` an advisor, `E` an elephant, `H` a
//! horse; lower case Black) fills one, any other letter leaves one empty,
//! anything else is passed over. Then the first of `w`, `r` (Red) or `b`
//! (Black), in either case, anywhere after the board names the side to
//! move: `FEN w`, `FEN_w`, `FENw`, `FEN red`, `FEN black` and `FEN b - -
//! 0 1` all read. The position must then be legal (a king each, every
//! piece where it can stand, the kings not facing, the side not to move
//! not in check).

use xqcore::{Board, Color, EndRules, Piece, Position, Role, Setup, Square};

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
    let mut pos = read_fen(fen)?;
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

/// The position of a FEN: as a FEN is written (keeping its counters), or
/// else as chessdb's `ccbgetfen` reads it.
fn read_fen(fen: &str) -> Result<Position, BoardError> {
    let written = match Position::from_fen(fen.trim()) {
        Ok(pos) => return Ok(pos),
        Err(e) => e,
    };
    let setup = chessdb_setup(fen).ok_or_else(|| BoardError::Fen(written.to_string()))?;
    Position::from_setup(setup).map_err(|e| BoardError::Fen(e.to_string()))
}

/// The board and side to move of `fen` as chessdb's `ccbgetfen` reads
/// them (the module's comment says how); `None` when it finds no 90
/// squares or no side to move.
fn chessdb_setup(fen: &str) -> Option<Setup> {
    let mut board = Board::empty();
    let bytes = fen.as_bytes();
    // Squares from rank 9, file a: square k is file k % 9 of rank 9 - k / 9.
    let mut next = 0usize;
    let mut read = 0;
    while read < bytes.len() && next < 90 {
        let c = bytes[read];
        read += 1;
        if c.is_ascii_digit() {
            next += usize::from(c - b'0');
        } else if c.is_ascii_alphabetic() {
            if let Some(piece) = chessdb_piece(c) {
                let square = Square::new((next % 9) as u8, 9 - (next / 9) as u8)?;
                board.set(square, Some(piece));
            }
            next += 1;
        }
    }
    if next != 90 {
        return None;
    }
    let turn = bytes[read..].iter().find_map(|c| match c {
        b'w' | b'W' | b'r' | b'R' => Some(Color::Red),
        b'b' | b'B' => Some(Color::Black),
        _ => None,
    })?;
    Some(Setup {
        board,
        turn,
        plies_since_capture: 0,
        fullmoves: 1,
    })
}

/// A piece letter as chessdb reads it: upper case Red, lower case Black.
fn chessdb_piece(c: u8) -> Option<Piece> {
    let role = match c.to_ascii_lowercase() {
        b'k' => Role::King,
        b'a' | b'g' => Role::Advisor,
        b'b' | b'e' => Role::Elephant,
        b'n' | b'h' => Role::Horse,
        b'r' => Role::Rook,
        b'c' => Role::Cannon,
        b'p' => Role::Pawn,
        _ => return None,
    };
    let color = if c.is_ascii_uppercase() {
        Color::Red
    } else {
        Color::Black
    };
    Some(Piece::new(color, role))
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
    fn boards_as_chessdb_reads_them() {
        let placement = START.trim_end_matches(" w");
        let red = Position::start().fen();
        for board in [
            format!("{placement} w"),
            format!("{placement}_w"),
            format!("{placement}w"),
            format!("{placement} red"),
            format!("{placement} R - - 0 1"),
            format!("{placement} w - - x y"),
            format!("{} w", placement.replace('/', "")),
            format!("{} w", placement.replace("n", "h").replace("a", "g")),
            format!("{} w", placement.replace("1c5c1", "xcxxxxxcx")),
        ] {
            let pos = parse_board(&board).unwrap_or_else(|e| panic!("{board}: {e}"));
            assert_eq!(pos.fen(), red, "{board}");
        }
        let black = format!("{placement} black");
        assert_eq!(parse_board(&black).unwrap().turn(), Color::Black);
        assert_eq!(
            parse_board(&format!("{placement}_b moves h9g7")).map(|p| p.ply()),
            Ok(1)
        );
        // Past the 90 squares only the side is looked for.
        assert_eq!(parse_board(&format!("{placement}/9 w")).unwrap().fen(), red);
        // No side, too many or too few squares, an illegal position.
        for board in [
            placement.to_string(),
            format!("{placement} - - 0 1"),
            format!("{} w", placement.replace("/RNBAKABNR", "/RNBAKABN2")),
            format!("{} w", placement.replacen('9', "8", 1)),
            format!("{} w", placement.replace('K', "1")),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x".to_string(),
        ] {
            assert!(
                matches!(parse_board(&board), Err(BoardError::Fen(_))),
                "{board}"
            );
        }
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
