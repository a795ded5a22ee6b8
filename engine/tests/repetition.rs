//! The engine under the Asian repetition rules: loaded with a worked cycle
//! (data/repetition/) up to its last move, it does not complete a cycle
//! that loses for it when it has any other move that is not mated (by its
//! own search: the endgame tables are off).

mod common;

use common::{best_of, Engine, SECS};
use xqcore::Position;

/// The engine's lines for `go` at `fen` after `moves`.
fn think(fen: &str, moves: &[&str], go: &str) -> Vec<String> {
    let mut e = Engine::start();
    e.send("uci");
    e.expect("uciok", SECS(5));
    e.send("setoption name UseEGTB value false");
    e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
    e.send(go);
    e.collect_until("bestmove", SECS(60))
}

/// Checks every cycle of `tsv` whose last move is the loser's; returns
/// how many there were.
fn check_file(tsv: &str) -> usize {
    let mut tried = 0;
    for line in tsv.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (id, fen, moves, expected) = (cols[0], cols[1], cols[2], cols[3]);
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let (last, before) = moves.split_last().unwrap();
        let mut pos = Position::from_fen(fen).unwrap();
        for m in before {
            pos.make_move(pos.parse_move(m).unwrap());
        }
        let loser = match expected {
            "red loses" => xqcore::Color::Red,
            "black loses" => xqcore::Color::Black,
            _ => continue,
        };
        if pos.turn() != loser {
            continue;
        }
        tried += 1;
        let lines = think(fen, before, "go depth 10");
        if best_of(lines.last().unwrap()) != *last {
            continue;
        }
        // It completed the cycle: only right when every other move is mated.
        let others: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .filter(|m| m != last)
            .collect();
        let lines = think(
            fen,
            before,
            &format!("go depth 10 searchmoves {}", others.join(" ")),
        );
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap();
        assert!(
            info.contains(" score mate -"),
            "{id}: the engine completes its own losing cycle with {} while {info}",
            last
        );
    }
    tried
}

#[test]
fn the_engine_does_not_complete_a_losing_cycle() {
    let mut tried = check_file(include_str!("../../data/repetition/examples.tsv"));
    tried += check_file(include_str!("../../data/repetition/axf.tsv"));
    tried += check_file(include_str!("../../data/repetition/fsf-extra.tsv"));
    assert!(tried >= 20, "{tried} cycles end with the loser's move");
}
