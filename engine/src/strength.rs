//! Playing below full strength: `Skill Level` 0-20, or `UCI_LimitStrength`
//! with `UCI_Elo`, for players who want a game they can win.
//!
//! A weaker level plays as a weaker player does, not as a strong one who
//! blunders at random: it looks less far ahead (a node budget that halves
//! about every two and a third levels, so tactics beyond its horizon go
//! unseen), and among the moves it considers good it does not always pick
//! the best (a choice among its four best lines, the likelier the nearer
//! a line's score is to the best, so a move a pawn worse is common at
//! level 0 and rare at level 18, and a move that loses a rook almost never
//! chosen while the search sees it). It knows fewer opening moves (the
//! book only for its first plies) and no endgame tables.
//!
//! The levels' Elo are measured, not guessed: [`LADDER`] holds the ratings
//! the calibration matches gave (docs/strength.md), and `UCI_Elo` is read
//! through it.

use std::sync::{Arc, Mutex};

use xqcore::{Move, Position, SplitMix64};

use crate::score::MATE_BOUND;
use crate::search::{Reporter, SearchInfo, SearchResult};

/// The top of `Skill Level`: full strength.
pub const MAX_SKILL: i64 = 20;

/// Root lines a weakened search weighs its choice among.
const CANDIDATE_LINES: usize = 4;

/// One rung of the calibrated ladder: a skill and the Elo its matches
/// measured (docs/strength.md), on the scale where ElephantEye at
/// 10 s + 0.1 s is [`ELEPHANTEYE_ELO`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rung {
    pub skill: f64,
    pub elo: i64,
}

/// The declared rating of the anchor, ElephantEye 3.3 at 10 s + 0.1 s a
/// game, one thread (no public rating list rates xiangqi engines at a
/// game's time control; see docs/strength.md).
pub const ELEPHANTEYE_ELO: i64 = 2000;

/// The measured ladder, weakest first (docs/strength.md gives the matches).
pub const LADDER: &[Rung] = &[
    Rung {
        skill: 0.0,
        elo: 307,
    },
    Rung {
        skill: 2.0,
        elo: 365,
    },
    Rung {
        skill: 4.0,
        elo: 478,
    },
    Rung {
        skill: 6.0,
        elo: 612,
    },
    Rung {
        skill: 8.0,
        elo: 779,
    },
    Rung {
        skill: 10.0,
        elo: 1108,
    },
    Rung {
        skill: 12.0,
        elo: 1473,
    },
    Rung {
        skill: 14.0,
        elo: 1807,
    },
    Rung {
        skill: 16.0,
        elo: 2052,
    },
    Rung {
        skill: 18.0,
        elo: 2261,
    },
    Rung {
        skill: 19.0,
        elo: 2375,
    },
];

/// `UCI_Elo`'s range: the ladder's ends.
pub const fn elo_range() -> (i64, i64) {
    (LADDER[0].elo, LADDER[LADDER.len() - 1].elo)
}

/// How strongly the engine plays: a skill from 0 (weakest) to 20 (full
/// strength), fractional when set by Elo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    skill: f64,
}

impl Strength {
    /// Full strength.
    pub const FULL: Strength = Strength {
        skill: MAX_SKILL as f64,
    };

    /// `Skill Level` `level` (clamped to 0-20).
    pub fn from_level(level: i64) -> Strength {
        Strength {
            skill: level.clamp(0, MAX_SKILL) as f64,
        }
    }

    /// The skill whose measured rating is `elo` (the ladder's ends
    /// outside it), interpolated between the rungs.
    pub fn from_elo(elo: i64) -> Strength {
        let (low, high) = elo_range();
        let elo = elo.clamp(low, high) as f64;
        let skill = LADDER
            .windows(2)
            .find(|pair| elo <= pair[1].elo as f64)
            .map_or(MAX_SKILL as f64, |pair| {
                let (a, b) = (pair[0], pair[1]);
                let span = (b.elo - a.elo).max(1) as f64;
                a.skill + (b.skill - a.skill) * (elo - a.elo as f64) / span
            });
        Strength { skill }
    }

    /// The skill, 0 to 20.
    pub fn skill(self) -> f64 {
        self.skill
    }

    /// The rating this strength claims, read off the ladder; none at full
    /// strength, whose rating depends on the clock.
    pub fn elo(self) -> Option<i64> {
        if !self.is_limited() {
            return None;
        }
        let first = LADDER[0];
        if self.skill <= first.skill {
            return Some(first.elo);
        }
        let elo = LADDER
            .windows(2)
            .find(|pair| self.skill <= pair[1].skill)
            .map_or(LADDER[LADDER.len() - 1].elo, |pair| {
                let (a, b) = (pair[0], pair[1]);
                let t = (self.skill - a.skill) / (b.skill - a.skill);
                (a.elo as f64 + t * (b.elo - a.elo) as f64).round() as i64
            });
        Some(elo)
    }

    /// Whether the engine plays below full strength.
    pub fn is_limited(self) -> bool {
        self.skill < MAX_SKILL as f64
    }

    /// Nodes a move may search: 300 at skill 0 (about a first iteration),
    /// 35 % more a level, to some 90,000 at 19, an eighth of what a move at
    /// 10 s + 0.1 s a game searches; none at full strength.
    pub fn node_limit(self) -> Option<u64> {
        self.is_limited()
            .then(|| (300.0 * 1.35f64.powf(self.skill)).round() as u64)
    }

    /// How far from the best line's score the choice strays: the
    /// temperature, in centipawns, of the weights `exp(-(best - score) / t)`
    /// of the candidate lines: 250 at skill 0, 16 % less a level, 9 at 19.
    fn temperature(self) -> f64 {
        250.0 * 0.84f64.powf(self.skill)
    }

    /// Plies of a game the book is played for: 4 at skill 0, two more a
    /// level; every ply at full strength.
    pub fn book_plies(self) -> u32 {
        if self.is_limited() {
            (4.0 + 2.0 * self.skill).round() as u32
        } else {
            u32::MAX
        }
    }

    /// Whether the book may answer in `pos`: whether fewer than
    /// [`Strength::book_plies`] plies were played before it (by its move
    /// number).
    pub fn plays_book_at(self, pos: &Position) -> bool {
        game_ply(pos) < self.book_plies()
    }
}

/// Plies played in the game up to `pos`, by its move number.
fn game_ply(pos: &Position) -> u32 {
    let black = u32::from(pos.turn() == xqcore::Color::Black);
    pos.fullmoves().saturating_sub(1) * 2 + black
}

/// The reporter of a weakened search: it keeps the last line of each of
/// the candidate lines and passes on those the user asked to see.
pub(crate) struct Chooser {
    strength: Strength,
    seed: u64,
    shown: usize,
    inner: Arc<dyn Reporter>,
    lines: Mutex<Vec<(Move, i32, Vec<Move>)>>,
}

impl Chooser {
    /// A chooser for `strength`, drawing with `seed`, showing `shown`
    /// lines to `inner`.
    pub(crate) fn new(
        strength: Strength,
        seed: u64,
        shown: usize,
        inner: Arc<dyn Reporter>,
    ) -> Chooser {
        Chooser {
            strength,
            seed,
            shown: shown.max(1),
            inner,
            lines: Mutex::new(Vec::new()),
        }
    }

    /// Lines the search must report for the choice: the user's, and at
    /// least [`CANDIDATE_LINES`].
    pub(crate) fn multipv(&self) -> usize {
        self.shown.max(CANDIDATE_LINES)
    }

    /// The move to play, with its ponder move, after the search found
    /// `result`: one of the candidate lines, drawn by their weights. A
    /// mate found or suffered is never given away by the draw.
    pub(crate) fn choose(&self, result: &SearchResult) -> (Option<Move>, Option<Move>) {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let fallback = (result.best, result.ponder);
        let Some(best) = lines.iter().map(|l| l.1).max() else {
            return fallback;
        };
        if best.abs() >= MATE_BOUND {
            return fallback;
        }
        let t = self.strength.temperature().max(1.0);
        let weights: Vec<f64> = lines
            .iter()
            .map(|l| {
                if l.1.abs() >= MATE_BOUND {
                    0.0
                } else {
                    (-f64::from(best - l.1) / t).exp()
                }
            })
            .collect();
        let mut rng = SplitMix64::new(self.seed);
        let mut draw = rng.unit() * weights.iter().sum::<f64>();
        for (line, w) in lines.iter().zip(&weights) {
            if draw < *w {
                return (Some(line.0), line.2.get(1).copied());
            }
            draw -= w;
        }
        fallback
    }
}

impl Reporter for Chooser {
    fn info(&self, info: &SearchInfo) {
        if let Some(&first) = info.pv.first() {
            let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
            let index = info.multipv.max(1) - 1;
            if index >= lines.len() {
                lines.resize(index + 1, (first, info.raw_score, Vec::new()));
            }
            lines[index] = (first, info.raw_score, info.pv.clone());
        }
        if info.multipv <= self.shown {
            self.inner.info(info);
        }
    }

    fn currmove(&self, mv: Move, number: usize, depth: i32) {
        self.inner.currmove(mv, number, depth);
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_elo_read_through_the_ladder() {
        let (low, high) = elo_range();
        assert_eq!(Strength::from_elo(low - 500).skill(), 0.0);
        let top = LADDER[LADDER.len() - 1].skill;
        assert_eq!(Strength::from_elo(high + 500).skill(), top);
        for rung in LADDER {
            let s = Strength::from_elo(rung.elo);
            assert!((s.skill() - rung.skill).abs() < 1e-9, "{rung:?}: {s:?}");
            if rung.skill < MAX_SKILL as f64 {
                assert_eq!(Strength { skill: rung.skill }.elo(), Some(rung.elo));
            }
        }
        let elos: Vec<i64> = (0..MAX_SKILL)
            .filter_map(|l| Strength::from_level(l).elo())
            .collect();
        assert_eq!(elos.len(), MAX_SKILL as usize);
        assert_eq!(Strength::FULL.elo(), None);
        assert!(elos.windows(2).all(|w| w[0] < w[1]), "{elos:?}");
    }

    #[test]
    fn weaker_levels_search_less_and_stray_more() {
        let levels: Vec<Strength> = (0..=MAX_SKILL).map(Strength::from_level).collect();
        for pair in levels.windows(2) {
            assert!(pair[0].temperature() > pair[1].temperature());
            assert!(pair[0].book_plies() < pair[1].book_plies());
            match (pair[0].node_limit(), pair[1].node_limit()) {
                (Some(a), Some(b)) => assert!(a < b),
                (Some(_), None) => assert!(!pair[1].is_limited()),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(Strength::FULL.node_limit(), None);
    }

    fn line(mv: &str, score: i32) -> SearchInfo {
        let pos = Position::start();
        let m = pos.parse_move(mv).unwrap();
        SearchInfo {
            depth: 5,
            seldepth: 5,
            multipv: 1,
            score: crate::score::Score::from_internal(score),
            raw_score: score,
            nodes: 0,
            time: std::time::Duration::ZERO,
            hashfull: 0,
            tbhits: 0,
            pv: vec![m],
        }
    }

    /// Draws over many seeds: near-equal lines are both played, a line a
    /// rook worse seldom (never near the top), and a mate always.
    #[test]
    fn the_choice_prefers_near_best_lines() {
        let counts = |strength: Strength, scores: [i32; 3]| {
            let mut counts = [0u32; 3];
            for seed in 0..2000 {
                let chooser = Chooser::new(strength, seed, 1, Arc::new(crate::search::Silent));
                for (i, (mv, s)) in ["h2e2", "b2e2", "h0g2"].iter().zip(scores).enumerate() {
                    let mut info = line(mv, s);
                    info.multipv = i + 1;
                    chooser.info(&info);
                }
                let result = SearchResult {
                    best: Some(Position::start().parse_move("h2e2").unwrap()),
                    ponder: None,
                    pv: Vec::new(),
                    score: 0,
                    depth: 5,
                    nodes: 0,
                    time: std::time::Duration::ZERO,
                };
                let (mv, _) = chooser.choose(&result);
                let pos = Position::start();
                let i = ["h2e2", "b2e2", "h0g2"]
                    .iter()
                    .position(|m| Some(pos.parse_move(m).unwrap()) == mv)
                    .unwrap();
                counts[i] += 1;
            }
            counts
        };
        let weak = counts(Strength::from_level(0), [30, 20, -870]);
        assert!(weak[1] > 600 && weak[0] > weak[1], "{weak:?}");
        // Level 0, a beginner, gives a rook away at most one time in 50
        // when the line that does is among its four best.
        assert!(weak[2] < 40, "a rook given away: {weak:?}");
        let strong = counts(Strength::from_level(19), [30, 20, -870]);
        assert!(strong[0] > 1500 && strong[2] == 0, "{strong:?}");
        let mate = counts(Strength::from_level(0), [MATE_BOUND + 5, 20, 10]);
        assert_eq!(mate, [2000, 0, 0]);
    }
}
