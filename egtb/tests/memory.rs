//! The solver reports, once a table is solved, the most bytes of candidate
//! lists the repetition rules' passes held at once, which the memory a
//! build says it held then counts (`build::Summary::peak_memory`).

#![cfg(feature = "generate")]

use std::sync::Mutex;

use xqegtb::build::{build, plan, Event};
use xqegtb::generate::Progress;
use xqegtb::Material;

/// What each table of `material`'s set reported, in the order solved.
fn reported(material: &str) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    let target: Material = material.parse().unwrap();
    let lists = Mutex::new(Vec::new());
    let events = |e: Event| {
        if let Event::Progress(Progress::RuleLists { bytes }) = e {
            lists.lock().unwrap().push(bytes);
        }
    };
    let summary = build(dir.path(), &plan(&[target]), &events).unwrap();
    let lists = lists.into_inner().unwrap();
    assert_eq!(
        lists.len(),
        summary.solved,
        "{material}: one report a table"
    );
    lists
}

#[test]
fn solved_tables_report_the_lists_of_their_rule_passes() {
    // Rook against horse: both sides check, and the horse's side has
    // positions whose every move that does not lose is a check.
    let krkn = reported("KRKN");
    assert!(*krkn.last().unwrap() > 10_000, "KRKN: {krkn:?}");
    // Pawn against cannon: the passes find no candidate in any table (an
    // empty list holds one end, 8 bytes, and so do the others).
    let kpkc = reported("KPKC");
    assert!(kpkc.iter().all(|&b| b <= 16), "KPKC: {kpkc:?}");
}
