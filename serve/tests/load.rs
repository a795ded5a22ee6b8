//! Under load: 100 clients at once, 10,000 book queries, all answered; a
//! burst of engine queries bounded by the queue, each position searched
//! at most once.

use std::sync::Arc;
use std::time::Duration;

use xqserve::chessdb::Library;
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::load::{chessdb_path, run};

fn library() -> Library {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let (book, unusable) =
        xqbook::BookFile::open(std::path::Path::new(&format!("{root}/data/book.xqb"))).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    let store = Arc::new(xqserve::store::Store::open(None).unwrap());
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(50),
            workers: 1,
            queue: 4,
            search: xqengine::SearchConfig::default(),
        },
        store.clone(),
    );
    Library::new(vec![book], None, engine, store).with_policy(xqserve::chessdb::Policy {
        search_unknown: true,
        ..Default::default()
    })
}

#[test]
fn a_hundred_clients_are_all_answered_and_engine_work_stays_bounded() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let library = Arc::new(library());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = xqserve::http::router(library.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });

        let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
        let book: Vec<String> = ["", " moves h2e2", " moves h2e2 h9g7", " moves c3c4"]
            .iter()
            .map(|m| chessdb_path("queryall", &format!("{start}{m}")))
            .collect();
        let r = run(addr, 100, 10_000, Arc::new(book)).await;
        assert_eq!(r.unanswered, 0);
        assert_eq!(r.statuses.get(&200), Some(&10_000), "{:?}", r.statuses);

        // Bad queries among good ones: each refused (a bad board with
        // chessdb's word and 200, as chessdb answers it), the server goes on.
        let bad = vec![
            chessdb_path("queryall", "nonsense w"),
            format!("/chessdb.php?action=queryall&board={}", "x".repeat(9_000)),
            "/../../etc/passwd".to_string(),
            chessdb_path("queryall", start),
        ];
        let r = run(addr, 10, 400, Arc::new(bad)).await;
        assert_eq!(r.unanswered, 0);
        assert_eq!(r.statuses.get(&414), Some(&100), "{:?}", r.statuses);
        assert_eq!(r.statuses.get(&404), Some(&100), "{:?}", r.statuses);
        assert_eq!(r.statuses.get(&200), Some(&200), "{:?}", r.statuses);

        // 30 positions no book knows, asked 600 times by 100 clients.
        let mut boards = Vec::new();
        let mut pos = xqcore::Position::start();
        let mut moves: Vec<String> = Vec::new();
        for i in 0..30 {
            let legal = pos.legal_moves();
            let m = legal[(i * 7) % legal.len()];
            pos.make_move(m);
            moves.push(m.to_string());
            boards.push(chessdb_path(
                "querypv",
                &format!("{start} moves {}", moves.join(" ")),
            ));
        }
        let r = run(addr, 100, 600, Arc::new(boards)).await;
        assert_eq!(r.unanswered, 0);
        let ok = r.statuses.get(&200).copied().unwrap_or(0);
        let busy = r.statuses.get(&503).copied().unwrap_or(0);
        assert_eq!(ok + busy, 600, "{:?}", r.statuses);
        assert!(
            library.engine.searches() <= 30,
            "{} searches",
            library.engine.searches()
        );
    });
}
