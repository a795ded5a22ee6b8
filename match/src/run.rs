//! A tournament: its scheduled games handed out to up to `concurrency`
//! workers, each game with its own two engine processes (or ones a worker
//! keeps for all its games), results counted as they come in, and the
//! SPRT consulted after each one.
//!
//! Every engine is started once before the first game, so that a command
//! or an option that cannot work stops the tournament at once. After that
//! an engine's faults are its own: one that crashes, hangs, answers with
//! an illegal move or garbage, or cannot be restarted loses that game, and
//! the tournament goes on with a fresh process.

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

use xqcore::GameResult;
use xqrecords::Opening;

use crate::engine::{EngineError, EngineProcess, EngineSpec, Memory};
use crate::game::{play_game, MatchConfig};
use crate::rating::Crosstable;
use crate::record::{GameRecord, Termination};
use crate::stats::{GameScore, Pentanomial, Sprt, SprtVerdict, Tally};
use crate::time_control::MoveLimit;
use crate::tournament::ScheduledGame;

/// One engine of a tournament.
#[derive(Clone, Debug)]
pub struct Player {
    pub engine: EngineSpec,
    /// Its name in results and PGN; `None` takes the name the engine gives.
    pub name: Option<String>,
    /// Its time control.
    pub limit: MoveLimit,
}

impl Player {
    /// An engine under its own name at `limit`.
    pub fn new(engine: EngineSpec, limit: MoveLimit) -> Player {
        Player {
            engine,
            name: None,
            limit,
        }
    }
}

/// Everything a tournament needs.
#[derive(Clone, Debug)]
pub struct TournamentSpec {
    pub players: Vec<Player>,
    /// Where games start (see [`ScheduledGame::opening`]); empty means the
    /// start position.
    pub openings: Vec<Opening>,
    /// The games, from [`crate::Pairings::schedule`].
    pub schedule: Vec<ScheduledGame>,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    pub config: MatchConfig,
    /// With two engines: stop starting games once this test, on the game
    /// pairs, reaches a verdict.
    pub sprt: Option<Sprt>,
    /// Keep each worker's engine processes for all its games (telling them
    /// a new game starts), instead of starting fresh ones every game: a
    /// test of engines that run for hours.
    pub keep_engines: bool,
}

impl TournamentSpec {
    /// A match of two engines at the same time control: `games` games, each
    /// opening played with both colours in turn, the first engine Red
    /// first; one game at a time, no adjudication beyond the rules.
    pub fn head_to_head(
        engines: [EngineSpec; 2],
        limit: MoveLimit,
        openings: Vec<Opening>,
        games: usize,
    ) -> TournamentSpec {
        let pairings = crate::tournament::Pairings {
            format: crate::tournament::Format::RoundRobin,
            rounds: 1,
            games,
            order: crate::tournament::OpeningOrder::Sequential,
        };
        TournamentSpec {
            schedule: pairings.schedule(2, openings.len()),
            players: engines.map(|engine| Player::new(engine, limit)).to_vec(),
            openings,
            concurrency: 1,
            config: MatchConfig::default(),
            sprt: None,
            keep_engines: false,
        }
    }
}

/// A game of a tournament.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// 1-based game number, in schedule order.
    pub number: usize,
    /// The engines that played Red and Black.
    pub red: usize,
    pub black: usize,
    /// See [`ScheduledGame::pair`].
    pub pair: Option<usize>,
    pub record: GameRecord,
    /// Red's and Black's engine memory once the game ended.
    pub memory: [Option<Memory>; 2],
}

impl FinishedGame {
    /// The game's result from `engine`'s side (which played it).
    pub fn score_of(&self, engine: usize) -> GameScore {
        score_for(self.record.result, engine == self.red)
    }
}

/// A result from Red's side (`red`) or Black's.
fn score_for(result: GameResult, red: bool) -> GameScore {
    match (result, red) {
        (GameResult::Draw | GameResult::Unknown, _) => GameScore::Draw,
        (GameResult::RedWins, true) | (GameResult::BlackWins, false) => GameScore::Win,
        (GameResult::RedWins, false) | (GameResult::BlackWins, true) => GameScore::Loss,
    }
}

/// A game finished in an earlier run of the same tournament (read back
/// from its PGN to resume it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// Its number in the schedule.
    pub number: usize,
    pub result: GameResult,
    /// Its [`Termination::kind`].
    pub ending: String,
    /// The names of the engines that played Red and Black, when known: a
    /// resumed tournament refuses games its engines did not play.
    pub players: Option<[String; 2]>,
}

/// The results so far.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// The engines' names, as results and PGN give them.
    pub names: Vec<String>,
    /// Every game, by the pair of engines.
    pub table: Crosstable,
    /// Completed pairs of games, by encounter `(a, b)` with `a < b`, from
    /// `a`'s side.
    pub pairs: BTreeMap<(usize, usize), Pentanomial>,
    /// The first game of pairs whose second has not finished: the lower
    /// engine's score.
    halves: HashMap<usize, GameScore>,
    /// How many games ended each way, by [`Termination::kind`].
    pub endings: BTreeMap<String, u32>,
}

impl Results {
    /// No results yet of the engines `names`.
    pub fn new(names: Vec<String>) -> Results {
        Results {
            table: Crosstable::new(names.len()),
            names,
            ..Results::default()
        }
    }

    /// Counts game `game` of the schedule, which ended with `result`
    /// (`ending` as [`Termination::kind`] says).
    pub fn add(&mut self, game: &ScheduledGame, result: GameResult, ending: &str) {
        let red_score = score_for(result, true);
        self.table.add(game.red, game.black, red_score);
        *self.endings.entry(ending.to_string()).or_default() += 1;
        let (low, high) = (game.red.min(game.black), game.red.max(game.black));
        let low_score = score_for(result, low == game.red);
        if let Some(pair) = game.pair {
            match self.halves.remove(&pair) {
                Some(first) => self
                    .pairs
                    .entry((low, high))
                    .or_default()
                    .add(first, low_score),
                None => {
                    self.halves.insert(pair, low_score);
                }
            }
        }
    }

    /// The results of `games` played before, in any number of
    /// tournaments (their PGNs read back): the engines by their names, in
    /// the order they first appear. Games whose players are unknown are
    /// left out.
    pub fn of_games<'a>(games: impl IntoIterator<Item = &'a PlayedGame>) -> Results {
        let mut results = Results::default();
        for game in games {
            let Some([red, black]) = &game.players else {
                continue;
            };
            let red = results.index_of(red);
            let black = results.index_of(black);
            results.table.add(red, black, score_for(game.result, true));
            *results.endings.entry(game.ending.clone()).or_default() += 1;
        }
        results
    }

    /// The number of the engine `name`, added when new.
    fn index_of(&mut self, name: &str) -> usize {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i;
        }
        self.names.push(name.to_string());
        self.table.add_player()
    }

    /// The first engine's games: against the second, in a match of two.
    pub fn first_engine(&self) -> Tally {
        self.table.total(0)
    }

    /// The completed pairs of engines `a` and `b` (`a < b`), from `a`'s side.
    pub fn pairs_of(&self, a: usize, b: usize) -> Pentanomial {
        self.pairs.get(&(a, b)).copied().unwrap_or_default()
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

/// The error a game callback of [`run_tournament`] may return.
pub type CallbackError = Box<dyn std::error::Error + Send + Sync>;

/// Why a tournament stopped before its last game.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine could not be started before the first game.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A game panicked (a fault of the runner, not of the engines).
    #[error("game {0} panicked")]
    Panicked(usize),
    /// The callback for a finished game failed (e.g. writing its PGN).
    #[error("{0}")]
    Callback(CallbackError),
    /// A game played before is not the game the schedule has under its
    /// number: another tournament's results.
    #[error(
        "game {number} was played by {found}, but this tournament has {scheduled} as game {number}"
    )]
    NotThisTournament {
        number: usize,
        found: String,
        scheduled: String,
    },
}

/// What a tournament produced.
#[derive(Debug, Default)]
pub struct TournamentReport {
    /// Every finished game, earlier runs' included.
    pub results: Results,
    /// Set when the SPRT decided (no game was started after that).
    pub sprt_decision: Option<SprtDecision>,
    /// The first error that stopped the tournament early (an engine that
    /// would not start, a failing game callback).
    pub failure: Option<MatchError>,
    /// Whether `stop` cut it short; games then in progress were abandoned.
    pub interrupted: bool,
}

/// Plays the games of `spec.schedule` that `played` does not hold (earlier
/// runs' results, counted first), on up to `spec.concurrency` threads. The
/// calling thread hands the games out one at a time, as earlier ones
/// finish, and runs `each` for every finished game (in completion order,
/// with the results including that game). Once the SPRT decides, `each`
/// fails or an engine cannot start before the first game, no new game
/// starts and the running ones are finished and counted; once `stop` is
/// set, none starts and the running ones are abandoned at their next move.
pub fn run_tournament(
    spec: &TournamentSpec,
    played: &[PlayedGame],
    stop: &AtomicBool,
    mut each: impl FnMut(&FinishedGame, &Results) -> Result<(), CallbackError>,
) -> TournamentReport {
    let mut report = TournamentReport {
        results: Results::new(spec.players.iter().map(|_| String::new()).collect()),
        ..TournamentReport::default()
    };
    match player_names(spec) {
        Ok(names) => report.results.names = names,
        Err(e) => {
            report.failure = Some(e.into());
            return report;
        }
    }
    let done: HashMap<usize, &PlayedGame> = played.iter().map(|g| (g.number, g)).collect();
    if let Err(e) = check_played(spec, &report.results.names, played) {
        report.failure = Some(e);
        return report;
    }
    for game in &spec.schedule {
        if let Some(before) = done.get(&game.number) {
            report.results.add(game, before.result, &before.ending);
        }
    }
    report.sprt_decision = spec
        .sprt
        .and_then(|sprt| sprt_decision(&sprt, &report.results));
    let queue: Vec<usize> = (0..spec.schedule.len())
        .filter(|&i| !done.contains_key(&spec.schedule[i].number))
        .collect();
    if report.sprt_decision.is_some() || queue.is_empty() {
        return report;
    }
    let (jobs, job_queue) = channel();
    let job_queue = Mutex::new(job_queue);
    let (results, received) = channel();
    let workers = spec.concurrency.clamp(1, queue.len());
    let names = report.results.names.clone();
    let names = &names;
    let mut dispatcher = Dispatcher {
        jobs: Some(jobs),
        queue: queue.into_iter(),
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let results = results.clone();
            let job_queue = &job_queue;
            scope.spawn(move || play_queued_games(spec, names, job_queue, results, stop));
        }
        drop(results);
        for _ in 0..workers {
            dispatcher.send_next();
        }
        collect_results(spec, received, dispatcher, stop, &mut report, &mut each);
    });
    report.interrupted = stop.load(Ordering::Relaxed);
    report
}

/// Checks that every game played before is in the schedule, played by the
/// engines the schedule names.
fn check_played(
    spec: &TournamentSpec,
    names: &[String],
    played: &[PlayedGame],
) -> Result<(), MatchError> {
    for game in played {
        let scheduled = spec.schedule.iter().find(|g| g.number == game.number);
        let expected = scheduled.map(|g| [names[g.red].clone(), names[g.black].clone()]);
        let matches = match (&game.players, &expected) {
            (_, None) => false,
            (Some(found), Some(expected)) => found == expected,
            (None, Some(_)) => true,
        };
        if !matches {
            let pair = |p: &[String; 2]| format!("{} (Red) and {} (Black)", p[0], p[1]);
            return Err(MatchError::NotThisTournament {
                number: game.number,
                found: game.players.as_ref().map_or("unknown engines".into(), pair),
                scheduled: expected.as_ref().map_or("no game".into(), pair),
            });
        }
    }
    Ok(())
}

/// Starts every engine once, to check it starts and takes its options
/// (the games then start it with them unchecked), and returns the names results give them: the name set for it, else the one
/// the engine gives; names two engines share get ` (engineN)`, N its
/// 1-based place.
fn player_names(spec: &TournamentSpec) -> Result<Vec<String>, EngineError> {
    let mut names = Vec::new();
    for player in &spec.players {
        let engine = EngineProcess::start(&player.engine)?;
        names.push(player.name.clone().unwrap_or(engine.name.clone()));
    }
    let shared: Vec<bool> = names
        .iter()
        .map(|n| names.iter().filter(|m| *m == n).count() > 1)
        .collect();
    Ok(names
        .iter()
        .zip(shared)
        .enumerate()
        .map(|(i, (name, shared))| {
            if shared {
                format!("{name} (engine{})", i + 1)
            } else {
                name.clone()
            }
        })
        .collect())
}

/// Hands out schedule indices to the workers.
struct Dispatcher {
    jobs: Option<Sender<usize>>,
    queue: std::vec::IntoIter<usize>,
}

impl Dispatcher {
    /// Queues the next game, or closes the queue when all are out.
    fn send_next(&mut self) {
        let Some(jobs) = &self.jobs else { return };
        match self.queue.next() {
            Some(index) => {
                let _ = jobs.send(index);
            }
            None => self.close(),
        }
    }

    /// No more games: idle workers then exit.
    fn close(&mut self) {
        self.jobs = None;
    }
}

/// What a worker sends back for a game: finished, abandoned (`None`), or
/// the runner's failure.
type GameMessage = Result<Option<FinishedGame>, MatchError>;

/// A worker: plays queued games until the queue is closed. A panicking game
/// is reported as a failure rather than lost.
fn play_queued_games(
    spec: &TournamentSpec,
    names: &[String],
    job_queue: &Mutex<Receiver<usize>>,
    results: Sender<GameMessage>,
    stop: &AtomicBool,
) {
    let mut kept: Vec<Option<EngineProcess>> = spec.players.iter().map(|_| None).collect();
    loop {
        let job = match job_queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(index) = job else { return };
        let game = &spec.schedule[index];
        let message = if stop.load(Ordering::Relaxed) {
            Ok(None)
        } else {
            catch_unwind(AssertUnwindSafe(|| {
                Ok(play_scheduled_game(spec, names, game, &mut kept, stop))
            }))
            .unwrap_or_else(|_| Err(MatchError::Panicked(game.number)))
        };
        if results.send(message).is_err() {
            return;
        }
    }
}

/// An engine for a game: the one kept from the last, told a new game
/// starts, or a fresh one named as results name it.
fn engine_for(
    spec: &TournamentSpec,
    names: &[String],
    player: usize,
    kept: &mut [Option<EngineProcess>],
) -> Result<EngineProcess, EngineError> {
    if let Some(mut engine) = kept[player].take() {
        if engine.new_game().is_ok() {
            return Ok(engine);
        }
    }
    let mut engine = EngineProcess::start_for_game(&spec.players[player].engine)?;
    engine.name = names[player].clone();
    Ok(engine)
}

/// Plays `game`; `None` when `stop` abandoned it. An engine that cannot
/// be (re)started loses the game. Engines are put back in `kept` when the
/// tournament keeps them, unless the game ended by a fault.
fn play_scheduled_game(
    spec: &TournamentSpec,
    names: &[String],
    game: &ScheduledGame,
    kept: &mut [Option<EngineProcess>],
    stop: &AtomicBool,
) -> Option<FinishedGame> {
    let start = Opening::default();
    let opening = spec.openings.get(game.opening).unwrap_or(&start);
    let finished = |record, memory| FinishedGame {
        number: game.number,
        red: game.red,
        black: game.black,
        pair: game.pair,
        record,
        memory,
    };
    let engines = engine_for(spec, names, game.red, kept).map_err(|e| (e, GameResult::BlackWins));
    let engines = engines.and_then(|red| {
        let black = engine_for(spec, names, game.black, kept);
        black
            .map(|black| (red, black))
            .map_err(|e| (e, GameResult::RedWins))
    });
    let (mut red, mut black) = match engines {
        Ok(engines) => engines,
        Err((why, result)) => {
            let record = GameRecord {
                red: names[game.red].clone(),
                black: names[game.black].clone(),
                opening: opening.clone(),
                moves: Vec::new(),
                stats: Vec::new(),
                result,
                termination: Termination::EngineFailure(format!("cannot start: {why}")),
                worst_overrun_ms: None,
            };
            return Some(finished(record, [None, None]));
        }
    };
    let limits = [spec.players[game.red].limit, spec.players[game.black].limit];
    let record = play_game(&mut red, &mut black, opening, limits, &spec.config, stop)?;
    let memory = [red.memory(), black.memory()];
    let fault = matches!(
        record.termination,
        Termination::EngineFailure(_) | Termination::IllegalMove(_) | Termination::TimeForfeit
    );
    if spec.keep_engines && !fault {
        kept[game.red] = Some(red);
        kept[game.black] = Some(black);
    }
    Some(finished(record, memory))
}

/// Counts the games as they finish, runs `each` and the SPRT, and queues a
/// new game for every finished one until the tournament must stop.
fn collect_results(
    spec: &TournamentSpec,
    received: Receiver<GameMessage>,
    mut dispatcher: Dispatcher,
    stop: &AtomicBool,
    report: &mut TournamentReport,
    each: &mut impl FnMut(&FinishedGame, &Results) -> Result<(), CallbackError>,
) {
    let by_number: HashMap<usize, &ScheduledGame> =
        spec.schedule.iter().map(|g| (g.number, g)).collect();
    for message in received {
        let outcome = message.and_then(|game| {
            let Some(game) = game else { return Ok(()) };
            let scheduled = by_number[&game.number];
            let record = &game.record;
            report
                .results
                .add(scheduled, record.result, record.termination.kind());
            each(&game, &report.results).map_err(MatchError::Callback)
        });
        if let Err(why) = outcome {
            report.failure.get_or_insert(why);
        }
        if report.sprt_decision.is_none() {
            report.sprt_decision = spec
                .sprt
                .and_then(|sprt| sprt_decision(&sprt, &report.results));
        }
        if report.failure.is_some()
            || report.sprt_decision.is_some()
            || stop.load(Ordering::Relaxed)
        {
            dispatcher.close();
        } else {
            dispatcher.send_next();
        }
    }
}

/// The SPRT's decision on the first two engines' game pairs, if it reached one.
fn sprt_decision(sprt: &Sprt, results: &Results) -> Option<SprtDecision> {
    if results.table.players() != 2 {
        return None;
    }
    let llr = sprt.llr_pentanomial(&results.pairs_of(0, 1));
    let verdict = sprt.verdict(llr);
    (verdict != SprtVerdict::Continue).then_some(SprtDecision {
        verdict,
        llr,
        games: results.table.games(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{Format, OpeningOrder, Pairings};

    /// Games of tournaments played apart are counted together, by the
    /// engines' names, whatever order the engines first come in.
    #[test]
    fn results_of_games_played_apart_meet_by_name() {
        let game = |red: &str, black: &str, result| PlayedGame {
            number: 1,
            result,
            ending: "resignation".into(),
            players: Some([red.into(), black.into()]),
        };
        let games = [
            game("A", "B", GameResult::RedWins),
            game("B", "A", GameResult::Draw),
            game("C", "A", GameResult::BlackWins),
            game("B", "C", GameResult::RedWins),
            PlayedGame {
                players: None,
                ..game("A", "C", GameResult::RedWins)
            },
        ];
        let results = Results::of_games(&games);
        assert_eq!(results.names, ["A", "B", "C"]);
        let tally = |i, j| {
            let t = results.table.against(i, j);
            (t.wins, t.draws, t.losses)
        };
        assert_eq!(tally(0, 1), (1, 1, 0));
        assert_eq!(tally(0, 2), (1, 0, 0));
        assert_eq!(tally(2, 1), (0, 0, 1));
        assert_eq!(results.table.games(), 4);
        assert_eq!(results.endings["resignation"], 4);
    }

    /// A shell "engine" that resigns on every move (with a move that is legal
    /// for Red at the start), so Red loses every game at once.
    const RESIGNING_ENGINE: &str = "while read -r line; do case \"$line\" in \
        ucci) echo ucciok;; isready) echo readyok;; go*) echo 'bestmove h2e2 resign';; quit) exit 0;; esac; done";

    fn pairings(games: usize) -> Pairings {
        Pairings {
            format: Format::RoundRobin,
            rounds: 1,
            games,
            order: OpeningOrder::Sequential,
        }
    }

    fn spec(commands: &[&str], games: usize, concurrency: usize) -> TournamentSpec {
        let players: Vec<Player> = commands
            .iter()
            .map(|command| {
                let engine = EngineSpec {
                    options: vec!["hashsize 1".parse().unwrap()],
                    ..EngineSpec::new(command)
                };
                Player::new(engine, MoveLimit::Depth(1))
            })
            .collect();
        TournamentSpec {
            schedule: pairings(games).schedule(players.len(), 0),
            players,
            openings: Vec::new(),
            concurrency,
            config: MatchConfig::default(),
            sprt: None,
            keep_engines: false,
        }
    }

    fn run(
        spec: &TournamentSpec,
        each: impl FnMut(&FinishedGame, &Results) -> Result<(), CallbackError>,
    ) -> TournamentReport {
        run_tournament(spec, &[], &AtomicBool::new(false), each)
    }

    #[test]
    fn first_engine_score_follows_its_colour() {
        for (result, red, expected) in [
            (GameResult::RedWins, true, GameScore::Win),
            (GameResult::RedWins, false, GameScore::Loss),
            (GameResult::BlackWins, false, GameScore::Win),
            (GameResult::Draw, false, GameScore::Draw),
        ] {
            assert_eq!(score_for(result, red), expected);
        }
    }

    #[test]
    fn concurrent_match_counts_every_game_once() {
        let mut seen = Vec::new();
        let spec = spec(&[RESIGNING_ENGINE; 2], 5, 3);
        let report = run(&spec, |game, results| {
            assert_eq!(game.record.termination, Termination::Resignation);
            assert_eq!(game.red == 0, game.number % 2 == 1);
            let first_name = if game.red == 0 {
                &game.record.red
            } else {
                &game.record.black
            };
            assert!(first_name.ends_with("(engine1)"), "{first_name}");
            seen.push((game.number, results.table.games()));
            Ok(())
        });
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(
            report.results.endings,
            BTreeMap::from([("resignation".to_string(), 5)])
        );
        // Red resigns every game: engine1 loses games 1, 3, 5 and wins 2, 4.
        assert_eq!(
            report.results.first_engine(),
            Tally {
                wins: 2,
                draws: 0,
                losses: 3
            }
        );
        // Two complete pairs, each a win and a loss.
        assert_eq!(report.results.pairs_of(0, 1).counts, [0, 0, 2, 0, 0]);
        let counted: Vec<u32> = seen.iter().map(|&(_, games)| games).collect();
        assert_eq!(counted, [1, 2, 3, 4, 5]);
        let mut numbers: Vec<usize> = seen.iter().map(|&(number, _)| number).collect();
        numbers.sort();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
    }

    /// [`RESIGNING_ENGINE`] that writes its process id to `file` as it starts.
    fn logging_resigner(file: &std::path::Path) -> String {
        format!("echo $$ >> {}; {RESIGNING_ENGINE}", file.display())
    }

    #[test]
    fn kept_engines_play_every_game_and_fresh_ones_one_each() {
        let processes = |keep: bool| {
            let dir = tempfile::tempdir().unwrap();
            let log = dir.path().join("pids");
            let command = logging_resigner(&log);
            let mut spec = spec(&[command.as_str(); 2], 4, 1);
            spec.keep_engines = keep;
            let report = run(&spec, |game, _| {
                assert!(game.memory.iter().all(|m| m.is_some_and(|m| m.anon_kb > 0)));
                Ok(())
            });
            assert!(report.failure.is_none(), "{:?}", report.failure);
            assert_eq!(report.results.table.games(), 4);
            let pids = std::fs::read_to_string(&log).unwrap();
            pids.lines()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        // Each engine is started once to check it, then for the games.
        assert_eq!(processes(false), 2 + 4 * 2);
        assert_eq!(processes(true), 2 + 2);
    }

    #[test]
    fn engine_that_cannot_start_stops_the_tournament_before_it_starts() {
        let mut called = false;
        let report = run(&spec(&[RESIGNING_ENGINE, "exit 3"], 4, 2), |_, _| {
            called = true;
            Ok(())
        });
        assert!(!called);
        assert_eq!(report.results.table.games(), 0);
        // "exited" or a broken pipe, depending on when the shell is gone.
        let failure = report.failure.unwrap();
        assert!(matches!(failure, MatchError::Engine(_)), "{failure}");
        assert!(failure.to_string().starts_with("exit 3: "), "{failure}");
    }

    #[test]
    fn callback_error_stops_new_games() {
        let report = run(&spec(&[RESIGNING_ENGINE; 2], 6, 1), |_, _| {
            Err("disk full".into())
        });
        let failure = report.failure.unwrap();
        assert!(matches!(failure, MatchError::Callback(_)), "{failure}");
        assert_eq!(failure.to_string(), "disk full");
        assert_eq!(report.results.table.games(), 1);
    }

    #[test]
    fn games_played_before_are_counted_and_not_replayed() {
        let spec = spec(&[RESIGNING_ENGINE; 2], 6, 2);
        let played = [
            PlayedGame {
                number: 2,
                result: GameResult::Draw,
                ending: "draw adjudication".into(),
                players: None,
            },
            PlayedGame {
                number: 5,
                result: GameResult::RedWins,
                ending: "resign adjudication".into(),
                players: None,
            },
        ];
        let mut numbers = Vec::new();
        let report = run_tournament(&spec, &played, &AtomicBool::new(false), |game, _| {
            numbers.push(game.number);
            Ok(())
        });
        numbers.sort();
        assert_eq!(numbers, [1, 3, 4, 6]);
        assert_eq!(report.results.table.games(), 6);
        assert_eq!(report.results.endings["resignation"], 4);
        assert_eq!(report.results.endings["draw adjudication"], 1);
        // Game 1 lost, 2 drawn; 3 lost, 4 won; 5 won (as Red), 6 won.
        assert_eq!(report.results.pairs_of(0, 1).counts, [0, 1, 1, 0, 1]);
        let mut foreign = played.to_vec();
        foreign[0].players = Some(["Resigner".into(), "Other".into()]);
        let refused = run_tournament(&spec, &foreign, &AtomicBool::new(false), |_, _| Ok(()));
        let e = refused.failure.unwrap().to_string();
        assert!(
            e.starts_with("game 2 was played by Resigner (Red) and Other (Black), but"),
            "{e}"
        );
        let stopped = run_tournament(&spec, &played, &AtomicBool::new(true), |_, _| Ok(()));
        assert!(stopped.interrupted);
        assert_eq!(
            stopped.results.table.games(),
            2,
            "nothing new starts once stopped"
        );
    }

    #[test]
    fn a_round_robin_of_three_plays_every_pair() {
        let mut spec = spec(&[RESIGNING_ENGINE; 3], 2, 2);
        spec.players[1].name = Some("B".into());
        let report = run(&spec, |_, _| Ok(()));
        assert!(report.failure.is_none(), "{:?}", report.failure);
        let names = &report.results.names;
        assert_eq!(names[1], "B");
        assert!(names[0].ends_with("(engine1)") && names[2].ends_with("(engine3)"));
        assert_eq!(report.results.table.games(), 6);
        for a in 0..3 {
            for b in a + 1..3 {
                assert_eq!(report.results.table.against(a, b).games(), 2);
                assert_eq!(report.results.pairs_of(a, b).counts, [0, 0, 1, 0, 0]);
            }
        }
    }

    #[test]
    fn sprt_decision_stops_new_games_and_later_games_still_count() {
        let mut spec = spec(&[RESIGNING_ENGINE; 2], 1000, 1);
        let sprt = Sprt::new(0.0, 20.0).unwrap();
        spec.sprt = Some(sprt);
        // Pairs scoring 2, 1.5, 1, 2 ... points: engine1 clearly stronger.
        let pattern = [
            GameResult::RedWins,
            GameResult::BlackWins,
            GameResult::RedWins,
            GameResult::Draw,
        ];
        let (results, received) = channel();
        for number in 1..=400 {
            let scheduled = spec.schedule[number - 1];
            let result = pattern[(number - 1) % pattern.len()];
            let record = GameRecord {
                red: "a".into(),
                black: "b".into(),
                opening: Opening::default(),
                moves: Vec::new(),
                stats: Vec::new(),
                result,
                termination: Termination::Resignation,
                worst_overrun_ms: None,
            };
            let game = FinishedGame {
                number,
                red: scheduled.red,
                black: scheduled.black,
                pair: scheduled.pair,
                record,
                memory: [None, None],
            };
            results.send(Ok(Some(game))).unwrap();
        }
        drop(results);
        let (jobs, queued) = channel();
        let mut dispatcher = Dispatcher {
            jobs: Some(jobs),
            queue: (0..1000).collect::<Vec<_>>().into_iter(),
        };
        dispatcher.send_next();
        let mut calls = 0;
        let mut report = TournamentReport {
            results: Results::new(vec!["a".into(), "b".into()]),
            ..TournamentReport::default()
        };
        collect_results(
            &spec,
            received,
            dispatcher,
            &AtomicBool::new(false),
            &mut report,
            &mut |_, _| {
                calls += 1;
                Ok(())
            },
        );
        assert_eq!(calls, 400);
        assert_eq!(report.results.table.games(), 400);
        let decision = report.sprt_decision.expect("decided");
        assert_eq!(decision.verdict, SprtVerdict::AcceptH1);
        assert!(decision.llr >= sprt.bounds().1);
        assert!(
            decision.games < 400 && decision.games.is_multiple_of(2),
            "{decision:?}"
        );
        // One game was queued at the start and one after each result until
        // the decision: games started = games counted at the decision.
        assert_eq!(queued.iter().count(), decision.games as usize);
    }

    /// A UCCI engine that moves its knights out and back (b0c2 b9c7 c2b0
    /// c7b9, over and over): a legal move for either side at every turn of
    /// such a game.
    const SHUFFLER: &str = "while read -r line; do case \"$line\" in \
        ucci) echo ucciok;; isready) echo readyok;; \
        position*) n=0; seen=; for w in $line; do [ -n \"$seen\" ] && n=$((n + 1)); \
            [ \"$w\" = moves ] && seen=1; done;; \
        go*) case $((n % 4)) in 0) m=b0c2;; 1) m=b9c7;; 2) m=c2b0;; 3) m=c7b9;; esac; \
             echo \"bestmove $m\";; \
        quit) exit 0;; esac; done";

    /// A UCCI engine that does `on_go` when asked for a move.
    fn faulty(on_go: &str) -> String {
        format!(
            "while read -r line; do case \"$line\" in \
             ucci) echo ucciok;; isready) echo readyok;; go*) {on_go};; quit) exit 0;; esac; done"
        )
    }

    #[test]
    fn engines_that_crash_hang_or_talk_nonsense_lose_and_the_tournament_goes_on() {
        let engines = [
            (SHUFFLER.to_string(), None),
            (faulty("exit 1"), Some("engine failure")),
            (faulty("sleep 30"), Some("engine failure")),
            (faulty("echo 'bestmove a0a9'"), Some("illegal move")),
            (
                faulty("echo 'what?'; echo 'bestmove zz99 ponder yes'"),
                Some("illegal move"),
            ),
            (
                faulty("printf '\\377\\376\\n'; sleep 30"),
                Some("engine failure"),
            ),
        ];
        let commands: Vec<&str> = engines.iter().map(|(c, _)| c.as_str()).collect();
        let mut spec = spec(&commands, 2, 2);
        spec.keep_engines = true;
        spec.config.move_timeout = std::time::Duration::from_millis(300);
        let mut games = Vec::new();
        let report = run(&spec, |game, _| {
            games.push(game.clone());
            Ok(())
        });
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(games.len(), 15 * 2, "every game of the round robin");
        for game in &games {
            // Red moves first: a faulty Red fails at once, else the
            // shuffler's b0c2 comes first and Black fails.
            let red_fails = engines[game.red].1.is_some();
            let (loser, kind) = if red_fails {
                (game.red, engines[game.red].1)
            } else {
                (game.black, engines[game.black].1)
            };
            assert_eq!(
                game.score_of(loser),
                GameScore::Loss,
                "game {}",
                game.number
            );
            assert_eq!(
                Some(game.record.termination.kind()),
                kind,
                "game {}: {}",
                game.number,
                game.record.termination
            );
            assert_eq!(
                game.record.moves.len(),
                usize::from(!red_fails),
                "game {}",
                game.number
            );
        }
        let shuffler = report.results.table.total(0);
        assert_eq!((shuffler.wins, shuffler.losses), (10, 0));
    }
}
