//! The solver reports, once a table is solved, the most bytes of candidate
//! lists the repetition rules' passes held at once, which the memory a
//! build says it held then counts (`build::Summary::peak_memory`).

use std::sync::Mutex;

use egtbgen::{build_bounded, plan, working_bytes, Event, MemoryBound, Progress};
use xqegtb::Material;

/// What each table of `material`'s set reported, in the order solved.
fn reported(material: &str) -> Vec<u64> {
    reported_within(material, None).lists
}

/// What a build of a set reported and wrote.
struct Built {
    /// By table, in the order solved: the bytes of lists its passes held.
    lists: Vec<u64>,
    /// The most bytes the build says it held.
    peak: u64,
    /// The files, by name.
    files: Vec<Vec<u8>>,
}

/// `material`'s set, built within `bound` bytes when one is given.
fn reported_within(material: &str, bound: Option<u64>) -> Built {
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
    Built {
        lists,
        peak: summary.peak_memory,
        files: bytes,
    }
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
    // its bit-packed state does not: the cells go to scratch files, the
    // passes' lists fit in what is left.
    let free = reported_within("KRKNA", None);
    let bounded = reported_within("KRKNA", Some(2 << 20));
    assert!(free.peak > 2 << 20 && free.lists[5] > 100_000);
    assert!(bounded.peak <= 2 << 20, "{} bytes held", bounded.peak);
    assert_eq!(bounded.files, free.files, "the same tables");
    // Rook against two horses: the passes' lists (0.8 bytes an index)
    // outgrow the room the rounds' frontiers leave them. Within a bound
    // its cells fit, the lists go to scratch files once past it.
    let working = working_bytes("KRKNN".parse().unwrap());
    let bound = working + (1 << 20);
    let free = reported_within("KRKNN", None);
    let bounded = reported_within("KRKNN", Some(bound));
    assert!(
        free.peak > bound,
        "KRKNN in memory: {} bytes held",
        free.peak
    );
    assert!(
        bounded.peak <= bound,
        "KRKNN: {} bytes held within {bound}",
        bounded.peak
    );
    assert!(*bounded.lists.last().unwrap() < *free.lists.last().unwrap());
    assert_eq!(bounded.files, free.files, "the same tables");
}
