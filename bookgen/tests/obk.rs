//! BHGUI `.obk` books: ours written as `.obk` and read back, and an `.obk`
//! we write read by a reader that is not ours: a short Python script
//! written from the format's description (SQLite's own module, the key of
//! each position computed by the PyPI package `cchess`, moves decoded by
//! hand). Needs python3 with the PyPI package `cchess` (scripts/test.sh
//! installs it: `python3 -m pip install cchess==1.25.5`), which also
//! provides BHGUI's key table; without it the tests fail saying so.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{bookgen, s, stdout};

use bookgen::obk::{ObkBook, ObkKeys, START_KEY};
use xqbook::{book_moves, walk};
use xqcore::Position;

/// Fails the test with `why` and how to install what is missing, without
/// a panic's location and backtrace: nothing in the code is wrong.
fn missing(why: &str) -> ! {
    eprintln!(
        "{why}: the .obk tests need python3 with the PyPI package cchess. Install it with \
         `python3 -m pip install cchess==1.25.5`, or run scripts/test.sh, which installs \
         what the tests need and runs them."
    );
    std::panic::resume_unwind(Box::new(why.to_string()))
}

fn python(script: &str, args: &[&str]) -> String {
    match Command::new("python3")
        .args(["-c", "import cchess"])
        .output()
    {
        Err(e) => missing(&format!("python3 cannot be run ({e})")),
        Ok(out) if !out.status.success() => missing("python3 cannot import cchess"),
        Ok(_) => {}
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn default_book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb")
}

/// Our default book exported as `.obk` with the key table `keys`.
fn export_obk(keys: &Path, obk: &Path) -> Output {
    bookgen(&[
        "export",
        s(&default_book()),
        "--format",
        "obk",
        "--obk-keys",
        s(keys),
        "-o",
        s(obk),
    ])
}

/// BHGUI's key table as `cchess` ships it, written where `--obk-keys`
/// reads it.
fn key_file(dir: &Path) -> PathBuf {
    let table = python(
        "from cchess.zhash_data import z_hashTable, z_redKey; print(*z_hashTable, z_redKey)",
        &[],
    );
    let path = dir.join("obk.keys");
    std::fs::write(&path, table).unwrap();
    path
}

/// Reads an .obk book for a list of positions, as the format's description
/// says: the key from `cchess`, the rows with vvalid = 1, vmove as
/// from << 8 | to on 16x16 squares counted from Black's corner.
const INDEPENDENT_READER: &str = r#"
import sqlite3, sys, cchess
db = sqlite3.connect(sys.argv[1])
def square(sq):
    return chr(ord('a') + sq % 16 - 3) + str(12 - sq // 16)
for fen in open(sys.argv[2], encoding='utf-8').read().splitlines():
    key = cchess.ChessBoard(fen).zhash()
    rows = db.execute('SELECT vmove, vwin, vdraw, vlost FROM bhobk WHERE vkey = ? AND vvalid = 1', (key,)).fetchall()
    moves = sorted('%s%s:%d/%d/%d' % (square(m >> 8), square(m & 255), w, d, l) for m, w, d, l in rows)
    print(fen + '|' + ' '.join(moves))
"#;

#[test]
fn an_obk_we_write_is_read_by_an_independent_reader() {
    let dir = tempfile::tempdir().unwrap();
    let keys = key_file(dir.path());
    let obk = dir.path().join("book.obk");
    let out = stdout(&export_obk(&keys, &obk));
    assert!(out.contains("entries written"), "{out}");

    // The positions of our book, with what it says of each.
    let book = xqbook::open(&default_book()).unwrap();
    let walked = walk(|p| book_moves(&book, p), 1, 400);
    let mut expected = BTreeMap::new();
    for (pos, moves) in &walked {
        let mut listed: Vec<String> = moves
            .iter()
            .map(|m| format!("{}:{}/{}/{}", m.mv, m.wins, m.draws, m.losses))
            .collect();
        listed.sort();
        expected.insert(pos.fen(), listed.join(" "));
    }
    let fens = dir.path().join("fens.txt");
    let list: Vec<&str> = expected.keys().map(String::as_str).collect();
    std::fs::write(&fens, list.join("\n")).unwrap();

    let answers = python(INDEPENDENT_READER, &[s(&obk), s(&fens)]);
    let mut checked = 0;
    for line in answers.lines() {
        let (fen, moves) = line.split_once('|').unwrap();
        assert_eq!(moves, expected[fen], "{fen}");
        checked += 1;
    }
    assert_eq!(checked, expected.len());
    assert!(checked >= 400, "{checked} positions");
}

#[test]
fn obk_books_round_trip_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let keys_path = key_file(dir.path());
    let keys = ObkKeys::read(&keys_path).unwrap();
    assert_eq!(keys.key(&Position::start(), false), START_KEY);
    let obk = dir.path().join("book.obk");
    stdout(&export_obk(&keys_path, &obk));
    // Back to ours: every position has the same moves and results.
    let back = dir.path().join("back.xqb");
    let out = stdout(&bookgen(&[
        "import",
        "--obk",
        s(&obk),
        "--obk-keys",
        s(&keys_path),
        "-o",
        s(&back),
    ]));
    assert!(out.contains("0 unreadable rows skipped"), "{out}");
    let original = xqbook::open(&default_book()).unwrap();
    let copy = xqbook::open(&back).unwrap();
    let read = ObkBook::open(&obk, &keys).unwrap();
    let walked = walk(|p| book_moves(&original, p), 1, usize::MAX);
    assert!(walked.len() > 10_000, "{}", walked.len());
    let results = |moves: Vec<xqbook::BookMove>| {
        let mut r: Vec<_> = moves
            .into_iter()
            .map(|m| (m.mv, m.wins, m.draws, m.losses))
            .collect();
        r.sort();
        r
    };
    for (pos, moves) in &walked {
        let want = results(moves.clone());
        assert_eq!(results(read.probe(pos)), want, "{}", pos.fen());
        assert_eq!(results(book_moves(&copy, pos)), want, "{}", pos.fen());
        // The mirror image (of an asymmetric position, stored once) is
        // found through the mirrored key.
        let mirrored = pos.mirror();
        if mirrored.fen() != pos.fen() {
            let mirrored_moves = moves.iter().map(|m| m.mirror()).collect();
            assert_eq!(results(read.probe(&mirrored)), results(mirrored_moves));
        }
    }

    // Bad inputs: no key table, a key table that is not BHGUI's, a file
    // that is no .obk; nothing is written.
    let out = dir.path().join("never.obk");
    let no_keys = bookgen(&[
        "export",
        s(&default_book()),
        "--format",
        "obk",
        "-o",
        s(&out),
    ]);
    assert!(!no_keys.status.success());
    assert!(String::from_utf8_lossy(&no_keys.stderr).contains("--obk-keys"));
    let wrong = dir.path().join("wrong.keys");
    let numbers: Vec<String> = (1..=3585u64).map(|v| v.to_string()).collect();
    std::fs::write(&wrong, numbers.join(" ")).unwrap();
    let foreign = export_obk(&wrong, &out);
    let err = String::from_utf8_lossy(&foreign.stderr);
    assert!(!foreign.status.success());
    assert!(err.contains("wrong.keys: not BHGUI's key table"), "{err}");
    let not_obk = dir.path().join("not.obk");
    std::fs::write(&not_obk, b"SQLite format 3\0 but truncated").unwrap();
    let refused = bookgen(&[
        "import",
        "--obk",
        s(&not_obk),
        "--obk-keys",
        s(&keys_path),
        "-o",
        s(&out),
    ]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(err.contains("not.obk: not a BHGUI .obk book"), "{err}");
    assert!(!out.exists());
}
