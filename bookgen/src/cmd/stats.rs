//! `bookgen stats`: what a book holds and how it was built, and its
//! analysis when it has one.

use std::path::{Path, PathBuf};

use xqbook::{AnyBook, BookFormat, EleeyeBook};
use xqcli::{out, Failure};

use super::open_analysis;

#[derive(clap::Args)]
pub struct StatsArgs {
    /// The book file.
    book: PathBuf,
}

/// Runs `bookgen stats`.
pub fn run(args: &StatsArgs) -> xqcli::Result {
    let path = args.book.as_path();
    let book = match xqbook::open(path)? {
        AnyBook::Ours(book) => book,
        AnyBook::Eleeye(book) => return eleeye_stats(&book),
    };
    let info = book.info();
    let mut positions = 0u64;
    let mut games = 0u64;
    for block in book.positions() {
        let block = block?;
        positions += block.len() as u64;
        games += block
            .iter()
            .flat_map(|p| p.1.iter())
            .map(|m| u64::from(m.games))
            .sum::<u64>();
    }
    let bytes = file_bytes(path)?;
    out!("file {}", path.display());
    out!("format {}", BookFormat::Xqbook);
    out!("positions {positions}");
    out!("entries {}", info.entries);
    out!("blocks {}", info.blocks);
    out!("game moves counted {games}");
    out!(
        "bytes {bytes} ({:.2} per entry)",
        bytes as f64 / info.entries.max(1) as f64
    );
    out!("description {}", info.description);
    if let Some(a) = open_analysis(path, &book) {
        let h = a.header();
        let moves: usize = a.positions().values().map(|p| p.moves.len()).sum();
        let added: usize = a
            .positions()
            .values()
            .flat_map(|p| &p.moves)
            .filter(|m| !m.in_book)
            .count();
        out!(
            "analysis {}: {} positions, {moves} moves ({added} added), {} searched at {} by {} with {}",
            a.path().display(),
            a.len(),
            h.searched,
            h.budget,
            h.engine,
            h.net
        );
    }
    Ok(())
}

/// `stats` of an ElephantEye book: what such a file holds.
fn eleeye_stats(book: &EleeyeBook) -> xqcli::Result {
    let path = book.path();
    let bytes = file_bytes(path)?;
    out!("file {}", path.display());
    out!("format {}", BookFormat::Eleeye);
    out!(
        "positions {} (a position and its mirror image count apart)",
        book.positions()
    );
    out!("entries {}", book.len());
    out!("bytes {bytes} (8 per entry)");
    Ok(())
}

/// The size of the file at `path`.
fn file_bytes(path: &Path) -> xqcli::Result<u64> {
    let meta =
        std::fs::metadata(path).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    Ok(meta.len())
}
