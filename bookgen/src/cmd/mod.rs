//! The subcommands of `bookgen`, a module each: its arguments and the
//! function that runs it, returning [`xqcli::Result`]. What several of
//! them share is here: the options they take alike ([`options`]), reading
//! record files ([`records`]), and the analysis beside a book.

pub mod analyse;
pub mod bench;
pub mod build;
pub mod export;
pub mod import;
pub mod merge;
mod options;
pub mod probe;
pub mod quality;
mod records;
pub mod stats;

use std::path::Path;

use xqbook::{Analysis, Book};

/// The analysis beside a book, when it has one; one it cannot use is
/// named on standard error.
fn open_analysis(book_path: &Path, book: &Book) -> Option<Analysis> {
    let at = xqbook::analysis_path(book_path);
    if !at.is_file() {
        return None;
    }
    Analysis::open(&at, book)
        .map_err(|e| eprintln!("bookgen: analysis not used: {e}"))
        .ok()
}
