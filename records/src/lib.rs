//! Reading xiangqi game records: PGN files in ICCS, WXF or Chinese
//! notation, in UTF-8, GBK/GB18030 or Big5.

pub mod encoding;
pub mod notation;
pub mod pgn;
pub mod xqf;
