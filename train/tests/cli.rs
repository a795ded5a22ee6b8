//! `xqtrain datagen` then `xqtrain tune`, as a user runs them.

use std::process::Command;

fn xqtrain(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xqtrain"))
        .args(args)
        .output()
        .expect("run xqtrain")
}

#[test]
fn data_from_self_play_and_records_tunes_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    let out = xqtrain(&[
        "datagen",
        "--out",
        data.to_str().unwrap(),
        "--games",
        "2",
        "--nodes",
        "300",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = std::fs::read_to_string(&data).unwrap().lines().count();
    assert!(lines > 0);
    // Game records in Chinese notation and Big5, read by xqrecords.
    let games = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/games/ccpd-first-200.big5.pgn"
    );
    let weights = dir.path().join("weights.rs");
    let out = xqtrain(&[
        "tune",
        data.to_str().unwrap(),
        "--pgn",
        games,
        "--epochs",
        "2",
        "--out",
        weights.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("ccpd-first-200.big5.pgn: "), "{stderr}");
    let used: usize = stderr
        .split("ccpd-first-200.big5.pgn: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(used > 150, "{stderr}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert!(source.contains("pub const WEIGHTS"), "{source}");
    // A missing record file is refused, naming it.
    let out = xqtrain(&[
        "tune",
        data.to_str().unwrap(),
        "--pgn",
        "/nonexistent/games.pgn",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/games.pgn"));
}
