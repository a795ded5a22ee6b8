//! The store to a book and back: a dump is one of our books (every stored
//! position with its stored moves) and its analysis (the scores backed up
//! through the whole store), which the engine plays from and bookgen
//! exports to other formats; an analysed book seeds a store.

use std::collections::HashMap;
use std::path::Path;

use xqbook::{
    analysis_path, write_analysis, write_book, AnalysisHeader, Book, BookFile, BookId, BookMove,
};

use crate::store::{Found, Source, Store, StoreError};

/// Why a dump or a seeding failed, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
}

fn file_error(path: &Path, reason: impl std::fmt::Display) -> DumpError {
    DumpError::File {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// What a dump wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dumped {
    pub positions: u64,
    pub moves: u64,
    /// Bytes of the book and of its analysis.
    pub book_bytes: u64,
    pub analysis_bytes: u64,
}

/// Writes every position of `store` to the book `path` (its moves as
/// book moves weighted by their backed-up scores: 100 for a position's
/// best, halved every 35 centipawns below it) and the analysis beside it
/// (`.xqa`): each position's search and its moves' scores backed up
/// through the store, as bookgen's analysis backs a book's up. Both files
/// are written whole or not at all.
///
/// # Errors
///
/// The store cannot be read, or a file cannot be written.
pub fn dump(store: &Store, path: &Path) -> Result<Dumped, DumpError> {
    let graph = store.graph()?;
    let analyses = graph.back_up_all();
    let mut positions: Vec<(u64, Vec<BookMove>)> = graph
        .book
        .nodes
        .iter()
        .map(|(&key, moves)| {
            let analysis = analyses.get(&key);
            let best = analysis.and_then(|a| a.moves.first()).map(|m| m.score);
            let moves = moves
                .iter()
                .map(|&(mv, _)| {
                    let score = analysis
                        .and_then(|a| a.moves.iter().find(|m| m.mv == mv))
                        .map(|m| m.score);
                    BookMove {
                        mv,
                        // No game played it: the weight alone, as books of
                        // weights are read into ours, for the formats that
                        // keep weights only (`bookgen export`).
                        games: weight(best, score),
                        wins: 0,
                        draws: 0,
                        losses: 0,
                    }
                })
                .collect();
            (key, moves)
        })
        .collect();
    positions.sort_unstable_by_key(|p| p.0);
    let describe = format!("dumped from the store {}", store.describe());
    let summary = write_book(path, &positions, &describe).map_err(|e| file_error(path, e))?;
    let book = Book::open(path).map_err(|e| file_error(path, e))?;
    let header = AnalysisHeader {
        book: BookId::of(&book),
        engine: format!("xqserve {}", env!("CARGO_PKG_VERSION")),
        net: "the searches of the store".into(),
        budget: "as stored".into(),
        searched: graph.book.searched.len() as u64,
    };
    let analysis = analysis_path(path);
    let analysis_bytes =
        write_analysis(&analysis, &header, &analyses).map_err(|e| file_error(&analysis, e))?;
    Ok(Dumped {
        positions: summary.positions,
        moves: summary.entries,
        book_bytes: summary.bytes,
        analysis_bytes,
    })
}

/// The weight of a move scoring `score` in a position whose best move
/// scores `best`, for books that keep weights only: 100 for the best,
/// halved every 35 centipawns below it, at least 1 (a move the backup
/// left unscored, 1).
fn weight(best: Option<i16>, score: Option<i16>) -> u32 {
    let (Some(best), Some(score)) = (best, score) else {
        return 1;
    };
    let below = f64::from(i32::from(best) - i32::from(score)).max(0.0);
    (100.0 * 0.5f64.powf(below / 35.0)).round().max(1.0) as u32
}

/// Seeds `store` with the analysed positions of `book` reached from the
/// start through its moves: each with its search and its moves' backed-up
/// scores (source: book). Positions the store has already keep what it
/// has, unless the book's search is deeper. The number of positions
/// written.
///
/// # Errors
///
/// The book has no analysis, or the store cannot be written.
pub fn seed(store: &Store, book: &BookFile, path: &Path) -> Result<u64, DumpError> {
    let Some(analysis) = &book.analysis else {
        return Err(file_error(
            path,
            "no analysis beside the book (bookgen analyse makes one)",
        ));
    };
    let walked = xqbook::walk(|p| xqbook::book_moves(&book.book, p), 0, usize::MAX);
    let mut batch: Vec<Found> = Vec::new();
    let mut seen: HashMap<u64, ()> = HashMap::new();
    for (pos, _) in &walked {
        let Some(a) = analysis.probe(pos) else {
            continue;
        };
        if seen.insert(xqbook::book_key(pos).0, ()).is_some() {
            continue;
        }
        let moves = a
            .moves
            .iter()
            .map(|m| (m.mv, m.score, a.search.depth))
            .collect();
        batch.push((pos.clone(), a.search, moves));
    }
    store.record_all(&batch, Source::Book)?;
    Ok(batch.len() as u64)
}
