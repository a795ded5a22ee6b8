//! Drives `xqengine bench` as a user would.

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
