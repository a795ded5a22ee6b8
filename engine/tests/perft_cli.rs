//! Drives `xqengine perft` as a user would.

use std::process::Command;

fn xqengine(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .args(args)
        .output()
        .expect("run xqengine")
}

#[test]
fn perft_prints_each_root_move_then_nodes() {
    let out = xqengine(&["perft", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 45, "{text}");
    assert_eq!(*lines.last().unwrap(), "nodes 79666");
    let sum: u64 = lines[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 79666);
    assert!(lines.iter().any(|l| l.starts_with("h2e2: ")));
}

#[test]
fn perft_reads_a_fen() {
    let out = xqengine(&[
        "perft",
        "2",
        "--fen",
        "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w",
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .ends_with("nodes 424\n"));
}

#[test]
fn perft_refuses_a_bad_fen_with_the_reason() {
    let out = xqengine(&["perft", "2", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 w"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("kings face each other"), "{err}");
}
