//! Counting games into a book: duplicates dropped, the rest counted in
//! parallel; and what a build did, for its summary line.

use std::collections::BTreeMap;

use rayon::prelude::*;
use xqbook::{game_fingerprint, retain_unique, BookBuilder, BuildConfig};
use xqrecords::pgn::SkipReason;

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
