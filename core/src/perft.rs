//! Perft: counting the leaves of the legal move tree, the standard check of a
//! move generator against published figures.

use crate::moves::{Move, MoveList};
use crate::position::Position;

/// Number of legal move sequences of length `depth` from `pos`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.pseudo_legal_moves(&mut list);
    let filter = pos.move_filter();
    if depth == 1 {
        // Bulk counting: the leaves are the legal moves themselves.
        return list
            .iter()
            .filter(|&&m| pos.is_legal_filtered(&filter, m))
            .count() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        if pos.is_legal_filtered(&filter, m) {
            pos.make_move(m);
            nodes += perft(pos, depth - 1);
            pos.unmake_move();
        }
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&m| {
            pos.make_move(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake_move();
            (m, n)
        })
        .collect()
}
