//! Broken book and table files as a GUI user meets them: the engine says
//! which file it cannot use and why (`info string`), then plays on without
//! it. Covered: a flipped byte, a cut at a block boundary, a header from
//! another file, a table under another table's name, a book given as a
//! table and a table given as a book.

mod common;

use std::path::{Path, PathBuf};

use common::{best_of, search_infos, Engine, SECS};
use egtbgen::{build, plan, table_path};
use xqegtb::Material;
use xqmatch::Protocol;
use xqstore::{Layout, HEADER_LEN};

/// A KRK position where Red mates in a few moves.
const KRK: &str = "3k5/9/9/9/9/9/9/9/R8/4K4 w";

fn default_book() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb")
}

/// Broken copies of the container file `good_file`: a flipped byte in the
/// header, the metadata, the index and every block; cuts at the end of the
/// header and of every block (the places a half-copied file is most likely
/// to stop); its header over `other`'s body.
fn broken_copies(good_file: &Path, other: &[u8]) -> Vec<(String, Vec<u8>)> {
    let good = std::fs::read(good_file).unwrap();
    let layout = Layout::read(good_file).expect("a sound container");
    let ends: Vec<usize> = layout.block_ends().map(|end| end as usize).collect();
    let mut copies = Vec::new();
    let index = layout.index.start as usize;
    for (what, at) in [
        ("header", 20),
        ("metadata", HEADER_LEN + 1),
        ("index", index + 3),
    ] {
        let mut bytes = good.to_vec();
        bytes[at] ^= 0x01;
        copies.push((format!("flipped {what} byte"), bytes));
    }
    // Tables check a block when they first read it: damage every block, so
    // whichever the probes read is damaged.
    let mut bytes = good.to_vec();
    for &end in &ends {
        bytes[end - 1] ^= 0x01;
    }
    copies.push(("a flipped byte in every block".into(), bytes));
    for &end in [HEADER_LEN].iter().chain(&ends) {
        copies.push((format!("cut at {end}"), good[..end].to_vec()));
    }
    let mut swapped = good[..HEADER_LEN].to_vec();
    swapped.extend_from_slice(&other[HEADER_LEN..]);
    copies.push(("swapped header".into(), swapped));
    copies
}

/// Asks the engine for a move in `fen` and returns what it printed.
fn play(e: &mut Engine, fen: &str) -> Vec<String> {
    e.send(&format!("position fen {fen}"));
    e.send("go depth 3");
    e.collect_until("bestmove", SECS(30))
}

/// Whether the engine searched some nodes (book moves come as `info depth
/// 0` lines without a node count, table answers with `nodes 0`).
fn searched(lines: &[String]) -> bool {
    search_infos(Protocol::Ucci, lines)
        .iter()
        .any(|info| info.depth.is_some() && info.nodes.is_some_and(|n| n > 0))
}

fn has_info_naming(lines: &[String], file: &Path) -> bool {
    let name = file.file_name().unwrap().to_str().unwrap();
    lines
        .iter()
        .any(|l| l.starts_with("info string") && l.contains(name))
}

#[test]
fn broken_tables_are_reported_and_the_engine_searches_instead() {
    let dir = tempfile::tempdir().unwrap();
    let krk: Material = "KRK".parse().unwrap();
    let kck: Material = "KCK".parse().unwrap();
    build(dir.path(), &plan(&[krk, kck]), &|_| {}).unwrap();
    let other = std::fs::read(table_path(dir.path(), kck)).unwrap();
    let book = std::fs::read(default_book()).unwrap();
    let mut cases = broken_copies(&table_path(dir.path(), krk), &other);
    cases.push(("KCK's table named KRK".into(), other.clone()));
    cases.push(("a book named KRK".into(), book));

    let mut e = Engine::ucci();
    for (what, bytes) in cases {
        let broken = tempfile::tempdir().unwrap();
        let file = table_path(broken.path(), krk);
        std::fs::write(&file, &bytes).unwrap();
        e.send(&format!("setoption egtbpaths {}", broken.path().display()));
        let lines = play(&mut e, KRK);
        assert!(has_info_naming(&lines, &file), "{what}: {lines:?}");
        // Searched, not answered from the table.
        assert!(searched(&lines), "{what}: {lines:?}");
        assert_ne!(best_of(lines.last().unwrap()), "(none)", "{what}");
    }
    // The intact table answers at once.
    e.send(&format!("setoption egtbpaths {}", dir.path().display()));
    let lines = play(&mut e, KRK);
    assert!(!searched(&lines), "{lines:?}");
}

#[test]
fn broken_books_are_reported_and_the_engine_searches_instead() {
    let good = std::fs::read(default_book()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let krk: Material = "KRK".parse().unwrap();
    build(dir.path(), &plan(&[krk]), &|_| {}).unwrap();
    let table = std::fs::read(table_path(dir.path(), krk)).unwrap();
    // The book's header over a table's body: another container's index.
    let mut cases = broken_copies(&default_book(), &table);
    cases.push(("a table given as a book".into(), table));
    // A book is checked whole when opened: damage far from the opening's
    // own block is refused too.
    let mut last_block = good.clone();
    let layout = Layout::read(&default_book()).unwrap();
    last_block[layout.index.start as usize - 1] ^= 0x01;
    cases.push(("a flipped byte in the last block".into(), last_block));

    let mut e = Engine::ucci();
    // A game clock, not an analysis limit: the book is consulted.
    e.send("setoption usemillisec true");
    for (what, bytes) in cases {
        let file = dir.path().join("broken.xqb");
        std::fs::write(&file, &bytes).unwrap();
        e.send(&format!("setoption bookfiles {}", file.display()));
        e.send("position startpos");
        e.send("go time 2000 increment 0");
        let lines = e.collect_until("bestmove", SECS(30));
        assert!(has_info_naming(&lines, &file), "{what}: {lines:?}");
        assert!(searched(&lines), "{what}: {lines:?}");
        assert_ne!(best_of(lines.last().unwrap()), "(none)", "{what}");
    }
    // The intact book answers at once, without a search.
    e.send(&format!("setoption bookfiles {}", default_book().display()));
    e.send("position startpos");
    e.send("go time 2000 increment 0");
    let lines = e.collect_until("bestmove", SECS(30));
    assert!(!searched(&lines), "{lines:?}");
}
