//! `xqserve` as a user runs it: what `--help` and the start line say, and
//! the messages when a file cannot be used.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

fn xqserve(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xqserve"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("run xqserve")
}

/// Asserts that `stderr` is one message naming `path` once, with no
/// part said twice (`F: F: reason`, `cache: cache: reason`).
fn names_once(stderr: &str, path: &str, reason: &str) {
    let message = stderr.trim();
    assert_eq!(message.lines().count(), 1, "{message}");
    assert_eq!(message.matches(path).count(), 1, "{message}");
    assert!(message.contains(reason), "{message}");
    let parts: Vec<&str> = message.split(": ").collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(!parts[i + 1..].contains(part), "{part:?} twice: {message}");
    }
}

#[test]
fn a_missing_book_is_named_once_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("missing.xqb");
    let out = xqserve(&["--book", book.to_str().unwrap(), "--tables", "none"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_once(&stderr, book.to_str().unwrap(), "No such file");
}

#[test]
fn a_store_that_cannot_be_used_is_named_once_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("no such dir").join("store.sqlite");
    let out = xqserve(&["--store", store.to_str().unwrap(), "--tables", "none"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_once(
        &stderr,
        store.to_str().unwrap(),
        "unable to open database file",
    );
    assert!(stderr.contains("store"), "{stderr}");
    // A file that is not a store (here, a book) is refused, not written.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let book = dir.path().join("book.xqb");
    std::fs::copy(format!("{root}/data/book.xqb"), &book).unwrap();
    let before = std::fs::read(&book).unwrap();
    let out = xqserve(&["--store", book.to_str().unwrap(), "--tables", "none"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_once(&stderr, book.to_str().unwrap(), "not a database");
    assert!(
        std::fs::read(&book).unwrap() == before,
        "the book was written"
    );
}

#[test]
fn a_worker_names_what_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("token");
    let out = xqserve(&[
        "work",
        "--server",
        "http://127.0.0.1:9",
        "--token-file",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_once(&stderr, missing.to_str().unwrap(), "No such file");
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let out = xqserve(&[
        "work",
        "--server",
        "http://127.0.0.1:9",
        "--token-file",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_once(&stderr, empty.to_str().unwrap(), "empty");
    // A server nobody answers at (port 9, discard, is closed here).
    std::fs::write(&empty, "secret\n").unwrap();
    let out = xqserve(&[
        "work",
        "--server",
        "http://127.0.0.1:9",
        "--token-file",
        empty.to_str().unwrap(),
        "--tables",
        "none",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("http://127.0.0.1:9/chessdb.php"),
        "{stderr}"
    );
}

#[test]
fn help_names_the_analysis_board() {
    let help = xqserve(&["--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("analysis board"), "{text}");
    assert!(text.contains("GET /)") || text.contains("at /"), "{text}");
}

#[test]
fn the_start_line_gives_the_address_of_the_board() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_xqserve"))
        .args(["--listen", "127.0.0.1:0", "--tables", "none"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xqserve");
    let stderr = server.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) {
        lines.push(line);
        if lines.iter().any(|l| l.starts_with("board: ")) {
            break;
        }
    }
    server.kill().ok();
    server.wait().ok();
    let api = lines
        .iter()
        .find_map(|l| l.strip_prefix("listening on "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let board = lines
        .iter()
        .find_map(|l| l.strip_prefix("board: "))
        .unwrap_or_else(|| panic!("no board line: {lines:?}"));
    assert_eq!(api, format!("{board}chessdb.php"), "{lines:?}");
    assert!(
        board.starts_with("http://127.0.0.1:") && board.ends_with('/'),
        "{board}"
    );
}

/// A rook against a full defence, drawn: in KRKAABB's table.
const ROOK_DRAW: &str = "3akab2/9/4b4/9/9/9/9/9/4R4/4K4 w";

#[test]
fn damaged_tables_are_named_at_start_or_first_probe_and_answer_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let krkaabb: xqegtb::Material = "KRKAABB".parse().unwrap();
    egtbgen::build(dir.path(), &egtbgen::plan(&[krkaabb]), &|_| {}).unwrap();
    // One table that cannot be opened, one whose blocks fail their checksums.
    let (header, blocks) = (
        dir.path().join("KRKAAB.xqtb"),
        dir.path().join("KRKAABB.xqtb"),
    );
    common::damage_header(&header);
    common::damage_blocks(&blocks);
    let args = [std::ffi::OsStr::new("--tables"), dir.path().as_os_str()];
    let (server, url, log) = common::start_server_logged(&args);
    let addr = common::address(&url);
    let said = || log.lock().unwrap().clone();
    // At start: the table that cannot be opened, with the reason.
    let at_start = said();
    let named = |lines: &[String], file: &std::path::Path, reason: &str| {
        lines
            .iter()
            .filter(|l| l.contains(file.to_str().unwrap()) && l.contains(reason))
            .count()
    };
    assert_eq!(named(&at_start, &header, "checksum"), 1, "{at_start:#?}");
    assert_eq!(named(&at_start, &blocks, ""), 0, "{at_start:#?}");
    // The drawn position's table is damaged: no answer, neither from the
    // tables nor from the engine in their place; the table named once.
    for _ in 0..2 {
        let path = xqserve::load::chessdb_path("queryall", ROOK_DRAW);
        let (status, body) = common::get(addr, &path);
        assert_eq!((status, body.as_str()), (200, "unknown\0"));
        let path = path.replace("/chessdb.php?action=queryall&", "/api/tables?");
        let (status, body) = common::get(addr, &path);
        assert_eq!(status, 500, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"].as_str().unwrap().contains("damaged"), "{body}");
    }
    drop(server);
    let lines = said();
    assert_eq!(named(&lines, &blocks, "checksum"), 1, "{lines:#?}");
    assert_eq!(named(&lines, &header, "checksum"), 1, "{lines:#?}");
}

#[test]
fn the_bench_fills_a_store_of_its_own_and_every_query_is_answered_while_workers_write() {
    let out = xqserve(&[
        "--tables",
        "none",
        "bench",
        "--fill",
        "3000",
        "--queries",
        "300",
        "--clients",
        "20",
        "--engine-positions",
        "2",
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("store: 3000 positions filled"), "{said}");
    for kind in ["book", "store", "unknown", "engine"] {
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("{kind} ")))
            .unwrap_or_else(|| panic!("no {kind} line: {said}"));
        assert!(line.contains("{200: 300}"), "{line}");
    }
    assert_eq!(said.matches("  writes").count(), 4, "{said}");
    // The tables were none: their line says so.
    assert!(said.contains("table    no positions (no tables)"), "{said}");
    // It never touches a store of the user's.
    let out = xqserve(&["--store", "mine.sqlite", "--tables", "none", "bench"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never writes to yours"));
    assert!(!std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../mine.sqlite")).exists());
}
