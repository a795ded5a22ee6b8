//! The opening book as a GUI sees it: moves at once from the default book,
//! within the margin of its analysis, announced with their scores and
//! games; a book without analysis by weight, never banned, announced with
//! weights (a weight is no score); other books; broken books reported
//! once, when set.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{best_of, search_infos, Engine, SECS};
use xqmatch::Protocol;

/// Whether `lines` hold the `info` line of a search to `depth`.
fn searched_to(depth: u32, lines: &[String]) -> bool {
    search_infos(Protocol::Ucci, lines)
        .iter()
        .any(|info| info.depth == Some(depth))
}

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

/// The default book without its analysis: a copy of data/book.xqb alone
/// in a directory of its own.
fn plain_book() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("book.xqb");
    std::fs::copy(data("book.xqb"), &copy).unwrap();
    let copy = copy.to_str().unwrap().to_string();
    (dir, copy)
}

/// An engine playing from the plain default book.
fn engine_with_plain_book() -> (Engine, tempfile::TempDir) {
    let (dir, book) = plain_book();
    let mut e = Engine::ucci();
    e.send(&format!("setoption bookfiles {book}"));
    (e, dir)
}

/// The answer to a game move from the start, which a book gives at once.
fn answer_at_once_from_the_start(e: &mut Engine) -> Vec<String> {
    e.send("position startpos");
    let t = Instant::now();
    e.send("go time 60 increment 0");
    let lines = e.collect_until("bestmove", SECS(10));
    let took = t.elapsed();
    assert!(took < Duration::from_millis(500), "{took:?}");
    lines
}

#[test]
fn the_default_book_plays_within_the_margin_of_its_analysis() {
    let mut e = Engine::ucci();
    let lines = answer_at_once_from_the_start(&mut e);
    // `info string book move M score S games G`, the move played first.
    let candidates: Vec<(String, i32, u32)> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string book move "))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!((f[1], f[3]), ("score", "games"), "{l}");
            (
                f[0].to_string(),
                f[2].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    assert!(!candidates.is_empty(), "{lines:?}");
    assert_eq!(best_of(lines.last().unwrap()), candidates[0].0);
    let best = candidates.iter().map(|c| c.1).max().unwrap();
    assert!(
        candidates.iter().all(|c| c.1 >= best - 15),
        "{candidates:?}"
    );
    // No search ran.
    assert!(
        !lines.iter().any(|l| l.starts_with("info depth")),
        "{lines:?}"
    );
    // A margin of 0 keeps only the best score.
    e.send("setoption bookmargin 0");
    e.send("go time 60 increment 0");
    let lines = e.collect_until("bestmove", SECS(10));
    let scores: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string book move "))
        .map(|l| l.split(' ').nth(2).unwrap())
        .collect();
    assert!(scores.iter().all(|s| *s == best.to_string()), "{lines:?}");
}

#[test]
fn in_book_the_answer_comes_at_once_with_the_candidates() {
    let (mut e, _dir) = engine_with_plain_book();
    let lines = answer_at_once_from_the_start(&mut e);
    // The default book (data/book.xqb): the central cannon is the heaviest.
    assert_eq!(best_of(lines.last().unwrap()), "h2e2");
    let candidates: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string book move "))
        .collect();
    assert!(candidates.len() >= 5, "{lines:?}");
    assert!(
        candidates[0].starts_with("info string book move h2e2 weight "),
        "{lines:?}"
    );
    // No search ran, and no line gives a score a client could take for an
    // evaluation.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains(" score ") || l.starts_with("info depth")),
        "{lines:?}"
    );
    // Out of the book: a search.
    e.send("position startpos moves a3a4 a6a5 i3i4 i6i5 a0a3 a9a6");
    e.send("go time 2 increment 0");
    let lines = e.collect_until("bestmove", SECS(10));
    assert!(searched_to(1, &lines), "{lines:?}");
}

#[test]
fn banned_moves_usebook_and_analysis_limits() {
    let (mut e, _dir) = engine_with_plain_book();
    e.send("position startpos");
    e.send("banmoves h2e2");
    e.send("go time 60 increment 0");
    assert_eq!(best_of(&e.expect("bestmove", SECS(10))), "c3c4");
    // Analysis limits always search.
    e.send("position startpos");
    e.send("go depth 2");
    let lines = e.collect_until("bestmove", SECS(10));
    assert!(searched_to(2, &lines), "{lines:?}");
    e.send("setoption usebook false");
    e.send("go time 2 increment 0");
    let lines = e.collect_until("bestmove", SECS(10));
    assert!(
        !lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
    assert!(searched_to(1, &lines), "{lines:?}");
}

#[test]
fn elephant_eye_books_and_broken_books() {
    let mut e = Engine::ucci();
    let broken = std::env::temp_dir().join(format!("xq-broken-{}.xqb", std::process::id()));
    std::fs::write(&broken, b"XQBOOK\0\0 broken").unwrap();
    e.send(&format!(
        "setoption bookfiles {};{}",
        broken.display(),
        data("eleeye/BOOK.DAT")
    ));
    e.send("setoption loadbook");
    let lines = e.collect_until("info string loadbook: 1 book file(s) open", SECS(10));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book not used") && l.contains("xq-broken")),
        "{lines:?}"
    );
    e.send("position startpos");
    e.send("go time 60 increment 0");
    // ElephantEye's book: b2e2 and h2e2 weigh 1473 each; b2e2 sorts first.
    assert_eq!(best_of(&e.expect("bestmove", SECS(10))), "b2e2");
    std::fs::remove_file(&broken).unwrap();
}

/// A book file that cannot be used is named once, when `bookfiles` is
/// set, with the reason; a table directory that cannot be read too, when
/// `egtbpaths` is set. Neither is said again at the next `go`.
#[test]
fn unusable_books_and_table_paths_are_named_when_set() {
    for dialect in ["ucci", "uci"] {
        let mut e = Engine::start();
        e.send(dialect);
        e.expect(&format!("{dialect}ok"), SECS(5));
        let dir = tempfile::tempdir().unwrap();
        let corrupt = dir.path().join("corrupt.xqb");
        std::fs::write(&corrupt, b"XQBOOK\0\0 truncated").unwrap();
        let missing = dir.path().join("missing.xqb");
        let set = |name: &str, value: String| match dialect {
            "ucci" => format!("setoption {} {value}", name.to_lowercase()),
            _ => format!("setoption name {name} value {value}"),
        };
        e.send(&set(
            "BookFiles",
            format!("{};{}", corrupt.display(), missing.display()),
        ));
        e.send(&set(
            "EGTBPaths",
            dir.path().join("no-tables").display().to_string(),
        ));
        e.send("isready");
        let lines = e.collect_until("readyok", SECS(10));
        let said = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
        assert_eq!(said("corrupt.xqb"), 1, "{lines:?}");
        assert_eq!(said("missing.xqb"), 1, "{lines:?}");
        assert_eq!(said("no-tables"), 1, "{lines:?}");
        assert!(
            lines
                .iter()
                .filter(|l| l.contains(".xqb") || l.contains("no-tables"))
                .all(|l| l.starts_with("info string ")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("missing.xqb") && l.contains("No such file")),
            "{lines:?}"
        );
        e.send("position startpos");
        e.send("go depth 3");
        let lines = e.collect_until("bestmove", SECS(10));
        assert!(
            !lines
                .iter()
                .any(|l| l.contains(".xqb") || l.contains("no-tables")),
            "said again: {lines:?}"
        );
    }
}

#[test]
fn selectivity_varies_the_book_moves() {
    let (mut e, _dir) = engine_with_plain_book();
    e.send("setoption selectivity large");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..12 {
        e.send("position startpos");
        e.send("go time 60 increment 0");
        let lines = e.collect_until("bestmove", SECS(10));
        let best = best_of(lines.last().unwrap());
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("info string book move {best} weight "))),
            "{lines:?}"
        );
        seen.insert(best);
    }
    assert!(seen.len() >= 2, "{seen:?}");
}
