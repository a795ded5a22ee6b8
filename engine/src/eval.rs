//! Static evaluation, in centipawns from the side to move's view.
//!
//! Terms: material, piece-square tables, mobility, king safety. Every weight
//! lives in [`EvalParams`] so it can be tuned later; [`Knowledge`] switches
//! groups of terms off (the UCCI `knowledge` option).

use xqcore::{Color, Piece, Position, Role, Square};

/// How much the evaluation knows (UCCI `knowledge`: none, small, medium, large).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Knowledge {
    /// Material only.
    None,
    /// Material and piece-square tables.
    Small,
    /// Plus mobility.
    Medium,
    /// Plus king safety.
    Large,
}

/// Every evaluation weight.
#[derive(Clone, Debug)]
pub struct EvalParams {
    /// Material by role index (king counted as 0: both sides always have one).
    pub material: [i32; 7],
    /// Piece-square tables by role, from Red's view, indexed by square.
    pub pst: [[i32; 90]; 7],
    /// Mobility per reachable square: rook, horse, cannon.
    pub mobility: [i32; 3],
    /// Penalty per missing advisor and elephant, times the enemy's attacking force.
    pub missing_advisor: i32,
    pub missing_elephant: i32,
    /// Enemy cannon on the king's file with nothing between (an "empty-head cannon").
    pub open_cannon: i32,
    /// Bonus for the side to move.
    pub tempo: i32,
    /// Material plus table value by piece index and square, derived from
    /// `material` and `pst` by [`EvalParams::derive`].
    psq: [[i32; 90]; 14],
}

/// Table rows run from rank 9 (the far side) down to rank 0 (the own back rank),
/// so they read like the board seen from Red's side.
const fn table(rows: [[i32; 9]; 10]) -> [i32; 90] {
    let mut t = [0; 90];
    let mut r = 0;
    while r < 10 {
        let mut f = 0;
        while f < 9 {
            t[(9 - r) * 9 + f] = rows[r][f];
            f += 1;
        }
        r += 1;
    }
    t
}

const KING_PST: [i32; 90] = table([
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0, 0, 0, -30, -35, -30, 0, 0, 0],
    [0, 0, 0, -12, -15, -12, 0, 0, 0],
    [0, 0, 0, 2, 6, 2, 0, 0, 0],
]);

const ADVISOR_PST: [i32; 90] = table([
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0, 0, 0, -4, 0, -4, 0, 0, 0],
    [0, 0, 0, 0, 6, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

const ELEPHANT_PST: [i32; 90] = table([
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0; 9],
    [0, 0, -6, 0, 0, 0, -6, 0, 0],
    [0; 9],
    [-4, 0, 0, 0, 10, 0, 0, 0, -4],
    [0; 9],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
]);

const HORSE_PST: [i32; 90] = table([
    [0, -5, 2, 4, -8, 4, 2, -5, 0],
    [2, 12, 22, 30, 8, 30, 22, 12, 2],
    [6, 20, 26, 30, 24, 30, 26, 20, 6],
    [6, 16, 22, 26, 26, 26, 22, 16, 6],
    [2, 12, 16, 20, 20, 20, 16, 12, 2],
    [0, 6, 12, 14, 16, 14, 12, 6, 0],
    [0, 2, 6, 10, 6, 10, 6, 2, 0],
    [0, 0, 6, 2, 10, 2, 6, 0, 0],
    [-10, -4, 0, -4, -20, -4, 0, -4, -10],
    [-20, -10, -4, -10, -20, -10, -4, -10, -20],
]);

const ROOK_PST: [i32; 90] = table([
    [6, 10, 6, 16, 12, 16, 6, 10, 6],
    [10, 16, 12, 22, 26, 22, 12, 16, 10],
    [6, 10, 8, 16, 20, 16, 8, 10, 6],
    [6, 12, 12, 16, 16, 16, 12, 12, 6],
    [10, 16, 16, 20, 20, 20, 16, 16, 10],
    [6, 12, 12, 16, 16, 16, 12, 12, 6],
    [0, 6, 6, 10, 10, 10, 6, 6, 0],
    [-2, 6, 2, 10, 6, 10, 2, 6, -2],
    [-6, 2, 0, 6, 0, 6, 0, 2, -6],
    [-12, 2, -4, 6, 0, 6, -4, 2, -12],
]);

const CANNON_PST: [i32; 90] = table([
    [10, 10, 0, -8, -12, -8, 0, 10, 10],
    [6, 6, 0, -4, -10, -4, 0, 6, 6],
    [4, 4, 0, 0, -4, 0, 0, 4, 4],
    [0, 4, 4, 2, 10, 2, 4, 4, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [0, 0, 4, 0, 14, 0, 4, 0, 0],
    [0, 0, 0, 0, 10, 0, 0, 0, 0],
    [4, 4, 4, 10, 20, 10, 4, 4, 4],
    [0, 4, 6, 6, 10, 6, 6, 4, 0],
    [0, 0, 4, 6, 6, 6, 4, 0, 0],
]);

const PAWN_PST: [i32; 90] = table([
    [0, 2, 4, 12, 20, 12, 4, 2, 0],
    [30, 50, 70, 90, 100, 90, 70, 50, 30],
    [30, 50, 66, 86, 96, 86, 66, 50, 30],
    [26, 40, 56, 66, 76, 66, 56, 40, 26],
    [20, 30, 36, 46, 50, 46, 36, 30, 20],
    [0, 0, -6, 0, 12, 0, -6, 0, 0],
    [0, 0, -6, 0, 8, 0, -6, 0, 0],
    [0; 9],
    [0; 9],
    [0; 9],
]);

impl EvalParams {
    /// Recomputes the derived tables after `material` or `pst` changed.
    pub fn derive(mut self) -> Self {
        for piece_index in 0..14 {
            let piece = Piece::from_index(piece_index);
            for sq in Square::all() {
                self.psq[piece_index][sq.index()] = self.material[piece.role.index()]
                    + self.pst[piece.role.index()][relative(sq, piece.color)];
            }
        }
        self
    }
}

impl Default for EvalParams {
    fn default() -> Self {
        EvalParams {
            material: [0, 120, 120, 400, 900, 450, 100],
            pst: [
                KING_PST,
                ADVISOR_PST,
                ELEPHANT_PST,
                HORSE_PST,
                ROOK_PST,
                CANNON_PST,
                PAWN_PST,
            ],
            mobility: [3, 8, 2],
            missing_advisor: 9,
            missing_elephant: 6,
            open_cannon: 60,
            tempo: 10,
            psq: [[0; 90]; 14],
        }
        .derive()
    }
}

/// The square as seen from `color`'s side, for its piece-square tables.
#[inline]
fn relative(sq: Square, color: Color) -> usize {
    match color {
        Color::Red => sq.index(),
        Color::Black => sq.rotate().mirror().index(),
    }
}

/// Material plus piece-square value of one piece, from its owner's view.
#[inline]
pub fn piece_value(params: &EvalParams, knowledge: Knowledge, piece: Piece, sq: Square) -> i32 {
    if knowledge >= Knowledge::Small {
        params.psq[piece.index()][sq.index()]
    } else {
        params.material[piece.role.index()]
    }
}

/// Counts per side used by several terms.
#[derive(Default)]
struct Census {
    count: [[i32; 7]; 2],
    crossed_pawns: [i32; 2],
}

/// Evaluates `pos` from the side to move's view.
pub fn evaluate(pos: &Position, params: &EvalParams, knowledge: Knowledge) -> i32 {
    evaluate_lazy(pos, params, knowledge, -i32::MAX, i32::MAX)
}

/// Margin beyond which mobility and king safety cannot bring a score back
/// inside the window: they are skipped (lazy evaluation).
pub const LAZY_MARGIN: i32 = 350;

/// Like [`evaluate`], but returns the material and table score alone when it
/// is more than [`LAZY_MARGIN`] outside `(alpha, beta)`.
pub fn evaluate_lazy(
    pos: &Position,
    params: &EvalParams,
    knowledge: Knowledge,
    alpha: i32,
    beta: i32,
) -> i32 {
    let board = pos.board();
    let us = pos.turn().index();
    let mut score = [0i32; 2];
    for (sq, piece) in board.pieces() {
        score[piece.color.index()] += piece_value(params, knowledge, piece, sq);
    }
    let base = score[us] - score[us ^ 1] + params.tempo;
    if knowledge < Knowledge::Medium || base - LAZY_MARGIN >= beta || base + LAZY_MARGIN <= alpha {
        return base;
    }
    let mut extra = [0i32; 2];
    let mut census = Census::default();
    for (sq, piece) in board.pieces() {
        let c = piece.color.index();
        census.count[c][piece.role.index()] += 1;
        if piece.role == Role::Pawn && !sq.on_own_side(piece.color) {
            census.crossed_pawns[c] += 1;
        }
        extra[c] += mobility(pos, sq, piece, params);
    }
    if knowledge >= Knowledge::Large {
        for color in Color::ALL {
            extra[color.index()] -= king_danger(pos, color, &census, params);
        }
    }
    base + extra[us] - extra[us ^ 1]
}

/// Squares reachable by rooks, horses (legs free) and cannons (quiet moves).
fn mobility(pos: &Position, sq: Square, piece: Piece, params: &EvalParams) -> i32 {
    let board = pos.board();
    match piece.role {
        Role::Rook => board.slide_squares(sq) as i32 * params.mobility[0],
        Role::Cannon => board.slide_squares(sq) as i32 * params.mobility[2],
        // A horse with two or fewer moves is hemmed in: score relative to that.
        Role::Horse => (board.horse_squares(sq, piece.color) as i32 - 2) * params.mobility[1],
        _ => 0,
    }
}

/// How exposed `color`'s king is: missing defenders weighted by the enemy's
/// attacking force, and an enemy cannon facing the king on an open file.
fn king_danger(pos: &Position, color: Color, census: &Census, params: &EvalParams) -> i32 {
    let (us, them) = (color.index(), (!color).index());
    let force = 2 * census.count[them][Role::Rook.index()]
        + census.count[them][Role::Horse.index()]
        + census.count[them][Role::Cannon.index()]
        + census.crossed_pawns[them] / 2;
    let missing_advisors = 2 - census.count[us][Role::Advisor.index()];
    let missing_elephants = 2 - census.count[us][Role::Elephant.index()];
    let mut danger = force
        * (missing_advisors * params.missing_advisor + missing_elephants * params.missing_elephant);
    let king = pos.king(color);
    let board = pos.board();
    let step: i32 = if color == Color::Red { 1 } else { -1 };
    let mut rank = king.rank() as i32 + step;
    while (0..10).contains(&rank) {
        let sq = Square::new(king.file(), rank as u8).expect("on board");
        if let Some(p) = board.piece_at(sq) {
            if p.color != color && p.role == Role::Cannon {
                danger += params.open_cannon;
            }
            break;
        }
        rank += step;
    }
    danger
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_for_both_sides() {
        let params = EvalParams::default();
        let red = evaluate(&Position::start(), &params, Knowledge::Large);
        let black =
            Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")
                .unwrap();
        assert_eq!(red, params.tempo);
        assert_eq!(evaluate(&black, &params, Knowledge::Large), params.tempo);
    }

    #[test]
    fn evaluation_is_colour_symmetric_and_mirror_symmetric() {
        let params = EvalParams::default();
        let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w";
        let pos = Position::from_fen(fen).unwrap();
        let mut setup = pos.to_setup();
        setup.board = setup.board.flip_colors();
        setup.turn = !setup.turn;
        let flipped = Position::from_setup(setup).unwrap();
        for k in [
            Knowledge::None,
            Knowledge::Small,
            Knowledge::Medium,
            Knowledge::Large,
        ] {
            let e = evaluate(&pos, &params, k);
            assert_eq!(e, evaluate(&flipped, &params, k), "{k:?}");
            assert_eq!(e, evaluate(&pos.mirror(), &params, k), "{k:?}");
        }
    }

    #[test]
    fn extra_material_scores_higher() {
        let params = EvalParams::default();
        let up_a_rook =
            Position::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                .unwrap();
        assert!(evaluate(&up_a_rook, &params, Knowledge::Large) > 700);
        assert!(evaluate(&up_a_rook, &params, Knowledge::None) == 900 + params.tempo);
    }
}
