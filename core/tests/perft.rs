//! Perft against the published counts in data/perft.txt.

mod common;

use xqcore::{perft, perft_divide, Position};

fn check_up_to(max_depth: u32, min_depth: u32) {
    for case in common::perft_cases() {
        let mut pos = Position::from_fen(&case.fen).expect(&case.fen);
        for &(depth, expected) in &case.counts {
            if depth < min_depth || depth > max_depth {
                continue;
            }
            assert_eq!(
                perft(&mut pos, depth),
                expected,
                "perft {depth} of {}",
                case.fen
            );
        }
        assert_eq!(
            pos.fen(),
            Position::from_fen(&case.fen).unwrap().fen(),
            "perft left the position changed"
        );
    }
}

#[test]
fn published_counts_to_depth_4() {
    check_up_to(4, 1);
}

#[test]
#[ignore = "depth 5: about 10 s in release"]
fn published_counts_depth_5() {
    check_up_to(5, 5);
}

#[test]
fn divide_sums_to_perft() {
    let mut pos = Position::start();
    let divide = perft_divide(&mut pos, 3);
    assert_eq!(divide.len(), 44);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 79666);
}

#[test]
fn mirrored_positions_have_the_same_perft() {
    for case in common::perft_cases() {
        let mut pos = Position::from_fen(&case.fen).unwrap();
        let mut mirrored = pos.mirror();
        // Root move by root move: the mirror of each move leads to the same count.
        let mut original: Vec<_> = perft_divide(&mut pos, 3)
            .into_iter()
            .map(|(m, n)| (m.mirror(), n))
            .collect();
        let mut seen = perft_divide(&mut mirrored, 3);
        original.sort();
        seen.sort();
        assert_eq!(original, seen, "{}", case.fen);
    }
}

#[test]
fn colour_flipped_positions_have_the_same_perft() {
    for case in common::perft_cases() {
        let mut pos = Position::from_fen(&case.fen).unwrap();
        let mut setup = pos.to_setup();
        setup.board = setup.board.flip_colors();
        setup.turn = !setup.turn;
        let mut flipped = Position::from_setup(setup).unwrap();
        assert_eq!(perft(&mut pos, 3), perft(&mut flipped, 3), "{}", case.fen);
    }
}
