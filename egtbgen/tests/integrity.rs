//! Broken table files are refused with an error naming the file, never read
//! as values: every flipped byte, every truncation, a header from another
//! file, a file under another table's name, a file of another kind.

use std::path::{Path, PathBuf};

use egtbgen::{build, plan, table_path};
use xqcore::Position;
use xqegtb::{Material, TableFile, Tablebase};

/// KRK and KCK, built into a fresh directory.
fn small_tables() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let materials: Vec<Material> = ["KRK", "KCK"].iter().map(|m| m.parse().unwrap()).collect();
    build(dir.path(), &plan(&materials), &|_| {}).unwrap();
    let krk = table_path(dir.path(), materials[0]);
    let kck = table_path(dir.path(), materials[1]);
    (dir, krk, kck)
}

/// Opens `path` and reads every value: the error's text, or `None` when
/// the whole file reads.
fn read_error(path: &Path) -> Option<String> {
    match TableFile::open(path).and_then(|t| t.all_values().map(|_| ())) {
        Ok(()) => None,
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn every_flipped_byte_and_every_truncation_is_refused_naming_the_file() {
    let (dir, krk, _) = small_tables();
    let good = std::fs::read(&krk).unwrap();
    assert_eq!(read_error(&krk), None, "the table as built reads");
    let broken = dir.path().join("broken.xqtb");
    for at in 0..good.len() {
        let mut bytes = good.clone();
        bytes[at] ^= 0x20;
        std::fs::write(&broken, &bytes).unwrap();
        let err = read_error(&broken).unwrap_or_else(|| panic!("a flip at byte {at} went unseen"));
        assert!(err.contains("broken.xqtb"), "byte {at}: {err}");
    }
    for len in 0..good.len() {
        std::fs::write(&broken, &good[..len]).unwrap();
        let err = read_error(&broken).unwrap_or_else(|| panic!("a cut at {len} went unseen"));
        assert!(err.contains("broken.xqtb"), "length {len}: {err}");
    }
}

#[test]
fn a_header_from_another_table_is_refused() {
    let (dir, krk, kck) = small_tables();
    let (a, b) = (std::fs::read(&krk).unwrap(), std::fs::read(&kck).unwrap());
    let swapped = dir.path().join("swapped.xqtb");
    for (head, body) in [(&a, &b), (&b, &a)] {
        let mut bytes = head[..64].to_vec();
        bytes.extend_from_slice(&body[64..]);
        std::fs::write(&swapped, &bytes).unwrap();
        let err = read_error(&swapped).expect("a swapped header is refused");
        assert!(err.contains("swapped.xqtb"), "{err}");
    }
}

#[test]
fn a_table_under_another_name_is_refused_by_the_prober() {
    let (dir, krk, kck) = small_tables();
    // KCK's file copied over KRK's: its indexes would be read as KRK's.
    let renamed = dir.path().join("renamed");
    std::fs::create_dir(&renamed).unwrap();
    std::fs::copy(&kck, table_path(&renamed, "KRK".parse().unwrap())).unwrap();
    let mut tb = Tablebase::new();
    tb.add_dir(&renamed).unwrap();
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/R8/3K5 w").unwrap();
    let err = tb.probe(&pos).unwrap_err().to_string();
    assert!(
        err.contains("KRK.xqtb") && err.contains("holds KCK"),
        "{err}"
    );
    // The right file gives a value.
    let mut good = Tablebase::new();
    good.add_dir(krk.parent().unwrap()).unwrap();
    assert!(good.probe(&pos).unwrap().is_some());
}

#[test]
fn files_of_another_kind_are_refused() {
    let (dir, _, _) = small_tables();
    let foreign = dir.path().join("foreign.xqtb");
    for bytes in [
        &b""[..],
        b"XQBOOK\0\0 an opening book's magic",
        b"not a table at all, just some text that is long enough for a header ..........",
    ] {
        std::fs::write(&foreign, bytes).unwrap();
        let err = read_error(&foreign).expect("refused");
        assert!(err.contains("foreign.xqtb"), "{err}");
    }
}

/// A build going on in a directory keeps the sound tables and builds the
/// damaged ones again, whether a later table reads them (KRKA, read by
/// KRKAB's captures) or none does (KRKAB), and ends with the files of a
/// build from nothing.
#[test]
fn a_build_over_damaged_tables_builds_them_again() {
    let order = plan(&["KRKAB".parse().unwrap()]);
    let fresh = tempfile::tempdir().unwrap();
    build(fresh.path(), &order, &|_| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for &m in &order {
        std::fs::copy(table_path(fresh.path(), m), table_path(dir.path(), m)).unwrap();
    }
    for name in ["KRKA", "KRKAB"] {
        let path = table_path(dir.path(), name.parse().unwrap());
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        let checked = TableFile::open(&path).and_then(|t| t.check_blocks());
        assert!(checked.is_err(), "{name}: the flip is in a block");
    }
    let summary = build(dir.path(), &order, &|_| {}).unwrap();
    assert_eq!(summary.solved, 2);
    assert_eq!(summary.existing, order.len() - 2);
    for &m in &order {
        let (a, b) = (table_path(fresh.path(), m), table_path(dir.path(), m));
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{m}"
        );
    }
}
