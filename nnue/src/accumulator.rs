//! The hidden layer of a position, and the output computed from it.

use xqcore::{Board, Color, Move, Piece, Role, Square};

use crate::features::{bucket, feature, king_square, FeatureSet};
use crate::network::Network;
use crate::{simd, MAX_HIDDEN, QA, QB, SCALE};

/// Both perspectives' hidden layer before activation (Red's, Black's),
/// quantised by [`crate::QI`]: the first [`Network::hidden`] values of each
/// half are the net's, the rest stay zero.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    values: [[i16; MAX_HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            values: [[0; MAX_HIDDEN]; 2],
        }
    }
}

impl Accumulator {
    /// The first `hidden` values of `color`'s half.
    #[inline]
    fn half(&self, color: Color, hidden: usize) -> &[i16] {
        &self.values[color.index()][..hidden]
    }

    #[inline]
    fn half_mut(&mut self, color: Color, hidden: usize) -> &mut [i16] {
        &mut self.values[color.index()][..hidden]
    }
}

impl Network {
    /// The accumulator of `board`, from scratch.
    pub fn refresh(&self, board: &Board) -> Accumulator {
        let mut acc = Accumulator::default();
        for color in Color::ALL {
            let king = king_square(board, color);
            self.refresh_half(&mut acc, color, king, board.pieces());
        }
        acc
    }

    /// Writes `color`'s half of `acc` from scratch: its king on `king`,
    /// the board's `pieces`.
    fn refresh_half(
        &self,
        acc: &mut Accumulator,
        color: Color,
        king: Square,
        pieces: impl Iterator<Item = (Square, Piece)>,
    ) {
        let set = self.architecture().features();
        let half = acc.half_mut(color, self.hidden());
        half.copy_from_slice(self.biases());
        for (sq, piece) in pieces {
            simd::add_assign(half, self.column(set.feature(color, piece, sq, king)));
        }
    }

    /// Writes into `child` the accumulator after the legal move `m` on
    /// `board` (the position before the move), from `parent`, the
    /// accumulator of `board`.
    #[inline]
    pub fn update(&self, board: &Board, m: Move, parent: &Accumulator, child: &mut Accumulator) {
        // The shipped width as a constant: the slicing and the kernels'
        // choice of block then compile away.
        match self.hidden() {
            simd::BLOCK => self.update_with(simd::BLOCK, board, m, parent, child),
            hidden => self.update_with(hidden, board, m, parent, child),
        }
    }

    /// [`Network::update`] for a net `hidden` wide.
    #[inline(always)]
    fn update_with(
        &self,
        hidden: usize,
        board: &Board,
        m: Move,
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        let (from, to) = (m.from(), m.to());
        let moving: Piece = board.piece_at(from).expect("a piece on the from square");
        let captured = board.piece_at(to);
        let set = self.architecture().features();
        for color in Color::ALL {
            if set.king_relative() && moving == Piece::new(color, Role::King) {
                // Every input of the king's side moves to another bucket:
                // that half is built again from the board after the move.
                let after = board
                    .pieces()
                    .filter(|&(sq, _)| sq != to)
                    .map(|(sq, piece)| (if sq == from { to } else { sq }, piece));
                self.refresh_half(child, color, to, after);
                continue;
            }
            // Piece-square inputs do not read the king: skip finding it.
            let input = |piece, sq| match set {
                FeatureSet::PieceSquare => feature(color, piece, sq),
                _ => set.feature(color, piece, sq, king_square(board, color)),
            };
            let (out, parent) = (child.half_mut(color, hidden), parent.half(color, hidden));
            // `Network::column` reads the width at run time; this one
            // slices by `hidden`, the constant 256 for the shipped width.
            let column = |f: usize| &self.input_weights()[f * hidden..(f + 1) * hidden];
            let add = column(input(moving, to));
            let sub = column(input(moving, from));
            match captured {
                None => simd::add_sub(out, parent, add, sub),
                Some(c) => simd::add_sub_sub(out, parent, add, sub, column(input(c, to))),
            }
        }
    }

    /// The net's score of a position in centipawns from `turn`'s view,
    /// given its accumulator and board.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, board: &Board, turn: Color) -> i32 {
        // The shipped width as a constant, as in `update`.
        match self.hidden() {
            simd::BLOCK => self.evaluate_with(simd::BLOCK, acc, board, turn),
            hidden => self.evaluate_with(hidden, acc, board, turn),
        }
    }

    /// [`Network::evaluate`] for a net `hidden` wide.
    #[inline(always)]
    fn evaluate_with(&self, hidden: usize, acc: &Accumulator, board: &Board, turn: Color) -> i32 {
        let b = bucket(board);
        let us = acc.half(turn, hidden);
        let them = acc.half(!turn, hidden);
        // Σ v² w is scaled by QA² QB: one QA off brings it to the bias's QA QB.
        let output = &self.output_weights()[b * 2 * hidden..(b + 1) * 2 * hidden];
        let sum =
            simd::screlu_dot(us, them, output) / i64::from(QA) + i64::from(self.output_bias(b));
        (sum * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The net's score of `board` with `turn` to move, from scratch.
    pub fn evaluate_board(&self, board: &Board, turn: Color) -> i32 {
        self.evaluate(&self.refresh(board), board, turn)
    }
}

/// The accumulators of a line of play: one per position from the root,
/// each made from its parent when a move is played and dropped when it is
/// taken back, so that a search never recomputes one from scratch.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    stack: Vec<Accumulator>,
    depth: usize,
}

impl AccumulatorStack {
    /// A stack holding the accumulator of `board`.
    pub fn new(net: &Network, board: &Board) -> AccumulatorStack {
        let mut stack = Vec::with_capacity(256);
        stack.push(net.refresh(board));
        AccumulatorStack { stack, depth: 0 }
    }

    /// Pushes the accumulator after the legal move `m` on `board`, the
    /// position of the current top.
    #[inline]
    pub fn push(&mut self, net: &Network, board: &Board, m: Move) {
        if self.depth + 1 == self.stack.len() {
            self.stack.push(Accumulator::default());
        }
        let (parents, children) = self.stack.split_at_mut(self.depth + 1);
        net.update(board, m, &parents[self.depth], &mut children[0]);
        self.depth += 1;
    }

    /// Drops the top accumulator (the move is taken back).
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.depth > 0, "a move to take back");
        self.depth -= 1;
    }

    /// The accumulator of the current position.
    #[inline]
    pub fn top(&self) -> &Accumulator {
        &self.stack[self.depth]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_for_tests::{random_net, random_net_of};
    use crate::FeatureSet;
    use xqcore::Position;

    /// A tiny pseudo-random stream for the tests' games.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn incremental_accumulators_equal_a_full_recompute() {
        let nets = [
            random_net(3),
            random_net_of(FeatureSet::PieceSquare, 64, 4),
            random_net_of(FeatureSet::PieceSquare, 512, 5),
            random_net_of(FeatureSet::KingSquare, 64, 6),
        ];
        let mut rng = 0x1234_5678_9ABC_DEF1u64;
        let mut king_moves = 0;
        for game in 0..48 {
            let net = &nets[game % nets.len()];
            let mut pos = Position::start();
            let mut stack = AccumulatorStack::new(net, pos.board());
            let mut played = 0;
            for _ in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(next(&mut rng) % moves.len() as u64) as usize];
                let mover = pos.board().piece_at(m.from()).expect("a mover");
                king_moves += usize::from(mover.role == Role::King);
                stack.push(net, pos.board(), m);
                pos.make_move(m);
                played += 1;
                assert_eq!(
                    *stack.top(),
                    net.refresh(pos.board()),
                    "after {}",
                    pos.fen()
                );
                // Now and then take a few moves back and check again.
                if next(&mut rng).is_multiple_of(7) {
                    for _ in 0..(next(&mut rng) % 3).min(played) {
                        stack.pop();
                        pos.unmake_move();
                        played -= 1;
                    }
                    assert_eq!(*stack.top(), net.refresh(pos.board()));
                }
            }
        }
        // The king-square net rebuilds a half on each king move.
        assert!(king_moves > 20, "{king_moves} king moves");
    }

    #[test]
    fn evaluation_is_colour_and_mirror_symmetric() {
        let nets = [
            random_net(5),
            random_net_of(FeatureSet::PieceSquare, 96, 6),
            random_net_of(FeatureSet::KingSquare, 64, 7),
        ];
        for (n, net) in nets.iter().enumerate() {
            symmetric(net, 99 + n as u64);
        }
    }

    fn symmetric(net: &Network, seed: u64) {
        let mut rng = seed;
        let mut pos = Position::start();
        for _ in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves[(next(&mut rng) % moves.len() as u64) as usize]);
            let v = net.evaluate_board(pos.board(), pos.turn());
            let mirror = pos.mirror();
            assert_eq!(
                net.evaluate_board(mirror.board(), mirror.turn()),
                v,
                "mirror of {}",
                pos.fen()
            );
            let swapped = pos.board().flip_colors();
            assert_eq!(
                net.evaluate_board(&swapped, !pos.turn()),
                v,
                "colours swapped in {}",
                pos.fen()
            );
        }
    }
}
