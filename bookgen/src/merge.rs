//! `bookgen merge`: books added together, the statistics of a move that
//! several books share summed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use xqbook::{Book, BookError, BookMove};

/// The positions of the books at `paths`, each with its moves, the
/// statistics of a (position, move) summed over the books: in key order,
/// a position's moves most played first (then by move), as
/// [`xqbook::write_book`] takes them.
///
/// # Errors
///
/// A book cannot be opened, or a block of it cannot be read; the error
/// names the book.
pub fn merge_books(paths: &[PathBuf]) -> Result<Vec<(u64, Vec<BookMove>)>, BookError> {
    let mut all: BTreeMap<u64, BTreeMap<u16, BookMove>> = BTreeMap::new();
    for path in paths {
        let book = Book::open(path)?;
        for block in book.positions() {
            for (key, moves) in block? {
                let entry = all.entry(key).or_default();
                for m in moves {
                    let slot = entry.entry(m.mv.to_u16()).or_insert(BookMove {
                        games: 0,
                        wins: 0,
                        draws: 0,
                        losses: 0,
                        ..m
                    });
                    slot.games += m.games;
                    slot.wins += m.wins;
                    slot.draws += m.draws;
                    slot.losses += m.losses;
                }
            }
        }
    }
    Ok(all
        .into_iter()
        .map(|(key, moves)| {
            let mut moves: Vec<BookMove> = moves.into_values().collect();
            moves.sort_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
            (key, moves)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use xqbook::{BookBuilder, BuildConfig, GameResult};
    use xqcore::Position;

    use super::*;

    /// A book of the start position's moves, each played `games` times
    /// with `result`.
    fn book(dir: &std::path::Path, name: &str, moves: &[(&str, u32, GameResult)]) -> PathBuf {
        let start = Position::start();
        let mut builder = BookBuilder::new(BuildConfig {
            min_games: 1,
            max_ply: 0,
            ..BuildConfig::default()
        });
        for &(mv, games, result) in moves {
            for _ in 0..games {
                let mv = start.parse_move(mv).unwrap();
                builder.add_game(&start, &[mv], result).unwrap();
            }
        }
        let path = dir.join(name);
        builder.write(&path, name).unwrap();
        path
    }

    #[test]
    fn shared_moves_add_up_and_the_most_played_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let a = book(
            dir.path(),
            "a.xqb",
            &[
                ("h2e2", 3, GameResult::RedWins),
                ("b0c2", 5, GameResult::Draw),
            ],
        );
        let b = book(dir.path(), "b.xqb", &[("h2e2", 4, GameResult::BlackWins)]);
        let merged = merge_books(&[a, b]).unwrap();
        assert_eq!(merged.len(), 1);
        let (key, moves) = &merged[0];
        assert_eq!(*key, xqbook::book_key(&Position::start()).0);
        let found: Vec<_> = moves
            .iter()
            .map(|m| (m.mv.to_string(), m.games, m.wins, m.draws, m.losses))
            .collect();
        assert_eq!(
            found,
            [
                ("h2e2".to_string(), 7, 3, 0, 4),
                ("b0c2".to_string(), 5, 0, 5, 0)
            ]
        );
        let missing = merge_books(&[dir.path().join("none.xqb")]).unwrap_err();
        assert!(missing.to_string().contains("none.xqb"), "{missing}");
    }
}
