//! `xqengine match`: engine against itself over UCCI, games adjudicated.

use std::process::Command;

#[test]
fn a_short_match_plays_to_a_result() {
    let exe = env!("CARGO_BIN_EXE_xqengine");
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/openings.txt");
    let out = Command::new(exe)
        .args([
            "match",
            "--engine1",
            exe,
            "--engine2",
            exe,
            "--games",
            "2",
            "--tc",
            "0.5+0.02",
        ])
        .args(["--openings", openings, "--tolerance", "1000"])
        .output()
        .expect("run match");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<&str> = text.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{text}");
    for g in &games {
        // Every game ends by a rule, never by an engine fault.
        assert!(
            !g.contains("IllegalMove")
                && !g.contains("EngineFailure")
                && !g.contains("TimeForfeit"),
            "{g}"
        );
    }
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("engine1 +") && last.ends_with('%'),
        "{last}"
    );
}

#[test]
fn bad_arguments_are_refused() {
    let exe = env!("CARGO_BIN_EXE_xqengine");
    let out = Command::new(exe)
        .args(["match", "--engine1", exe, "--engine2", exe, "--tc", "fast"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tc"));
    let out = Command::new(exe)
        .args([
            "match",
            "--engine1",
            exe,
            "--engine2",
            exe,
            "--openings",
            "/nonexistent/openings.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/openings.txt"));
}
