//! `bookgen bench`: the time a probe of a book takes.

use std::path::PathBuf;

use bookgen::{book_positions, probe_latency};
use xqbook::Book;
use xqcli::out;

use super::options::at_least_one;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// The book file.
    book: PathBuf,
    /// How many positions to probe, walked from the start along book moves.
    #[arg(long, default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    positions: usize,
}

/// Runs `bookgen bench`.
pub fn run(args: &BenchArgs) -> xqcli::Result {
    let book = Book::open(&args.book)?;
    let positions = book_positions(&book, args.positions)?;
    let (median, p90) = probe_latency(&book, &positions)?;
    out!(
        "{} positions probed warm: median {median:.2} us, 90th percentile {p90:.2} us",
        positions.len()
    );
    Ok(())
}
