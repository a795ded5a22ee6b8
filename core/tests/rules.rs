//! Make/unmake, keys, legality, move parsing, repetition and mirror, checked
//! on fixed positions and on random playouts.

mod common;

use common::{random_playout, Rng};
use proptest::prelude::*;
use xqcore::{
    Color, EndRules, GameResult, IccsMove, IllegalMove, Move, MoveError, MoveList, Outcome,
    ParseMoveError, Position, RepetitionKind, Role, Square, NATURAL_MOVE_LIMIT,
};

fn play(pos: &mut Position, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{m} in {}: {e}", pos.fen()));
        pos.make_move(mv);
    }
}

/// Legal moves by brute force: every pseudo-legal move after which the mover's
/// king is not attacked. Checks the move generator's shortcut.
fn brute_force_legal(pos: &Position) -> Vec<Move> {
    let mut pseudo = MoveList::new();
    pos.pseudo_legal_moves(&mut pseudo);
    let mover = pos.turn();
    let mut legal: Vec<Move> = pseudo
        .iter()
        .copied()
        .filter(|&m| {
            let mut after = pos.clone();
            after.make_move(m);
            !after.king_attacked(mover) && !after.kings_face()
        })
        .collect();
    legal.sort();
    legal
}

fn sorted(list: MoveList) -> Vec<Move> {
    let mut v = list.to_vec();
    v.sort();
    v
}

const SEE_VALUES: [i32; 7] = [20_000, 120, 120, 400, 900, 450, 100];

/// Static exchange by replaying it: after `m`, each side in turn may
/// recapture on the target with its least valuable attacker (found by the
/// move generator; pins ignored, a king only onto a square the other side
/// no longer attacks) or stop. When several attackers are equally cheap the
/// rule leaves the choice open: every outcome of every choice is returned.
fn reference_see(pos: &Position, m: Move) -> Vec<i32> {
    let value = |p: &Position, sq: Square| {
        p.board()
            .piece_at(sq)
            .map_or(0, |pc| SEE_VALUES[pc.role.index()])
    };
    let mut after = pos.clone();
    let gain = value(pos, m.to());
    after.make_move(m);
    best_recaptures(&after, m.to(), &value)
        .into_iter()
        .map(|r| gain - r)
        .collect()
}

fn best_recaptures(
    pos: &Position,
    target: Square,
    value: &impl Fn(&Position, Square) -> i32,
) -> Vec<i32> {
    let attackers = |p: &Position| -> Vec<Move> {
        let mut caps = MoveList::new();
        p.pseudo_legal_captures(&mut caps);
        let on_target: Vec<Move> = caps.iter().copied().filter(|c| c.to() == target).collect();
        let cheapest = on_target.iter().map(|c| value(p, c.from())).min();
        on_target
            .into_iter()
            .filter(|c| Some(value(p, c.from())) == cheapest)
            .collect()
    };
    let choices = attackers(pos);
    if choices.is_empty() {
        return vec![0];
    }
    let mut outcomes = Vec::new();
    for c in choices {
        let mut after = pos.clone();
        after.make_move(c);
        let is_king = pos.board().piece_at(c.from()).map(|p| p.role) == Some(Role::King);
        if is_king && !attackers(&after).is_empty() {
            outcomes.push(0);
            continue;
        }
        for r in best_recaptures(&after, target, value) {
            outcomes.push((value(pos, target) - r).max(0));
        }
    }
    outcomes.sort_unstable();
    outcomes.dedup();
    outcomes
}

/// Every invariant that must hold in any reachable position.
fn check_invariants(pos: &Position) {
    assert_eq!(
        pos.key(),
        pos.compute_key(),
        "incremental key in {}",
        pos.fen()
    );
    let reparsed = Position::from_fen(&pos.fen()).expect("own FEN reads back");
    assert_eq!(reparsed.fen(), pos.fen());
    assert_eq!(reparsed.key(), pos.key());
    assert_eq!(reparsed.in_check(), pos.in_check());
    assert_eq!(pos.in_check(), pos.king_attacked(pos.turn()));
    let legal = sorted(pos.legal_moves());
    assert_eq!(
        legal,
        brute_force_legal(pos),
        "legal moves of {}",
        pos.fen()
    );
    let mirrored: Vec<Move> = {
        let mut v: Vec<Move> = legal.iter().map(|m| m.mirror()).collect();
        v.sort();
        v
    };
    assert_eq!(
        sorted(pos.mirror().legal_moves()),
        mirrored,
        "mirror of {}",
        pos.fen()
    );
    assert_eq!(pos.is_lost(), legal.is_empty());
    let mut pseudo = MoveList::new();
    pos.pseudo_legal_moves(&mut pseudo);
    let mut expected: Vec<Move> = pseudo
        .iter()
        .copied()
        .filter(|m| pos.board().piece_at(m.to()).is_some())
        .collect();
    expected.sort();
    let mut captures = MoveList::new();
    pos.pseudo_legal_captures(&mut captures);
    assert_eq!(
        sorted(captures.clone()),
        expected,
        "captures of {}",
        pos.fen()
    );
    let mut quiets = MoveList::new();
    pos.pseudo_legal_quiets(&mut quiets);
    assert_eq!(
        quiets.len() + captures.len(),
        pseudo.len(),
        "quiets and captures split the moves of {}",
        pos.fen()
    );
    assert!(quiets
        .iter()
        .all(|m| pos.board().piece_at(m.to()).is_none()));
    // Static exchange agrees with replaying the exchange on the board.
    for &m in legal.iter() {
        let see = pos.see(m, &SEE_VALUES);
        let outcomes = reference_see(pos, m);
        assert!(
            outcomes.contains(&see),
            "see({m}) = {see}, replayed {outcomes:?} in {}",
            pos.fen()
        );
    }
    // gives_check agrees with playing the move, for every pseudo-legal
    // move (the search asks before testing legality).
    for &m in pseudo.iter() {
        let mut after = pos.clone();
        after.make_move(m);
        assert_eq!(
            pos.gives_check(m),
            after.king_attacked(!pos.turn()),
            "gives_check({m}) in {}",
            pos.fen()
        );
    }
    // The pseudo-legality test agrees with the generator on every square pair.
    for from in Square::all() {
        for to in Square::all() {
            let m = Move::new(from, to);
            assert_eq!(
                pos.is_pseudo_legal(m),
                pseudo.contains(&m),
                "is_pseudo_legal({m}) in {}",
                pos.fen()
            );
        }
    }
    if !pos.in_check() {
        let mut passed = pos.clone();
        passed.make_null_move();
        assert_eq!(passed.turn(), !pos.turn());
        assert_eq!(passed.key(), passed.compute_key());
        passed.unmake_null_move();
        assert_eq!((passed.fen(), passed.key()), (pos.fen(), pos.key()));
    }
}

#[test]
fn make_unmake_restores_position_and_key() {
    for case in common::perft_cases() {
        let mut pos = Position::from_fen(&case.fen).unwrap();
        let (fen, key) = (pos.fen(), pos.key());
        for m in pos.legal_moves().iter().copied() {
            pos.make_move(m);
            assert_eq!(pos.key(), pos.compute_key());
            for reply in pos.legal_moves().iter().copied() {
                pos.make_move(reply);
                assert_eq!(pos.key(), pos.compute_key());
                pos.unmake_move();
            }
            pos.unmake_move();
            assert_eq!((pos.fen(), pos.key()), (fen.clone(), key));
        }
    }
}

#[test]
fn random_playouts_keep_every_invariant() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for game in 0..60 {
        let case = &common::perft_cases()[game % 5];
        let mut pos = Position::from_fen(&case.fen).unwrap();
        let start = pos.fen();
        random_playout(&mut pos, &mut rng, 200, check_invariants);
        while pos.ply() > 0 {
            pos.unmake_move();
        }
        assert_eq!(pos.fen(), start);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_playout_unwinds_to_its_start(seed in 1u64.., plies in 0usize..300) {
        let mut rng = Rng(seed);
        let mut pos = Position::start();
        let mut keys = Vec::new();
        random_playout(&mut pos, &mut rng, plies, |p| keys.push(p.key()));
        keys.pop();
        while let Some(expected) = keys.pop() {
            pos.unmake_move();
            prop_assert_eq!(pos.key(), expected);
        }
        prop_assert_eq!(pos.fen(), Position::start().fen());
    }

    #[test]
    fn any_reachable_position_reads_back_from_its_fen(seed in 1u64.., plies in 0usize..200) {
        let mut rng = Rng(seed);
        let mut pos = Position::start();
        random_playout(&mut pos, &mut rng, plies, |_| {});
        check_invariants(&pos);
    }
}

#[test]
fn moves_parse_without_a_position() {
    let m: IccsMove = "h2e2".parse().unwrap();
    assert_eq!(
        (m.from, m.to),
        (Square::parse("h2").unwrap(), Square::parse("e2").unwrap())
    );
    assert_eq!("H2-E2".parse::<IccsMove>().unwrap(), m);
    for bad in ["", "h2", "h2e", "j2e2", "h2e:", "h2e2x", "h2h2", "ｈ2e2"] {
        assert!(bad.parse::<IccsMove>().is_err(), "{bad}");
    }
    let mv = Move::new(m.from, m.to);
    assert_eq!(Move::from_u16(mv.to_u16()), Some(mv));
    assert_eq!(mv.to_string(), "h2e2");
    assert_eq!(mv.mirror().to_string(), "b2e2");
}

#[test]
fn illegal_moves_are_refused_with_their_reason() {
    let pos = Position::start();
    let resolve = |s: &str| pos.resolve(s.parse().unwrap());
    assert!(matches!(resolve("e5e6"), Err(IllegalMove::NoPiece { .. })));
    assert!(matches!(
        resolve("h7e7"),
        Err(IllegalMove::NotYourPiece { .. })
    ));
    assert!(matches!(
        resolve("h2h8"),
        Err(IllegalMove::CannotMoveThere {
            role: Role::Cannon,
            ..
        })
    ));
    assert!(
        resolve("h2h9").is_ok(),
        "the cannon takes the horse over its screen"
    );
    assert!(matches!(
        resolve("b0d1"),
        Err(IllegalMove::CannotMoveThere {
            role: Role::Horse,
            ..
        })
    ));
    assert!(resolve("c0e2").is_ok());
    assert!(matches!(
        resolve("c3d3"),
        Err(IllegalMove::CannotMoveThere {
            role: Role::Pawn,
            ..
        })
    ));
    // The e-pawn is all that stands between the kings... with the rest cleared away.
    let open = Position::from_fen("4k4/9/9/9/9/4P4/9/9/9/4K4 w").unwrap();
    assert!(
        open.parse_move("e4d4").is_err(),
        "pawn not across the river"
    );
    let screen = Position::from_fen("4k4/9/9/9/4P4/9/9/9/9/4K4 w").unwrap();
    assert!(matches!(
        screen.resolve("e5d5".parse().unwrap()),
        Err(IllegalMove::KingsWouldFace { .. })
    ));
    // A pinned rook may move along the pin, not off it.
    let pinned = Position::from_fen("4k4/9/9/9/4r4/9/9/9/4R4/3AK4 w").unwrap();
    assert!(matches!(
        pinned.resolve("e1d1".parse().unwrap()),
        Err(IllegalMove::LeavesKingInCheck { .. })
    ));
    assert!(pinned.parse_move("e1e5").is_ok());
    let e = pinned.parse_move("e1d1").unwrap_err();
    assert!(e.to_string().contains("leaves the king in check"), "{e}");
    assert!(matches!(
        e,
        MoveError::Illegal(IllegalMove::LeavesKingInCheck { .. })
    ));
    assert!(matches!(
        pinned.parse_move("e1-d"),
        Err(MoveError::Parse(ParseMoveError { .. }))
    ));
}

#[test]
fn cannon_screens_and_horse_legs_decide_checks() {
    // A red horse stepping between a black cannon and the red king becomes the cannon's screen.
    let pos = Position::from_fen("3k5/9/9/9/4c4/9/9/9/2N6/4K4 w").unwrap();
    assert!(!pos.in_check());
    assert!(matches!(
        pos.resolve("c1e2".parse().unwrap()),
        Err(IllegalMove::LeavesKingInCheck { .. })
    ));
    assert!(pos.parse_move("c1d3").is_ok());
    // A red rook on a black horse's leg may not leave it, but may take the horse.
    let leg = Position::from_fen("5k3/9/9/9/9/9/9/3n5/3R5/4K4 w").unwrap();
    assert!(!leg.in_check());
    assert!(matches!(
        leg.resolve("d1a1".parse().unwrap()),
        Err(IllegalMove::LeavesKingInCheck { .. })
    ));
    assert!(leg.parse_move("d1d2").is_ok());
    // A cannon with two screens gives no check; taking one screen away does.
    let two = Position::from_fen("4k4/9/9/9/4c4/9/4P4/4N4/9/3K5 w").unwrap();
    assert!(two.parse_move("d0e0").is_ok());
    let one = Position::from_fen("4k4/9/9/9/4c4/9/9/4N4/9/3K5 w").unwrap();
    assert!(matches!(
        one.resolve("d0e0".parse().unwrap()),
        Err(IllegalMove::LeavesKingInCheck { .. })
    ));
}

#[test]
fn checkmate_and_stalemate_both_lose() {
    // Black king d9 boxed in: rook checks on the back rank, the other rook covers d8/e8 rank.
    let mut mate = Position::from_fen("3k5/1R7/9/9/9/9/9/9/9/R3K4 w").unwrap();
    mate.make_move(mate.parse_move("a0a9").unwrap());
    assert!(mate.in_check());
    assert!(mate.is_lost());
    assert!(mate.legal_moves().is_empty());
    // Stalemate: Black to move, not in check, nothing legal.
    let stalemate =
        Position::from_fen("3k5/R8/4R4/9/9/9/9/9/9/4K4 b").unwrap_or_else(|e| panic!("{e}"));
    assert!(!stalemate.in_check());
    let moves = stalemate.legal_moves();
    assert!(moves.is_empty(), "{moves:?}");
    assert!(stalemate.is_lost());
}

#[test]
fn idle_repetition_is_found_and_counted() {
    let mut pos = Position::start();
    assert_eq!(pos.repetition(), None);
    play(&mut pos, "b0c2 b9c7 c2b0 c7b9");
    let rep = pos.repetition().expect("start position again");
    assert_eq!(rep.kind, RepetitionKind::Idle);
    assert_eq!(rep.plies, 4);
    assert_eq!(pos.repetition_count(), 2);
    play(&mut pos, "b0c2 b9c7 c2b0 c7b9");
    assert_eq!(pos.repetition_count(), 3);
}

#[test]
fn perpetual_check_is_blamed_on_the_checker() {
    let mut pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K2R1 w").unwrap();
    play(&mut pos, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
    let rep = pos.repetition().expect("cycle");
    assert_eq!(rep.kind, RepetitionKind::PerpetualCheck { by: Color::Red });
    // Seen from the position after the checking move, the same cycle.
    let mut pos2 = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K2R1 w").unwrap();
    play(&mut pos2, "h0h9 d9d8 h9h8 d8d9 h8h9");
    assert_eq!(
        pos2.repetition().unwrap().kind,
        RepetitionKind::PerpetualCheck { by: Color::Red }
    );
}

#[test]
fn mutual_check_is_recognised() {
    // The red cannon and the black pawn shuttle between the e and f files: each
    // move blocks the check it answers and uncovers one on the other king.
    let mut pos = Position::from_fen("9/5k3/9/9/4c4/9/4p4/5C3/5R3/4K4 w").unwrap();
    assert!(pos.in_check());
    play(&mut pos, "f2e2 e3f3 e2f2 f3e3");
    let rep = pos.repetition().expect("cycle");
    assert_eq!(
        rep,
        xqcore::Repetition {
            kind: RepetitionKind::MutualCheck,
            plies: 4
        }
    );
}

/// The position after `moves` from `fen`.
fn after(fen: &str, moves: &str) -> Position {
    let mut pos = Position::from_fen(fen).unwrap();
    play(&mut pos, moves);
    pos
}

#[test]
fn no_legal_move_ends_the_game_for_the_side_to_move() {
    let rules = EndRules::default();
    let mate = after("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9");
    let outcome = mate.outcome(&rules).expect("mate");
    assert_eq!(
        outcome,
        Outcome::NoLegalMove {
            loser: Color::Black
        }
    );
    assert_eq!(outcome.result(), GameResult::RedWins);
    let stalemate = after("3k5/R8/4R4/9/9/9/9/9/9/4K4 b", "");
    assert_eq!(
        stalemate.outcome(&rules).map(Outcome::result),
        Some(GameResult::RedWins)
    );
    assert_eq!(Position::start().outcome(&rules), None);
}

#[test]
fn repetitions_end_the_game_at_the_chosen_occurrence() {
    let fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
    let third = EndRules::default();
    let first_return = EndRules {
        occurrences: 2,
        ..EndRules::default()
    };
    let twice = after(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
    assert_eq!(twice.outcome(&third), None, "second occurrence: play on");
    let by_red = Outcome::PerpetualCheck { by: Color::Red };
    assert_eq!(twice.outcome(&first_return), Some(by_red));
    let thrice = after(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9 d9d8");
    assert_eq!(thrice.outcome(&third), Some(by_red));
    assert_eq!(by_red.result(), GameResult::BlackWins);
    let idle = after(xqcore::START_FEN, "b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0 c7b9");
    assert_eq!(idle.outcome(&third), Some(Outcome::Repetition));
    assert_eq!(Outcome::Repetition.result(), GameResult::Draw);
    let mutual = after("9/5k3/9/9/4c4/9/4p4/5C3/5R3/4K4 w", "f2e2 e3f3 e2f2 f3e3");
    assert_eq!(mutual.outcome(&first_return), Some(Outcome::Repetition));
}

#[test]
fn the_natural_move_limit_draws() {
    let pos = after(xqcore::START_FEN, "b0c2 b9c7 c2b0 c7b9");
    let four = EndRules {
        occurrences: 3,
        natural_move_limit: 4,
    };
    assert_eq!(pos.outcome(&four), Some(Outcome::NaturalMoveLimit));
    assert_eq!(pos.outcome(&EndRules::default()), None);
    assert_eq!(EndRules::default().natural_move_limit, NATURAL_MOVE_LIMIT);
    assert_eq!(NATURAL_MOVE_LIMIT, 120);
}

#[test]
fn capture_resets_the_natural_move_counter() {
    let mut pos = Position::start();
    play(&mut pos, "h2e2 h9g7 e2e6");
    assert_eq!(pos.plies_since_capture(), 0);
    assert_eq!(pos.last_captured().map(|p| p.role), Some(Role::Pawn));
    play(&mut pos, "a9a8");
    assert_eq!(pos.plies_since_capture(), 1);
    pos.unmake_move();
    pos.unmake_move();
    assert_eq!(pos.plies_since_capture(), 2);
}
