//! The queries `xqserve bench` sends: positions the books know, positions
//! the tables hold, positions the store knows, positions nobody knows, and
//! searches; the store it fills first, and the results its writers send.

use std::collections::HashSet;

use xqbook::Searched;
use xqcore::{Color, Piece, Position, Role, Setup, Square};

use crate::library::Library;
use crate::load::chessdb_path;
use crate::store::{Found, Source, Store, StoreError};
use crate::workers::{board_text, md5_hex};

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

/// Query paths by kind: `book`, `table`, `store` (`stored`, boards the
/// store knows), `unknown` (asking not to learn, so the store stays as it
/// is) and `engine` (`queryengine`, a search each).
pub fn query_sets(
    library: &Library,
    stored: &[String],
    engine_positions: usize,
) -> Vec<(&'static str, Vec<String>)> {
    let unknown = engine_boards(200);
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
            "store",
            stored.iter().map(|b| chessdb_path("queryall", b)).collect(),
        ),
        (
            "unknown",
            unknown
                .iter()
                .map(|b| chessdb_path("queryall", b) + "&learn=0")
                .collect(),
        ),
        (
            "engine",
            engine_boards(engine_positions)
                .iter()
                .map(|b| chessdb_path("queryengine", b))
                .collect(),
        ),
    ]
}

/// Positions of random games from the start (8 to 47 plies), no two
/// alike (nor mirror images) and none already in `seen`.
fn random_positions<'a>(
    rng: &'a mut Stream,
    seen: &'a mut HashSet<u64>,
) -> impl Iterator<Item = Position> + 'a {
    std::iter::from_fn(move || loop {
        let mut pos = Position::start();
        for _ in 0..8 + rng.below(40) {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos.make_move(legal[rng.below(legal.len())]);
        }
        if !pos.legal_moves().is_empty() && seen.insert(xqbook::book_key(&pos).0) {
            return Some(Position::from_fen(&pos.fen()).expect("a position's own FEN"));
        }
    })
}

/// Fills `store` with `count` positions of random games, each with up to
/// five moves of random scores at depth 20 (as an analyser writes them),
/// calling `progress` with the count written after each batch; up to 200
/// of their boards, for the `store` queries.
///
/// # Errors
///
/// The store cannot be written.
pub fn fill(
    store: &Store,
    count: usize,
    mut progress: impl FnMut(usize),
) -> Result<Vec<String>, StoreError> {
    let mut rng = Stream(4);
    let mut seen = HashSet::new();
    let mut positions = Vec::new();
    let mut sample = Vec::new();
    let mut written = 0;
    while written < count {
        let batch: Vec<Position> = random_positions(&mut rng, &mut seen)
            .take((count - written).min(10_000))
            .collect();
        let found: Vec<Found> = batch
            .iter()
            .map(|pos| {
                let legal = pos.legal_moves();
                let moves: Vec<(xqcore::Move, i16, u8)> = (0..legal.len().min(5))
                    .map(|i| (legal[i], 100 - 20 * i as i16, 20))
                    .collect();
                let search = Searched {
                    score: moves[0].1,
                    best: moves[0].0,
                    depth: 20,
                };
                (pos.clone(), search, moves)
            })
            .collect();
        store.record_all(&found, Source::Analysis)?;
        written += batch.len();
        positions.extend(
            batch
                .into_iter()
                .take(200usize.saturating_sub(positions.len())),
        );
        progress(written);
    }
    for pos in positions.iter().take(200) {
        sample.push(board_text(pos));
    }
    Ok(sample)
}

/// `count` results a worker sends (`store`, with its proof of `token` for
/// this machine's address), each a move of a position of a random game
/// with a random score.
pub fn result_paths(token: &str, count: usize, seed: u64) -> Vec<String> {
    let mut rng = Stream(seed);
    let mut seen = HashSet::new();
    let positions: Vec<Position> = random_positions(&mut rng, &mut seen).take(count).collect();
    positions
        .iter()
        .map(|pos| {
            let legal = pos.legal_moves();
            let mv = legal[rng.below(legal.len())].to_string();
            let score = (rng.below(400) as i32 - 200).to_string();
            let board = board_text(pos);
            let proof = md5_hex(&[token, &board, &mv, &score]);
            format!(
                "{}&move={mv}&score={score}&token={proof}",
                chessdb_path("store", &board)
            )
        })
        .collect()
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

/// Boards no book knows: the start and 16 to 23 random moves (history
/// and all, as a GUI sends them).
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
