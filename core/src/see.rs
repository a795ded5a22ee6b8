//! Static exchange evaluation: the material balance of a capture sequence on
//! one square, each side recapturing with its least valuable piece.

use crate::board::{code, Code};
use crate::moves::Move;
use crate::position::Position;
use crate::tables::{
    ADVISOR_STEPS, ELEPHANT_STEPS, HORSE_ATTACKERS, KING_STEPS, PAWN_ATTACKERS, RAYS,
};
use crate::types::{Color, Piece, Role, NUM_SQUARES};

/// The least valuable piece of `by` that attacks `target`, with its square.
/// Pins are ignored; blockers (horse legs, elephant eyes, cannon screens) are
/// read from `sq`, so removing pieces reveals the attackers behind them.
fn least_valuable_attacker(
    sq: &[Code; NUM_SQUARES],
    target: usize,
    by: Color,
) -> Option<(usize, Role)> {
    let is = |s: usize, role: Role| sq[s] == code(Piece::new(by, role));
    if let Some(&s) = PAWN_ATTACKERS[by.index()][target]
        .as_slice()
        .iter()
        .find(|&&s| is(s as usize, Role::Pawn))
    {
        return Some((s as usize, Role::Pawn));
    }
    if let Some(&s) = ADVISOR_STEPS[target]
        .as_slice()
        .iter()
        .find(|&&s| is(s as usize, Role::Advisor))
    {
        return Some((s as usize, Role::Advisor));
    }
    for &(s, eye) in ELEPHANT_STEPS[target].as_slice() {
        if is(s as usize, Role::Elephant) && sq[eye as usize] == 0 {
            return Some((s as usize, Role::Elephant));
        }
    }
    for &(s, leg) in HORSE_ATTACKERS[target].as_slice() {
        if is(s as usize, Role::Horse) && sq[leg as usize] == 0 {
            return Some((s as usize, Role::Horse));
        }
    }
    let mut rook = None;
    for ray in &RAYS[target] {
        let mut screens = 0;
        for &s in ray.as_slice() {
            let s = s as usize;
            if sq[s] == 0 {
                continue;
            }
            if screens == 0 && is(s, Role::Rook) {
                rook = rook.or(Some(s));
            }
            if screens == 1 {
                if is(s, Role::Cannon) {
                    return Some((s, Role::Cannon));
                }
                break;
            }
            screens += 1;
        }
    }
    if let Some(s) = rook {
        return Some((s, Role::Rook));
    }
    KING_STEPS[target]
        .as_slice()
        .iter()
        .find(|&&s| is(s as usize, Role::King))
        .map(|&s| (s as usize, Role::King))
}

impl Position {
    /// The expected material gain of move `m` (a capture or not) when both
    /// sides keep recapturing on its target square with their least valuable
    /// piece and may stop whenever that suits them. `values` gives each role's
    /// worth by [`Role::index`]; the king should be worth more than the rest
    /// put together.
    pub fn see(&self, m: Move, values: &[i32; 7]) -> i32 {
        let mut sq = self.board.squares;
        let (from, to) = (m.from().index(), m.to().index());
        let value_at = |c: Code| {
            if c == 0 {
                0
            } else {
                values[(c as usize - 1) % 7]
            }
        };
        let mut gain = [0i32; 40];
        gain[0] = value_at(sq[to]);
        sq[to] = sq[from];
        sq[from] = 0;
        let mut side = !self.turn();
        let mut d = 0;
        while let Some((s, role)) = least_valuable_attacker(&sq, to, side) {
            if d + 1 >= gain.len() {
                break;
            }
            d += 1;
            gain[d] = value_at(sq[to]) - gain[d - 1];
            // Neither side can do better than stopping now: prune.
            if (-gain[d - 1]).max(gain[d]) < 0 {
                break;
            }
            sq[to] = sq[s];
            sq[s] = 0;
            if role == Role::King && least_valuable_attacker(&sq, to, !side).is_some() {
                // The king may not recapture into an attacked square.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: [i32; 7] = [10_000, 200, 200, 400, 900, 450, 100];

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
}
