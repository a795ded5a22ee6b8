//! The chessdb API answered in-process, from a book, tables and the engine.

mod common;

use std::sync::Arc;
use std::time::Duration;

use xqserve::chessdb::{answer, Library, Params, Reply};
use xqserve::engine::{EngineConfig, EnginePool};
use xqserve::rank::{dtm_cmp, TableMove};

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
    assert_eq!(r.body, r#"{"status":"ok","eval":29999}"#);
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

/// chessdb's words come with 200, as chessdb sends them (its own page reads
/// a reply only on 200); a board past our limit gets 414.
#[test]
fn bad_queries_get_chessdbs_word_with_200() {
    let lib = library(4);
    let moves = format!("{START} moves h2e2 h2e2");
    for (query, body) in [
        (
            vec![("action", "queryall"), ("board", "rnbakabnr/9 w")],
            "invalid board\0",
        ),
        (
            vec![("action", "queryall"), ("board", "../../etc/passwd")],
            "invalid board\0",
        ),
        (
            vec![("action", "queryall"), ("board", " ")],
            "invalid board\0",
        ),
        (
            vec![("action", "queryall"), ("board", moves.as_str())],
            "invalid board\0",
        ),
        // Outside a board's reply chessdb's `invalid parameters` has no NUL.
        (vec![("action", "queryall")], "invalid parameters"),
        (
            vec![("action", "queryall"), ("board", "0")],
            "invalid parameters",
        ),
        (vec![("board", START)], "invalid parameters"),
        (
            vec![("action", "format c:"), ("board", START)],
            "invalid parameters",
        ),
        (
            vec![
                ("action", "queryrule"),
                ("board", START),
                ("movelist", "h2e2|h9g7|zz"),
            ],
            "invalid movelist\0",
        ),
    ] {
        let r = ask(&lib, &query);
        assert_eq!((r.status, r.body.as_str()), (200, body), "{query:?}");
    }
    let r = ask(
        &lib,
        &[("action", "queryall"), ("board", "x w"), ("json", "1")],
    );
    assert_eq!(
        (r.status, r.body.as_str()),
        (200, r#"{"status":"invalid board"}"#)
    );
    let long = format!("{START} moves {}", "h2e2 e2h2 ".repeat(600));
    let r = ask(&lib, &[("action", "queryall"), ("board", &long)]);
    assert_eq!((r.status, r.body.as_str()), (414, "invalid board\0"));
}

/// chessdb says `checkmate` and `stalemate` to `queryall`, `querypv`,
/// `queryscore` and `queryrule` only; its move choices say `nobestmove`.
#[test]
fn a_position_without_moves_is_answered_as_chessdb_answers_it() {
    let lib = library(4);
    let mated = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b";
    for (action, word) in [
        ("queryall", "checkmate"),
        ("querypv", "checkmate"),
        ("queryscore", "checkmate"),
        ("querybest", "nobestmove"),
        ("query", "nobestmove"),
        ("querysearch", "nobestmove"),
        ("querylearn", "nobestmove"),
    ] {
        let r = ask(&lib, &[("action", action), ("board", mated)]);
        assert_eq!(
            (r.status, r.body.as_str()),
            (200, format!("{word}\0").as_str()),
            "{action}"
        );
    }
    // Every move banned: `unknown` where chessdb says it.
    let lone = "3k5/9/9/9/9/9/9/9/9/4K4 b";
    let moves = xqcore::Position::from_fen(lone).unwrap().legal_moves();
    let ban_all: Vec<String> = moves.iter().map(|m| format!("move:{m}")).collect();
    let ban_all = ban_all.join("|");
    for (action, word) in [("queryall", "unknown"), ("querybest", "nobestmove")] {
        let r = ask(
            &lib,
            &[("action", action), ("board", lone), ("ban", &ban_all)],
        );
        assert_eq!(r.body, format!("{word}\0"), "{action}");
    }
    // queryrule: the game's last position has no move.
    let r = ask(
        &lib,
        &[
            ("action", "queryrule"),
            ("board", ROOK_MATE),
            ("movelist", "e1e2|d9d8|e2d2"),
            ("json", "1"),
        ],
    );
    assert_eq!(r.body, r#"{"status":"checkmate"}"#);
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

/// The `queryall` entries of a table position with each move's capture
/// and check flags, as chessdb's table answers carry them.
fn table_entries(lib: &Library, board: &str) -> Vec<(TableMove, u8, String)> {
    let pos = xqcore::Position::from_fen(board).unwrap();
    entries(&ask(lib, &[("action", "queryall"), ("board", board)]))
        .into_iter()
        .map(|(mv, score, rank, note)| {
            let mv = pos.parse_move(&mv).unwrap();
            let flags = TableMove {
                mv,
                score,
                order: 0,
                capture: pos.board().piece_at(mv.to()).is_some(),
                check: pos.gives_check(mv),
            };
            (flags, rank, note)
        })
        .collect()
}

/// Table answers follow chessdb's `queryall`: its `dtmcmp` order, the
/// first best and every move alike it in score, capture and check; every
/// other win good, a draw good in a drawn position, a loss in a lost one.
#[test]
fn table_ranks_and_order_follow_chessdb() {
    let lib = library(4);
    for (board, position) in [
        // Red wins: slower wins, and c8d8, which lets the king take the
        // rook (a draw).
        ("3k5/2R6/9/9/9/9/9/9/9/4K4 w", 1),
        // Red mates in one with check (e1d1) or without (e1e8).
        (ROOK_MATE, 1),
        // Black loses whatever it plays.
        ("3k5/9/9/9/9/9/9/9/4R4/4K4 b", -1),
        // A rook against a full defence: drawn, one move (e1e7) gives the
        // rook away with check.
        (ROOK_DRAW, 0),
        // Bare kings.
        ("3k5/9/9/9/9/9/9/9/9/4K4 w", 0),
    ] {
        let got = table_entries(&lib, board);
        let first = got[0].0;
        // The position scores one ply past its best move on chessdb's scale.
        let value = first.score - position;
        for pair in got.windows(2) {
            assert_ne!(
                dtm_cmp(&pair[0].0, &pair[1].0, value),
                std::cmp::Ordering::Greater,
                "{board}: {got:?}"
            );
        }
        for (m, rank, note) in &got {
            let want = if m.alike(&first) {
                2
            } else if m.score > 0
                || (m.score == 0 && first.score == 0)
                || (m.score < 0 && first.score < 0)
            {
                1
            } else {
                0
            };
            let mark = ['?', '*', '!'][usize::from(want)];
            assert_eq!(
                (*rank, note.chars().next()),
                (want, Some(mark)),
                "{board} {}: {got:?}",
                m.mv
            );
        }
    }
    let won = table_entries(&lib, "3k5/2R6/9/9/9/9/9/9/9/4K4 w");
    assert!(won.iter().any(|e| e.0.score > 0 && e.1 == 1), "{won:?}");
    assert!(won.iter().any(|e| e.0.score == 0 && e.1 == 0), "{won:?}");
    // Of the fastest mates only those alike the first are best: the quiet
    // ones, e1d1 checks.
    let mate = table_entries(&lib, ROOK_MATE);
    let e1d1 = mate.iter().find(|e| e.0.mv.to_string() == "e1d1").unwrap();
    assert_eq!(
        (e1d1.0.score, e1d1.0.check, e1d1.1),
        (29_999, true, 1),
        "{mate:?}"
    );
    assert!(mate[0].0.score == 29_999 && !mate[0].0.check, "{mate:?}");
    let lost = table_entries(&lib, "3k5/9/9/9/9/9/9/9/4R4/4K4 b");
    assert!(lost.iter().all(|e| e.0.score < 0 && e.1 >= 1), "{lost:?}");
    let drawn = table_entries(&lib, "3k5/9/9/9/9/9/9/9/9/4K4 w");
    assert!(
        drawn
            .iter()
            .all(|e| e.0.score == 0 && e.1 == 2 && e.2.starts_with("! (D-M-")),
        "{drawn:?}"
    );
    // querybest picks among the moves alike the first.
    let finals: Vec<String> = mate
        .iter()
        .take_while(|e| e.0.alike(&mate[0].0))
        .map(|e| format!("egtb:{}\0", e.0.mv))
        .collect();
    let best = ask(&lib, &[("action", "querybest"), ("board", ROOK_MATE)]);
    assert!(finals.contains(&best.body), "{} {finals:?}", best.body);
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
/// the rook (querypv used to play `e1e7|g9e7`), and the one move that
/// gives it away, a capture with check, is not best.
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
    let e1e7 = all.iter().find(|e| e.0 == "e1e7").unwrap();
    assert_eq!((e1e7.2, &e1e7.3[..1]), (1, "*"), "{all:?}");
    assert!(all.iter().all(|e| e.1 == 0), "every move draws: {all:?}");
}

/// A book of the start position's h2e2 (100 games), c3c4 (50) and b0c2
/// (10), and an analysis beside it that scores g0e2 (which it adds),
/// c3c4, b0c2 and h2e2 as `scores` says, and knows b9c7 for Black after
/// g0e2.
fn analysed_book(dir: &std::path::Path, scores: [i16; 4]) -> xqbook::BookFile {
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
                ("g0e2", scores[0], false),
                ("c3c4", scores[1], true),
                ("b0c2", scores[2], true),
                ("h2e2", scores[3], true),
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
    lib.books = vec![analysed_book(dir.path(), [40, 38, 31, -60])];
    let all = entries(&ask(&lib, &[("action", "queryall"), ("board", START)]));
    let summary: Vec<(&str, i32, &str)> = all
        .iter()
        .map(|e| (e.0.as_str(), e.1, e.3.as_str()))
        .collect();
    // The analysis's scores, best first: ranked by chessdb's throttles below
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

/// Ranks and choices by chessdb's throttles, in the bands between +50 and
/// +75 and between -50 and -30, and below -50 (`nobestmove`, but for
/// `querylearn` down to -75).
#[test]
fn book_choices_follow_chessdbs_throttles() {
    let mut lib = library(4);
    let choice = |lib: &Library, action: &str| {
        let r = ask(lib, &[("action", action), ("board", START)]);
        assert_eq!(r.status, 200);
        r.body.trim_end_matches('\0').to_string()
    };
    for (scores, ranks, best, good, learn) in [
        // getthrottle(60) is 54.01, getbestthrottle(60) 60.
        (
            [60, 55, 54, 53],
            [2, 1, 0, 0],
            &["g0e2"][..],
            &["g0e2", "c3c4"][..],
            &["g0e2"][..],
        ),
        // getthrottle(-40) is -44.76, getbestthrottle(-40) -40,
        // getlearnthrottle(-40) -75.
        (
            [-40, -44, -45, -80],
            [2, 1, 0, 0],
            &["g0e2"],
            &["g0e2", "c3c4"],
            &["g0e2", "c3c4", "b0c2"],
        ),
        // Below -50 nothing is good, and only querylearn answers.
        (
            [-60, -70, -74, -80],
            [0, 0, 0, 0],
            &[],
            &[],
            &["g0e2", "c3c4", "b0c2"],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        lib.books = vec![analysed_book(dir.path(), scores)];
        let all = entries(&ask(&lib, &[("action", "queryall"), ("board", START)]));
        let got: Vec<u8> = all.iter().map(|e| e.2).collect();
        assert_eq!(got, ranks, "{all:?}");
        for (action, pool) in [("querybest", best), ("query", good), ("querylearn", learn)] {
            let body = choice(&lib, action);
            match body.strip_prefix("move:") {
                Some(mv) => assert!(pool.contains(&mv), "{action} {scores:?}: {body}"),
                None => assert!(pool.is_empty() && body == "nobestmove", "{action}: {body}"),
            }
        }
        let search = choice(&lib, "querysearch");
        let want: Vec<String> = good.iter().map(|m| format!("search:{m}")).collect();
        let want = if want.is_empty() {
            "nobestmove".to_string()
        } else {
            want.join("|")
        };
        assert_eq!(search, want, "{scores:?}");
    }
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

/// `ban` with or without `move:`, an entry that is no legal move ignored
/// (chessdb ignores it); `egtbmetric` accepted (these tables have no DTC
/// files: answered by distance to mate); boards
/// as chessdb's `ccbgetfen` reads them.
#[test]
fn parameters_are_read_as_chessdb_reads_them() {
    let lib = library(4);
    let all = |query: &[(&str, &str)]| {
        let mut q = vec![("action", "queryall")];
        q.extend_from_slice(query);
        ask(&lib, &q)
    };
    let plain = all(&[("board", START)]);
    let best = entries(&plain)[0].0.clone();
    let second = entries(&plain)[1].0.clone();
    let without = all(&[("board", START), ("ban", &format!("move:{best}"))]);
    assert!(!without.body.contains(&format!("move:{best},")));
    for ban in [
        best.clone(),
        format!("{best}|zz|move:a0a5||move:"),
        format!("a0a5|move:{best}"),
    ] {
        let r = all(&[("board", START), ("ban", &ban)]);
        assert_eq!((r.status, &r.body), (200, &without.body), "{ban}");
    }
    let both = all(&[("board", START), ("ban", &format!("{best}|move:{second}"))]);
    assert!(
        !both.body.contains(&format!("move:{second},")),
        "{}",
        both.body
    );
    for metric in ["dtm", "dtc", "DTC"] {
        let r = ask(
            &lib,
            &[
                ("action", "queryall"),
                ("board", ROOK_MATE),
                ("egtbmetric", metric),
            ],
        );
        let plain = ask(&lib, &[("action", "queryall"), ("board", ROOK_MATE)]);
        assert_eq!(r, plain, "{metric}");
    }
    let placement = START.trim_end_matches(" w");
    for board in [
        format!("{placement}_w"),
        format!("{placement}w"),
        format!("{placement} red"),
        format!("{placement} w - - 0 1"),
    ] {
        assert_eq!(all(&[("board", &board)]), plain, "{board}");
    }
    let black = format!("{placement} black moves h9g7");
    let r = all(&[("board", &black)]);
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with("move:"), "{}", r.body);
}

/// JSON replies write `status` first, then the fields in chessdb's order.
#[test]
fn json_replies_keep_chessdbs_key_order() {
    let lib = library(4);
    let json = |action: &str, board: &str| {
        ask(&lib, &[("action", action), ("board", board), ("json", "1")]).body
    };
    let keys = |body: &str| -> Vec<String> {
        // The keys of the outer object, in order.
        let mut out = Vec::new();
        let mut depth = 0;
        let mut in_string = false;
        let mut start = None;
        let bytes = body.as_bytes();
        for (i, &c) in bytes.iter().enumerate() {
            match c {
                b'"' if in_string => {
                    in_string = false;
                    if let Some(s) = start.take() {
                        if depth == 1 && bytes.get(i + 1) == Some(&b':') {
                            out.push(body[s..i].to_string());
                        }
                    }
                }
                b'"' => {
                    in_string = true;
                    start = Some(i + 1);
                }
                b'{' | b'[' if !in_string => depth += 1,
                b'}' | b']' if !in_string => depth -= 1,
                _ => {}
            }
        }
        out
    };
    assert_eq!(keys(&json("queryall", START)), ["status", "moves"]);
    let all: serde_json::Value = serde_json::from_str(&json("queryall", START)).unwrap();
    let first = serde_json::to_string(&all["moves"][0]).unwrap();
    assert!(
        json("queryall", START).contains(&format!(
            "{{\"uci\":{},\"score\":{},\"rank\":{},\"note\":{},\"winrate\":{}}}",
            all["moves"][0]["uci"],
            all["moves"][0]["score"],
            all["moves"][0]["rank"],
            all["moves"][0]["note"],
            all["moves"][0]["winrate"]
        )),
        "{first}"
    );
    assert_eq!(keys(&json("querybest", START)), ["status", "move"]);
    assert_eq!(keys(&json("querybest", ROOK_MATE)), ["status", "egtb"]);
    assert_eq!(
        keys(&json("querysearch", START)),
        ["status", "search_moves"]
    );
    assert_eq!(
        keys(&json("querypv", START)),
        ["status", "score", "depth", "pv"]
    );
    assert_eq!(keys(&json("queryscore", START)), ["status", "eval"]);
    let r = ask(
        &lib,
        &[
            ("action", "queryrule"),
            ("board", START),
            ("movelist", "h2e2|h9g7|h0g2"),
            ("json", "1"),
        ],
    );
    assert!(
        r.body.starts_with(r#"{"status":"ok","moves":[{"uci":""#)
            && r.body.contains(r#"","rule":"none"}"#),
        "{}",
        r.body
    );
}

/// queryrule as chessdb rules it: 3 moves at least, `reptimes` read as
/// PHP's `intval`.
#[test]
fn queryrule_reads_its_parameters_as_chessdb_does() {
    let lib = library(4);
    let rule = |list: &str, reptimes: Option<&str>| {
        let mut q = vec![
            ("action", "queryrule"),
            ("board", START),
            ("movelist", list),
        ];
        if let Some(r) = reptimes {
            q.push(("reptimes", r));
        }
        ask(&lib, &q)
    };
    for list in ["h2e2", "h2e2|h9g7", "0", ""] {
        let r = rule(list, None);
        assert_eq!(
            (r.status, r.body.as_str()),
            (200, "invalid movelist\0"),
            "{list}"
        );
    }
    assert!(rule("h2e2|h9g7|h0g2", None).body.starts_with("move:"));
    // The knights out and back: the next return repeats the start.
    let list = "b0c2|b9c7|c2b0";
    let ruling = |reptimes: Option<&str>| {
        let r = rule(list, reptimes);
        let body = r.body.trim_end_matches('\0').to_string();
        body.split('|')
            .find_map(|e| e.strip_prefix("move:c7b9,rule:"))
            .unwrap_or_else(|| panic!("{body}"))
            .to_string()
    };
    // Seen once before: with reptimes 1 (the default, and what 0, garbage
    // and out-of-range values read as) a draw; with 2 or more not yet.
    for reptimes in [
        None,
        Some("1"),
        Some("0"),
        Some("x"),
        Some("11"),
        Some("-3"),
        Some("1x"),
    ] {
        assert_eq!(ruling(reptimes), "draw", "{reptimes:?}");
    }
    for reptimes in [
        Some("2"),
        Some("2abc"),
        Some(" 3"),
        Some("1e1"),
        Some("2.9"),
    ] {
        assert_eq!(ruling(reptimes), "none", "{reptimes:?}");
    }
}

/// KRKN and the tables its captures reach, with their distances to
/// conversion, built once.
fn knight_tables() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let m: xqegtb::Material = "KRKN".parse().unwrap();
        let metrics = [
            xqegtb::Metric::Wdl,
            xqegtb::Metric::Dtm,
            xqegtb::Metric::Dtc,
        ];
        egtbgen::build_metrics(dir.path(), &egtbgen::plan(&[m]), &metrics, None, &|_| {}).unwrap();
        dir
    })
    .path()
}

/// `egtbmetric=dtc` as chessdb answers it: each move scored from the
/// distance to conversion of the position it leads to (`30000 - n`, `n`
/// its plies plus one; `20000` for a result of the repetition rules),
/// noted `(W-OO-SSS)`, in chessdb's `dtccmp` order. The figures are
/// xiangqitb's, read with its own code.
#[test]
fn dtc_is_answered_as_chessdb_answers_it() {
    let lib = library_over(4, knight_tables());
    let dtc = |board: &str| {
        ask(
            &lib,
            &[
                ("action", "queryall"),
                ("board", board),
                ("egtbmetric", "dtc"),
            ],
        )
    };
    // The rook takes the horse: converted at once, into a KRK position
    // lost in 4 plies (the note gives what the capture leads to, as
    // chessdb's does); a quiet move to a position as far from conversion
    // comes after the capture.
    let r = dtc("3k5/9/9/9/4n4/9/9/9/9/4RK3 w");
    let all = entries(&r);
    assert_eq!(
        all[0],
        ("e0e5".to_string(), 29_995, 2, "! (W-00-005)".to_string()),
        "{}",
        r.body
    );
    assert_eq!(
        all[1],
        ("e0d0".to_string(), 29_995, 1, "* (W-00-005)".to_string())
    );
    // The horse's side can only check for ever: lost by the rule, the
    // move that keeps to the rule's order first.
    let r = dtc("9/9/4k4/9/9/9/9/3n5/9/R2K5 b");
    let all = entries(&r);
    assert_eq!(
        all[0],
        ("d2b1".to_string(), -19_998, 2, "! (L-01-002)".to_string()),
        "{}",
        r.body
    );
    assert!(
        all[1..].iter().all(|e| e.3.contains("(L-00-")),
        "{}",
        r.body
    );
    let pv = ask(
        &lib,
        &[
            ("action", "querypv"),
            ("board", "3k5/9/9/9/4n4/9/9/9/9/4RK3 w"),
            ("egtbmetric", "DTC"),
        ],
    );
    assert!(
        pv.body.starts_with("score:29995,depth:5,pv:e0e5|"),
        "{}",
        pv.body
    );
    // By distance to mate where no distance-to-conversion file is there.
    let plain = library(4);
    let by_dtm = ask(&plain, &[("action", "queryall"), ("board", ROOK_MATE)]);
    let asked_dtc = ask(
        &plain,
        &[
            ("action", "queryall"),
            ("board", ROOK_MATE),
            ("egtbmetric", "dtc"),
        ],
    );
    assert_eq!(asked_dtc, by_dtm);
}
