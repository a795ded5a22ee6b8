//! `xqserve --web-root DIR`: the files of DIR at every path but the API's
//! and the board's, and nothing outside DIR.

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::symlink;
use std::process::Command;

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR%20w";

#[test]
fn a_web_root_serves_its_files_beside_the_api_and_nothing_outside_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("page")).unwrap();
    std::fs::create_dir_all(root.join("file")).unwrap();
    std::fs::write(root.join("page/index.html"), "<p>a page</p>").unwrap();
    std::fs::write(root.join("file/style.css"), "p { color: red }").unwrap();
    // Beside the root, not in it; links to it, and one inside.
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    symlink("../secret.txt", root.join("link.txt")).unwrap();
    symlink("..", root.join("up")).unwrap();
    symlink("page/index.html", root.join("inside.html")).unwrap();
    let args = [
        OsStr::new("--web-root"),
        root.as_os_str(),
        OsStr::new("--tables"),
        OsStr::new("none"),
    ];
    let (_server, url, log) = common::start_server_logged(&args);
    let addr = common::address(&url);
    let get = |path: &str| common::request(addr, "GET", path, b"");

    let page = get("/page/");
    assert_eq!((page.status, page.body.as_str()), (200, "<p>a page</p>"));
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    let css = get("/file/style.css");
    assert_eq!((css.status, css.body.as_str()), (200, "p { color: red }"));
    assert!(
        css.content_type.starts_with("text/css"),
        "{}",
        css.content_type
    );
    // A folder without its slash is sent to it.
    assert_eq!(get("/page").status, 307);
    assert_eq!(get("/inside.html").status, 200);
    for path in [
        "/file/missing.css",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/page/../../secret.txt",
        "/page/%2e%2e/%2e%2e/secret.txt",
        "/link.txt",
        "/up/secret.txt",
    ] {
        let answer = get(path);
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (404, "no such page\n"),
            "{path}"
        );
    }
    // The API and the board stay ours.
    let board = get("/");
    assert!(
        board.body.contains("xqserve analysis board"),
        "{}",
        board.body
    );
    let moves = get(&format!("/chessdb.php?action=queryall&board={START}"));
    assert!(
        moves.status == 200 && moves.body.starts_with("move:"),
        "{}",
        moves.body
    );
    assert_eq!(get("/api/nothing").status, 404);
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("web root: ")),
        "{:?}",
        log.lock().unwrap()
    );
}

#[test]
fn without_a_web_root_other_paths_are_not_found() {
    let args = [OsStr::new("--tables"), OsStr::new("none")];
    let (_server, url, _log) = common::start_server_logged(&args);
    let answer = common::request(common::address(&url), "GET", "/query_en/", b"");
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (404, "no such page\n")
    );
}

#[test]
fn a_web_root_that_is_no_folder_is_refused_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "").unwrap();
    for (path, reason) in [
        (dir.path().join("missing"), "No such file"),
        (file, "not a folder"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_xqserve"))
            .args(["--listen", "127.0.0.1:0", "--tables", "none", "--web-root"])
            .arg(&path)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("--web-root {}: ", path.display())) && stderr.contains(reason),
            "{stderr}"
        );
    }
}
