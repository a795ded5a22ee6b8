//! The SQLite game store: a user's collection kept in one file, imported
//! from records once (duplicates skipped, resumable file by file) and built
//! into books from there.
//!
//! Games are stored as their start FEN and ICCS moves, with their tags and
//! result. A game is a duplicate when the same start and moves are stored
//! already. Each record file is imported in one transaction and noted with
//! its size and modification time, so an interrupted import loses at most
//! the file it was in, and a second run skips what is done.

use std::path::Path;
use std::time::UNIX_EPOCH;

use rusqlite::{params, Connection, OptionalExtension};
use xqcore::{GameResult, Move, Position};
use xqrecords::pgn::Game;

/// Version of the schema, stored in the database.
pub const SCHEMA_VERSION: i64 = 1;

/// An open game database.
pub struct GameDb {
    conn: Connection,
    path: String,
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
    pub fn open(path: &Path) -> Result<GameDb, String> {
        let name = path.display().to_string();
        let err = |e: rusqlite::Error| format!("{name}: {e}");
        let conn = Connection::open(path).map_err(err)?;
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
        .map_err(|e| format!("{name}: not a game database: {e}"))?;
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(err)?;
        match version {
            None => {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    params![SCHEMA_VERSION.to_string()],
                )
                .map_err(err)?;
            }
            Some(v) if v == SCHEMA_VERSION.to_string() => {}
            Some(v) => {
                return Err(format!(
                    "{name}: game database schema {v}, this program reads {SCHEMA_VERSION}"
                ))
            }
        }
        Ok(GameDb { conn, path: name })
    }

    fn err(&self, e: rusqlite::Error) -> String {
        format!("{}: {e}", self.path)
    }

    /// Whether `file` was imported already, unchanged since.
    pub fn is_imported(&self, file: &Path) -> Result<bool, String> {
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
            .map_err(|e| self.err(e))?;
        Ok(known == Some((size, modified)))
    }

    /// Stores the games read from `file` in one transaction, skipping
    /// duplicates, and notes the file as imported.
    pub fn import(&mut self, file: &Path, games: &[Game]) -> Result<Imported, String> {
        let path = self.path.clone();
        let err = |e: rusqlite::Error| format!("{path}: {e}");
        let tx = self.conn.transaction().map_err(err)?;
        let mut done = Imported::default();
        {
            let mut insert = tx
                .prepare(
                    "INSERT OR IGNORE INTO games (start_fen, moves, result, source, source_game)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            let mut tag = tx
                .prepare("INSERT INTO tags (game, name, value) VALUES (?1, ?2, ?3)")
                .map_err(err)?;
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
                    .map_err(err)?;
                if n == 0 {
                    done.duplicates += 1;
                    continue;
                }
                done.added += 1;
                let id = tx.last_insert_rowid();
                for (k, v) in &g.tags {
                    tag.execute(params![id, k, v]).map_err(err)?;
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
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(done)
    }

    /// Games stored.
    pub fn count(&self) -> Result<usize, String> {
        self.conn
            .query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// Every stored game as (start, moves, result). A row that no longer
    /// replays (edited by hand) is returned as an error with its id.
    pub fn games(&self) -> Result<Vec<Result<StoredGame, String>>, String> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, start_fen, moves, result FROM games ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, fen, moves, result) = row.map_err(|e| self.err(e))?;
            out.push(
                replay(&fen, &moves, &result).map_err(|e| format!("{}: game {id}: {e}", self.path)),
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

fn replay(fen: &str, moves: &str, result: &str) -> Result<StoredGame, String> {
    let start = Position::from_fen(fen).map_err(|e| e.to_string())?;
    let mut pos = start.clone();
    let mut list = Vec::new();
    for (i, m) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(m)
            .map_err(|e| format!("move {}: {e}", i + 1))?;
        pos.make_move(mv);
        list.push(mv);
    }
    let result = result
        .parse()
        .map_err(|()| format!("result '{result}' unknown"))?;
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
    fn a_file_that_is_not_a_database_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.sqlite");
        std::fs::write(
            &path,
            "just some text, long enough to look like a file header",
        )
        .unwrap();
        let err = GameDb::open(&path).err().unwrap();
        assert!(err.contains("notes.sqlite"), "{err}");
    }
}
