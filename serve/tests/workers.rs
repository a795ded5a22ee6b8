//! Workers on other machines, by chessdb's worker protocol: a worker with
//! the operator's secret takes queued positions, analyses them and sends
//! the results; without the secret nothing is written; a bad result is
//! refused, naming why; a batch whose worker vanished goes back to the
//! queue; a client over the rate limit is held back.

use std::sync::Arc;
use std::time::Duration;

use xqcore::Position;
use xqserve::analysers::AnalysisConfig;
use xqserve::chessdb::{answer_from, Library, Params, Policy, Reply};
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::store::Store;
use xqserve::work::{work, WorkConfig, WorkError};
use xqserve::workers::{board_text, md5_hex, Client, Tokens};

const SECRET: &str = "operator's secret";

/// Positions no book knows, a few moves into three openings.
fn unknown_positions() -> Vec<Position> {
    [
        "a0a1 a9a8 a1a0 a8a9 i0i1",
        "a0a1 a9a8 a1a0 a8a9 i0i1 i9i8",
        "c3c4 c6c5 b0c2",
    ]
    .iter()
    .map(|line| {
        let mut pos = Position::start();
        for m in line.split(' ') {
            let mv = pos.parse_move(m).unwrap();
            pos.make_move(mv);
        }
        // Without its history: as the store keeps it.
        Position::from_fen(&pos.fen()).unwrap()
    })
    .collect()
}

fn library(store: Arc<Store>, policy: Policy) -> Library {
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(100),
            workers: 1,
            queue: 4,
            search: xqengine::SearchConfig::default(),
        },
        store.clone(),
    );
    Library::new(Vec::new(), None, engine, store).with_policy(policy)
}

fn with_secret() -> Policy {
    Policy {
        tokens: Tokens::from_secret(SECRET),
        ..Policy::default()
    }
}

/// `library` served on a free local port (each client known by its
/// address); the server's URL.
fn serve(library: Library) -> String {
    let library = Arc::new(library);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            xqserve::http::serve(listener, library, None, std::future::pending())
                .await
                .unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

fn worker(server: &str, secret: &str) -> WorkConfig {
    WorkConfig {
        server: server.to_string(),
        tokens: Tokens::from_secret(secret),
        analysis: AnalysisConfig {
            think: Duration::from_millis(150),
            lines: 3,
            lease: Duration::ZERO,
            search: xqengine::SearchConfig::default(),
        },
        until_empty: true,
        max_positions: None,
        idle: Duration::from_millis(100),
    }
}

fn ask(library: &Library, client: &Client, query: &[(&str, &str)]) -> Reply {
    let params: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(answer_from(library, Params(&params), client))
}

fn text(r: &Reply) -> &str {
    r.body.trim_end_matches('\0')
}

#[test]
fn a_worker_with_the_secret_analyses_the_queue_and_the_server_knows_the_positions() {
    let store = Arc::new(Store::open(None).unwrap());
    for pos in unknown_positions() {
        store.enqueue(&pos, 1).unwrap();
    }
    let url = serve(library(store.clone(), with_secret()));
    let done = work(&worker(&url, SECRET)).expect("worked");
    assert_eq!(done, 3);
    let counts = store.counts().unwrap();
    assert_eq!((counts.positions, counts.queued), (3, 0), "{counts:?}");
    for pos in unknown_positions() {
        let stored = store.get(&pos).unwrap().expect("stored");
        assert_eq!(stored.moves.len(), 3, "{stored:?}");
        assert_eq!(stored.search.best, stored.moves[0].mv);
    }
}

#[test]
fn without_the_secret_nothing_is_handed_out_or_written() {
    let store = Arc::new(Store::open(None).unwrap());
    let pos = unknown_positions()[0].clone();
    store.enqueue(&pos, 1).unwrap();
    // A worker with another secret.
    let url = serve(library(store.clone(), with_secret()));
    let refused = work(&worker(&url, "guess")).expect_err("refused");
    assert!(matches!(refused, WorkError::Token { .. }), "{refused}");
    assert!(refused.to_string().contains("token"), "{refused}");
    // A server with no secret refuses every write.
    let open = library(store.clone(), Policy::default());
    let client = Client::at("10.1.2.3".parse().unwrap());
    let token = md5_hex(&["ChessDB", "10.1.2.3", ""]);
    let r = ask(&open, &client, &[("action", "getqueue"), ("token", &token)]);
    assert_eq!(text(&r), "tokenerror");
    let board = board_text(&pos);
    let proof = md5_hex(&[&token, &board, "a9a8", "10"]);
    let r = ask(
        &open,
        &client,
        &[
            ("action", "store"),
            ("board", &board),
            ("move", "a9a8"),
            ("score", "10"),
            ("token", &proof),
        ],
    );
    assert_eq!(text(&r), "tokenerror");
    let counts = store.counts().unwrap();
    assert_eq!((counts.positions, counts.queued, counts.leased), (0, 1, 0));
}

#[test]
fn a_bad_result_is_refused_saying_why_and_nothing_is_written() {
    let store = Arc::new(Store::open(None).unwrap());
    let lib = library(store.clone(), with_secret());
    let client = Client::at("10.1.2.3".parse().unwrap());
    let token = Tokens::from_secret(SECRET)
        .worker_token("10.1.2.3")
        .unwrap();
    let pos = unknown_positions()[0].clone();
    let board = board_text(&pos);
    let store_move = |mv: &str, score: &str| {
        let proof = md5_hex(&[&token, &board, mv, score]);
        let r = ask(
            &lib,
            &client,
            &[
                ("action", "store"),
                ("board", &board),
                ("move", mv),
                ("score", score),
                ("token", &proof),
            ],
        );
        text(&r).to_string()
    };
    let illegal = store_move("a9a5", "10");
    assert!(
        illegal.starts_with("invalid move: \"a9a5\" is not a legal move"),
        "{illegal}"
    );
    let garbage = store_move("a9a8", "ten");
    assert!(garbage.starts_with("invalid score: \"ten\""), "{garbage}");
    let beyond = store_move("a9a8", "40000");
    assert!(beyond.starts_with("invalid score"), "{beyond}");
    assert_eq!(store.counts().unwrap().moves, 0);
    // From another address the same proof is no proof.
    let proof = md5_hex(&[&token, &board, "a9a8", "10"]);
    let elsewhere = Client::at("10.9.9.9".parse().unwrap());
    let r = ask(
        &lib,
        &elsewhere,
        &[
            ("action", "store"),
            ("board", &board),
            ("move", "a9a8"),
            ("score", "10"),
            ("token", &proof),
        ],
    );
    assert_eq!(text(&r), "tokenerror");
    // A good one is written, scored for the side that plays it.
    assert_eq!(store_move("a9a8", "10"), "ok");
    let stored = store.get(&pos).unwrap().unwrap();
    assert_eq!(
        (stored.moves[0].mv.to_string(), stored.moves[0].score),
        ("a9a8".into(), -10)
    );
}

#[test]
fn a_batch_whose_worker_vanished_goes_back_to_the_queue() {
    let store = Arc::new(Store::open(None).unwrap());
    for pos in unknown_positions() {
        store.enqueue(&pos, 1).unwrap();
    }
    let lib = library(
        store.clone(),
        Policy {
            lease: Duration::from_secs(1),
            ..with_secret()
        },
    );
    let client = Client::at("10.1.2.3".parse().unwrap());
    let token = Tokens::from_secret(SECRET)
        .worker_token("10.1.2.3")
        .unwrap();
    let first = ask(&lib, &client, &[("action", "getqueue"), ("token", &token)]);
    assert_eq!(text(&first).lines().count(), 3, "{}", first.body);
    let none = ask(&lib, &client, &[("action", "getqueue"), ("token", &token)]);
    assert_eq!(none.body, "", "all held");
    // The worker never comes back: after its lease the batch is handed out
    // again, and acknowledged by its new name.
    std::thread::sleep(Duration::from_millis(2100));
    let again = ask(&lib, &client, &[("action", "getqueue"), ("token", &token)]);
    let sorted = |t: &str| {
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(text(&again)), sorted(text(&first)));
    let key = md5_hex(&[&again.body]);
    let wrong = ask(
        &lib,
        &client,
        &[("action", "ackqueue"), ("key", &key), ("token", &token)],
    );
    assert_eq!(text(&wrong), "tokenerror");
    let proof = md5_hex(&[&token, &key]);
    let ack = ask(
        &lib,
        &client,
        &[("action", "ackqueue"), ("key", &key), ("token", &proof)],
    );
    assert_eq!(text(&ack), "ok");
    assert_eq!(store.counts().unwrap().queued, 0);
}

#[test]
fn a_client_over_the_rate_limit_is_told_so_and_this_machine_never_is() {
    let store = Arc::new(Store::open(None).unwrap());
    let lib = library(
        store,
        Policy {
            rate_limit: 2,
            ..Policy::default()
        },
    );
    let board = board_text(&unknown_positions()[0]);
    let query = [
        ("action", "queryall"),
        ("board", board.as_str()),
        ("learn", "0"),
    ];
    let remote = Client::at("10.1.2.3".parse().unwrap());
    let answers: Vec<String> = (0..6)
        .map(|_| text(&ask(&lib, &remote, &query)).to_string())
        .collect();
    assert!(
        answers.iter().any(|a| a == "rate limit exceeded"),
        "{answers:?}"
    );
    assert!(
        answers.iter().filter(|a| *a == "unknown").count() >= 2,
        "{answers:?}"
    );
    for _ in 0..6 {
        assert_eq!(text(&ask(&lib, &Client::local(), &query)), "unknown");
    }
    // JSON as chessdb writes it.
    let mut json = query.to_vec();
    json.push(("json", "1"));
    let r = (0..4).map(|_| ask(&lib, &remote, &json)).last().unwrap();
    assert_eq!(r.body, r#"{"status":"rate limit exceeded"}"#);
}
