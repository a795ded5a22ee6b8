//! ElephantEye's `BOOK.DAT`, which users of that engine have: 8-byte
//! records (32-bit lock, move, weight) sorted by lock, keyed by
//! ElephantEye's own RC4-derived Zobrist locks.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xqcore::{Color, Move, Position, Square};

/// Why a `BOOK.DAT` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EleeyeError {
    /// The file cannot be read.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a sequence of 8-byte records sorted by lock.
    #[error("{path}: not an ElephantEye book: {reason}", path = .path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// An ElephantEye book, read into memory (such books are small).
#[derive(Debug)]
pub struct EleeyeBook {
    path: PathBuf,
    /// (lock, move, weight), sorted by lock.
    records: Vec<(u32, u16, u16)>,
}

impl EleeyeBook {
    /// Reads and checks a `BOOK.DAT`.
    pub fn open(path: &Path) -> Result<EleeyeBook, EleeyeError> {
        let bytes = std::fs::read(path).map_err(|source| EleeyeError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let malformed = |reason: String| EleeyeError::Malformed {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.is_empty() || bytes.len() % 8 != 0 {
            return Err(malformed(format!(
                "{} bytes is not a whole number of 8-byte records",
                bytes.len()
            )));
        }
        let records: Vec<_> = bytes
            .chunks_exact(8)
            .map(|r| {
                (
                    u32::from_le_bytes([r[0], r[1], r[2], r[3]]),
                    u16::from_le_bytes([r[4], r[5]]),
                    u16::from_le_bytes([r[6], r[7]]),
                )
            })
            .collect();
        if let Some(i) = records.windows(2).position(|w| w[1].0 < w[0].0) {
            return Err(malformed(format!("record {} is out of lock order", i + 1)));
        }
        Ok(EleeyeBook {
            path: path.to_path_buf(),
            records,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records in the book.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Positions in the book (distinct locks; a position and its mirror
    /// image are two).
    pub fn positions(&self) -> usize {
        self.records.windows(2).filter(|w| w[0].0 != w[1].0).count()
            + usize::from(!self.records.is_empty())
    }

    /// Whether the book has no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The legal book moves of `pos` with their weights, as ElephantEye
    /// probes: the position first, then its mirror image with the moves
    /// mirrored back.
    pub fn probe(&self, pos: &Position) -> Vec<(Move, u16)> {
        let direct = self.moves_at(lock(pos, false), false);
        let moves = if direct.is_empty() {
            self.moves_at(lock(pos, true), true)
        } else {
            direct
        };
        let legal = pos.legal_moves();
        moves
            .into_iter()
            .filter(|(m, _)| legal.contains(m))
            .collect()
    }

    fn moves_at(&self, lock: u32, mirrored: bool) -> Vec<(Move, u16)> {
        let start = self.records.partition_point(|r| r.0 < lock);
        self.records[start..]
            .iter()
            .take_while(|r| r.0 == lock)
            .filter_map(|&(_, mv, weight)| {
                let m = decode_move(mv)?;
                Some((if mirrored { m.mirror() } else { m }, weight))
            })
            .collect()
    }
}

/// ElephantEye's book lock of `pos` (of its mirror image if `mirror`).
pub(crate) fn lock(pos: &Position, mirror: bool) -> u32 {
    let t = locks();
    let mut lock = if pos.turn() == Color::Black {
        t.side
    } else {
        0
    };
    for (sq, piece) in pos.board().pieces() {
        let sq = if mirror { sq.mirror() } else { sq };
        lock ^= t.pieces[piece.index()][board_square(sq)];
    }
    lock
}

/// ElephantEye's 16x16 square of one of ours.
fn board_square(sq: Square) -> usize {
    let (file, row_from_top) = (sq.file() as usize, 9 - sq.rank() as usize);
    (file + 3) + 16 * (row_from_top + 3)
}

/// One of ours from ElephantEye's 16x16 square, if on the board.
fn square_of(sq: u8) -> Option<Square> {
    let (file, row) = ((sq & 15).checked_sub(3)?, (sq >> 4).checked_sub(3)?);
    if file > 8 || row > 9 {
        return None;
    }
    Square::new(file, 9 - row)
}

/// A move as ElephantEye writes it: from square | to square << 8.
pub(crate) fn board_move(m: Move) -> u16 {
    board_square(m.from()) as u16 | (board_square(m.to()) as u16) << 8
}

fn decode_move(mv: u16) -> Option<Move> {
    let from = square_of(mv as u8)?;
    let to = square_of((mv >> 8) as u8)?;
    Some(Move::new(from, to))
}

/// The `lock1` values of ElephantEye's Zobrist tables.
struct Locks {
    side: u32,
    pieces: [[u32; 256]; 14],
}

fn locks() -> &'static Locks {
    static LOCKS: OnceLock<Box<Locks>> = OnceLock::new();
    LOCKS.get_or_init(|| {
        let mut rc4 = Rc4::new(&[0; 4]);
        // Each table entry draws (key, lock0, lock1); books use lock1.
        let mut lock1 = || {
            rc4.next_u32();
            rc4.next_u32();
            rc4.next_u32()
        };
        let side = lock1();
        let mut pieces = [[0u32; 256]; 14];
        for row in pieces.iter_mut() {
            for v in row.iter_mut() {
                *v = lock1();
            }
        }
        Box::new(Locks { side, pieces })
    })
}

/// The RC4 keystream, from which ElephantEye draws its Zobrist values.
struct Rc4 {
    s: [u8; 256],
    x: u8,
    y: u8,
}

impl Rc4 {
    fn new(key: &[u8]) -> Rc4 {
        let mut s = [0u8; 256];
        for (i, v) in s.iter_mut().enumerate() {
            *v = i as u8;
        }
        let mut j = 0u8;
        for i in 0..256 {
            j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
            s.swap(i, j as usize);
        }
        Rc4 { s, x: 0, y: 0 }
    }

    fn next_byte(&mut self) -> u8 {
        self.x = self.x.wrapping_add(1);
        self.y = self.y.wrapping_add(self.s[self.x as usize]);
        self.s.swap(self.x as usize, self.y as usize);
        self.s[self.s[self.x as usize].wrapping_add(self.s[self.y as usize]) as usize]
    }

    /// Four bytes, the first lowest.
    fn next_u32(&mut self) -> u32 {
        u32::from_le_bytes([
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_has_the_documented_lock() {
        assert_eq!(lock(&Position::start(), false), 0x0526_56d5);
        // Symmetric: the mirror's lock is the same.
        assert_eq!(lock(&Position::start(), true), 0x0526_56d5);
    }

    #[test]
    fn squares_and_moves_convert_both_ways() {
        for sq in Square::all() {
            assert_eq!(square_of(board_square(sq) as u8), Some(sq));
        }
        let h2e2: Move = Position::start().parse_move("h2e2").unwrap();
        let raw = board_square(h2e2.from()) as u16 | (board_square(h2e2.to()) as u16) << 8;
        assert_eq!(decode_move(raw), Some(h2e2));
        assert_eq!(square_of(0), None);
        assert_eq!(square_of(0xff), None);
    }
}
