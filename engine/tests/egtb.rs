//! The engine with endgame tables: from won table positions it mates within
//! the table's distance against the best defence and against random
//! defence, and reports table hits.

mod common;

use common::{best_of, Engine, SECS};
use xqcore::{Move, Position};
use xqegtb::build::{build, plan, table_path};
use xqegtb::orient::board_of;
use xqegtb::{Material, Placement, TableFile, Tablebase, Value};

/// Won positions of KRKA with the first side (Red) to move: the longest
/// mate and a spread of others.
fn won_positions(file: &TableFile) -> Vec<(Position, u16)> {
    let ix = file.indexer();
    let stats = file.info().stats[0];
    let mut picks = vec![stats.longest_index];
    picks.extend((0..ix.size()).step_by(997));
    let mut out = Vec::new();
    let mut placement = Placement::new();
    for index in picks {
        let Ok(Value::Win(d)) = file.value(0, index) else {
            continue;
        };
        ix.placement(index, &mut placement);
        let fen = format!("{} w", board_of(ix, &placement).fen_placement());
        if let Ok(pos) = Position::from_fen(&fen) {
            out.push((pos, d));
        }
        if out.len() == 12 {
            break;
        }
    }
    out
}

/// The engine's lines for a game move after `moves` from `start`, up to
/// its `bestmove`.
fn engine_move(e: &mut Engine, start: &Position, moves: &[Move]) -> Vec<String> {
    let mut cmd = format!("position fen {}", start.fen());
    if !moves.is_empty() {
        let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        cmd += &format!(" moves {}", moves.join(" "));
    }
    e.send(&cmd);
    e.send("go time 60000");
    e.collect_until("bestmove", SECS(10))
}

/// A small deterministic generator for the random defence.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn the_engine_mates_from_won_table_positions_within_the_distance() {
    let dir = tempfile::tempdir().unwrap();
    let m: Material = "KRKA".parse().unwrap();
    build(dir.path(), &plan(&[m]), &|_| {}).unwrap();
    let file = TableFile::open(&table_path(dir.path(), m)).unwrap();
    let mut tb = Tablebase::new();
    tb.add_dir(dir.path()).unwrap();
    let positions = won_positions(&file);
    assert!(positions.len() >= 10, "{}", positions.len());
    assert!(
        positions[0].1 >= 9,
        "the longest KRKA mate: {}",
        positions[0].1
    );

    let mut e = Engine::ucci();
    e.send(&format!("setoption egtbpaths {}", dir.path().display()));
    let mut random = Lcg(7);
    for (n, (start, dtm)) in positions.iter().enumerate() {
        let best_defence = n % 2 == 0;
        let mut pos = start.clone();
        let mut moves: Vec<Move> = Vec::new();
        let mut tbhits_seen = false;
        loop {
            let list = pos.legal_moves();
            if list.is_empty() {
                // Mated (or stalemated, which also loses): with Black to move.
                assert_eq!(pos.turn(), xqcore::Color::Black, "{}", start.fen());
                break;
            }
            assert!(
                moves.len() < *dtm as usize,
                "{}: no mate within {dtm} plies (best defence: {best_defence})",
                start.fen()
            );
            let m = if pos.turn() == xqcore::Color::Red {
                let lines = engine_move(&mut e, start, &moves);
                tbhits_seen |= lines.iter().any(|l| l.contains(" tbhits "));
                pos.parse_move(&best_of(lines.last().unwrap())).unwrap()
            } else if best_defence {
                tb.best_move(&pos)
                    .unwrap()
                    .expect("the table covers KRKA")
                    .0
            } else {
                list[random.below(list.len())]
            };
            pos.make_move(m);
            moves.push(m);
        }
        assert!(tbhits_seen, "{}: info reports tbhits", start.fen());
    }
}

/// Rook against horse, where the horse's side can only avoid mate by
/// checking for ever: under Asian rules (the default `repetition`) the
/// engine plays the tables' moves that keep the horse checking, and the
/// line repeats with every horse move a check, which loses by the rule.
/// With `repetition alwaysdraw` the same position is a draw for it.
#[test]
fn the_engine_keeps_a_perpetual_checker_trapped_and_knows_the_rule_is_optional() {
    let dir = tempfile::tempdir().unwrap();
    let m: Material = "KRKN".parse().unwrap();
    build(dir.path(), &plan(&[m]), &|_| {}).unwrap();
    let file = TableFile::open(&table_path(dir.path(), m)).unwrap();
    let mut tb = Tablebase::new();
    tb.add_dir(dir.path()).unwrap();
    // A position Red wins only by the rule, with Red to move.
    let ix = file.indexer();
    let mut placement = Placement::new();
    let start = (0..ix.size())
        .find_map(|index| {
            let v = file.value(0, index).ok()?;
            (v.by_rule() && v.wdl() == xqegtb::Wdl::Win).then_some(())?;
            ix.placement(index, &mut placement);
            Position::from_fen(&format!("{} w", board_of(ix, &placement).fen_placement())).ok()
        })
        .expect("KRKN has wins by the rule");

    let mut e = Engine::ucci();
    e.send(&format!("setoption egtbpaths {}", dir.path().display()));
    let mut pos = start.clone();
    let mut history: Vec<Move> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..40 {
        if !seen.insert(pos.key()) {
            break;
        }
        let m = if pos.turn() == xqcore::Color::Red {
            let lines = engine_move(&mut e, &start, &history);
            pos.parse_move(&best_of(lines.last().unwrap())).unwrap()
        } else {
            let (m, _) = tb.best_move(&pos).unwrap().expect("the table covers KRKN");
            m
        };
        pos.make_move(m);
        history.push(m);
        let value = tb.probe(&pos).unwrap().expect("still KRKN");
        if pos.turn() == xqcore::Color::Black {
            assert!(
                value.by_rule() && value.wdl() == xqegtb::Wdl::Loss,
                "{}: Red's move {m} let Black out: {value}",
                start.fen()
            );
        } else {
            assert!(pos.in_check(), "{}: Black's {m} is no check", start.fen());
        }
    }
    assert!(
        seen.contains(&pos.key()),
        "{}: the line repeats",
        start.fen()
    );

    // Every repetition a draw: the tables' rule results do not count.
    e.send("setoption repetition alwaysdraw");
    e.send(&format!("position fen {}", start.fen()));
    e.send("go depth 3");
    let lines = e.collect_until("bestmove", SECS(10));
    let best = start.parse_move(&best_of(lines.last().unwrap())).unwrap();
    assert!(
        !lines
            .iter()
            .any(|l| l.contains(" tbhits ") && l.contains(" depth 1 ") && l.contains(" nodes 0 ")),
        "a draw is searched, not answered from the tables: {lines:?}"
    );
    // It keeps the draw.
    let mut after = start.clone();
    after.make_move(best);
    let value = tb.probe(&after).unwrap().expect("still KRKN");
    assert_eq!(value.without_rule(), Value::Draw, "{best}: {value}");
}
