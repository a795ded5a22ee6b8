//! The generator's results by the repetition rules against the game's own
//! rules: from every position a table calls lost by a rule, the winner,
//! playing the table's shortest moves, beats every defence, each line ending where xqcore rules the repetition
//! (`Position::repetition`, the same code the match runner and `xqengine
//! judge` use) a loss for the loser, or in a position the tables decide
//! without that rule (checked against brute force on the small tables and
//! by `verify`).
//!
//! No positions of up to four pieces are decided by the chase rule (the
//! brute-force tests show it); the smallest tables with such results have
//! five pieces, too many for brute force, so their results are checked
//! forward here instead. So are the perpetual-check results of a table
//! where the checked side sometimes checks back.

use egtbgen::{solve, Lookup, Solutions};
use xqcore::{Position, RepetitionKind};
use xqegtb::{board_of, Material, Placement, Value, CHASE_DTM};

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

/// Whether the side to move at `pos`, lost by a rule in the tables (a
/// distance from `floor` up), loses under the game's rules whatever it
/// plays (within `depth` more plies of the line).
fn loser_loses(tables: &Solutions, pos: &mut Position, depth: usize, floor: u16) -> bool {
    if depth == 0 {
        return false;
    }
    let loser = pos.turn();
    for &m in pos.legal_moves().iter() {
        pos.make_move(m);
        let holds = match ruled(pos) {
            Some(RepetitionKind::PerpetualChase { by })
            | Some(RepetitionKind::PerpetualCheck { by }) => by == loser,
            Some(_) => false,
            None => {
                match value(tables, pos) {
                    // Decided without the rule: trusted.
                    Value::Win(d) if d < floor => true,
                    Value::Win(_) => winner_wins(tables, pos, depth - 1, floor),
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

/// Whether the side to move at `pos`, won by a rule in the tables, wins by
/// playing its moves into the shortest losses the tables give the loser
/// (trying the next when a line fails).
fn winner_wins(tables: &Solutions, pos: &mut Position, depth: usize, floor: u16) -> bool {
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
        // loser, now to move, it wins.
        let wins = match ruled(pos) {
            Some(RepetitionKind::PerpetualChase { by })
            | Some(RepetitionKind::PerpetualCheck { by }) => by == pos.turn(),
            Some(_) => false,
            None if d < floor => true,
            None => loser_loses(tables, pos, depth - 1, floor),
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
    check_rule_losses(material, CHASE_DTM)
}

/// Every position of `material` the tables call lost at a distance from
/// `floor` up (with either side to move), checked forward.
fn check_rule_losses(material: &str, floor: u16) -> usize {
    let (m, tables) = solutions(material);
    let table = tables.get(&m).unwrap();
    let ix = &table.indexer;
    let mut placement = Placement::new();
    let mut checked = 0;
    for side in 0..2 {
        for index in 0..ix.size() {
            let Some(v @ Value::Loss(d)) = table.value(side, index) else {
                continue;
            };
            if d < floor {
                continue;
            }
            ix.placement(index, &mut placement);
            let turn = xqegtb::color_of_side(side, false);
            let fen = format!(
                "{} {}",
                board_of(ix, &placement).fen_placement(),
                turn.fen_char()
            );
            let mut pos = Position::from_fen(&fen).unwrap();
            assert!(
                loser_loses(&tables, &mut pos, 24, floor),
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

/// Rook and advisor against cannon and advisor: the cannon's side can
/// sometimes only hold by checking for ever, while the rook's side answers
/// some checks with checks of its own (an advisor that blocks the cannon
/// uncovers the rook), and the perpetual-check rule still rules against
/// the checker: `4k4/c8/3a5/9/9/9/9/9/4A4/3KR4 b`, then a8d8 e1d2 d7e8
/// d2e1 e8d7, is `black loses: perpetual check` by `xqengine judge`. Every
/// result of either rule in the table, checked forward (the chase rule's
/// too: it decides 172 positions here).
#[test]
#[ignore = "solves KRAKCA (about a minute on two cores)"]
fn krakca_rule_results_hold_under_the_rules() {
    let checked = check_rule_losses("KRAKCA", xqegtb::RULE_DTM);
    assert!(checked > 5000, "KRAKCA: {checked} losses by the rules");
}
