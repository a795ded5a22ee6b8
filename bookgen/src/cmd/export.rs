//! `bookgen export`: a book of any format (ours, a `BOOK.DAT`, an `.obk`)
//! walked from the start and written in another.

use std::path::{Path, PathBuf};

use bookgen::obk::{is_obk_file, write_obk, ObkBook};
use xqbook::{book_moves, our_entries, walk, write_book, write_eleeye, Walked};
use xqcli::{out, Failure};

use super::options::ObkKeysArg;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The book to read: ours, a BOOK.DAT or an .obk (with --obk-keys).
    book: PathBuf,
    #[command(flatten)]
    keys: ObkKeysArg,
    /// The format to write.
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// The file to write (written whole or not at all).
    #[arg(short, long)]
    output: PathBuf,
    /// Moves in a row outside the book the walk goes through.
    #[arg(long, default_value_t = 1)]
    max_gap: u32,
}

/// Book formats `export` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    /// Ours.
    Xqb,
    /// ElephantEye's BOOK.DAT.
    Eleeye,
    /// BHGUI's .obk (a SQLite database; needs --obk-keys).
    Obk,
}

/// Runs `bookgen export`.
pub fn run(args: &ExportArgs) -> xqcli::Result {
    export(
        &args.book,
        &args.keys,
        args.format,
        &args.output,
        args.max_gap,
    )
}

/// Writes the book at `input`, walked from the start through up to
/// `max_gap` moves in a row outside it, to `output` in `format`.
pub fn export(
    input: &Path,
    keys: &ObkKeysArg,
    format: ExportFormat,
    output: &Path,
    max_gap: u32,
) -> xqcli::Result {
    // Checked before the walk, which can take a while.
    let obk_keys = match format {
        ExportFormat::Obk => Some(keys.load("--format obk")?),
        _ => None,
    };
    let walked = walk_book(input, keys, max_gap)?;
    let moves: usize = walked.iter().map(|w| w.1.len()).sum();
    let written = match (format, obk_keys) {
        (ExportFormat::Obk, Some(keys)) => write_obk(output, &keys, &walked)?,
        // The system's error does not say which file; the others do.
        (ExportFormat::Eleeye, _) => write_eleeye(output, &walked)
            .map_err(|e| Failure::new(format!("{}: {e}", output.display())))?,
        _ => {
            let describe = format!("exported from {}", input.display());
            write_book(output, &our_entries(&walked), &describe)?.entries as usize
        }
    };
    out!(
        "{} positions, {moves} moves walked from the start; {written} entries written to {}",
        walked.len(),
        output.display()
    );
    Ok(())
}

/// The positions of the book at `input` (any format), walked from the start.
fn walk_book(input: &Path, keys: &ObkKeysArg, max_gap: u32) -> xqcli::Result<Walked> {
    if is_obk_file(input) {
        let keys = keys.load(&format!("reading {}", input.display()))?;
        let book = ObkBook::open(input, &keys)?;
        out!(
            "{}: {} rows read, {} unreadable rows skipped",
            input.display(),
            book.rows(),
            book.skipped()
        );
        return Ok(walk(|p| book.probe(p), max_gap, usize::MAX));
    }
    let book = xqbook::open(input)?;
    Ok(walk(|p| book_moves(&book, p), max_gap, usize::MAX))
}
