//! Between boards and table placements: which table a position belongs
//! to, and how its pieces sit in that table's orientation.

use xqcore::{squares, Board, Color, Piece, Square};

use crate::index::{Indexer, Placement};
use crate::material::{color_of_side, Material};

/// A board's table: its canonical material, and whether the board's
/// colours are the table's reversed (Black plays the table's side 0).
pub fn table_of(board: &Board) -> (Material, bool) {
    // Equal sides are never swapped: the table holds both colours'
    // positions as they are.
    Material::of_board(board).canonical()
}

/// The table side (0 or 1) that `turn` plays when the board's colours are
/// reversed (`swapped`) or not.
pub fn side_of(turn: Color, swapped: bool) -> usize {
    usize::from((turn == Color::Red) == swapped)
}

/// A square in table orientation: turned round when the colours are swapped.
fn oriented(sq: Square, swapped: bool) -> u8 {
    let s = if swapped { sq.rotate() } else { sq };
    s.index() as u8
}

/// The pieces of `board`, whose table is the indexer's, as a placement in
/// slot order (`swapped` as from [`table_of`]).
pub fn placement_of(indexer: &Indexer, board: &Board, swapped: bool, out: &mut Placement) {
    out.clear();
    let slots = indexer.slots();
    let mut i = 0;
    while i < slots.len() {
        let slot = slots[i];
        let piece = Piece::new(color_of_side(slot.side, swapped), slot.role);
        for sq in squares(board.piece_bits(piece)) {
            out.push(oriented(sq, swapped));
        }
        while i < slots.len() && slots[i] == slot {
            i += 1;
        }
    }
    debug_assert_eq!(
        out.len(),
        slots.len(),
        "the board's material is the table's"
    );
}

/// The board of a placement, in table orientation (side 0 as Red). Two
/// pieces on one square: the later slot's piece wins.
pub fn board_of(indexer: &Indexer, placement: &[u8]) -> Board {
    let mut board = Board::empty();
    for (slot, &sq) in indexer.slots().iter().zip(placement) {
        let square = Square::from_index(sq as usize).expect("a board square");
        board.set(
            square,
            Some(Piece::new(color_of_side(slot.side, false), slot.role)),
        );
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Position;

    #[test]
    fn a_position_and_its_colour_flip_share_an_index() {
        let red = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
        let black = Position::from_fen("4k4/4r4/9/9/9/9/9/9/9/5K3 b").unwrap();
        let (m1, s1) = table_of(red.board());
        let (m2, s2) = table_of(black.board());
        assert_eq!((m1.to_string(), s1), ("KRK".to_string(), false));
        assert_eq!((m2.to_string(), s2), ("KRK".to_string(), true));
        assert_eq!(side_of(red.turn(), s1), 0);
        assert_eq!(side_of(black.turn(), s2), 0);
        let ix = Indexer::new(m1);
        let (mut a, mut b) = (Placement::new(), Placement::new());
        placement_of(&ix, red.board(), s1, &mut a);
        placement_of(&ix, black.board(), s2, &mut b);
        // The black position is the red one turned round: the same up to a mirror.
        assert_eq!(ix.index(&a), ix.index(&b));
        assert_eq!(&board_of(&ix, &a), red.board());
    }
}
