//! `bookgen import`: record files stored in a game database (resumable,
//! duplicates skipped), or a BHGUI `.obk` book written as ours.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bookgen::db::GameDb;
use bookgen::obk::is_obk_file;
use bookgen::record_files;
use xqcli::{out, Failure};

use super::export::{export, ExportFormat};
use super::options::ObkKeysArg;
use super::records::{read_files, ReadArgs};

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The database file (created if missing).
    #[arg(long, required_unless_present = "obk", conflicts_with = "obk")]
    db: Option<PathBuf>,
    /// PGN or XQF files, or directories searched for *.pgn and *.xqf.
    #[arg(required_unless_present = "obk", conflicts_with = "obk")]
    inputs: Vec<PathBuf>,
    /// A BHGUI .obk book to write as ours (to --output), walked from the
    /// start position like `export`; needs --obk-keys.
    #[arg(long, requires_all = ["output", "obk_keys"])]
    obk: Option<PathBuf>,
    /// The book --obk is written to (whole or not at all).
    #[arg(short, long, requires = "obk")]
    output: Option<PathBuf>,
    #[command(flatten)]
    keys: ObkKeysArg,
    #[command(flatten)]
    read: ReadArgs,
}

/// Runs `bookgen import`.
pub fn run(args: ImportArgs) -> xqcli::Result {
    match (&args.obk, &args.output, &args.db) {
        (Some(obk), Some(output), _) => import_obk(obk, &args.keys, output),
        (None, _, Some(db)) => import(db, &args.inputs, &args.read),
        // The parser requires one or the other.
        _ => Err(Failure::usage(
            "import needs --db DATABASE and record files, or --obk BOOK --output FILE",
        )),
    }
}

/// `import --obk`: an .obk book written as ours.
fn import_obk(obk: &Path, keys: &ObkKeysArg, output: &Path) -> xqcli::Result {
    if !is_obk_file(obk) {
        return Err(Failure::new(format!(
            "{}: not a BHGUI .obk book (not a SQLite database)",
            obk.display()
        )));
    }
    export(obk, keys, ExportFormat::Xqb, output, 1)
}

fn import(db: &Path, inputs: &[PathBuf], read: &ReadArgs) -> xqcli::Result {
    let started = Instant::now();
    let files = record_files(inputs)?;
    let store = RefCell::new(GameDb::open(db)?);
    let (mut added, mut duplicates, mut skipped, mut unchanged) = (0, 0, 0, 0);
    read_files(
        &files,
        read,
        usize::MAX,
        |path| {
            let known = store.borrow().is_imported(path)?;
            unchanged += usize::from(known);
            Ok(known)
        },
        |path, games| {
            skipped += games.errors.len();
            let done = store.borrow_mut().import(path, &games.games)?;
            added += done.added;
            duplicates += done.duplicates;
            Ok(())
        },
    )?;
    out!(
        "files {}, unchanged since last import {unchanged}, games added {added}, duplicates {duplicates}, skipped {skipped}, games in database {}, {:.2} s",
        files.len(),
        store.borrow().count()?,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
