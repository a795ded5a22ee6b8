//! Running `bookgen` as users do, for the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `bookgen` run with `args`.
pub fn bookgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bookgen"))
        .args(args)
        .output()
        .unwrap()
}

/// The standard output of a run that must have succeeded.
pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A book `name` in `dir` of the ICCS sample's first `max_ply` plies
/// (positions met in 20 games or more).
pub fn small_book(dir: &Path, name: &str, max_ply: &str) -> PathBuf {
    let book = dir.join(name);
    let games =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/games/ccpd-sample-3000.iccs.pgn");
    stdout(&bookgen(&[
        "build",
        "-q",
        "-o",
        s(&book),
        "--min-games",
        "20",
        "--max-ply",
        max_ply,
        s(&games),
    ]));
    book
}
