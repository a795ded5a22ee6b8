//! The generator against an independent brute-force solver: every legal
//! position of small endgames, found by placing the pieces on every square,
//! valued by plain minimax rounds over xqcore's legal moves.

#![cfg(feature = "generate")]

use std::collections::HashMap;

use xqcore::{Board, Color, Piece, Position, Role, Setup, Square};
use xqegtb::generate::{solve, Lookup, Solutions};
use xqegtb::orient::table_of;
use xqegtb::{Material, Value};

/// Every legal position of `pieces` (with both kings) and either side to move.
fn all_positions(pieces: &[Piece]) -> Vec<Position> {
    let mut out = Vec::new();
    let mut board = Board::empty();
    place(pieces, &mut board, &mut out);
    out
}

fn place(pieces: &[Piece], board: &mut Board, out: &mut Vec<Position>) {
    let Some((&first, rest)) = pieces.split_first() else {
        for turn in [Color::Red, Color::Black] {
            let setup = Setup {
                board: board.clone(),
                turn,
                plies_since_capture: 0,
                fullmoves: 1,
            };
            if let Ok(pos) = Position::from_setup(setup) {
                out.push(pos);
            }
        }
        return;
    };
    // Kings and advisors only in their palace, elephants on their half:
    // `Position::from_setup` refuses the rest anyway, this only saves time.
    let may_stand = |sq: Square| match first.role {
        Role::King | Role::Advisor => sq.in_palace(first.color),
        Role::Elephant => sq.on_own_side(first.color),
        _ => true,
    };
    for sq in Square::all().filter(|&sq| may_stand(sq)) {
        if board.piece_at(sq).is_none() {
            board.set(sq, Some(first));
            place(rest, board, out);
            board.set(sq, None);
        }
    }
}

/// Brute-force values of every position of a material, by rounds: in round
/// `n` a position is won if a move reaches a position lost in `n - 1`, and
/// lost if every move reaches a won position, the longest in `n - 1`.
struct Brute {
    values: HashMap<u64, Value>,
}

impl Brute {
    fn solve(pieces: &[Piece], smaller: &dyn Fn(&Position) -> Value) -> Brute {
        let positions = all_positions(pieces);
        let mut values: HashMap<u64, Value> = HashMap::new();
        for n in 0..=250u8 {
            let mut settled = Vec::new();
            for pos in &positions {
                if values.contains_key(&pos.key()) {
                    continue;
                }
                let mut all_win = true;
                let mut longest = 0;
                let mut wins_now = false;
                let mut p = pos.clone();
                for &m in pos.legal_moves().iter() {
                    let capture = p.board().piece_at(m.to()).is_some();
                    p.make_move(m);
                    let child = if capture {
                        Some(smaller(&p))
                    } else {
                        values.get(&p.key()).copied()
                    };
                    p.unmake_move();
                    match child {
                        Some(Value::Loss(d)) if d + 1 == n => wins_now = true,
                        Some(Value::Win(d)) => longest = longest.max(d + 1),
                        _ => all_win = false,
                    }
                }
                if wins_now {
                    settled.push((pos.key(), Value::Win(n)));
                } else if all_win && longest == n {
                    settled.push((pos.key(), Value::Loss(n)));
                }
            }
            values.extend(settled);
        }
        Brute { values }
    }

    fn value(&self, pos: &Position) -> Value {
        self.values.get(&pos.key()).copied().unwrap_or(Value::Draw)
    }
}

fn pieces(material: &str) -> Vec<Piece> {
    let m: Material = material.parse().unwrap();
    let mut out = Vec::new();
    for side in 0..2 {
        let color = if side == 0 { Color::Red } else { Color::Black };
        for role in Role::ALL {
            for _ in 0..m.count(side, role) {
                out.push(Piece::new(color, role));
            }
        }
    }
    out
}

fn generated_value(solutions: &Solutions, pos: &Position) -> Value {
    // Black to move in a position with Red's material reads the table
    // turned round: both colours are checked.
    solutions.value(pos.board(), pos.turn())
}

/// Solves `material` and its dependencies with the generator and checks
/// every legal position against the brute-force solver.
fn check(material: &str, sub_brute: &[&str], wins: bool) {
    let m = material.parse::<Material>().unwrap().canonical().0;
    assert_eq!(m.to_string(), material, "tests name tables canonically");
    let mut solutions = Solutions::default();
    for dep in m.dependencies().into_iter().chain([m]) {
        let solved = solve(dep, &solutions, &|_| {}).unwrap();
        solutions.insert(solved);
    }
    // Brute force for the smaller materials first, then this one.
    let subs: Vec<Brute> = sub_brute
        .iter()
        .map(|s| Brute::solve(&pieces(s), &|_| Value::Draw))
        .collect();
    let smaller = |p: &Position| {
        let (sm, _) = table_of(p.board());
        if sm.is_dead_draw() {
            return Value::Draw;
        }
        let name = sm.to_string();
        let i = sub_brute
            .iter()
            .position(|s| s.parse::<Material>().unwrap().canonical().0.to_string() == name)
            .unwrap_or_else(|| panic!("brute force for {name} needed"));
        subs[i].value(p)
    };
    let brute = Brute::solve(&pieces(material), &smaller);
    let positions = all_positions(&pieces(material));
    let mut decided = 0;
    for pos in &positions {
        let want = brute.value(pos);
        assert_eq!(
            generated_value(&solutions, pos),
            want,
            "{material}: {}",
            pos.fen()
        );
        decided += usize::from(want != Value::Draw);
    }
    // A lone cannon cannot mate: then nothing is decided, and both agree.
    assert_eq!(decided > 0, wins, "{material}: {decided} positions decided");
}

#[test]
fn three_piece_tables_match_brute_force() {
    for (m, wins) in [("KRK", true), ("KCK", false), ("KNK", true), ("KPK", true)] {
        check(m, &[], wins);
    }
}

#[test]
fn four_piece_tables_match_brute_force() {
    check("KRKA", &["KRK"], true);
    // The advisor is a screen, but a lone cannon still cannot force mate.
    check("KCKA", &["KCK"], false);
    check("KNKB", &["KNK"], true);
    check("KPKA", &["KPK"], true);
}

#[test]
fn verify_accepts_solved_tables_and_catches_a_changed_value() {
    use xqegtb::verify::verify;
    let mut solutions = Solutions::default();
    for name in ["KRK", "KRKA"] {
        let m: Material = name.parse().unwrap();
        let solved = solve(m, &solutions, &|_| {}).unwrap();
        let report = verify(&solved, &solutions, &|_| {});
        assert!(report.checked > 1000, "{name}: {}", report.checked);
        assert_eq!(report.mismatch_count, 0, "{name}: {:?}", report.mismatches);
        solutions.insert(solved);
    }
    // Change one decided value of KRKA: verify names that position.
    let m: Material = "KRKA".parse().unwrap();
    let mut solved = solve(m, &solutions, &|_| {}).unwrap();
    let at = solved.values[0]
        .iter()
        .position(|&b| matches!(Value::from_byte(b), Some(Value::Win(_))))
        .unwrap();
    solved.values[0][at] = 0;
    let report = verify(&solved, &solutions, &|_| {});
    assert!(report.mismatch_count >= 1);
    assert_eq!(report.mismatches[0].from_successors.wdl(), xqegtb::Wdl::Win);
}
