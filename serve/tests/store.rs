//! The store that grows: positions no table, book or stored analysis
//! knows are `unknown` and queued; the analysers score them; the store
//! answers them from then on, with scores backed up through the stored
//! positions around them; `queryengine` searches at once.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use xqbook::Searched;
use xqcore::Position;
use xqserve::analysers::{Analysers, AnalysisConfig};
use xqserve::chessdb::{answer, Library, Params, Reply};
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::store::{Source, Store};

/// A middle game no book line reaches: two repetitions in, no table
/// holds it.
const UNKNOWN: &str = "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w";

/// A library with the default book, no tables and `store`; analysers
/// (`count` of them) at work on the store's queue.
fn library(store: Arc<Store>, count: usize) -> (Library, Analysers) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let (book, _) =
        xqbook::BookFile::open(std::path::Path::new(&format!("{root}/data/book.xqb"))).unwrap();
    let search = xqengine::SearchConfig::default();
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(200),
            workers: 1,
            queue: 4,
            search: search.clone(),
        },
        store.clone(),
    );
    let analysers = Analysers::start(
        store.clone(),
        AnalysisConfig {
            think: Duration::from_millis(300),
            lines: 3,
            lease: Duration::from_secs(60),
            search,
        },
        count,
        None,
    );
    let library = Library::new(vec![book], None, engine, store).ringing(analysers.bell());
    (library, analysers)
}

fn ask(library: &Library, query: &[(&str, &str)]) -> Reply {
    let params: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(answer(library, Params(&params)))
}

fn text(r: &Reply) -> &str {
    r.body.trim_end_matches('\0')
}

#[test]
fn an_unknown_position_is_unknown_and_queued_unless_the_client_says_not_to_learn() {
    let store = Arc::new(Store::open(None).unwrap());
    let (lib, _analysers) = library(store.clone(), 0);
    for (action, word) in [
        ("queryall", "unknown"),
        ("querypv", "unknown"),
        ("queryscore", "unknown"),
        ("querybest", "nobestmove"),
        ("query", "nobestmove"),
        ("querysearch", "nobestmove"),
    ] {
        let r = ask(
            &lib,
            &[("action", action), ("board", UNKNOWN), ("learn", "0")],
        );
        assert_eq!((r.status, text(&r)), (200, word), "{action}");
    }
    assert_eq!(store.counts().unwrap().queued, 0, "learn=0 queues nothing");
    assert_eq!(lib.engine.searches(), 0, "nobody searched");
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", UNKNOWN), ("json", "1")],
    );
    assert_eq!(r.body, r#"{"status":"unknown"}"#);
    assert_eq!(store.counts().unwrap().queued, 1);
    // Asked again, it is queued once.
    ask(&lib, &[("action", "queryall"), ("board", UNKNOWN)]);
    assert_eq!(store.counts().unwrap().queued, 1);
}

#[test]
fn a_queued_position_is_analysed_and_then_known_with_scores() {
    let store = Arc::new(Store::open(None).unwrap());
    let (lib, analysers) = library(store.clone(), 1);
    let r = ask(&lib, &[("action", "queue"), ("board", UNKNOWN)]);
    assert_eq!((r.status, text(&r)), (200, "ok"));
    let started = Instant::now();
    while analysers.analysed() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never analysed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = ask(&lib, &[("action", "queryall"), ("board", UNKNOWN)]);
    let entries: Vec<&str> = text(&r).split('|').collect();
    assert_eq!(entries.len(), 3, "{}", text(&r));
    let first: Vec<&str> = entries[0].split(',').collect();
    assert!(
        first[0].starts_with("move:") && first[1].starts_with("score:"),
        "{}",
        entries[0]
    );
    assert_eq!(first[2], "rank:2");
    // chessdb's note: the moves known after this one (none yet), and how
    // many of them are good.
    assert_eq!(first[3], "note:! (00-00)");
    assert!(first[4].starts_with("winrate:"), "{}", entries[0]);
    let best = &first[0]["move:".len()..];
    let r = ask(&lib, &[("action", "querybest"), ("board", UNKNOWN)]);
    assert_eq!(text(&r), format!("move:{best}"));
    let r = ask(&lib, &[("action", "querypv"), ("board", UNKNOWN)]);
    assert!(text(&r).ends_with(&format!(",pv:{best}")), "{}", text(&r));
    // Known now: queued again, nothing is queued.
    ask(&lib, &[("action", "queue"), ("board", UNKNOWN)]);
    assert_eq!(store.counts().unwrap().queued, 0);
}

#[test]
fn queryengine_searches_now_and_the_store_keeps_what_it_found() {
    let store = Arc::new(Store::open(None).unwrap());
    let (lib, _analysers) = library(store.clone(), 0);
    let r = ask(&lib, &[("action", "queryengine"), ("board", UNKNOWN)]);
    let reply = text(&r);
    assert!(reply.starts_with("move:"), "{reply}");
    let pos = Position::from_fen(UNKNOWN).unwrap();
    let mv = pos.parse_move(&reply["move:".len()..]).unwrap();
    let stored = store.get(&pos).unwrap().expect("stored");
    assert_eq!(stored.search.best, mv);
    assert_eq!(stored.moves[0].source, Source::Analysis);
    let r = ask(&lib, &[("action", "queryscore"), ("board", UNKNOWN)]);
    assert!(text(&r).starts_with("eval:"), "{}", text(&r));
    // With a move list: the position after it.
    let r = ask(
        &lib,
        &[
            ("action", "queryengine"),
            ("board", UNKNOWN),
            ("movelist", "a0a1|a9a8"),
        ],
    );
    assert!(text(&r).starts_with("move:"), "{}", text(&r));
    let r = ask(
        &lib,
        &[
            ("action", "queryengine"),
            ("board", UNKNOWN),
            ("movelist", "a0a1|a0a1"),
        ],
    );
    assert_eq!(text(&r), "invalid movelist");
}

#[test]
fn scores_are_learned_from_the_stored_positions_the_moves_lead_to() {
    let store = Arc::new(Store::open(None).unwrap());
    let (lib, _analysers) = library(store.clone(), 0);
    let root = Position::from_fen(UNKNOWN).unwrap();
    let good = root.parse_move("c3c4").unwrap();
    let other = root.parse_move("a3a4").unwrap();
    let searched = |pos: &Position, score: i16, best: &str, depth: u8| Searched {
        score,
        best: pos.parse_move(best).unwrap(),
        depth,
    };
    // The root's search liked c3c4 (40) over a3a4 (30); a deeper look at
    // the position after c3c4 finds it worth 60 to Black.
    store
        .record(
            &root,
            searched(&root, 40, "c3c4", 10),
            &[(good, 40, 10), (other, 30, 10)],
            Source::Analysis,
        )
        .unwrap();
    let mut child = root.clone();
    child.make_move(good);
    let reply = child.parse_move("c6c5").unwrap();
    store
        .record(
            &child,
            searched(&child, 60, "c6c5", 16),
            &[(reply, 60, 16)],
            Source::Analysis,
        )
        .unwrap();
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", UNKNOWN), ("learn", "0")],
    );
    assert!(text(&r).starts_with("move:a3a4,score:30,"), "{}", text(&r));
    assert!(text(&r).contains("move:c3c4,score:-60,"), "{}", text(&r));
    // c3c4 leads to a position the store knows one move of.
    assert!(text(&r).contains("note:? (01-01)"), "{}", text(&r));
    // A searched score's winrate is the engine's win-draw-loss model's
    // (the result expected, a draw counting half), not chessdb's curve.
    let mut after = root.clone();
    after.make_move(other);
    let view = xqengine::wdl::WdlView {
        material: xqengine::wdl::material(&after),
        net_scale: Some(xqengine::SearchConfig::default().params.net_scale),
    };
    let [w, d, _] = view.per_mille(30);
    let expected = format!("{:.2}", (f64::from(w) + f64::from(d) / 2.0) / 10.0);
    let first = text(&r).split('|').next().unwrap();
    assert!(
        first.ends_with(&format!(",winrate:{expected}")),
        "{first} {expected}"
    );
    assert_ne!(expected, xqserve::rank::winrate(30).unwrap());
    let stored = store.get(&root).unwrap().unwrap();
    assert_eq!(stored.moves[0].mv, good, "learn=0 writes nothing");
    ask(&lib, &[("action", "queryall"), ("board", UNKNOWN)]);
    let stored = store.get(&root).unwrap().unwrap();
    let learned = stored.moves.iter().find(|m| m.mv == good).unwrap();
    assert_eq!((learned.score, learned.source), (-60, Source::Learning));
    // What was learned answers the same.
    let again = ask(&lib, &[("action", "queryall"), ("board", UNKNOWN)]);
    assert_eq!(text(&again), text(&r));
}

#[test]
fn a_stored_position_survives_the_server_killed_and_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let store_file = dir.path().join("store.sqlite");
    let args: [&std::ffi::OsStr; 6] = [
        "--store".as_ref(),
        store_file.as_os_str(),
        "--tables".as_ref(),
        "none".as_ref(),
        "--analyse-ms".as_ref(),
        "300".as_ref(),
    ];
    let (mut server, url) = common::start_server(&args);
    let addr = common::address(&url);
    let board = UNKNOWN.replace(' ', "%20");
    let (status, body) = common::get(addr, &format!("/chessdb.php?action=queue&board={board}"));
    assert_eq!((status, body.trim_end_matches('\0')), (200, "ok"));
    let started = Instant::now();
    let known = loop {
        let (_, body) = common::get(addr, &format!("/chessdb.php?action=queryall&board={board}"));
        if body.starts_with("move:") {
            break body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never analysed: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // Killed outright: no shutdown, nothing flushed on the way out.
    server.kill().unwrap();
    server.wait().unwrap();
    let (mut server, url) = common::start_server(&args);
    let (_, again) = common::get(
        common::address(&url),
        &format!("/chessdb.php?action=queryall&board={board}"),
    );
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(again, known);
}
