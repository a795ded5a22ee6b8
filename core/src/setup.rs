//! [`Setup`]: an unchecked position, read from and written to FEN.

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::types::{Color, Piece, Square};

/// Why a [`Setup`] is not a position that can occur in a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{color:?} has no king")]
    MissingKing { color: Color },
    #[error("too many {piece}s: {count} (at most {max})")]
    TooMany {
        piece: Piece,
        count: usize,
        max: usize,
    },
    #[error("{piece} on {square} is outside its palace")]
    OutsidePalace { piece: Piece, square: Square },
    #[error("{piece} on {square} is not on one of its five palace points")]
    AdvisorOffPoints { piece: Piece, square: Square },
    #[error("{piece} on {square} is not on one of its seven points")]
    ElephantOffPoints { piece: Piece, square: Square },
    #[error("{piece} on {square} is behind its starting rank")]
    PawnBehindStart { piece: Piece, square: Square },
    #[error(
        "{piece} on {square} cannot get there: pawns move sideways only after crossing the river"
    )]
    PawnUnreachable { piece: Piece, square: Square },
    #[error("the kings face each other on an open file")]
    KingsFacing,
    #[error("{color:?} is in check but it is not {color:?}'s turn")]
    OpponentInCheck { color: Color },
}

/// The FEN of the initial position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A position as written, not yet checked against the rules. Turn it into a
/// [`crate::Position`] with [`crate::Position::from_setup`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Setup {
    pub board: Board,
    pub turn: Color,
    /// Plies since the last capture (the FEN's fifth field).
    pub plies_since_capture: u32,
    /// Move number, starting at 1 and counting up after each Black move.
    pub fullmoves: u32,
}

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("FEN has {0} ranks, expected 10")]
    WrongRankCount(usize),
    #[error("FEN rank {rank} has {files} files, expected 9")]
    WrongFileCount { rank: u8, files: usize },
    #[error("FEN rank {rank} has an unknown piece letter '{letter}'")]
    UnknownLetter { rank: u8, letter: char },
    #[error("FEN has no side to move")]
    MissingSide,
    #[error("FEN side to move '{0}' is not w, r or b")]
    BadSide(String),
    #[error("FEN move counter '{0}' is not a number")]
    BadCounter(String),
    #[error("{0}")]
    Position(#[from] PositionError),
}

impl Setup {
    /// The initial position.
    pub fn start() -> Setup {
        START_FEN.parse().expect("start FEN is valid")
    }

    /// The FEN: placement, side (`w`/`b`), `- -`, plies since capture, move number.
    pub fn fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            self.board.fen_placement(),
            self.turn.fen_char(),
            self.plies_since_capture,
            self.fullmoves
        )
    }

    /// The setup seen in a left-right mirror.
    pub fn mirror(&self) -> Setup {
        Setup {
            board: self.board.mirror(),
            ..self.clone()
        }
    }
}

fn parse_placement(field: &str) -> Result<Board, FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 10 {
        return Err(FenError::WrongRankCount(ranks.len()));
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank = 9 - i as u8;
        let mut file: usize = 0;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| *d > 0) {
                file += d as usize;
            } else {
                let piece =
                    Piece::from_char(ch).ok_or(FenError::UnknownLetter { rank, letter: ch })?;
                if let Some(sq) = Square::new(file as u8, rank).filter(|_| file < 9) {
                    board.set(sq, Some(piece));
                }
                file += 1;
            }
        }
        if file != 9 {
            return Err(FenError::WrongFileCount { rank, files: file });
        }
    }
    Ok(board)
}

fn parse_counter(field: Option<&str>, default: u32) -> Result<u32, FenError> {
    match field {
        None | Some("-") => Ok(default),
        Some(f) => f
            .parse()
            .map_err(|_| FenError::BadCounter(f.chars().take(12).collect())),
    }
}

impl FromStr for Setup {
    type Err = FenError;

    /// Reads `placement side [- - plies moves]`. Only the placement and side are
    /// required; the castling and en-passant fields of chess FEN are ignored.
    fn from_str(fen: &str) -> Result<Setup, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let board = parse_placement(fields.next().ok_or(FenError::Empty)?)?;
        let turn = match fields.next().ok_or(FenError::MissingSide)? {
            "w" | "r" | "W" | "R" => Color::Red,
            "b" | "B" => Color::Black,
            other => return Err(FenError::BadSide(other.chars().take(12).collect())),
        };
        let _castling = fields.next();
        let _en_passant = fields.next();
        let plies_since_capture = parse_counter(fields.next(), 0)?;
        let fullmoves = parse_counter(fields.next(), 1)?.max(1);
        Ok(Setup {
            board,
            turn,
            plies_since_capture,
            fullmoves,
        })
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}
