//! Reading xiangqi game records: PGN files in ICCS, WXF or Chinese
//! notation, in UTF-8, GBK/GB18030 or Big5, and XQF files.
//!
//! [`read_file`] reads a file of either kind, telling them apart by their
//! bytes ([`sniff`]); [`pgn`], [`xqf`], [`notation`] and [`encoding`] are
//! the parts.

pub mod encoding;
mod file;
pub mod notation;
pub mod pgn;
pub mod xqf;

pub use file::{read_file, read_records, sniff, ReadError, ReadOptions, RecordFormat, Records};
