//! The subcommands of `bookgen`, a module each: its arguments and the
//! function that runs it, returning [`xqcli::Result`]. What several of
//! them share is here: the options they take alike ([`options`]), reading
//! record files ([`records`]), opening a book that must be ours, and the
//! analysis beside a book.

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

use xqbook::{Analysis, AnyBook, Book};
use xqcli::Failure;

/// The book of ours at `path`, for a command that reads what only our
/// books keep; a `BOOK.DAT` is refused with `refusal`, after the path.
fn open_ours(path: &Path, refusal: &str) -> xqcli::Result<Book> {
    match xqbook::open(path)? {
        AnyBook::Ours(book) => Ok(*book),
        AnyBook::Eleeye(_) => Err(Failure::new(format!("{}: {refusal}", path.display()))),
    }
}

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
