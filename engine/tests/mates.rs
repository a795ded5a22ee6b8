//! Mates in 1 to 4 (data/mates.txt, verified by a brute-force solver) are found
//! with the right move and score; lost positions get no move.

mod common;

use common::{best_of, search_infos, Engine, SECS};
use xqcore::Position;
use xqmatch::{EngineScore, Protocol};

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
                let infos = search_infos(Protocol::Uci, &lines);
                let last_info = infos.last().expect("info");
                assert_eq!(
                    last_info.score,
                    Some(EngineScore::Mate(n as i32)),
                    "{fen}: {last_info:?}"
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

#[test]
fn a_side_facing_a_forced_mate_answers_at_once_under_a_clock() {
    // After Red's mating first move Black is mated by force. A timed search
    // with minutes to spend stops as soon as the mate is proven (and resigns)
    // or only one reply is left that is not yet mated.
    let text = include_str!("../../data/mates.txt");
    let mut e = Engine::ucci();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (fen, mv) = (cols[1], cols[2]);
        if cols[0].parse::<u32>().map_or(true, |n| n < 2) {
            continue;
        }
        let full_fen = format!("{fen} - - 0 1");
        let mut pos = Position::from_fen(&full_fen).expect("fen");
        pos.make_move(pos.parse_move(mv).expect("move"));
        if pos.legal_moves().len() < 2 {
            continue; // a single reply is played at once, unsearched
        }
        e.send(&format!("position fen {full_fen} moves {mv}"));
        e.send("go time 600000 increment 0");
        let lines = e.collect_until("bestmove", SECS(20));
        assert!(
            !lines.iter().any(|l| l.contains("search failed")),
            "{fen} {mv}: {lines:?}"
        );
        let answer = lines.last().expect("bestmove").clone();
        let reply = best_of(&answer);
        assert!(pos.parse_move(&reply).is_ok(), "{fen} {mv}: {answer}");
        checked += 1;
    }
    assert!(
        checked >= 8,
        "only {checked} positions with a choice of defence"
    );
}
