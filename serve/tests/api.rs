//! Our JSON API over HTTP: book, tables, and analysis streamed as
//! server-sent events.

mod common;

use std::sync::Arc;

use common::{get, request};
use std::time::Duration;

use xqserve::chessdb::Library;
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::load::chessdb_path;

fn serve() -> std::net::SocketAddr {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let (book, unusable) =
        xqbook::BookFile::open(std::path::Path::new(&format!("{root}/data/book.xqb"))).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    let tables = tempfile::tempdir().unwrap().keep();
    common::build_rook_tables(&tables);
    let mut tb = xqegtb::Tablebase::new();
    tb.add_dir(&tables).unwrap();
    let store = Arc::new(xqserve::store::Store::open(None).unwrap());
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(100),
            workers: 1,
            queue: 0,
            search: xqengine::SearchConfig::default(),
        },
        store.clone(),
    );
    let library = Arc::new(
        Library::new(vec![book], Some(Arc::new(tb)), engine, store).with_policy(
            xqserve::chessdb::Policy {
                search_unknown: true,
                ..Default::default()
            },
        ),
    );
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
    // The default book's analysis scores the moves, best first, with the
    // games of those the games played (the central cannon's thousands).
    let moves = v["moves"].as_array().unwrap();
    assert!(moves.iter().all(|m| m["analysed"] == true), "{body}");
    let scores: Vec<i64> = moves.iter().map(|m| m["score"].as_i64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{body}");
    let h2e2 = moves.iter().find(|m| m["uci"] == "h2e2").unwrap();
    assert!(h2e2["stats"]["games"].as_u64().unwrap() > 1000, "{body}");

    let (_, body) = get(addr, &api("tables", "3k5/9/9/9/9/9/9/9/9/4K3R w", ""));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["moves"][0]["result"], "win", "{body}");
    let plies = v["moves"][0]["plies"].as_u64().unwrap() as usize;
    assert_eq!(v["line"].as_array().unwrap().len(), plies, "{body}");
    assert_eq!(v["metric"], "dtm", "{body}");
    // By distance to conversion: with a rook alone, conversion is mate.
    let (_, body) = get(
        addr,
        &api("tables", "3k5/9/9/9/9/9/9/9/9/4K3R w", "&metric=dtc"),
    );
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["metric"], "dtc", "{body}");
    assert_eq!(v["moves"][0]["result"], "win", "{body}");
    assert_eq!(
        v["moves"][0]["plies"].as_u64().unwrap() as usize,
        plies,
        "{body}"
    );
    assert_eq!(
        v["position"]["plies"].as_u64().unwrap() as usize,
        plies,
        "{body}"
    );

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

#[test]
fn every_api_error_is_json_with_an_error_status() {
    let addr = serve();
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    let too_big = vec![b'x'; 3 << 20];
    for (method, path, body, status) in [
        ("GET", "/api/position".to_string(), &b""[..], 400),
        ("GET", "/api/book?fen=x".to_string(), b"", 400),
        ("GET", api("analyse", start, "&lines=many"), b"", 400),
        ("GET", api("tables", start, "&metric=dtz"), b"", 400),
        ("GET", api("position", "garbage fen", ""), b"", 400),
        ("GET", "/api/nothing".to_string(), b"", 404),
        ("GET", "/api/pgn".to_string(), b"", 405),
        ("POST", "/api/pgn".to_string(), &too_big[..], 413),
    ] {
        let answer = request(addr, method, &path, body);
        let (got, kind, text) = (answer.status, answer.content_type, answer.body);
        assert_eq!(got, status, "{method} {path}: {text}");
        assert!(
            kind.starts_with("application/json"),
            "{method} {path}: {kind} {text}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text}"));
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{text}");
    }
}

#[test]
fn the_book_api_ranks_moves_as_chessdb_does() {
    let addr = serve();
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    for board in [start.to_string(), format!("{start} moves h2e2")] {
        let (_, body) = get(addr, &api("book", &board, ""));
        let book: serde_json::Value = serde_json::from_str(&body).unwrap();
        let (_, body) = get(
            addr,
            &format!("{}&json=1", chessdb_path("queryall", &board)),
        );
        let chessdb: serde_json::Value = serde_json::from_str(&body).unwrap();
        let ranked = |v: &serde_json::Value| -> Vec<(String, i64, i64)> {
            v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let uci = m["uci"].as_str().unwrap().to_string();
                    (
                        uci,
                        m["score"].as_i64().unwrap_or(i64::MIN),
                        m["rank"].as_i64().unwrap_or(-1),
                    )
                })
                .collect()
        };
        assert_eq!(ranked(&book), ranked(&chessdb), "{board}");
    }
}
