//! The queries `xqserve bench` sends: positions the books know, positions
//! the tables hold, and positions only the engine can answer.

use xqcore::{Color, Piece, Position, Role, Setup, Square};

use crate::chessdb::Library;
use crate::load::chessdb_path;

/// A small random stream, fixed so that every run asks the same.
struct Stream(u64);

impl Stream {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// Query paths by kind: `book`, `table`, `engine`.
pub fn query_sets(library: &Library, engine_positions: usize) -> Vec<(&'static str, Vec<String>)> {
    vec![
        (
            "book",
            book_boards(library)
                .iter()
                .map(|b| chessdb_path("queryall", b))
                .collect(),
        ),
        (
            "table",
            table_boards(library)
                .iter()
                .map(|b| chessdb_path("queryall", b))
                .collect(),
        ),
        (
            "engine",
            engine_boards(engine_positions)
                .iter()
                .map(|b| chessdb_path("querypv", b))
                .collect(),
        ),
    ]
}

/// Up to 200 boards along the books' lines: the start and moves played
/// from it by weight.
fn book_boards(library: &Library) -> Vec<String> {
    let Some(book) = library.books.first().map(|b| &b.book) else {
        return Vec::new();
    };
    let start = Position::start().fen();
    let mut rng = Stream(1);
    let mut out = Vec::new();
    for _ in 0..200 {
        let mut pos = Position::start();
        let mut moves = Vec::new();
        for _ in 0..rng.below(12) {
            let Ok(choices) = book.probe(&pos) else { break };
            if choices.is_empty() {
                break;
            }
            let m = choices[rng.below(choices.len().min(4))].mv;
            pos.make_move(m);
            moves.push(m.to_string());
        }
        if book.probe(&pos).is_ok_and(|c| !c.is_empty()) {
            out.push(if moves.is_empty() {
                start.clone()
            } else {
                format!("{start} moves {}", moves.join(" "))
            });
        }
    }
    out
}

/// Up to 200 positions of a king and rook against a bare king: legal,
/// and held by the tables.
fn table_boards(library: &Library) -> Vec<String> {
    let Some(tb) = library.tables.as_deref() else {
        return Vec::new();
    };
    let mut rng = Stream(2);
    let mut out = Vec::new();
    for _ in 0..20_000 {
        if out.len() >= 200 {
            break;
        }
        let mut setup = Setup {
            board: xqcore::Board::empty(),
            turn: Color::Red,
            plies_since_capture: 0,
            fullmoves: 1,
        };
        let palace = |c: Color, i: usize| {
            let (file, rank) = (3 + i % 3, if c == Color::Red { i / 3 } else { 9 - i / 3 });
            Square::new(file as u8, rank as u8).expect("a palace square")
        };
        setup.board.set(
            palace(Color::Red, rng.below(9)),
            Some(Piece::new(Color::Red, Role::King)),
        );
        setup.board.set(
            palace(Color::Black, rng.below(9)),
            Some(Piece::new(Color::Black, Role::King)),
        );
        let rook = Square::from_index(rng.below(90)).expect("a square");
        if setup.board.piece_at(rook).is_some() {
            continue;
        }
        setup
            .board
            .set(rook, Some(Piece::new(Color::Red, Role::Rook)));
        setup.turn = if rng.below(2) == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let Ok(pos) = Position::from_setup(setup) else {
            continue;
        };
        if pos.legal_moves().is_empty() || tb.probe(&pos).ok().flatten().is_none() {
            continue;
        }
        out.push(pos.fen());
    }
    out
}

/// Boards no book knows: the start and 16 to 23 random moves.
fn engine_boards(count: usize) -> Vec<String> {
    let mut rng = Stream(3);
    let start = Position::start().fen();
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start();
        let mut moves = Vec::new();
        for _ in 0..16 + rng.below(8) {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            pos.make_move(m);
            moves.push(m.to_string());
        }
        if !pos.legal_moves().is_empty() {
            out.push(format!("{start} moves {}", moves.join(" ")));
        }
    }
    out
}
