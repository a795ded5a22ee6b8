//! Mates in 1 to 4 (data/mates.txt, verified by a brute-force solver) are found
//! with the right move and score; lost positions get no move.

mod common;

use common::{best_of, Engine, SECS};

#[test]
fn forced_mates_are_found_and_played() {
    let text = include_str!("../../data/mates.txt");
    let mut e = Engine::start();
    e.send("uci");
    e.expect("uciok", SECS(5));
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (kind, fen, mv) = (cols[0], cols[1], cols[2]);
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        match kind.parse::<u32>() {
            Ok(n) => {
                // A node budget rather than a depth: pruning makes nominal
                // depths deep and cheap, so what counts is the work spent.
                e.send("go nodes 1000000");
                let lines = e.collect_until("bestmove", SECS(60));
                let last_info = lines
                    .iter()
                    .rev()
                    .find(|l| l.starts_with("info depth"))
                    .expect("info");
                assert!(
                    last_info.contains(&format!(" score mate {n} ")),
                    "{fen}: {last_info}"
                );
                assert_eq!(best_of(lines.last().unwrap()), mv, "{fen}");
            }
            Err(_) => {
                e.send("go depth 3");
                assert_eq!(e.expect("bestmove", SECS(10)), "bestmove (none)", "{fen}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 21);
}
