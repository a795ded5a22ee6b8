//! The work behind `bookgen`: finding record files, counting their games
//! into a book (read by [`xqrecords::read_file`]), and reporting what was
//! skipped.

pub mod analyse;
mod budget;
pub mod db;
mod error;
mod external;
pub mod journal;
pub mod obk;
pub mod quality;

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xqbook::{game_fingerprint, retain_unique, BookBuilder, BookError, BuildConfig};
use xqrecords::pgn::SkipReason;

/// A record file or directory that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}", path = .path.display())]
pub struct RecordFilesError {
    /// The file or directory.
    pub path: PathBuf,
    /// What the system said.
    pub source: io::Error,
}

impl RecordFilesError {
    /// The error for `path`, given what the system says of it.
    fn at(path: &Path) -> impl FnOnce(io::Error) -> RecordFilesError + '_ {
        |source| RecordFilesError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Record files under `paths`: files named on the command line as they
/// are, directories searched recursively for `.pgn` and `.xqf` files, in
/// name order.
///
/// # Errors
///
/// A path that does not exist, or a directory that cannot be listed; the
/// error names it.
pub fn record_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RecordFilesError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = fs::metadata(p).map_err(RecordFilesError::at(p))?;
        if meta.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), RecordFilesError> {
    let read = fs::read_dir(dir).map_err(RecordFilesError::at(dir))?;
    // Entries that vanish or cannot be read while listing are passed over.
    let mut entries: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if is_record(&p) {
            out.push(p);
        }
    }
    Ok(())
}

fn is_record(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn") || e.eq_ignore_ascii_case("xqf"))
}

/// What a build did, for the summary line.
#[derive(Debug, Default)]
pub struct Report {
    /// Files read.
    pub files: usize,
    /// Games read.
    pub games: usize,
    /// Games skipped, by reason.
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Duplicate games dropped.
    pub duplicates: usize,
    /// Positions and entries written.
    pub book: xqbook::BuildSummary,
}

/// A game as a book needs it: start, legal moves, result.
pub type GameMoves = (xqcore::Position, Vec<xqcore::Move>, xqcore::GameResult);

/// Counts games into a builder in parallel, after dropping duplicates.
pub fn count_games(mut games: Vec<GameMoves>, config: BuildConfig) -> (BookBuilder, usize) {
    let duplicates = retain_unique(&mut games, |g| game_fingerprint(&g.0, &g.1));
    let builder = games
        .par_chunks(512)
        .map(|chunk| {
            let mut b = BookBuilder::new(config);
            for (start, moves, result) in chunk {
                // Records are checked as they are read: every move is legal.
                b.add_game(start, moves, *result)
                    .expect("moves read from a record are legal");
            }
            b
        })
        .reduce(
            || BookBuilder::new(config),
            |mut a, b| {
                a.merge(b);
                a
            },
        );
    (builder, duplicates)
}

/// Positions a book knows, walked from the start along its moves
/// (breadth first), up to `limit`: what a game in the book probes.
///
/// # Errors
///
/// A block of the book cannot be read; the error names the book.
pub fn book_positions(
    book: &xqbook::Book,
    limit: usize,
) -> Result<Vec<xqcore::Position>, BookError> {
    let mut out = vec![xqcore::Position::start()];
    let mut next = 0;
    while next < out.len() && out.len() < limit {
        let pos = out[next].clone();
        next += 1;
        for m in book.probe(&pos)? {
            let mut child = pos.clone();
            child.make_move(m.mv);
            out.push(child);
            if out.len() == limit {
                break;
            }
        }
    }
    Ok(out)
}

/// Times one probe of each position, after a first pass that warms the
/// caches: the median and the 90th percentile, in microseconds.
///
/// # Errors
///
/// A block of the book cannot be read; the error names the book.
pub fn probe_latency(
    book: &xqbook::Book,
    positions: &[xqcore::Position],
) -> Result<(f64, f64), BookError> {
    for p in positions {
        book.probe(p)?;
    }
    let mut micros: Vec<f64> = positions
        .iter()
        .map(|p| {
            let t = std::time::Instant::now();
            let found = book.probe(p);
            let elapsed = t.elapsed().as_secs_f64() * 1e6;
            std::hint::black_box(found).map(|_| elapsed)
        })
        .collect::<Result<_, _>>()?;
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() - 1) as f64 * q) as usize];
    Ok((at(0.5), at(0.9)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_searched_for_pgn_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.pgn", "a.PGN", "notes.txt", "sub/c.pgn"] {
            fs::write(dir.path().join(f), "").unwrap();
        }
        let files = record_files(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["a.PGN", "b.pgn", "sub/c.pgn"]);
        // A missing path is named once, with the system's reason.
        let none = dir.path().join("none");
        let missing = record_files(std::slice::from_ref(&none)).unwrap_err();
        assert_eq!(missing.source.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            missing.to_string(),
            format!("{}: {}", none.display(), missing.source)
        );
    }
}
