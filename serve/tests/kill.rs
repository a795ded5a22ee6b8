//! Nothing lost: the server killed outright (SIGKILL) at random moments
//! while a worker sends results and its own analysers write, again and
//! again, keeps every result it acknowledged and leaves the store whole;
//! a worker killed in the middle of its batch leaves the batch to go back
//! to the queue for another.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use xqcore::{Position, SplitMix64};
use xqserve::store::Store;
use xqserve::workers::{board_text, md5_hex, Tokens};

const SECRET: &str = "kill test secret";

/// Positions of random games from the start, no two alike (nor mirror
/// images), as many as asked for.
struct RandomPositions {
    rng: SplitMix64,
    seen: std::collections::HashSet<u64>,
}

impl Iterator for RandomPositions {
    type Item = Position;

    fn next(&mut self) -> Option<Position> {
        loop {
            let mut pos = Position::start();
            for _ in 0..4 + self.rng.below(30) {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                pos.make_move(legal[self.rng.below(legal.len())]);
            }
            if !pos.legal_moves().is_empty() && self.seen.insert(xqbook::book_key(&pos).0) {
                return Some(Position::from_fen(&pos.fen()).unwrap());
            }
        }
    }
}

fn random_positions(seed: u64) -> RandomPositions {
    RandomPositions {
        rng: SplitMix64::new(seed),
        seen: Default::default(),
    }
}

/// The store's file whole, by SQLite's own check.
fn integrity(file: &Path) -> String {
    let db = rusqlite::Connection::open(file).unwrap();
    db.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn the_server_killed_at_any_moment_keeps_every_result_it_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let store_file = dir.path().join("store.sqlite");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{SECRET}\n")).unwrap();
    // Work for the server's own analyser, so that it writes throughout.
    let mut sent = random_positions(7);
    {
        let store = Store::open(Some(&store_file)).unwrap();
        for pos in sent.by_ref().take(300) {
            store.enqueue(&pos, 1).unwrap();
        }
    }
    let args = [
        "--store".as_ref(),
        store_file.as_os_str(),
        "--token-file".as_ref(),
        token_file.as_os_str(),
        "--tables".as_ref(),
        "none".as_ref(),
        "--analyse-ms".as_ref(),
        "20".as_ref(),
        "--lines".as_ref(),
        "8".as_ref(),
    ];
    let token = Tokens::from_secret(SECRET)
        .worker_token("127.0.0.1")
        .unwrap();
    let mut rng = SplitMix64::new(11);
    let mut acknowledged: Vec<(Position, String, i16)> = Vec::new();
    for round in 0..12 {
        let (server, url) = common::start_server(&args);
        let mut server = common::Running(server);
        let addr = common::address(&url);
        let kill_at = Instant::now() + Duration::from_millis(50 + rng.below(400) as u64);
        // A worker's results, one move each, until the kill.
        while Instant::now() < kill_at {
            let pos = sent.next().expect("endless");
            let legal = pos.legal_moves();
            let mv = legal[rng.below(legal.len())].to_string();
            let score = (rng.below(600) as i16 - 300).to_string();
            let board = board_text(&pos);
            let proof = md5_hex(&[&token, &board, &mv, &score]);
            let path = format!(
                "/chessdb.php?action=store&board={}&move={mv}&score={score}&token={proof}",
                board.replace(' ', "%20")
            );
            let Ok(answer) = std::panic::catch_unwind(|| common::get(addr, &path)) else {
                break;
            };
            if answer.1.trim_end_matches('\0') == "ok" {
                // Kept for the side that plays the move; a mate is a mate
                // whatever the worker said.
                let mut child = pos.clone();
                child.make_move(pos.parse_move(&mv).unwrap());
                let kept = if child.legal_moves().is_empty() {
                    29_999
                } else {
                    -score.parse::<i16>().unwrap()
                };
                acknowledged.push((pos, mv, kept));
            }
        }
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        assert_eq!(integrity(&store_file), "ok", "round {round}");
        let store = Store::open(Some(&store_file)).unwrap();
        for (pos, mv, score) in &acknowledged {
            let stored = store.get(pos).unwrap().expect("an acknowledged position");
            let kept = stored.moves.iter().find(|m| m.mv.to_string() == *mv);
            // A move sent twice keeps the later score; each is sent once.
            assert_eq!(kept.map(|m| m.score), Some(*score), "round {round}: {mv}");
        }
    }
    assert!(acknowledged.len() > 20, "{} results", acknowledged.len());
    let store = Store::open(Some(&store_file)).unwrap();
    let counts = store.counts().unwrap();
    // The analysers wrote too, all the while.
    assert!(counts.queued < 300, "{counts:?}");
}

#[test]
fn a_worker_killed_in_its_batch_leaves_the_batch_to_another() {
    let dir = tempfile::tempdir().unwrap();
    let store_file = dir.path().join("store.sqlite");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{SECRET}\n")).unwrap();
    let positions: Vec<Position> = random_positions(17).take(4).collect();
    {
        let store = Store::open(Some(&store_file)).unwrap();
        for pos in &positions {
            store.enqueue(pos, 1).unwrap();
        }
    }
    let (server, url) = common::start_server(&[
        "--store".as_ref(),
        store_file.as_os_str(),
        "--token-file".as_ref(),
        token_file.as_os_str(),
        "--tables".as_ref(),
        "none".as_ref(),
        "--analysers".as_ref(),
        "0".as_ref(),
        "--lease-secs".as_ref(),
        "2".as_ref(),
    ]);
    let _server = common::Running(server);
    let worker = |extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_xqserve"));
        c.args(["work", "--server", &url, "--token-file"])
            .arg(&token_file)
            .args(["--tables", "none", "--lines", "2"])
            .args(extra);
        c
    };
    // A slow worker, killed while it searches its batch's first position.
    let mut slow = worker(&["--analyse-ms", "5000"]).spawn().unwrap();
    let store = Store::open(Some(&store_file)).unwrap();
    let started = Instant::now();
    while store.counts().unwrap().leased == 0 {
        assert!(started.elapsed() < Duration::from_secs(30), "never leased");
        std::thread::sleep(Duration::from_millis(20));
    }
    slow.kill().unwrap();
    slow.wait().unwrap();
    assert_eq!(store.counts().unwrap().positions, 0);
    // Another worker finds the queue held, then the batch back once its
    // lease is over, and does it all.
    let out = worker(&["--analyse-ms", "100"])
        .arg("--until-empty")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("0 position(s) analysed"),
        "the batch was held: {said}"
    );
    std::thread::sleep(Duration::from_millis(2100));
    let out = worker(&["--analyse-ms", "100"])
        .arg("--until-empty")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("4 position(s) analysed"), "{said}");
    let counts = store.counts().unwrap();
    assert_eq!((counts.positions, counts.queued), (4, 0), "{counts:?}");
}
