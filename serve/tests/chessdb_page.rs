//! chessdb.cn's own query page against our server: `xqserve --web-root`
//! serves the page (the folder ../shared/clients/chessdb-web beside the
//! workspace, public domain, copied unchanged from chessdb's repository)
//! beside the API, and headless Chromium, driven over the DevTools
//! protocol, opens it as chessdb's users do. Each test reads what the page
//! shows (its DOM once its scripts have drawn our replies) and compares it
//! with the server's `queryall`. Needs `chromium` (scripts/test.sh
//! installs it); without the page's folder the tests say so and pass.
//!
//! How the page asks (its `query_en/file/xiangqi.js`): opened at
//! `/query_en/?FEN` (spaces as `_`, ` moves M M...` after it played from
//! the FEN), it GETs `/chessdb.php?action=queryall&learn=1&showall=1&board=FEN`
//! and draws a table of Move (its own notation, `N2+3`), Rank, Score and
//! Notes from the text reply's fields by position; `unknown` (or a first
//! move scored `??`) it shows as "This position is not yet analyzed".
//! With 4 moves or more played it first POSTs `action=rulecheck`
//! (`board` the start, `movelist=M|M...`) and reads a number: 0 or 2 go
//! on, 1 is "Draw by rule!", 3 a loss by rule, anything else "Network
//! error!". Its queue button POSTs `action=queue&board=FEN&token=N` (N
//! chosen so that md5(FEN + N) starts with `00`) and wants a 200 whose
//! text has `ok`: "Request successful, refresh in 5 seconds...", and 5 s
//! later the moves asked for again.

mod board_game;
mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde::Deserialize;
use xqcore::{Move, Position};
use xqserve::load::chessdb_path;

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
/// Rook and king against a bare king: in the tables built here.
const ROOK_MATE: &str = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
/// After a3a4 a6a5 i3i4 i6i5 a0a1 i9i8: in no book and no table, with
/// the pieces for chessdb to take it into its queue (10 or more, 4
/// attackers or more).
const UNKNOWN: &str = "rnbakabn1/8r/1c5c1/2p1p1p2/p7p/P7P/2P1P1P2/1C5C1/R8/1NBAKABNR w";

/// chessdb's page, where the workspace's `../shared` keeps it (for a git
/// worktree, also beside the main checkout).
fn chessdb_web() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates = vec![root.join("../shared/clients/chessdb-web")];
    // A worktree's `.git` file: `gitdir: MAIN/.git/worktrees/NAME`.
    if let Ok(text) = std::fs::read_to_string(root.join(".git")) {
        if let Some(gitdir) = text.strip_prefix("gitdir:") {
            if let Some(main) = Path::new(gitdir.trim()).ancestors().nth(3) {
                candidates.push(main.join("../shared/clients/chessdb-web"));
            }
        }
    }
    candidates
        .into_iter()
        .find(|dir| dir.join("query_en/index.html").is_file())
}

/// Chromium from the PATH (as the other browser test runs it), else
/// whatever Chrome the DevTools crate finds.
fn chromium_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
        .or_else(|| headless_chrome::browser::default_executable().ok())
}

/// A server with `--web-root` at chessdb's page, the default book and the
/// rook tables built here, and a headless browser.
struct Fixture {
    // Dropped in this order: the browser, the server (stopped), the
    // folders.
    browser: Browser,
    _server: common::Running,
    url: String,
    /// The tables, and the screenshots.
    dir: tempfile::TempDir,
    _profile: tempfile::TempDir,
}

impl Fixture {
    /// `None` (the test says why and passes) when chessdb's page is not
    /// there; fails when Chromium cannot be started.
    fn start() -> Option<Fixture> {
        let Some(web) = chessdb_web() else {
            eprintln!(
                "skipped: chessdb's query page is not at ../shared/clients/chessdb-web \
                 beside the workspace"
            );
            return None;
        };
        let chromium = chromium_path().unwrap_or_else(|| {
            panic!(
                "chromium not found: chessdb's page test needs it. Install it with \
                 `apt-get install chromium fonts-wqy-zenhei`, or run scripts/test.sh"
            )
        });
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables");
        std::fs::create_dir(&tables).unwrap();
        common::build_rook_tables(&tables);
        let args = [
            OsStr::new("--web-root"),
            web.as_os_str(),
            OsStr::new("--tables"),
            tables.as_os_str(),
            OsStr::new("--think-ms"),
            OsStr::new("300"),
            // The server's analyser, quick: a queued position is known
            // within a second.
            OsStr::new("--analyse-ms"),
            OsStr::new("500"),
        ];
        let (server, url, _log) = common::start_server_logged(&args);
        let profile = tempfile::tempdir().unwrap();
        let options = LaunchOptions::default_builder()
            .path(Some(chromium))
            .headless(true)
            .sandbox(false)
            .window_size(Some((1280, 860)))
            .user_data_dir(Some(profile.path().to_path_buf()))
            .idle_browser_timeout(Duration::from_secs(120))
            // Nothing leaves the machine: the page's CDN scripts fail at
            // once (it does without them).
            .args(vec![OsStr::new(
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            )])
            .build()
            .unwrap();
        let browser = Browser::new(options).expect("start chromium over the DevTools protocol");
        Some(Fixture {
            browser,
            _server: server,
            url,
            dir,
            _profile: profile,
        })
    }

    fn base(&self) -> &str {
        self.url.trim_end_matches("chessdb.php")
    }

    /// A tab with chessdb's English page opened at `board` (a FEN, maybe
    /// with ` moves ...`), once it shows its answer.
    fn open(&self, board: &str) -> (std::sync::Arc<Tab>, Shown) {
        let tab = self.browser.new_tab().unwrap();
        tab.set_default_timeout(Duration::from_secs(20));
        let url = format!("{}query_en/?{}", self.base(), board.replace(' ', "_"));
        tab.navigate_to(&url).unwrap();
        tab.wait_until_navigated().unwrap();
        let shown = wait_shown(&tab, |s| s.answered());
        (tab, shown)
    }

    /// The page as drawn, to `NAME.png` in the test's folder.
    fn screenshot(&self, tab: &Tab, name: &str) -> PathBuf {
        let png = tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
            .unwrap();
        assert!(png.len() > 10_000, "a screenshot of {} bytes", png.len());
        let path = self.dir.path().join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// The server's `queryall` as the page asks for it.
    fn queryall(&self, board: &str) -> Vec<Entry> {
        self.queryall_with(board, "")
    }

    /// [`Fixture::queryall`] with `extra` parameters (`&egtbmetric=dtc`).
    fn queryall_with(&self, board: &str, extra: &str) -> Vec<Entry> {
        let path = format!(
            "{}&learn=1&showall=1{extra}",
            chessdb_path("queryall", board)
        );
        let (status, body) = common::get(common::address(&self.url), &path);
        assert_eq!(status, 200, "{body}");
        entries(&body)
    }
}

/// What the page's answer pane (`#out`) shows: the rows of its move table
/// (Move, Rank, Score, Notes) and any message instead.
#[derive(Debug, Deserialize)]
struct Shown {
    rows: Vec<Vec<String>>,
    message: String,
}

impl Shown {
    /// An answer drawn, not "Please wait...".
    fn answered(&self) -> bool {
        !self.rows.is_empty() || !(self.message.is_empty() || self.message.contains("Please wait"))
    }
}

/// The answer pane as text, from the DOM.
const SHOWN_JS: &str = r#"(() => {
  const out = document.getElementById('out');
  const rows = [...out.querySelectorAll('tr[id^="ft"]')]
    .map(tr => [...tr.cells].map(td => td.innerText.trim()));
  const message = [...out.children].filter(e => e.tagName === 'SPAN')
    .map(e => e.innerText.trim()).join(' ').trim();
  return JSON.stringify({ rows, message });
})()"#;

fn shown(tab: &Tab) -> Shown {
    let value = tab.evaluate(SHOWN_JS, false).unwrap().value;
    let text = value.as_ref().and_then(|v| v.as_str()).unwrap_or("{}");
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The answer pane once `done` holds (at most 20 s).
fn wait_shown(tab: &Tab, done: impl Fn(&Shown) -> bool) -> Shown {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = shown(tab);
        if done(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "the page still shows {now:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One move of a text `queryall` reply.
#[derive(Debug, PartialEq)]
struct Entry {
    mv: String,
    score: String,
    rank: String,
    note: String,
}

/// The entries of a text `queryall` reply (NUL-ended, `|`-joined).
fn entries(body: &str) -> Vec<Entry> {
    body.trim_end_matches('\0')
        .split('|')
        .map(|entry| {
            let field = |name: &str| {
                entry
                    .split(',')
                    .find_map(|f| f.strip_prefix(&format!("{name}:")))
                    .unwrap_or_else(|| panic!("no {name} in {entry:?}"))
                    .to_string()
            };
            Entry {
                mv: field("move"),
                score: field("score"),
                rank: field("rank"),
                note: field("note"),
            }
        })
        .collect()
}

/// The move a row names in the page's notation (`N2+3`, `c8=5`), read by
/// our notation reader.
fn move_named(pos: &Position, name: &str) -> Move {
    xqrecords::notation::parse_and_resolve(pos, name)
        .unwrap_or_else(|e| panic!("the page's move {name:?}: {e}"))
}

/// The page's table is the server's reply: every move in the server's
/// order, each named for the move the server gave, with its rank, score
/// and note.
fn assert_table_is_reply(board: &str, shown: &Shown, reply: &[Entry]) {
    let pos = Position::from_fen(board).unwrap();
    assert_eq!(shown.rows.len(), reply.len(), "{shown:?}\n{reply:?}");
    for (row, entry) in shown.rows.iter().zip(reply) {
        let [name, rank, score, note] = row.as_slice() else {
            panic!("a row of four cells: {row:?}");
        };
        assert_eq!(move_named(&pos, name).to_string(), entry.mv, "{row:?}");
        assert_eq!(
            (rank, score, note),
            (&entry.rank, &entry.score, &entry.note),
            "{row:?}"
        );
    }
}

#[test]
fn the_start_position_shows_the_books_moves_and_scores() {
    let Some(fx) = Fixture::start() else { return };
    let (tab, shown) = fx.open(START);
    let shot = fx.screenshot(&tab, "start");
    std::fs::copy(&shot, "/tmp/chessdb_page.png").ok();
    let reply = fx.queryall(START);
    assert_table_is_reply(START, &shown, &reply);
    // The book's moves first, scored and noted with their games, then the
    // other legal moves (`showall`) unscored.
    let book: Vec<&Vec<String>> = shown.rows.iter().filter(|r| r[2] != "??").collect();
    assert!(book.len() >= 5, "{shown:?}");
    assert_eq!(shown.rows[..book.len()].iter().collect::<Vec<_>>(), book);
    assert_eq!(shown.rows[0][1], "2", "the first move best: {shown:?}");
    for row in &book {
        row[2].parse::<i32>().unwrap();
        assert!(
            ["! (", "* (", "? ("].iter().any(|m| row[3].starts_with(m)),
            "{row:?}"
        );
    }
    assert!(
        book.iter().any(|r| r[3]
            .split(['(', '-', ')'])
            .filter(|n| n.parse::<u32>().is_ok())
            .count()
            == 3),
        "some move noted with its games' wins-draws-losses: {shown:?}"
    );
    assert_eq!(shown.rows.len(), 44, "every legal move listed: {shown:?}");
}

#[test]
fn a_table_position_shows_every_move_with_its_distance_to_mate() {
    let Some(fx) = Fixture::start() else { return };
    let (tab, shown) = fx.open(ROOK_MATE);
    fx.screenshot(&tab, "rook");
    let reply = fx.queryall(ROOK_MATE);
    assert_table_is_reply(ROOK_MATE, &shown, &reply);
    let best = &shown.rows[0];
    assert_eq!(best[1], "2", "{shown:?}");
    assert!(best[3].starts_with("! (W-M-"), "{shown:?}");
    let plies: i32 = best[3]["! (W-M-".len()..best[3].len() - 1].parse().unwrap();
    assert_eq!(best[2], (30_000 - plies).to_string(), "{shown:?}");
    // The rook wins from everywhere it can go safely: all scored, none `??`.
    assert!(shown.rows.iter().all(|r| r[2] != "??"), "{shown:?}");

    // A click on a move that keeps the win without mating at once plays
    // it; the page asks for Black's moves, every one lost, and shows them
    // as the server answers them.
    let start = Position::from_fen(ROOK_MATE).unwrap();
    let after_row = |r: &Vec<String>| {
        let mut pos = start.clone();
        pos.make_move(move_named(&start, &r[0]));
        pos
    };
    let row = shown
        .rows
        .iter()
        .position(|r| r[1] != "0" && !after_row(r).legal_moves().is_empty())
        .unwrap();
    let pos = after_row(&shown.rows[row]);
    tab.find_element(&format!("#ft{row}"))
        .unwrap()
        .click()
        .unwrap();
    let after = wait_shown(&tab, |s| s.answered() && s.rows != shown.rows);
    fx.screenshot(&tab, "rook-played");
    let reply = fx.queryall(&pos.fen());
    assert_table_is_reply(&pos.fen(), &after, &reply);
    for row in &after.rows {
        let score: i32 = row[2].parse().unwrap();
        assert!(score < -29_000 && row[3].contains("(L-M-"), "{after:?}");
    }
}

/// chessdb's DTC button: the page asks with `egtbmetric=dtc` and shows the
/// server's distances to conversion, noted `(W-00-SSS)`.
#[test]
fn the_dtc_button_shows_distances_to_conversion() {
    let Some(fx) = Fixture::start() else { return };
    let (tab, shown) = fx.open(ROOK_MATE);
    assert!(shown.rows[0][3].starts_with("! (W-M-"), "{shown:?}");
    tab.find_element("#dtctb").unwrap().click().unwrap();
    let by_dtc = wait_shown(&tab, |s| {
        s.rows.first().is_some_and(|r| r[3].contains("-00-"))
    });
    let shot = fx.screenshot(&tab, "rook-dtc");
    std::fs::copy(&shot, std::env::temp_dir().join("chessdb_page_dtc.png")).ok();
    let reply = fx.queryall_with(ROOK_MATE, "&egtbmetric=dtc");
    assert_table_is_reply(ROOK_MATE, &by_dtc, &reply);
    let best = &by_dtc.rows[0];
    assert!(best[3].starts_with("! (W-00-"), "{by_dtc:?}");
    // With a rook alone, conversion is mate: the same moves and scores.
    let scores = |s: &Shown| s.rows.iter().map(|r| r[2].clone()).collect::<Vec<_>>();
    let (mut a, mut b) = (scores(&shown), scores(&by_dtc));
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// A position no book, table or stored analysis knows: the server says
/// so (every move `??`, as chessdb answers the page's `showall`), and the
/// page shows it as not analysed, with its "Request for analysis" button.
#[test]
fn an_unknown_position_is_shown_as_not_analysed() {
    let Some(fx) = Fixture::start() else { return };
    let (tab, shown) = fx.open(UNKNOWN);
    fx.screenshot(&tab, "unknown");
    assert!(shown.rows.is_empty(), "{shown:?}");
    assert!(
        shown
            .message
            .starts_with("This position is not yet analyzed, you can:"),
        "{shown:?}"
    );
    assert!(shown.message.contains("Request for analysis"), "{shown:?}");
}

/// The whole loop of a position nobody knew: the queue button beside the
/// board (`#queuebtn`, or the key `q`) POSTs `action=queue&board=FEN&token=N`;
/// on a 200 whose text has `ok` the page says so and asks for the moves
/// again 5 s later; by then the server's analyser has scored the position,
/// and the page shows the moves with their scores, as the server answers
/// them.
#[test]
fn the_queue_button_requests_an_analysis_and_the_page_then_shows_it() {
    let Some(fx) = Fixture::start() else { return };
    let (tab, before) = fx.open(UNKNOWN);
    tab.find_element("#queuebtn").unwrap().click().unwrap();
    // Its answer to the click, not what it showed before.
    let shown = wait_shown(&tab, |s| {
        s.rows.is_empty() && !s.message.contains("Please wait") && s.message != before.message
    });
    fx.screenshot(&tab, "queue");
    assert_eq!(
        shown.message, "Request successful, refresh in 5 seconds...",
        "{shown:?}"
    );
    let analysed = wait_shown(&tab, |s| s.rows.first().is_some_and(|r| r[2] != "??"));
    let png = fx.screenshot(&tab, "analysed");
    let _ = std::fs::copy(&png, "/tmp/chessdb_page_analysed.png");
    let reply = fx.queryall(UNKNOWN);
    assert_table_is_reply(UNKNOWN, &analysed, &reply);
    // Scored moves first (the analyser's lines), the rest `??`.
    let scored = analysed.rows.iter().filter(|r| r[2] != "??").count();
    assert!((1..=5).contains(&scored), "{analysed:?}");
}

/// With 4 moves or more played the page asks `rulecheck` before the
/// moves (a number: 0, the game goes on), then shows the moves of the
/// position reached.
#[test]
fn a_game_of_four_moves_shows_its_moves() {
    let Some(fx) = Fixture::start() else { return };
    let game = format!("{START} moves h2e2 h9g7 h0g2 i9h9");
    let (tab, shown) = fx.open(&game);
    fx.screenshot(&tab, "game");
    // The page asks for the moves of the position reached.
    let fen = xqserve::board::parse_board(&game).unwrap().fen();
    let reply = fx.queryall(&fen);
    assert_table_is_reply(&fen, &shown, &reply);
}
