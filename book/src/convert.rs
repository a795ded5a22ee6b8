//! Books between formats: ours, ElephantEye's `BOOK.DAT` and (with
//! `bookgen`'s obk module) BHGUI's `.obk`.
//!
//! The other formats key positions by hashes, so their positions cannot be
//! listed; a conversion walks the book instead, from the start position
//! through every book move, meeting each position as a player would. A
//! position no book line reaches is left behind (an opening book has
//! none in practice); [`walk`] counts what it found.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::Path;

use xqcore::{Move, Position};

use crate::any::AnyBook;
use crate::eleeye::{board_move, lock};
use crate::{book_key, BookMove};

/// Positions of a book with their moves (from the mover's side), as met
/// from the start position.
pub type Walked = Vec<(Position, Vec<BookMove>)>;

/// The moves of `pos` in `book` as statistics: ours as they are, a weight
/// alone (ElephantEye's) as that many games of unknown result.
pub fn book_moves(book: &AnyBook, pos: &Position) -> Vec<BookMove> {
    book.probe(pos)
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            m.stats.unwrap_or(BookMove {
                mv: m.mv,
                games: m.weight,
                wins: 0,
                draws: 0,
                losses: 0,
            })
        })
        .collect()
}

/// Every book position reachable from the start through book moves and
/// up to `max_gap` moves in a row that are not in the book (a book built
/// from games drops rare moves, and the positions after them can still be
/// in it), a position and its mirror image once; at most `limit`.
pub fn walk(probe: impl Fn(&Position) -> Vec<BookMove>, max_gap: u32, limit: usize) -> Walked {
    // The smallest gap each position was reached with: reached again with a
    // smaller one, it is explored again, further.
    let mut best_gap: HashMap<u64, u32> = HashMap::new();
    let mut queue = VecDeque::from([(Position::start(), 0u32)]);
    let mut out = Vec::new();
    let mut listed = HashSet::new();
    while let Some((pos, gap)) = queue.pop_front() {
        let key = book_key(&pos).0;
        if best_gap.get(&key).is_some_and(|&g| g <= gap) {
            continue;
        }
        best_gap.insert(key, gap);
        let moves = probe(&pos);
        if !moves.is_empty() && out.len() < limit && listed.insert(key) {
            out.push((pos.clone(), moves.clone()));
        }
        for &m in pos.legal_moves().iter() {
            let in_book = moves.iter().any(|b| b.mv == m);
            let next_gap = if in_book { 0 } else { gap + 1 };
            if next_gap <= max_gap {
                let mut next = pos.clone();
                next.make_move(m);
                queue.push_back((next, next_gap));
            }
        }
    }
    out
}

/// The walked positions as our book's entries (keyed by [`book_key`],
/// moves mirrored with their position, sorted by key), for
/// [`crate::write_book`].
pub fn our_entries(walked: &Walked) -> Vec<(u64, Vec<BookMove>)> {
    let mut entries: Vec<(u64, Vec<BookMove>)> = walked
        .iter()
        .map(|(pos, moves)| {
            let (key, mirrored) = book_key(pos);
            let mut moves: Vec<BookMove> = moves
                .iter()
                .map(|&m| if mirrored { m.mirror() } else { m })
                .collect();
            moves.sort_unstable_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
            moves.truncate(255);
            (key, moves)
        })
        .collect();
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    entries
}

/// Writes the walked positions as an ElephantEye `BOOK.DAT`: 8-byte
/// records (lock, move, weight) sorted by lock, each position in the
/// orientation with the smaller lock, as ElephantEye keeps them; weights
/// are our moves' weights, at most 65,535. Written to a temporary file
/// beside `path` and renamed. Returns the records written.
pub fn write_eleeye(path: &Path, walked: &Walked) -> std::io::Result<usize> {
    let mut records: Vec<(u32, u16, u16)> = Vec::new();
    for (pos, moves) in walked {
        let (direct, mirrored) = (lock(pos, false), lock(pos, true));
        let mirror = mirrored < direct;
        for m in moves {
            let mv: Move = if mirror { m.mv.mirror() } else { m.mv };
            let weight = export_weight(m).min(u32::from(u16::MAX)) as u16;
            records.push((direct.min(mirrored), board_move(mv), weight.max(1)));
        }
    }
    records.sort_unstable();
    records.dedup_by_key(|r| (r.0, r.1));
    let mut bytes = Vec::with_capacity(records.len() * 8);
    for (lock, mv, weight) in &records {
        bytes.extend_from_slice(&lock.to_le_bytes());
        bytes.extend_from_slice(&mv.to_le_bytes());
        bytes.extend_from_slice(&weight.to_le_bytes());
    }
    write_whole(path, &bytes)?;
    Ok(records.len())
}

/// The weight a move gets in a format that keeps weights only: ours
/// ([`BookMove::weight`]), or its games when no result is known (a move
/// read from such a format keeps its weight).
pub fn export_weight(m: &BookMove) -> u32 {
    if m.wins + m.draws + m.losses == 0 {
        m.games
    } else {
        m.weight()
    }
}

/// Writes `bytes` to `path` whole or not at all.
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    xqstore::write_whole(path, |_, file| file.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eleeye::EleeyeBook;

    fn data(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data")
            .join(name)
    }

    #[test]
    fn elephant_eye_books_round_trip_through_a_walk() {
        let original = EleeyeBook::open(&data("eleeye/BOOK.DAT")).unwrap();
        let book = AnyBook::Eleeye(EleeyeBook::open(&data("eleeye/BOOK.DAT")).unwrap());
        let walked = walk(|p| book_moves(&book, p), 1, usize::MAX);
        assert!(walked.len() > 1_000, "{} positions", walked.len());
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("BOOK.DAT");
        let written = write_eleeye(&copy, &walked).unwrap();
        let copy = EleeyeBook::open(&copy).unwrap();
        assert_eq!(copy.len(), written);
        // Every walked position probes the same moves and weights.
        for (pos, _) in &walked {
            let mut a = original.probe(pos);
            let mut b = copy.probe(pos);
            a.sort();
            b.sort();
            assert_eq!(a, b, "{}", pos.fen());
        }
        // The walk reached most of the file's records (the rest: positions
        // no line from the start reaches, or illegal moves).
        assert!(
            written * 10 >= original.len() * 8,
            "{written} of {}",
            original.len()
        );
    }
}
