//! Our JSON API over HTTP: book, tables, and analysis streamed as
//! server-sent events.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use xqserve::chessdb::Library;
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::load::chessdb_path;

/// GET `path`, the whole answer (the connection closed by the server).
fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    (status, body)
}

fn serve() -> std::net::SocketAddr {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let book = xqbook::open(std::path::Path::new(&format!("{root}/data/book.xqb"))).unwrap();
    let tables = tempfile::tempdir().unwrap().keep();
    let krk: xqegtb::Material = "KRK".parse().unwrap();
    xqegtb::build::build(&tables, &xqegtb::build::plan(&[krk]), &|_| {}).unwrap();
    let mut tb = xqegtb::Tablebase::new();
    tb.add_dir(&tables).unwrap();
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(100),
            workers: 1,
            queue: 0,
            search: xqengine::SearchConfig::default(),
        },
        None,
    )
    .unwrap();
    let library = Arc::new(Library {
        books: vec![book],
        tables: Some(Arc::new(tb)),
        engine,
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, xqserve::http::router(library))
                .await
                .unwrap();
        })
    });
    rx.recv().unwrap()
}

/// `chessdb_path`'s board encoding, for our routes.
fn api(route: &str, board: &str, rest: &str) -> String {
    let path = chessdb_path("x", board);
    format!(
        "/api/{route}?{}{rest}",
        &path[path.find("board=").unwrap()..]
    )
}

#[test]
fn book_tables_and_streamed_analysis() {
    let addr = serve();
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let (status, body) = get(addr, &api("book", start, ""));
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let first = &v["moves"][0];
    assert!(first["stats"]["games"].as_u64().unwrap() > 1000, "{body}");

    let (_, body) = get(addr, &api("tables", "3k5/9/9/9/9/9/9/9/9/4K3R w", ""));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["moves"][0]["result"], "win", "{body}");
    let plies = v["moves"][0]["plies"].as_u64().unwrap() as usize;
    assert_eq!(v["line"].as_array().unwrap().len(), plies, "{body}");

    let (status, body) = get(addr, &api("analyse", start, "&lines=2&ms=300"));
    assert_eq!(status, 200);
    let infos: Vec<serde_json::Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    assert!(infos.iter().any(|i| i["line"] == 2), "two lines: {body}");
    let done = infos.last().unwrap();
    assert!(done["best"].is_string(), "{body}");

    let (status, body) = get(addr, &api("book", "not a board", ""));
    assert_eq!(status, 400);
    assert!(body.contains("\"error\""), "{body}");
}
