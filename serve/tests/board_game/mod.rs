//! Games on the board, in headless Chromium driven over the DevTools
//! protocol. The page's `?selftest=play` mode plays against the engine as
//! a player does (colour, level and clock chosen in the page's selects,
//! moves clicked on the board, undo, a draw offer, resigning); its
//! `?selftest=review` mode reviews a master game of data/games loaded as a
//! file, and clicks on the evaluation graph. Each writes what the page
//! showed; the tests check it against the rules, the game file and the
//! exported PGN read back. Needs `chromium` (scripts/test.sh installs it).
//! (A module of chessdb's page tests, which drive Chromium the same way:
//! one test binary fewer to build.)

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions};
use serde_json::Value;
use xqcore::{EndRules, Position};

/// Chromium, as chessdb's page tests find it.
fn chromium_path() -> PathBuf {
    super::chromium_path().unwrap_or_else(|| {
        panic!(
            "chromium not found: the board's test needs it. Install it with \
             `apt-get install chromium fonts-wqy-zenhei`, or run scripts/test.sh"
        )
    })
}

/// What the page's self-test `query` (`selftest=...`) reported, and a
/// screenshot of the page at its end, against a server started with
/// `args`.
fn selftest(args: &[&OsStr], query: &str) -> (Value, Vec<u8>) {
    let (server, url) = crate::common::start_server(args);
    let _server = crate::common::Running(server);
    let profile = tempfile::tempdir().unwrap();
    let options = LaunchOptions::default_builder()
        .path(Some(chromium_path()))
        .headless(true)
        .sandbox(false)
        .window_size(Some((1280, 1000)))
        .user_data_dir(Some(profile.path().to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(300))
        .build()
        .unwrap();
    let browser = Browser::new(options).expect("start chromium over the DevTools protocol");
    let tab = browser.new_tab().unwrap();
    let base = url.trim_end_matches("chessdb.php");
    tab.navigate_to(&format!("{base}?{query}")).unwrap();
    tab.wait_until_navigated().unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    let report = loop {
        let value = tab
            .evaluate(
                "document.getElementById('selftest')?.textContent ?? ''",
                false,
            )
            .unwrap()
            .value;
        let text = value.as_ref().and_then(Value::as_str).unwrap_or("");
        if !text.is_empty() {
            break serde_json::from_str::<Value>(text).unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "the page's self-test did not end"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    assert!(png.len() > 10_000, "a screenshot of {} bytes", png.len());
    (report, png)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// One browser session for all the checks: a whole game takes a minute.
#[test]
fn a_game_against_a_level_is_played_ruled_and_saved() {
    let args = [OsStr::new("--tables"), OsStr::new("none")];
    let (report, png) = selftest(&args, "selftest=play");
    let _ = std::fs::write(std::env::temp_dir().join("xqserve_board_game.png"), &png);

    // Every level offered, with the Elo it claims.
    let levels = strings(&report["levels"]);
    assert_eq!(levels.len(), 21, "{levels:?}");
    assert!(levels[0].starts_with("0: Elo "), "{levels:?}");
    assert_eq!(levels[20], "20: full strength");

    // Resigning as Black after the engine's first move (Red, level 5).
    let resign = &report["resign"];
    assert!(resign["firstMove"].is_string(), "{resign}");
    assert_eq!(resign["flipped"], true, "Black plays from the bottom");
    assert_eq!(resign["result"], "1-0");
    assert_eq!(resign["shown"], "1-0: Black resigns");

    // Undo takes back the player's move and the engine's answer.
    assert_eq!(
        report["beforeUndo"].as_array().unwrap().len(),
        2,
        "{report}"
    );
    assert!(report["afterUndo"].as_array().unwrap().is_empty());
    // A draw offered at the start is declined, and the game goes on.
    let offer = &report["drawOffer"];
    assert!(
        offer["thinking"]
            .as_str()
            .unwrap()
            .ends_with("the engine declines the draw"),
        "{offer}"
    );
    assert_eq!(offer["on"], true);
    // The clocks run: the player's, on their turn, went down 1.2 s while
    // the engine's stood.
    let seconds = |text: &str| -> f64 {
        let clock = text.split_whitespace().nth(1).unwrap();
        let (minutes, secs) = clock.split_once(':').unwrap();
        minutes.parse::<f64>().unwrap() * 60.0 + secs.parse::<f64>().unwrap()
    };
    let (before, after) = (strings(&report["clocks"][0]), strings(&report["clocks"][1]));
    let ran = seconds(&before[0]) - seconds(&after[0]);
    assert!((1.0..2.0).contains(&ran), "{before:?} then {after:?}");
    assert_eq!(before[1], after[1]);
    assert!(
        after[0].starts_with("Red ") && after[0].ends_with("(you)"),
        "{after:?}"
    );
    assert!(
        after[1].starts_with("Black ") && after[1].contains("(xqengine level 0 (Elo "),
        "{after:?}"
    );

    // The game went on to its end, by the rules or a resignation.
    let game = &report["game"];
    assert_eq!(game["on"], false, "{game}");
    let result = game["result"].as_str().unwrap();
    let reason = game["reason"].as_str().unwrap();
    assert_eq!(game["shown"], format!("{result}: {reason}"));
    let moves = strings(&game["moves"]);
    let mut pos = Position::start();
    for m in &moves {
        let mv = pos.parse_move(m).unwrap();
        pos.make_move(mv);
    }
    match pos.outcome(&EndRules::default()) {
        Some(outcome) => {
            assert_eq!(reason, outcome.ruling(), "{game}");
            let expected = match outcome.winner() {
                Some(xqcore::Color::Red) => "1-0",
                Some(xqcore::Color::Black) => "0-1",
                None => "1/2-1/2",
            };
            assert_eq!(result, expected);
        }
        None => assert!(reason.ends_with("resigns"), "{game}"),
    }
    // The saved PGN reads back as the game played.
    let pgn = game["pgn"].as_str().unwrap();
    let chunk = xqrecords::pgn::split(pgn).into_iter().next().unwrap();
    let read = xqrecords::pgn::parse_game(&chunk).unwrap();
    let read_moves: Vec<String> = read.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(read_moves, moves);
    assert!(pgn.contains(&format!("[Result \"{result}\"]")), "{pgn}");
    assert!(pgn.contains("[TimeControl \"60+1\"]"), "{pgn}");
    assert!(pgn.trim_end().ends_with(result), "{pgn}");
}

/// A master game of data/games (Big5, Chinese notation), loaded as a
/// file and reviewed: every position judged, every move in the table and
/// on the graph, a click on the graph shows its position, and the review
/// exports as PGN that our reader (comments and glyphs) and cchess (the
/// moves) read back.
#[test]
fn a_master_game_is_reviewed_marked_graphed_and_exported() {
    let games = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/games");
    let file = "ccpd-first-200.big5.pgn";
    let args = [
        OsStr::new("--tables"),
        OsStr::new("none"),
        OsStr::new("--think-ms"),
        OsStr::new("60"),
        OsStr::new("--web-root"),
        OsStr::new(games),
    ];
    let (report, png) = selftest(&args, &format!("selftest=review&file={file}"));
    let _ = std::fs::write(std::env::temp_dir().join("xqserve_board_review.png"), &png);

    let bytes = std::fs::read(format!("{games}/{file}")).unwrap();
    let text = xqrecords::encoding::decode(&bytes, None).text;
    let game = xqrecords::pgn::parse_game(&xqrecords::pgn::split(&text)[0]).unwrap();
    let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(strings(&report["moves"]), moves);
    assert_eq!(report["done"], true, "{}", report["progress"]);
    assert_eq!(report["judged"], moves.len() + 1);
    // The opening from the book, the rest from the engine.
    let sources = strings(&report["sources"]);
    assert_eq!(sources[0], "book");
    assert!(sources.iter().any(|s| s == "engine"), "{sources:?}");

    // A row a move, a point a position.
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), moves.len());
    for (i, row) in rows.iter().enumerate() {
        let first = row[0].as_str().unwrap();
        assert!(first.ends_with(&moves[i]), "row {i}: {row}");
    }
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), moves.len() + 1);
    let marked: Vec<&str> = rows.iter().map(|r| r[4].as_str().unwrap()).collect();
    let progress = report["progress"].as_str().unwrap();
    let count = |glyph: &str| marked.iter().filter(|m| **m == glyph).count();
    assert!(
        progress.contains(&format!(
            "{} inaccuracies, {} mistakes, {} blunders",
            count("?!"),
            count("?"),
            count("??")
        )),
        "{progress}"
    );

    // The graph's point of ply 12 shows the position after 12 moves.
    let clicked = &report["clicked"];
    assert_eq!(strings(&clicked["moves"]), moves[..12]);
    assert_eq!(clicked["current"], "12");

    // The review as PGN: every move with its comment, each mark its glyph.
    assert_eq!(report["exportEnabled"], true);
    let pgn = report["pgn"].as_str().unwrap();
    let read = xqrecords::pgn::parse_game(&xqrecords::pgn::split(pgn)[0]).unwrap();
    assert_eq!(read.moves, game.moves);
    assert_eq!(read.tag("Annotator"), Some("xqserve review"));
    assert_eq!(read.tag("Red"), game.tag("Red"));
    for (i, note) in read.notes.iter().enumerate() {
        assert!(!note.comment.is_empty(), "move {i} has no comment: {pgn}");
        let glyph = match note.nags.as_slice() {
            [] => "",
            [6] => "?!",
            [2] => "?",
            [4] => "??",
            other => panic!("move {i}: glyphs {other:?}"),
        };
        assert_eq!(glyph, marked[i], "move {i}");
    }
    // The moves alone, for cchess, whose reader stops at a comment.
    let plain = tempfile::NamedTempFile::with_suffix(".pgn").unwrap();
    std::fs::write(plain.path(), report["plainPgn"].as_str().unwrap()).unwrap();
    if let Some(read) = xqcli::cchess::pgn_moves(plain.path()) {
        assert_eq!(read, moves);
    } else {
        eprintln!("cchess is not installed: the plain export is read by our reader only");
    }
    let plain_text = std::fs::read_to_string(plain.path()).unwrap();
    let ours = xqrecords::pgn::parse_game(&xqrecords::pgn::split(&plain_text)[0]).unwrap();
    assert_eq!(ours.moves, game.moves);
}
