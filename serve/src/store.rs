//! The store: every position the server has analysed, each move with its
//! score, depth, where it came from and when; the queue of positions
//! waiting for analysis; and the engine's answers to `queryengine`.
//!
//! One SQLite file (or memory), in WAL mode: a result is acknowledged only
//! once its transaction has committed, so a server or worker killed at any
//! moment loses no acknowledged result and leaves the file readable.
//!
//! Positions are kept under their book key ([`xqbook::book_key`]: a
//! position and its left-right mirror image are one entry), their moves as
//! that key stores them, and scores on the book analysis's scale
//! ([`xqbook::MATE`]: centipawns for the side that moves, a forced result
//! `n` plies away `30000 - n`), so that the backup of book analysis
//! ([`xqbook::back_up`]) reads the store as it reads a book. The key scheme
//! and the scale are part of the file's format: its `format` row names them
//! and its version, and a file of another version is refused.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use xqbook::{book_key, move_key, BookGraph, Searched};
use xqcore::{Move, Position};

/// What the `format` row of a store says: the format's name, version, key
/// scheme and score scale. Another text is another format.
const FORMAT: &str =
    "xqserve store 1: book keys (xqcore zobrist, mirror-folded), book analysis scores";

/// Where a stored score came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// An analysed book the store was seeded from.
    Book,
    /// The endgame tables (exact).
    Tables,
    /// A search: by a worker, or a `queryengine`.
    Analysis,
    /// Backed up from the stored positions the move leads to.
    Learning,
}

impl Source {
    fn code(self) -> i64 {
        match self {
            Source::Book => 0,
            Source::Tables => 1,
            Source::Analysis => 2,
            Source::Learning => 3,
        }
    }

    fn of_code(code: i64) -> Option<Source> {
        Some(match code {
            0 => Source::Book,
            1 => Source::Tables,
            2 => Source::Analysis,
            3 => Source::Learning,
            _ => return None,
        })
    }

    /// The word for it in notes and logs.
    pub fn name(self) -> &'static str {
        match self {
            Source::Book => "book",
            Source::Tables => "tables",
            Source::Analysis => "analysis",
            Source::Learning => "learning",
        }
    }
}

/// A stored move of a position, as the position asked about plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredMove {
    pub mv: Move,
    /// For the side that plays it, on the book analysis's scale.
    pub score: i16,
    /// The depth of the search the score comes from.
    pub depth: u8,
    pub source: Source,
    /// When it was written, in seconds since 1970.
    pub at: i64,
}

/// What the store knows of a position, as the position asked about plays
/// its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The search of the position itself.
    pub search: Searched,
    /// Its moves, best score first.
    pub moves: Vec<StoredMove>,
}

/// What a search found in a position, as [`Store::record_all`] writes
/// it: the position, its search, and moves with their scores for the side
/// that plays them and the depth.
pub type Found = (Position, Searched, Vec<(Move, i16, u8)>);

/// What [`Store::enqueue`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Now in the queue.
    Added,
    /// It was in the queue already.
    Queued,
    /// The store knows it already: nothing queued.
    Known,
}

/// A queued position handed to a worker until [`Store::record`] writes
/// its result (or [`Store::ack_batch`] acknowledges its batch), or its
/// lease runs out and it goes back to the queue.
#[derive(Clone, Debug)]
pub struct Lease {
    /// Its book key.
    pub key: u64,
    /// The position as its book key stores it.
    pub pos: Position,
}

/// How much the store holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub positions: u64,
    pub moves: u64,
    /// Positions waiting, leased ones included.
    pub queued: u64,
    /// Queued positions a worker holds now.
    pub leased: u64,
}

/// Why the store cannot be used: its file named, with SQLite's reason or
/// ours.
#[derive(Debug, thiserror::Error)]
#[error("store {where_}: {reason}")]
pub struct StoreError {
    where_: String,
    reason: String,
}

/// The store.
pub struct Store {
    db: Mutex<Connection>,
    /// Its file, or `None` in memory.
    path: Option<PathBuf>,
}

/// The depth the backup gives a score seeded from an analysed book: the
/// book's analysis backed it up already, through searches the store does
/// not hold, so it stands unless the line below is exact (the tables'
/// or the rules', at `u8::MAX`).
const SEEDED_DEPTH: u8 = u8::MAX - 1;

/// A stored move's score as the backup weighs it: see [`SEEDED_DEPTH`].
fn backup_depth(source: Option<Source>, depth: u8) -> u8 {
    if source == Some(Source::Book) {
        SEEDED_DEPTH
    } else {
        depth
    }
}

/// Seconds since 1970.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The key and move as SQLite keeps them (signed 64 bits; the bits as
/// they are).
fn key_column(key: u64) -> i64 {
    key as i64
}

impl Store {
    /// Opens the store in `path`, creating it when missing; `None`: a
    /// store in memory, for the server's life.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or written, or it is not a store of this
    /// format and version (naming the file).
    pub fn open(path: Option<&Path>) -> Result<Store, StoreError> {
        let where_ = path.map_or("in memory".to_string(), |p| p.display().to_string());
        let fail = |reason: String| StoreError {
            where_: where_.clone(),
            reason,
        };
        let sqlite = |e: rusqlite::Error| {
            // SQLite's message for a file it cannot open ends with its path.
            let reason = e.to_string();
            let reason = reason
                .strip_suffix(&format!(": {where_}"))
                .unwrap_or(&reason)
                .to_string();
            fail(reason)
        };
        let db = match path {
            Some(path) => Connection::open(path),
            None => Connection::open_in_memory(),
        }
        .map_err(sqlite)?;
        db.busy_timeout(Duration::from_secs(10)).map_err(sqlite)?;
        // WAL: readers do not wait for the writer, and a commit is one
        // append; NORMAL syncs at checkpoints, which keeps every commit
        // through a killed process (not through a power cut).
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        db.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        let format: Option<String> = db
            .query_row("SELECT value FROM meta WHERE name = 'format'", [], |r| {
                r.get(0)
            })
            .optional()
            .or_else(|e| match e {
                // No meta table: a new file, or another SQLite database.
                rusqlite::Error::SqliteFailure(_, Some(ref m))
                    if m.starts_with("no such table") =>
                {
                    Ok(None)
                }
                e => Err(e),
            })
            .map_err(sqlite)?;
        match format {
            Some(format) if format == FORMAT => {}
            Some(other) => {
                return Err(fail(format!(
                    "another store format ({other}); this server reads \"{FORMAT}\""
                )))
            }
            None => {
                let tables: i64 = db
                    .query_row(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                        [],
                        |r| r.get(0),
                    )
                    .map_err(sqlite)?;
                if tables > 0 {
                    return Err(fail(
                        "not a store: an SQLite database with tables of its own".into(),
                    ));
                }
                Self::create(&db).map_err(sqlite)?;
            }
        }
        Ok(Store {
            db: Mutex::new(db),
            path: path.map(Path::to_path_buf),
        })
    }

    fn create(db: &Connection) -> rusqlite::Result<()> {
        db.execute_batch(&format!(
            "BEGIN;
             CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT INTO meta VALUES ('format', '{FORMAT}');
             -- A position: its book key, its FEN as the key stores it, and
             -- the search of it (score for its side to move, best move as
             -- stored, depth).
             CREATE TABLE positions (
                 key INTEGER PRIMARY KEY,
                 fen TEXT NOT NULL,
                 score INTEGER NOT NULL,
                 best INTEGER NOT NULL,
                 depth INTEGER NOT NULL,
                 at INTEGER NOT NULL
             );
             -- A move of a stored position, as the key stores it, scored
             -- for the side that plays it.
             CREATE TABLE moves (
                 key INTEGER NOT NULL,
                 move INTEGER NOT NULL,
                 score INTEGER NOT NULL,
                 depth INTEGER NOT NULL,
                 source INTEGER NOT NULL,
                 at INTEGER NOT NULL,
                 PRIMARY KEY (key, move)
             ) WITHOUT ROWID;
             -- Positions waiting for analysis; a leased one is held by a
             -- worker until `lease_until` (seconds since 1970), in the
             -- batch a remote worker acknowledges by name.
             CREATE TABLE queue (
                 key INTEGER PRIMARY KEY,
                 fen TEXT NOT NULL,
                 priority INTEGER NOT NULL,
                 queued_at INTEGER NOT NULL,
                 lease_until INTEGER,
                 batch TEXT
             );
             CREATE INDEX queue_batch ON queue (batch);
             CREATE INDEX queue_order ON queue (priority DESC, queued_at);
             -- The engine's answers to `queryengine`, by position, banned
             -- moves and thinking time.
             CREATE TABLE engine_answers (
                 key TEXT PRIMARY KEY,
                 score INTEGER NOT NULL,
                 depth INTEGER NOT NULL,
                 pv TEXT NOT NULL
             );
             COMMIT;"
        ))
    }

    /// Where the store is: its file, or `in memory`.
    pub fn describe(&self) -> String {
        self.path
            .as_ref()
            .map_or("in memory".to_string(), |p| p.display().to_string())
    }

    fn db(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.db.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        StoreError {
            where_: self.describe(),
            reason: e.to_string(),
        }
    }

    /// What the store knows of `pos`, its moves as `pos` plays them (a
    /// position stored as its mirror image has its moves turned back).
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub fn get(&self, pos: &Position) -> Result<Option<Stored>, StoreError> {
        let (key, mirrored) = book_key(pos);
        let db = self.db();
        self.get_key(&db, key, mirrored).map_err(|e| self.error(e))
    }

    fn get_key(
        &self,
        db: &Connection,
        key: u64,
        mirrored: bool,
    ) -> rusqlite::Result<Option<Stored>> {
        let turn = |m: Move| if mirrored { m.mirror() } else { m };
        let search = db
            .query_row(
                "SELECT score, best, depth FROM positions WHERE key = ?1",
                [key_column(key)],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                },
            )
            .optional()?;
        let Some((score, best, depth)) = search else {
            return Ok(None);
        };
        let search = Searched {
            score: score as i16,
            best: turn(Move::from_u16(best as u16).unwrap_or(Move::NULL)),
            depth: depth as u8,
        };
        let mut statement = db.prepare_cached(
            "SELECT move, score, depth, source, at FROM moves WHERE key = ?1
             ORDER BY score DESC, depth DESC, move",
        )?;
        let moves = statement
            .query_map([key_column(key)], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            })?
            .filter_map(|row| {
                let (mv, score, depth, source, at) = match row {
                    Ok(row) => row,
                    Err(e) => return Some(Err(e)),
                };
                // A row this version cannot read is left out, not guessed.
                let mv = Move::from_u16(mv as u16)?;
                Some(Ok(StoredMove {
                    mv: turn(mv),
                    score: score as i16,
                    depth: depth as u8,
                    source: Source::of_code(source)?,
                    at,
                }))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some(Stored { search, moves }))
    }

    /// Writes what a search found in `pos`: the search itself and each of
    /// `moves` (moves of `pos` with their scores for the side that plays
    /// them and the depth), and takes `pos` off the queue, in one
    /// transaction: once this returns the result survives anything but a
    /// lost disk. A move stored before keeps the deeper of its two scores.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn record(
        &self,
        pos: &Position,
        search: Searched,
        moves: &[(Move, i16, u8)],
        source: Source,
    ) -> Result<(), StoreError> {
        let mut db = self.db();
        let write = |db: &mut Connection| -> rusqlite::Result<()> {
            let tx = db.transaction()?;
            write_result(&tx, pos, search, moves, source, now())?;
            tx.commit()
        };
        write(&mut db).map_err(|e| self.error(e))
    }

    /// [`Store::record`] for each of `results`, in one transaction.
    ///
    /// # Errors
    ///
    /// The store cannot be written (and nothing is).
    pub fn record_all(&self, results: &[Found], source: Source) -> Result<(), StoreError> {
        let at = now();
        let mut db = self.db();
        let write = |db: &mut Connection| -> rusqlite::Result<()> {
            let tx = db.transaction()?;
            for (pos, search, moves) in results {
                write_result(&tx, pos, *search, moves, source, at)?;
            }
            tx.commit()
        };
        write(&mut db).map_err(|e| self.error(e))
    }

    /// The whole store as a book to back scores up through, with each
    /// position's FEN (as its key stores it).
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub fn graph(&self) -> Result<StoreGraph, StoreError> {
        let db = self.db();
        let read = || -> rusqlite::Result<StoreGraph> {
            let mut graph = StoreGraph::default();
            let mut positions = db.prepare("SELECT key, fen, score, best, depth FROM positions")?;
            let mut rows = positions.query([])?;
            while let Some(r) = rows.next()? {
                let key = r.get::<_, i64>(0)? as u64;
                graph.fens.insert(key, r.get(1)?);
                let best = Move::from_u16(r.get::<_, i64>(3)? as u16).unwrap_or(Move::NULL);
                graph.book.searched.insert(
                    key,
                    Searched {
                        score: r.get::<_, i64>(2)? as i16,
                        best,
                        depth: r.get::<_, i64>(4)? as u8,
                    },
                );
            }
            let mut moves =
                db.prepare("SELECT key, move, score, depth, source FROM moves ORDER BY key")?;
            let mut rows = moves.query([])?;
            while let Some(r) = rows.next()? {
                let key = r.get::<_, i64>(0)? as u64;
                let Some(mv) = Move::from_u16(r.get::<_, i64>(1)? as u16) else {
                    continue;
                };
                let source = Source::of_code(r.get(4)?);
                graph
                    .book
                    .nodes
                    .entry(key)
                    .or_default()
                    .push((mv, source == Some(Source::Book)));
                if source != Some(Source::Learning) {
                    let scored = Searched {
                        score: r.get::<_, i64>(2)? as i16,
                        best: mv,
                        depth: backup_depth(source, r.get::<_, i64>(3)? as u8),
                    };
                    graph.book.move_scores.insert(move_key(key, mv), scored);
                }
            }
            Ok(graph)
        };
        read().map_err(|e| self.error(e))
    }

    /// Writes scores backed up through the store (`moves` of `pos`, each
    /// with its score for the side that plays it) over the scores they
    /// replace.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn learn(&self, pos: &Position, moves: &[(Move, i16)]) -> Result<(), StoreError> {
        let (key, mirrored) = book_key(pos);
        let turn = |m: Move| if mirrored { m.mirror() } else { m };
        let updates: Vec<(u64, Move, i16)> = moves
            .iter()
            .map(|&(mv, score)| (key, turn(mv), score))
            .collect();
        self.learn_stored(&updates).map(drop)
    }

    /// [`Store::learn`] for moves as their keys store them, in one
    /// transaction: each of `updates` a key, a move as stored and its
    /// score. The number of scores changed.
    ///
    /// # Errors
    ///
    /// The store cannot be written (and nothing is).
    pub fn learn_stored(&self, updates: &[(u64, Move, i16)]) -> Result<usize, StoreError> {
        let at = now();
        let mut db = self.db();
        let write = |db: &mut Connection| -> rusqlite::Result<usize> {
            let tx = db.transaction()?;
            let mut changed = 0;
            {
                let mut update = tx.prepare_cached(
                    "UPDATE moves SET score = ?3, source = ?4, at = ?5
                     WHERE key = ?1 AND move = ?2 AND score != ?3",
                )?;
                for &(key, mv, score) in updates {
                    changed += update.execute(params![
                        key_column(key),
                        mv.to_u16(),
                        score,
                        Source::Learning.code(),
                        at
                    ])?;
                }
            }
            tx.commit()?;
            Ok(changed)
        };
        write(&mut db).map_err(|e| self.error(e))
    }

    /// Puts `pos` on the queue for analysis with `priority` (higher
    /// first), once: a queued position stays where it is (its priority
    /// raised if this one is higher), and a stored one is not queued.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn enqueue(&self, pos: &Position, priority: u8) -> Result<Enqueued, StoreError> {
        let (key, mirrored) = book_key(pos);
        let stored_fen = if mirrored { pos.mirror() } else { pos.clone() }.fen();
        let db = self.db();
        let run = || -> rusqlite::Result<Enqueued> {
            let known: bool = db.query_row(
                "SELECT EXISTS (SELECT 1 FROM positions WHERE key = ?1)",
                [key_column(key)],
                |r| r.get(0),
            )?;
            if known {
                return Ok(Enqueued::Known);
            }
            let added = db.execute(
                "INSERT INTO queue (key, fen, priority, queued_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (key) DO NOTHING",
                params![key_column(key), stored_fen, priority, now()],
            )?;
            if added == 0 {
                db.execute(
                    "UPDATE queue SET priority = ?2 WHERE key = ?1 AND priority < ?2",
                    params![key_column(key), priority],
                )?;
                return Ok(Enqueued::Queued);
            }
            Ok(Enqueued::Added)
        };
        run().map_err(|e| self.error(e))
    }

    /// Hands out up to `n` queued positions, highest priority and oldest
    /// first, that no worker holds (or whose worker's lease ran out), each
    /// held for `lease` from now.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn lease(&self, n: usize, lease: Duration) -> Result<Vec<Lease>, StoreError> {
        let at = now();
        let until = at + lease.as_secs().max(1) as i64;
        let db = self.db();
        let run = || -> rusqlite::Result<Vec<(i64, String)>> {
            let mut statement = db.prepare_cached(
                "UPDATE queue SET lease_until = ?1 WHERE key IN (
                     SELECT key FROM queue
                     WHERE lease_until IS NULL OR lease_until <= ?2
                     ORDER BY priority DESC, queued_at LIMIT ?3)
                 RETURNING key, fen",
            )?;
            let leased = statement
                .query_map(params![until, at, n as i64], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
                })?
                .collect();
            leased
        };
        let leased = run().map_err(|e| self.error(e))?;
        // A FEN this version cannot read stays leased, and comes back when
        // its lease runs out.
        Ok(leased
            .iter()
            .filter_map(|(key, fen)| {
                let pos = Position::from_fen(fen).ok()?;
                Some(Lease {
                    key: *key as u64,
                    pos,
                })
            })
            .collect())
    }

    /// Names the leased positions `keys` one batch, `batch`, which
    /// [`Store::ack_batch`] acknowledges.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn name_batch(&self, keys: &[u64], batch: &str) -> Result<(), StoreError> {
        let mut db = self.db();
        let write = |db: &mut Connection| -> rusqlite::Result<()> {
            let tx = db.transaction()?;
            {
                let mut name = tx.prepare_cached("UPDATE queue SET batch = ?2 WHERE key = ?1")?;
                for &key in keys {
                    name.execute(params![key_column(key), batch])?;
                }
            }
            tx.commit()
        };
        write(&mut db).map_err(|e| self.error(e))
    }

    /// Takes the positions of batch `batch` off the queue: its worker is
    /// done with them. The number taken off (0 for a batch no longer
    /// leased).
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn ack_batch(&self, batch: &str) -> Result<usize, StoreError> {
        self.db()
            .execute("DELETE FROM queue WHERE batch = ?1", [batch])
            .map_err(|e| self.error(e))
    }

    /// Writes one move of `pos` with its score for the side that plays it
    /// and the depth (a worker's result, as chessdb's `store` sends them
    /// one at a time); the position's search becomes its best stored move.
    /// The position stays queued until its batch is acknowledged.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn record_move(
        &self,
        pos: &Position,
        mv: Move,
        score: i16,
        depth: u8,
        source: Source,
    ) -> Result<(), StoreError> {
        let (key, mirrored) = book_key(pos);
        let stored_mv = if mirrored { mv.mirror() } else { mv };
        let stored_fen = if mirrored { pos.mirror() } else { pos.clone() }.fen();
        let at = now();
        let mut db = self.db();
        let write = |db: &mut Connection| -> rusqlite::Result<()> {
            let tx = db.transaction()?;
            tx.execute(
                "INSERT INTO moves (key, move, score, depth, source, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (key, move) DO UPDATE SET
                     score = excluded.score, depth = excluded.depth,
                     source = excluded.source, at = excluded.at
                 WHERE excluded.depth >= moves.depth",
                params![
                    key_column(key),
                    stored_mv.to_u16(),
                    score,
                    depth,
                    source.code(),
                    at
                ],
            )?;
            tx.execute(
                "INSERT INTO positions (key, fen, score, best, depth, at)
                 SELECT ?1, ?2, score, move, depth, ?3 FROM moves WHERE key = ?1
                 ORDER BY score DESC, depth DESC LIMIT 1
                 ON CONFLICT (key) DO UPDATE SET
                     score = excluded.score, best = excluded.best,
                     depth = excluded.depth, at = excluded.at",
                params![key_column(key), stored_fen, at],
            )?;
            tx.commit()
        };
        write(&mut db).map_err(|e| self.error(e))
    }

    /// The bytes the store's file takes once its journal is written back
    /// into it (0 in memory).
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn bytes(&self) -> Result<u64, StoreError> {
        let Some(path) = &self.path else {
            return Ok(0);
        };
        self.db()
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .map_err(|e| self.error(e))?;
        std::fs::metadata(path)
            .map(|m| m.len())
            .map_err(|e| StoreError {
                where_: self.describe(),
                reason: e.to_string(),
            })
    }

    /// How much the store holds.
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub fn counts(&self) -> Result<Counts, StoreError> {
        let db = self.db();
        let count = |sql: &str| {
            db.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
        };
        let run = || -> rusqlite::Result<Counts> {
            Ok(Counts {
                positions: count("SELECT count(*) FROM positions")?,
                moves: count("SELECT count(*) FROM moves")?,
                queued: count("SELECT count(*) FROM queue")?,
                leased: db.query_row(
                    "SELECT count(*) FROM queue WHERE lease_until > ?1",
                    [now()],
                    |r| r.get::<_, i64>(0).map(|n| n as u64),
                )?,
            })
        };
        run().map_err(|e| self.error(e))
    }

    /// The stored positions around `root` as a book to back scores up
    /// through: every stored position reached from `root` by stored moves,
    /// nearest first, up to `limit` of them with their moves; the stored
    /// positions one move beyond those as leaves (their search alone).
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub fn graph_around(&self, root: &Position, limit: usize) -> Result<BookGraph, StoreError> {
        let db = self.db();
        let mut graph = BookGraph::default();
        let mut frontier = VecDeque::from([root.clone()]);
        let mut seen: HashMap<u64, ()> = HashMap::new();
        while let Some(pos) = frontier.pop_front() {
            let (key, mirrored) = book_key(&pos);
            if seen.insert(key, ()).is_some() {
                continue;
            }
            let Some(stored) = self
                .get_key(&db, key, mirrored)
                .map_err(|e| self.error(e))?
            else {
                continue;
            };
            let turn = |m: Move| if mirrored { m.mirror() } else { m };
            graph.searched.insert(
                key,
                Searched {
                    best: turn(stored.search.best),
                    ..stored.search
                },
            );
            if graph.nodes.len() >= limit {
                continue;
            }
            let mut nodes = Vec::with_capacity(stored.moves.len());
            for m in &stored.moves {
                let as_stored = turn(m.mv);
                nodes.push((as_stored, m.source == Source::Book));
                // A move's own score stands for the position it leads to
                // unless that position is stored, searched deeper.
                let scored = Searched {
                    score: m.score,
                    best: as_stored,
                    depth: m.depth,
                };
                if m.source != Source::Learning {
                    let scored = Searched {
                        depth: backup_depth(Some(m.source), m.depth),
                        ..scored
                    };
                    graph.move_scores.insert(move_key(key, as_stored), scored);
                }
                let mut child = pos.clone();
                child.make_move(m.mv);
                frontier.push_back(child);
            }
            graph.nodes.insert(key, nodes);
        }
        Ok(graph)
    }

    /// The engine's answer kept under `key`: score, depth and line.
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    pub fn engine_answer(&self, key: &str) -> Result<Option<(i32, i32, String)>, StoreError> {
        self.db()
            .query_row(
                "SELECT score, depth, pv FROM engine_answers WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Keeps the engine's answer under `key`.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    pub fn keep_engine_answer(
        &self,
        key: &str,
        score: i32,
        depth: i32,
        pv: &str,
    ) -> Result<(), StoreError> {
        self.db()
            .execute(
                "INSERT OR REPLACE INTO engine_answers (key, score, depth, pv)
                 VALUES (?1, ?2, ?3, ?4)",
                params![key, score, depth, pv],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }
}

/// The whole store as a book: see [`Store::graph`].
#[derive(Clone, Debug, Default)]
pub struct StoreGraph {
    /// Positions, their moves and searches under their keys, as stored.
    pub book: BookGraph,
    /// Each position's FEN, as its key stores it.
    pub fens: HashMap<u64, String>,
}

impl StoreGraph {
    /// Every stored position's analysis, the scores backed up through the
    /// whole store (each stored position a root, the start position
    /// first), under its key as stored.
    pub fn back_up_all(&self) -> HashMap<u64, xqbook::PositionAnalysis> {
        let mut roots: Vec<Position> = Vec::with_capacity(self.fens.len() + 1);
        roots.push(Position::start());
        roots.extend(
            self.fens
                .values()
                .filter_map(|fen| Position::from_fen(fen).ok()),
        );
        xqbook::back_up(&self.book, &roots)
    }
}

/// Learns from the whole store: every stored move's score backed up
/// through the positions it leads to, where that differs from the score
/// stored. The number of scores changed.
///
/// # Errors
///
/// The store cannot be read or written.
pub fn learn_all(store: &Store) -> Result<usize, StoreError> {
    let analyses = store.graph()?.back_up_all();
    let updates: Vec<(u64, Move, i16)> = analyses
        .iter()
        .flat_map(|(&key, a)| a.moves.iter().map(move |m| (key, m.mv, m.score)))
        .collect();
    store.learn_stored(&updates)
}

/// Writes what a search found in `pos` within `tx` (see
/// [`Store::record`]).
fn write_result(
    tx: &rusqlite::Transaction,
    pos: &Position,
    search: Searched,
    moves: &[(Move, i16, u8)],
    source: Source,
    at: i64,
) -> rusqlite::Result<()> {
    let (key, mirrored) = book_key(pos);
    let turn = |m: Move| if mirrored { m.mirror() } else { m };
    let stored_fen = if mirrored { pos.mirror() } else { pos.clone() }.fen();
    tx.execute(
        "INSERT INTO positions (key, fen, score, best, depth, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (key) DO UPDATE SET
             score = excluded.score, best = excluded.best,
             depth = excluded.depth, at = excluded.at
         WHERE excluded.depth >= positions.depth",
        params![
            key_column(key),
            stored_fen,
            search.score,
            turn(search.best).to_u16(),
            search.depth,
            at
        ],
    )?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO moves (key, move, score, depth, source, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (key, move) DO UPDATE SET
             score = excluded.score, depth = excluded.depth,
             source = excluded.source, at = excluded.at
         WHERE excluded.depth >= moves.depth",
    )?;
    for &(mv, score, depth) in moves {
        insert.execute(params![
            key_column(key),
            turn(mv).to_u16(),
            score,
            depth,
            source.code(),
            at
        ])?;
    }
    tx.execute("DELETE FROM queue WHERE key = ?1", [key_column(key)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &[&str]) -> Position {
        let mut pos = Position::start();
        for m in moves {
            let mv = pos.parse_move(m).unwrap();
            pos.make_move(mv);
        }
        pos
    }

    fn searched(pos: &Position, score: i16, best: &str) -> Searched {
        Searched {
            score,
            best: pos.parse_move(best).unwrap(),
            depth: 10,
        }
    }

    #[test]
    fn a_recorded_position_reads_back_in_either_mirror_image() {
        let store = Store::open(None).unwrap();
        let pos = after(&["h2e2"]);
        let moves = [
            (pos.parse_move("h9g7").unwrap(), -20, 10),
            (pos.parse_move("b9c7").unwrap(), -35, 10),
        ];
        store
            .record(&pos, searched(&pos, -20, "h9g7"), &moves, Source::Analysis)
            .unwrap();
        let got = store.get(&pos).unwrap().expect("stored");
        assert_eq!(got.search, searched(&pos, -20, "h9g7"));
        let read: Vec<(Move, i16)> = got.moves.iter().map(|m| (m.mv, m.score)).collect();
        assert_eq!(read, vec![(moves[0].0, -20), (moves[1].0, -35)]);
        // The mirror image (b2e2 for h2e2) is the same entry, its moves
        // mirrored.
        let image = after(&["b2e2"]);
        let got = store.get(&image).unwrap().expect("stored as the mirror's");
        assert_eq!(got.moves[0].mv, image.parse_move("b9c7").unwrap());
        assert_eq!(got.moves[0].source, Source::Analysis);
        assert!(store.get(&after(&["h0g2"])).unwrap().is_none());
    }

    #[test]
    fn a_shallower_result_does_not_replace_a_deeper_one() {
        let store = Store::open(None).unwrap();
        let pos = Position::start();
        let m = pos.parse_move("h2e2").unwrap();
        store
            .record(
                &pos,
                searched(&pos, 30, "h2e2"),
                &[(m, 30, 12)],
                Source::Analysis,
            )
            .unwrap();
        store
            .record(
                &pos,
                searched(&pos, 90, "h2e2"),
                &[(m, 90, 8)],
                Source::Analysis,
            )
            .unwrap();
        let got = store.get(&pos).unwrap().unwrap();
        assert_eq!((got.moves[0].score, got.moves[0].depth), (30, 12));
    }

    #[test]
    fn the_queue_holds_a_position_once_and_leases_it_until_its_time_runs_out() {
        let store = Store::open(None).unwrap();
        let a = after(&["h2e2"]);
        let b = after(&["b0c2"]);
        assert_eq!(store.enqueue(&a, 1).unwrap(), Enqueued::Added);
        assert_eq!(
            store.enqueue(&after(&["b2e2"]), 1).unwrap(),
            Enqueued::Queued
        );
        assert_eq!(store.enqueue(&b, 2).unwrap(), Enqueued::Added);
        assert_eq!(store.counts().unwrap().queued, 2);
        // The higher priority first; a leased position is not handed out
        // again while its lease runs.
        let first = store.lease(1, Duration::from_secs(600)).unwrap();
        assert_eq!(book_key(&first[0].pos).0, book_key(&b).0);
        let second = store.lease(5, Duration::from_secs(600)).unwrap();
        assert_eq!(second.len(), 1);
        assert_eq!(book_key(&second[0].pos).0, book_key(&a).0);
        assert!(store.lease(5, Duration::from_secs(600)).unwrap().is_empty());
        assert_eq!(store.counts().unwrap().leased, 2);
        // A result takes it off the queue; a stored position is not queued.
        store
            .record(&b, searched(&b, 0, "h9g7"), &[], Source::Analysis)
            .unwrap();
        assert_eq!(store.counts().unwrap().queued, 1);
        assert_eq!(store.enqueue(&b, 1).unwrap(), Enqueued::Known);
    }

    #[test]
    fn a_lease_that_runs_out_goes_back_to_the_queue() {
        let store = Store::open(None).unwrap();
        let a = after(&["h2e2"]);
        store.enqueue(&a, 1).unwrap();
        assert_eq!(store.lease(1, Duration::from_secs(600)).unwrap().len(), 1);
        // The worker vanished: its lease ends (here, moved into the past).
        store
            .db()
            .execute("UPDATE queue SET lease_until = lease_until - 601", [])
            .unwrap();
        let again = store.lease(1, Duration::from_secs(600)).unwrap();
        assert_eq!(book_key(&again[0].pos).0, book_key(&a).0);
    }

    #[test]
    fn a_file_of_another_kind_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let e = Store::open(Some(&other))
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.contains("other.sqlite") && e.contains("not a store"),
            "{e}"
        );
        let garbage = dir.path().join("garbage.sqlite");
        std::fs::write(&garbage, vec![0x55u8; 4096]).unwrap();
        let e = Store::open(Some(&garbage))
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("garbage.sqlite"), "{e}");
        // A store reopens.
        let path = dir.path().join("store.sqlite");
        let pos = Position::start();
        Store::open(Some(&path))
            .unwrap()
            .record(&pos, searched(&pos, 25, "h2e2"), &[], Source::Analysis)
            .unwrap();
        assert!(Store::open(Some(&path))
            .unwrap()
            .get(&pos)
            .unwrap()
            .is_some());
    }

    #[test]
    fn learning_from_the_whole_store_writes_what_changed_once() {
        let store = Store::open(None).unwrap();
        let root = Position::start();
        let h2e2 = root.parse_move("h2e2").unwrap();
        store
            .record(
                &root,
                searched(&root, 20, "h2e2"),
                &[(h2e2, 20, 10)],
                Source::Analysis,
            )
            .unwrap();
        let child = after(&["h2e2"]);
        let reply = child.parse_move("h9g7").unwrap();
        let mut deeper = searched(&child, 80, "h9g7");
        deeper.depth = 14;
        store
            .record(&child, deeper, &[(reply, 80, 14)], Source::Analysis)
            .unwrap();
        assert_eq!(learn_all(&store).unwrap(), 1);
        let learned = store.get(&root).unwrap().unwrap().moves[0];
        assert_eq!((learned.score, learned.source), (-80, Source::Learning));
        // Learned, it stays learned: nothing changes the second time.
        assert_eq!(learn_all(&store).unwrap(), 0);
    }

    #[test]
    fn scores_back_up_through_stored_positions() {
        let store = Store::open(None).unwrap();
        let root = Position::start();
        let h2e2 = root.parse_move("h2e2").unwrap();
        let b0c2 = root.parse_move("b0c2").unwrap();
        // The root's search thought both moves worth 20; after h2e2 the
        // stored position's best reply is worth 80 to Black.
        store
            .record(
                &root,
                searched(&root, 20, "h2e2"),
                &[(h2e2, 20, 10), (b0c2, 20, 10)],
                Source::Analysis,
            )
            .unwrap();
        let child = after(&["h2e2"]);
        let reply = child.parse_move("h9g7").unwrap();
        let mut deeper = searched(&child, 80, "h9g7");
        deeper.depth = 14;
        store
            .record(&child, deeper, &[(reply, 80, 14)], Source::Analysis)
            .unwrap();
        let graph = store.graph_around(&root, 100).unwrap();
        let analysis = &xqbook::back_up(&graph, std::slice::from_ref(&root))[&book_key(&root).0];
        let h2e2_score = analysis.moves.iter().find(|m| m.mv == h2e2).unwrap().score;
        assert_eq!(h2e2_score, -80, "{analysis:?}");
        assert_eq!(analysis.moves[0].mv, b0c2);
    }
}
