//! `xqserve` as a user starts it, called over HTTP by a client written from
//! chessdb's API page (tests/chessdb_client.py, Python's standard library).

mod common;

use std::ffi::OsStr;
use std::process::Command;

#[test]
fn a_chessdb_client_gets_chessdb_replies() {
    let tables = tempfile::tempdir().unwrap();
    common::build_rook_tables(tables.path());
    let args = [
        OsStr::new("--think-ms"),
        OsStr::new("200"),
        OsStr::new("--tables"),
        tables.path().as_os_str(),
    ];
    let (mut server, url) = common::start_server(&args);
    let client = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/chessdb_client.py"
        ))
        .arg(&url)
        .output()
        .expect("run python3");
    server.kill().ok();
    server.wait().ok();
    assert!(
        client.status.success(),
        "{}{}",
        String::from_utf8_lossy(&client.stdout),
        String::from_utf8_lossy(&client.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&client.stdout).trim(), "ok");
}
