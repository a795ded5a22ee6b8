//! Which inputs a position activates, and which output bucket it uses.
//!
//! These numbers are part of the net file format (its architecture id):
//! changing them means a new [`crate::FORMAT_VERSION`].

use xqcore::{Board, Color, Piece, Role, Square};

/// Inputs of one perspective: 14 pieces x 90 squares.
pub const INPUTS: usize = 14 * 90;

/// Output buckets, by attacking material.
pub const BUCKETS: usize = 8;

/// The input layouts a net file can name, by the id in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FeatureSet {
    /// Each piece on each square, own and enemy, from each side's view
    /// ([`feature`]): [`INPUTS`] a perspective.
    PieceSquare,
}

impl FeatureSet {
    /// The id written in a net file's header.
    pub const fn id(self) -> u16 {
        match self {
            FeatureSet::PieceSquare => 0,
        }
    }

    /// The feature set of a header's id; `None` for one this program
    /// does not know.
    pub const fn from_id(id: u16) -> Option<FeatureSet> {
        match id {
            0 => Some(FeatureSet::PieceSquare),
            _ => None,
        }
    }

    /// Inputs of one perspective.
    pub const fn inputs(self) -> usize {
        match self {
            FeatureSet::PieceSquare => INPUTS,
        }
    }
}

impl std::fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FeatureSet::PieceSquare => "piece-square",
        })
    }
}

/// The input that `piece` on `sq` activates in `perspective`'s half: the
/// piece as own or enemy, the square as that side sees it (Black's view
/// is the board rotated, so both sides share one set of weights).
#[inline]
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let (relative, square) = if perspective == Color::Red {
        (piece.color.index(), sq.index())
    } else {
        (1 - piece.color.index(), sq.rotate().index())
    };
    (relative * 7 + piece.role.index()) * 90 + square
}

/// The input of a piece seen in a left-right mirror: the same piece on
/// the mirrored square (a position and its mirror have one value).
#[inline]
pub fn mirrored(feature: usize) -> usize {
    let (piece, square) = (feature / 90, feature % 90);
    let (rank, file) = (square / 9, square % 9);
    piece * 90 + rank * 9 + 8 - file
}

/// The output bucket of a position: its rooks, horses and cannons (both
/// sides; 0 to 12) spread over the buckets, rooks counting double.
#[inline]
pub fn bucket(board: &Board) -> usize {
    let count = |role| {
        (board.piece_bits(Piece::new(Color::Red, role))
            | board.piece_bits(Piece::new(Color::Black, role)))
        .count_ones() as usize
    };
    let material = 2 * count(Role::Rook) + count(Role::Horse) + count(Role::Cannon);
    // 0..=16 in 8 buckets: two material units a bucket, the top one open.
    (material / 2).min(BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Position;

    #[test]
    fn features_are_distinct_and_in_range() {
        for perspective in Color::ALL {
            let mut seen = vec![false; INPUTS];
            for p in 0..14 {
                for sq in Square::all() {
                    let f = feature(perspective, Piece::from_index(p), sq);
                    assert!(!seen[f], "{f} twice");
                    seen[f] = true;
                }
            }
        }
    }

    #[test]
    fn colours_swap_into_each_other() {
        // Red's piece on a square, seen by Red, is Black's piece on the
        // rotated square, seen by Black.
        for p in 0..7 {
            for sq in Square::all() {
                let red = Piece::from_index(p);
                let black = Piece::from_index(p + 7);
                assert_eq!(
                    feature(Color::Red, red, sq),
                    feature(Color::Black, black, sq.rotate())
                );
            }
        }
    }

    #[test]
    fn mirrored_inputs_are_the_mirrored_squares() {
        for p in 0..14 {
            for sq in Square::all() {
                let piece = Piece::from_index(p);
                for c in Color::ALL {
                    assert_eq!(
                        mirrored(feature(c, piece, sq)),
                        feature(c, piece, sq.mirror())
                    );
                }
            }
        }
    }

    #[test]
    fn feature_set_ids_round_trip() {
        let set = FeatureSet::PieceSquare;
        assert_eq!(FeatureSet::from_id(set.id()), Some(set));
        assert_eq!(FeatureSet::from_id(7), None);
        assert_eq!(set.inputs(), INPUTS);
    }

    #[test]
    fn buckets_go_from_full_board_to_bare_kings() {
        assert_eq!(bucket(Position::start().board()), BUCKETS - 1);
        let bare = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
        assert_eq!(bucket(bare.board()), 0);
    }
}
