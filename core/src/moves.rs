//! Moves: the compact [`Move`], the position-free [`IccsMove`] and [`MoveList`].

use std::fmt;
use std::str::FromStr;

use crate::types::Square;

/// A move from one square to another, packed in 16 bits. It says nothing about
/// the piece: a position gives it meaning.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u16);

impl Move {
    /// The null move (`a0a0`), never a legal move: marks a passed turn in search.
    pub const NULL: Move = Move(0);

    /// Builds a move.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 7)
    }

    #[inline]
    pub(crate) const fn from_raw(from: usize, to: usize) -> Move {
        Move(from as u16 | (to as u16) << 7)
    }

    /// The square the piece leaves.
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index_unchecked((self.0 & 0x7f) as usize)
    }

    /// The square the piece arrives on.
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 >> 7) as usize)
    }

    /// The 16-bit encoding (`from | to << 7`), stable for file formats.
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Decodes [`Move::to_u16`]; `None` if either square is off the board.
    pub fn from_u16(raw: u16) -> Option<Move> {
        let from = Square::from_index((raw & 0x7f) as usize)?;
        let to = Square::from_index((raw >> 7) as usize)?;
        (raw >> 14 == 0).then(|| Move::new(from, to))
    }

    /// Rebuilds a move from the [`Move::to_u16`] of a valid move, without
    /// checking it (for packing moves with other data; a value that is not
    /// such an encoding gives a move whose squares panic when used).
    #[inline]
    pub const fn from_u16_unchecked(raw: u16) -> Move {
        Move(raw)
    }

    /// The same move seen in a left-right mirror.
    #[inline]
    pub const fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }
}

impl fmt::Display for Move {
    /// ICCS, lower case: `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A move in ICCS coordinates, parsed without a position: `h2e2`, `H2-E2`.
/// Resolve it against a position with [`crate::Position::resolve`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct IccsMove {
    pub from: Square,
    pub to: Square,
}

/// Why a string is not an ICCS move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a move in ICCS notation (like h2e2 or H2-E2)")]
pub struct ParseMoveError {
    /// The offending text, shortened if long.
    pub text: String,
}

impl FromStr for IccsMove {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<IccsMove, ParseMoveError> {
        let err = || ParseMoveError {
            text: s.chars().take(20).collect(),
        };
        let (a, b) = match s.len() {
            4 => (s.get(0..2), s.get(2..4)),
            5 if s.as_bytes()[2] == b'-' => (s.get(0..2), s.get(3..5)),
            _ => return Err(err()),
        };
        let from = a.and_then(Square::parse).ok_or_else(err)?;
        let to = b.and_then(Square::parse).ok_or_else(err)?;
        if from == to {
            return Err(err());
        }
        Ok(IccsMove { from, to })
    }
}

impl From<Move> for IccsMove {
    fn from(m: Move) -> IccsMove {
        IccsMove {
            from: m.from(),
            to: m.to(),
        }
    }
}

/// Upper bound on the pseudo-legal moves of one side: two rooks and two cannons
/// with 17 each, two horses with 8, king 4, advisors 5, elephants 8, pawns 15.
pub const MAX_MOVES: usize = 128;

/// A fixed-capacity list of moves, filled by the move generator without allocating.
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_MOVES],
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [Move(0); MAX_MOVES],
        }
    }

    #[inline]
    /// Appends a move. Panics if the list is full ([`MAX_MOVES`]).
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Keeps only the moves for which `keep` is true, preserving order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if keep(m) {
                self.moves[kept] = m;
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Removes every move.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// All [`MAX_MOVES`] places of the list, for a filler that keeps its
    /// own count and sets it with [`MoveList::set_len`] when done.
    #[inline]
    pub fn storage_mut(&mut self) -> &mut [Move; MAX_MOVES] {
        &mut self.moves
    }

    /// Makes the first `len` places the list. Panics beyond [`MAX_MOVES`].
    #[inline]
    pub fn set_len(&mut self, len: usize) {
        assert!(len <= MAX_MOVES, "{len} moves");
        self.len = len;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl std::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
