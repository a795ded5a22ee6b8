//! The chessdb API answered in-process, from a book, tables and the engine.

mod common;

use std::sync::Arc;
use std::time::Duration;

use xqserve::chessdb::{answer, Library, Params, Reply};
use xqserve::engine::{EngineConfig, EnginePool};

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
/// Rook and king against a bare king: in the tables.
const ROOK_MATE: &str = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";

/// A rook against a full defence, drawn: e1e7 takes an elephant and loses
/// the rook to g9e7.
const ROOK_DRAW: &str = "3akab2/9/4b4/9/9/9/9/9/4R4/4K4 w";

/// The KRKAABB table and those its captures lead into (KRK among them),
/// built once for all tests.
fn rook_tables() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let m: xqegtb::Material = "KRKAABB".parse().unwrap();
        egtbgen::build(dir.path(), &egtbgen::plan(&[m]), &|_| {}).unwrap();
        dir
    })
    .path()
}

/// The default book without its analysis (a copy alone in a directory),
/// whose answers come from its games; kept for all tests.
fn plain_book() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        std::fs::copy(format!("{root}/data/book.xqb"), dir.path().join("book.xqb")).unwrap();
        dir
    });
    dir.path()
}

fn library(queue: usize) -> Library {
    library_over(queue, rook_tables())
}

/// The plain book, the tables of `tables` and an engine whose queue holds
/// `queue` searches.
fn library_over(queue: usize, tables: &std::path::Path) -> Library {
    let (book, unusable) = xqbook::BookFile::open(&plain_book().join("book.xqb")).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    assert!(book.analysis.is_none());
    let mut tb = xqegtb::Tablebase::new();
    assert!(tb.add_dir(tables).unwrap() > 0);
    let tables = Some(Arc::new(tb));
    let store = Arc::new(xqserve::store::Store::open(None).unwrap());
    let engine = EnginePool::new(
        EngineConfig {
            think: Duration::from_millis(200),
            workers: 1,
            queue,
            search: xqengine::SearchConfig::default(),
        },
        store.clone(),
    );
    Library::new(vec![book], tables, engine, store).with_policy(xqserve::chessdb::Policy {
        search_unknown: true,
        ..Default::default()
    })
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

#[test]
fn book_positions_answer_from_the_book_with_results() {
    let lib = library(4);
    let r = ask(&lib, &[("action", "queryall"), ("board", START)]);
    assert_eq!(r.status, 200);
    assert!(r.body.ends_with('\0'), "{:?}", r.body);
    let entries: Vec<&str> = r.body.trim_end_matches('\0').split('|').collect();
    assert!(entries.len() > 5, "{}", r.body);
    let first: Vec<&str> = entries[0].split(',').collect();
    assert!(
        first[0].starts_with("move:") && first[1].starts_with("score:"),
        "{}",
        entries[0]
    );
    assert_eq!(first[2], "rank:2");
    assert!(first[3].starts_with("note:! ("), "{}", entries[0]);
    assert!(first[4].starts_with("winrate:"), "{}", entries[0]);
    // Scores fall along the list.
    let scores: Vec<i32> = entries
        .iter()
        .map(|e| {
            e.split(',').nth(1).unwrap()["score:".len()..]
                .parse()
                .unwrap()
        })
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // A banned best move is left out.
    let best = &first[0]["move:".len()..];
    let ban = format!("move:{best}");
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", START), ("ban", &ban)],
    );
    assert!(!r.body.contains(&format!("move:{best},")), "{}", r.body);
    // JSON: the same moves, note and winrate as strings.
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", START), ("json", "1")],
    );
    assert!(r.json);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["moves"][0]["uci"], best);
    assert!(v["moves"][0]["winrate"].is_string() && v["moves"][0]["note"].is_string());
    let r = ask(&lib, &[("action", "querypv"), ("board", START)]);
    let pv = r.body.trim_end_matches('\0');
    assert!(
        pv.starts_with("score:") && pv.contains(",depth:") && pv.contains(&format!(",pv:{best}")),
        "{pv}"
    );
}

#[test]
fn table_positions_answer_exactly_with_the_line_to_mate() {
    let lib = library(4);
    let r = ask(&lib, &[("action", "querybest"), ("board", ROOK_MATE)]);
    assert!(r.body.starts_with("egtb:"), "{:?}", r.body);
    let r = ask(&lib, &[("action", "queryall"), ("board", ROOK_MATE)]);
    assert!(
        r.body.starts_with("move:") && r.body.contains("score:29999,rank:2,note:! (W-M-0001)"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("winrate"), "{}", r.body);
    let r = ask(
        &lib,
        &[
            ("action", "queryscore"),
            ("board", ROOK_MATE),
            ("json", "1"),
        ],
    );
    assert_eq!(r.body, r#"{"eval":29999,"status":"ok"}"#);
    // Three plies from mate: the line has them all.
    let r = ask(
        &lib,
        &[
            ("action", "querypv"),
            ("board", "3k5/9/9/9/9/9/9/9/9/4K3R w"),
        ],
    );
    let pv = r.body.trim_end_matches('\0');
    let line = pv.split(",pv:").nth(1).unwrap();
    let score: i32 = pv["score:".len()..pv.find(',').unwrap()].parse().unwrap();
    assert_eq!(line.split('|').count() as i32, 30_000 - score, "{pv}");
}

#[test]
fn unknown_positions_are_searched_once_then_cached() {
    let lib = library(4);
    let board = "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w moves a0a1 a9a8 a1a0 a8a9 i0i1";
    let started = std::time::Instant::now();
    let first = ask(&lib, &[("action", "querypv"), ("board", board)]);
    let searched = started.elapsed();
    assert!(first.body.starts_with("score:"), "{:?}", first.body);
    assert!(searched >= Duration::from_millis(50), "{searched:?}");
    let started = std::time::Instant::now();
    let again = ask(&lib, &[("action", "querypv"), ("board", board)]);
    assert_eq!(again, first);
    assert!(started.elapsed() < searched, "the cache answers");
}

#[test]
fn bad_queries_get_an_error_status_and_the_reason() {
    let lib = library(4);
    for (query, status, word) in [
        (
            vec![("action", "queryall"), ("board", "rnbakabnr/9 w")],
            400,
            "invalid board",
        ),
        (
            vec![("action", "queryall"), ("board", "../../etc/passwd")],
            400,
            "invalid board",
        ),
        (
            vec![
                ("action", "queryall"),
                ("board", &format!("{START} moves h2e2 h2e2")),
            ],
            400,
            "invalid board",
        ),
        (vec![("action", "queryall")], 400, "invalid parameters"),
        (
            vec![("action", "format c:"), ("board", START)],
            400,
            "invalid parameters",
        ),
        (
            vec![
                ("action", "queryall"),
                ("board", START),
                ("ban", "move:a0a5"),
            ],
            400,
            "invalid ban",
        ),
        (
            vec![
                ("action", "queryrule"),
                ("board", START),
                ("movelist", "h2e2|zz"),
            ],
            400,
            "invalid movelist",
        ),
    ] {
        let r = ask(&lib, &query);
        assert_eq!(
            (r.status, r.body.as_str()),
            (status, format!("{word}\0").as_str()),
            "{query:?}"
        );
    }
    let mated = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b";
    assert_eq!(
        ask(&lib, &[("action", "queryall"), ("board", mated)]).body,
        "checkmate\0"
    );
}

#[test]
fn queryrule_rules_repetitions_as_judge_does() {
    let lib = library(4);
    // Red's rook checks back and forth; Black's king steps aside and back.
    let start = "4k4/9/9/9/9/9/9/9/4A4/R3K4 w";
    let list = "a0a9|e9e8|a9a8|e8e9|a8a9|e9e8|a9a8|e8e9";
    let r = ask(
        &lib,
        &[
            ("action", "queryrule"),
            ("board", start),
            ("movelist", list),
            ("json", "1"),
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let ruling = |uci: &str| {
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["uci"] == uci)
            .map(|m| m["rule"].as_str().unwrap().to_string())
    };
    // Checking again repeats the cycle a third time: perpetual check, banned.
    assert_eq!(ruling("a8a9").as_deref(), Some("ban"), "{}", r.body);
    assert_eq!(ruling("a8b8").as_deref(), Some("none"), "{}", r.body);
}

/// The `queryall` entries of a text reply as (move, score, rank, note).
fn entries(reply: &Reply) -> Vec<(String, i32, u8, String)> {
    reply
        .body
        .trim_end_matches('\0')
        .split('|')
        .map(|entry| {
            let field = |name: &str| {
                entry
                    .split(',')
                    .find_map(|f| f.strip_prefix(name))
                    .unwrap_or_else(|| panic!("no {name} in {entry}"))
                    .to_string()
            };
            (
                field("move:"),
                field("score:").parse().unwrap(),
                field("rank:").parse().unwrap(),
                field("note:"),
            )
        })
        .collect()
}

#[test]
fn table_ranks_follow_chessdb_every_win_good_the_fastest_best() {
    let lib = library(4);
    // Red to move wins: the fastest mate is best, every slower win good,
    // a move that lets the king take the rook (c8d8, a draw) is not.
    let won = entries(&ask(
        &lib,
        &[
            ("action", "queryall"),
            ("board", "3k5/2R6/9/9/9/9/9/9/9/4K4 w"),
        ],
    ));
    let fastest = won[0].1;
    assert!(won.iter().any(|e| e.1 > 0 && e.1 < fastest), "{won:?}");
    assert!(won.iter().any(|e| e.1 == 0), "{won:?}");
    for (mv, score, rank, note) in &won {
        let (want_rank, mark) = match *score {
            s if s == fastest => (2, '!'),
            s if s > 0 => (1, '*'),
            _ => (0, '?'),
        };
        assert_eq!(
            (*rank, note.chars().next()),
            (want_rank, Some(mark)),
            "{mv} {score}: {won:?}"
        );
    }
    // Black to move loses whatever it plays: the slowest loss best, the
    // others good (chessdb ranks moves against the position's own value).
    let lost = entries(&ask(
        &lib,
        &[
            ("action", "queryall"),
            ("board", "3k5/9/9/9/9/9/9/9/4R4/4K4 b"),
        ],
    ));
    assert!(lost.iter().all(|e| e.1 < 0 && e.2 >= 1), "{lost:?}");
    assert_eq!(lost[0].2, 2, "{lost:?}");
    // Bare kings: every move draws, and every one is best.
    let drawn = entries(&ask(
        &lib,
        &[
            ("action", "queryall"),
            ("board", "3k5/9/9/9/9/9/9/9/9/4K4 w"),
        ],
    ));
    assert!(
        drawn
            .iter()
            .all(|e| e.1 == 0 && e.2 == 2 && e.3.starts_with("! (D-M-")),
        "{drawn:?}"
    );
}

#[test]
fn querysearch_answers_as_chessdb_does() {
    let lib = library(4);
    // A won table position: the tables' best move, as querybest gives it.
    let r = ask(&lib, &[("action", "querysearch"), ("board", ROOK_MATE)]);
    assert!(
        r.body.starts_with("egtb:") && !r.body.contains('|'),
        "{:?}",
        r.body
    );
    let r = ask(
        &lib,
        &[
            ("action", "querysearch"),
            ("board", ROOK_MATE),
            ("json", "1"),
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert!(v["egtb"].is_string(), "{}", r.body);
    // Several book moves known: a list of the good ones, even of one.
    let r = ask(&lib, &[("action", "querysearch"), ("board", START)]);
    let body = r.body.trim_end_matches('\0');
    assert!(body.split('|').all(|e| e.starts_with("search:")), "{body}");
    let all = entries(&ask(&lib, &[("action", "queryall"), ("board", START)]));
    let good: Vec<String> = all
        .iter()
        .filter(|e| e.2 >= 1)
        .map(|e| format!("search:{}", e.0))
        .collect();
    assert_eq!(body, good.join("|"));
    let r = ask(
        &lib,
        &[("action", "querysearch"), ("board", START), ("json", "1")],
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(
        v["search_moves"].as_array().unwrap().len(),
        good.len(),
        "{}",
        r.body
    );
    // One move known (the engine's): that move.
    let unknown =
        "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w moves a0a1 a9a8";
    let r = ask(&lib, &[("action", "querysearch"), ("board", unknown)]);
    assert!(
        r.body.starts_with("move:") && !r.body.contains('|'),
        "{:?}",
        r.body
    );
}

#[test]
fn a_rarely_played_move_does_not_outrank_the_main_line_on_a_few_good_results() {
    let lib = library(4);
    let all = entries(&ask(&lib, &[("action", "queryall"), ("board", START)]));
    let at = |mv: &str| all.iter().position(|e| e.0 == mv).unwrap();
    // b0a2: 87 games, 63 % for Red; h2e2: 14,975 games, 54 %.
    assert!(all[at("b0a2")].3.contains("(42-26-19)"), "{all:?}");
    assert!(at("h2e2") < at("b0a2"), "{all:?}");
    let best = ask(&lib, &[("action", "querybest"), ("board", START)]);
    assert_ne!(best.body, "move:b0a2\0");
    // Every move played in fewer than 100 games ranks below every move
    // played in more than 1,000 (their results differ by a few points).
    let games = |note: &str| -> u32 {
        let counts = &note[note.find('(').unwrap() + 1..note.len() - 1];
        counts.split('-').map(|n| n.parse::<u32>().unwrap()).sum()
    };
    let last_popular = all.iter().rposition(|e| games(&e.3) > 1_000).unwrap();
    let first_rare = all.iter().position(|e| games(&e.3) < 100).unwrap();
    assert!(last_popular < first_rare, "{all:?}");
}

/// In a drawn ending every move draws: the line and the best move keep
/// the rook, and the one move that gives it away ranks last (querypv used
/// to play `e1e7|g9e7`).
#[test]
fn among_moves_of_equal_table_value_the_ones_that_keep_material_come_first() {
    let lib = library(4);
    let r = ask(&lib, &[("action", "querypv"), ("board", ROOK_DRAW)]);
    assert_eq!(r.status, 200, "{}", r.body);
    let pv = r
        .body
        .trim_end_matches('\0')
        .split("pv:")
        .nth(1)
        .unwrap_or_default();
    let mut pos = xqcore::Position::from_fen(ROOK_DRAW).unwrap();
    for mv in pv.split('|') {
        pos.make_move(pos.parse_move(mv).unwrap());
        let placement = pos.fen();
        assert!(
            placement.split(' ').next().unwrap().contains('R'),
            "{mv} loses the rook: {}",
            r.body
        );
    }
    let all = entries(&ask(&lib, &[("action", "queryall"), ("board", ROOK_DRAW)]));
    assert_eq!(all.last().map(|e| e.0.as_str()), Some("e1e7"), "{all:?}");
    assert!(all.iter().all(|e| e.1 == 0), "every move draws: {all:?}");
}

/// A book of the start position's h2e2 (100 games), c3c4 (50) and b0c2
/// (10), and an analysis beside it that finds h2e2 poor and adds g0e2,
/// after which it knows b1d1 for Black.
fn analysed_book(dir: &std::path::Path) -> xqbook::BookFile {
    use xqbook::{
        book_key, write_analysis, AnalysisHeader, BookBuilder, BookId, BuildConfig, GameResult,
        PositionAnalysis, ScoredMove, Searched,
    };
    use xqcore::Position;
    let start = Position::start();
    let mut builder = BookBuilder::new(BuildConfig {
        min_games: 1,
        max_ply: 0,
        ..BuildConfig::default()
    });
    for (m, games) in [("h2e2", 100), ("c3c4", 50), ("b0c2", 10)] {
        for _ in 0..games {
            let moves = [start.parse_move(m).unwrap()];
            builder.add_game(&start, &moves, GameResult::Draw).unwrap();
        }
    }
    let path = dir.join("analysed.xqb");
    builder.write(&path, "test").unwrap();
    let book = xqbook::Book::open(&path).unwrap();
    let analysed = |pos: &Position, moves: &[(&str, i16, bool)]| {
        let moves: Vec<ScoredMove> = moves
            .iter()
            .map(|&(m, score, in_book)| ScoredMove {
                mv: pos.parse_move(m).unwrap(),
                score,
                depth: 2,
                in_book,
            })
            .collect();
        let search = Searched {
            score: moves[0].score,
            best: moves[0].mv,
            depth: 12,
        };
        (
            book_key(pos).0,
            PositionAnalysis {
                search,
                value: search.score,
                moves,
            },
        )
    };
    let mut after = start.clone();
    after.make_move(start.parse_move("g0e2").unwrap());
    let positions = std::collections::HashMap::from([
        analysed(
            &start,
            &[
                ("g0e2", 40, false),
                ("c3c4", 38, true),
                ("b0c2", 31, true),
                ("h2e2", -60, true),
            ],
        ),
        analysed(&after, &[("b9c7", -41, false)]),
    ]);
    let header = AnalysisHeader {
        book: BookId::of(&book),
        engine: "test".into(),
        net: "hce".into(),
        budget: "depth 1".into(),
        searched: 6,
    };
    write_analysis(&path.with_extension("xqa"), &header, &positions).unwrap();
    let (file, unusable) = xqbook::BookFile::open(&path).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    assert!(file.analysis.is_some());
    file
}

#[test]
fn an_analysed_book_answers_with_search_scores_and_chessdb_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = library(4);
    lib.books = vec![analysed_book(dir.path())];
    let all = entries(&ask(&lib, &[("action", "queryall"), ("board", START)]));
    let summary: Vec<(&str, i32, &str)> = all
        .iter()
        .map(|e| (e.0.as_str(), e.1, e.3.as_str()))
        .collect();
    // The analysis's scores, best first: ranked by chessdb's bands below
    // the best (near level, a few centipawns are best, a few more good);
    // the move no game played is noted as the analysis's.
    assert_eq!(
        summary,
        [
            ("g0e2", 40, "! (analysis)"),
            ("c3c4", 38, "! (0-50-0)"),
            ("b0c2", 31, "* (0-10-0)"),
            ("h2e2", -60, "? (0-100-0)"),
        ]
    );
    let best = ask(&lib, &[("action", "querybest"), ("board", START)]);
    assert!(
        ["move:g0e2\0", "move:c3c4\0"].contains(&best.body.as_str()),
        "{}",
        best.body
    );
    let score = ask(&lib, &[("action", "queryscore"), ("board", START)]);
    assert_eq!(score.body, "eval:40\0");
    let pv = ask(&lib, &[("action", "querypv"), ("board", START)]);
    assert_eq!(pv.body, "score:40,depth:2,pv:g0e2|b9c7\0");
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", START), ("json", "1")],
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["moves"][0]["winrate"], "53.03");
}

#[test]
fn a_damaged_table_answers_unknown_and_no_engine_guess() {
    // The rook tables again, KRKAABB's blocks damaged: the file opens, and
    // every probe into it fails its checksum.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(rook_tables()).unwrap() {
        let from = entry.unwrap().path();
        std::fs::copy(&from, dir.path().join(from.file_name().unwrap())).unwrap();
    }
    common::damage_blocks(&dir.path().join("KRKAABB.xqtb"));
    let lib = library_over(4, dir.path());
    for action in ["queryall", "querybest", "querypv", "queryscore"] {
        let r = ask(&lib, &[("action", action), ("board", ROOK_DRAW)]);
        assert_eq!((r.status, r.body.as_str()), (200, "unknown\0"), "{action}");
        let r = ask(
            &lib,
            &[("action", action), ("board", ROOK_DRAW), ("json", "1")],
        );
        assert_eq!(r.body, r#"{"status":"unknown"}"#, "{action}");
    }
    // The sound tables still answer.
    let r = ask(&lib, &[("action", "querybest"), ("board", ROOK_MATE)]);
    assert!(r.body.starts_with("egtb:"), "{:?}", r.body);
}
