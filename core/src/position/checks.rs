//! Whether a move gives check ([`Position::gives_check`]), and the
//! [`CheckFilter`], computed once per position, that settles it for most
//! moves with two bit tests.

use crate::board::{bits16, codes, role_of, Code};
use crate::moves::Move;
use crate::tables::{
    file_points, rank_points, Slide, BIT, FILE_BB, FILE_OF, FILE_SLIDES, HORSE_ATTACKERS,
    HORSE_REACH, PAWN_REACH, RANK_BB, RANK_OF, RANK_SLIDES,
};
use crate::types::Role;

use super::{halves, Position};

/// Per-position masks for [`Position::gives_check_filtered`], from
/// [`Position::check_filter`]: which moves check the enemy king, for all
/// moves but those along one of its lines.
#[derive(Clone, Copy, Debug)]
pub struct CheckFilter {
    /// The enemy king, with its rank and file.
    king: usize,
    king_rank: u8,
    king_file: u8,
    /// Squares whose vacating alone uncovers a check: a piece in front of a
    /// rook (or of the own king, on the file), one of the two in front of a
    /// cannon, or a horse's leg.
    discovers: u128,
    /// By [`Role::index`] of the moving piece: the squares where it lands
    /// giving check itself or as a cannon's new screen.
    landing: [u128; 7],
    /// A move that checks leaves one of these squares (`discovers` or the
    /// king's lines, for moves along them) or lands on one of `landing_any`;
    /// in two 64-bit halves, so one square's bit is a single word's shift.
    from_any: [u64; 2],
    /// Every `landing` set together, in halves as `from_any`.
    landing_any: [u64; 2],
}

impl CheckFilter {
    /// Whether move `m` may give check: false only for moves that do not
    /// (for which [`Position::gives_check_filtered`] is false), found with
    /// two bit tests.
    #[inline]
    pub fn may_check(&self, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        // Squares are below 90: bit 6 picks the half.
        let (fh, th) = ((from >> 6) & 1, (to >> 6) & 1);
        ((self.from_any[fh] >> (from & 63)) | (self.landing_any[th] >> (to & 63))) & 1 != 0
    }
}

impl Position {
    /// The masks that settle [`Position::gives_check`] for this position's
    /// moves, but for those along a line of the enemy king; compute once
    /// per position, use for all its moves.
    pub fn check_filter(&self) -> CheckFilter {
        let us = self.turn;
        let king = self.kings[(!us).index()];
        let b = &self.board;
        let sq = &b.squares;
        let [k, _, _, horse, rook, cannon, _] = codes(us);
        let mut discovers = 0;
        let mut horse_checks = 0;
        if b.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
                if sq[h as usize] == horse {
                    discovers |= BIT[leg as usize];
                }
            }
        }
        for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
            if sq[leg as usize] == 0 {
                horse_checks |= BIT[h as usize];
            }
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        // The kings never share a rank: the own king counts as a rook on both lines.
        let rook_like = |c: Code| c == rook || c == k;
        let rank = line_checks(&RANK_SLIDES[kf], b.ranks[kr], kf, cannon, rook_like, |x| {
            sq[kr * 9 + x]
        });
        let file = line_checks(&FILE_SLIDES[kr], b.files[kf], kr, cannon, rook_like, |x| {
            sq[x * 9 + kf]
        });
        let on_board = |i: usize| rank_points(rank[i], kr) | file_points(file[i], kf);
        let (direct, screened, screen) = (on_board(0), on_board(1), on_board(2));
        discovers |= on_board(3);
        let mut landing = [screen; 7];
        landing[Role::King.index()] |= direct;
        landing[Role::Rook.index()] |= direct;
        landing[Role::Cannon.index()] |= screened;
        landing[Role::Horse.index()] |= horse_checks;
        landing[Role::Pawn.index()] |= PAWN_REACH[us.index()][king];
        CheckFilter {
            king,
            king_rank: kr as u8,
            king_file: kf as u8,
            discovers,
            landing,
            from_any: halves(discovers | RANK_BB[kr] | FILE_BB[kf]),
            landing_any: halves(
                screen | direct | screened | horse_checks | PAWN_REACH[us.index()][king],
            ),
        }
    }

    /// Whether pseudo-legal move `m` checks the opponent's king: directly,
    /// by uncovering a rook or cannon, or by becoming a cannon's screen.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_filtered(&self.check_filter(), m)
    }

    /// [`Position::gives_check`] with this position's [`CheckFilter`].
    ///
    /// The enemy king is not in check now. A move that does not run along
    /// one of its lines changes at most one line by leaving `from` (or
    /// frees a horse's leg) and at most the other by landing on `to`: each
    /// can be judged on the board as it stands.
    #[inline]
    pub fn gives_check_filtered(&self, filter: &CheckFilter, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        let king = filter.king;
        let (kr, kf) = (filter.king_rank, filter.king_file);
        let along_rank = RANK_OF[from] == kr && RANK_OF[to] == kr;
        if along_rank || (FILE_OF[from] == kf && FILE_OF[to] == kf) {
            return self.line_move_checks(king, from, to, along_rank);
        }
        let role = role_of(self.board.squares[from]);
        (filter.discovers & BIT[from]) | (filter.landing[role.index()] & BIT[to]) != 0
    }

    /// [`Position::gives_check_filtered`] for a move from `from` to `to`
    /// along the enemy king's rank (`along_rank`) or file. Such a move
    /// changes only that line: horse legs are diagonal to the king, and the
    /// other line is untouched. So it checks as a pawn stepping next to the
    /// king, or by the line recomputed with `from` empty and `to` taken.
    fn line_move_checks(&self, king: usize, from: usize, to: usize, along_rank: bool) -> bool {
        let us = self.turn;
        let sq = &self.board.squares;
        let moving = sq[from];
        let [k, _, _, _, rook, cannon, pawn] = codes(us);
        if moving == pawn && PAWN_REACH[us.index()][king] & BIT[to] != 0 {
            return true;
        }
        // `from` is off the line's occupancy, so never read.
        let code_at = |s: usize| if s == to { moving } else { sq[s] };
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        if along_rank {
            let occ = self.board.ranks[kr] & !(1 << FILE_OF[from]) | 1 << FILE_OF[to];
            let line = &RANK_SLIDES[kf][occ as usize];
            // The kings never share a rank.
            bits16(line.rook).any(|x| code_at(kr * 9 + x) == rook)
                || bits16(line.cannon).any(|x| code_at(kr * 9 + x) == cannon)
        } else {
            let occ = self.board.files[kf] & !(1 << RANK_OF[from]) | 1 << RANK_OF[to];
            let line = &FILE_SLIDES[kr][occ as usize];
            // The own king counts as a rook on the file.
            bits16(line.rook).any(|x| matches!(code_at(x * 9 + kf), c if c == rook || c == k))
                || bits16(line.cannon).any(|x| code_at(x * 9 + kf) == cannon)
        }
    }
}

/// What landing on, or leaving, the points of one line of a king does (see
/// [`CheckFilter`]), for the side with `cannon` and the rook-like pieces:
/// the points with nothing between them and the king, those with one piece
/// between, those that would screen a cannon, and those whose vacating
/// uncovers a rook or cannon. `slides` are the line's slide tables from the
/// king's point, `code_at` reads the line.
#[inline]
fn line_checks(
    slides: &[Slide],
    occ: u16,
    point: usize,
    cannon: Code,
    rook_like: impl Fn(Code) -> bool,
    code_at: impl Fn(usize) -> Code,
) -> [u16; 4] {
    let s = &slides[occ as usize];
    // The second pieces each way once the first are gone: the third.
    let third = slides[(occ & !s.rook) as usize].cannon;
    let (mut screen, mut discovers) = (0, 0);
    let below = (1u16 << point) - 1;
    for side in [below, !below] {
        let first = s.rook & side;
        if first == 0 {
            continue;
        }
        let (second, beyond) = (s.cannon & side, third & side);
        let at = |points: u16| code_at(points.trailing_zeros() as usize);
        if at(first) == cannon {
            screen |= s.quiet & side;
        }
        if second != 0 && rook_like(at(second)) {
            discovers |= first;
        }
        if beyond != 0 && at(beyond) == cannon {
            discovers |= first | second;
        }
    }
    [s.quiet | s.rook, s.over, screen, discovers]
}
