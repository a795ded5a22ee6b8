//! Where a server's answers come from: its books, tables, engine and
//! store, and the policy it answers by beyond them.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use xqbook::BookFile;
use xqcore::Position;
use xqegtb::{ProbeError, Tablebase};

use crate::analysers::Bell;
use crate::engine::EnginePool;
use crate::store::{Enqueued, Store, StoreError};
use crate::tokens::{Client, RateLimit, Tokens};

/// Where the answers come from.
pub struct Library {
    /// Probed in order; the first that knows the position answers.
    pub books: Vec<BookFile>,
    pub tables: Option<Arc<Tablebase>>,
    pub engine: EnginePool,
    /// What the server has analysed, and the queue of what it will.
    pub store: Arc<Store>,
    pub policy: Policy,
    rate_limit: RateLimit,
    /// Rung when a position is queued, to wake the analysers.
    bell: Option<Arc<Bell>>,
    /// The table files whose error has been logged: each is named once.
    logged_table_errors: Mutex<HashSet<PathBuf>>,
}

impl Library {
    /// The books, tables, engine and store a server answers from; a
    /// position none knows is `unknown`.
    pub fn new(
        books: Vec<BookFile>,
        tables: Option<Arc<Tablebase>>,
        engine: EnginePool,
        store: Arc<Store>,
    ) -> Library {
        Library {
            books,
            tables,
            engine,
            store,
            policy: Policy::default(),
            rate_limit: RateLimit::new(0),
            bell: None,
            logged_table_errors: Mutex::default(),
        }
    }

    /// The same library answering by `policy`.
    pub fn with_policy(self, policy: Policy) -> Library {
        Library {
            rate_limit: RateLimit::new(policy.rate_limit),
            policy,
            ..self
        }
    }

    /// The same library ringing `bell` when a position is queued.
    pub fn ringing(self, bell: Arc<Bell>) -> Library {
        Library {
            bell: Some(bell),
            ..self
        }
    }

    /// Counts a query of `client` against the rate limit: whether it is
    /// within it.
    pub fn allows(&self, client: &Client) -> bool {
        self.rate_limit.allows(client)
    }

    /// Queues `pos` for analysis with `priority`, waking the analysers.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn enqueue(&self, pos: &Position, priority: u8) -> Result<Enqueued, StoreError> {
        let enqueued = self.store.enqueue(pos, priority)?;
        if enqueued == Enqueued::Added {
            if let Some(bell) = &self.bell {
                bell.ring();
            }
        }
        Ok(enqueued)
    }

    /// Says on standard error why the tables could not answer (a table
    /// file damaged or unreadable, named with the reason), once for each
    /// file however many queries meet it.
    pub fn log_table_error(&self, error: &ProbeError) {
        let mut logged = self
            .logged_table_errors
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if logged.insert(error.path().to_path_buf()) {
            eprintln!(
                "xqserve: endgame tables: {error}; positions that need this table get no answer"
            );
        }
    }
}

/// How a server answers beyond its data.
#[derive(Clone)]
pub struct Policy {
    /// Whether a position no table, book or stored analysis knows is
    /// answered by a search (otherwise `unknown`, as chessdb answers).
    pub search_unknown: bool,
    /// The secret writes need.
    pub tokens: Tokens,
    /// Queries a client may make in a second (0: no limit); this
    /// machine's are not counted.
    pub rate_limit: u32,
    /// How long a remote worker holds a batch of queued positions before
    /// they go back to the queue.
    pub lease: Duration,
}

impl Default for Policy {
    /// chessdb's: unknown positions unknown; no writes (no secret); no
    /// rate limit; a batch held for ten minutes.
    fn default() -> Policy {
        Policy {
            search_unknown: false,
            tokens: Tokens::none(),
            rate_limit: 0,
            lease: Duration::from_secs(600),
        }
    }
}
