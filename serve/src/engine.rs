//! Engine answers: bounded searches, one queue for all clients, and the
//! store's table of answers, so that a repeated query is answered at once.
//!
//! At most `workers` searches run at a time (one thread each); at most
//! `queue` more wait for a turn. A query beyond that is refused at once
//! ([`EngineError::Busy`]) instead of piling up work no one will wait for.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::collections::HashMap;

use tokio::sync::{OnceCell, Semaphore};
use xqcore::{Move, Position};
use xqengine::{Limits, Reporter, SearchConfig, SearchInfo, Searcher, Silent};

use crate::store::{Store, StoreError};

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The engine's score for the side to move: centipawns, or beyond
    /// [`xqengine::MATE_BOUND`] a mate.
    pub score: i32,
    pub depth: i32,
    /// The principal variation, best move first.
    pub pv: Vec<Move>,
}

/// Why the engine gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("busy: {0} searches waiting")]
    Busy(usize),
    #[error("no move to search")]
    NoMove,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How the engine serves.
#[derive(Clone)]
pub struct EngineConfig {
    /// Time a search may take.
    pub think: Duration,
    /// Searches at once.
    pub workers: usize,
    /// Searches that may wait beyond those.
    pub queue: usize,
    /// The evaluation and the tables the searches use.
    pub search: SearchConfig,
}

/// The engine behind the server.
pub struct EnginePool {
    config: EngineConfig,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    store: Arc<Store>,
    /// Searches under way, by cache key: a query for a position being
    /// searched waits for that search instead of starting another.
    in_flight: Mutex<HashMap<String, Arc<OnceCell<Analysis>>>>,
    /// Searches run so far.
    searches: AtomicUsize,
}

impl EnginePool {
    /// An engine whose answers are kept in `store`.
    pub fn new(config: EngineConfig, store: Arc<Store>) -> EnginePool {
        EnginePool {
            permits: Arc::new(Semaphore::new(config.workers.max(1))),
            config,
            waiting: Arc::new(AtomicUsize::new(0)),
            store,
            in_flight: Mutex::new(HashMap::new()),
            searches: AtomicUsize::new(0),
        }
    }

    /// How the searches are made.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The cache key of a search: the position with its history's
    /// repetition state reduced to the FEN, the banned moves and the time.
    fn key(&self, pos: &Position, banned: &[Move]) -> String {
        let mut banned: Vec<String> = banned.iter().map(|m| m.to_string()).collect();
        banned.sort();
        format!(
            "{}|{}|{}",
            pos.fen(),
            banned.join(","),
            self.config.think.as_millis()
        )
    }

    fn cached(&self, key: &str) -> Result<Option<Analysis>, EngineError> {
        let Some(row) = self.store.engine_answer(key)? else {
            return Ok(None);
        };
        let pv = row
            .2
            .split_whitespace()
            .map(|t| {
                t.parse::<xqcore::IccsMove>()
                    .ok()
                    .map(|m| Move::new(m.from, m.to))
            })
            .collect::<Option<Vec<Move>>>();
        // A line this version cannot read is searched again.
        Ok(pv.map(|pv| Analysis {
            score: row.0,
            depth: row.1,
            pv,
        }))
    }

    fn store(&self, key: &str, a: &Analysis) -> Result<(), EngineError> {
        let pv: Vec<String> = a.pv.iter().map(|m| m.to_string()).collect();
        self.store
            .keep_engine_answer(key, a.score, a.depth, &pv.join(" "))?;
        Ok(())
    }

    /// Searches run so far (not counting answers from the cache, or
    /// queries that waited for a search of the same position).
    pub fn searches(&self) -> usize {
        self.searches.load(Ordering::Relaxed)
    }

    /// Searches `pos` among its legal moves but `banned`, from the cache
    /// when it was searched before.
    pub async fn analyse(&self, pos: &Position, banned: &[Move]) -> Result<Analysis, EngineError> {
        let key = self.key(pos, banned);
        if let Some(a) = self.cached(&key)? {
            return Ok(a);
        }
        let cell = self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .clone();
        let result = cell
            .get_or_try_init(|| self.search_and_store(pos, banned, &key))
            .await
            .cloned();
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        result
    }

    /// Searches (when the queue has room) and caches the answer.
    async fn search_and_store(
        &self,
        pos: &Position,
        banned: &[Move],
        key: &str,
    ) -> Result<Analysis, EngineError> {
        let moves: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| !banned.contains(m))
            .collect();
        if moves.is_empty() {
            return Err(EngineError::NoMove);
        }
        let waiting = self.waiting.fetch_add(1, Ordering::SeqCst);
        if waiting >= self.config.queue + self.config.workers.max(1) {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(EngineError::Busy(waiting));
        }
        let permit = self.permits.clone().acquire_owned().await;
        self.searches.fetch_add(1, Ordering::Relaxed);
        let pos = pos.clone();
        let config = self.config.clone();
        let searched = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let limits = Limits {
                search_moves: moves,
                ..Limits::within(config.think)
            };
            search_once(&pos, &limits, &config, &Silent)
        })
        .await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let analysis = searched.map_err(|_| EngineError::NoMove)??;
        self.store(key, &analysis)?;
        Ok(analysis)
    }
}

impl EnginePool {
    /// Starts an analysis of `pos` with `lines` principal variations for
    /// `think`, sending every iteration's lines to `infos`; the task's
    /// result is the best move. `None` when the queue is full.
    pub fn stream(
        &self,
        pos: Position,
        lines: usize,
        think: Duration,
        infos: tokio::sync::mpsc::UnboundedSender<SearchInfo>,
    ) -> Option<tokio::task::JoinHandle<Option<Move>>> {
        let config = EngineConfig {
            think,
            search: SearchConfig {
                multipv: lines,
                ..self.config.search.clone()
            },
            ..self.config.clone()
        };
        let task = self.spawn_queued(move || {
            // An analysis asked for `think` is shown for all of it.
            let limits = Limits::movetime(config.think);
            search_once(&pos, &limits, &config, &Forward(infos)).ok()
        })?;
        Some(tokio::spawn(async move {
            task.await
                .ok()
                .flatten()
                .flatten()
                .and_then(|a| a.pv.first().copied())
        }))
    }

    /// Runs `work` (a search) on a blocking thread once a worker is free,
    /// in the queue every search waits in; `None` when the queue is full.
    /// The task's result is `None` when the work panicked.
    pub fn spawn_queued<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<tokio::task::JoinHandle<Option<T>>> {
        let waiting = self.waiting.fetch_add(1, Ordering::SeqCst);
        if waiting >= self.config.queue + self.config.workers.max(1) {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        self.searches.fetch_add(1, Ordering::Relaxed);
        let (permits, waiting) = (self.permits.clone(), self.waiting.clone());
        Some(tokio::spawn(async move {
            let permit = permits.acquire_owned().await.ok();
            let done = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                work()
            })
            .await;
            waiting.fetch_sub(1, Ordering::SeqCst);
            done.ok()
        }))
    }
}

/// Sends every iteration's lines on.
pub(crate) struct Forward(pub(crate) tokio::sync::mpsc::UnboundedSender<SearchInfo>);

impl Reporter for Forward {
    fn info(&self, info: &SearchInfo) {
        // The receiver gone (the client left) is no error: the search ends
        // at its time anyway.
        let _ = self.0.send(info.clone());
    }
}

/// One search of `pos` under `limits`, on this thread, with a searcher of
/// its own.
fn search_once(
    pos: &Position,
    limits: &Limits,
    config: &EngineConfig,
    reporter: &dyn Reporter,
) -> Result<Analysis, EngineError> {
    let search_config = SearchConfig {
        threads: 1,
        ..config.search.clone()
    };
    let r = Searcher::new(search_config, 16).search(pos, limits, reporter);
    r.best.ok_or(EngineError::NoMove)?;
    Ok(Analysis {
        score: r.score,
        depth: r.depth,
        pv: r.pv,
    })
}
