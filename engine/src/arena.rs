//! Engine-versus-engine matches over UCCI, with adjudication by the rules:
//! mate and stalemate (no legal move loses), repetition (perpetual check loses
//! for the checker, other repetitions draw), the natural-move limit, a length
//! cap, illegal moves, resignations, lost time and engine failures.
//!
//! Games run on up to `concurrency` threads, each game with its own two engine
//! processes; results come back to the calling thread in completion order.
//! [`stats`] holds the score statistics and the SPRT, [`pgn`] the game record
//! format and [`report`] the text lines of the `xqengine match` command.

pub mod pgn;
pub mod report;
pub mod stats;

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use xqcore::{Color, Move, Position, RepetitionKind};

pub use stats::{GameScore, Sprt, SprtVerdict, Tally};

/// How a game ended, from Red's side. The arena decides every game it
/// plays: it never gives [`GameResult::Unknown`].
pub use xqcore::GameResult;

/// The result when `loser` loses.
fn loss_for(loser: Color) -> GameResult {
    match loser {
        Color::Red => GameResult::BlackWins,
        Color::Black => GameResult::RedWins,
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move had no legal move (checkmate or stalemate).
    NoLegalMove,
    /// The position repeated a third time while `by` checked on every move.
    PerpetualCheck {
        by: Color,
    },
    Repetition,
    NaturalMoveLimit,
    LengthCap,
    /// The engine answered with this illegal or unreadable move (or
    /// `nobestmove` while it had legal moves).
    IllegalMove(String),
    Resignation,
    TimeForfeit,
    /// The engine could not be talked to, or did not answer in time.
    EngineFailure(String),
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::NoLegalMove => f.write_str("checkmate or stalemate"),
            Termination::PerpetualCheck { by: Color::Red } => f.write_str("perpetual check by red"),
            Termination::PerpetualCheck { by: Color::Black } => {
                f.write_str("perpetual check by black")
            }
            Termination::Repetition => f.write_str("repetition"),
            Termination::NaturalMoveLimit => f.write_str("natural-move limit"),
            Termination::LengthCap => f.write_str("length cap"),
            Termination::IllegalMove(mv) => write!(f, "illegal move {mv}"),
            Termination::Resignation => f.write_str("resignation"),
            Termination::TimeForfeit => f.write_str("time forfeit"),
            Termination::EngineFailure(why) => write!(f, "engine failure: {why}"),
        }
    }
}

/// Judges the position after a move: `Some` when the game is over.
/// Repetition ends the game at the third occurrence.
pub fn adjudicate(
    pos: &Position,
    draw_plies: u32,
    max_plies: usize,
) -> Option<(GameResult, Termination)> {
    if pos.is_lost() {
        return Some((loss_for(pos.turn()), Termination::NoLegalMove));
    }
    if pos.repetition_count() >= 3 {
        let kind = pos.repetition().map(|r| r.kind);
        return Some(match kind {
            Some(RepetitionKind::PerpetualCheck { by }) => {
                (loss_for(by), Termination::PerpetualCheck { by })
            }
            _ => (GameResult::Draw, Termination::Repetition),
        });
    }
    if pos.plies_since_capture() >= draw_plies {
        return Some((GameResult::Draw, Termination::NaturalMoveLimit));
    }
    if pos.ply() >= max_plies {
        return Some((GameResult::Draw, Termination::LengthCap));
    }
    None
}

/// A UCCI engine process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub name: String,
}

impl EngineProcess {
    /// Starts `command` (run by `sh -c`) and completes the UCCI handshake.
    pub fn start(command: &str, options: &[String]) -> Result<EngineProcess, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{command}': {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            name: command.to_string(),
        };
        e.send("ucci")?;
        let id = e.wait_for(
            |l| l == "ucciok" || l.starts_with("id name "),
            Duration::from_secs(30),
        )?;
        if let Some(name) = id.strip_prefix("id name ") {
            e.name = name.to_string();
            e.wait_for(|l| l == "ucciok", Duration::from_secs(30))?;
        }
        e.send("setoption usemillisec true")?;
        for o in options {
            e.send(&format!("setoption {o}"))?;
        }
        Ok(e)
    }

    /// The memory of the engine's processes (the shell that started it and
    /// its descendants), where the system tells (Linux).
    pub fn memory(&self) -> Option<Memory> {
        memory_of_tree(self.child.id())
    }

    /// Tells the engine a new game starts (UCCI engines that do not know the
    /// option ignore it).
    fn new_game(&mut self) -> Result<(), String> {
        self.send("setoption newgame")
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("{}: {e}", self.name))
    }

    fn wait_for(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(l) if pred(l.trim()) => return Ok(l.trim().to_string()),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{}: no answer within {timeout:?}", self.name))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{}: exited", self.name))
                }
            }
        }
    }

    /// Sends `position_command` and `go_command` and waits up to `wait` for
    /// the answer; returns the `bestmove` (or `nobestmove`) line and the time
    /// it took.
    fn think(
        &mut self,
        position_command: &str,
        go_command: &str,
        wait: Duration,
    ) -> Result<(String, Duration), String> {
        self.send(position_command)?;
        let started = Instant::now();
        self.send(go_command)?;
        let line = self.wait_for(|l| l.starts_with("bestmove") || l == "nobestmove", wait)?;
        Ok((line, started.elapsed()))
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Memory of an engine's processes, in kB, from /proc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident anonymous memory now (heap and stacks; not the mapped book
    /// and table files, whose pages the system may drop at will).
    pub anon_kb: u64,
    /// The most resident memory so far (VmHWM), mapped files included.
    pub peak_kb: u64,
}

/// The memory of process `pid` and its descendants, summed.
fn memory_of_tree(pid: u32) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let mut total = Memory {
        anon_kb: field("RssAnon:"),
        peak_kb: field("VmHWM:"),
    };
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
        if let Some(m) = memory_of_tree(child) {
            total.anon_kb += m.anon_kb;
            total.peak_kb += m.peak_kb;
        }
    }
    Some(total)
}

/// What limits each move's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// A chess clock per side: `go time .. increment ..`; a move that takes
    /// longer than the clock plus `tolerance` loses on time.
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
    pub draw_plies: u32,
    pub max_plies: usize,
    /// Under a depth or node limit, how long a move may take before the
    /// engine is declared failed.
    pub move_timeout: Duration,
}

impl MatchConfig {
    /// The rules' limits (120 plies without capture, 400 plies in all) and a
    /// 60 s per-move timeout for depth and node limits.
    pub fn new(limit: MoveLimit) -> MatchConfig {
        MatchConfig {
            limit,
            draw_plies: 120,
            max_plies: 400,
            move_timeout: Duration::from_secs(60),
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub red: String,
    pub black: String,
    pub opening: Vec<Move>,
    /// The moves played after the opening.
    pub moves: Vec<Move>,
    pub result: GameResult,
    pub termination: Termination,
    /// Under a clock, the longest time a side took beyond its clock, in ms
    /// (negative when every move was in time); `None` without a clock or a move.
    pub worst_overrun_ms: Option<i64>,
}

impl GameRecord {
    /// Every move from the start position: the opening, then the game.
    pub fn all_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.opening.iter().chain(self.moves.iter()).copied()
    }
}

/// A game in progress.
struct Game<'a> {
    cfg: &'a MatchConfig,
    pos: Position,
    history: Vec<Move>,
    opening_len: usize,
    clocks: [Duration; 2],
    worst_overrun_ms: Option<i64>,
}

impl<'a> Game<'a> {
    fn new(opening: &[Move], cfg: &'a MatchConfig) -> Game<'a> {
        let mut pos = Position::start();
        for &m in opening {
            pos.make_move(m);
        }
        let base = match cfg.limit {
            MoveLimit::Clock { base, .. } => base,
            MoveLimit::Depth(_) | MoveLimit::Nodes(_) => Duration::ZERO,
        };
        Game {
            cfg,
            pos,
            history: opening.to_vec(),
            opening_len: opening.len(),
            clocks: [base, base],
            worst_overrun_ms: None,
        }
    }

    fn position_command(&self) -> String {
        let moves: Vec<String> = self.history.iter().map(Move::to_string).collect();
        if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        }
    }

    /// The `go` command for the side to move and how long to wait for its answer.
    fn go_command(&self) -> (String, Duration) {
        match self.cfg.limit {
            MoveLimit::Clock {
                increment,
                tolerance,
                ..
            } => {
                let clock = self.clocks[self.pos.turn().index()];
                let go = format!(
                    "go time {} increment {}",
                    clock.as_millis(),
                    increment.as_millis()
                );
                (go, clock + tolerance + Duration::from_secs(5))
            }
            MoveLimit::Depth(depth) => (format!("go depth {depth}"), self.cfg.move_timeout),
            MoveLimit::Nodes(nodes) => (format!("go nodes {nodes}"), self.cfg.move_timeout),
        }
    }

    /// Charges `took` to the side to move's clock; a forfeit when it ran out.
    fn charge_clock(&mut self, took: Duration) -> Result<(), Termination> {
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
        let (go, wait) = self.go_command();
        let (answer, took) = engine
            .think(&self.position_command(), &go, wait)
            .map_err(Termination::EngineFailure)?;
        self.charge_clock(took)?;
        let mv = move_from_answer(&self.pos, &answer)?;
        self.pos.make_move(mv);
        self.history.push(mv);
        Ok(())
    }
}

/// The move of a `bestmove` line, or why the line loses the game.
fn move_from_answer(pos: &Position, answer: &str) -> Result<Move, Termination> {
    let words: Vec<&str> = answer.split_whitespace().collect();
    if words.first() != Some(&"bestmove") {
        return Err(Termination::IllegalMove(answer.to_string()));
    }
    let Some(text) = words.get(1) else {
        return Err(Termination::IllegalMove(answer.to_string()));
    };
    let mv = pos
        .parse_move(text)
        .map_err(|_| Termination::IllegalMove(text.to_string()))?;
    if words.contains(&"resign") {
        return Err(Termination::Resignation);
    }
    Ok(mv)
}

/// Plays one game from the start position after `opening`.
pub fn play_game(
    red: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &[Move],
    cfg: &MatchConfig,
) -> GameRecord {
    let mut game = Game::new(opening, cfg);
    let (result, termination) = loop {
        if let Some(end) = adjudicate(&game.pos, cfg.draw_plies, cfg.max_plies) {
            break end;
        }
        let side = game.pos.turn();
        let engine = if side == Color::Red {
            &mut *red
        } else {
            &mut *black
        };
        if let Err(why) = game.play_one_move(engine) {
            break (loss_for(side), why);
        }
    };
    GameRecord {
        red: red.name.clone(),
        black: black.name.clone(),
        opening: opening.to_vec(),
        moves: game.history.split_off(game.opening_len),
        result,
        termination,
        worst_overrun_ms: game.worst_overrun_ms,
    }
}

/// Reads opening lines (ICCS moves, `#` comments) and checks their legality.
pub fn read_openings(text: &str) -> Result<Vec<Vec<Move>>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut pos = Position::start();
        let mut moves = Vec::new();
        for m in line.split_whitespace() {
            let mv = pos
                .parse_move(m)
                .map_err(|e| format!("openings line {}: {e}", n + 1))?;
            pos.make_move(mv);
            moves.push(mv);
        }
        out.push(moves);
    }
    Ok(out)
}

/// How to start one engine of a match.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Command line, run by `sh -c`.
    pub command: String,
    /// `setoption` lines sent after the handshake (without `setoption`).
    pub options: Vec<String>,
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// The first and the second engine; scores are from the first's side.
    pub engines: [EngineSpec; 2],
    /// Opening lines; games 2k and 2k+1 play line k with colours swapped.
    /// Empty means the start position.
    pub openings: Vec<Vec<Move>>,
    pub games: usize,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    pub config: MatchConfig,
    /// Stop starting games once this test reaches a verdict.
    pub sprt: Option<Sprt>,
    /// Keep each worker's two engine processes for all its games (telling
    /// them `setoption newgame`), instead of starting fresh ones every game:
    /// a test of engines that run for hours.
    pub keep_engines: bool,
}

/// A game of a match.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// 1-based game number, in the order games were scheduled.
    pub number: usize,
    pub first_is_red: bool,
    pub record: GameRecord,
    /// The first and the second engine's memory once the game ended.
    pub memory: [Option<Memory>; 2],
}

impl FinishedGame {
    /// The game's result from the first engine's side.
    pub fn first_engine_score(&self) -> GameScore {
        match (self.record.result, self.first_is_red) {
            (GameResult::Draw | GameResult::Unknown, _) => GameScore::Draw,
            (GameResult::RedWins, true) | (GameResult::BlackWins, false) => GameScore::Win,
            (GameResult::RedWins, false) | (GameResult::BlackWins, true) => GameScore::Loss,
        }
    }
}

/// The point at which an SPRT reached its verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtDecision {
    pub verdict: SprtVerdict,
    pub llr: f64,
    /// Games counted when the verdict was reached.
    pub games: u32,
}

/// What a match produced.
#[derive(Clone, Debug, Default)]
pub struct MatchReport {
    /// Every finished game, counted from the first engine's side.
    pub tally: Tally,
    /// Set when the SPRT decided (no game was started after that).
    pub sprt_decision: Option<SprtDecision>,
    /// The first error that stopped the match early (an engine that would not
    /// start, a failing game callback).
    pub failure: Option<String>,
}

/// Plays the games of `spec` on up to `spec.concurrency` threads; engines are
/// restarted for every game so none carries state over. The calling thread
/// hands out the games one at a time, as earlier ones finish, and runs `each`
/// for every finished game (in completion order, with the tally including that
/// game). Once the SPRT decides, or `each` or an engine start fails, no new
/// game starts; the running ones are finished and counted.
pub fn run_match(
    spec: &MatchSpec,
    mut each: impl FnMut(&FinishedGame, &Tally) -> Result<(), String>,
) -> MatchReport {
    let (jobs, job_queue) = channel();
    let job_queue = Mutex::new(job_queue);
    let (results, received) = channel();
    let workers = spec.concurrency.clamp(1, spec.games.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let results = results.clone();
            let job_queue = &job_queue;
            scope.spawn(move || play_queued_games(spec, job_queue, results));
        }
        drop(results);
        let mut dispatcher = Dispatcher::new(jobs, spec.games);
        for _ in 0..workers {
            dispatcher.send_next();
        }
        collect_results(spec, received, dispatcher, &mut each)
    })
}

/// Hands out game indices (0-based) to the workers.
struct Dispatcher {
    jobs: Option<Sender<usize>>,
    next: usize,
    games: usize,
}

impl Dispatcher {
    fn new(jobs: Sender<usize>, games: usize) -> Dispatcher {
        Dispatcher {
            jobs: Some(jobs),
            next: 0,
            games,
        }
    }

    /// Queues the next game, or closes the queue when all are out.
    fn send_next(&mut self) {
        if self.next >= self.games {
            self.close();
            return;
        }
        if let Some(jobs) = &self.jobs {
            if jobs.send(self.next).is_ok() {
                self.next += 1;
            }
        }
    }

    /// No more games: idle workers then exit.
    fn close(&mut self) {
        self.jobs = None;
    }
}

/// A worker: plays queued games until the queue is closed. A panicking game
/// is reported as a failure rather than lost.
fn play_queued_games(
    spec: &MatchSpec,
    job_queue: &Mutex<Receiver<usize>>,
    results: Sender<Result<FinishedGame, String>>,
) {
    let mut kept: Option<[EngineProcess; 2]> = None;
    loop {
        let job = match job_queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(index) = job else { return };
        let game = catch_unwind(AssertUnwindSafe(|| {
            play_numbered_game(spec, index, &mut kept)
        }))
        .unwrap_or_else(|_| Err(format!("game {} panicked", index + 1)));
        if results.send(game).is_err() {
            return;
        }
    }
}

/// Starts the two engines of a match.
fn start_engines(spec: &MatchSpec) -> Result<[EngineProcess; 2], String> {
    let [first_spec, second_spec] = &spec.engines;
    let mut first = EngineProcess::start(&first_spec.command, &first_spec.options)?;
    let mut second = EngineProcess::start(&second_spec.command, &second_spec.options)?;
    if first.name == second.name {
        first.name.push_str(" (engine1)");
        second.name.push_str(" (engine2)");
    }
    Ok([first, second])
}

/// Plays game `index` (0-based): the first engine is Red in even games.
/// Engines are started for the game, or taken from `kept` and put back
/// there when the match keeps them (unless the game ended by a failure,
/// after which fresh ones start).
fn play_numbered_game(
    spec: &MatchSpec,
    index: usize,
    kept: &mut Option<[EngineProcess; 2]>,
) -> Result<FinishedGame, String> {
    let opening = match spec.openings.len() {
        0 => &[][..],
        n => spec.openings[(index / 2) % n].as_slice(),
    };
    let [mut first, mut second] = match kept.take() {
        Some(mut engines) => {
            for e in &mut engines {
                e.new_game()?;
            }
            engines
        }
        None => start_engines(spec)?,
    };
    let first_is_red = index.is_multiple_of(2);
    let record = if first_is_red {
        play_game(&mut first, &mut second, opening, &spec.config)
    } else {
        play_game(&mut second, &mut first, opening, &spec.config)
    };
    let memory = [first.memory(), second.memory()];
    if spec.keep_engines && !matches!(record.termination, Termination::EngineFailure(_)) {
        *kept = Some([first, second]);
    }
    Ok(FinishedGame {
        number: index + 1,
        first_is_red,
        record,
        memory,
    })
}

/// Counts the games as they finish, runs `each` and the SPRT, and queues a
/// new game for every finished one until the match must stop.
fn collect_results(
    spec: &MatchSpec,
    received: Receiver<Result<FinishedGame, String>>,
    mut dispatcher: Dispatcher,
    each: &mut impl FnMut(&FinishedGame, &Tally) -> Result<(), String>,
) -> MatchReport {
    let mut report = MatchReport::default();
    for message in received {
        let outcome = message.and_then(|game| {
            report.tally.add(game.first_engine_score());
            each(&game, &report.tally)
        });
        if let Err(why) = outcome {
            report.failure.get_or_insert(why);
        }
        if report.sprt_decision.is_none() {
            report.sprt_decision = spec
                .sprt
                .and_then(|sprt| sprt_decision(&sprt, &report.tally));
        }
        if report.failure.is_some() || report.sprt_decision.is_some() {
            dispatcher.close();
        } else {
            dispatcher.send_next();
        }
    }
    report
}

/// The SPRT's decision on `tally`, if it reached one.
fn sprt_decision(sprt: &Sprt, tally: &Tally) -> Option<SprtDecision> {
    let llr = sprt.llr(tally);
    let verdict = sprt.verdict(llr);
    (verdict != SprtVerdict::Continue).then_some(SprtDecision {
        verdict,
        llr,
        games: tally.games(),
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
    fn mate_and_stalemate_lose() {
        let mate = play("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9");
        assert_eq!(
            adjudicate(&mate, 120, 400),
            Some((GameResult::RedWins, Termination::NoLegalMove))
        );
        let stalemate = play("3k5/R8/4R4/9/9/9/9/9/9/4K4 b", "");
        assert_eq!(
            adjudicate(&stalemate, 120, 400),
            Some((GameResult::RedWins, Termination::NoLegalMove))
        );
    }

    #[test]
    fn perpetual_check_loses_and_idle_repetition_draws() {
        let fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
        let twice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        assert_eq!(
            adjudicate(&twice, 120, 400),
            None,
            "second occurrence: play on"
        );
        let thrice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        let by_red = Termination::PerpetualCheck { by: Color::Red };
        assert_eq!(
            adjudicate(&thrice, 120, 400),
            Some((GameResult::BlackWins, by_red.clone()))
        );
        assert_eq!(by_red.to_string(), "perpetual check by red");
        let idle = play(
            Position::start().fen().as_str(),
            "b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0 c7b9",
        );
        assert_eq!(
            adjudicate(&idle, 120, 400),
            Some((GameResult::Draw, Termination::Repetition))
        );
    }

    #[test]
    fn move_limits_draw() {
        let pos = play(Position::start().fen().as_str(), "b0c2 b9c7 c2b0 c7b9");
        assert_eq!(
            adjudicate(&pos, 4, 400),
            Some((GameResult::Draw, Termination::NaturalMoveLimit))
        );
        assert_eq!(
            adjudicate(&pos, 120, 4),
            Some((GameResult::Draw, Termination::LengthCap))
        );
    }

    #[test]
    fn answers_are_read_or_lose() {
        let pos = Position::start();
        assert_eq!(
            move_from_answer(&pos, "bestmove h2e2 ponder h9g7"),
            Ok(pos.parse_move("h2e2").unwrap())
        );
        assert_eq!(
            move_from_answer(&pos, "bestmove a0a5"),
            Err(Termination::IllegalMove("a0a5".into()))
        );
        assert_eq!(
            Termination::IllegalMove("a0a5".into()).to_string(),
            "illegal move a0a5"
        );
        assert_eq!(
            move_from_answer(&pos, "nobestmove"),
            Err(Termination::IllegalMove("nobestmove".into()))
        );
        assert_eq!(
            move_from_answer(&pos, "bestmove h2e2 resign"),
            Err(Termination::Resignation)
        );
    }

    #[test]
    fn go_commands_follow_the_limit() {
        let opening = [Position::start().parse_move("h2e2").unwrap()];
        let depth = MatchConfig::new(MoveLimit::Depth(3));
        let game = Game::new(&opening, &depth);
        assert_eq!(game.position_command(), "position startpos moves h2e2");
        assert_eq!(
            game.go_command(),
            ("go depth 3".to_string(), Duration::from_secs(60))
        );
        let nodes = MatchConfig::new(MoveLimit::Nodes(5000));
        assert_eq!(Game::new(&[], &nodes).go_command().0, "go nodes 5000");
        assert_eq!(
            Game::new(&[], &nodes).position_command(),
            "position startpos"
        );
        let clock = MatchConfig::new(MoveLimit::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            tolerance: Duration::from_millis(200),
        });
        assert_eq!(
            Game::new(&[], &clock).go_command().0,
            "go time 10000 increment 100"
        );
        assert_eq!(clock.limit.to_string(), "10+0.1");
        assert_eq!(nodes.limit.to_string(), "nodes=5000");
    }

    #[test]
    fn clock_is_charged_and_forfeits() {
        let clock = MatchConfig::new(MoveLimit::Clock {
            base: Duration::from_secs(1),
            increment: Duration::from_millis(100),
            tolerance: Duration::from_millis(50),
        });
        let mut game = Game::new(&[], &clock);
        assert_eq!(game.charge_clock(Duration::from_millis(400)), Ok(()));
        assert_eq!(game.clocks[Color::Red.index()], Duration::from_millis(700));
        assert_eq!(game.worst_overrun_ms, Some(-600));
        assert_eq!(
            game.charge_clock(Duration::from_millis(751)),
            Err(Termination::TimeForfeit)
        );
        let depth = MatchConfig::new(MoveLimit::Depth(2));
        let mut untimed = Game::new(&[], &depth);
        assert_eq!(untimed.charge_clock(Duration::from_secs(100)), Ok(()));
        assert_eq!(untimed.worst_overrun_ms, None);
    }

    #[test]
    fn first_engine_score_follows_its_colour() {
        let game = |result, first_is_red| FinishedGame {
            number: 1,
            first_is_red,
            record: GameRecord {
                red: "a".into(),
                black: "b".into(),
                opening: Vec::new(),
                moves: Vec::new(),
                result,
                termination: Termination::Resignation,
                worst_overrun_ms: None,
            },
            memory: [None, None],
        };
        let score = |result, red| game(result, red).first_engine_score();
        assert_eq!(score(GameResult::RedWins, true), GameScore::Win);
        assert_eq!(score(GameResult::RedWins, false), GameScore::Loss);
        assert_eq!(score(GameResult::BlackWins, false), GameScore::Win);
        assert_eq!(score(GameResult::Draw, false), GameScore::Draw);
    }

    /// A shell "engine" that resigns on every move (with a move that is legal
    /// for Red at the start), so Red loses every game at once.
    const RESIGNING_ENGINE: &str = "while read -r line; do case \"$line\" in \
        ucci) echo ucciok;; go*) echo 'bestmove h2e2 resign';; quit) exit 0;; esac; done";

    fn spec(command: &str, games: usize, concurrency: usize) -> MatchSpec {
        let engine = EngineSpec {
            command: command.to_string(),
            options: vec!["hashsize 1".to_string()],
        };
        MatchSpec {
            engines: [engine.clone(), engine],
            openings: Vec::new(),
            games,
            concurrency,
            config: MatchConfig::new(MoveLimit::Depth(1)),
            sprt: None,
            keep_engines: false,
        }
    }

    #[test]
    fn concurrent_match_counts_every_game_once() {
        let mut seen = Vec::new();
        let report = run_match(&spec(RESIGNING_ENGINE, 5, 3), |game, tally| {
            assert_eq!(game.record.termination, Termination::Resignation);
            assert_eq!(game.first_is_red, game.number % 2 == 1);
            let first_name = if game.first_is_red {
                &game.record.red
            } else {
                &game.record.black
            };
            assert!(first_name.ends_with("(engine1)"), "{first_name}");
            seen.push((game.number, tally.games()));
            Ok(())
        });
        assert_eq!(report.failure, None);
        // Red resigns every game: engine1 loses games 1, 3, 5 and wins 2, 4.
        assert_eq!(
            report.tally,
            Tally {
                wins: 2,
                draws: 0,
                losses: 3
            }
        );
        let counted: Vec<u32> = seen.iter().map(|&(_, games)| games).collect();
        assert_eq!(counted, [1, 2, 3, 4, 5]);
        let mut numbers: Vec<usize> = seen.iter().map(|&(number, _)| number).collect();
        numbers.sort();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
    }

    /// [`RESIGNING_ENGINE`] that names itself by its process id.
    const NAMED_RESIGNING_ENGINE: &str = "while read -r line; do case \"$line\" in \
        ucci) echo \"id name pid$$\"; echo ucciok;; go*) echo 'bestmove h2e2 resign';; \
        quit) exit 0;; esac; done";

    /// The engine names of each game of a match of `spec`, in game order.
    fn names_by_game(spec: &MatchSpec) -> Vec<[String; 2]> {
        let mut names = Vec::new();
        let report = run_match(spec, |game, _| {
            let [a, b] = [&game.record.red, &game.record.black];
            let (first, second) = if game.first_is_red { (a, b) } else { (b, a) };
            names.push((game.number, [first.clone(), second.clone()]));
            assert!(game.memory.iter().all(|m| m.is_some_and(|m| m.anon_kb > 0)));
            Ok(())
        });
        assert_eq!(report.failure, None);
        names.sort();
        names.into_iter().map(|(_, n)| n).collect()
    }

    #[test]
    fn kept_engines_play_every_game_and_fresh_ones_one_each() {
        let mut spec = spec(NAMED_RESIGNING_ENGINE, 4, 1);
        let fresh = names_by_game(&spec);
        assert_ne!(fresh[0], fresh[1], "a new pair of processes each game");
        spec.keep_engines = true;
        let kept = names_by_game(&spec);
        assert!(kept.iter().all(|n| *n == kept[0]), "{kept:?}");
        assert_ne!(kept[0][0], kept[0][1]);
    }

    #[test]
    fn engine_that_cannot_start_stops_the_match() {
        let mut called = false;
        let report = run_match(&spec("exit 3", 4, 2), |_, _| {
            called = true;
            Ok(())
        });
        assert!(!called);
        assert_eq!(report.tally.games(), 0);
        // "exited" or a broken pipe, depending on when the shell is gone.
        assert!(report.failure.unwrap().starts_with("exit 3: "));
    }

    #[test]
    fn callback_error_stops_new_games() {
        let report = run_match(&spec(RESIGNING_ENGINE, 6, 1), |_, _| {
            Err("disk full".to_string())
        });
        assert_eq!(report.failure.as_deref(), Some("disk full"));
        assert_eq!(report.tally.games(), 1);
    }

    /// A finished game where the first engine (Red) scores `score`.
    fn game_scoring(number: usize, score: GameScore) -> FinishedGame {
        let result = match score {
            GameScore::Win => GameResult::RedWins,
            GameScore::Draw => GameResult::Draw,
            GameScore::Loss => GameResult::BlackWins,
        };
        FinishedGame {
            number,
            first_is_red: true,
            record: GameRecord {
                red: "a".into(),
                black: "b".into(),
                opening: Vec::new(),
                moves: Vec::new(),
                result,
                termination: Termination::Resignation,
                worst_overrun_ms: None,
            },
            memory: [None, None],
        }
    }

    #[test]
    fn sprt_decision_stops_new_games_and_later_games_still_count() {
        let mut spec = spec(RESIGNING_ENGINE, 1000, 1);
        let sprt = Sprt::new(0.0, 20.0).unwrap();
        spec.sprt = Some(sprt);
        let (results, received) = channel();
        let pattern = [
            GameScore::Win,
            GameScore::Win,
            GameScore::Draw,
            GameScore::Loss,
        ];
        for number in 1..=200 {
            let score = pattern[number % pattern.len()];
            results.send(Ok(game_scoring(number, score))).unwrap();
        }
        drop(results);
        let (jobs, queued) = channel();
        let mut dispatcher = Dispatcher::new(jobs, spec.games);
        dispatcher.send_next();
        let mut calls = 0;
        let report = collect_results(&spec, received, dispatcher, &mut |_, _| {
            calls += 1;
            Ok(())
        });
        assert_eq!(calls, 200);
        assert_eq!(report.tally.games(), 200);
        let decision = report.sprt_decision.expect("decided");
        assert_eq!(decision.verdict, SprtVerdict::AcceptH1);
        assert!(decision.llr >= sprt.bounds().1);
        assert!(decision.games < 200, "{decision:?}");
        // One game was queued at the start and one after each result until
        // the decision: games started = games counted at the decision.
        assert_eq!(queued.iter().count(), decision.games as usize);
        // The decision is the first crossing.
        let mut before = Tally::default();
        for number in 1..decision.games as usize {
            before.add(pattern[number % pattern.len()]);
        }
        assert_eq!(sprt.verdict(sprt.llr(&before)), SprtVerdict::Continue);
    }

    #[test]
    fn bundled_openings_are_legal() {
        let openings = read_openings(include_str!("../../data/openings.txt")).unwrap();
        assert_eq!(openings.len(), 60);
        assert!(read_openings("h2e2 h2e2").is_err());
    }
}
