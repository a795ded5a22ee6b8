//! `egtbgen` driven as users run it, on broken files: `info`, `verify` and
//! `probe` exit non-zero with a message naming the file, and never print a
//! value read from a damaged table.

use std::path::Path;
use std::process::{Command, Output};

fn egtbgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_egtbgen"))
        .args(args)
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The command failed, saying why on stderr with `name` in it.
fn refused(out: &Output, name: &str, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: accepted");
    assert!(err.contains(name), "{what}: {err}");
}

/// Where the blocks of a container end, from its index (32-byte entries:
/// offset at 8, compressed length at 16).
fn block_ends(bytes: &[u8]) -> Vec<usize> {
    let count = u32::from_le_bytes(bytes[24..28].try_into().unwrap()) as usize;
    let index = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    (0..count)
        .map(|i| {
            let e = &bytes[index + 32 * i..];
            let offset = u64::from_le_bytes(e[8..16].try_into().unwrap());
            let len = u32::from_le_bytes(e[16..20].try_into().unwrap());
            (offset + u64::from(len)) as usize
        })
        .collect()
}

#[test]
fn broken_tables_are_refused_by_info_verify_and_probe() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRK", "KCK"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let krk = dir.path().join("KRK.xqtb");
    let good = std::fs::read(&krk).unwrap();
    let other = std::fs::read(dir.path().join("KCK.xqtb")).unwrap();
    let info = egtbgen(&["info", s(&krk)]);
    assert!(info.status.success());
    assert!(String::from_utf8_lossy(&info.stdout).contains("KRK"));

    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (at, what) in [(20, "header"), (65, "metadata"), (good.len() - 5, "index")] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x01;
        cases.push((format!("flipped {what} byte"), bytes));
    }
    for (i, &end) in block_ends(&good).iter().enumerate() {
        let mut bytes = good.clone();
        bytes[end - 1] ^= 0x01;
        cases.push((format!("flipped byte in block {i}"), bytes));
        cases.push((format!("cut at the end of block {i}"), good[..end].to_vec()));
    }
    let mut swapped = good[..64].to_vec();
    swapped.extend_from_slice(&other[64..]);
    cases.push(("a swapped header".into(), swapped));
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb");
    cases.push(("a book".into(), std::fs::read(book).unwrap()));

    let broken = tempfile::tempdir().unwrap();
    let file = broken.path().join("KRK.xqtb");
    for (what, bytes) in &cases {
        std::fs::write(&file, bytes).unwrap();
        refused(&egtbgen(&["info", s(&file)]), "KRK.xqtb", what);
        let verify = ["verify", "-q", "--path", s(dir.path()), s(&file)];
        refused(&egtbgen(&verify), "KRK.xqtb", what);
    }
    // Another table's file under KRK's name: the prober refuses it.
    std::fs::write(&file, &other).unwrap();
    let probe = egtbgen(&[
        "probe",
        "--path",
        s(broken.path()),
        "3k5/9/9/9/9/9/9/9/R8/4K4 w",
    ]);
    refused(&probe, "KRK.xqtb", "KCK's file named KRK");
    assert!(String::from_utf8_lossy(&probe.stderr).contains("holds KCK"));
    // The intact table answers the same probe.
    let probe = egtbgen(&[
        "probe",
        "--path",
        s(dir.path()),
        "3k5/9/9/9/9/9/9/9/R8/4K4 w",
    ]);
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    assert!(String::from_utf8_lossy(&probe.stdout).contains("win"));
}
