//! A match: games handed out to up to `concurrency` workers, each game
//! with its own two engine processes (or a pair kept for all of a worker's
//! games), results counted as they come in, and the SPRT consulted after
//! each one.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

use xqcore::GameResult;
use xqrecords::Opening;

use crate::engine::{EngineError, EngineProcess, EngineSpec, Memory};
use crate::game::{play_game, GameRecord, MatchConfig, Termination};
use crate::stats::{GameScore, Sprt, SprtVerdict, Tally};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// The first and the second engine; scores are from the first's side.
    pub engines: [EngineSpec; 2],
    /// Opening lines; games 2k and 2k+1 play line k with colours swapped.
    /// Empty means the start position.
    pub openings: Vec<Opening>,
    pub games: usize,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    pub config: MatchConfig,
    /// Stop starting games once this test reaches a verdict.
    pub sprt: Option<Sprt>,
    /// Keep each worker's two engine processes for all its games (telling
    /// them a new game starts), instead of starting fresh ones every game:
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

/// The error a game callback of [`run_match`] may return.
pub type CallbackError = Box<dyn std::error::Error + Send + Sync>;

/// Why a match stopped before its last game.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine could not be started, or restarted for a new game.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A game panicked (a fault of the runner, not of the engines).
    #[error("game {0} panicked")]
    Panicked(usize),
    /// The callback for a finished game failed (e.g. writing its PGN).
    #[error("{0}")]
    Callback(CallbackError),
}

/// What a match produced.
#[derive(Debug, Default)]
pub struct MatchReport {
    /// Every finished game, counted from the first engine's side.
    pub tally: Tally,
    /// How many games ended each way, by [`Termination::kind`].
    pub endings: BTreeMap<&'static str, u32>,
    /// Set when the SPRT decided (no game was started after that).
    pub sprt_decision: Option<SprtDecision>,
    /// The first error that stopped the match early (an engine that would not
    /// start, a failing game callback).
    pub failure: Option<MatchError>,
}

/// Plays the games of `spec` on up to `spec.concurrency` threads; engines are
/// restarted for every game so none carries state over. The calling thread
/// hands out the games one at a time, as earlier ones finish, and runs `each`
/// for every finished game (in completion order, with the tally including that
/// game). Once the SPRT decides, or `each` or an engine start fails, no new
/// game starts; the running ones are finished and counted.
pub fn run_match(
    spec: &MatchSpec,
    mut each: impl FnMut(&FinishedGame, &Tally) -> Result<(), CallbackError>,
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
    results: Sender<Result<FinishedGame, MatchError>>,
) {
    let mut kept: Option<[EngineProcess; 2]> = None;
    loop {
        let job = match job_queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(index) = job else { return };
        let game = catch_unwind(AssertUnwindSafe(|| {
            play_numbered_game(spec, index, &mut kept).map_err(MatchError::from)
        }))
        .unwrap_or_else(|_| Err(MatchError::Panicked(index + 1)));
        if results.send(game).is_err() {
            return;
        }
    }
}

/// Starts the two engines of a match.
fn start_engines(spec: &MatchSpec) -> Result<[EngineProcess; 2], EngineError> {
    let [first_spec, second_spec] = &spec.engines;
    let mut first = EngineProcess::start(first_spec)?;
    let mut second = EngineProcess::start(second_spec)?;
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
) -> Result<FinishedGame, EngineError> {
    let start = Opening::default();
    let opening = match spec.openings.len() {
        0 => &start,
        n => &spec.openings[(index / 2) % n],
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
    received: Receiver<Result<FinishedGame, MatchError>>,
    mut dispatcher: Dispatcher,
    each: &mut impl FnMut(&FinishedGame, &Tally) -> Result<(), CallbackError>,
) -> MatchReport {
    let mut report = MatchReport::default();
    for message in received {
        let outcome = message.and_then(|game| {
            report.tally.add(game.first_engine_score());
            *report
                .endings
                .entry(game.record.termination.kind())
                .or_default() += 1;
            each(&game, &report.tally).map_err(MatchError::Callback)
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
    use crate::game::MoveLimit;

    #[test]
    fn first_engine_score_follows_its_colour() {
        let game = |result, first_is_red| FinishedGame {
            number: 1,
            first_is_red,
            record: GameRecord {
                red: "a".into(),
                black: "b".into(),
                opening: Opening::default(),
                moves: Vec::new(),
                stats: Vec::new(),
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
        ucci) echo ucciok;; isready) echo readyok;; go*) echo 'bestmove h2e2 resign';; quit) exit 0;; esac; done";

    fn spec(command: &str, games: usize, concurrency: usize) -> MatchSpec {
        let engine = EngineSpec {
            options: vec!["hashsize 1".parse().unwrap()],
            ..EngineSpec::new(command)
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
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(report.endings, BTreeMap::from([("resignation", 5)]));
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
        ucci) echo \"id name pid$$\"; echo ucciok;; isready) echo readyok;; go*) echo 'bestmove h2e2 resign';; \
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
        assert!(report.failure.is_none(), "{:?}", report.failure);
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
        let failure = report.failure.unwrap();
        assert!(matches!(failure, MatchError::Engine(_)), "{failure}");
        assert!(failure.to_string().starts_with("exit 3: "), "{failure}");
    }

    #[test]
    fn callback_error_stops_new_games() {
        let report = run_match(
            &spec(RESIGNING_ENGINE, 6, 1),
            |_, _| Err("disk full".into()),
        );
        let failure = report.failure.unwrap();
        assert!(matches!(failure, MatchError::Callback(_)), "{failure}");
        assert_eq!(failure.to_string(), "disk full");
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
                opening: Opening::default(),
                moves: Vec::new(),
                stats: Vec::new(),
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
}
