//! Static exchange evaluation: the material balance of a capture sequence on
//! one square, each side recapturing with its least valuable piece.

use crate::board::{codes, role_of, Board, Code};
use crate::moves::Move;
use crate::position::Position;
use crate::tables::{
    file_points, horse_leg, rank_points, ADVISOR_REACH, ADVISOR_STEPS, BIT, ELEPHANT_REACH,
    ELEPHANT_STEPS, FILE_OF, FILE_SLIDES, HORSE_ATTACKERS, HORSE_REACH, KING_REACH, LINES,
    PAWN_REACH, RANK_OF, RANK_SLIDES, STEP_REACH,
};
use crate::types::{Color, Role};

/// The board during an exchange on one square: pieces that have moved to the
/// square are marked gone from their own, and the square's rank and file
/// occupancy follow, so the slide tables reveal the attackers behind them.
struct Exchange<'a> {
    board: &'a Board,
    target: usize,
    gone: u128,
    rank_occ: u16,
    file_occ: u16,
}

impl<'a> Exchange<'a> {
    /// The exchange on `to` once the piece on `from` has moved there.
    #[inline]
    fn new(board: &'a Board, from: usize, to: usize) -> Self {
        let (r, f) = (RANK_OF[to] as usize, FILE_OF[to] as usize);
        let mut x = Exchange {
            board,
            target: to,
            gone: 0,
            rank_occ: board.ranks[r] | 1 << f,
            file_occ: board.files[f] | 1 << r,
        };
        x.remove(from);
        x
    }

    #[inline]
    fn at(&self, s: usize) -> Code {
        if (self.gone >> s) & 1 != 0 {
            0
        } else {
            self.board.squares[s]
        }
    }

    fn remove(&mut self, s: usize) {
        self.gone |= BIT[s];
        if RANK_OF[s] == RANK_OF[self.target] {
            self.rank_occ &= !(1 << FILE_OF[s]);
        }
        if FILE_OF[s] == FILE_OF[self.target] {
            self.file_occ &= !(1 << RANK_OF[s]);
        }
    }

    /// The least valuable piece of `by` that attacks the target, with its
    /// square. Pins are ignored.
    fn least_valuable_attacker(&self, by: Color) -> Option<(usize, Role)> {
        let t = self.target;
        let [king, advisor, elephant, horse, rook, cannon, pawn] = codes(by);
        // Pieces of each kind still in play: a kind none of which can reach
        // the target is not looked at further.
        let alive = |c: Code| self.board.by_piece[c as usize - 1] & !self.gone;
        // The pieces but rooks and cannons close enough to look at.
        let near = self.board.by_color[by.index()] & !self.gone & STEP_REACH[by.index()][t];
        let of = |c: Code, reach: u128| self.board.by_piece[c as usize - 1] & near & reach;
        if near != 0 {
            // Pawns have no blocks, and their attackers are listed in
            // square order: the lowest one comes first.
            let pawns = of(pawn, PAWN_REACH[by.index()][t]);
            if pawns != 0 {
                return Some((lowest(pawns), Role::Pawn));
            }
            let advisors = of(advisor, ADVISOR_REACH[t]);
            if advisors != 0 {
                let s = self.first_of(advisors, ADVISOR_STEPS[t].as_slice());
                return Some((s, Role::Advisor));
            }
            let elephants = of(elephant, ELEPHANT_REACH[t]);
            let eye = |s: usize| (s + t) / 2;
            if let Some(s) = self.first_unblocked(elephants, ELEPHANT_STEPS[t].as_slice(), eye) {
                return Some((s, Role::Elephant));
            }
            let horses = of(horse, HORSE_REACH[t]);
            let leg = |s: usize| horse_leg(s, t);
            if let Some(s) = self.first_unblocked(horses, HORSE_ATTACKERS[t].as_slice(), leg) {
                return Some((s, Role::Horse));
            }
        }
        let lines = LINES[t];
        let (cannons, rooks) = (alive(cannon) & lines, alive(rook) & lines);
        if cannons | rooks != 0 {
            let (r, f) = (RANK_OF[t] as usize, FILE_OF[t] as usize);
            let rank = &RANK_SLIDES[f][self.rank_occ as usize];
            let file = &FILE_SLIDES[r][self.file_occ as usize];
            // The first of `pieces` on the rank's points, else on the file's
            // (each in square order).
            let on_lines = |rank_bits: u16, file_bits: u16, pieces: u128| {
                let hits = pieces & rank_points(rank_bits, r);
                if hits != 0 {
                    return Some(hits.trailing_zeros() as usize);
                }
                let hits = pieces & file_points(file_bits, f);
                (hits != 0).then(|| hits.trailing_zeros() as usize)
            };
            if cannons != 0 {
                if let Some(s) = on_lines(rank.cannon, file.cannon, cannons) {
                    return Some((s, Role::Cannon));
                }
            }
            if rooks != 0 {
                if let Some(s) = on_lines(rank.rook, file.rook, rooks) {
                    return Some((s, Role::Rook));
                }
            }
        }
        let kings = of(king, KING_REACH[t]);
        (kings != 0).then(|| (lowest(kings), Role::King))
    }

    /// The first square of `steps` in `pieces`, which is not empty.
    #[inline]
    fn first_of(&self, pieces: u128, steps: &[u8]) -> usize {
        if pieces & (pieces - 1) == 0 {
            return lowest(pieces);
        }
        let s = steps.iter().find(|&&s| pieces & BIT[s as usize] != 0);
        *s.expect("a listed attacker") as usize
    }

    /// The first attacker of `steps` (attacker and block square) in
    /// `pieces` whose block square is empty. A lone piece finds its block
    /// square with `block` rather than by walking the list.
    #[inline]
    fn first_unblocked(
        &self,
        pieces: u128,
        steps: &[(u8, u8)],
        block: impl Fn(usize) -> usize,
    ) -> Option<usize> {
        if pieces == 0 {
            return None;
        }
        if pieces & (pieces - 1) == 0 {
            let s = lowest(pieces);
            return (self.at(block(s)) == 0).then_some(s);
        }
        let steps = steps.iter();
        let mut open =
            steps.filter(|&&(s, b)| pieces & BIT[s as usize] != 0 && self.at(b as usize) == 0);
        open.next().map(|&(s, _)| s as usize)
    }
}

/// The lowest square of a non-empty bitboard.
#[inline]
fn lowest(b: u128) -> usize {
    b.trailing_zeros() as usize
}

impl Position {
    /// The expected material gain of move `m` (a capture or not) when both
    /// sides keep recapturing on its target square with their least valuable
    /// piece and may stop whenever that suits them. `values` gives each role's
    /// worth by [`Role::index`]; the king should be worth more than the rest
    /// put together.
    pub fn see(&self, m: Move, values: &[i32; 7]) -> i32 {
        let board = self.board();
        let (from, to) = (m.from().index(), m.to().index());
        let value_of = |c: Code| {
            if c == 0 {
                0
            } else {
                values[role_of(c).index()]
            }
        };
        let mut x = Exchange::new(board, from, to);
        let captured = value_of(board.squares[to]);
        let mut side = !self.turn();
        // Most moves meet no recapture: they win just what they take.
        let Some(mut attacker) = x.least_valuable_attacker(side) else {
            return captured;
        };
        let mut gain = [0i32; 40];
        gain[0] = captured;
        // The value of the piece standing on the target, which the next capture wins.
        let mut on_target = value_of(board.squares[from]);
        let mut d = 0;
        loop {
            let (s, role) = attacker;
            if d + 1 >= gain.len() {
                break;
            }
            d += 1;
            gain[d] = on_target - gain[d - 1];
            x.remove(s);
            on_target = values[role.index()];
            if role == Role::King && x.least_valuable_attacker(!side).is_some() {
                // The king may not recapture into an attacked square.
                d -= 1;
                break;
            }
            side = !side;
            match x.least_valuable_attacker(side) {
                Some(next) => attacker = next,
                None => break,
            }
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        gain[0]
    }
}

impl Position {
    /// Whether [`Position::see`] of `m` is at least `threshold`, found with
    /// the same exchange but stopping as soon as the answer is settled.
    ///
    /// With `t` the value of the piece on the target before a capture and
    /// `f` the best the side making it can reach from there (standing pat
    /// after it when that suits), `f >= theta` holds exactly when
    /// `t >= theta` and the next capture is either impossible or does not
    /// reach `f' >= t - theta + 1` for the other side.
    pub fn see_ge(&self, m: Move, values: &[i32; 7], threshold: i32) -> bool {
        let board = self.board();
        let (from, to) = (m.from().index(), m.to().index());
        let captured = match board.squares[to] {
            0 => 0,
            c => values[role_of(c).index()],
        };
        if captured < threshold {
            return false;
        }
        // The question at each step: does the side making the capture on
        // the target reach `theta`, with `t` on the target? `negate` turns
        // its answer into the one for the move itself.
        let mut theta = captured - threshold + 1;
        let mut t = values[role_of(board.squares[from]).index()];
        if t < theta {
            return true;
        }
        let mut x = Exchange::new(board, from, to);
        let mut side = !self.turn();
        // `true` while the answer for the move is the negated answer to
        // the question for `side`'s capture.
        let mut negate = true;
        loop {
            // `side` may capture the piece worth `t` (which reaches `theta`
            // when standing pat afterwards): the answer hangs on whether it can.
            let Some((s, role)) = x.least_valuable_attacker(side) else {
                return negate;
            };
            x.remove(s);
            if role == Role::King && x.least_valuable_attacker(!side).is_some() {
                // The king may not recapture into an attacked square.
                return negate;
            }
            // It can: whether its capture reaches `theta` is the question
            // for the other side's reply, negated.
            theta = t - theta + 1;
            t = values[role.index()];
            negate = !negate;
            if t < theta {
                return negate;
            }
            side = !side;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: [i32; 7] = [10_000, 200, 200, 400, 900, 450, 100];
    /// The engine's values.
    const ENGINE_VALUES: [i32; 7] = [20_000, 120, 120, 400, 900, 450, 100];

    fn see(fen: &str, mv: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        pos.see(pos.parse_move(mv).unwrap(), &VALUES)
    }

    #[test]
    fn undefended_capture_wins_the_piece() {
        // Red rook takes an undefended black horse.
        assert_eq!(see("3k5/9/9/9/4n4/9/9/9/4R4/4K4 w", "e1e5"), 400);
    }

    #[test]
    fn defended_capture_loses_the_attacker() {
        // Rook takes a pawn defended by a horse: +100 - 900.
        assert_eq!(see("3k5/9/6n2/4p4/9/9/9/9/4R4/4K4 w", "e1e6"), -800);
    }

    #[test]
    fn cannon_recaptures_over_a_screen() {
        // The black cannon on e9 sees e6 over the advisor on e8.
        assert_eq!(see("3kc4/4a4/9/4p4/9/9/9/9/4R4/4K4 w", "e1e6"), -800);
        // Without the screen the cannon cannot recapture.
        assert_eq!(see("4ck3/9/9/4p4/9/9/9/9/4R4/3K5 w", "e1e6"), 100);
    }

    #[test]
    fn quiet_move_to_an_attacked_square_loses_the_piece() {
        // Red rook steps next to a black pawn across the river: the pawn takes it.
        assert_eq!(see("5k3/9/9/9/9/4p4/9/9/3R5/4K4 w", "d1d4"), -900);
    }

    /// The least valuable attacker found independently of the exchange's
    /// tables: the board with the exchanged pieces taken off and the target
    /// occupied, each piece's attack set from [`crate::attacks`]. Among equal
    /// attackers, rooks and cannons on the target's rank come before those
    /// on its file, and otherwise the lowest square comes first.
    fn reference_attacker(x: &Exchange, by: Color) -> Option<(usize, Role)> {
        use crate::attacks::{advisor_attacks, king_attacks, pawn_attacks};
        use crate::types::{Piece, Square};
        let sq = |s: usize| Square::from_index(s).expect("on the board");
        let mut board = x.board.clone();
        for s in crate::board::bits(x.gone) {
            board.set(sq(s), None);
        }
        let t = x.target;
        if board.piece_at(sq(t)).is_none() {
            board.set(sq(t), Some(Piece::new(!by, Role::Pawn)));
        }
        let order = [
            Role::Pawn,
            Role::Advisor,
            Role::Elephant,
            Role::Horse,
            Role::Cannon,
            Role::Rook,
            Role::King,
        ];
        for role in order {
            let attacks = |s: Square| match role {
                Role::Pawn => pawn_attacks(by, s),
                Role::Advisor => advisor_attacks(s),
                Role::Elephant => board.elephant_attacks(s),
                Role::Horse => board.horse_attacks(s),
                Role::Cannon => board.cannon_attacks(s),
                Role::Rook => board.rook_attacks(s),
                Role::King => king_attacks(s),
            };
            let attackers = board
                .squares_of(Piece::new(by, role))
                .filter(|&s| attacks(s) & BIT[t] != 0)
                .map(|s| s.index());
            let off_rank = |s: &usize| RANK_OF[*s] != RANK_OF[t];
            if let Some(s) = attackers.min_by_key(|s| (off_rank(s), *s)) {
                return Some((s, role));
            }
        }
        None
    }

    /// The exchange step by step with [`reference_attacker`]: the fast one
    /// must agree with it exactly, ties between equal attackers included.
    fn reference_see(pos: &Position, m: Move, values: &[i32; 7]) -> i32 {
        let board = pos.board();
        let (from, to) = (m.from().index(), m.to().index());
        let value_of = |c: Code| {
            if c == 0 {
                0
            } else {
                values[(c as usize - 1) % 7]
            }
        };
        let mut x = Exchange::new(board, from, to);
        let mut gain = [0i32; 40];
        gain[0] = value_of(board.squares[to]);
        let mut on_target = value_of(board.squares[from]);
        let mut side = !pos.turn();
        let mut d = 0;
        while let Some((s, role)) = reference_attacker(&x, side) {
            if d + 1 >= gain.len() {
                break;
            }
            d += 1;
            gain[d] = on_target - gain[d - 1];
            x.remove(s);
            on_target = values[role.index()];
            if role == Role::King && reference_attacker(&x, !side).is_some() {
                d -= 1;
                break;
            }
            side = !side;
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        gain[0]
    }

    #[test]
    fn see_agrees_with_a_reference_exchange_on_random_games() {
        let mut moves_checked = 0;
        for pos in crate::position::tests::random_positions(200, 150) {
            let mut pseudo = crate::MoveList::new();
            pos.pseudo_legal_moves(&mut pseudo);
            for &m in pseudo.iter() {
                for values in [&VALUES, &ENGINE_VALUES] {
                    let exact = reference_see(&pos, m, values);
                    assert_eq!(pos.see(m, values), exact, "see({m}) in {}", pos.fen());
                    for threshold in [-901, -450, -120, -1, 0, 1, 100, 281, 400, 900] {
                        assert_eq!(
                            pos.see_ge(m, values, threshold),
                            exact >= threshold,
                            "see_ge({m}, {threshold}) in {}",
                            pos.fen()
                        );
                    }
                }
                moves_checked += 1;
            }
        }
        assert!(moves_checked > 500_000, "{moves_checked}");
    }
}
