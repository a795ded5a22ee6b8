//! The generator's perpetual-chase results against the game's own rules:
//! from every position a table calls lost by the chase rule, the winner,
//! playing the table's shortest moves, beats every defence, each line ending
//! where xqcore rules the repetition (`Position::repetition`, the same code
//! the match runner and `xqengine judge` use) a loss for the chaser, or in a
//! position the tables decide without the chase rule (checked against brute
//! force on the small tables and by `verify`).
//!
//! No positions of up to four pieces are decided by the chase rule (the
//! brute-force tests show it); the smallest tables with such results have
//! five pieces, too many for brute force, so their results are checked
//! forward here instead.

#![cfg(feature = "generate")]

use xqcore::{Position, RepetitionKind};
use xqegtb::generate::{solve, Lookup, Solutions};
use xqegtb::orient::board_of;
use xqegtb::{Material, Placement, Value, Wdl};

/// Solves `material` and every table its captures lead into.
fn solutions(material: &str) -> (Material, Solutions) {
    let m: Material = material.parse().unwrap();
    let mut solutions = Solutions::default();
    for dep in m.dependencies().into_iter().chain([m]) {
        let solved = solve(dep, &solutions, &|_| {}).unwrap();
        solutions.insert(solved);
    }
    (m, solutions)
}

/// The tables' value of the position for its side to move.
fn value(tables: &Solutions, pos: &Position) -> Value {
    tables.value(pos.board(), pos.turn())
}

/// How a line ended: the repetition rule's verdict, if the last move
/// completed a cycle.
fn ruled(pos: &Position) -> Option<RepetitionKind> {
    pos.repetition().map(|r| r.kind)
}

/// Whether the side to move at `pos`, lost by the chase rule in the
/// tables, loses under the game's rules whatever it plays (within `depth`
/// more plies of the line).
fn chaser_loses(tables: &Solutions, pos: &mut Position, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    let chaser = pos.turn();
    for &m in pos.legal_moves().iter() {
        pos.make_move(m);
        let holds = match ruled(pos) {
            Some(RepetitionKind::PerpetualChase { by })
            | Some(RepetitionKind::PerpetualCheck { by }) => by == chaser,
            Some(_) => false,
            None => {
                let v = value(tables, pos);
                match v {
                    // Decided without the chase rule: trusted.
                    Value::Win(_) if !v.by_chase_rule() => true,
                    Value::Win(_) => winner_wins(tables, pos, depth - 1),
                    _ => false,
                }
            }
        };
        pos.unmake_move();
        if !holds {
            return false;
        }
    }
    true
}

/// Whether the side to move at `pos`, won by the chase rule in the tables,
/// wins by playing its moves into the shortest losses the tables give the
/// chaser (trying the next when a line fails).
fn winner_wins(tables: &Solutions, pos: &mut Position, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    let mut moves: Vec<(u16, xqcore::Move)> = pos
        .legal_moves()
        .iter()
        .filter_map(|&m| {
            pos.make_move(m);
            let v = value(tables, pos);
            pos.unmake_move();
            match v {
                Value::Loss(d) => Some((d, m)),
                _ => None,
            }
        })
        .collect();
    moves.sort_unstable();
    for (d, m) in moves {
        pos.make_move(m);
        // The winner's move may close the cycle itself: ruled against the
        // chaser, now to move, it wins.
        let wins = match ruled(pos) {
            Some(RepetitionKind::PerpetualChase { by })
            | Some(RepetitionKind::PerpetualCheck { by }) => by == pos.turn(),
            Some(_) => false,
            None if d < xqegtb::value::CHASE_DTM => true,
            None => chaser_loses(tables, pos, depth - 1),
        };
        pos.unmake_move();
        if wins {
            return true;
        }
    }
    false
}

/// Every position of `material` the tables call lost by the chase rule
/// (with either side to move), checked forward.
fn check_forward(material: &str) -> usize {
    let (m, tables) = solutions(material);
    let table = tables.get(&m).unwrap();
    let ix = &table.indexer;
    let mut placement = Placement::new();
    let mut checked = 0;
    for side in 0..2 {
        for index in 0..ix.size() {
            let Some(v) = table.value(side, index) else {
                continue;
            };
            if !(v.by_chase_rule() && v.wdl() == Wdl::Loss) {
                continue;
            }
            ix.placement(index, &mut placement);
            let turn = xqegtb::material::color_of_side(side, false);
            let fen = format!(
                "{} {}",
                board_of(ix, &placement).fen_placement(),
                turn.fen_char()
            );
            let mut pos = Position::from_fen(&fen).unwrap();
            assert!(
                chaser_loses(&tables, &mut pos, 24),
                "{material}: {fen} ({v}) is no loss by the rules"
            );
            checked += 1;
        }
    }
    checked
}

/// Rook and pawn against rook: the rook's side can sometimes only hold by
/// chasing the pawn for ever (1,729 results in all). Five pieces: about a
/// minute and a half on two cores.
#[test]
#[ignore = "solves KRPKR (about 90 s on two cores)"]
fn krpkr_chase_results_hold_under_the_rules() {
    let checked = check_forward("KRPKR");
    assert!(checked > 100, "KRPKR: {checked} losses by the chase rule");
}

/// Rook against two horses: the horses' side can sometimes only hold by
/// chasing the rook for ever while the rook's side answers with checks
/// and chases of its own as well as idle moves (4,978 results in all).
#[test]
#[ignore = "solves KRKNN (about 40 s on two cores)"]
fn krknn_chase_results_hold_under_the_rules() {
    let checked = check_forward("KRKNN");
    assert!(checked > 1000, "KRKNN: {checked} losses by the chase rule");
}

/// Rook against horse and cannon: the rule decides both ways here (the
/// rook's side loses some positions by chasing, the other side many).
#[test]
#[ignore = "solves KRKNC (about 60 s on two cores)"]
fn krknc_chase_results_hold_under_the_rules() {
    let checked = check_forward("KRKNC");
    assert!(checked > 1000, "KRKNC: {checked} losses by the chase rule");
}
