//! How long a position is searched, and what is kept of a search that
//! scores several moves at once: shared by the analysis, its journal, the
//! judge and the external engines that may search for them.

use std::time::Duration;

use xqbook::{Searched, DECIDED, MATE};
use xqcore::Move;
use xqengine::Limits;

/// How long each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Nodes a position.
    Nodes(u64),
    /// Plies of depth.
    Depth(u32),
    /// Milliseconds a position (not reproducible: the other two are).
    Millis(u64),
    /// Plies of depth, each of the moves a job names scored in the one
    /// search (MultiPV), so that they are compared alike: a result a move,
    /// under [`xqbook::move_key`], its score from the side to move's view.
    EachMove(u32),
    /// As [`Budget::EachMove`] to `depth`, each move scored by the mean of
    /// its scores over the search's last `iterations` depths: the score of
    /// one depth swings by tens of centipawns from the next, its mean far
    /// less, so moves are told apart by what they are worth rather than by
    /// the depth the search stopped at.
    EachMoveAveraged { depth: u32, iterations: u32 },
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Nodes(n) => write!(f, "nodes {n}"),
            Budget::Depth(d) => write!(f, "depth {d}"),
            Budget::Millis(ms) => write!(f, "movetime {ms}"),
            Budget::EachMove(d) => write!(f, "depth {d}, each move"),
            Budget::EachMoveAveraged { depth, iterations } => {
                write!(f, "depth {depth}, each move, mean of {iterations} depths")
            }
        }
    }
}

impl Budget {
    /// The journal's encoding: a kind and an amount.
    pub(crate) fn encode(self) -> (u8, u32) {
        let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
        match self {
            Budget::Nodes(n) => (0, clamp(n)),
            Budget::Depth(d) => (1, d),
            Budget::Millis(ms) => (2, clamp(ms)),
            Budget::EachMove(d) => (3, d),
            Budget::EachMoveAveraged { depth, iterations } => {
                (4, depth.min(0xFFFF) | iterations.min(0xFFFF) << 16)
            }
        }
    }

    /// Reads [`Budget::encode`].
    pub(crate) fn decode(kind: u8, amount: u32) -> Option<Budget> {
        Some(match kind {
            0 => Budget::Nodes(u64::from(amount)),
            1 => Budget::Depth(amount),
            2 => Budget::Millis(u64::from(amount)),
            3 => Budget::EachMove(amount),
            4 if amount >> 16 > 0 => Budget::EachMoveAveraged {
                depth: amount & 0xFFFF,
                iterations: amount >> 16,
            },
            _ => return None,
        })
    }

    /// Whether a search made at this budget will do where `asked` is
    /// asked: the same kind, as much or more.
    pub(crate) fn covers(self, asked: Budget) -> bool {
        match (self, asked) {
            (Budget::Nodes(a), Budget::Nodes(b)) | (Budget::Millis(a), Budget::Millis(b)) => a >= b,
            (Budget::Depth(a), Budget::Depth(b)) | (Budget::EachMove(a), Budget::EachMove(b)) => {
                a >= b
            }
            // A mean over other depths is another score: only the same.
            (a @ Budget::EachMoveAveraged { .. }, b) => a == b,
            _ => false,
        }
    }

    /// Whether a search at this budget scores the moves a job names,
    /// a result a move, rather than the position.
    pub(crate) fn scores_moves(self) -> bool {
        matches!(self, Budget::EachMove(_) | Budget::EachMoveAveraged { .. })
    }

    pub(crate) fn limits(self) -> Limits {
        match self {
            Budget::Nodes(n) => Limits::nodes(n),
            Budget::Depth(d) | Budget::EachMove(d) | Budget::EachMoveAveraged { depth: d, .. } => {
                Limits::depth(d)
            }
            Budget::Millis(ms) => Limits::movetime(Duration::from_millis(ms)),
        }
    }
}

/// Our search's score, move and depth as analyses store them.
pub(crate) fn as_stored(score: i32, best: Move, depth: i32) -> Searched {
    Searched {
        score: score.clamp(-i32::from(MATE), i32::from(MATE)) as i16,
        best,
        depth: depth.clamp(0, 255) as u8,
    }
}

/// Each move's score from the reports of a MultiPV search (depth, score
/// and first move, in the order reported): the mean of its scores at the
/// last `iterations` depths that reported it (at each depth its last
/// report), rounded, or its last score where one of those is decided (a
/// mate is not averaged with centipawns). The depth kept is the last. With
/// one iteration: each move's last report. Moves in the order of their last
/// reports, the last first.
pub(crate) fn averaged_scores(
    reports: &[(i32, i32, Move)],
    iterations: u32,
) -> Vec<(Move, Searched)> {
    let mut order: Vec<Move> = Vec::new();
    for &(_, _, mv) in reports.iter().rev() {
        if !order.contains(&mv) {
            order.push(mv);
        }
    }
    order
        .into_iter()
        .map(|mv| {
            // Its last report at each depth, the deepest first.
            let mut by_depth: Vec<(i32, i32)> = Vec::new();
            for &(depth, score, m) in reports.iter().rev() {
                if m == mv && by_depth.iter().all(|&(d, _)| d != depth) {
                    by_depth.push((depth, score));
                }
            }
            by_depth.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
            by_depth.truncate(iterations.max(1) as usize);
            let (last_depth, last_score) = by_depth[0];
            let decided = by_depth.iter().any(|&(_, s)| s.abs() >= i32::from(DECIDED));
            let score = if decided {
                last_score
            } else {
                let (sum, n) = (
                    by_depth.iter().map(|&(_, s)| s).sum::<i32>(),
                    by_depth.len() as i32,
                );
                (2 * sum + n).div_euclid(2 * n)
            };
            (mv, as_stored(score, mv, last_depth))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Position;

    #[test]
    fn each_move_is_scored_by_the_mean_of_its_last_iterations() {
        let pos = Position::start();
        let (a, b) = (
            pos.parse_move("h2e2").unwrap(),
            pos.parse_move("b2e2").unwrap(),
        );
        // Depth by depth, a's report comes after b's; depth 3 reports a
        // twice (a new best line, then the iteration's end).
        let reports = [
            (1, 10, a),
            (1, 4, b),
            (2, 30, b),
            (2, -20, a),
            (3, 50, a),
            (3, 7, b),
            (3, 41, a),
        ];
        let score = |found: &[(Move, Searched)], mv: Move| {
            let s = found.iter().find(|s| s.0 == mv).unwrap().1;
            (s.score, s.depth)
        };
        let last = averaged_scores(&reports, 1);
        assert_eq!(last.iter().map(|s| s.0).collect::<Vec<_>>(), [a, b]);
        assert_eq!(score(&last, a), (41, 3));
        assert_eq!(score(&last, b), (7, 3));
        let two = averaged_scores(&reports, 2);
        assert_eq!(score(&two, a), (11, 3), "(41 - 20) / 2, rounded");
        assert_eq!(score(&two, b), (19, 3), "(7 + 30) / 2, rounded");
        let all = averaged_scores(&reports, 6);
        assert_eq!(score(&all, a), (10, 3), "(41 - 20 + 10) / 3, rounded");
        assert_eq!(score(&all, b), (14, 3));
        // A mate among the depths averaged: the last depth's score alone.
        let mating = [(1, 20, a), (2, i32::from(MATE) - 5, a), (3, 35, a)];
        assert_eq!(score(&averaged_scores(&mating, 3), a), (35, 3));
        assert_eq!(score(&averaged_scores(&mating, 1), a), (35, 3));
    }

    #[test]
    fn budgets_are_read_as_written() {
        for budget in [
            Budget::Nodes(4_000_000),
            Budget::Depth(12),
            Budget::Millis(500),
            Budget::EachMove(24),
            Budget::EachMoveAveraged {
                depth: 24,
                iterations: 6,
            },
        ] {
            let (kind, amount) = budget.encode();
            assert_eq!(Budget::decode(kind, amount), Some(budget));
        }
        assert_eq!(Budget::decode(4, 24), None, "a mean of no depths");
        let averaged = Budget::EachMoveAveraged {
            depth: 24,
            iterations: 6,
        };
        assert!(!averaged.covers(Budget::EachMove(24)));
        assert!(!Budget::EachMove(30).covers(averaged));
        assert!(averaged.covers(averaged));
    }
}
