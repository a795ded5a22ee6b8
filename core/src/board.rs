//! Piece placement: a square-indexed array, bitboards by colour and piece,
//! and bit-ranks and bit-files for sliding pieces.

use std::fmt;

use crate::tables::{BIT, FILE_OF, FILE_SLIDES, HORSE_STEPS, LINE_BITS, RANK_OF, RANK_SLIDES};
use crate::types::{Color, Piece, Role, Square, NUM_SQUARES};

/// Piece code on the board array: 0 for empty, `piece.index() + 1` otherwise.
pub(crate) type Code = u8;

#[inline]
pub(crate) const fn code(piece: Piece) -> Code {
    piece.index() as u8 + 1
}

/// The piece of each code (`None` for 0, the empty square).
pub(crate) static PIECE_OF_CODE: [Option<Piece>; 15] = {
    let mut t = [None; 15];
    let mut c = 1;
    while c < 15 {
        t[c] = Some(Piece::from_index(c - 1));
        c += 1;
    }
    t
};

/// Colour of a non-zero piece code.
#[inline]
pub(crate) const fn code_color(c: Code) -> Color {
    if c >= 8 {
        Color::Black
    } else {
        Color::Red
    }
}

/// Where the pieces stand: a square-indexed array, occupancy bitboards by
/// colour and by piece, and the occupancy of each rank and file as small bit
/// sets (ElephantEye's bit-ranks and bit-files), which the slide tables turn
/// into rook and cannon moves without walking rays. Kings are not required: a
/// [`Board`] may be any placement; [`crate::Position`] checks that it makes sense.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) squares: [Code; NUM_SQUARES],
    pub(crate) by_color: [u128; 2],
    pub(crate) by_piece: [u128; 14],
    /// Bit `file` of `ranks[rank]` is set when that square is occupied.
    pub(crate) ranks: [u16; 10],
    /// Bit `rank` of `files[file]` is set when that square is occupied.
    pub(crate) files: [u16; 9],
}

impl Board {
    /// A board with no pieces.
    pub const fn empty() -> Board {
        Board {
            squares: [0; NUM_SQUARES],
            by_color: [0; 2],
            by_piece: [0; 14],
            ranks: [0; 10],
            files: [0; 9],
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        PIECE_OF_CODE[self.squares[sq.index()] as usize]
    }

    /// Whether no piece stands on `sq`: one read of the board array.
    #[inline]
    pub fn is_empty(&self, sq: Square) -> bool {
        self.squares[sq.index()] == 0
    }

    /// The [`Piece::index`] of the piece on `sq`, if any: for tables
    /// indexed by piece, without building the [`Piece`].
    #[inline]
    pub fn piece_index_at(&self, sq: Square) -> Option<usize> {
        // Codes are the index plus one, 0 for an empty square.
        (self.squares[sq.index()] as usize).checked_sub(1)
    }

    /// The code of the piece on `sq`: 0 for an empty square, otherwise its
    /// [`Piece::index`] plus one. For tables with a row for the empty
    /// square, read without a branch on whether there is a piece.
    #[inline]
    pub fn code_at(&self, sq: Square) -> usize {
        self.squares[sq.index()] as usize
    }

    /// Puts `piece` on `sq`, replacing what stood there.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        let i = sq.index();
        let old = self.squares[i];
        if old != 0 {
            self.toggle(i, old);
        }
        if let Some(p) = piece {
            self.toggle(i, code(p));
        }
    }

    /// Adds a piece to an empty square or removes it from its square: every
    /// occupancy set flips the square's bit, the array follows.
    #[inline]
    pub(crate) fn toggle(&mut self, sq: usize, c: Code) {
        let bit = BIT[sq];
        self.by_color[code_color(c).index()] ^= bit;
        self.by_piece[c as usize - 1] ^= bit;
        let (on_rank, on_file) = LINE_BITS[sq];
        self.ranks[RANK_OF[sq] as usize] ^= on_rank;
        self.files[FILE_OF[sq] as usize] ^= on_file;
        self.squares[sq] = if self.squares[sq] == c { 0 } else { c };
    }

    /// Moves the piece on `from` to the empty square `to`.
    #[inline]
    pub(crate) fn shift(&mut self, from: usize, to: usize, c: Code) {
        let bits = BIT[from] | BIT[to];
        self.by_color[code_color(c).index()] ^= bits;
        self.by_piece[c as usize - 1] ^= bits;
        let (fr, ff, tr, tf) = (RANK_OF[from], FILE_OF[from], RANK_OF[to], FILE_OF[to]);
        let ((from_rank, from_file), (to_rank, to_file)) = (LINE_BITS[from], LINE_BITS[to]);
        self.ranks[fr as usize] ^= from_rank;
        self.ranks[tr as usize] ^= to_rank;
        self.files[ff as usize] ^= from_file;
        self.files[tf as usize] ^= to_file;
        self.squares[to] = c;
        self.squares[from] = 0;
    }

    /// Occupancy of all squares.
    #[inline]
    pub fn occupied(&self) -> u128 {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares of `color`'s pieces as a bitboard (bit = square index).
    #[inline]
    pub fn color_bits(&self, color: Color) -> u128 {
        self.by_color[color.index()]
    }

    /// Squares holding `piece` as a bitboard (bit = square index).
    #[inline]
    pub fn piece_bits(&self, piece: Piece) -> u128 {
        self.by_piece[piece.index()]
    }

    /// Every piece with its square, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        bits(self.by_color[0] | self.by_color[1]).map(|i| {
            (
                Square::from_index_unchecked(i),
                PIECE_OF_CODE[self.squares[i] as usize].expect("an occupied square"),
            )
        })
    }

    /// How many pieces of `color` there are.
    pub fn count_color(&self, color: Color) -> u32 {
        self.by_color[color.index()].count_ones()
    }

    /// Empty squares a rook or cannon on `sq` can slide to (its quiet moves).
    #[inline]
    pub fn slide_squares(&self, sq: Square) -> u32 {
        let (r, f) = (RANK_OF[sq.index()] as usize, FILE_OF[sq.index()] as usize);
        RANK_SLIDES[f][self.ranks[r] as usize].quiet.count_ones()
            + FILE_SLIDES[r][self.files[f] as usize].quiet.count_ones()
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
        bits(self.by_piece[piece.index()]).map(Square::from_index_unchecked)
    }

    /// How many pieces equal to `piece` there are.
    #[inline]
    pub fn count_of(&self, piece: Piece) -> u32 {
        self.by_piece[piece.index()].count_ones()
    }

    /// Pieces strictly between two squares of one rank or file (0 when the
    /// squares share neither).
    #[inline]
    pub fn pieces_between(&self, a: Square, b: Square) -> u32 {
        let (ai, bi) = (a.index(), b.index());
        let (line, lo, hi) = if RANK_OF[ai] == RANK_OF[bi] {
            let (x, y) = (FILE_OF[ai], FILE_OF[bi]);
            (self.ranks[RANK_OF[ai] as usize], x.min(y), x.max(y))
        } else if FILE_OF[ai] == FILE_OF[bi] {
            let (x, y) = (RANK_OF[ai], RANK_OF[bi]);
            (self.files[FILE_OF[ai] as usize], x.min(y), x.max(y))
        } else {
            return 0;
        };
        let between = ((1u32 << hi) - 1) & !((2u32 << lo) - 1);
        (line as u32 & between).count_ones()
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

/// Iterates the set bits of a line's occupancy as point indices.
#[inline]
pub(crate) fn bits16(mut b: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(i)
        }
    })
}

/// Iterates the set bits of a 90-square bitboard as square indices.
#[inline]
pub(crate) fn bits(bb: u128) -> impl Iterator<Item = usize> {
    // Word by word: 64-bit bit scans are cheaper than 128-bit ones.
    let (mut lo, mut hi) = (bb as u64, (bb >> 64) as u64);
    std::iter::from_fn(move || {
        if lo != 0 {
            let i = lo.trailing_zeros() as usize;
            lo &= lo - 1;
            Some(i)
        } else if hi != 0 {
            let i = hi.trailing_zeros() as usize;
            hi &= hi - 1;
            Some(64 + i)
        } else {
            None
        }
    })
}

/// The codes of `color`'s pieces in [`Role`] order.
#[inline]
pub(crate) const fn codes(color: Color) -> [Code; 7] {
    let k = color.index() as Code * 7 + 1;
    [k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6]
}

/// The role of a non-zero piece code.
#[inline]
pub(crate) fn role_of(c: Code) -> Role {
    const ROLES: [Role; 15] = {
        let mut t = [Role::King; 15];
        let mut c = 1;
        while c < 15 {
            t[c] = Role::ALL[(c - 1) % 7];
            c += 1;
        }
        t
    };
    ROLES[c as usize]
}

/// Whether code `c` is a piece of the side opposing `us`.
#[inline]
pub(crate) fn is_enemy(c: Code, us: Color) -> bool {
    c != 0 && (c >= 8) as usize != us.index()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_lists_set_squares_in_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let high = state.rotate_left(29) & ((1 << (NUM_SQUARES - 64)) - 1);
            // Sparse, dense, low-only and high-only boards.
            for bb in [
                (high as u128) << 64 | state as u128,
                ((high as u128) << 64 | state as u128) & (state as u128).rotate_left(7),
                state as u128,
                (high as u128) << 64,
            ] {
                let expected: Vec<usize> = (0..NUM_SQUARES).filter(|&i| bb >> i & 1 != 0).collect();
                assert_eq!(bits(bb).collect::<Vec<_>>(), expected);
            }
        }
    }
}
