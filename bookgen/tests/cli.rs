//! `bookgen` driven as users run it: build from the fixtures, probe,
//! describe, merge; bad inputs give a clear error and no file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bookgen, s, stdout};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/games")
        .join(name)
}

#[test]
fn build_probe_stats_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let big5 = dir.path().join("big5.xqb");
    let iccs = dir.path().join("iccs.xqb");
    let out = bookgen(&[
        "build",
        "-q",
        "-o",
        s(&big5),
        "--min-games",
        "2",
        "--max-ply",
        "10",
        s(&fixture("ccpd-first-200.big5.pgn")),
    ]);
    let summary = stdout(&out);
    assert!(summary.contains("games read 200, skipped 0"), "{summary}");
    stdout(&bookgen(&[
        "build",
        "-q",
        "-o",
        s(&iccs),
        "--min-games",
        "2",
        "--max-ply",
        "10",
        s(&fixture("ccpd-sample-3000.iccs.pgn")),
    ]));
    // The start: the central cannon leads, mirrored h2e2 and b2e2 apart.
    let probe = stdout(&bookgen(&["probe", s(&iccs)]));
    let first = probe.lines().next().unwrap();
    assert!(first.starts_with("h2e2 games "), "{probe}");
    // Moves in any notation lead to the position to probe.
    let reply = stdout(&bookgen(&["probe", s(&iccs), "--moves", "炮二平五"]));
    assert!(
        reply.lines().next().unwrap().starts_with("h9g7 "),
        "{reply}"
    );
    let by_fen = stdout(&bookgen(&[
        "probe",
        s(&iccs),
        "--fen",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    ]));
    assert_eq!(by_fen, probe);
    let bench = stdout(&bookgen(&["bench", s(&iccs), "--positions", "500"]));
    assert!(
        bench.starts_with("500 positions probed warm: median "),
        "{bench}"
    );
    let stats = stdout(&bookgen(&["stats", s(&iccs)]));
    assert!(stats.contains("entries "), "{stats}");
    assert!(stats.contains("min-games 2 max-ply 10"), "{stats}");
    // Merging adds up: the start's h2e2 games are the sum of both books'.
    let merged = dir.path().join("merged.xqb");
    stdout(&bookgen(&["merge", "-o", s(&merged), s(&big5), s(&iccs)]));
    let games = |book: &Path| -> u64 {
        let p = stdout(&bookgen(&["probe", s(book)]));
        let line = p
            .lines()
            .find(|l| l.starts_with("h2e2 "))
            .unwrap()
            .to_string();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    assert_eq!(games(&merged), games(&big5) + games(&iccs));
}

#[test]
fn bad_inputs_give_errors_and_leave_no_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.xqb");
    let out = bookgen(&[
        "build",
        "-q",
        "-o",
        s(&book),
        s(&dir.path().join("missing.pgn")),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.pgn"));
    assert!(!book.exists());
    // A corrupt book is refused, naming it.
    std::fs::write(&book, b"XQBOOK\0\0 not really").unwrap();
    let out = bookgen(&["probe", s(&book)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("b.xqb") && err.contains("truncated"), "{err}");
    // An endgame table given as a book, and a book damaged in any block:
    // probe and stats refuse them, naming the file.
    let mut table = b"XQEGTB\0\0".to_vec();
    table.resize(200, 0);
    let mut damaged =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb")).unwrap();
    // The last block ends where the index starts (header bytes 32..40).
    let index = u64::from_le_bytes(damaged[32..40].try_into().unwrap()) as usize;
    damaged[index - 1] ^= 0x01;
    for (bytes, why) in [(table, "xqbook"), (damaged, "block")] {
        std::fs::write(&book, bytes).unwrap();
        for command in ["probe", "stats"] {
            let out = bookgen(&[command, s(&book)]);
            assert!(!out.status.success(), "{command} {why}");
            let err = String::from_utf8_lossy(&out.stderr).to_string();
            assert!(
                err.contains("b.xqb") && err.contains(why),
                "{command}: {err}"
            );
        }
    }
    // A game that cannot be read is skipped and counted, not fatal.
    let pgn = dir.path().join("g.pgn");
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n1. h2e2 h9g7\n\n[Event \"b\"]\n1. h2h8\n",
    )
    .unwrap();
    let out = bookgen(&["build", "-q", "-o", s(&book), "--min-games", "1", s(&pgn)]);
    let summary = stdout(&out);
    assert!(
        summary.contains("games read 1, skipped 1 (illegal move 1)"),
        "{summary}"
    );
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("g.pgn: game 2, line 5"), "{err}");
}

/// ElephantEye's BOOK.DAT, which the engine plays from, is read by
/// `probe` and `stats` too.
#[test]
fn elephant_eye_books_are_probed_and_described() {
    let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
    let probe = stdout(&bookgen(&["probe", s(&eleeye)]));
    // b2e2 and h2e2 weigh 1473 each at the start.
    let lines: Vec<&str> = probe.lines().collect();
    assert_eq!(
        &lines[..2],
        ["b2e2 weight 1473", "h2e2 weight 1473"],
        "{probe}"
    );
    let reply = stdout(&bookgen(&["probe", s(&eleeye), "--moves", "h2e2"]));
    assert!(reply.lines().count() >= 3, "{reply}");
    let stats = stdout(&bookgen(&["stats", s(&eleeye)]));
    let bytes = std::fs::metadata(&eleeye).unwrap().len();
    assert!(stats.contains("format ElephantEye BOOK.DAT"), "{stats}");
    assert!(
        stats.contains(&format!("entries {}\n", bytes / 8)),
        "{stats}"
    );
    assert!(stats.contains(&format!("bytes {bytes} ")), "{stats}");
    let ours = stdout(&bookgen(&[
        "stats",
        s(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb")),
    ]));
    assert!(ours.contains("format xqbook opening book"), "{ours}");
    // A file of neither kind is refused, naming it and why.
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.dat");
    std::fs::write(&odd, b"12345").unwrap();
    let out = bookgen(&["probe", s(&odd)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("odd.dat") && err.contains("8-byte records"),
        "{err}"
    );
}

/// A build that would write an empty book is refused (no file written)
/// unless asked for with --allow-empty.
#[test]
fn an_empty_book_is_written_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("bad.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n1. h2h8\n\n[Event \"b\"]\n1. zz99\n").unwrap();
    let book = dir.path().join("empty.xqb");
    let out = bookgen(&["build", "-q", "-o", s(&book), s(&pgn)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("empty.xqb: not written: all 2 games were skipped"),
        "{err}"
    );
    assert!(!book.exists());
    // Games read, but no position reached by 1,000 of them.
    let good = fixture("ccpd-first-200.big5.pgn");
    let out = bookgen(&[
        "build",
        "-q",
        "-o",
        s(&book),
        "--min-games",
        "1000",
        s(&good),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("passes the filters (--min-games 1000"),
        "{err}"
    );
    assert!(!book.exists());
    let summary = stdout(&bookgen(&[
        "build",
        "-q",
        "-o",
        s(&book),
        "--allow-empty",
        s(&pgn),
    ]));
    assert!(summary.contains("positions 0, entries 0"), "{summary}");
    assert!(book.exists());
}

/// The book built from the game database `db` is the one built from the
/// 3,000-game record file: the same games are in it, each once.
fn assert_db_book_matches_records(dir: &Path, db: &Path) {
    let from_db = dir.join("db.xqb");
    let from_pgn = dir.join("pgn.xqb");
    stdout(&bookgen(&["build", "-q", "--db", s(db), "-o", s(&from_db)]));
    stdout(&bookgen(&[
        "build",
        "-q",
        "-o",
        s(&from_pgn),
        s(&fixture("ccpd-sample-3000.iccs.pgn")),
    ]));
    // The same games give the same book.
    for moves in [&[][..], &["h2e2"][..], &["h2e2", "h9g7"][..]] {
        let probe = |book: &Path| {
            let mut args = vec!["probe", s(book)];
            if !moves.is_empty() {
                args.push("--moves");
                args.extend(moves.iter().copied());
            }
            stdout(&bookgen(&args))
        };
        assert_eq!(probe(&from_db), probe(&from_pgn));
    }
}

#[test]
fn a_game_database_imports_once_and_builds_books() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite");
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/games");
    let first = stdout(&bookgen(&["import", "-q", "--db", s(&db), s(&games)]));
    // The 200 Big5 games are among the 3,000 ICCS ones: stored once.
    assert!(
        first.contains("games added 3000, duplicates 200"),
        "{first}"
    );
    let again = stdout(&bookgen(&["import", "-q", "--db", s(&db), s(&games)]));
    assert!(
        again.contains("unchanged since last import 2, games added 0"),
        "{again}"
    );
    assert_db_book_matches_records(dir.path(), &db);
    let missing = bookgen(&[
        "build",
        "--db",
        s(&dir.path().join("none.sqlite")),
        "-o",
        s(&dir.path().join("none.xqb")),
    ]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("none.sqlite"));
}

/// A plain (version 10) XQF file of the start position and `moves`.
fn xqf(moves: &[&str]) -> Vec<u8> {
    let start: [u8; 32] = [
        80, 70, 60, 50, 40, 30, 20, 10, 0, 72, 12, 83, 63, 43, 23, 3, 9, 19, 29, 39, 49, 59, 69,
        79, 89, 17, 77, 6, 26, 46, 66, 86,
    ];
    let mut f = vec![0u8; 0x400];
    f[..3].copy_from_slice(b"XQ\x0a");
    f[0x10..0x30].copy_from_slice(&start);
    f[0x33] = 1;
    let tag = |last: bool| if last { 0x00 } else { 0xf0 };
    f.extend_from_slice(&[0x18, 0x20, tag(moves.is_empty()), 0xff, 0, 0, 0, 0]);
    for (i, m) in moves.iter().enumerate() {
        let b = m.as_bytes();
        let sq = |f: u8, r: u8| (f - b'a') * 10 + (r - b'0');
        f.extend_from_slice(&[
            sq(b[0], b[1]) + 0x18,
            sq(b[2], b[3]) + 0x20,
            tag(i + 1 == moves.len()),
            0,
        ]);
        f.extend_from_slice(&[0, 0, 0, 0]);
    }
    f
}

#[test]
fn xqf_files_in_directories_are_read_and_broken_ones_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records/deeper");
    std::fs::create_dir_all(&records).unwrap();
    for i in 0..3 {
        std::fs::write(
            records.join(format!("g{i}.XQF")),
            xqf(&["h2e2", "h9g7", "h0g2"]),
        )
        .unwrap();
    }
    let mut broken = xqf(&["h2e2"]);
    broken.truncate(0x404);
    std::fs::write(records.join("broken.xqf"), broken).unwrap();
    let book = dir.path().join("b.xqb");
    let out = bookgen(&[
        "build",
        "-q",
        "-o",
        s(&book),
        "--min-games",
        "1",
        s(&dir.path().join("records")),
    ]);
    let summary = stdout(&out);
    // Three equal games: one counted, two duplicates.
    assert!(
        summary.contains("files 4, games read 3, skipped 1 (unreadable XQF file 1), duplicates 2"),
        "{summary}"
    );
    let probe = stdout(&bookgen(&["probe", s(&book), "--moves", "h2e2"]));
    assert!(probe.starts_with("h9g7 games 1 wdl 0/0/1"), "{probe}");
}

/// The files in `dir` whose names end with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect()
}

fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_bookgen"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &std::process::Child, signal: &str) {
    let pid = child.id().to_string();
    Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .unwrap();
}

#[test]
fn killed_builds_leave_no_broken_book_and_a_rerun_finishes() {
    let games = fixture("ccpd-sample-3000.iccs.pgn");
    for sig in ["INT", "KILL"] {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("b.xqb");
        let args = ["build", "-q", "--min-games", "1", "-o", s(&book), s(&games)];
        // Stopped while the book file is being written, if the moment is
        // caught (the write is short); otherwise at whatever point it ran to.
        let mut child = spawn(&args);
        while files_ending(dir.path(), ".tmp").is_empty() && child.try_wait().unwrap().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        signal(&child, sig);
        let status = child.wait().unwrap();
        if book.exists() {
            stdout(&bookgen(&["stats", s(&book)]));
        }
        if sig == "INT" && !status.success() {
            assert_eq!(status.code(), Some(130));
            assert!(
                files_ending(dir.path(), ".tmp").is_empty(),
                "SIGINT leaves no file"
            );
        }
        stdout(&bookgen(&args));
        stdout(&bookgen(&["stats", s(&book)]));
        assert!(files_ending(dir.path(), ".tmp").is_empty(), "{sig}");
    }
}

#[test]
fn a_killed_import_resumes_and_stores_every_game_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.sqlite");
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/games");
    let mut child = spawn(&["import", "-q", "--db", s(&db), s(&games)]);
    // Killed once the database exists: part of the games may be in.
    while !db.exists() && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    signal(&child, "KILL");
    child.wait().unwrap();
    stdout(&bookgen(&["import", "-q", "--db", s(&db), s(&games)]));
    let again = stdout(&bookgen(&["import", "-q", "--db", s(&db), s(&games)]));
    assert!(again.contains("games added 0"), "{again}");
    // Every game is in, once.
    assert_db_book_matches_records(dir.path(), &db);
}

#[test]
fn two_builds_of_one_book_do_not_spoil_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.xqb");
    let games = fixture("ccpd-sample-3000.iccs.pgn");
    let args = ["build", "-q", "--min-games", "1", "-o", s(&book), s(&games)];
    let runs: Vec<_> = (0..2).map(|_| spawn(&args)).collect();
    for mut run in runs {
        assert!(run.wait().unwrap().success());
    }
    let stats = stdout(&bookgen(&["stats", s(&book)]));
    assert!(stats.contains("entries"), "{stats}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "one book, no temporary file"
    );
}

#[test]
fn books_export_to_elephant_eye_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb");
    let dat = dir.path().join("BOOK.DAT");
    let out = stdout(&bookgen(&[
        "export",
        s(&ours),
        "--format",
        "eleeye",
        "-o",
        s(&dat),
    ]));
    assert!(out.contains("entries written"), "{out}");
    // ElephantEye's file, read back: the start position's moves, heaviest
    // first, are those of our book.
    let probe = stdout(&bookgen(&["probe", s(&dat)]));
    let first = probe.lines().next().unwrap();
    assert!(first.starts_with("h2e2 weight "), "{probe}");
    let back = dir.path().join("back.xqb");
    stdout(&bookgen(&[
        "export",
        s(&dat),
        "--format",
        "xqb",
        "-o",
        s(&back),
    ]));
    let probe = stdout(&bookgen(&["probe", s(&back), "--moves", "h2e2"]));
    assert!(probe.lines().count() >= 3, "{probe}");
    // A book that cannot be read is named, and nothing is written.
    let bad = dir.path().join("bad.xqb");
    std::fs::write(&bad, b"XQBOOK\0\0 broken").unwrap();
    let out = bookgen(&[
        "export",
        s(&bad),
        "--format",
        "eleeye",
        "-o",
        s(&dir.path().join("x.dat")),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.xqb"));
    assert!(!dir.path().join("x.dat").exists());
    // A file that cannot be written is named once, in either format.
    for (format, name) in [("xqb", "x.xqb"), ("eleeye", "x.dat")] {
        let target = dir.path().join("missing").join(name);
        let out = bookgen(&["export", s(&ours), "--format", format, "-o", s(&target)]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches(name).count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("bookgen: {}: ", target.display())),
            "{err}"
        );
    }
}

#[test]
fn a_judgement_at_depth_zero_is_refused_before_any_work() {
    // No book there: were depth 0 let through, the run would stop at once
    // on the missing file (exit 1), not search.
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("none.xqb");
    let out = bookgen(&["quality", s(&book), "--depth", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("'0' for '--depth <DEPTH>': must be 1 or more"),
        "{said}"
    );
    assert!(out.stdout.is_empty());
}
