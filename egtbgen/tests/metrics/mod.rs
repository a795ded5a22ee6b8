//! The metrics' files: a build writes each beside the others, and only
//! those missing; the distances to conversion agree with chessdb's
//! generator; `verify` checks each file against the table file and its
//! successors, and catches a wrong distance.

use std::path::Path;

use xqcore::Position;
use xqegtb::{
    write_dtc, Dtc, EncodeBatch, Material, Metric, MetricFile, MetricInfo, Tablebase, Wdl,
    RULES_AS_GAMES,
};

use crate::common::{egtbgen, s};

fn gen(dir: &Path, args: &[&str]) {
    let mut all = vec!["gen", "-q", "-o", s(dir)];
    all.extend_from_slice(args);
    let out = egtbgen(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tables(dir: &Path) -> Tablebase {
    let mut tb = Tablebase::new();
    tb.add_dir(dir).unwrap();
    tb
}

#[test]
fn a_build_writes_each_metric_beside_the_others_and_only_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), &["KRKN"]);
    let path = |ext: &str| dir.path().join(format!("KRKN.{ext}"));
    assert!(path("xqtb").is_file() && path("xqwdl").is_file());
    assert!(!path("xqdtc").exists(), "dtc is written when asked for");
    let table_bytes = std::fs::read(path("xqtb")).unwrap();
    let modified = std::fs::metadata(path("xqtb")).unwrap().modified().unwrap();
    gen(dir.path(), &["--metric", "dtc", "KRKN"]);
    assert!(path("xqdtc").is_file());
    assert_eq!(std::fs::read(path("xqtb")).unwrap(), table_bytes);
    assert_eq!(
        std::fs::metadata(path("xqtb")).unwrap().modified().unwrap(),
        modified,
        "the table file is not written over"
    );
    // The verdicts of the small file are the table file's.
    let tb = tables(dir.path());
    for fen in [
        "3k5/9/9/9/4n4/9/9/9/9/4RK3 w",
        "9/9/4k4/9/9/9/9/3n5/9/R2K5 b",
        "4k4/9/4n4/9/9/9/9/9/R8/4K4 b",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let value = tb.probe(&pos).unwrap().unwrap();
        assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(value.wdl()), "{fen}");
    }
    let out = egtbgen(&["gen", "-o", s(dir.path()), "--metric", "dtz", "KRKN"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("wdl, dtm or dtc"),
        "{err}"
    );
}

#[test]
fn distances_to_conversion_agree_with_chessdbs_generator() {
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), &["--metric", "wdl,dtc", "KRKN"]);
    assert!(!dir.path().join("KRKN.xqtb").exists());
    let tb = tables(dir.path());
    // xiangqitb (github.com/noobpwnftw/xiangqitb at 716c096) built with
    // SaveDTC=1, its files read with its own code: plies, and the order of
    // the rules' pass (docs/egtb.md).
    for (fen, wdl, plies, order) in [
        ("3k5/9/9/9/4n4/9/9/9/9/4RK3 w", Wdl::Win, 1, 0),
        ("4k4/9/9/9/9/9/9/9/4n4/R3K4 w", Wdl::Win, 3, 0),
        ("4k4/9/4n4/9/9/9/9/9/R8/4K4 w", Wdl::Win, 3, 0),
        ("9/4k4/9/9/4n4/9/9/9/9/R3K4 b", Wdl::Loss, 6, 0),
        ("9/9/4k4/9/9/9/9/3n5/9/R2K5 w", Wdl::Win, 11, 0),
        // The horse's side can only check for ever: it loses by the rule.
        ("9/9/4k4/9/9/9/9/3n5/9/R2K5 b", Wdl::Loss, 2, 1),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let dtc = tb.probe_dtc(&pos).unwrap().unwrap();
        assert_eq!(dtc, Dtc { wdl, plies, order }, "{fen}");
        assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(wdl), "{fen}");
        // No table file: no distance to mate.
        assert_eq!(tb.probe(&pos).unwrap(), None);
    }
}

#[test]
fn verify_checks_each_metric_and_catches_a_wrong_distance() {
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), &["--metric", "wdl,dtm,dtc", "KRKN"]);
    let out = egtbgen(&["verify", "-q", s(dir.path())]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("KRKN.xqdtc: all") && text.contains("KRKN.xqwdl: all"),
        "{text}"
    );
    // The same file with one win a ply longer than its successors allow.
    let path = dir.path().join("KRKN.xqdtc");
    let file = MetricFile::open(&path, Metric::Dtc).unwrap();
    let mut codes = file.all_codes().unwrap();
    let side = usize::from(stored_side_of(&file));
    let at = codes[side]
        .iter()
        .position(|&c| Dtc::from_code(c).wdl == Wdl::Win && Dtc::from_code(c).plies == 5)
        .unwrap();
    let mut wrong = Dtc::from_code(codes[side][at]);
    wrong.plies += 2;
    codes[side][at] = wrong.to_code();
    let stored_side = file.info().stored_side;
    drop(file);
    let material: Material = "KRKN".parse().unwrap();
    let info = MetricInfo::of_dtc(material, RULES_AS_GAMES, &codes, stored_side);
    let one_thread: &EncodeBatch = &|blocks, encode| blocks.map(encode).collect();
    write_dtc(&path, &info, &codes, 3, one_thread).unwrap();
    let out = egtbgen(&["verify", "-q", s(&path)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted");
    assert!(
        err.contains("KRKN.xqdtc") && err.contains("win dtc 7"),
        "{err}"
    );
}

/// The side to move a distance-to-conversion file stores (the first when
/// it stores both).
fn stored_side_of(file: &MetricFile) -> u8 {
    file.info().stored_side % 2
}
