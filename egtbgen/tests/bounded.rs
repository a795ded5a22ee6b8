//! `egtbgen gen --max-memory`: tables built with their cells in scratch
//! files are the same as tables built in memory, nothing is left of the
//! scratch files, and a bound below what must stay in memory is refused.

use std::path::Path;
use std::process::Output;

mod common;
use common::{egtbgen, s};

/// The megabytes a successful build says it held at most.
fn held_mb(out: Output) -> f64 {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let after = text.split("at most ").nth(1).expect("a summary");
    after.split(' ').next().unwrap().parse().unwrap()
}

/// The files in `dir` (hidden ones too), by name, with their bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::files(dir, |_| true)
}

#[test]
fn tables_built_under_a_memory_bound_equal_those_built_in_memory() {
    let root = tempfile::tempdir().unwrap();
    let (free, bounded, scratch) = (
        root.path().join("free"),
        root.path().join("bounded"),
        root.path().join("scratch"),
    );
    let free_mb = held_mb(egtbgen(&["gen", "-q", "-o", s(&free), "KRKAB"]));
    // KRKAB's bit-packed state (three bits an index and side to move) and
    // the smaller tables held for its captures take less than 250 KiB, its
    // cells 594,000 bytes more: the bound puts its cells in scratch files,
    // and KRKB's too (the side its captures reach, 33,480 bytes, is past
    // an eighth of the bound).
    let bound = ["--max-memory", "250K", "--scratch", s(&scratch)];
    let args = [&["gen", "-q", "-o", s(&bounded)], &bound[..], &["KRKAB"]].concat();
    let bounded_mb = held_mb(egtbgen(&args));
    assert!(
        free_mb > 0.7 && bounded_mb <= 0.25,
        "{free_mb} MB, {bounded_mb} MB"
    );
    let expected = files(&free);
    assert_eq!(
        expected.len(),
        8,
        "KRKAB and its 3 capture tables, each a table file and a win/draw/loss file"
    );
    assert_eq!(files(&bounded), expected);
    assert!(files(&scratch).is_empty(), "scratch files left behind");
    // Again with the smaller tables already there, KRKB read into a
    // scratch file.
    std::fs::remove_file(bounded.join("KRKAB.xqtb")).unwrap();
    assert!(held_mb(egtbgen(&args)) <= 0.25);
    assert_eq!(files(&bounded), expected);
    assert!(files(&scratch).is_empty(), "scratch files left behind");
}

#[test]
fn a_bound_below_the_bit_packed_state_is_refused_naming_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let gen = |bound, material| {
        egtbgen(&[
            "gen",
            "-q",
            "-o",
            s(dir.path()),
            "--max-memory",
            bound,
            material,
        ])
    };
    let out = gen("100K", "KRKAB");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("KRKAB") && err.contains("past the bound of 102400"),
        "{err}"
    );
    assert!(!dir.path().join("KRKAB.xqtb").exists());
    let out = gen("12X", "KRK");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("12X"));
}

#[test]
fn each_table_built_says_what_it_held_and_the_build_the_most_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-o", s(dir.path()), "KRKAB"]);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let per_table: Vec<f64> = text
        .lines()
        .filter_map(|line| line.strip_suffix(" MB held"))
        .map(|line| line.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(per_table.len(), 4, "KRKAB and its 3 capture tables: {text}");
    let most = per_table.iter().copied().fold(0.0, f64::max);
    assert_eq!(most, held_mb(out));
    // Each table's own figure, not the build's so far: the smaller tables,
    // built first, held less.
    assert!(per_table[0] < most, "{per_table:?}");
}
