//! BHGUI's `.obk` opening books, which most xiangqi GUIs read: a SQLite
//! database whose table `bhobk` holds one row per (position, move).
//!
//! A row's position is a 64-bit Zobrist key (`vkey`) over 14 pieces on a
//! 16x16 board, XOR a side key when Red is to move; its move (`vmove`) is
//! `from << 8 | to` on the same squares; `vwin`, `vdraw` and `vlost` count
//! the games after the move from the mover's side, `vscore` orders the
//! moves (higher is better for the mover), `vvalid` is 1 for a playable
//! move. The key table (3,584 values) is BHGUI's own and not derivable
//! from anything we have, so the user supplies it ([`ObkKeys::read`]); it
//! is checked against the one key every `.obk` book shares, the start
//! position's ([`START_KEY`]). docs/serve.md gives the sources.
//!
//! A book stores each position once, as it stands; readers also probe the
//! left-right mirror image ([`ObkBook::probe`] does).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OpenFlags};
use xqbook::BookMove;
use xqbook::{export_weight, Walked};
use xqcore::{Color, Move, Position, Square};

/// Piece-square keys in the table: 14 pieces (Red king, advisor,
/// elephant, horse, rook, cannon, pawn, then Black's in the same order)
/// times 256 squares.
pub const PIECE_KEYS: usize = 14 * 256;

/// The key of the start position (Red to move) in every `.obk` book.
pub const START_KEY: u64 = 0x628D_04D7_C9C1_44AE;

/// The schema of BHGUI's books, as real books carry it.
const SCHEMA: &str = "CREATE TABLE bhobk([id] INTEGER PRIMARY KEY AUTOINCREMENT, \
     [vkey] INTEGER, [vmove] INTEGER, [vscore] INTEGER, [vwin] INTEGER, [vdraw] INTEGER, \
     [vlost] INTEGER, [vvalid] INTEGER, [vmemo] BLOB, [vindex] INTEGER)";

/// Rows of one position a reader takes at most (BHGUI's sample reader's
/// limit).
const MAX_ROWS_PER_KEY: usize = 128;

/// Why a key table or an `.obk` book cannot be used. Every variant names
/// the file.
#[derive(Debug, thiserror::Error)]
pub enum ObkError {
    /// The key table file is not a table of 3,585 numbers.
    #[error("{path}: {source}", path = .path.display())]
    Keys {
        path: PathBuf,
        source: KeyTableError,
    },
    /// The key table is a table, but not BHGUI's: it gives the start
    /// position the key `start`, not [`START_KEY`].
    #[error(
        "{path}: not BHGUI's key table: it gives the start position the key {start:#018x}, \
         .obk books give it {START_KEY:#018x}",
        path = .path.display()
    )]
    ForeignKeys { path: PathBuf, start: u64 },
    /// The book is not a SQLite database with a `bhobk` table of the
    /// expected columns.
    #[error("{path}: not a BHGUI .obk book: {source}", path = .path.display())]
    NotObk {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// SQLite failed reading or writing the book.
    #[error("{path}: {source}", path = .path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The file system failed.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a text is not a key table (see [`ObkKeys::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyTableError {
    /// A token is not a number that fits 64 bits.
    #[error("line {line}: `{token}` is not a 64-bit number")]
    Number {
        /// The line, from 1.
        line: usize,
        /// The token.
        token: String,
    },
    /// There are not as many numbers as a table has.
    #[error(
        "{found} numbers; a key table has {total} ({PIECE_KEYS} piece-square keys and the side key)",
        total = PIECE_KEYS + 1
    )]
    Count {
        /// How many there are.
        found: usize,
    },
}

/// BHGUI's Zobrist keys: one per (piece, 16x16 square), and the side key
/// XORed in when Red is to move.
#[derive(Clone)]
pub struct ObkKeys {
    pieces: Box<[u64; PIECE_KEYS]>,
    red_to_move: u64,
}

impl std::fmt::Debug for ObkKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ObkKeys(start {:#018x})",
            self.key(&Position::start(), false)
        )
    }
}

impl ObkKeys {
    /// Keys from their values: the 3,584 piece-square keys (piece-major,
    /// see [`PIECE_KEYS`]) and the side key. Not checked: any table makes
    /// books that readers with the same table read.
    pub fn new(pieces: Box<[u64; PIECE_KEYS]>, red_to_move: u64) -> ObkKeys {
        ObkKeys {
            pieces,
            red_to_move,
        }
    }

    /// Reads BHGUI's key table from a text file: 3,585 numbers, decimal or
    /// `0x` hexadecimal, separated by white space or commas (the piece-square
    /// keys, then the side key). Refused unless it gives the start position
    /// the key real books give it ([`START_KEY`]).
    ///
    /// # Errors
    ///
    /// The file cannot be read ([`ObkError::Io`]), is not a table of
    /// numbers ([`ObkError::Keys`]), or is not BHGUI's
    /// ([`ObkError::ForeignKeys`]).
    pub fn read(path: &Path) -> Result<ObkKeys, ObkError> {
        let path_buf = || path.to_path_buf();
        let text = std::fs::read_to_string(path).map_err(|source| ObkError::Io {
            path: path_buf(),
            source,
        })?;
        let keys = ObkKeys::parse(&text).map_err(|source| ObkError::Keys {
            path: path_buf(),
            source,
        })?;
        let start = keys.key(&Position::start(), false);
        if start != START_KEY {
            return Err(ObkError::ForeignKeys {
                path: path_buf(),
                start,
            });
        }
        Ok(keys)
    }

    /// Parses the numbers of a key table (see [`ObkKeys::read`]).
    ///
    /// # Errors
    ///
    /// A token is not a 64-bit number, or there are not 3,585 of them.
    pub fn parse(text: &str) -> Result<ObkKeys, KeyTableError> {
        let mut values = Vec::with_capacity(PIECE_KEYS + 1);
        for (line, content) in text.lines().enumerate() {
            for token in content
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
            {
                let value = match token.strip_prefix("0x").or(token.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => token
                        .parse::<u64>()
                        .or_else(|e| token.parse::<i64>().map(|v| v as u64).map_err(|_| e)),
                };
                let value = value.map_err(|_| KeyTableError::Number {
                    line: line + 1,
                    token: token.to_string(),
                })?;
                values.push(value);
            }
        }
        if values.len() != PIECE_KEYS + 1 {
            return Err(KeyTableError::Count {
                found: values.len(),
            });
        }
        let red_to_move = values[PIECE_KEYS];
        let pieces: Box<[u64; PIECE_KEYS]> = values[..PIECE_KEYS]
            .to_vec()
            .into_boxed_slice()
            .try_into()
            .expect("length checked");
        Ok(ObkKeys::new(pieces, red_to_move))
    }

    /// The key of `pos`, or of its left-right mirror image if `mirror`.
    pub fn key(&self, pos: &Position, mirror: bool) -> u64 {
        let mut key = if pos.turn() == Color::Red {
            self.red_to_move
        } else {
            0
        };
        for (sq, piece) in pos.board().pieces() {
            let sq = if mirror { sq.mirror() } else { sq };
            let index = piece.color.index() * 7 + piece.role as usize;
            key ^= self.pieces[index * 256 + usize::from(board_square(sq))];
        }
        key
    }
}

/// The 16x16 square of one of ours: files from 3, rows from 3 counted
/// from Black's back rank.
fn board_square(sq: Square) -> u8 {
    (9 - sq.rank() + 3) * 16 + sq.file() + 3
}

/// One of ours from a 16x16 square, if it is on the board.
fn square_of(sq: u8) -> Option<Square> {
    let (file, row) = ((sq & 15).checked_sub(3)?, (sq >> 4).checked_sub(3)?);
    if file > 8 || row > 9 {
        return None;
    }
    Square::new(file, 9 - row)
}

/// A move as `.obk` books write it: from square << 8 | to square.
pub fn encode_move(m: Move) -> u16 {
    u16::from(board_square(m.from())) << 8 | u16::from(board_square(m.to()))
}

/// The move of a `vmove`, if both squares are on the board.
pub fn decode_move(vmove: i64) -> Option<Move> {
    let v = u16::try_from(vmove).ok()?;
    Some(Move::new(square_of((v >> 8) as u8)?, square_of(v as u8)?))
}

/// Writes the walked positions as an `.obk` book, each position as it
/// stands with its moves' games and results (from the mover's side),
/// `vscore` the move's weight in our books, whole or not at all. Returns
/// the rows written.
///
/// # Errors
///
/// SQLite or the file system fails; nothing is written at `path` then.
pub fn write_obk(path: &Path, keys: &ObkKeys, walked: &Walked) -> Result<usize, ObkError> {
    let sqlite = |source| ObkError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let mut rows: Vec<(u64, u16, &BookMove)> = walked
        .iter()
        .flat_map(|(pos, moves)| {
            let key = keys.key(pos, false);
            moves.iter().map(move |m| (key, encode_move(m.mv), m))
        })
        .collect();
    rows.sort_by_key(|r| (r.0, std::cmp::Reverse(export_weight(r.2)), r.1));
    rows.dedup_by_key(|r| (r.0, r.1));
    let written = xqstore::write_whole(path, |temp, _| {
        let fill = || -> rusqlite::Result<usize> {
            let mut db = Connection::open(temp)?;
            // The file is written whole and renamed into place: no journal.
            db.pragma_update(None, "journal_mode", "OFF")?;
            db.pragma_update(None, "synchronous", "OFF")?;
            let tx = db.transaction()?;
            tx.execute(SCHEMA, [])?;
            {
                let mut insert = tx.prepare(
                    "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid, vmemo, vindex) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, NULL, 0)",
                )?;
                for (key, vmove, m) in &rows {
                    // SQLite integers are signed: a key of 2^63 and above is
                    // stored as the same 64 bits, negative.
                    insert.execute(params![
                        *key as i64,
                        vmove,
                        export_weight(m),
                        m.wins,
                        m.draws,
                        m.losses
                    ])?;
                }
            }
            tx.execute("CREATE INDEX idxkey ON bhobk(vkey)", [])?;
            tx.commit()?;
            db.close().map_err(|(_, e)| e)?;
            Ok(rows.len())
        };
        fill().map_err(std::io::Error::other)
    });
    written.map_err(|e| match e.downcast::<rusqlite::Error>() {
        Ok(source) => sqlite(source),
        Err(source) => ObkError::Io {
            path: path.to_path_buf(),
            source,
        },
    })
}

/// One usable row of an `.obk` book.
#[derive(Clone, Copy, Debug)]
struct Row {
    mv: Move,
    score: i64,
    wins: u32,
    draws: u32,
    losses: u32,
}

/// An `.obk` book, read whole into memory (a conversion reads every row).
#[derive(Debug)]
pub struct ObkBook {
    path: PathBuf,
    keys: ObkKeys,
    /// Rows by key stored as an integer (a negative one as its 64 bits).
    by_key: HashMap<u64, Vec<Row>>,
    /// Rows by the bits of a key stored as a real number: some books store
    /// keys of 2^63 and above so, either as the key's bits or as the key
    /// rounded to the nearest double.
    by_real: HashMap<u64, Vec<Row>>,
    rows: usize,
    skipped: usize,
}

/// Whether `path` is a SQLite database, as `.obk` books are, by its first
/// bytes: what a reader of any book checks before [`ObkBook::open`].
pub fn is_obk_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

impl ObkBook {
    /// Opens and reads the book at `path`, probed with `keys`. Rows with
    /// `vvalid` 0 are left out; rows whose key or move cannot be read are
    /// counted in [`ObkBook::skipped`].
    ///
    /// # Errors
    ///
    /// The file is missing ([`ObkError::Io`]) or is not a SQLite database
    /// with a `bhobk` table of the expected columns ([`ObkError::NotObk`]).
    pub fn open(path: &Path, keys: &ObkKeys) -> Result<ObkBook, ObkError> {
        let not_obk = |source| ObkError::NotObk {
            path: path.to_path_buf(),
            source,
        };
        if !path.is_file() {
            return Err(ObkError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
        let db =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(not_obk)?;
        let mut query = db
            .prepare("SELECT vkey, vmove, vscore, vwin, vdraw, vlost, vvalid FROM bhobk")
            .map_err(not_obk)?;
        let mut book = ObkBook {
            path: path.to_path_buf(),
            keys: keys.clone(),
            by_key: HashMap::new(),
            by_real: HashMap::new(),
            rows: 0,
            skipped: 0,
        };
        let mut rows = query.query([]).map_err(not_obk)?;
        while let Some(row) = rows.next().map_err(not_obk)? {
            let int = |i: usize| match row.get_ref(i) {
                Ok(ValueRef::Integer(v)) => Some(v),
                Ok(ValueRef::Real(v)) if v.fract() == 0.0 => Some(v as i64),
                Ok(ValueRef::Null) => Some(0),
                _ => None,
            };
            let count = |i: usize| int(i).map(|v| v.clamp(0, i64::from(u32::MAX)) as u32);
            if int(6) == Some(0) && !matches!(row.get_ref(6), Ok(ValueRef::Null)) {
                continue;
            }
            let parsed = (|| {
                let mv = decode_move(int(1)?)?;
                let stats = Row {
                    mv,
                    score: int(2)?,
                    wins: count(3)?,
                    draws: count(4)?,
                    losses: count(5)?,
                };
                match row.get_ref(0).ok()? {
                    ValueRef::Integer(k) => Some((false, k as u64, stats)),
                    ValueRef::Real(k) => Some((true, k.to_bits(), stats)),
                    ValueRef::Text(t) => {
                        let t = std::str::from_utf8(t).ok()?.trim();
                        let k = t
                            .parse::<u64>()
                            .or_else(|_| t.parse::<i64>().map(|v| v as u64))
                            .ok()?;
                        Some((false, k, stats))
                    }
                    _ => None,
                }
            })();
            match parsed {
                Some((real, key, stats)) => {
                    let map = if real {
                        &mut book.by_real
                    } else {
                        &mut book.by_key
                    };
                    map.entry(key).or_default().push(stats);
                    book.rows += 1;
                }
                None => book.skipped += 1,
            }
        }
        Ok(book)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rows read.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Rows left out because their key or move could not be read.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The legal book moves of `pos`: those stored under its key, else
    /// those stored under its mirror image's, mirrored back. Games are the
    /// move's wins, draws and losses; a move with none counts its score (at
    /// least 1) as games of unknown result.
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        let legal = pos.legal_moves();
        for mirror in [false, true] {
            let rows = self.rows_of(self.keys.key(pos, mirror));
            let moves: Vec<BookMove> = rows
                .iter()
                .take(MAX_ROWS_PER_KEY)
                .map(|r| {
                    let mv = if mirror { r.mv.mirror() } else { r.mv };
                    let played = r.wins.saturating_add(r.draws).saturating_add(r.losses);
                    let games = if played == 0 {
                        r.score.clamp(1, i64::from(u32::MAX)) as u32
                    } else {
                        played
                    };
                    BookMove {
                        mv,
                        games,
                        wins: r.wins,
                        draws: r.draws,
                        losses: r.losses,
                    }
                })
                .filter(|m| legal.contains(&m.mv))
                .collect();
            if !moves.is_empty() {
                return moves;
            }
        }
        Vec::new()
    }

    fn rows_of(&self, key: u64) -> Vec<Row> {
        let mut rows = Vec::new();
        for found in [
            self.by_key.get(&key),
            self.by_real.get(&key),
            self.by_real.get(&(key as f64).to_bits()),
        ]
        .into_iter()
        .flatten()
        {
            for r in found {
                if !rows.iter().any(|o: &Row| o.mv == r.mv) {
                    rows.push(*r);
                }
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key table of our own (not BHGUI's): SplitMix64 values.
    pub(crate) fn test_keys() -> ObkKeys {
        let mut rng = xqcore::SplitMix64::new(0x1234_5678_9abc_def0);
        let pieces: Vec<u64> = (0..PIECE_KEYS).map(|_| rng.next_u64()).collect();
        ObkKeys::new(
            pieces.into_boxed_slice().try_into().unwrap(),
            rng.next_u64(),
        )
    }

    #[test]
    fn moves_encode_as_documented() {
        let start = Position::start();
        // h2e2 is 0xAAA7 and h9g7 0x3A59 in the format's description.
        let h2e2 = start.parse_move("h2e2").unwrap();
        assert_eq!(encode_move(h2e2), 0xAAA7);
        let mut after = start.clone();
        after.make_move(h2e2);
        let h9g7 = after.parse_move("h9g7").unwrap();
        assert_eq!(encode_move(h9g7), 0x3A59);
        for from in Square::all() {
            for to in [Square::new(0, 0).unwrap(), Square::new(8, 9).unwrap()] {
                let m = Move::new(from, to);
                assert_eq!(decode_move(i64::from(encode_move(m))), Some(m));
            }
        }
        assert_eq!(decode_move(0), None);
        assert_eq!(decode_move(-1), None);
        assert_eq!(decode_move(0x1_0000), None);
    }

    #[test]
    fn keys_stored_every_way_books_store_them_are_found() {
        let keys = test_keys();
        let start = Position::start();
        let moves = ["h2e2", "c3c4", "b0c2", "h0g2", "g3g4"].map(|m| start.parse_move(m).unwrap());
        // The start's key with its top bit set, as the books' quirks store it.
        let key = keys.key(&start, false) | 1 << 63;
        let keys = ObkKeys::new(
            keys.pieces.clone(),
            keys.red_to_move ^ (key ^ keys.key(&start, false)),
        );
        assert_eq!(keys.key(&start, false), key);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("quirks.obk");
        let db = Connection::open(&path).unwrap();
        db.execute(SCHEMA, []).unwrap();
        let insert = |vkey: rusqlite::types::Value, m: Move, valid: i64| {
            db.execute(
                "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid) VALUES (?1, ?2, 5, 3, 2, 1, ?3)",
                params![vkey, encode_move(m), valid],
            )
            .unwrap();
        };
        use rusqlite::types::Value as V;
        insert(V::Integer(key as i64), moves[0], 1);
        insert(V::Real(f64::from_bits(key)), moves[1], 1);
        insert(V::Real(key as f64), moves[2], 1);
        insert(V::Text(key.to_string()), moves[3], 1);
        insert(V::Integer(key as i64), moves[4], 0);
        insert(
            V::Integer(key as i64),
            Move::new(Square::new(0, 0).unwrap(), Square::new(0, 0).unwrap()),
            1,
        );
        drop(db);
        let book = ObkBook::open(&path, &keys).unwrap();
        let mut found: Vec<Move> = book.probe(&start).iter().map(|m| m.mv).collect();
        found.sort();
        let mut want = moves[..4].to_vec();
        want.sort();
        // The invalid row is left out; the null move is no legal move.
        assert_eq!(found, want);
        assert_eq!(book.probe(&start)[0].wins, 3);
        // A database without the table is refused, naming the file.
        let other = dir.path().join("other.obk");
        Connection::open(&other)
            .unwrap()
            .execute("CREATE TABLE t(x)", [])
            .unwrap();
        let err = ObkBook::open(&other, &keys).unwrap_err();
        let ObkError::NotObk { source, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(
            err.to_string(),
            format!("{}: not a BHGUI .obk book: {source}", other.display())
        );
    }

    #[test]
    fn key_tables_are_parsed_and_checked() {
        let keys = test_keys();
        let mut text = String::new();
        for (i, v) in keys.pieces.iter().enumerate() {
            // Decimal, hexadecimal and negative decimal all read.
            match i % 3 {
                0 => text += &format!("{v}, "),
                1 => text += &format!("{v:#x}\n"),
                _ => text += &format!("{} ", *v as i64),
            }
        }
        text += &keys.red_to_move.to_string();
        let parsed = ObkKeys::parse(&text).unwrap();
        assert_eq!(parsed.pieces, keys.pieces);
        assert_eq!(parsed.red_to_move, keys.red_to_move);
        assert_eq!(
            ObkKeys::parse("1 2 3").unwrap_err().to_string(),
            "3 numbers; a key table has 3585 (3584 piece-square keys and the side key)"
        );
        assert_eq!(
            ObkKeys::parse("1\n0xg").unwrap_err(),
            KeyTableError::Number {
                line: 2,
                token: "0xg".to_string()
            }
        );
        // A table of the right size but not BHGUI's is refused by `read`,
        // naming the file once.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.txt");
        std::fs::write(&path, &text).unwrap();
        let err = ObkKeys::read(&path).unwrap_err().to_string();
        let start = keys.key(&Position::start(), false);
        assert_eq!(
            err,
            format!(
                "{}: not BHGUI's key table: it gives the start position the key {start:#018x}, \
                 .obk books give it 0x628d04d7c9c144ae",
                path.display()
            )
        );
    }

    #[test]
    fn a_key_table_that_does_not_parse_is_named_once_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.txt");
        std::fs::write(&path, "1, 2\n3 4x 5\n").unwrap();
        let err = ObkKeys::read(&path).unwrap_err();
        assert!(matches!(
            err,
            ObkError::Keys {
                source: KeyTableError::Number { line: 2, .. },
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            format!("{}: line 2: `4x` is not a 64-bit number", path.display())
        );
        let missing = ObkKeys::read(&dir.path().join("none.txt")).unwrap_err();
        assert!(matches!(missing, ObkError::Io { .. }), "{missing:?}");
    }
}
