//! `xqserve` as a user starts it, called over HTTP by a client written from
//! chessdb's API page (tests/chessdb_client.py, Python's standard library).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn a_chessdb_client_gets_chessdb_replies() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let tables = tempfile::tempdir().unwrap();
    let krk: xqegtb::Material = "KRK".parse().unwrap();
    xqegtb::build::build(tables.path(), &xqegtb::build::plan(&[krk]), &|_| {}).unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_xqserve"))
        .args(["--listen", "127.0.0.1:0", "--think-ms", "200", "--tables"])
        .arg(tables.path())
        .current_dir(root)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xqserve");
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("listening on ").map(str::to_string))
        .expect("xqserve says where it listens");
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
