//! Which inputs a position activates, and which output bucket it uses.
//!
//! These numbers are part of the net file format (its architecture id):
//! changing them means a new [`crate::FORMAT_VERSION`].

use xqcore::{Board, Color, Piece, Role, Square};

/// Inputs of one perspective: 14 pieces x 90 squares.
pub const INPUTS: usize = 14 * 90;

/// Squares of a palace: the king buckets of [`FeatureSet::KingSquare`].
pub const PALACE: usize = 9;

/// Output buckets, by attacking material.
pub const BUCKETS: usize = 8;

/// The input layouts a net file can name, by the id in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FeatureSet {
    /// Each piece on each square, own and enemy, from each side's view
    /// ([`feature`]): [`INPUTS`] a perspective.
    PieceSquare,
    /// The piece-square inputs once for each square of the perspective's
    /// own king in its palace ([`PALACE`] x [`INPUTS`]): a net that knows
    /// where the king stands (chess nets' king buckets). A king move
    /// changes every input of its side's perspective.
    KingSquare,
}

impl FeatureSet {
    /// The id written in a net file's header.
    pub const fn id(self) -> u16 {
        match self {
            FeatureSet::PieceSquare => 0,
            FeatureSet::KingSquare => 1,
        }
    }

    /// The feature set of a header's id; `None` for one this program
    /// does not know.
    pub const fn from_id(id: u16) -> Option<FeatureSet> {
        match id {
            0 => Some(FeatureSet::PieceSquare),
            1 => Some(FeatureSet::KingSquare),
            _ => None,
        }
    }

    /// Inputs of one perspective.
    pub const fn inputs(self) -> usize {
        match self {
            FeatureSet::PieceSquare => INPUTS,
            FeatureSet::KingSquare => PALACE * INPUTS,
        }
    }

    /// Whether a move of `perspective`'s own king changes all its inputs.
    #[inline]
    pub const fn king_relative(self) -> bool {
        matches!(self, FeatureSet::KingSquare)
    }

    /// The input that `piece` on `sq` activates in `perspective`'s half,
    /// that side's king standing on `king`.
    #[inline]
    pub fn feature(self, perspective: Color, piece: Piece, sq: Square, king: Square) -> usize {
        match self {
            FeatureSet::PieceSquare => feature(perspective, piece, sq),
            FeatureSet::KingSquare => {
                palace_index(perspective, king) * INPUTS + feature(perspective, piece, sq)
            }
        }
    }

    /// The input of a feature seen in a left-right mirror.
    #[inline]
    pub fn mirrored(self, f: usize) -> usize {
        match self {
            FeatureSet::PieceSquare => mirrored(f),
            FeatureSet::KingSquare => {
                let (king, rest) = (f / INPUTS, f % INPUTS);
                (king / 3 * 3 + 2 - king % 3) * INPUTS + mirrored(rest)
            }
        }
    }
}

/// The square of `perspective`'s king in its palace as that side sees it:
/// rank (0 to 2 from its own side) x 3 + file (0 to 2 from its left). A
/// board without that king (only in tests) counts it on its home square.
#[inline]
fn palace_index(perspective: Color, king: Square) -> usize {
    let seen = if perspective == Color::Red {
        king
    } else {
        king.rotate()
    };
    let rank = usize::from(seen.rank()).min(2);
    let file = usize::from(seen.file()).clamp(3, 5) - 3;
    rank * 3 + file
}

/// The square of `color`'s king on `board` (its home square when there is
/// none, which only test boards lack).
#[inline]
pub(crate) fn king_square(board: &Board, color: Color) -> Square {
    let bits = board.piece_bits(Piece::new(color, Role::King));
    Square::from_index(bits.trailing_zeros() as usize).unwrap_or(king_home(color))
}

/// `color`'s king's home square (e0 or e9).
#[inline]
pub fn king_home(color: Color) -> Square {
    Square::from_index(if color == Color::Red { 4 } else { 85 }).expect("a square")
}

impl std::str::FromStr for FeatureSet {
    type Err = String;

    /// Parses the names [`FeatureSet`]'s `Display` writes.
    fn from_str(s: &str) -> Result<FeatureSet, String> {
        match s {
            "piece-square" => Ok(FeatureSet::PieceSquare),
            "king-square" => Ok(FeatureSet::KingSquare),
            _ => Err(format!(
                "unknown feature set {s:?} (piece-square or king-square)"
            )),
        }
    }
}

impl std::fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FeatureSet::PieceSquare => "piece-square",
            FeatureSet::KingSquare => "king-square",
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
pub(crate) fn mirrored(feature: usize) -> usize {
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
        for set in [FeatureSet::PieceSquare, FeatureSet::KingSquare] {
            assert_eq!(FeatureSet::from_id(set.id()), Some(set));
            assert_eq!(set.to_string().parse(), Ok(set));
        }
        assert!("king".parse::<FeatureSet>().is_err());
        assert_eq!(FeatureSet::from_id(7), None);
        assert_eq!(FeatureSet::PieceSquare.inputs(), INPUTS);
    }

    /// The palace squares of `color`.
    fn palace(color: Color) -> Vec<Square> {
        let ranks = if color == Color::Red { 0..3 } else { 7..10 };
        ranks
            .flat_map(|r| (3..6).map(move |f| Square::new(f, r).unwrap()))
            .collect()
    }

    #[test]
    fn king_square_inputs_are_distinct_and_swap_and_mirror() {
        let set = FeatureSet::KingSquare;
        for perspective in Color::ALL {
            let mut seen = vec![false; set.inputs()];
            for king in palace(perspective) {
                for p in 0..14 {
                    for sq in Square::all() {
                        let piece = Piece::from_index(p);
                        let f = set.feature(perspective, piece, sq, king);
                        assert!(!seen[f], "{f} twice");
                        seen[f] = true;
                        let m = set.feature(perspective, piece, sq.mirror(), king.mirror());
                        assert_eq!(set.mirrored(f), m);
                        // The other colour, from the other side.
                        let other = Piece::new(!piece.color, piece.role);
                        assert_eq!(
                            set.feature(!perspective, other, sq.rotate(), king.rotate()),
                            f
                        );
                    }
                }
            }
            assert!(seen.iter().all(|&s| s), "every input reachable");
        }
    }

    #[test]
    fn buckets_go_from_full_board_to_bare_kings() {
        assert_eq!(bucket(Position::start().board()), BUCKETS - 1);
        let bare = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
        assert_eq!(bucket(bare.board()), 0);
    }
}
