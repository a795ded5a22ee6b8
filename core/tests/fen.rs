//! FEN reading and writing, and every refusal with its reason.

use xqcore::{Color, FenError, Piece, Position, PositionError, Role, Setup, Square, START_FEN};

fn err(fen: &str) -> FenError {
    Position::from_fen(fen).expect_err(fen)
}

fn pos_err(fen: &str) -> PositionError {
    match err(fen) {
        FenError::Position(e) => e,
        other => panic!("{fen}: expected a position error, got {other:?}"),
    }
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn red(role: Role) -> Piece {
    Piece::new(Color::Red, role)
}

#[test]
fn start_position_round_trips() {
    let pos = Position::from_fen(START_FEN).unwrap();
    assert_eq!(pos.fen(), START_FEN);
    assert_eq!(Position::start().fen(), START_FEN);
    assert_eq!(pos.turn(), Color::Red);
    assert_eq!(pos.board().count(), 32);
}

#[test]
fn short_fens_and_alternative_letters_are_read() {
    let short = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
        .unwrap();
    assert_eq!(short.fen(), START_FEN);
    let letters =
        Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r")
            .unwrap();
    assert_eq!(letters.fen(), START_FEN);
    let black = Position::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12",
    )
    .unwrap();
    assert_eq!(black.turn(), Color::Black);
    assert_eq!(black.plies_since_capture(), 7);
    assert_eq!(
        black.fen(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12"
    );
}

#[test]
fn move_counters_advance_in_the_fen() {
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    assert!(pos.fen().ends_with(" b - - 1 1"), "{}", pos.fen());
    pos.make_move(pos.parse_move("h9g7").unwrap());
    assert!(pos.fen().ends_with(" w - - 2 2"), "{}", pos.fen());
    pos.make_move(pos.parse_move("e2e6").unwrap());
    assert!(pos.fen().ends_with(" b - - 0 2"), "{}", pos.fen());
}

#[test]
fn syntax_errors_are_named() {
    assert_eq!(err(""), FenError::Empty);
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w"),
        FenError::WrongRankCount(9)
    );
    assert_eq!(
        err("rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        FenError::WrongFileCount { rank: 8, files: 8 }
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w"),
        FenError::WrongFileCount { rank: 0, files: 10 }
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w"),
        FenError::UnknownLetter {
            rank: 0,
            letter: 'X'
        }
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"),
        FenError::MissingSide
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x"),
        FenError::BadSide("x".into())
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - z 1"),
        FenError::BadCounter("z".into())
    );
}

#[test]
fn impossible_positions_are_named() {
    assert_eq!(
        pos_err("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        PositionError::MissingKing {
            color: Color::Black
        }
    );
    assert_eq!(
        pos_err("rnbakabnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        PositionError::TooMany {
            piece: Piece::new(Color::Black, Role::King),
            count: 2,
            max: 1
        }
    );
    assert_eq!(
        pos_err("2k6/9/9/9/9/9/9/9/9/4K4 w"),
        PositionError::OutsidePalace {
            piece: Piece::new(Color::Black, Role::King),
            square: sq("c9")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/9/9/9/9/A8/4K4 w"),
        PositionError::OutsidePalace {
            piece: red(Role::Advisor),
            square: sq("a1")
        }
    );
    assert_eq!(
        pos_err("4k4/9/9/9/9/9/9/9/9/3KA4 w"),
        PositionError::AdvisorOffPoints {
            piece: red(Role::Advisor),
            square: sq("e0")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/9/9/9/9/9/B3K4 w"),
        PositionError::ElephantOffPoints {
            piece: red(Role::Elephant),
            square: sq("a0")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/2B6/9/9/9/9/4K4 w"),
        PositionError::ElephantOffPoints {
            piece: red(Role::Elephant),
            square: sq("c5")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/9/9/9/P8/9/4K4 w"),
        PositionError::PawnBehindStart {
            piece: red(Role::Pawn),
            square: sq("a2")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/9/9/1P7/9/9/4K4 w"),
        PositionError::PawnUnreachable {
            piece: red(Role::Pawn),
            square: sq("b3")
        }
    );
    assert_eq!(
        pos_err("3k5/9/9/9/9/9/P1P1P1P1P/P8/9/4K4 w"),
        PositionError::TooMany {
            piece: red(Role::Pawn),
            count: 6,
            max: 5
        }
    );
    assert_eq!(
        pos_err("4k4/9/9/9/9/9/9/9/9/4K4 w"),
        PositionError::KingsFacing
    );
    assert_eq!(
        pos_err("4k4/9/9/9/9/9/9/9/4R4/3K5 w"),
        PositionError::OpponentInCheck {
            color: Color::Black
        }
    );
}

#[test]
fn errors_read_well() {
    let text = err("3k5/9/9/9/9/9/1P7/9/9/4K4 w").to_string();
    assert!(text.contains("red pawn on b3"), "{text}");
    let text = err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w").to_string();
    assert!(text.contains("9 ranks"), "{text}");
}

#[test]
fn legal_edge_placements_are_accepted() {
    // Pawns on their last rank, elephants on every point, advisors on every point.
    Position::from_fen("P2k4P/9/9/9/2b3b2/9/9/9/9/p3K3p b").unwrap();
    Position::from_fen("3akab2/9/9/9/9/9/9/B3B3B/9/2BAKAB2 w").unwrap_err(); // three red elephants
    Position::from_fen("3a1a3/4k4/3a5/9/9/9/9/9/4A4/3AK4 w").unwrap_err(); // three black advisors
    Position::from_fen("5a3/4k4/3a5/9/9/9/9/9/4A4/3AK4 w").unwrap();
}

#[test]
fn setup_mirror_round_trips() {
    let setup: Setup = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"
        .parse()
        .unwrap();
    assert_ne!(setup.mirror(), setup);
    assert_eq!(setup.mirror().mirror(), setup);
}
