//! Win, draw and loss from a score: the model of Stockfish's win-rate
//! model, fitted on our own self-play games (`xqtrain wdl`; docs/wdl.md
//! has the fit, its data and its error).
//!
//! For the side to move, with `s` the score in the net's own centipawns
//! ([`SearchConfig::score_in_net_units`](crate::SearchConfig::score_in_net_units))
//! and `x` the material on the board as a share of the start's
//! ([`material`]):
//!
//! - win = 1 / (1 + e^((a(x) − s) / b(x)))
//! - loss = 1 / (1 + e^((a(x) + s) / b(x)))
//! - draw = 1 − win − loss
//!
//! where `a` (the score that wins half the games) and `b` (how fast the
//! odds turn) are cubics in `x`.

use xqcore::{Color, Piece, Position, Role};

/// The material count of a piece: rook 18, cannon 9, horse 8, advisor
/// and elephant 4, pawn 2 (twice the usual values, to stay whole).
fn piece_material(role: Role) -> u32 {
    match role {
        Role::Rook => 18,
        Role::Cannon => 9,
        Role::Horse => 8,
        Role::Advisor | Role::Elephant => 4,
        Role::Pawn => 2,
        Role::King => 0,
    }
}

/// The material count of the start position.
pub const START_MATERIAL: u32 = 192;

/// The material on the board of both sides, kings not counted (the start
/// position: [`START_MATERIAL`]).
pub fn material_count(pos: &Position) -> u32 {
    [Color::Red, Color::Black]
        .iter()
        .flat_map(|&c| {
            [
                Role::Rook,
                Role::Cannon,
                Role::Horse,
                Role::Advisor,
                Role::Elephant,
                Role::Pawn,
            ]
            .map(move |r| (c, r))
        })
        .map(|(c, r)| pos.board().count_of(Piece::new(c, r)) * piece_material(r))
        .sum()
}

/// The material on the board as a share of the start's, 0 to 1.
pub fn material(pos: &Position) -> f64 {
    f64::from(material_count(pos).min(START_MATERIAL)) / f64::from(START_MATERIAL)
}

/// The model's coefficients: `a` and `b`, cubics in the material share,
/// lowest power first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

/// The model fitted on our self-play games: `xqtrain wdl` on 43,676
/// games of net 909f0427 (seeds 132 to 134, 4.17 M scored positions;
/// docs/wdl.md).
pub const WDL_MODEL: WdlModel = WdlModel {
    a: [448.090, 765.344, -2627.261, 1625.507],
    b: [41.272, 368.972, 108.447, -160.432],
};

fn cubic(c: &[f64; 4], x: f64) -> f64 {
    ((c[3] * x + c[2]) * x + c[1]) * x + c[0]
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// `a` and `b` at material share `x` (`b` kept positive).
    pub fn parameters(&self, x: f64) -> (f64, f64) {
        (cubic(&self.a, x), cubic(&self.b, x).max(1.0))
    }

    /// Win, draw and loss for the side to move, as probabilities, at
    /// `score` (net units) and material share `x`.
    pub fn probabilities(&self, score: f64, x: f64) -> (f64, f64, f64) {
        let (a, b) = self.parameters(x);
        let win = logistic((score - a) / b);
        let loss = logistic((-score - a) / b);
        (win, (1.0 - win - loss).max(0.0), loss)
    }

    /// Win, draw and loss in per mille, summing to 1000 (as UCI's `wdl`
    /// prints them).
    pub fn per_mille(&self, score: f64, x: f64) -> [u32; 3] {
        let (w, _, l) = self.probabilities(score, x);
        let win = (w * 1000.0).round() as u32;
        let loss = (l * 1000.0).round().min(f64::from(1000 - win)) as u32;
        [win, 1000 - win - loss, loss]
    }
}

/// How a search's scores at one position read as win, draw and loss: the
/// position's material, and the search's scale of the net's centipawns
/// (`None`: the hand-crafted evaluation, whose scores are taken as they
/// are).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlView {
    pub material: f64,
    pub net_scale: Option<i32>,
}

impl WdlView {
    /// The search's `score` (its own scale; beyond
    /// [`MATE_BOUND`](crate::MATE_BOUND) a mate) as win, draw and loss in
    /// per mille for the side to move: a mate is a whole win or loss.
    pub fn per_mille(&self, score: i32) -> [u32; 3] {
        if score >= crate::MATE_BOUND {
            return [1000, 0, 0];
        }
        if score <= -crate::MATE_BOUND {
            return [0, 0, 1000];
        }
        let net = match self.net_scale {
            Some(scale) => f64::from(score) * 100.0 / f64::from(scale.max(1)),
            None => f64::from(score),
        };
        WDL_MODEL.per_mille(net, self.material)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_counts_its_material() {
        assert_eq!(material_count(&Position::start()), START_MATERIAL);
        assert_eq!(material(&Position::start()), 1.0);
        let krk = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
        assert_eq!(material_count(&krk), 18);
    }

    #[test]
    fn more_score_wins_more_and_the_three_sum_to_a_thousand() {
        let m = WDL_MODEL;
        let mut last_win = 0;
        for s in (-1000..=1000).step_by(50) {
            let [w, d, l] = m.per_mille(f64::from(s), 0.7);
            assert_eq!(w + d + l, 1000, "{s}");
            assert!(w >= last_win, "{s}");
            last_win = w;
        }
        // Level is even: as many wins as losses.
        let [w, _, l] = m.per_mille(0.0, 0.5);
        assert_eq!(w, l);
    }
}
