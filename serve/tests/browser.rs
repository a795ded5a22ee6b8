//! The analysis board in a real browser: headless Chromium loads the page,
//! which plays two moves by clicking the board as a user does (its
//! `?selftest=1` mode), asks for an analysis, and writes what its panes
//! show; the test reads that from the page's DOM and takes a screenshot.
//! Needs `chromium` (Debian package; .ci/run installs it).

mod common;

use std::ffi::OsStr;
use std::process::Command;

fn chromium(args: &[&str]) -> std::process::Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=30000",
        ])
        .args(args)
        .output()
        .expect("run chromium (apt-get install chromium)")
}

/// Fails the test, before a server starts, when `chromium` cannot be run:
/// a message saying how to install it, no panic location or backtrace.
fn need_chromium() {
    if let Err(e) = Command::new("chromium").arg("--version").output() {
        let why = format!(
            "chromium cannot be run ({e}): the analysis board's test needs it. Install it \
             with `apt-get install chromium fonts-wqy-zenhei`, or run scripts/test.sh, \
             which installs what the tests need and runs them."
        );
        eprintln!("{why}");
        std::panic::resume_unwind(Box::new(why));
    }
}

#[test]
fn the_board_plays_moves_and_shows_book_and_engine() {
    need_chromium();
    let args = ["--think-ms", "300", "--tables", "none"].map(OsStr::new);
    let (mut server, url) = common::start_server(&args);
    let base = url.trim_end_matches("chessdb.php");
    let page = format!("{base}?selftest=1");
    let dom = chromium(&["--dump-dom", &page]);
    let html = String::from_utf8_lossy(&dom.stdout).to_string();
    let shot = tempfile::tempdir().unwrap();
    let png = shot.path().join("board.png");
    let screenshot = chromium(&[
        "--window-size=1000,1100",
        &format!("--screenshot={}", png.display()),
        &page,
    ]);
    server.kill().ok();
    server.wait().ok();

    let report = html
        .split("<pre id=\"selftest\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("no self-test report in the page:\n{html}"));
    let report = report
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let v: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(v["moves"], serde_json::json!(["h2e2", "h9g7"]), "{report}");
    assert!(
        v["fen"]
            .as_str()
            .unwrap()
            .starts_with("rnbakab1r/9/1c4nc1/"),
        "{report}"
    );
    let book = v["book"].as_array().unwrap();
    assert!(!book.is_empty(), "the book pane lists moves: {report}");
    let engine = v["engine"].as_array().unwrap();
    assert!(engine.len() >= 2, "several engine lines: {report}");
    assert!(
        engine[0].as_str().unwrap().starts_with("1. depth "),
        "{report}"
    );
    assert!(
        v["pgn"].as_str().unwrap().contains("1. H2-E2 H9-G7"),
        "{report}"
    );
    assert!(
        screenshot.status.success(),
        "{}",
        String::from_utf8_lossy(&screenshot.stderr)
    );
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "screenshot of {size} bytes");
}
