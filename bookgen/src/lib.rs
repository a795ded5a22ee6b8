//! The work behind `bookgen`: finding record files and counting their
//! games into a book, merging books, timing probes, analysing a book with
//! the engine ([`analyse`]) and judging the moves it plays ([`quality`]),
//! the game database ([`db`]) and BHGUI's `.obk` books ([`obk`]).
//!
//! Each of those four is a namespace of its own; the rest is here at the
//! root.

pub mod analyse;
mod budget;
mod count;
pub mod db;
mod error;
mod external;
mod journal;
mod latency;
mod merge;
pub mod obk;
pub mod quality;
mod records;

pub use count::{count_games, GameMoves, Report};
pub use latency::{book_positions, probe_latency};
pub use merge::merge_books;
pub use records::{record_files, RecordFilesError};
