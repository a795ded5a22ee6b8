//! Piece placement: a square-indexed array plus one occupancy bitboard per colour.

use std::fmt;

use crate::tables::{HORSE_STEPS, RAYS};
use crate::types::{Color, Piece, Square, NUM_SQUARES};

/// Piece code on the board array: 0 for empty, `piece.index() + 1` otherwise.
pub(crate) type Code = u8;

#[inline]
pub(crate) const fn code(piece: Piece) -> Code {
    piece.index() as u8 + 1
}

/// Colour of a non-zero piece code.
#[inline]
pub(crate) const fn code_color(c: Code) -> Color {
    if c >= 8 {
        Color::Black
    } else {
        Color::Red
    }
}

/// Where the pieces stand. Kings are not required: a [`Board`] may be any
/// placement; [`crate::Position`] checks that it makes sense.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) squares: [Code; NUM_SQUARES],
    pub(crate) by_color: [u128; 2],
}

impl Board {
    /// A board with no pieces.
    pub const fn empty() -> Board {
        Board {
            squares: [0; NUM_SQUARES],
            by_color: [0; 2],
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        match self.squares[sq.index()] {
            0 => None,
            c => Some(Piece::from_index(c as usize - 1)),
        }
    }

    /// Puts `piece` on `sq`, replacing what stood there.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        let i = sq.index();
        let bit = 1u128 << i;
        self.by_color[0] &= !bit;
        self.by_color[1] &= !bit;
        self.squares[i] = piece.map_or(0, code);
        if let Some(p) = piece {
            self.by_color[p.color.index()] |= bit;
        }
    }

    /// Every piece with its square, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        bits(self.by_color[0] | self.by_color[1]).map(|i| {
            (
                Square::from_index_unchecked(i),
                Piece::from_index(self.squares[i] as usize - 1),
            )
        })
    }

    /// How many pieces of `color` there are.
    pub fn count_color(&self, color: Color) -> u32 {
        self.by_color[color.index()].count_ones()
    }

    /// Empty squares a rook or cannon on `sq` can slide to (its quiet moves).
    pub fn slide_squares(&self, sq: Square) -> u32 {
        let mut n = 0;
        for ray in &RAYS[sq.index()] {
            n += ray
                .as_slice()
                .iter()
                .take_while(|&&s| self.squares[s as usize] == 0)
                .count();
        }
        n as u32
    }

    /// Squares a horse of `color` on `sq` can move to: leg free, not holding
    /// a piece of its own colour.
    pub fn horse_squares(&self, sq: Square, color: Color) -> u32 {
        HORSE_STEPS[sq.index()]
            .as_slice()
            .iter()
            .filter(|&&(to, leg)| {
                let target = self.squares[to as usize];
                self.squares[leg as usize] == 0 && (target == 0 || code_color(target) != color)
            })
            .count() as u32
    }

    /// Squares of the pieces equal to `piece`.
    pub fn squares_of(&self, piece: Piece) -> impl Iterator<Item = Square> + '_ {
        let c = code(piece);
        Square::all().filter(move |sq| self.squares[sq.index()] == c)
    }

    /// Number of pieces on the board.
    pub fn count(&self) -> u32 {
        (self.by_color[0] | self.by_color[1]).count_ones()
    }

    /// The board seen in a left-right mirror.
    pub fn mirror(&self) -> Board {
        let mut b = Board::empty();
        for (sq, p) in self.pieces() {
            b.set(sq.mirror(), Some(p));
        }
        b
    }

    /// The board with colours swapped and turned round (Red becomes Black).
    pub fn flip_colors(&self) -> Board {
        let mut b = Board::empty();
        for (sq, p) in self.pieces() {
            b.set(sq.rotate(), Some(Piece::new(!p.color, p.role)));
        }
        b
    }

    /// The placement field of a FEN: ranks 9 down to 0.
    pub fn fen_placement(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.piece_at(Square::new(file, rank).expect("on board")) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::empty()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.fen_placement())
    }
}

/// Iterates the set bits of a 90-square bitboard as square indices.
#[inline]
pub(crate) fn bits(mut bb: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let i = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            Some(i)
        }
    })
}
