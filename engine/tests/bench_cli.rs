//! Drives `xqengine bench` and `xqengine solve` as a user would.

use std::process::{Command, Stdio};

#[test]
fn bench_ends_with_the_node_count_and_speed() {
    let out = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(["bench", "--depth", "4"])
        .output()
        .expect("run xqengine");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let last: Vec<&str> = text.lines().last().unwrap().split(' ').collect();
    assert_eq!(last.len(), 4, "{text}");
    assert_eq!((last[1], last[3]), ("nodes", "nps"), "{text}");
    assert!(last[0].parse::<u64>().unwrap() > 0, "{text}");
}

/// `xqengine bench | head -1`: the reader is gone before the output comes.
#[test]
fn bench_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(["bench", "--depth", "6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run xqengine");
    // Closing the read end makes every write fail with a broken pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for xqengine");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Runs `xqengine ARGS`: whether it succeeded, the first word of its last
/// line (a bench's node count), and its stderr.
fn run_xqengine(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(args)
        .output()
        .expect("run xqengine");
    let text = String::from_utf8(out.stdout).unwrap();
    let nodes = text
        .lines()
        .last()
        .and_then(|l| l.split(' ').next())
        .unwrap_or_default()
        .to_string();
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.success(), nodes, stderr)
}

#[test]
fn bench_with_a_net_file_searches_as_with_that_net_built_in() {
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../nnue/nets/default.xqnn");
    let (ok, built_in, _) = run_xqengine(&["bench", "--depth", "5", "--eval", "nnue"]);
    assert!(ok);
    let (ok, from_file, stderr) = run_xqengine(&["bench", "--depth", "5", "--net", shipped]);
    assert!(ok, "{stderr}");
    assert_eq!(from_file, built_in);
    assert!(stderr.starts_with("net "), "{stderr}");
    // And the hand-crafted evaluation searches differently.
    let (_, hce, _) = run_xqengine(&["bench", "--depth", "5", "--eval", "hce"]);
    assert_ne!(hce, built_in);
}

#[test]
fn bench_names_a_net_file_it_cannot_use() {
    let dir = std::env::temp_dir().join(format!("xq-bench-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.xqnn");
    std::fs::write(&bad, b"not a net").unwrap();
    let (ok, _, stderr) = run_xqengine(&["bench", "--net", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("bad.xqnn"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_reports_each_puzzle_and_fails_unless_all_are_solved() {
    let dir = std::env::temp_dir().join(format!("xq-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mates = include_str!("../../data/mates.txt");
    let first_mate = mates.lines().find(|l| l.starts_with("1\t")).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, format!("# one mate in one\n{first_mate}\n")).unwrap();
    let (ok, _, stderr) = run_xqengine(&["solve", good.to_str().unwrap(), "--nodes", "20000"]);
    assert!(ok, "{stderr}");

    // The same mate, expected in two moves: the engine's mate in one is
    // not the answer.
    let wrong = dir.join("wrong.txt");
    std::fs::write(&wrong, first_mate.replacen('1', "2", 1)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(["solve", wrong.to_str().unwrap(), "--nodes", "20000"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("FAILED line   1"), "{text}");
    assert!(text.ends_with("solved 0 of 1\n"), "{text}");

    // A file without a puzzle is refused, named, as bad input.
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "# nothing here yet\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(["solve", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("empty.txt: no puzzles"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("solved"));

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "# x\n1\tnot a fen\th7e7\n").unwrap();
    let (ok, _, stderr) = run_xqengine(&["solve", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("bad.txt: line 2: FEN"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
