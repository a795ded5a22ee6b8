//! Zobrist keys.
//!
//! The keys are part of the book and table file formats, so they are fixed
//! constants: the output of [`SplitMix64`] from seed [`SEED`], taken in the order
//! piece index (0..14, Red king .. Black pawn) × square index (0..90), then the
//! side-to-move key. Changing any of this is a new [`KEY_SCHEME_VERSION`]; a test
//! pins sample values so the keys cannot drift by accident.

use crate::rng::SplitMix64;
use crate::types::{Color, Piece, Square, NUM_SQUARES};

/// Version of the key scheme, written into every book and table header.
pub const KEY_SCHEME_VERSION: u32 = 1;

/// Seed of the SplitMix64 sequence the keys are drawn from.
pub const SEED: u64 = 0x5849_414E_4751_4931; // "XIANGQI1"

struct Keys {
    piece_square: [[u64; NUM_SQUARES]; 14],
    black_to_move: u64,
}

const KEYS_TABLE: Keys = {
    let mut piece_square = [[0u64; NUM_SQUARES]; 14];
    let mut rng = SplitMix64::new(SEED);
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < NUM_SQUARES {
            piece_square[p][s] = rng.next_u64();
            s += 1;
        }
        p += 1;
    }
    Keys {
        piece_square,
        black_to_move: rng.next_u64(),
    }
};

static KEYS: Keys = KEYS_TABLE;

/// The keys by board code (`piece.index() + 1`), with zeros for code 0, the
/// empty square: XOR-ing in whatever stands on a target square then needs
/// no branch on whether the move captures.
static BY_CODE: [[u64; NUM_SQUARES]; 15] = {
    let mut t = [[0u64; NUM_SQUARES]; 15];
    let mut p = 0;
    while p < 14 {
        t[p + 1] = KEYS_TABLE.piece_square[p];
        p += 1;
    }
    t
};

/// The key of `piece` standing on `square`.
#[inline]
pub fn piece_key(piece: Piece, square: Square) -> u64 {
    KEYS.piece_square[piece.index()][square.index()]
}

#[inline]
pub(crate) fn piece_key_raw(piece_index: usize, square_index: usize) -> u64 {
    KEYS.piece_square[piece_index][square_index]
}

/// The key of the piece with board code `code` on `square_index`, 0 for
/// an empty square.
#[inline]
pub(crate) fn code_key(code: u8, square_index: usize) -> u64 {
    BY_CODE[code as usize][square_index]
}

/// The key XOR-ed in when Black is to move.
#[inline]
pub fn side_key(color: Color) -> u64 {
    match color {
        Color::Red => 0,
        Color::Black => KEYS.black_to_move,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Role;

    #[test]
    fn keys_are_the_published_constants() {
        // Pinned values: if this test fails, the key scheme changed and
        // KEY_SCHEME_VERSION must be raised (old books and tables become invalid).
        let red_king_a0 = piece_key(
            Piece::new(Color::Red, Role::King),
            Square::new(0, 0).unwrap(),
        );
        let black_pawn_i9 = piece_key(
            Piece::new(Color::Black, Role::Pawn),
            Square::new(8, 9).unwrap(),
        );
        assert_eq!(
            (red_king_a0, black_pawn_i9, side_key(Color::Black)),
            (PINNED_FIRST, PINNED_LAST, PINNED_SIDE)
        );
        assert_eq!(KEY_SCHEME_VERSION, 1);
    }

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KEYS.piece_square.iter().flatten().copied().collect();
        all.push(KEYS.black_to_move);
        assert!(all.iter().all(|&k| k != 0));
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 14 * 90 + 1);
    }

    #[test]
    fn every_key_is_as_published() {
        // All 14 * 90 piece keys in the order they are drawn, then the side
        // key, folded together (rotate left by 5, XOR): a change to any key
        // changes the fold.
        let fold = KEYS
            .piece_square
            .iter()
            .flatten()
            .chain([&KEYS.black_to_move])
            .fold(0u64, |h, &k| h.rotate_left(5) ^ k);
        assert_eq!(fold, PINNED_FOLD);
    }

    // Computed independently (a Python SplitMix64) from SEED.
    const PINNED_FOLD: u64 = 0x729c89d21ff2b778;
    const PINNED_FIRST: u64 = 0xe3cb3c19071cd063;
    const PINNED_LAST: u64 = 0x72e115f4a62a99a9;
    const PINNED_SIDE: u64 = 0x4cf8fcd3c28d2e4d;
}
