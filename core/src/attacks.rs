//! Attack sets as bitboards (bit `i` = square index `i`), for evaluation:
//! which squares each piece attacks or defends, given the placement.
//!
//! A rook attacks the empty squares it can slide to and the first piece each
//! way; a cannon attacks past its screen: the empty squares beyond it and the
//! piece it would capture. Blocked horse legs and elephant eyes are honoured.
//! Pieces of either colour count, so the sets serve for attack and defence.

use crate::board::Board;
use crate::tables::{
    ADVISOR_STEPS, BIT, ELEPHANT_STEPS, FILE_OF, FILE_SLIDES, HORSE_STEPS, KING_STEPS, PAWN_STEPS,
    RANK_OF, RANK_SLIDES,
};
use crate::types::{Color, Square, NUM_SQUARES};

/// A set of squares.
pub type Bitboard = u128;

/// All 90 squares.
pub const ALL_SQUARES: Bitboard = (1u128 << NUM_SQUARES) - 1;

/// Spreads a file's 10 rank bits over the squares of file `a`.
static FILE_SPREAD: [Bitboard; 1024] = {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m & (1 << r) != 0 {
                t[m] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// The squares of a step table as bitboards, for pieces whose steps cannot be blocked.
const fn step_sets(steps: &[crate::tables::SqList<4>; NUM_SQUARES]) -> [Bitboard; NUM_SQUARES] {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut i = 0;
        while i < steps[s].len as usize {
            t[s] |= 1u128 << steps[s].sq[i];
            i += 1;
        }
        s += 1;
    }
    t
}

static KING_SETS: [Bitboard; NUM_SQUARES] = step_sets(&KING_STEPS);
static ADVISOR_SETS: [Bitboard; NUM_SQUARES] = step_sets(&ADVISOR_STEPS);

/// Iterates the squares of a bitboard, lowest index first.
#[inline]
pub fn squares(bb: Bitboard) -> impl Iterator<Item = Square> {
    crate::board::bits(bb).map(Square::from_index_unchecked)
}

#[inline]
fn lines(sq: Square) -> (usize, usize) {
    (RANK_OF[sq.index()] as usize, FILE_OF[sq.index()] as usize)
}

#[inline]
fn spread(rank: usize, file: usize, rank_bits: u16, file_bits: u16) -> Bitboard {
    ((rank_bits as u128) << (rank * 9)) | (FILE_SPREAD[file_bits as usize] << file)
}

impl Board {
    /// Squares a rook on `sq` attacks: empty squares in reach and the first piece each way.
    #[inline]
    pub fn rook_attacks(&self, sq: Square) -> Bitboard {
        let (r, f) = lines(sq);
        let rank = &RANK_SLIDES[f][self.ranks[r] as usize];
        let file = &FILE_SLIDES[r][self.files[f] as usize];
        spread(r, f, rank.quiet | rank.rook, file.quiet | file.rook)
    }

    /// Squares a cannon on `sq` attacks: past its screen, up to the piece it would capture.
    #[inline]
    pub fn cannon_attacks(&self, sq: Square) -> Bitboard {
        let (r, f) = lines(sq);
        let rank = &RANK_SLIDES[f][self.ranks[r] as usize];
        let file = &FILE_SLIDES[r][self.files[f] as usize];
        spread(r, f, rank.over, file.over)
    }

    /// Empty squares a rook or cannon on `sq` can move to.
    #[inline]
    pub fn slide_quiets(&self, sq: Square) -> Bitboard {
        let (r, f) = lines(sq);
        let rank = &RANK_SLIDES[f][self.ranks[r] as usize];
        let file = &FILE_SLIDES[r][self.files[f] as usize];
        spread(r, f, rank.quiet, file.quiet)
    }

    /// Squares a horse on `sq` attacks (its leg toward each one free).
    #[inline]
    pub fn horse_attacks(&self, sq: Square) -> Bitboard {
        let mut bb = 0;
        for &(to, leg) in HORSE_STEPS[sq.index()].as_slice() {
            if self.squares[leg as usize] == 0 {
                bb |= BIT[to as usize];
            }
        }
        bb
    }

    /// Squares an elephant on `sq` attacks (its eye toward each one free).
    #[inline]
    pub fn elephant_attacks(&self, sq: Square) -> Bitboard {
        let mut bb = 0;
        for &(to, eye) in ELEPHANT_STEPS[sq.index()].as_slice() {
            if self.squares[eye as usize] == 0 {
                bb |= BIT[to as usize];
            }
        }
        bb
    }
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    let mut bb = 0;
    for &to in PAWN_STEPS[color.index()][sq.index()].as_slice() {
        bb |= BIT[to as usize];
    }
    bb
}

/// Squares an advisor on `sq` attacks.
#[inline]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    ADVISOR_SETS[sq.index()]
}

/// Squares a king on `sq` attacks (its palace steps).
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING_SETS[sq.index()]
}

/// The nine squares of `color`'s palace.
pub const fn palace(color: Color) -> Bitboard {
    let mut bb = 0u128;
    let mut r = 0;
    while r < 3 {
        let rank = match color {
            Color::Red => r,
            Color::Black => 9 - r,
        };
        let mut f = 3;
        while f <= 5 {
            bb |= 1u128 << (rank * 9 + f);
            f += 1;
        }
        r += 1;
    }
    bb
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn set(names: &[&str]) -> Bitboard {
        names.iter().fold(0, |bb, n| bb | 1u128 << sq(n).index())
    }

    #[test]
    fn slider_attacks_stop_at_pieces() {
        let pos = Position::start();
        let b = pos.board();
        // The red rook on a0 sees a1, a2 and the pawn on a3; b0 holds the horse.
        assert_eq!(b.rook_attacks(sq("a0")), set(&["a1", "a2", "a3", "b0"]));
        // The red cannon on b2: its screen upward is the black cannon on b7;
        // past it lie b8 and the horse on b9.
        let up = set(&["b8", "b9"]);
        assert_eq!(b.cannon_attacks(sq("b2")) & up, up);
        assert_eq!(b.cannon_attacks(sq("b2")) & set(&["b3", "b6"]), 0);
        assert_eq!(b.slide_quiets(sq("b2")).count_ones(), 11);
    }

    #[test]
    fn blocked_steps_are_not_attacks() {
        let pos = Position::start();
        let b = pos.board();
        // The horse on b0: its leg b1 is free, c0 holds the elephant.
        assert_eq!(b.horse_attacks(sq("b0")), set(&["a2", "c2"]));
        assert_eq!(b.elephant_attacks(sq("c0")), set(&["a2", "e2"]));
        assert_eq!(pawn_attacks(Color::Red, sq("e5")), set(&["e6", "d5", "f5"]));
        assert_eq!(palace(Color::Black).count_ones(), 9);
        assert_eq!(advisor_attacks(sq("e1")).count_ones(), 4);
        assert_eq!(king_attacks(sq("e0")), set(&["d0", "f0", "e1"]));
    }
}
