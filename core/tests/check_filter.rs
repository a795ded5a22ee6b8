//! The check filter's quick test against playing the move: it may pass
//! moves that do not check, never reject one that does.

mod common;

use common::{random_playout, Rng};
use xqcore::{MoveList, Position};

fn check_position(pos: &Position, passed: &mut usize) {
    let filter = pos.check_filter();
    let mut pseudo = MoveList::new();
    pos.pseudo_legal_moves(&mut pseudo);
    for &m in pseudo.iter() {
        let mut after = pos.clone();
        after.make_move(m);
        let checks = after.king_attacked(!pos.turn());
        assert_eq!(
            pos.gives_check_filtered(&filter, m),
            checks,
            "gives_check_filtered({m}) in {}",
            pos.fen()
        );
        if checks {
            assert!(filter.may_check(m), "may_check({m}) in {}", pos.fen());
        }
        *passed += filter.may_check(m) as usize;
    }
}

#[test]
fn may_check_never_rejects_a_check() {
    let mut rng = Rng(0x0dd_c0ff_ee15_600d);
    let mut passed = 0;
    for game in 0..100 {
        let case = &common::perft_cases()[game % 5];
        let mut pos = Position::from_fen(&case.fen).unwrap();
        random_playout(&mut pos, &mut rng, 200, |p| check_position(p, &mut passed));
    }
    assert!(passed > 0);
}
