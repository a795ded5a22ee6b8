//! Reading xiangqi game records: PGN files in ICCS, WXF or Chinese
//! notation, in UTF-8, GBK/GB18030 or Big5, and XQF files; and openings
//! files, the lines games start from.
//!
//! [`read_file`] reads a file of either kind, telling them apart by their
//! bytes ([`sniff`]); [`pgn`], [`xqf`], [`notation`] and [`encoding`] are
//! the parts. The openings files of matches and self-play are read by
//! [`load_openings`] and its kin, into [`Opening`]s.

pub mod encoding;
mod file;
pub mod notation;
mod openings;
pub mod pgn;
pub mod xqf;

pub use file::{read_file, read_records, sniff, ReadError, ReadOptions, RecordFormat, Records};
pub use openings::{
    bundled_openings, load_openings, read_any_openings, read_epd, read_openings,
    read_openings_file, LineError, Opening, OpeningError, OpeningsFileError, OpeningsFormat,
    OpeningsRead, BUNDLED_OPENINGS,
};
