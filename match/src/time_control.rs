//! Time controls: what limits each move's search ([`MoveLimit`], read and
//! written as cutechess-cli does), and the clocks of a game in progress
//! ([`Clocks`]): what a `go` command tells the engine, what each move
//! costs, and when a side loses on time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use xqcore::Color;

use crate::engine::EngineProcess;
use crate::protocol::ClockReading;
use crate::record::Termination;

/// What limits each move's search: an engine's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// A clock, `base` plus `increment` a move; with `moves`, `base` is
    /// added again after every `moves` moves of the side (`40/60`). A move
    /// that takes longer than the clock plus `tolerance` loses on time.
    Clock {
        base: Duration,
        increment: Duration,
        moves: Option<u32>,
        tolerance: Duration,
    },
    /// The same time for every move (`go movetime`); a move that takes
    /// longer than `time` plus `tolerance` loses on time.
    MoveTime { time: Duration, tolerance: Duration },
    /// `go depth N` on every move.
    Depth(u32),
    /// `go nodes N` on every move.
    Nodes(u64),
}

/// Text that is not a time control.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a time control ([MOVES/]BASE[+INC] in seconds, e.g. 10+0.1 or 40/60)")]
pub struct BadTimeControl(pub String);

/// The milliseconds a timed move may run over before it is forfeited,
/// unless set otherwise.
pub(crate) const DEFAULT_TOLERANCE_MS: u64 = 200;

impl MoveLimit {
    /// A clock of `base` seconds and `increment` seconds a move.
    pub fn clock(base: Duration, increment: Duration, tolerance: Duration) -> MoveLimit {
        MoveLimit::Clock {
            base,
            increment,
            moves: None,
            tolerance,
        }
    }

    /// Reads a clock as cutechess-cli writes it: `[MOVES/]BASE[+INC]`,
    /// seconds (`10+0.1`, `40/60`, `40/60+0.5`, `300`).
    ///
    /// # Errors
    ///
    /// Anything else, a negative or non-finite time, or 0 moves.
    pub fn parse_clock(text: &str, tolerance: Duration) -> Result<MoveLimit, BadTimeControl> {
        let bad = || BadTimeControl(text.to_string());
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let moves = moves
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&m| m > 0)
                    .ok_or_else(bad)?;
                (Some(moves), rest)
            }
            None => (None, text),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        Ok(MoveLimit::Clock {
            base: seconds(base).ok_or_else(bad)?,
            increment: seconds(increment).ok_or_else(bad)?,
            moves,
            tolerance,
        })
    }

    /// The same limit with `tolerance` for a clock or a time a move.
    pub fn with_tolerance(self, tolerance: Duration) -> MoveLimit {
        match self {
            MoveLimit::Clock {
                base,
                increment,
                moves,
                ..
            } => MoveLimit::Clock {
                base,
                increment,
                moves,
                tolerance,
            },
            MoveLimit::MoveTime { time, .. } => MoveLimit::MoveTime { time, tolerance },
            other => other,
        }
    }

    /// The increment a move of a clock; `None` without a clock.
    fn increment(&self) -> Option<Duration> {
        match self {
            MoveLimit::Clock { increment, .. } => Some(*increment),
            _ => None,
        }
    }
}

/// A time in seconds, from 0 up to a billion.
fn seconds(text: &str) -> Option<Duration> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && (0.0..1e9).contains(v))
        .map(Duration::from_secs_f64)
}

impl fmt::Display for MoveLimit {
    /// The PGN `TimeControl` text: `[MOVES/]BASE+INC` in seconds (`40/60`
    /// without an increment), or `st=T`, `depth=N`, `nodes=N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveLimit::Clock {
                base,
                increment,
                moves,
                ..
            } => {
                if let Some(moves) = moves {
                    write!(f, "{moves}/")?;
                }
                write!(f, "{}", base.as_secs_f64())?;
                if moves.is_none() || !increment.is_zero() {
                    write!(f, "+{}", increment.as_secs_f64())?;
                }
                Ok(())
            }
            MoveLimit::MoveTime { time, .. } => write!(f, "st={}", time.as_secs_f64()),
            MoveLimit::Depth(depth) => write!(f, "depth={depth}"),
            MoveLimit::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

impl FromStr for MoveLimit {
    type Err = BadTimeControl;

    /// A clock ([`MoveLimit::parse_clock`], with a 200 ms tolerance), or
    /// `st=T` (seconds), `depth=N`, `nodes=N`.
    fn from_str(text: &str) -> Result<MoveLimit, BadTimeControl> {
        let bad = || BadTimeControl(text.to_string());
        let tolerance = Duration::from_millis(DEFAULT_TOLERANCE_MS);
        match text.split_once('=') {
            Some(("st", time)) => Ok(MoveLimit::MoveTime {
                time: seconds(time).filter(|t| !t.is_zero()).ok_or_else(bad)?,
                tolerance,
            }),
            Some(("depth", depth)) => depth
                .parse()
                .ok()
                .filter(|&d| d > 0)
                .map(MoveLimit::Depth)
                .ok_or_else(bad),
            Some(("nodes", nodes)) => nodes
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .map(MoveLimit::Nodes)
                .ok_or_else(bad),
            Some(_) => Err(bad()),
            None => MoveLimit::parse_clock(text, tolerance),
        }
    }
}

/// The clocks of one game: each side's time control and time left, and
/// the longest any move ran over.
#[derive(Clone, Debug)]
pub(crate) struct Clocks {
    /// Red's and Black's time controls.
    limits: [MoveLimit; 2],
    /// Red's and Black's time left, under a clock.
    left: [Duration; 2],
    /// The moves each side has made, for clocks with periods of moves.
    moves_made: [u32; 2],
    /// Under a clock or a time a move, the longest time a side took beyond
    /// what it had, in ms (negative when every move was in time).
    worst_overrun_ms: Option<i64>,
}

impl Clocks {
    /// The clocks at the start of a game, Red's under `limits[0]` and
    /// Black's under `limits[1]`.
    pub(crate) fn new(limits: [MoveLimit; 2]) -> Clocks {
        let base = |limit: &MoveLimit| match limit {
            MoveLimit::Clock { base, .. } => *base,
            _ => Duration::ZERO,
        };
        Clocks {
            limits,
            left: limits.each_ref().map(base),
            moves_made: [0, 0],
            worst_overrun_ms: None,
        }
    }

    /// The longest time a move ran over its clock, in ms (negative when
    /// every move was in time); `None` without a clock or a move.
    pub(crate) fn worst_overrun_ms(&self) -> Option<i64> {
        self.worst_overrun_ms
    }

    /// What the clocks read for a `go` command to `side`, the side to
    /// move: each side's time and increment (a side without a clock is
    /// shown the mover's), and the mover's moves left in its period.
    pub(crate) fn reading(&self, side: Color) -> ClockReading {
        let side = side.index();
        let own = self.limits[side].increment().unwrap_or_default();
        let mut times = self.left;
        if !matches!(self.limits[1 - side], MoveLimit::Clock { .. }) {
            times[1 - side] = times[side];
        }
        let moves_to_go = match self.limits[side] {
            MoveLimit::Clock {
                moves: Some(period),
                ..
            } => Some(period - self.moves_made[side] % period),
            _ => None,
        };
        ClockReading {
            times,
            increments: self.limits.each_ref().map(|l| l.increment().unwrap_or(own)),
            moves_to_go,
        }
    }

    /// The `go` command for `engine`, playing `side`, and how long to wait
    /// for its answer: its clock or its time a move with the tolerance and
    /// some grace, or `move_timeout` under a depth or node limit.
    pub(crate) fn go_command(
        &self,
        side: Color,
        engine: &EngineProcess,
        move_timeout: Duration,
    ) -> (String, Duration) {
        let grace = Duration::from_secs(5);
        match self.limits[side.index()] {
            MoveLimit::Clock { tolerance, .. } => {
                let go = engine
                    .protocol()
                    .go_clock(side, &self.reading(side), engine.millis());
                (go, self.left[side.index()] + tolerance + grace)
            }
            MoveLimit::MoveTime { time, tolerance } => {
                let go = engine.protocol().go_move_time(time, engine.millis());
                (go, time + tolerance + grace)
            }
            MoveLimit::Depth(depth) => (format!("go depth {depth}"), move_timeout),
            MoveLimit::Nodes(nodes) => (format!("go nodes {nodes}"), move_timeout),
        }
    }

    /// Charges `took` to `side`'s clock; a forfeit when it ran out.
    pub(crate) fn charge(&mut self, side: Color, took: Duration) -> Result<(), Termination> {
        let side = side.index();
        let limit = self.limits[side];
        let (allowed, tolerance) = match limit {
            MoveLimit::Clock { tolerance, .. } => (self.left[side], tolerance),
            MoveLimit::MoveTime { time, tolerance } => (time, tolerance),
            MoveLimit::Depth(_) | MoveLimit::Nodes(_) => return Ok(()),
        };
        let overrun_ms = took.as_millis() as i64 - allowed.as_millis() as i64;
        self.worst_overrun_ms = Some(
            self.worst_overrun_ms
                .map_or(overrun_ms, |w| w.max(overrun_ms)),
        );
        if took > allowed + tolerance {
            return Err(Termination::TimeForfeit);
        }
        if let MoveLimit::Clock {
            base,
            increment,
            moves,
            ..
        } = limit
        {
            self.moves_made[side] += 1;
            let mut left = allowed.saturating_sub(took) + increment;
            if moves.is_some_and(|period| self.moves_made[side].is_multiple_of(period)) {
                left += base;
            }
            self.left[side] = left;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_write_as_cutechess_does() {
        let ms = Duration::from_millis;
        let tolerance = ms(DEFAULT_TOLERANCE_MS);
        let read = |text: &str| text.parse::<MoveLimit>();
        assert_eq!(
            read("10+0.1"),
            Ok(MoveLimit::clock(ms(10_000), ms(100), tolerance))
        );
        assert_eq!(
            read("40/60"),
            Ok(MoveLimit::Clock {
                base: ms(60_000),
                increment: Duration::ZERO,
                moves: Some(40),
                tolerance
            })
        );
        assert_eq!(
            read("st=0.5"),
            Ok(MoveLimit::MoveTime {
                time: ms(500),
                tolerance
            })
        );
        assert_eq!(read("depth=7"), Ok(MoveLimit::Depth(7)));
        assert_eq!(read("nodes=5000"), Ok(MoveLimit::Nodes(5000)));
        for text in [
            "10+0.1",
            "40/60",
            "40/60+0.5",
            "300+0",
            "st=0.5",
            "depth=7",
            "nodes=5000",
        ] {
            assert_eq!(read(text).unwrap().to_string(), text);
        }
        assert_eq!(read("300").unwrap().to_string(), "300+0");
        for bad in [
            "", "x", "0/60", "-1+0", "10+", "st=0", "depth=0", "nodes=x", "tc=10", "inf",
        ] {
            let e = read(bad).unwrap_err();
            assert_eq!(e, BadTimeControl(bad.to_string()));
        }
        assert!(read("10+x")
            .unwrap_err()
            .to_string()
            .contains("e.g. 10+0.1"));
    }

    #[test]
    fn clock_is_charged_and_forfeits() {
        let ms = Duration::from_millis;
        let clock = MoveLimit::clock(ms(1_000), ms(100), ms(50));
        let mut clocks = Clocks::new([clock, MoveLimit::Depth(2)]);
        assert_eq!(clocks.charge(Color::Red, ms(400)), Ok(()));
        assert_eq!(clocks.left[Color::Red.index()], ms(700));
        assert_eq!(clocks.worst_overrun_ms(), Some(-600));
        assert_eq!(
            clocks.charge(Color::Red, ms(751)),
            Err(Termination::TimeForfeit)
        );
        // Black searches to a depth: no clock is charged.
        assert_eq!(
            clocks.charge(Color::Black, Duration::from_secs(100)),
            Ok(())
        );
        let mut untimed = Clocks::new([MoveLimit::Depth(2); 2]);
        assert_eq!(untimed.charge(Color::Red, Duration::from_secs(100)), Ok(()));
        assert_eq!(untimed.worst_overrun_ms(), None);
    }

    #[test]
    fn periods_refill_the_clock_and_a_time_a_move_forfeits_alone() {
        let ms = Duration::from_millis;
        let period = MoveLimit::Clock {
            base: ms(1_000),
            increment: Duration::ZERO,
            moves: Some(2),
            tolerance: ms(50),
        };
        let per_move = MoveLimit::MoveTime {
            time: ms(300),
            tolerance: ms(50),
        };
        let mut clocks = Clocks::new([period, per_move]);
        let reading = clocks.reading(Color::Red);
        assert_eq!(reading.moves_to_go, Some(2));
        assert_eq!(
            reading.times,
            [ms(1_000), ms(1_000)],
            "Black is shown Red's clock"
        );
        for moves_to_go in [1, 2] {
            assert_eq!(clocks.charge(Color::Red, ms(300)), Ok(()));
            assert_eq!(
                clocks.charge(Color::Black, ms(340)),
                Ok(()),
                "within the tolerance"
            );
            assert_eq!(clocks.reading(Color::Red).moves_to_go, Some(moves_to_go));
        }
        // Two moves of 300 ms, then the period's second second.
        assert_eq!(clocks.left[Color::Red.index()], ms(1_400));
        assert_eq!(clocks.worst_overrun_ms(), Some(40));
        assert_eq!(
            clocks.charge(Color::Black, ms(351)),
            Err(Termination::TimeForfeit)
        );
    }
}
