//! The SQLite game store: a user's collection kept in one file, imported
//! from records once (duplicates skipped, resumable file by file) and built
//! into books from there.
//!
//! Games are stored as their start FEN and ICCS moves, with their tags and
//! result. A game is a duplicate when the same start and moves are stored
//! already. Each record file is imported in one transaction and noted with
//! its size and modification time, so an interrupted import loses at most
//! the file it was in, and a second run skips what is done.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{params, Connection, OptionalExtension};
use xqcore::{FenError, GameResult, Move, MoveError, Position};
use xqrecords::pgn::Game;

/// Version of the schema, stored in the database.
pub const SCHEMA_VERSION: i64 = 1;

/// Why the game database cannot be opened, read or written. Every variant
/// names the database file.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite failed (the file cannot be opened, the disk is full).
    #[error("{path}: {source}", path = .path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file is not a SQLite database, or one whose tables are not a
    /// game database's.
    #[error("{path}: not a game database: {source}", path = .path.display())]
    NotGameDb {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The database was written by a program of another schema version.
    #[error(
        "{path}: game database schema {found}, this program reads {SCHEMA_VERSION}",
        path = .path.display()
    )]
    Schema {
        /// The database file.
        path: PathBuf,
        /// The version stored in it.
        found: String,
    },
}

/// A stored game that does not replay (its row was edited by hand).
#[derive(Debug, thiserror::Error)]
#[error("{path}: game {id}: {source}", path = .path.display())]
pub struct StoredGameError {
    /// The database file.
    pub path: PathBuf,
    /// The game's id (its row in table `games`).
    pub id: i64,
    /// What is wrong with it.
    pub source: ReplayError,
}

/// Why a stored row is not a game.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The start is not a position.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// A move is not legal where it is played.
    #[error("move {number}: {source}")]
    Move {
        /// The move's number, from 1.
        number: usize,
        /// Why it was refused.
        source: MoveError,
    },
    /// The result is none of PGN's.
    #[error("result '{0}' unknown")]
    Result(String),
}

/// An open game database.
pub struct GameDb {
    conn: Connection,
    path: PathBuf,
}

/// The error for a SQLite failure on the database at `path`.
fn sqlite(path: &Path) -> impl Fn(rusqlite::Error) -> DbError + '_ {
    |source| DbError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

/// What importing one file did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Games stored.
    pub added: usize,
    /// Games already in the database.
    pub duplicates: usize,
}

impl GameDb {
    /// Opens or creates the database at `path`.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or created, is not a game database, or is
    /// one of another schema version.
    pub fn open(path: &Path) -> Result<GameDb, DbError> {
        let err = sqlite(path);
        let conn = Connection::open(path).map_err(&err)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS games (
                 id INTEGER PRIMARY KEY,
                 start_fen TEXT NOT NULL,
                 moves TEXT NOT NULL,
                 result TEXT NOT NULL,
                 source TEXT NOT NULL,
                 source_game INTEGER NOT NULL,
                 UNIQUE (start_fen, moves)
             );
             CREATE TABLE IF NOT EXISTS tags (
                 game INTEGER NOT NULL REFERENCES games(id),
                 name TEXT NOT NULL,
                 value TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS files (
                 path TEXT PRIMARY KEY,
                 size INTEGER NOT NULL,
                 modified INTEGER NOT NULL,
                 added INTEGER NOT NULL,
                 duplicates INTEGER NOT NULL
             );",
        )
        .map_err(|source| DbError::NotGameDb {
            path: path.to_path_buf(),
            source,
        })?;
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(&err)?;
        match version {
            None => {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    params![SCHEMA_VERSION.to_string()],
                )
                .map_err(&err)?;
            }
            Some(v) if v == SCHEMA_VERSION.to_string() => {}
            Some(found) => {
                return Err(DbError::Schema {
                    path: path.to_path_buf(),
                    found,
                })
            }
        }
        Ok(GameDb {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Whether `file` was imported already, unchanged since.
    ///
    /// # Errors
    ///
    /// SQLite fails reading the database.
    pub fn is_imported(&self, file: &Path) -> Result<bool, DbError> {
        let Some((size, modified)) = file_stamp(file) else {
            return Ok(false);
        };
        let known: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT size, modified FROM files WHERE path = ?1",
                params![file.display().to_string()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sqlite(&self.path))?;
        Ok(known == Some((size, modified)))
    }

    /// Stores the games read from `file` in one transaction, skipping
    /// duplicates, and notes the file as imported.
    ///
    /// # Errors
    ///
    /// SQLite fails writing the database; nothing of `file` is stored then.
    pub fn import(&mut self, file: &Path, games: &[Game]) -> Result<Imported, DbError> {
        let err = sqlite(&self.path);
        let tx = self.conn.transaction().map_err(&err)?;
        let mut done = Imported::default();
        {
            let mut insert = tx
                .prepare(
                    "INSERT OR IGNORE INTO games (start_fen, moves, result, source, source_game)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(&err)?;
            let mut tag = tx
                .prepare("INSERT INTO tags (game, name, value) VALUES (?1, ?2, ?3)")
                .map_err(&err)?;
            let source = file.display().to_string();
            for g in games {
                let moves: Vec<String> = g.moves.iter().map(Move::to_string).collect();
                let n = insert
                    .execute(params![
                        g.start.fen(),
                        moves.join(" "),
                        g.result.to_string(),
                        source,
                        g.index as i64
                    ])
                    .map_err(&err)?;
                if n == 0 {
                    done.duplicates += 1;
                    continue;
                }
                done.added += 1;
                let id = tx.last_insert_rowid();
                for (k, v) in &g.tags {
                    tag.execute(params![id, k, v]).map_err(&err)?;
                }
            }
        }
        let (size, modified) = file_stamp(file).unwrap_or((0, 0));
        tx.execute(
            "INSERT OR REPLACE INTO files (path, size, modified, added, duplicates)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                file.display().to_string(),
                size,
                modified,
                done.added as i64,
                done.duplicates as i64
            ],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(done)
    }

    /// Games stored.
    ///
    /// # Errors
    ///
    /// SQLite fails reading the database.
    pub fn count(&self) -> Result<usize, DbError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(sqlite(&self.path))
    }

    /// Every stored game as (start, moves, result). A row that no longer
    /// replays (edited by hand) is returned as an error with its id, and
    /// the others still are.
    ///
    /// # Errors
    ///
    /// SQLite fails reading the database.
    pub fn games(&self) -> Result<Vec<Result<StoredGame, StoredGameError>>, DbError> {
        let err = sqlite(&self.path);
        let mut stmt = self
            .conn
            .prepare("SELECT id, start_fen, moves, result FROM games ORDER BY id")
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(&err)?;
        let mut out = Vec::new();
        for row in rows {
            let (id, fen, moves, result) = row.map_err(&err)?;
            out.push(
                replay(&fen, &moves, &result).map_err(|source| StoredGameError {
                    path: self.path.clone(),
                    id,
                    source,
                }),
            );
        }
        Ok(out)
    }
}

/// A game as stored: start, legal moves, result.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// The start position.
    pub start: Position,
    /// The moves.
    pub moves: Vec<Move>,
    /// The result.
    pub result: GameResult,
}

/// The game of a stored row: its start FEN, its moves in ICCS separated by
/// spaces, and its result as PGN writes it.
fn replay(fen: &str, moves: &str, result: &str) -> Result<StoredGame, ReplayError> {
    let start = Position::from_fen(fen)?;
    let mut pos = start.clone();
    let mut list = Vec::new();
    for (i, m) in moves.split_whitespace().enumerate() {
        let mv = pos.parse_move(m).map_err(|source| ReplayError::Move {
            number: i + 1,
            source,
        })?;
        pos.make_move(mv);
        list.push(mv);
    }
    let result = result
        .parse()
        .map_err(|()| ReplayError::Result(result.to_string()))?;
    Ok(StoredGame {
        start,
        moves: list,
        result,
    })
}

/// A file's size and modification time (seconds), to notice changes.
fn file_stamp(file: &Path) -> Option<(i64, i64)> {
    let meta = std::fs::metadata(file).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_secs() as i64;
    Some((meta.len() as i64, modified))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqrecords::pgn::{parse_game, split};

    fn games(text: &str) -> Vec<Game> {
        split(text).iter().map(|g| parse_game(g).unwrap()).collect()
    }

    const PGN: &str = "[Event \"a\"]\n[Result \"1-0\"]\n1. h2e2 h9g7\n\n[Event \"b\"]\n1. c3c4 *\n\n[Event \"a again\"]\n1. h2e2 h9g7 1-0\n";

    #[test]
    fn imports_skip_duplicates_and_are_resumable() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("games.sqlite");
        let pgn = dir.path().join("a.pgn");
        std::fs::write(&pgn, PGN).unwrap();
        let mut db = GameDb::open(&db_path).unwrap();
        assert!(!db.is_imported(&pgn).unwrap());
        let done = db.import(&pgn, &games(PGN)).unwrap();
        assert_eq!(
            done,
            Imported {
                added: 2,
                duplicates: 1
            }
        );
        assert!(db.is_imported(&pgn).unwrap());
        drop(db);
        // Reopened: the games are there, the file is known, a second
        // import of the same games adds nothing.
        let mut db = GameDb::open(&db_path).unwrap();
        assert_eq!(db.count().unwrap(), 2);
        assert!(db.is_imported(&pgn).unwrap());
        let again = db.import(&pgn, &games(PGN)).unwrap();
        assert_eq!(
            again,
            Imported {
                added: 0,
                duplicates: 3
            }
        );
        let stored: Vec<StoredGame> = db
            .games()
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[0].result, GameResult::RedWins);
        assert_eq!(stored[0].moves.len(), 2);
        assert_eq!(stored[1].result, GameResult::Unknown);
        // A changed file is imported again.
        std::fs::write(&pgn, format!("{PGN}\n[Event \"c\"]\n1. g0e2 0-1\n")).unwrap();
        assert!(!db.is_imported(&pgn).unwrap());
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_naming_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.sqlite");
        std::fs::write(
            &path,
            "just some text, long enough to look like a file header",
        )
        .unwrap();
        let err = GameDb::open(&path).err().unwrap();
        let DbError::NotGameDb { source, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(
            err.to_string(),
            format!("{}: not a game database: {source}", path.display())
        );
    }

    #[test]
    fn a_database_of_another_schema_is_refused_naming_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite");
        drop(GameDb::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE meta SET value = '2' WHERE key = 'schema'", [])
            .unwrap();
        let err = GameDb::open(&path).err().unwrap().to_string();
        assert_eq!(
            err,
            format!(
                "{}: game database schema 2, this program reads 1",
                path.display()
            )
        );
    }

    #[test]
    fn a_game_edited_into_an_illegal_one_is_named_by_file_id_and_move() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite");
        let mut db = GameDb::open(&path).unwrap();
        db.import(Path::new("a.pgn"), &games(PGN)).unwrap();
        // Black's second move made Red's rook's.
        db.conn
            .execute("UPDATE games SET moves = 'h2e2 a0a1' WHERE id = 1", [])
            .unwrap();
        let stored = db.games().unwrap();
        assert!(stored[1].is_ok(), "the other game is still read");
        let err = stored[0].as_ref().unwrap_err();
        assert!(matches!(err.source, ReplayError::Move { number: 2, .. }));
        assert_eq!(
            err.to_string(),
            format!(
                "{}: game 1: move 2: a0a1: the piece on a0 is not the side to move's",
                path.display()
            )
        );
    }
}
