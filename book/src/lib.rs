//! Opening books: for each (position, move) of a collection of games, how
//! many games played it and how they ended for the side that moved.
//!
//! - [`BookBuilder`] replays games and counts, [`BookBuilder::write`] writes
//!   a book file in the [`xqstore`] container ([`BOOK_KIND`]).
//! - [`Book`] opens a book file (memory-mapped, checked) and probes it;
//!   [`open`] opens ours or ElephantEye's `BOOK.DAT` ([`EleeyeBook`]), told
//!   apart by their first bytes.
//! - [`walk`] meets a book's positions from the start, to write it in
//!   another format ([`our_entries`], [`write_eleeye`]).
//! - [`Analysis`] is a book's companion file of searched scores
//!   ([`analysis_path`]), written by [`write_analysis`] from the scores
//!   [`back_up`] backs up through a [`BookGraph`].
//! - Positions and their left-right mirror images share one entry, stored
//!   under the smaller of the two Zobrist keys; moves are mirrored back on
//!   probe. A symmetric position keeps its moves as they are.
//!
//! The keys are the Zobrist keys of [`xqcore::zobrist`]: the book's key
//! scheme is [`xqcore::zobrist::KEY_SCHEME_VERSION`], stamped in its header,
//! so a book built with other keys is refused instead of misread.

mod analysis;
mod any;
mod backup;
mod builder;
mod codec;
mod convert;
mod eleeye;
mod reader;

pub use analysis::{
    analysis_path, write_analysis, Analysis, AnalysisError, AnalysisHeader, BookId,
    PositionAnalysis, ScoredMove, Searched, ANALYSIS_KIND, DECIDED, MATE,
};
pub use any::{open, AnyBook, BookFile, BookFormat, OpenError, WeightedMove};
pub use backup::{back_up, move_key, one_ply_up, BookGraph, SEARCH_NOISE};
pub use builder::{
    game_fingerprint, retain_unique, write_book, BookBuilder, BuildConfig, BuildSummary,
    GameResult, SideFilter,
};
pub use codec::BlockError;
pub use convert::{book_moves, export_weight, our_entries, walk, write_eleeye, Walked};
pub use eleeye::{EleeyeBook, EleeyeError};
pub use reader::{Book, BookError, BookInfo};

use xqcore::{zobrist, Move, Position};

/// The book file's kind: magic, record format and key scheme.
pub const BOOK_KIND: xqstore::Kind = xqstore::Kind {
    magic: *b"XQBOOK\0\0",
    name: "xqbook opening book",
    format_version: 1,
    key_scheme: zobrist::KEY_SCHEME_VERSION as u16,
};

/// A move of a book position with its statistics, from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Games that played it (including those with an unknown result).
    pub games: u32,
    /// Of those, won by the side that played it.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
}

impl BookMove {
    /// Score for the mover over the games with a known result, 0.0..=1.0
    /// (0.5 when none is known).
    pub fn score(&self) -> f64 {
        let decided = self.wins + self.draws + self.losses;
        if decided == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(decided)
    }

    /// The weight a player gives the move: games times score, so that a
    /// popular, successful move is played most. Never zero for a move with
    /// games, so that any book move may come up when play is random.
    pub fn weight(&self) -> u32 {
        let w = f64::from(self.games) * self.score();
        (w.round() as u32).max(u32::from(self.games > 0))
    }

    /// The same statistics for the mirrored move.
    pub fn mirror(self) -> BookMove {
        BookMove {
            mv: self.mv.mirror(),
            ..self
        }
    }
}

/// The Zobrist key of `pos` seen in a left-right mirror.
pub fn mirror_key(pos: &Position) -> u64 {
    pos.board()
        .pieces()
        .fold(zobrist::side_key(pos.turn()), |key, (sq, piece)| {
            key ^ zobrist::piece_key(piece, sq.mirror())
        })
}

/// The key a position is stored under, and whether that is its mirror's.
pub fn book_key(pos: &Position) -> (u64, bool) {
    let (key, mirrored) = (pos.key(), mirror_key(pos));
    if mirrored < key {
        (mirrored, true)
    } else {
        (key, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_key_is_the_key_of_the_mirrored_position() {
        let mut pos = Position::start();
        for m in ["h2e2", "h9g7", "b0c2", "i9h9"] {
            pos.make_move(pos.parse_move(m).unwrap());
            assert_eq!(mirror_key(&pos), pos.mirror().key());
            // A position and its mirror share one entry, reached from
            // opposite sides.
            let (key, mirrored) = book_key(&pos);
            let (mirror_entry, mirror_mirrored) = book_key(&pos.mirror());
            assert_eq!(key, mirror_entry);
            assert_ne!(mirrored, mirror_mirrored);
        }
        let start = book_key(&Position::start());
        assert_eq!(start, (Position::start().key(), false));
    }

    #[test]
    fn weights_follow_games_and_score() {
        let m = |games, wins, draws, losses| BookMove {
            mv: Move::NULL,
            games,
            wins,
            draws,
            losses,
        };
        assert_eq!(m(10, 10, 0, 0).weight(), 10);
        assert_eq!(m(10, 5, 0, 5).weight(), 5);
        assert_eq!(m(10, 0, 0, 10).weight(), 1);
        assert_eq!(m(4, 0, 0, 0).score(), 0.5);
        assert_eq!(m(0, 0, 0, 0).weight(), 0);
    }
}
