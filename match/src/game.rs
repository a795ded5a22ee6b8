//! One game between two engine processes: the clock, the moves asked for
//! and checked, and the end, ruled by [`xqcore::Position::outcome`] or by
//! what the referee sees (an illegal move, a resignation, a flag fall, an
//! engine that fails, the length cap).

use std::fmt;
use std::time::Duration;

use xqcore::{Color, EndRules, GameResult, Move, Outcome, Position};
use xqrecords::Opening;

use crate::engine::{EngineProcess, Thought};
use crate::protocol::{Answer, EngineScore};

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
}

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
        }
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
            Termination::ResignAdjudication | Termination::DrawAdjudication => {
                f.write_str(self.kind())
            }
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

/// What limits each move's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// A clock per side, base time plus an increment a move; a move that
    /// takes longer than the clock plus `tolerance` loses on time.
    Clock {
        base: Duration,
        increment: Duration,
        tolerance: Duration,
    },
    /// `go depth N` on every move.
    Depth(u32),
    /// `go nodes N` on every move.
    Nodes(u64),
}

impl fmt::Display for MoveLimit {
    /// The PGN `TimeControl` text: `BASE+INC` in seconds, or `depth=N`, `nodes=N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveLimit::Clock {
                base, increment, ..
            } => write!(f, "{}+{}", base.as_secs_f64(), increment.as_secs_f64()),
            MoveLimit::Depth(depth) => write!(f, "depth={depth}"),
            MoveLimit::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Game settings.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub limit: MoveLimit,
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
}

impl MatchConfig {
    /// The rules' limits ([`EndRules::default`]: third occurrence, 120
    /// plies without capture), 400 plies in all, and a 60 s per-move
    /// timeout under depth and node limits.
    pub fn new(limit: MoveLimit) -> MatchConfig {
        MatchConfig {
            limit,
            rules: EndRules::default(),
            max_plies: 400,
            move_timeout: Duration::from_secs(60),
            score_adjudication: ScoreAdjudication::default(),
        }
    }
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
    pub(crate) pos: Position,
    start: Opening,
    moves: Vec<Move>,
    stats: Vec<MoveStats>,
    pub(crate) clocks: [Duration; 2],
    pub(crate) worst_overrun_ms: Option<i64>,
}

impl<'a> Game<'a> {
    pub(crate) fn new(opening: &Opening, cfg: &'a MatchConfig) -> Game<'a> {
        let base = match cfg.limit {
            MoveLimit::Clock { base, .. } => base,
            MoveLimit::Depth(_) | MoveLimit::Nodes(_) => Duration::ZERO,
        };
        Game {
            cfg,
            pos: opening.position(),
            start: opening.clone(),
            moves: Vec::new(),
            stats: Vec::new(),
            clocks: [base, base],
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

    /// The `go` command for `engine`, the side to move, and how long to
    /// wait for its answer.
    pub(crate) fn go_command(&self, engine: &EngineProcess) -> (String, Duration) {
        match self.cfg.limit {
            MoveLimit::Clock {
                increment,
                tolerance,
                ..
            } => {
                let side = self.pos.turn();
                let go = engine
                    .protocol()
                    .go_clock(side, self.clocks, increment, engine.millis());
                let clock = self.clocks[side.index()];
                (go, clock + tolerance + Duration::from_secs(5))
            }
            MoveLimit::Depth(depth) => (format!("go depth {depth}"), self.cfg.move_timeout),
            MoveLimit::Nodes(nodes) => (format!("go nodes {nodes}"), self.cfg.move_timeout),
        }
    }

    /// Charges `took` to the side to move's clock; a forfeit when it ran out.
    pub(crate) fn charge_clock(&mut self, took: Duration) -> Result<(), Termination> {
        let MoveLimit::Clock {
            increment,
            tolerance,
            ..
        } = self.cfg.limit
        else {
            return Ok(());
        };
        let side = self.pos.turn().index();
        let clock = self.clocks[side];
        let overrun_ms = took.as_millis() as i64 - clock.as_millis() as i64;
        self.worst_overrun_ms = Some(
            self.worst_overrun_ms
                .map_or(overrun_ms, |w| w.max(overrun_ms)),
        );
        if took > clock + tolerance {
            return Err(Termination::TimeForfeit);
        }
        self.clocks[side] = clock.saturating_sub(took) + increment;
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

/// Plays one game from `opening`; the side to move after it is asked first.
pub fn play_game(
    red: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &Opening,
    cfg: &MatchConfig,
) -> GameRecord {
    let mut game = Game::new(opening, cfg);
    let (result, termination) = loop {
        if let Some(end) = adjudicate(&game.pos, &cfg.rules, cfg.max_plies) {
            break end;
        }
        let last_mover = !game.pos.turn();
        if let Some(end) = cfg
            .score_adjudication
            .judge(game.pos.ply(), last_mover, &game.stats)
        {
            break end;
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
    GameRecord {
        red: red.name.clone(),
        black: black.name.clone(),
        opening: opening.clone(),
        moves: game.moves,
        stats: game.stats,
        result,
        termination,
        worst_overrun_ms: game.worst_overrun_ms,
    }
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
        let depth = MatchConfig::new(MoveLimit::Depth(3));
        let game = Game::new(&opening, &depth);
        assert_eq!(game.position_command(), "position startpos moves h2e2");
        let start = Opening::parse("").unwrap();
        assert_eq!(
            Game::new(&start, &depth).position_command(),
            "position startpos"
        );
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let from_fen = Opening::parse(&format!("fen {fen} moves e1e2")).unwrap();
        assert_eq!(
            Game::new(&from_fen, &depth).position_command(),
            format!("position fen {fen} moves e1e2")
        );
        assert_eq!(MoveLimit::Nodes(5000).to_string(), "nodes=5000");
        let clock = MoveLimit::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            tolerance: Duration::from_millis(200),
        };
        assert_eq!(clock.to_string(), "10+0.1");
    }

    #[test]
    fn clock_is_charged_and_forfeits() {
        let clock = MatchConfig::new(MoveLimit::Clock {
            base: Duration::from_secs(1),
            increment: Duration::from_millis(100),
            tolerance: Duration::from_millis(50),
        });
        let start = Opening::default();
        let mut game = Game::new(&start, &clock);
        assert_eq!(game.charge_clock(Duration::from_millis(400)), Ok(()));
        assert_eq!(game.clocks[Color::Red.index()], Duration::from_millis(700));
        assert_eq!(game.worst_overrun_ms, Some(-600));
        assert_eq!(
            game.charge_clock(Duration::from_millis(751)),
            Err(Termination::TimeForfeit)
        );
        let depth = MatchConfig::new(MoveLimit::Depth(2));
        let mut untimed = Game::new(&start, &depth);
        assert_eq!(untimed.charge_clock(Duration::from_secs(100)), Ok(()));
        assert_eq!(untimed.worst_overrun_ms, None);
    }
}
