//! The analysis board in a real browser: headless Chromium loads the page,
//! which uses the board as a user does (its `?selftest=1` mode: clicks on
//! squares, the flip button, the FEN box, analyses) and writes what its
//! panes show; the tests read that from the page's DOM, and compare it
//! with what the server answers. Needs `chromium` (Debian package; .ci/run
//! installs it).

mod common;

use std::ffi::OsStr;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};
use xqserve::load::chessdb_path;

/// Chromium with a profile of its own, so that two at once do not meet
/// in one browser.
fn chromium(args: &[&str]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=60000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .output()
        .expect("run chromium (apt-get install chromium)")
}

/// Fails the test, before a server starts, when `chromium` cannot be run:
/// a message saying how to install it, no panic location or backtrace.
fn need_chromium() {
    if let Err(e) = Command::new("chromium").arg("--version").output() {
        let why = format!(
            "chromium cannot be run ({e}): the analysis board's test needs it. Install it \
             with `apt-get install chromium fonts-wqy-zenhei`, or run scripts/test.sh, \
             which installs what the tests need and runs them."
        );
        eprintln!("{why}");
        std::panic::resume_unwind(Box::new(why));
    }
}

/// What the self-test saw, and the server's answer to a chessdb query
/// about the position after its third move.
struct Report {
    page: Value,
    queryall: Value,
}

/// The self-test, run once for all the tests here, against a server with
/// the rook tables.
fn report() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| {
        need_chromium();
        let tables = tempfile::tempdir().unwrap();
        common::build_rook_tables(tables.path());
        let args = [
            OsStr::new("--think-ms"),
            OsStr::new("300"),
            OsStr::new("--tables"),
            tables.path().as_os_str(),
        ];
        let (mut server, url) = common::start_server(&args);
        let base = url.trim_end_matches("chessdb.php");
        let dom = chromium(&["--dump-dom", &format!("{base}?selftest=1")]);
        let html = String::from_utf8_lossy(&dom.stdout).to_string();
        let page = html
            .split("<pre id=\"selftest\">")
            .nth(1)
            .and_then(|rest| rest.split("</pre>").next())
            .map(|text| {
                text.replace("&quot;", "\"")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&")
            })
            .and_then(|text| serde_json::from_str(&text).ok());
        let queryall = page.as_ref().map_or(Value::Null, |page: &Value| {
            let board = page["afterMove"]["board"].as_str().unwrap_or_default();
            let path = format!("{}&json=1", chessdb_path("queryall", board));
            let (_, body) = common::get(common::address(&url), &path);
            serde_json::from_str(&body).unwrap_or(Value::Null)
        });
        server.kill().ok();
        server.wait().ok();
        let page = page.unwrap_or_else(|| {
            let stderr = String::from_utf8_lossy(&dom.stderr);
            let errors: Vec<&str> = stderr.lines().filter(|l| !l.contains("dbus")).collect();
            panic!(
                "no self-test report in the page ({}):\n{html}\n{}",
                dom.status,
                errors.join("\n")
            )
        });
        Report { page, queryall }
    })
}

#[test]
fn the_board_plays_moves_and_shows_book_and_engine() {
    let v = &report().page;
    assert_eq!(v["moves"], json!(["h2e2", "h9g7"]), "{v}");
    assert!(
        v["fen"]
            .as_str()
            .unwrap()
            .starts_with("rnbakab1r/9/1c4nc1/"),
        "{v}"
    );
    let engine = v["engine"].as_array().unwrap();
    assert!(engine.len() >= 2, "several engine lines: {v}");
    assert!(engine[0].as_str().unwrap().starts_with("1. depth "), "{v}");
    // Each line ends with Red's chances by the engine's win-draw-loss
    // model, three percentages.
    let line = engine[0].as_str().unwrap();
    let chances = line
        .rsplit_once("(Red W ")
        .map(|(_, c)| c)
        .unwrap_or_default();
    let percents: Vec<u32> = chances
        .split('%')
        .filter_map(|p| {
            p.trim()
                .trim_start_matches(['D', 'L', ' '])
                .trim()
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(percents.len(), 3, "{line}");
    assert!((99..=101).contains(&percents.iter().sum::<u32>()), "{line}");
    assert!(v["pgn"].as_str().unwrap().contains("1. H2-E2 H9-G7"), "{v}");
    let book = v["afterMove"]["book"].as_array().unwrap();
    assert!(!book.is_empty(), "the book pane lists moves: {v}");
}

#[test]
fn the_engine_pane_shows_only_lines_of_the_position_shown() {
    let v = &report().page;
    // After a move: no line of the position analysed before it.
    let after = &v["afterMove"];
    let lines = after["engine"].as_array().unwrap();
    assert!(
        lines.is_empty() || after["engineBoard"] == after["board"],
        "{after}"
    );
    // After a new FEN likewise.
    assert_eq!(v["rookMate"]["engineAfterFen"], json!([]), "{v}");
}

#[test]
fn a_refused_fen_leaves_the_game_as_it_was_and_says_why() {
    let refused = &report().page["refused"];
    let status = refused["status"].as_str().unwrap();
    assert!(status.contains("invalid FEN"), "{refused}");
    assert_eq!(
        refused["moves"],
        json!(["h2e2", "h9g7", "b0c2"]),
        "{refused}"
    );
    assert!(
        !refused["pgn"].as_str().unwrap().contains("garbage"),
        "{refused}"
    );
    // The board goes on: the next click plays.
    assert_eq!(
        refused["movesAfter"],
        json!(["h2e2", "h9g7", "b0c2", "b7e7"]),
        "{refused}"
    );
    assert!(refused["statusAfter"] == "Red to move", "{refused}");
}

/// The score of an engine line `1. depth D  SCORE  MOVES...`.
fn line_score(line: &Value) -> &str {
    line.as_str()
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap_or_default()
}

#[test]
fn every_score_on_the_page_is_from_reds_side() {
    let Report { page, queryall } = report();
    assert!(
        page["view"].as_str().unwrap().contains("Red's side"),
        "{page}"
    );
    // Black to move: the book pane shows the server's scores negated.
    let after = &page["afterMove"];
    assert_eq!(after["turn"], "black");
    let shown: Vec<(Value, Value)> = after["book"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row[0].clone(), row[1].clone()))
        .collect();
    let served: Vec<(Value, Value)> = queryall["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["uci"].clone(), json!(-m["score"].as_i64().unwrap())))
        .collect();
    let mut shown_sorted = shown.clone();
    let mut served_sorted = served.clone();
    shown_sorted.sort_by_key(|m| m.0.to_string());
    served_sorted.sort_by_key(|m| m.0.to_string());
    assert_eq!(shown_sorted, served_sorted, "{after}\n{queryall}");
    // Rook against king, Black to move: Red wins in the tables and the
    // engine's eyes alike.
    let rook = &page["rookMate"];
    let rows = rook["tables"].as_array().unwrap();
    assert!(!rows.is_empty(), "{rook}");
    for row in rows {
        let score = row[1].as_str().unwrap();
        let result = row[2].as_str().unwrap();
        assert!(
            score.starts_with("+M") && result.starts_with("Red wins"),
            "{rook}"
        );
    }
    // By distance to conversion: with a rook alone, conversion is mate, in
    // as many plies.
    let dtc_rows = rook["dtcTables"].as_array().unwrap();
    assert_eq!(dtc_rows.len(), rows.len(), "{rook}");
    for (dtc, dtm) in dtc_rows.iter().zip(rows) {
        let result = dtc[2].as_str().unwrap();
        assert!(dtc[1].as_str().unwrap().starts_with("+C"), "{rook}");
        assert!(result.contains("conversion in"), "{rook}");
        let plies = |text: &str| text.split(" in ").nth(1).map(|t| t.to_string());
        assert_eq!(plies(result), plies(dtm[2].as_str().unwrap()), "{rook}");
    }
    let engine = rook["engine"].as_array().unwrap();
    assert!(!engine.is_empty(), "{rook}");
    assert!(
        engine.iter().all(|l| line_score(l).starts_with('+')),
        "{rook}"
    );
}

#[test]
fn the_book_pane_ranks_moves_as_the_server_does() {
    let Report { page, queryall } = report();
    let shown: Vec<&Value> = page["afterMove"]["book"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| &row[0])
        .collect();
    let served: Vec<&Value> = queryall["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["uci"])
        .collect();
    assert_eq!(shown, served, "{page}\n{queryall}");
}

#[test]
fn the_board_has_file_and_rank_labels_that_follow_a_flip() {
    let page = &report().page;
    for key in ["labels", "flippedLabels"] {
        let labels = &page[key];
        for (kind, names) in [("files", "abcdefghi"), ("ranks", "0123456789")] {
            let list = labels[kind].as_array().unwrap();
            // Each name on two sides of the board.
            assert_eq!(list.len(), 2 * names.len(), "{key} {kind}: {labels}");
            for label in list {
                assert_eq!(
                    label[0], label[1],
                    "{key} {kind}: a label off its line: {labels}"
                );
            }
            for name in names.chars() {
                let count = list.iter().filter(|l| l[0] == name.to_string()).count();
                assert_eq!(count, 2, "{key} {kind} {name}: {labels}");
            }
        }
    }
}

#[test]
fn the_board_renders() {
    let (mut server, url) = common::start_server(&["--tables", "none"].map(OsStr::new));
    let shot = tempfile::tempdir().unwrap();
    let png = shot.path().join("board.png");
    let screenshot = chromium(&[
        "--window-size=1000,1100",
        &format!("--screenshot={}", png.display()),
        url.trim_end_matches("chessdb.php"),
    ]);
    server.kill().ok();
    server.wait().ok();
    assert!(
        screenshot.status.success(),
        "{}",
        String::from_utf8_lossy(&screenshot.stderr)
    );
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 10_000, "screenshot of {size} bytes");
}

/// What the board page shows when opened at `query` (after the page's
/// address, e.g. `?fen=...`): the FEN of the board drawn and the status
/// line.
fn opened_at(base: &str, query: &str) -> (String, String) {
    let dom = chromium(&["--dump-dom", &format!("{base}{query}")]);
    let html = String::from_utf8_lossy(&dom.stdout).to_string();
    let attribute = |text: &str, name: &str| -> Option<String> {
        let rest = text.split(&format!("{name}=\"")).nth(1)?;
        Some(rest[..rest.find('"')?].to_string())
    };
    let board = html
        .split("<svg id=\"board\"")
        .nth(1)
        .map(|rest| &rest[..rest.find('>').unwrap_or(0)])
        .unwrap_or_default();
    let fen = attribute(board, "data-fen").unwrap_or_default();
    let status = html
        .split("<div id=\"status\"")
        .nth(1)
        .and_then(|rest| Some(rest[rest.find('>')? + 1..rest.find("</div>")?].to_string()))
        .unwrap_or_default();
    (fen, status)
}

#[test]
fn the_board_opens_at_a_fen_from_its_address() {
    need_chromium();
    let tables = tempfile::tempdir().unwrap();
    common::build_rook_tables(tables.path());
    let args = [OsStr::new("--tables"), tables.path().as_os_str()];
    let (mut server, url) = common::start_server(&args);
    let base = url.trim_end_matches("chessdb.php").to_string();
    let rook = "3k5/9/9/9/9/9/9/9/9/4K3R b";
    let encoded = rook.replace(' ', "%20");
    let by_query = opened_at(&base, &format!("?fen={encoded}"));
    let by_hash = opened_at(&base, &format!("#fen={encoded}"));
    let refused = opened_at(&base, "?fen=not%20a%20fen");
    server.kill().ok();
    server.wait().ok();
    for (how, (fen, status)) in [("?fen=", &by_query), ("#fen=", &by_hash)] {
        assert!(
            fen.starts_with(rook),
            "{how}: board at {fen:?}, status {status:?}"
        );
        assert_eq!(status, "Black to move", "{how}");
    }
    // A FEN the server refuses: the start position, and why.
    let (fen, status) = refused;
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    assert!(fen.starts_with(start), "board at {fen:?}");
    assert!(
        status.starts_with("FEN refused: ") && status.contains("invalid FEN"),
        "{status:?}"
    );
}
