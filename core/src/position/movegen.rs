//! Move generation: the pseudo-legal moves of the side to move, by the
//! rules of each piece and not yet checked for leaving the own king
//! attacked, captures and quiet moves apart or together, into a
//! [`MoveList`] or handed to a visitor as they are found; whether one
//! move is pseudo-legal; and the legal moves, the pseudo-legal ones that
//! keep the king safe ([`super::legality`]).

use crate::board::{bits, bits16, code_color, codes, is_enemy, role_of, Code};
use crate::moves::{Move, MoveList};
use crate::tables::{
    file_points, horse_leg, ADVISOR_REACH, ADVISOR_STEPS, BIT, BLACK_HALF, ELEPHANT_REACH,
    ELEPHANT_STEPS, FILE_BB_A, FILE_BB_I, FILE_OF, FILE_SLIDES, HORSE_REACH, HORSE_STEPS,
    KING_REACH, KING_STEPS, PAWN_STEPS, PAWN_TARGETS, RANK_OF, RANK_SLIDES, RED_HALF,
};
use crate::types::{Color, Piece, Role, Square};

use super::Position;

impl Position {
    /// Appends the pseudo-legal moves of the side to move: moves by the rules
    /// of each piece, not yet checked for leaving the own king attacked.
    pub fn pseudo_legal_moves(&self, list: &mut MoveList) {
        self.generate::<true, true>(list);
    }

    /// Appends the pseudo-legal captures of the side to move.
    pub fn pseudo_legal_captures(&self, list: &mut MoveList) {
        self.visit_captures(list);
    }

    /// Hands the pseudo-legal captures of the side to move to `visitor`,
    /// piece by piece, in the order of [`Position::pseudo_legal_moves`].
    /// For callers that score captures as they are generated.
    #[inline]
    pub fn visit_captures(&self, visitor: &mut impl CaptureVisitor) {
        let us = self.turn;
        let sq = &self.board.squares;
        // Pieces with no enemy in reach have no capture, and are left out
        // before looking at their moves.
        for from in bits(self.capture_candidates()) {
            let role = role_of(sq[from]);
            visitor.piece(Piece::new(us, role), Square::from_index_unchecked(from));
            self.piece_captures(visitor, role, from);
        }
    }

    /// The captures of our `role` on `from`, handed to `visitor`. A
    /// stepping piece mostly has one victim in reach, which needs no walk
    /// over its targets; with more, the walk keeps their order.
    #[inline]
    fn piece_captures(&self, visitor: &mut impl CaptureVisitor, role: Role, from: usize) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        let them = board.by_color[(!us).index()];
        let mut take = |to: usize| visitor.capture(Move::from_raw(from, to), role_of(sq[to]));
        let lone = |victims: u128| victims & (victims - 1) == 0;
        match role {
            Role::King | Role::Advisor | Role::Pawn => {
                let victims = match role {
                    Role::King => KING_REACH[from],
                    Role::Advisor => ADVISOR_REACH[from],
                    _ => PAWN_TARGETS[us.index()][from],
                } & them;
                if lone(victims) {
                    take(victims.trailing_zeros() as usize);
                    return;
                }
                for &to in step_targets(role, us, from) {
                    if is_enemy(sq[to as usize], us) {
                        take(to as usize);
                    }
                }
            }
            Role::Elephant | Role::Horse => {
                let horse = role == Role::Horse;
                let reach = if horse { &HORSE_REACH } else { &ELEPHANT_REACH };
                let victims = reach[from] & them;
                if lone(victims) {
                    let to = victims.trailing_zeros() as usize;
                    // The horse's leg, or the elephant's eye midway.
                    let blocker = if horse {
                        horse_leg(from, to)
                    } else {
                        (from + to) / 2
                    };
                    if sq[blocker] == 0 {
                        take(to);
                    }
                    return;
                }
                for &(to, blocker) in legged_targets(role, from) {
                    if is_enemy(sq[to as usize], us) && sq[blocker as usize] == 0 {
                        take(to as usize);
                    }
                }
            }
            Role::Rook | Role::Cannon => {
                let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
                let file = &FILE_SLIDES[r][board.files[f] as usize];
                let (on_rank, on_file) = if role == Role::Rook {
                    (rank.rook, file.rook)
                } else {
                    (rank.cannon, file.cannon)
                };
                // The enemies among the pieces it reaches, rank before file.
                let enemy_rank = (them >> (r * 9)) as u16;
                for t in bits16(on_rank & enemy_rank) {
                    take(r * 9 + t);
                }
                for to in bits(file_points(on_file, f) & them) {
                    take(to);
                }
            }
        }
    }

    /// Appends the pseudo-legal non-captures of the side to move.
    pub fn pseudo_legal_quiets(&self, list: &mut MoveList) {
        self.visit_quiets(list);
    }

    /// Hands the pseudo-legal non-captures of the side to move to
    /// `visitor`, piece by piece, in the order of
    /// [`Position::pseudo_legal_quiets`]. For callers that score moves as
    /// they are generated.
    #[inline]
    pub fn visit_quiets(&self, visitor: &mut impl QuietVisitor) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        for from in bits(board.by_color[us.index()]) {
            let role = role_of(sq[from]);
            visitor.piece(Piece::new(us, role), Square::from_index_unchecked(from));
            match role {
                Role::King | Role::Advisor | Role::Pawn => {
                    let targets = step_targets(role, us, from);
                    for &to in targets {
                        if sq[to as usize] == 0 {
                            visitor.quiet(Move::from_raw(from, to as usize));
                        }
                    }
                }
                Role::Elephant | Role::Horse => {
                    let targets = legged_targets(role, from);
                    for &(to, blocker) in targets {
                        if sq[blocker as usize] == 0 && sq[to as usize] == 0 {
                            visitor.quiet(Move::from_raw(from, to as usize));
                        }
                    }
                }
                Role::Rook | Role::Cannon => {
                    let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                    let rank = RANK_SLIDES[f][board.ranks[r] as usize].quiet;
                    let file = FILE_SLIDES[r][board.files[f] as usize].quiet;
                    for t in bits16(rank) {
                        visitor.quiet(Move::from_raw(from, r * 9 + t));
                    }
                    for t in bits16(file) {
                        visitor.quiet(Move::from_raw(from, t * 9 + f));
                    }
                }
            }
        }
    }

    fn generate<const CAPTURES: bool, const QUIETS: bool>(&self, list: &mut MoveList) {
        self.generate_from::<CAPTURES, QUIETS>(self.board.by_color[self.turn.index()], list);
    }

    /// The moves of the pieces in `movers` (the side to move's), in square order.
    fn generate_from<const CAPTURES: bool, const QUIETS: bool>(
        &self,
        movers: u128,
        list: &mut MoveList,
    ) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        let enemy = |c: Code| is_enemy(c, us);
        // A step to `to`: quiet if empty, a capture if an enemy stands there.
        let step = |list: &mut MoveList, from: usize, to: usize| {
            let c = sq[to];
            if (QUIETS && c == 0) || (CAPTURES && enemy(c)) {
                list.push(Move::from_raw(from, to));
            }
        };
        for from in bits(movers) {
            let role = role_of(sq[from]);
            match role {
                Role::King | Role::Advisor | Role::Pawn => {
                    let targets = step_targets(role, us, from);
                    for &to in targets {
                        step(list, from, to as usize);
                    }
                }
                Role::Elephant | Role::Horse => {
                    let targets = legged_targets(role, from);
                    for &(to, blocker) in targets {
                        if sq[blocker as usize] == 0 {
                            step(list, from, to as usize);
                        }
                    }
                }
                Role::Rook | Role::Cannon => {
                    let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                    let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
                    let file = &FILE_SLIDES[r][board.files[f] as usize];
                    if CAPTURES {
                        let (on_rank, on_file) = if role == Role::Rook {
                            (rank.rook, file.rook)
                        } else {
                            (rank.cannon, file.cannon)
                        };
                        for t in bits16(on_rank) {
                            if enemy(sq[r * 9 + t]) {
                                list.push(Move::from_raw(from, r * 9 + t));
                            }
                        }
                        for t in bits16(on_file) {
                            if enemy(sq[t * 9 + f]) {
                                list.push(Move::from_raw(from, t * 9 + f));
                            }
                        }
                    }
                    if QUIETS {
                        for t in bits16(rank.quiet) {
                            list.push(Move::from_raw(from, r * 9 + t));
                        }
                        for t in bits16(file.quiet) {
                            list.push(Move::from_raw(from, t * 9 + f));
                        }
                    }
                }
            }
        }
    }

    /// The side to move's pieces with an enemy piece in reach (blockers
    /// aside): every rook and cannon, and the stepping pieces with an enemy
    /// on one of their targets. A piece outside this set has no capture.
    #[inline]
    fn capture_candidates(&self) -> u128 {
        let us = self.turn;
        let board = &self.board;
        let them = board.by_color[(!us).index()];
        let [k, a, e, h, r, c, p] = codes(us);
        let pieces = |code: Code| board.by_piece[code as usize - 1];
        let mut candidates = pieces(r) | pieces(c);
        // Pawns, all at once: an enemy straight ahead or, across the river, beside.
        let beside = ((them << 1) & !FILE_BB_A) | ((them >> 1) & !FILE_BB_I);
        let pawns = pieces(p);
        candidates |= match us {
            Color::Red => pawns & ((them >> 9) | (beside & BLACK_HALF)),
            Color::Black => pawns & ((them << 9) | (beside & RED_HALF)),
        };
        for from in bits(pieces(h)) {
            // Horse moves go both ways: the squares it attacks from reach it.
            if HORSE_REACH[from] & them != 0 {
                candidates |= BIT[from];
            }
        }
        // Kings and advisors never leave their palace, elephants their half.
        let home = match us {
            Color::Red => RED_HALF,
            Color::Black => BLACK_HALF,
        };
        if them & home != 0 {
            for from in bits(pieces(e)) {
                if ELEPHANT_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
            for from in bits(pieces(a)) {
                if ADVISOR_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
            for from in bits(pieces(k)) {
                if KING_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
        }
        candidates
    }

    /// Whether `m` is pseudo-legal here: the side to move's piece moving by
    /// its rules to a square not holding its own piece. Cheap enough to vet
    /// moves from a hash table or killer slot before playing them.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        let sq = &self.board.squares;
        let (moving, target) = (sq[from], sq[to]);
        if moving == 0 || code_color(moving) != self.turn || from == to {
            return false;
        }
        let capture = target != 0;
        if capture && !is_enemy(target, self.turn) {
            return false;
        }
        let free = |s: u8| sq[s as usize] == 0;
        match role_of(moving) {
            Role::King => KING_STEPS[from].as_slice().contains(&(to as u8)),
            Role::Advisor => ADVISOR_STEPS[from].as_slice().contains(&(to as u8)),
            Role::Pawn => PAWN_STEPS[self.turn.index()][from]
                .as_slice()
                .contains(&(to as u8)),
            Role::Elephant => ELEPHANT_STEPS[from]
                .as_slice()
                .iter()
                .any(|&(t, eye)| t as usize == to && free(eye)),
            Role::Horse => HORSE_STEPS[from]
                .as_slice()
                .iter()
                .any(|&(t, leg)| t as usize == to && free(leg)),
            role => {
                let (fr, ff, tr, tf) = (RANK_OF[from], FILE_OF[from], RANK_OF[to], FILE_OF[to]);
                let (slide, point) = if fr == tr {
                    (
                        &RANK_SLIDES[ff as usize][self.board.ranks[fr as usize] as usize],
                        tf,
                    )
                } else if ff == tf {
                    (
                        &FILE_SLIDES[fr as usize][self.board.files[ff as usize] as usize],
                        tr,
                    )
                } else {
                    return false;
                };
                let targets = match (role, capture) {
                    (_, false) => slide.quiet,
                    (Role::Rook, true) => slide.rook,
                    _ => slide.cannon,
                };
                targets & (1 << point) != 0
            }
        }
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.pseudo_legal_moves(&mut list);
        let filter = self.move_filter();
        list.retain(|m| self.is_legal_filtered(&filter, m));
        list
    }
}

/// The squares a king, advisor or pawn of `us` on `from` steps to.
#[inline]
fn step_targets(role: Role, us: Color, from: usize) -> &'static [u8] {
    match role {
        Role::King => KING_STEPS[from].as_slice(),
        Role::Advisor => ADVISOR_STEPS[from].as_slice(),
        _ => PAWN_STEPS[us.index()][from].as_slice(),
    }
}

/// The targets of a horse or elephant on `from`, each with the square
/// (leg or eye) that must be empty.
#[inline]
fn legged_targets(role: Role, from: usize) -> &'static [(u8, u8)] {
    if role == Role::Horse {
        HORSE_STEPS[from].as_slice()
    } else {
        ELEPHANT_STEPS[from].as_slice()
    }
}

/// Receives the quiet moves of [`Position::visit_quiets`], piece by piece.
pub trait QuietVisitor {
    /// The moves that follow, up to the next call, are made by `piece`
    /// from `from`.
    fn piece(&mut self, piece: Piece, from: Square);
    /// A quiet move of the piece last announced.
    fn quiet(&mut self, m: Move);
}

/// Receives the captures of [`Position::visit_captures`], piece by piece.
pub trait CaptureVisitor {
    /// The captures that follow, up to the next call, are made by `piece`
    /// from `from`.
    fn piece(&mut self, piece: Piece, from: Square);
    /// A capture of a `victim` by the piece last announced.
    fn capture(&mut self, m: Move, victim: Role);
}

impl CaptureVisitor for MoveList {
    #[inline]
    fn piece(&mut self, _: Piece, _: Square) {}

    #[inline]
    fn capture(&mut self, m: Move, _: Role) {
        self.push(m);
    }
}

impl QuietVisitor for MoveList {
    #[inline]
    fn piece(&mut self, _: Piece, _: Square) {}

    #[inline]
    fn quiet(&mut self, m: Move) {
        self.push(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::tests::random_positions;

    /// The move generator looking at every piece of the side to move, as it
    /// did before the capture candidates (a reference for the move order).
    fn generate_slow<const CAPTURES: bool, const QUIETS: bool>(
        pos: &Position,
        list: &mut MoveList,
    ) {
        pos.generate_from::<CAPTURES, QUIETS>(pos.board.by_color[pos.turn.index()], list);
    }

    #[test]
    fn move_generation_keeps_its_order() {
        for pos in random_positions(40, 150) {
            for mirrored in [false, true] {
                let pos = if mirrored { pos.mirror() } else { pos.clone() };
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_captures(&mut fast);
                generate_slow::<true, false>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "captures in {}", pos.fen());
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_quiets(&mut fast);
                generate_slow::<false, true>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "quiets in {}", pos.fen());
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_moves(&mut fast);
                generate_slow::<true, true>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "moves in {}", pos.fen());
            }
        }
    }
}
