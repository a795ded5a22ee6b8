//! The solver reports, once a table is solved, the most bytes of candidate
//! lists the repetition rules' passes held at once, which the memory a
//! build says it held then counts (`build::Summary::peak_memory`).

#![cfg(feature = "generate")]

use std::sync::Mutex;

use xqegtb::build::{build_bounded, plan, Event, MemoryBound};
use xqegtb::generate::Progress;
use xqegtb::Material;

/// What each table of `material`'s set reported, in the order solved.
fn reported(material: &str) -> Vec<u64> {
    reported_within(material, None).0
}

/// What each table of `material`'s set reported, in the order solved,
/// built within `bound` bytes when one is given; and the set's files.
fn reported_within(material: &str, bound: Option<u64>) -> (Vec<u64>, Vec<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let bound = bound.map(|bytes| MemoryBound {
        bytes,
        scratch: scratch.path().to_path_buf(),
    });
    let target: Material = material.parse().unwrap();
    let lists = Mutex::new(Vec::new());
    let events = |e: Event| {
        if let Event::Progress(Progress::RuleLists { bytes }) = e {
            lists.lock().unwrap().push(bytes);
        }
    };
    let summary = build_bounded(dir.path(), &plan(&[target]), bound.as_ref(), &events).unwrap();
    let lists = lists.into_inner().unwrap();
    assert_eq!(
        lists.len(),
        summary.solved,
        "{material}: one report a table"
    );
    let mut files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let bytes = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    (lists, bytes)
}

#[test]
fn solved_tables_report_the_lists_of_their_rule_passes() {
    // Rook against horse: both sides check, and the horse's side has
    // positions whose every move that does not lose is a check.
    let krkn = reported("KRKN");
    assert!(*krkn.last().unwrap() > 10_000, "KRKN: {krkn:?}");
    // Pawn against cannon: the passes find no candidate in any table (an
    // empty list holds one end, four bytes and the room it grew into).
    let kpkc = reported("KPKC");
    assert!(kpkc.iter().all(|&b| b <= 32), "KPKC: {kpkc:?}");
}

#[test]
fn under_a_memory_bound_the_rule_passes_keep_their_lists_in_scratch_files() {
    // Rook against horse and advisor: the horse's side checks, and the
    // rook's side chases. Its cells (two bytes a position) pass the bound,
    // its bit-packed state does not: the cells, and the passes' lists,
    // go to scratch files.
    let (free, free_files) = reported_within("KRKNA", None);
    let (bounded, bounded_files) = reported_within("KRKNA", Some(2 << 20));
    let (free_last, bounded_last) = (*free.last().unwrap(), *bounded.last().unwrap());
    assert!(free_last > 100_000, "KRKNA in memory: {free:?} {bounded:?}");
    assert!(
        bounded_last < free_last / 4,
        "KRKNA: {bounded_last} bytes of lists held under the bound, {free_last} without"
    );
    assert_eq!(bounded_files, free_files, "the same tables");
}
