//! Time management, all of it: what a search is asked for ([`Limits`],
//! read from `go` by the protocol and handed down unchanged), the time a
//! move may take on a [`Clock`] (ElephantEye's proper time,
//! [`time_limits`]), the budget a search runs under ([`Budget`], from the
//! limits), the running clock of a search with its stop flag
//! ([`SearchControl`]), and the rules that stop it: mid-iteration
//! ([`Budget::must_stop`]) and between iterations
//! ([`Budget::stop_after_iteration`], stretched by [`TimeFactors`] when
//! the search is unsure). It stands on the score scale alone.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use xqcore::Move;

use crate::score::{MATE, MATE_BOUND};

/// A game clock for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub remaining: Duration,
    /// Moves until the next time control (period clocks).
    pub movestogo: Option<u32>,
    pub increment: Duration,
}

/// Time a move on a clock keeps back for latency unless told otherwise
/// (the `Move Overhead` option's default).
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(50);

/// Moves a clock without `movestogo` is spread over.
const MOVES_LEFT_GUESS: u32 = 16;

/// The part of the proper time until which an iteration may start.
const SOFT_FRACTION: f64 = 0.6;

/// Soft and hard time limits for a clock, after the ElephantEye time
/// strategy: proper time is `remaining / movestogo` or `increment +
/// remaining / 16`; an iteration may start until 0.6 × proper and the
/// search stops at 2 × proper, never closer to the flag than `overhead`
/// (the GUI's and the connection's lag) allows. (With remaining / 20 and proper / 2 the engine used 15.5 s of
/// the 18.4 s a 10 s + 0.1 s game gives, and 0.29 s a move over its first
/// 30 against Pikafish's 0.45.)
pub fn time_limits(clock: &Clock, overhead: Duration) -> (Duration, Duration) {
    let usable = clock.remaining.saturating_sub(overhead);
    let proper = match clock.movestogo {
        Some(n) if n > 0 => clock.remaining / n,
        _ => clock.increment + clock.remaining / MOVES_LEFT_GUESS,
    };
    let hard = (proper * 2)
        .min(usable.mul_f64(0.9))
        .max(Duration::from_millis(1));
    let soft = proper.mul_f64(SOFT_FRACTION).min(hard);
    (soft, hard)
}

/// What a search is asked for: every limit of a `go`, in one value from
/// the protocol's parser to time management. With none of depth, nodes,
/// mate, a move time or a clock, a search runs until stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search to this depth in plies (0: no search).
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<u32>,
    /// Think this long.
    pub movetime: Option<Duration>,
    /// The clock of the side to move.
    pub clock: Option<Clock>,
    /// Search until stopped (the depth limit still applies).
    pub infinite: bool,
    /// Think on the opponent's time: the clock starts at `ponderhit`.
    pub ponder: bool,
    /// Only these root moves (UCI `searchmoves`; empty: all).
    pub search_moves: Vec<Move>,
}

impl Limits {
    /// A search to `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A search of `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// A search of `time`.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }

    /// A search that spends at most `time`, managing it as the clock of
    /// the last move before a time control: it starts no iteration past
    /// 0.6 of it and stops at 0.9 of it, less the margin kept against
    /// latency (`time_limits`). For answers that must come within a
    /// bound, without using all of it when the search is sure sooner.
    pub fn within(time: Duration) -> Limits {
        Limits {
            clock: Some(Clock {
                remaining: time,
                movestogo: Some(1),
                increment: Duration::ZERO,
            }),
            ..Limits::default()
        }
    }

    /// Whether the search ends without `stop` or `ponderhit`, with
    /// `budget` worked out from these limits.
    pub(crate) fn ends_within(&self, budget: &Budget) -> bool {
        !self.ponder && !budget.infinite
    }

    /// Whether these are a game move's limits: a clock or a move time, not
    /// pondering, no analysis limit (depth, nodes, mate, infinite) and no
    /// root moves picked. Only a game move is played from the book.
    pub fn is_game_move(&self) -> bool {
        !self.ponder
            && !self.infinite
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.mate.is_none()
            && self.search_moves.is_empty()
            && (self.clock.is_some() || self.movetime.is_some())
    }

    /// The budget a search runs under: a move time is used whole (less
    /// 10 ms), a clock by [`time_limits`]; without any limit the search
    /// runs until stopped.
    pub(crate) fn budget(&self) -> Budget {
        self.budget_with(DEFAULT_MOVE_OVERHEAD)
    }

    /// [`Limits::budget`] keeping `overhead` back on a clock.
    pub(crate) fn budget_with(&self, overhead: Duration) -> Budget {
        let mut budget = Budget {
            depth: self.depth.map(|d| d.min(i32::MAX as u32) as i32),
            nodes: self.nodes,
            mate: self.mate,
            infinite: self.infinite,
            ..Budget::default()
        };
        if let Some(t) = self.movetime {
            let t = t
                .saturating_sub(Duration::from_millis(10))
                .max(Duration::from_millis(1));
            budget.soft_time = Some(t);
            budget.hard_time = Some(t);
        } else if let Some(clock) = &self.clock {
            let (soft, hard) = time_limits(clock, overhead);
            budget.soft_time = Some(soft);
            budget.hard_time = Some(hard);
        } else if self.depth.is_none() && self.nodes.is_none() && self.mate.is_none() {
            budget.infinite = true;
        }
        budget
    }
}

/// When a search stops, worked out from its [`Limits`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Budget {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Stop after an iteration once this much time has passed.
    pub soft_time: Option<Duration>,
    /// Stop at once once this much time has passed.
    pub hard_time: Option<Duration>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<u32>,
    /// Search until stopped (no time limit; the depth limit still applies).
    pub infinite: bool,
}

/// Where a search stands after an iteration, for
/// [`Budget::stop_after_iteration`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Iteration {
    pub score: i32,
    pub depth: i32,
    /// Root moves searched.
    pub root_moves: usize,
    /// Root moves whose last result was a proven loss.
    pub losing: usize,
}

impl Budget {
    /// Whether the search must stop now, mid-iteration: the node budget
    /// is spent (`total_nodes` is asked only under a node limit), or the
    /// hard time has passed (a pondering or infinite search has none).
    pub(crate) fn must_stop(
        &self,
        control: &SearchControl,
        total_nodes: impl FnOnce() -> u64,
    ) -> bool {
        let out_of_nodes = self.nodes.is_some_and(|n| total_nodes() >= n);
        let out_of_time = self.hard_time.is_some_and(|hard| {
            !control.pondering() && !self.infinite && control.elapsed() >= hard
        });
        out_of_nodes || out_of_time
    }

    /// Whether to start no further iteration: the mate asked for is found;
    /// or, in a timed search, a mate is settled either way
    /// ([`is_settled_mate`]), there is one legal move or one that does not
    /// lose by force, or the soft limit (stretched by `factors`) has passed.
    pub(crate) fn stop_after_iteration(
        &self,
        control: &SearchControl,
        done: &Iteration,
        factors: &TimeFactors,
    ) -> bool {
        if let Some(m) = self.mate {
            if done.score >= MATE_BOUND && (MATE - done.score + 1) / 2 <= m as i32 {
                return true;
            }
        }
        if self.infinite || control.pondering() {
            return false;
        }
        let Some(soft) = self.soft_time else {
            return false;
        };
        let non_losing = done.root_moves.saturating_sub(done.losing);
        if done.root_moves == 1 || is_settled_mate(done.score, done.depth) {
            return true;
        }
        if non_losing <= 1 && done.depth > 4 {
            return true;
        }
        control.elapsed() >= soft.mul_f64(factors.factor())
    }
}

/// Whether `score`, found by an iteration of `depth`, is a mate that
/// deeper iterations will not change: a mate in one, or being mated along
/// a line at most half the depth. Pruning and reductions can hide a
/// shorter mate from iterations well past the one found (a mate in 5 found
/// at depth 18 where a mate in 4 exists), so a side that mates searches
/// on for its time, as it would without a mate, and plays and shows the
/// shortest mate it finds.
fn is_settled_mate(score: i32, depth: i32) -> bool {
    let plies = MATE - score.abs();
    if score >= MATE_BOUND {
        plies == 1 && depth > 1
    } else {
        score <= -MATE_BOUND && depth > 1 && depth >= 2 * plies
    }
}

/// The clock of a search and its stop flag; pondering holds the clock
/// until `ponderhit`.
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    base: Instant,
    start_ns: AtomicU64,
}

impl SearchControl {
    /// A running clock; `pondering` holds time limits until [`SearchControl::ponderhit`].
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            base: Instant::now(),
            start_ns: AtomicU64::new(0),
        }
    }

    /// Asks the search to stop as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The pondered move was played: time limits start now.
    pub fn ponderhit(&self) {
        let now = self.base.elapsed().as_nanos() as u64;
        self.start_ns.store(now, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Relaxed);
    }

    /// Whether the search is pondering.
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// Time since the search (or the ponderhit) started.
    pub fn elapsed(&self) -> Duration {
        let now = self.base.elapsed().as_nanos() as u64;
        Duration::from_nanos(now.saturating_sub(self.start_ns.load(Ordering::Relaxed)))
    }
}

/// How long to keep searching after an iteration, relative to the soft
/// limit: longer when the best move keeps changing or the score falls.
#[derive(Default)]
pub(crate) struct TimeFactors {
    /// Recent best-move changes, decayed each iteration.
    changes: f64,
    /// How far the score fell in the last iteration, in centipawns.
    fall: i32,
}

impl TimeFactors {
    /// Takes in an iteration's result: whether the best move changed, and
    /// the score before and after.
    pub(crate) fn update(&mut self, best_changed: bool, previous: i32, score: i32) {
        self.changes = self.changes / 2.0 + best_changed as i32 as f64;
        self.fall = if previous.abs() < MATE_BOUND && score.abs() < MATE_BOUND {
            (previous - score).max(0)
        } else {
            0
        };
    }

    /// Multiplier of the soft limit, between 0.6 and 2.5.
    fn factor(&self) -> f64 {
        let instability = 1.0 + 0.6 * self.changes;
        let falling = 1.0 + (self.fall as f64 / 100.0).min(1.0) * 0.5;
        (0.7 * instability * falling).clamp(0.6, 2.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_follow_the_clock_kind() {
        let period = Clock {
            remaining: Duration::from_secs(300),
            movestogo: Some(30),
            increment: Duration::ZERO,
        };
        let (soft, hard) = time_limits(&period, DEFAULT_MOVE_OVERHEAD);
        assert_eq!(soft, Duration::from_secs(6));
        assert_eq!(hard, Duration::from_secs(20));
        let incr = Clock {
            remaining: Duration::from_secs(10),
            movestogo: None,
            increment: Duration::from_millis(100),
        };
        let (soft, hard) = time_limits(&incr, DEFAULT_MOVE_OVERHEAD);
        // 100 ms + 10 s / 16 = 725 ms.
        assert_eq!(soft, Duration::from_millis(435));
        assert_eq!(hard, Duration::from_millis(1450));
        // Nearly out of time: never plan past the flag.
        let flag = Clock {
            remaining: Duration::from_millis(200),
            movestogo: Some(1),
            increment: Duration::ZERO,
        };
        let (_, hard) = time_limits(&flag, DEFAULT_MOVE_OVERHEAD);
        assert!(hard < Duration::from_millis(150), "{hard:?}");
    }

    #[test]
    fn a_bounded_search_stops_within_its_time() {
        let budget = Limits::within(Duration::from_secs(1)).budget();
        assert_eq!(budget.soft_time, Some(Duration::from_millis(600)));
        assert_eq!(budget.hard_time, Some(Duration::from_millis(855)));
        assert!(!budget.infinite);
    }

    #[test]
    fn plain_go_is_infinite() {
        let plain = Limits::default();
        assert!(plain.budget().infinite);
        assert!(!plain.ends_within(&plain.budget()));
        let depth = Limits::depth(3);
        assert!(!depth.budget().infinite);
        assert!(depth.ends_within(&depth.budget()));
        let pondering = Limits {
            ponder: true,
            ..Limits::depth(3)
        };
        assert!(!pondering.ends_within(&pondering.budget()));
    }

    #[test]
    fn iterations_stop_by_the_rules() {
        let control = SearchControl::new(false);
        let timed = Budget {
            soft_time: Some(Duration::from_secs(100)),
            ..Budget::default()
        };
        let steady = TimeFactors::default();
        let done = |score, depth, root_moves, losing| Iteration {
            score,
            depth,
            root_moves,
            losing,
        };
        assert!(!timed.stop_after_iteration(&control, &done(10, 5, 30, 0), &steady));
        // A mate in one settles at once, a longer mate never; being mated
        // in 2 (4 plies) settles at depth 8.
        assert!(timed.stop_after_iteration(&control, &done(MATE - 1, 2, 30, 0), &steady));
        assert!(!timed.stop_after_iteration(&control, &done(MATE - 5, 40, 30, 0), &steady));
        assert!(!timed.stop_after_iteration(&control, &done(4 - MATE, 7, 30, 0), &steady));
        assert!(timed.stop_after_iteration(&control, &done(4 - MATE, 8, 30, 0), &steady));
        assert!(timed.stop_after_iteration(&control, &done(10, 1, 1, 0), &steady));
        assert!(timed.stop_after_iteration(&control, &done(-200, 5, 30, 29), &steady));
        assert!(!timed.stop_after_iteration(&control, &done(-200, 4, 30, 29), &steady));
        // Untimed (depth, nodes) and infinite searches run on.
        let depth = Budget {
            depth: Some(9),
            ..Budget::default()
        };
        assert!(!depth.stop_after_iteration(&control, &done(MATE - 5, 5, 1, 0), &steady));
        let mate = Budget {
            mate: Some(3),
            ..Budget::default()
        };
        assert!(mate.stop_after_iteration(&control, &done(MATE - 5, 5, 30, 0), &steady));
        assert!(!mate.stop_after_iteration(&control, &done(MATE - 9, 9, 30, 0), &steady));
        // A pondering search holds its clock.
        let pondering = SearchControl::new(true);
        let spent = Budget {
            soft_time: Some(Duration::ZERO),
            hard_time: Some(Duration::ZERO),
            ..Budget::default()
        };
        assert!(!spent.stop_after_iteration(&pondering, &done(10, 5, 30, 0), &steady));
        assert!(!spent.must_stop(&pondering, || 0));
        pondering.ponderhit();
        assert!(spent.must_stop(&pondering, || 0));
        let budget = Budget {
            nodes: Some(1000),
            ..Budget::default()
        };
        assert!(!budget.must_stop(&control, || 999));
        assert!(budget.must_stop(&control, || 1000));
    }

    #[test]
    fn unsure_searches_get_longer() {
        let mut factors = TimeFactors::default();
        assert!((factors.factor() - 0.7).abs() < 1e-9);
        factors.update(true, 50, -50);
        assert!(factors.factor() > 1.5, "{}", factors.factor());
        factors.update(false, -50, -50);
        factors.update(false, -50, -50);
        assert!(factors.factor() < 1.0, "{}", factors.factor());
    }
}
