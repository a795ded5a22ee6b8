//! `bookgen merge`: books added together into one.

use std::path::PathBuf;

use bookgen::merge_books;
use xqbook::write_book;
use xqcli::out;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The merged book to write.
    #[arg(short, long)]
    output: PathBuf,
    /// The books to merge.
    #[arg(required = true, num_args = 2..)]
    books: Vec<PathBuf>,
}

/// Runs `bookgen merge`.
pub fn run(args: &MergeArgs) -> xqcli::Result {
    let positions = merge_books(&args.books)?;
    let names: Vec<String> = args.books.iter().map(|p| p.display().to_string()).collect();
    let summary = write_book(
        &args.output,
        &positions,
        &format!("merged from {}", names.join(", ")),
    )?;
    out!(
        "positions {}, entries {}, {} bytes",
        summary.positions,
        summary.entries,
        summary.bytes
    );
    Ok(())
}
