//! One game between two engine processes: the clock, the moves asked for
//! and checked, and the end, ruled by [`xqcore::Position::outcome`] or by
//! what the referee sees (an illegal move, a resignation, a flag fall, an
//! engine that fails, the length cap).

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use xqcore::{Color, EndRules, GameResult, Move, Outcome, Position};
use xqegtb::RULE_DTM;
use xqegtb::{Repetitions, Tablebase, Value};
use xqrecords::Opening;

use crate::engine::{EngineProcess, Thought};
use crate::protocol::{Answer, ClockReading, EngineScore};

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it: no legal move, perpetual check, repetition, the
    /// natural-move limit.
    Rules(Outcome),
    /// The game reached [`MatchConfig::max_plies`]: a draw.
    LengthCap,
    /// The engine answered with this illegal or unreadable move (or no
    /// move while it had legal moves).
    IllegalMove(String),
    Resignation,
    TimeForfeit,
    /// The engine could not be talked to, or did not answer in time.
    EngineFailure(String),
    /// Both engines' scores agreed on a winner long enough
    /// ([`ScoreAdjudication::resign`]).
    ResignAdjudication,
    /// Both engines' scores stayed near zero long enough
    /// ([`ScoreAdjudication::draw`]).
    DrawAdjudication,
    /// The endgame tables hold the position ([`MatchConfig::tables`]).
    TablesAdjudication,
}

/// Every kind of end ([`Termination::kind`]), and the words its text
/// ([`Termination`]'s `Display`) starts with.
const KINDS: [(&str, &str); 14] = [
    ("checkmate or stalemate", "no legal move"),
    ("perpetual check", "perpetual check"),
    ("perpetual chase", "perpetual chase"),
    ("repetition", "repetition"),
    ("natural-move limit", "natural-move limit"),
    ("length cap", "length cap"),
    ("illegal move", "illegal move"),
    ("resignation", "resignation"),
    ("time forfeit", "time forfeit"),
    ("engine failure", "engine failure"),
    ("resign adjudication", "resign adjudication"),
    ("draw adjudication", "draw adjudication"),
    ("tables adjudication", "tables adjudication"),
    ("rules", "rules"),
];

impl Termination {
    /// The kind of end, without its particulars (which side, which move):
    /// what a match's summary counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Termination::Rules(Outcome::NoLegalMove { .. }) => "no legal move",
            Termination::Rules(Outcome::PerpetualCheck { .. }) => "perpetual check",
            Termination::Rules(Outcome::PerpetualChase { .. }) => "perpetual chase",
            Termination::Rules(Outcome::Repetition) => "repetition",
            Termination::Rules(Outcome::NaturalMoveLimit) => "natural-move limit",
            Termination::Rules(_) => "rules",
            Termination::LengthCap => "length cap",
            Termination::IllegalMove(_) => "illegal move",
            Termination::Resignation => "resignation",
            Termination::TimeForfeit => "time forfeit",
            Termination::EngineFailure(_) => "engine failure",
            Termination::ResignAdjudication => "resign adjudication",
            Termination::DrawAdjudication => "draw adjudication",
            Termination::TablesAdjudication => "tables adjudication",
        }
    }

    /// The kind of end a termination's text (as `Display` writes it, in a
    /// PGN's `Termination` tag) tells; `None` for other text.
    pub fn kind_of_text(text: &str) -> Option<&'static str> {
        KINDS
            .iter()
            .find(|(words, _)| text.starts_with(words))
            .map(|&(_, kind)| kind)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules(outcome) => outcome.fmt(f),
            Termination::LengthCap => f.write_str("length cap"),
            Termination::IllegalMove(mv) => write!(f, "illegal move {mv}"),
            Termination::Resignation => f.write_str("resignation"),
            Termination::TimeForfeit => f.write_str("time forfeit"),
            Termination::EngineFailure(why) => write!(f, "engine failure: {why}"),
            Termination::ResignAdjudication
            | Termination::DrawAdjudication
            | Termination::TablesAdjudication => f.write_str(self.kind()),
        }
    }
}

/// Judges the position after a move: `Some` when the game is over, by the
/// rules (a repetition at its `rules.occurrences`-th occurrence) or by the
/// length cap.
pub fn adjudicate(
    pos: &Position,
    rules: &EndRules,
    max_plies: usize,
) -> Option<(GameResult, Termination)> {
    if let Some(outcome) = pos.outcome(rules) {
        return Some((outcome.result(), Termination::Rules(outcome)));
    }
    (pos.ply() >= max_plies).then_some((GameResult::Draw, Termination::LengthCap))
}

/// Ending a game early on what both engines say, as cutechess-cli's
/// `-resign` and `-draw` do; neither is on unless set. A move without a
/// score (a book move, an engine that reports none) breaks a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreAdjudication {
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
}

/// A win for one side once both engines have scored the game at least
/// `score_cp` for it on each of their last `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub score_cp: i32,
    pub moves: usize,
}

/// A draw once, from move `after_move` on, both engines have scored the game
/// within `score_cp` of zero on each of their last `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub after_move: usize,
    pub score_cp: i32,
    pub moves: usize,
}

impl ScoreAdjudication {
    /// Judges a game at `ply` (counted from the start of its opening's
    /// position, as [`Position::ply`] does) whose last move was made by
    /// `last_mover`, from the scores of the moves played after the opening,
    /// each from its mover's side.
    pub fn judge(
        &self,
        ply: usize,
        last_mover: Color,
        stats: &[MoveStats],
    ) -> Option<(GameResult, Termination)> {
        if let Some(rule) = self.resign {
            if let Some(red_view) = last_scores_for_red(stats, last_mover, 2 * rule.moves) {
                if red_view.iter().all(|&cp| cp >= rule.score_cp) {
                    return Some((GameResult::RedWins, Termination::ResignAdjudication));
                }
                if red_view.iter().all(|&cp| cp <= -rule.score_cp) {
                    return Some((GameResult::BlackWins, Termination::ResignAdjudication));
                }
            }
        }
        if let Some(rule) = self.draw {
            let red_view = last_scores_for_red(stats, last_mover, 2 * rule.moves)?;
            if ply >= 2 * rule.after_move && red_view.iter().all(|cp| cp.abs() <= rule.score_cp) {
                return Some((GameResult::Draw, Termination::DrawAdjudication));
            }
        }
        None
    }
}

/// The scores of the last `count` moves, in centipawns for Red (a mate as a
/// score beyond any centipawn bound); `None` when fewer moves were played
/// or one of them came without a score.
fn last_scores_for_red(stats: &[MoveStats], last_mover: Color, count: usize) -> Option<Vec<i32>> {
    if count == 0 || stats.len() < count {
        return None;
    }
    let mut mover = last_mover;
    let mut scores = Vec::with_capacity(count);
    for stat in stats.iter().rev().take(count) {
        let cp = match stat.score? {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(n) if n < 0 => -MATE_AS_CP,
            EngineScore::Mate(_) => MATE_AS_CP,
        };
        scores.push(if mover == Color::Red { cp } else { -cp });
        mover = !mover;
    }
    Some(scores)
}

/// A mate score, compared with centipawn bounds.
const MATE_AS_CP: i32 = 1_000_000;

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
}

/// A time in seconds, from 0 up to a billion.
pub(crate) fn seconds(text: &str) -> Option<Duration> {
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

/// The milliseconds a timed move may run over before it is forfeited,
/// unless set otherwise.
pub const DEFAULT_TOLERANCE_MS: u64 = 200;

/// Game settings shared by every engine (each has its own [`MoveLimit`]).
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// When the rules end a game: the third occurrence of a position, and
    /// the natural-move limit.
    pub rules: EndRules,
    /// Plies after which a game is drawn (the length cap; not a rule).
    pub max_plies: usize,
    /// Under a depth or node limit, how long a move may take before the
    /// engine is declared failed.
    pub move_timeout: Duration,
    /// Ending games on the engines' scores (off unless set).
    pub score_adjudication: ScoreAdjudication,
    /// Endgame tables that end a game once they hold its position: a draw
    /// at once, a win when its mate comes within the natural-move limit
    /// (wins by the repetition rules are played out).
    pub tables: Option<Arc<Tablebase>>,
}

impl Default for MatchConfig {
    /// The rules' limits ([`EndRules::default`]: third occurrence, 120
    /// plies without capture), 400 plies in all, a 60 s per-move timeout
    /// under depth and node limits, no adjudication.
    fn default() -> MatchConfig {
        MatchConfig {
            rules: EndRules::default(),
            max_plies: 400,
            move_timeout: Duration::from_secs(60),
            score_adjudication: ScoreAdjudication::default(),
            tables: None,
        }
    }
}

/// The tables' ruling on `pos`, if they hold it and it is sure under
/// `rules`: a draw, or a mate that comes before the natural-move limit.
pub fn adjudicate_by_tables(
    pos: &Position,
    tables: &Tablebase,
    rules: &EndRules,
) -> Option<(GameResult, Termination)> {
    let value = tables.under(Repetitions::CheckAndChase).value(pos).ok()??;
    let in_time = |plies: u16| {
        plies < RULE_DTM && pos.plies_since_capture() + u32::from(plies) <= rules.natural_move_limit
    };
    let side = pos.turn();
    let result = match value {
        Value::Draw => GameResult::Draw,
        Value::Win(plies) if in_time(plies) => GameResult::win_for(side),
        Value::Loss(plies) if in_time(plies) => GameResult::win_for(!side),
        Value::Win(_) | Value::Loss(_) => return None,
    };
    Some((result, Termination::TablesAdjudication))
}

/// What an engine said about a move it played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    /// Its last reported score, from the mover's side.
    pub score: Option<EngineScore>,
    /// Its last reported depth.
    pub depth: Option<u32>,
    /// Time it took to answer.
    pub took: Duration,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub red: String,
    pub black: String,
    pub opening: Opening,
    /// The moves played after the opening.
    pub moves: Vec<Move>,
    /// What the engines said about each of [`GameRecord::moves`].
    pub stats: Vec<MoveStats>,
    pub result: GameResult,
    pub termination: Termination,
    /// Under a clock, the longest time a side took beyond its clock, in ms
    /// (negative when every move was in time); `None` without a clock or a move.
    pub worst_overrun_ms: Option<i64>,
}

impl GameRecord {
    /// Every move from the opening's start position: the opening, then the game.
    pub fn all_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.opening.moves.iter().chain(self.moves.iter()).copied()
    }

    /// The number of plies from the opening's start position.
    pub fn plies(&self) -> usize {
        self.opening.moves.len() + self.moves.len()
    }
}

/// A game in progress.
pub(crate) struct Game<'a> {
    cfg: &'a MatchConfig,
    /// Red's and Black's time controls.
    limits: [MoveLimit; 2],
    pub(crate) pos: Position,
    start: Opening,
    moves: Vec<Move>,
    stats: Vec<MoveStats>,
    /// Red's and Black's time left, under a clock.
    pub(crate) clocks: [Duration; 2],
    /// The moves each side has made, for clocks with periods of moves.
    moves_made: [u32; 2],
    pub(crate) worst_overrun_ms: Option<i64>,
}

impl<'a> Game<'a> {
    pub(crate) fn new(opening: &Opening, limits: [MoveLimit; 2], cfg: &'a MatchConfig) -> Game<'a> {
        let base = |limit: &MoveLimit| match limit {
            MoveLimit::Clock { base, .. } => *base,
            _ => Duration::ZERO,
        };
        Game {
            cfg,
            limits,
            pos: opening.position(),
            start: opening.clone(),
            moves: Vec::new(),
            stats: Vec::new(),
            clocks: limits.each_ref().map(base),
            moves_made: [0, 0],
            worst_overrun_ms: None,
        }
    }

    /// `position startpos|fen F [moves ...]`, the same in both protocols.
    pub(crate) fn position_command(&self) -> String {
        let start = match &self.start.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        let moves: Vec<String> = self.history().map(|m| m.to_string()).collect();
        if moves.is_empty() {
            start
        } else {
            format!("{start} moves {}", moves.join(" "))
        }
    }

    fn history(&self) -> impl Iterator<Item = &Move> {
        self.start.moves.iter().chain(&self.moves)
    }

    /// What the clocks read for a `go` command: each side's time and
    /// increment (a side without a clock is shown the mover's), and the
    /// mover's moves left in its period.
    fn clock_reading(&self) -> ClockReading {
        let side = self.pos.turn().index();
        let increment = |limit: &MoveLimit| match limit {
            MoveLimit::Clock { increment, .. } => Some(*increment),
            _ => None,
        };
        let own = increment(&self.limits[side]).unwrap_or_default();
        let mut times = self.clocks;
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
            increments: self.limits.each_ref().map(|l| increment(l).unwrap_or(own)),
            moves_to_go,
        }
    }

    /// The `go` command for `engine`, the side to move, and how long to
    /// wait for its answer.
    pub(crate) fn go_command(&self, engine: &EngineProcess) -> (String, Duration) {
        let side = self.pos.turn();
        let grace = Duration::from_secs(5);
        match self.limits[side.index()] {
            MoveLimit::Clock { tolerance, .. } => {
                let go = engine
                    .protocol()
                    .go_clock(side, &self.clock_reading(), engine.millis());
                (go, self.clocks[side.index()] + tolerance + grace)
            }
            MoveLimit::MoveTime { time, tolerance } => {
                let go = engine.protocol().go_move_time(time, engine.millis());
                (go, time + tolerance + grace)
            }
            MoveLimit::Depth(depth) => (format!("go depth {depth}"), self.cfg.move_timeout),
            MoveLimit::Nodes(nodes) => (format!("go nodes {nodes}"), self.cfg.move_timeout),
        }
    }

    /// Charges `took` to the side to move's clock; a forfeit when it ran out.
    pub(crate) fn charge_clock(&mut self, took: Duration) -> Result<(), Termination> {
        let side = self.pos.turn().index();
        let limit = self.limits[side];
        let (allowed, tolerance) = match limit {
            MoveLimit::Clock { tolerance, .. } => (self.clocks[side], tolerance),
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
            self.clocks[side] = left;
        }
        Ok(())
    }

    /// Asks `engine` for a move and plays it.
    fn play_one_move(&mut self, engine: &mut EngineProcess) -> Result<(), Termination> {
        let (go, wait) = self.go_command(engine);
        let thought = engine
            .think(&self.position_command(), &go, wait)
            .map_err(|e| Termination::EngineFailure(e.to_string()))?;
        self.charge_clock(thought.took)?;
        let mv = move_of(&self.pos, &thought)?;
        self.pos.make_move(mv);
        self.moves.push(mv);
        self.stats.push(MoveStats {
            score: thought.score,
            depth: thought.depth,
            took: thought.took,
        });
        Ok(())
    }

    /// The end of the game at this point, if it has come: by the rules or
    /// the length cap, by the engines' scores, by the tables.
    fn end(&self) -> Option<(GameResult, Termination)> {
        let cfg = self.cfg;
        adjudicate(&self.pos, &cfg.rules, cfg.max_plies)
            .or_else(|| {
                let last_mover = !self.pos.turn();
                cfg.score_adjudication
                    .judge(self.pos.ply(), last_mover, &self.stats)
            })
            .or_else(|| {
                let tables = cfg.tables.as_deref()?;
                adjudicate_by_tables(&self.pos, tables, &cfg.rules)
            })
    }
}

/// The move of an answer, or why the answer loses the game. A resignation
/// ends the game whatever move came with it.
pub(crate) fn move_of(pos: &Position, thought: &Thought) -> Result<Move, Termination> {
    match &thought.answer {
        Answer::NoMove => Err(Termination::IllegalMove("no move".to_string())),
        Answer::Move { resign: true, .. } => Err(Termination::Resignation),
        Answer::Move { mv, .. } => pos
            .parse_move(mv)
            .map_err(|_| Termination::IllegalMove(mv.clone())),
    }
}

/// Plays one game from `opening`, Red's engine at `limits[0]` and Black's
/// at `limits[1]`; the side to move after the opening is asked first.
/// `None` when `stop` was set before the game ended (it is checked
/// between moves): an abandoned game, not a result.
pub fn play_game(
    red: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &Opening,
    limits: [MoveLimit; 2],
    cfg: &MatchConfig,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let mut game = Game::new(opening, limits, cfg);
    let (result, termination) = loop {
        if let Some(end) = game.end() {
            break end;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let side = game.pos.turn();
        let engine = if side == Color::Red {
            &mut *red
        } else {
            &mut *black
        };
        if let Err(why) = game.play_one_move(engine) {
            break (GameResult::win_for(!side), why);
        }
    };
    Some(GameRecord {
        red: red.name.clone(),
        black: black.name.clone(),
        opening: opening.clone(),
        moves: game.moves,
        stats: game.stats,
        result,
        termination,
        worst_overrun_ms: game.worst_overrun_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(fen: &str, moves: &str) -> Position {
        let mut pos = Position::from_fen(fen).unwrap();
        for m in moves.split_whitespace() {
            pos.make_move(pos.parse_move(m).unwrap());
        }
        pos
    }

    #[test]
    fn the_rules_and_the_length_cap_end_games() {
        let rules = EndRules::default();
        let mate = play("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9");
        assert_eq!(
            adjudicate(&mate, &rules, 400),
            Some((
                GameResult::RedWins,
                Termination::Rules(Outcome::NoLegalMove {
                    loser: Color::Black
                })
            ))
        );
        let fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
        let twice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        assert_eq!(
            adjudicate(&twice, &rules, 400),
            None,
            "second occurrence: play on"
        );
        let thrice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        let (result, why) = adjudicate(&thrice, &rules, 400).unwrap();
        assert_eq!(result, GameResult::BlackWins);
        assert_eq!(why.to_string(), "perpetual check by red");
        let pos = play(xqcore::START_FEN, "b0c2 b9c7 c2b0 c7b9");
        assert_eq!(
            adjudicate(&pos, &rules, 4),
            Some((GameResult::Draw, Termination::LengthCap))
        );
        // Red's cannon chases the black rook to the third occurrence.
        let chase = play(
            "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w",
            "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2",
        );
        let (result, why) = adjudicate(&chase, &rules, 400).unwrap();
        assert_eq!(result, GameResult::BlackWins);
        assert_eq!(why.to_string(), "perpetual chase by red");
    }

    /// A finished [`Thought`] answering `line`.
    fn thought(line: &str) -> Thought {
        Thought {
            answer: crate::protocol::read_answer(line).unwrap(),
            took: Duration::ZERO,
            depth: None,
            score: None,
            lines: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// Stats of moves scored `cps`, each from its mover's side.
    fn scored(cps: &[i32]) -> Vec<MoveStats> {
        cps.iter()
            .map(|&cp| MoveStats {
                score: Some(EngineScore::Cp(cp)),
                ..MoveStats::default()
            })
            .collect()
    }

    #[test]
    fn scores_adjudicate_only_when_both_engines_agree_long_enough() {
        let resign = ScoreAdjudication {
            resign: Some(ResignRule {
                score_cp: 500,
                moves: 2,
            }),
            draw: None,
        };
        // Red moved last: +600 for Red, then Black's -550 (Red +550), ...
        let red_winning = scored(&[30, 520, -510, 600, -550, 600]);
        assert_eq!(
            resign.judge(20, Color::Red, &red_winning),
            Some((GameResult::RedWins, Termination::ResignAdjudication))
        );
        // Black moved last: the same scores now favour Black.
        assert_eq!(
            resign.judge(20, Color::Black, &red_winning),
            Some((GameResult::BlackWins, Termination::ResignAdjudication))
        );
        // One engine disagrees.
        assert_eq!(
            resign.judge(20, Color::Red, &scored(&[520, -510, 400, -550, 600])),
            None
        );
        // Too few moves.
        assert_eq!(
            resign.judge(20, Color::Red, &scored(&[-510, 600, -550])),
            None
        );
        // A move without a score breaks the run; a mate counts as a win.
        let mut unscored = scored(&[520, -510, 600, -550, 600]);
        unscored[2].score = None;
        assert_eq!(resign.judge(20, Color::Red, &unscored), None);
        let mut mating = scored(&[520, -510, 600, -550, 600]);
        mating[3].score = Some(EngineScore::Mate(-4));
        mating[4].score = Some(EngineScore::Mate(5));
        assert_eq!(
            resign.judge(20, Color::Red, &mating).map(|(r, _)| r),
            Some(GameResult::RedWins)
        );

        let draw = ScoreAdjudication {
            resign: None,
            draw: Some(DrawRule {
                after_move: 30,
                score_cp: 10,
                moves: 3,
            }),
        };
        let level = scored(&[40, -10, 10, 0, -5, 7, -10]);
        assert_eq!(
            draw.judge(60, Color::Red, &level),
            Some((GameResult::Draw, Termination::DrawAdjudication))
        );
        assert_eq!(draw.judge(59, Color::Red, &level), None, "before move 30");
        assert_eq!(
            draw.judge(60, Color::Red, &level[..6]),
            None,
            "40 cp is too far"
        );
        assert_eq!(
            ScoreAdjudication::default().judge(400, Color::Red, &level),
            None
        );
    }

    #[test]
    fn answers_are_read_or_lose() {
        let pos = Position::start();
        assert_eq!(
            move_of(&pos, &thought("bestmove h2e2 ponder h9g7")),
            Ok(pos.parse_move("h2e2").unwrap())
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove a0a5")),
            Err(Termination::IllegalMove("a0a5".into()))
        );
        assert_eq!(
            Termination::IllegalMove("a0a5".into()).to_string(),
            "illegal move a0a5"
        );
        assert_eq!(
            move_of(&pos, &thought("nobestmove")),
            Err(Termination::IllegalMove("no move".into()))
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove (none)")),
            Err(Termination::IllegalMove("no move".into()))
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove h2e2 resign")),
            Err(Termination::Resignation)
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove a0a5 resign")),
            Err(Termination::Resignation)
        );
    }

    #[test]
    fn positions_are_sent_from_the_opening() {
        let opening = Opening::parse("h2e2").unwrap();
        let depth = MatchConfig::default();
        let limits = [MoveLimit::Depth(3); 2];
        let game = Game::new(&opening, limits, &depth);
        assert_eq!(game.position_command(), "position startpos moves h2e2");
        let start = Opening::parse("").unwrap();
        assert_eq!(
            Game::new(&start, limits, &depth).position_command(),
            "position startpos"
        );
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let from_fen = Opening::parse(&format!("fen {fen} moves e1e2")).unwrap();
        assert_eq!(
            Game::new(&from_fen, limits, &depth).position_command(),
            format!("position fen {fen} moves e1e2")
        );
    }

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
    fn every_kind_of_end_is_read_back_from_its_text() {
        let ends = [
            Termination::Rules(Outcome::NoLegalMove { loser: Color::Red }),
            Termination::Rules(Outcome::PerpetualCheck { by: Color::Black }),
            Termination::Rules(Outcome::PerpetualChase { by: Color::Red }),
            Termination::Rules(Outcome::Repetition),
            Termination::Rules(Outcome::NaturalMoveLimit),
            Termination::LengthCap,
            Termination::IllegalMove("a0a5".into()),
            Termination::Resignation,
            Termination::TimeForfeit,
            Termination::EngineFailure("engine: exited".into()),
            Termination::ResignAdjudication,
            Termination::DrawAdjudication,
            Termination::TablesAdjudication,
        ];
        for end in ends {
            assert_eq!(
                Termination::kind_of_text(&end.to_string()),
                Some(end.kind()),
                "{end}"
            );
        }
        assert_eq!(Termination::kind_of_text("abandoned"), None);
    }

    #[test]
    fn clock_is_charged_and_forfeits() {
        let ms = Duration::from_millis;
        let clock = MoveLimit::clock(ms(1_000), ms(100), ms(50));
        let cfg = MatchConfig::default();
        let start = Opening::default();
        let mut game = Game::new(&start, [clock, MoveLimit::Depth(2)], &cfg);
        assert_eq!(game.charge_clock(ms(400)), Ok(()));
        assert_eq!(game.clocks[Color::Red.index()], ms(700));
        assert_eq!(game.worst_overrun_ms, Some(-600));
        assert_eq!(game.charge_clock(ms(751)), Err(Termination::TimeForfeit));
        // Black searches to a depth: no clock is charged.
        game.pos.make_move(game.pos.parse_move("h2e2").unwrap());
        assert_eq!(game.charge_clock(Duration::from_secs(100)), Ok(()));
        let mut untimed = Game::new(&start, [MoveLimit::Depth(2); 2], &cfg);
        assert_eq!(untimed.charge_clock(Duration::from_secs(100)), Ok(()));
        assert_eq!(untimed.worst_overrun_ms, None);
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
        let cfg = MatchConfig::default();
        let start = Opening::default();
        let mut game = Game::new(&start, [period, per_move], &cfg);
        let reading = game.clock_reading();
        assert_eq!(reading.moves_to_go, Some(2));
        assert_eq!(
            reading.times,
            [ms(1_000), ms(1_000)],
            "Black is shown Red's clock"
        );
        for (red, black) in [("h2e2", "h9g7"), ("h0g2", "i9h9")] {
            assert_eq!(game.charge_clock(ms(300)), Ok(()));
            game.pos.make_move(game.pos.parse_move(red).unwrap());
            assert_eq!(game.charge_clock(ms(340)), Ok(()), "within the tolerance");
            game.pos.make_move(game.pos.parse_move(black).unwrap());
            assert_eq!(
                game.clock_reading().moves_to_go,
                Some(if red == "h2e2" { 1 } else { 2 })
            );
        }
        // Two moves of 300 ms, then the period's second second.
        assert_eq!(game.clocks[Color::Red.index()], ms(1_400));
        assert_eq!(game.worst_overrun_ms, Some(40));
        game.pos.make_move(game.pos.parse_move("i0h0").unwrap());
        assert_eq!(game.charge_clock(ms(351)), Err(Termination::TimeForfeit));
    }

    #[test]
    fn tables_end_games_they_hold_when_sure() {
        // No table is loaded: two bare kings are a draw by material alone.
        let tables = Tablebase::new();
        let rules = EndRules::default();
        let kings = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w").unwrap();
        assert_eq!(
            adjudicate_by_tables(&kings, &tables, &rules),
            Some((GameResult::Draw, Termination::TablesAdjudication))
        );
        let rook = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K1R3 w").unwrap();
        assert_eq!(
            adjudicate_by_tables(&rook, &tables, &rules),
            None,
            "no KRK table here"
        );
    }
}
