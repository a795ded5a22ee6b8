//! `xqserve dump` and `xqserve seed`: the store to a book, and an
//! analysed book into the store.

use std::path::PathBuf;

use xqcli::{out, Failure};
use xqserve::dump::{dump, seed};
use xqserve::store::Store;

/// Arguments of `xqserve dump`.
#[derive(clap::Args)]
pub struct DumpArgs {
    /// The store to dump.
    #[arg(long)]
    store: PathBuf,
    /// The book to write (its analysis goes beside it, `.xqa`); the engine
    /// plays from it, and `bookgen export` turns it into other formats.
    output: PathBuf,
}

/// Arguments of `xqserve seed`.
#[derive(clap::Args)]
pub struct SeedArgs {
    /// The store to seed (created when missing).
    #[arg(long)]
    store: PathBuf,
    /// The analysed book whose positions go into the store [default:
    /// data/book.xqb].
    #[arg(long)]
    book: Option<PathBuf>,
}

/// Dumps the store, saying what was written.
///
/// # Errors
///
/// The store cannot be read (exit status 2), or the book cannot be
/// written.
pub fn run_dump(args: &DumpArgs) -> xqcli::Result {
    if !args.store.is_file() {
        return Err(Failure::usage(format!(
            "{}: no such store",
            args.store.display()
        )));
    }
    let store = Store::open(Some(&args.store)).map_err(Failure::usage)?;
    let dumped = dump(&store, &args.output).map_err(Failure::from)?;
    out!(
        "{} positions, {} moves: {} ({} bytes) and its analysis ({} bytes)",
        dumped.positions,
        dumped.moves,
        args.output.display(),
        dumped.book_bytes,
        dumped.analysis_bytes
    );
    Ok(())
}

/// Seeds the store from the book, saying how many positions went in.
///
/// # Errors
///
/// The book or the store cannot be opened (exit status 2), or the book
/// has no analysis.
pub fn run_seed(args: &SeedArgs) -> xqcli::Result {
    let path = match &args.book {
        Some(path) => path.clone(),
        None => xqcli::data::default_book().ok_or_else(|| {
            Failure::usage("no default book (data/book.xqb); name one with --book")
        })?,
    };
    let (book, unusable) = xqbook::BookFile::open(&path).map_err(Failure::usage)?;
    if let Some(e) = unusable {
        return Err(Failure::usage(format!(
            "{}: analysis not usable: {e}",
            path.display()
        )));
    }
    let store = Store::open(Some(&args.store)).map_err(Failure::usage)?;
    let seeded = seed(&store, &book, &path).map_err(Failure::usage)?;
    out!(
        "{seeded} positions of {} written to {}",
        path.display(),
        store.describe()
    );
    Ok(())
}
