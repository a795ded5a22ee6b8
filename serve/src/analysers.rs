//! The server's own analysers: threads that take queued positions from the
//! store, score them by search and write the results back, at idle
//! priority so that they never slow a query.
//!
//! A position is analysed by one search with a line for each of its best
//! few moves (MultiPV): the position's own score and best move, and each
//! line's move with its score, as bookgen's analysis scores a book
//! position's moves together.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use xqbook::{Searched, MATE};
use xqcore::{Move, Position};
use xqengine::{Limits, Reporter, SearchConfig, SearchInfo, Searcher};

use crate::store::{learn_all, Source, Store};

/// How positions are analysed.
#[derive(Clone)]
pub struct AnalysisConfig {
    /// Time a position's search may take.
    pub think: Duration,
    /// Lines (moves scored) a position.
    pub lines: usize,
    /// How long a worker holds a leased position before it goes back to
    /// the queue (the worker vanished).
    pub lease: Duration,
    /// The evaluation and the tables the searches use.
    pub search: SearchConfig,
}

/// What one analysis found: the position's search, and its best moves
/// each with its score for the side that plays it and the depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysed {
    pub search: Searched,
    pub moves: Vec<(Move, i16, u8)>,
}

/// A score of the engine's scale on the store's (both count a forced
/// result's plies down from 30,000).
fn stored_score(score: i32) -> i16 {
    score.clamp(-i32::from(MATE), i32::from(MATE)) as i16
}

/// The lines of a MultiPV search as it reports them: line number, depth,
/// score and first move.
#[derive(Default)]
struct Lines(Mutex<Vec<(usize, i32, i32, Move)>>);

impl Reporter for Lines {
    fn info(&self, info: &SearchInfo) {
        if let Some(&mv) = info.pv.first() {
            let mut lines = self.0.lock().unwrap_or_else(|e| e.into_inner());
            lines.push((info.multipv, info.depth, info.raw_score, mv));
        }
    }
}

/// Analyses `pos` with `searcher`: one search of `config.think` with
/// `config.lines` lines; `None` when `pos` has no legal move. The best
/// move has the search's score; the others are the moves of the deepest
/// last reports, each with its last report's score.
pub fn analyse(
    searcher: &mut Searcher,
    pos: &Position,
    config: &AnalysisConfig,
) -> Option<Analysed> {
    let legal = pos.legal_moves().len();
    if legal == 0 {
        return None;
    }
    searcher.set_config(SearchConfig {
        multipv: config.lines.clamp(1, legal),
        threads: 1,
        ..config.search.clone()
    });
    searcher.new_game();
    let lines = Lines::default();
    let result = searcher.search(pos, &Limits::within(config.think), &lines);
    let best = result.best?;
    let search = Searched {
        score: stored_score(result.score),
        best,
        depth: result.depth.clamp(0, 255) as u8,
    };
    let reports = lines.0.into_inner().unwrap_or_else(|e| e.into_inner());
    // Each move's last report; the moves of the deepest reports are the
    // lines of the last iteration (a move that fell out of the lines in a
    // later iteration has an older, shallower report).
    let mut last: Vec<(Move, i32, i32)> = Vec::new();
    for &(_, depth, score, mv) in reports.iter().rev() {
        if mv != best && last.iter().all(|m| m.0 != mv) {
            last.push((mv, depth, score));
        }
    }
    last.sort_by_key(|&(_, depth, score)| std::cmp::Reverse((depth, score)));
    let mut moves: Vec<(Move, i16, u8)> = last
        .into_iter()
        .take(config.lines.clamp(1, legal) - 1)
        .map(|(mv, depth, score)| (mv, stored_score(score), depth.clamp(0, 255) as u8))
        .collect();
    moves.push((best, search.score, search.depth));
    moves.sort_by_key(|m| std::cmp::Reverse(m.1));
    Some(Analysed { search, moves })
}

/// Wakes the analysers when a position is queued.
#[derive(Default)]
pub struct Bell {
    rung: Mutex<bool>,
    ring: Condvar,
}

impl Bell {
    /// Says that work is waiting.
    pub fn ring(&self) {
        *self.rung.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.ring.notify_all();
    }

    /// Waits until rung, or `timeout`.
    fn wait(&self, timeout: Duration) {
        let rung = self.rung.lock().unwrap_or_else(|e| e.into_inner());
        let (mut rung, _) = self
            .ring
            .wait_timeout_while(rung, timeout, |rung| !*rung)
            .unwrap_or_else(|e| e.into_inner());
        *rung = false;
    }
}

/// The analysers at work, and what they have done.
pub struct Analysers {
    bell: Arc<Bell>,
    stop: Arc<AtomicBool>,
    analysed: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Analysers {
    /// Starts `count` analysers on `store` (none for 0), and with
    /// `learn_every` a learner that backs the scores up through the whole
    /// store that often while the analysers add to it.
    pub fn start(
        store: Arc<Store>,
        config: AnalysisConfig,
        count: usize,
        learn_every: Option<Duration>,
    ) -> Analysers {
        let bell = Arc::new(Bell::default());
        let stop = Arc::new(AtomicBool::new(false));
        let analysed = Arc::new(AtomicU64::new(0));
        let mut threads: Vec<_> = (0..count)
            .map(|_| {
                let (store, config) = (store.clone(), config.clone());
                let (bell, stop, analysed) = (bell.clone(), stop.clone(), analysed.clone());
                std::thread::spawn(move || {
                    at_idle_priority();
                    work(&store, &config, &bell, &stop, &analysed);
                })
            })
            .collect();
        if let Some(every) = learn_every.filter(|_| count > 0) {
            let (stop, analysed) = (stop.clone(), analysed.clone());
            threads.push(std::thread::spawn(move || {
                at_idle_priority();
                learn_now_and_then(&store, every, &stop, &analysed);
            }));
        }
        Analysers {
            bell,
            stop,
            analysed,
            threads,
        }
    }

    /// The bell that wakes them.
    pub fn bell(&self) -> Arc<Bell> {
        self.bell.clone()
    }

    /// Positions analysed and written so far.
    pub fn analysed(&self) -> u64 {
        self.analysed.load(Ordering::Relaxed)
    }
}

impl Drop for Analysers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.bell.ring();
        // A search under way ends at its time; the threads are not waited
        // for (the process may be ending).
        self.threads.clear();
    }
}

/// This thread at the scheduler's idle class, where the system allows
/// it: it runs only when nothing else wants the core.
fn at_idle_priority() {
    use thread_priority::unix::{
        set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
        ThreadSchedulePolicy,
    };
    let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
    if let Err(e) = set_thread_priority_and_policy(
        thread_native_id(),
        thread_priority::ThreadPriority::Min,
        idle,
    ) {
        eprintln!("xqserve: analyser at normal priority (idle refused: {e:?})");
    }
}

/// The learner's loop: every `every`, when the analysers wrote anything
/// since the last time, the scores of the whole store backed up.
fn learn_now_and_then(store: &Store, every: Duration, stop: &AtomicBool, analysed: &AtomicU64) {
    let mut learned_at = 0;
    loop {
        let started = std::time::Instant::now();
        while started.elapsed() < every {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200).min(every));
        }
        let now = analysed.load(Ordering::Relaxed);
        if now == learned_at {
            continue;
        }
        learned_at = now;
        if let Err(e) = learn_all(store) {
            eprintln!("xqserve: learner: {e}");
        }
    }
}

/// One analyser's loop: lease a position, analyse it, write the result;
/// wait for the bell when the queue is empty.
fn work(
    store: &Store,
    config: &AnalysisConfig,
    bell: &Bell,
    stop: &AtomicBool,
    analysed: &AtomicU64,
) {
    let mut searcher = Searcher::new(config.search.clone(), 16);
    while !stop.load(Ordering::Relaxed) {
        let leased = match store.lease(1, config.lease) {
            Ok(leased) => leased,
            Err(e) => {
                eprintln!("xqserve: analyser: {e}");
                bell.wait(Duration::from_secs(5));
                continue;
            }
        };
        let Some(lease) = leased.into_iter().next() else {
            bell.wait(Duration::from_secs(1));
            continue;
        };
        let Some(found) = analyse(&mut searcher, &lease.pos, config) else {
            // No legal move: lost, and nothing to search.
            let lost = Searched {
                score: -MATE,
                best: Move::NULL,
                depth: 0,
            };
            let _ = store.record(&lease.pos, lost, &[], Source::Analysis);
            continue;
        };
        match store.record(&lease.pos, found.search, &found.moves, Source::Analysis) {
            Ok(()) => {
                analysed.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => eprintln!("xqserve: analyser: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> AnalysisConfig {
        AnalysisConfig {
            think: Duration::from_millis(200),
            lines: 4,
            lease: Duration::from_secs(60),
            search: SearchConfig::default(),
        }
    }

    #[test]
    fn an_analysis_scores_the_best_few_moves_best_first() {
        let pos = Position::start();
        let mut searcher = Searcher::new(config().search, 16);
        let found = analyse(&mut searcher, &pos, &config()).expect("moves");
        assert_eq!(found.moves.len(), 4, "{found:?}");
        assert!(found.moves.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(found.moves.iter().any(|m| m.0 == found.search.best));
        let legal = pos.legal_moves();
        assert!(found.moves.iter().all(|m| legal.contains(&m.0)));
    }

    #[test]
    fn a_queued_position_is_analysed_and_stored() {
        let store = Arc::new(Store::open(None).unwrap());
        let mut pos = Position::start();
        pos.make_move(pos.parse_move("h2e2").unwrap());
        store.enqueue(&pos, 1).unwrap();
        let analysers = Analysers::start(store.clone(), config(), 1, None);
        analysers.bell().ring();
        let started = std::time::Instant::now();
        while analysers.analysed() == 0 {
            assert!(started.elapsed() < Duration::from_secs(60), "not analysed");
            std::thread::sleep(Duration::from_millis(20));
        }
        let stored = store.get(&pos).unwrap().expect("stored");
        assert_eq!(stored.moves.len(), 4);
        assert_eq!(store.counts().unwrap().queued, 0);
    }
}
