//! Whether a pseudo-legal move keeps the own king safe (not attacked, not
//! facing the other king), which makes it legal: a [`MoveFilter`],
//! computed once per position, settles most moves without looking at the
//! board; the others are judged by what would attack the king after the
//! move, worked out without making it.

use crate::board::{bits16, codes, Code};
use crate::moves::Move;
use crate::tables::{
    BIT, FILE_BB, FILE_OF, FILE_SLIDES, HORSE_ATTACKERS, HORSE_REACH, KING_SENSITIVE, LINES,
    PAWN_ATTACKERS, PAWN_REACH, RANK_BB, RANK_OF, RANK_SLIDES,
};
use crate::types::Color;

use super::{halves, Position};

/// Per-position masks for [`Position::is_legal_filtered`], from
/// [`Position::move_filter`]: a move that neither leaves a square of `from`
/// nor lands on one of `to` is settled without looking at the board, legal
/// unless the side to move is in check.
#[derive(Clone, Copy, Debug)]
pub struct MoveFilter {
    /// Out of check, the squares whose vacating may expose the king; in
    /// check, those a legal evasion may leave. In 64-bit halves, as
    /// [`CheckFilter`]'s masks.
    from: [u64; 2],
    /// Out of check, the squares whose occupying may expose the king; in
    /// check, those a legal evasion may land on.
    to: [u64; 2],
    in_check: bool,
}

/// Whether the square with index `sq` is in the bitboard `halves` (see [`halves`]).
#[inline]
fn in_halves(halves: &[u64; 2], sq: usize) -> bool {
    // Squares are below 90: bit 6 picks the half.
    (halves[(sq >> 6) & 1] >> (sq & 63)) & 1 != 0
}

impl Position {
    /// Whether a pseudo-legal move keeps the own king safe (not attacked, not
    /// facing the other king), which makes it legal.
    #[inline]
    pub fn keeps_king_safe(&self, m: Move) -> bool {
        self.is_legal_filtered(&self.move_filter(), m)
    }

    /// Masks that let most moves of this position skip the exact legality
    /// test; compute once per position, use for all its moves.
    ///
    /// Vacating a square of the king's rank or file matters only with a
    /// rook, cannon or king of the other side on that line; landing on one
    /// only with a cannon there (a new screen); vacating a square diagonally
    /// next to the king only with a horse that could use it as its leg.
    pub fn move_filter(&self) -> MoveFilter {
        let us = self.turn;
        let own_king = self.kings[us.index()];
        // In check, a move touching none of the evasion squares is
        // illegal; otherwise, one touching none of the hazards is legal.
        let (from, to) = if self.in_check {
            self.evasion_squares(own_king, !us)
        } else {
            self.line_hazards(own_king, !us)
        };
        let from = from | BIT[own_king];
        MoveFilter {
            from: halves(from),
            to: halves(to),
            in_check: self.in_check,
        }
    }

    /// For a king in check on `king`: the squares a legal evasion may leave
    /// (a cannon's screen) and those it may land on (a checker, or a square
    /// between a rook or cannon and the king, or a checking horse's leg).
    /// Every legal move that is not a king move leaves or lands on one.
    fn evasion_squares(&self, king: usize, by: Color) -> (u128, u128) {
        let b = &self.board;
        let sq = &b.squares;
        let [k, _, _, horse, rook, cannon, pawn] = codes(by);
        let (mut from, mut to) = (0u128, 0u128);
        for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
            if sq[h as usize] == horse && sq[leg as usize] == 0 {
                to |= BIT[h as usize] | BIT[leg as usize];
            }
        }
        for &p in PAWN_ATTACKERS[by.index()][king].as_slice() {
            if sq[p as usize] == pawn {
                to |= BIT[p as usize];
            }
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        let rank = &RANK_SLIDES[kf][b.ranks[kr] as usize];
        let file = &FILE_SLIDES[kr][b.files[kf] as usize];
        let lines = [
            (rank.rook, rank.cannon, kr * 9, 1usize),
            (file.rook, file.cannon, kf, 9usize),
        ];
        for (direct, screened, base, step) in lines {
            let at = |point: usize| base + point * step;
            // The squares from the king (excluded) to `s` (included) on this line.
            let path = |s: usize| {
                let (lo, hi) = if s < king { (s, king) } else { (king, s) };
                (lo..hi + 1)
                    .step_by(step)
                    .filter(|&x| x != king)
                    .fold(0u128, |bb, x| bb | BIT[x])
            };
            for point in bits16(direct) {
                let s = at(point);
                if sq[s] == rook || sq[s] == k {
                    to |= path(s);
                }
            }
            for point in bits16(screened) {
                let s = at(point);
                if sq[s] == cannon {
                    let between = path(s) & !BIT[s];
                    to |= path(s);
                    from |= between & b.occupied();
                }
            }
        }
        (from, to)
    }

    /// The squares whose vacating, and those whose occupying, could change
    /// whether `by` attacks the king on `king`.
    fn line_hazards(&self, king: usize, by: Color) -> (u128, u128) {
        let b = &self.board;
        let [k, _, _, horse, rook, cannon, _] = codes(by);
        let cannons = b.by_piece[cannon as usize - 1];
        let sliders = b.by_piece[rook as usize - 1] | cannons | b.by_piece[k as usize - 1];
        let rank = RANK_BB[RANK_OF[king] as usize];
        let file = FILE_BB[FILE_OF[king] as usize];
        let mut from = 0;
        let mut to = 0;
        if sliders & rank != 0 {
            from |= rank;
        }
        if sliders & file != 0 {
            from |= file;
        }
        if cannons & rank != 0 {
            to |= rank;
        }
        if cannons & file != 0 {
            to |= file;
        }
        if b.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            from |= KING_SENSITIVE[king] & !LINES[king];
        }
        (from, to)
    }

    /// [`Position::keeps_king_safe`] with this position's [`MoveFilter`].
    #[inline]
    pub fn is_legal_filtered(&self, filter: &MoveFilter, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        if !in_halves(&filter.from, from) && !in_halves(&filter.to, to) {
            return !filter.in_check;
        }
        !self.king_attacked_after(from, to)
    }

    /// Whether the side to move's king would be attacked after moving the
    /// piece on `from` to `to`.
    #[inline]
    fn king_attacked_after(&self, from: usize, to: usize) -> bool {
        let own_king = self.kings[self.turn.index()];
        let king = if from == own_king { to } else { own_king };
        self.attacked_after(king, !self.turn, from, to)
    }

    /// Whether `by` would attack the square `king` after the piece on `from`
    /// moved to `to`, worked out without changing the board: the target's
    /// rank and file occupancy are adjusted and the two squares read as they
    /// would be.
    fn attacked_after(&self, king: usize, by: Color, from: usize, to: usize) -> bool {
        let board = &self.board;
        let moving = board.squares[from];
        let at = |s: usize| -> Code {
            if s == to {
                moving
            } else if s == from {
                0
            } else {
                board.squares[s]
            }
        };
        let [k, _, _, horse, rook, cannon, pawn] = codes(by);
        // Only horses already within reach, or the one moving, can attack.
        if moving == horse || board.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
                if at(h as usize) == horse && at(leg as usize) == 0 {
                    return true;
                }
            }
        }
        let pieces = |c: Code| board.by_piece[c as usize - 1];
        // Only pawns already next to the king, or the one moving, can attack.
        if moving == pawn || pieces(pawn) & PAWN_REACH[by.index()][king] != 0 {
            for &p in PAWN_ATTACKERS[by.index()][king].as_slice() {
                if at(p as usize) == pawn {
                    return true;
                }
            }
        }
        // Only a line holding a rook, cannon or king of `by`, before or
        // after the move, can carry an attack.
        let mut sliders = pieces(rook) | pieces(cannon) | pieces(k);
        if moving == rook || moving == cannon || moving == k {
            sliders |= BIT[to];
        }
        if sliders & LINES[king] == 0 {
            return false;
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        let mut rank_occ = board.ranks[kr];
        let mut file_occ = board.files[kf];
        if RANK_OF[from] as usize == kr {
            rank_occ &= !(1 << FILE_OF[from]);
        }
        if FILE_OF[from] as usize == kf {
            file_occ &= !(1 << RANK_OF[from]);
        }
        if RANK_OF[to] as usize == kr {
            rank_occ |= 1 << FILE_OF[to];
        }
        if FILE_OF[to] as usize == kf {
            file_occ |= 1 << RANK_OF[to];
        }
        let rank = &RANK_SLIDES[kf][rank_occ as usize];
        let file = &FILE_SLIDES[kr][file_occ as usize];
        // The pieces these slides reach stand on occupied points of the
        // adjusted lines, which never include `from`.
        let at = |s: usize| -> Code {
            if s == to {
                moving
            } else {
                board.squares[s]
            }
        };
        bits16(rank.rook).any(|t| at(kr * 9 + t) == rook)
            || bits16(file.rook).any(|t| matches!(at(t * 9 + kf), c if c == rook || c == k))
            || bits16(rank.cannon).any(|t| at(kr * 9 + t) == cannon)
            || bits16(file.cannon).any(|t| at(t * 9 + kf) == cannon)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveList;
    use crate::position::tests::random_positions;
    use crate::types::{Piece, Role, Square};

    /// `attacked_after` found independently: the move played on a copy of
    /// the board, then each attacking piece's attack set from
    /// [`crate::attacks`]; a king attacks along its file (the kings may not
    /// face each other).
    fn attacked_after_reference(
        pos: &Position,
        king: usize,
        by: Color,
        from: usize,
        to: usize,
    ) -> bool {
        let sq = |s: usize| Square::from_index(s).expect("on the board");
        let mut board = pos.board.clone();
        let moving = board.piece_at(sq(from));
        board.set(sq(from), None);
        board.set(sq(to), moving);
        let target = BIT[king];
        let of = |role| board.squares_of(Piece::new(by, role));
        of(Role::Rook).any(|s| board.rook_attacks(s) & target != 0)
            || of(Role::Cannon).any(|s| board.cannon_attacks(s) & target != 0)
            || of(Role::Horse).any(|s| board.horse_attacks(s) & target != 0)
            || of(Role::Pawn).any(|s| crate::attacks::pawn_attacks(by, s) & target != 0)
            || of(Role::King)
                .any(|s| FILE_OF[s.index()] == FILE_OF[king] && board.rook_attacks(s) & target != 0)
    }

    #[test]
    fn attacked_after_matches_its_reference() {
        for pos in random_positions(40, 150) {
            let mut list = MoveList::new();
            pos.pseudo_legal_moves(&mut list);
            for &m in list.iter() {
                let (from, to) = (m.from().index(), m.to().index());
                for by in Color::ALL {
                    for target in pos.kings.iter().map(|&k| if k == from { to } else { k }) {
                        assert_eq!(
                            pos.attacked_after(target, by, from, to),
                            attacked_after_reference(&pos, target, by, from, to),
                            "{target} by {by:?} after {m} in {}",
                            pos.fen()
                        );
                    }
                }
            }
        }
    }
}
