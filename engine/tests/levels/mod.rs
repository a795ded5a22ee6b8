//! Strength levels over UCI: `Skill Level`, `UCI_LimitStrength` and
//! `UCI_Elo` are announced, and a weak level searches its small budget and
//! varies its moves, whatever the clock gives it. (A module of the
//! protocol tests: one test binary fewer to build.)

use crate::common::{best_of, search_infos, Engine, SECS};
use xqengine::strength::{elo_range, Strength, MAX_SKILL};
use xqmatch::Protocol;

/// A middle-game position out of the book (the book would answer at once).
const POSITION: &str = "position fen \
    r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 0 1";

fn uci() -> Engine {
    let mut e = Engine::start();
    e.send("uci");
    e.expect("uciok", SECS(5));
    e
}

/// The nodes of the last search line of a `go` with `go_args`, and its move.
fn search(e: &mut Engine, go_args: &str) -> (u64, String) {
    e.send(POSITION);
    e.send(&format!("go {go_args}"));
    let lines = e.collect_until("bestmove", SECS(30));
    let infos = search_infos(Protocol::Uci, &lines);
    let nodes = infos.iter().filter_map(|i| i.nodes).max().unwrap_or(0);
    (nodes, best_of(lines.last().unwrap()))
}

#[test]
fn the_levels_are_announced() {
    let e = uci();
    let (low, high) = elo_range();
    for option in [
        format!("option name Skill Level type spin default {MAX_SKILL} min 0 max {MAX_SKILL}"),
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {high} min {low} max {high}"),
    ] {
        assert!(e.seen.contains(&option), "{option} in {:?}", e.seen);
    }
}

#[test]
fn a_weak_level_searches_its_budget_whatever_the_clock() {
    let mut e = uci();
    e.send("setoption name Skill Level value 0");
    let (weak, _) = search(&mut e, "wtime 600000 btime 600000");
    let budget = Strength::from_level(0).node_limit().unwrap();
    // The first iteration always finishes (some hundreds of nodes).
    assert!(
        weak < 2_000,
        "skill 0 searched {weak} nodes (budget {budget})"
    );
    e.send("setoption name Skill Level value 12");
    let (middle, _) = search(&mut e, "wtime 600000 btime 600000");
    let budget = Strength::from_level(12).node_limit().unwrap();
    assert!(
        middle > 4 * weak && middle <= budget + 16,
        "skill 12: {middle} of {budget}"
    );
    e.send("setoption name Skill Level value 20");
    let (full, _) = search(&mut e, "movetime 300");
    assert!(
        full > 4 * middle,
        "full strength searched {full} nodes in 300 ms"
    );
}

#[test]
fn limit_strength_plays_at_the_elo_asked() {
    let mut e = uci();
    let (low, high) = elo_range();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {low}"));
    let (weakest, _) = search(&mut e, "movetime 1000");
    e.send(&format!("setoption name UCI_Elo value {high}"));
    let (strongest, _) = search(&mut e, "movetime 1000");
    let top = Strength::from_elo(high).node_limit().unwrap();
    assert!(weakest < 2_000, "UCI_Elo {low} searched {weakest} nodes");
    assert!(
        strongest > 10 * weakest && strongest <= top + 1024,
        "UCI_Elo {high} searched {strongest} nodes (budget {top})"
    );
    // Without the limit, the skill level (20) rules again.
    e.send("setoption name UCI_LimitStrength value false");
    let (full, _) = search(&mut e, "movetime 1000");
    assert!(full > 2 * strongest, "full strength: {full} nodes");
}

/// A weak level's games differ: over new games it does not always pick
/// the same move, nor a random one (each is among its searched lines).
#[test]
fn a_weak_level_varies_its_moves() {
    let mut e = uci();
    e.send("setoption name Skill Level value 2");
    let mut moves = std::collections::BTreeSet::new();
    for _ in 0..12 {
        e.send("ucinewgame");
        let (_, mv) = search(&mut e, "wtime 60000 btime 60000");
        moves.insert(mv);
    }
    assert!(
        (2..=4).contains(&moves.len()),
        "moves over 12 games: {moves:?}"
    );
}
