//! Perpetual chase: grading each side's moves over a repetition cycle by
//! the Asian (AXF) rules, as docs/rules.md states them.
//!
//! Every move of the cycle is a **check**, a **chase** of one or more enemy
//! pieces, or **idle**. A move chases piece X when, after it, a piece of
//! the mover makes a *forbidden attack* on X that the same piece did not
//! make before it (`forbidden_attack`). Pieces are followed by identity
//! through the cycle (no capture happens inside one), so a chase of "the
//! same piece" means the same piece wherever it stands, by whichever
//! attacker. A side's [`Level`] for the cycle: every move a check; every
//! move chasing one and the same rook that cannot move because it blocks
//! a horse's leg toward its own king; every move chasing one and the same
//! piece; anything else. The higher level loses; equal levels draw.
//!
//! This is computed only once a repetition is found, from the boards of
//! the cycle rebuilt backwards from the current one.

use crate::attacks::{advisor_attacks_at, pawn_attacks_at, square_attacked, Bitboard};
use crate::board::{code_color, codes, role_of, Board, Code};
use crate::moves::Move;
use crate::tables::{BIT, HORSE_ATTACKERS, KING_REACH};
use crate::types::{Color, Role};

/// How one side played a repetition cycle, lowest first: the higher level
/// loses, equal levels draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Not every move checks or chases one piece (alternating check and
    /// chase, chase and idle moves, or two victims in turn are allowed).
    Idle,
    /// Every move chases one and the same enemy piece.
    Chase,
    /// Every move chases one and the same rook, which stands pinned: it
    /// blocks the leg of one of the chaser's horses toward its own king.
    PinnedRookChase,
    /// Every move checks.
    Check,
}

/// No piece on the square (in an identity array).
const NOBODY: u8 = u8::MAX;

/// The squares the piece on `from` could capture on by its moves, the
/// safety of its own king aside.
fn capture_reach(board: &Board, from: usize) -> Bitboard {
    let code = board.squares[from];
    match role_of(code) {
        Role::Rook => board.rook_attacks_at(from),
        Role::Cannon => board.cannon_attacks_at(from).0,
        Role::Horse => board.horse_attacks_at(from),
        Role::Elephant => board.elephant_attacks_at(from),
        Role::Advisor => advisor_attacks_at(from),
        Role::King => KING_REACH[from],
        Role::Pawn => pawn_attacks_at(code_color(code), from),
    }
}

/// Where `color`'s king stands.
fn king_square(board: &Board, color: Color) -> usize {
    board.by_piece[codes(color)[0] as usize - 1].trailing_zeros() as usize
}

/// The board after the piece on `from` takes the piece on `to`.
fn after_capture(board: &Board, from: usize, to: usize) -> Board {
    let (mover, victim) = (board.squares[from], board.squares[to]);
    let mut after = board.clone();
    after.toggle(to, victim);
    after.shift(from, to, mover);
    after
}

/// Whether the piece on `from` may legally take the enemy piece on `to`
/// (as if its side were to move): in reach by its moves, and its own king
/// not attacked nor facing the other king afterwards, so a pinned piece
/// may take only its pinner.
fn can_take(board: &Board, from: usize, to: usize) -> bool {
    let (mover, victim) = (board.squares[from], board.squares[to]);
    if mover == 0 || victim == 0 || code_color(mover) == code_color(victim) {
        return false;
    }
    if capture_reach(board, from) & BIT[to] == 0 {
        return false;
    }
    let color = code_color(mover);
    let after = after_capture(board, from, to);
    !square_attacked(&after, king_square(&after, color), !color)
}

/// Whether, once the piece on `from` has taken the piece on `to`, the
/// taken piece's side can legally take back on `to` (its king included).
fn recapture(board: &Board, from: usize, to: usize) -> bool {
    let defender = !code_color(board.squares[from]);
    let after = after_capture(board, from, to);
    crate::board::bits(after.by_color[defender.index()]).any(|q| can_take(&after, q, to))
}

/// Whether a pawn of `color` on `sq` has crossed the river.
fn crossed(color: Color, sq: usize) -> bool {
    match color {
        Color::Red => sq >= 45,
        Color::Black => sq < 45,
    }
}

/// Whether the piece on `p` makes a forbidden attack on the piece on `x`:
/// neither is a king, `p` is no pawn and `x` no pawn still on its own side;
/// `p` can legally take `x`; and `x` is a rook attacked by a horse or
/// cannon, or is unprotected (no legal recapture once taken). Two pieces
/// of one kind attacking each other offer an exchange, not a chase, unless
/// `x` cannot take back.
pub(crate) fn forbidden_attack(board: &Board, p: usize, x: usize) -> bool {
    let (pc, xc): (Code, Code) = (board.squares[p], board.squares[x]);
    let (pr, xr) = (role_of(pc), role_of(xc));
    if matches!(pr, Role::King | Role::Pawn) || xr == Role::King {
        return false;
    }
    if xr == Role::Pawn && !crossed(code_color(xc), x) {
        return false;
    }
    if !can_take(board, p, x) {
        return false;
    }
    if pr == xr && can_take(board, x, p) {
        return false;
    }
    (xr == Role::Rook && matches!(pr, Role::Horse | Role::Cannon)) || !recapture(board, p, x)
}

/// An attack of one piece on another: the attacker's and the victim's
/// identities, and their squares.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Attack {
    attacker: u8,
    victim: u8,
    from: usize,
    on: usize,
}

/// `side`'s attacks that `keep` accepts (`keep(board, p, x)` for a piece
/// on `p` in reach of an enemy on `x`).
fn attacks(
    board: &Board,
    side: Color,
    ids: &[u8; 90],
    keep: fn(&Board, usize, usize) -> bool,
) -> Vec<Attack> {
    let enemies = board.by_color[(!side).index()];
    let mut found = Vec::new();
    for p in crate::board::bits(board.by_color[side.index()]) {
        for x in crate::board::bits(capture_reach(board, p) & enemies) {
            if keep(board, p, x) {
                found.push(Attack {
                    attacker: ids[p],
                    victim: ids[x],
                    from: p,
                    on: x,
                });
            }
        }
    }
    found
}

/// The squares between `a` and `b` on their rank or file (none when they
/// share neither).
fn between(a: usize, b: usize) -> Bitboard {
    let (ar, af, br, bf) = (a / 9, a % 9, b / 9, b % 9);
    let mut bb = 0;
    if ar == br {
        for f in af.min(bf) + 1..af.max(bf) {
            bb |= BIT[ar * 9 + f];
        }
    } else if af == bf {
        for r in ar.min(br) + 1..ar.max(br) {
            bb |= BIT[r * 9 + af];
        }
    }
    bb
}

/// The squares whose occupancy decides whether the piece on `q` reaches
/// `x`: those between them for a rook, cannon or king, a horse's leg, an
/// elephant's eye; none for a step.
fn path(board: &Board, q: usize, x: usize) -> Bitboard {
    match role_of(board.squares[q]) {
        Role::Rook | Role::Cannon | Role::King => between(q, x),
        Role::Horse => HORSE_ATTACKERS[x]
            .as_slice()
            .iter()
            .find(|&&(from, _)| from as usize == q)
            .map_or(0, |&(_, leg)| BIT[leg as usize]),
        Role::Elephant => BIT[(q + x) / 2],
        Role::Advisor | Role::Pawn => 0,
    }
}

/// Whether the piece that just moved to `to` blocks an attack on a piece
/// of its own side and, standing there, also blocks a piece that would
/// take back on `x` once the piece on `p` took it: a protection lost to an
/// escape by interposition, which the rule book's diagram 61 does not
/// count as a chase. (An interposition that blocks no attack on its own
/// side is a chase, as in its appendix example, D105.)
fn escape_blocks_a_recapture(board: &Board, p: usize, x: usize, to: usize) -> bool {
    if to == p || to == x {
        return false;
    }
    let mover = code_color(board.squares[to]);
    let mut without = board.clone();
    without.toggle(to, board.squares[to]);
    let escapes = crate::board::bits(without.by_color[(!mover).index()]).any(|e| {
        crate::board::bits(capture_reach(&without, e) & without.by_color[mover.index()])
            .any(|y| path(&without, e, y) & BIT[to] != 0 && can_take(&without, e, y))
    });
    if !escapes {
        return false;
    }
    let after = after_capture(&without, p, x);
    crate::board::bits(after.by_color[(!mover).index()])
        .any(|q| path(&after, q, x) & BIT[to] != 0 && can_take(&after, q, x))
}

/// Whether the rook on `x` blocks the leg of a horse of the other side
/// that would check the rook's king were the rook gone.
fn pinned_by_horse_leg(board: &Board, x: usize) -> bool {
    let code = board.squares[x];
    if code == 0 || role_of(code) != Role::Rook {
        return false;
    }
    let color = code_color(code);
    let king = king_square(board, color);
    let horse = codes(!color)[3];
    let mut without = board.clone();
    without.toggle(x, code);
    crate::board::bits(board.by_piece[horse as usize - 1]).any(|h| {
        without.horse_attacks_at(h) & BIT[king] != 0 && board.horse_attacks_at(h) & BIT[king] == 0
    })
}

/// One move of a cycle: the boards before and after, and whether it checked.
pub(crate) struct CycleMove {
    pub mv: Move,
    pub check: bool,
}

/// The enemy pieces, by identity, that the move `from`-`to` of the piece
/// on `from` chases (none for a check, which is graded as a check);
/// `board` and `ids` are moved on past it.
fn chase_step(
    board: &mut Board,
    ids: &mut [u8; 90],
    from: usize,
    to: usize,
    check: bool,
) -> Vec<u8> {
    let code = board.squares[from];
    let side = code_color(code);
    let before_ids = *ids;
    board.shift(from, to, code);
    ids[to] = ids[from];
    ids[from] = NOBODY;
    if check {
        return Vec::new();
    }
    // Most moves make no forbidden attack at all: only then is the board
    // before the move looked at.
    let now = attacks(board, side, ids, forbidden_attack);
    if now.is_empty() {
        return Vec::new();
    }
    board.shift(to, from, code);
    let forbidden = attacks(board, side, &before_ids, forbidden_attack);
    let takes = attacks(board, side, &before_ids, can_take);
    board.shift(from, to, code);
    let same = |a: &Attack, b: &Attack| (a.attacker, a.victim) == (b.attacker, b.victim);
    let mut victims: Vec<u8> = now
        .into_iter()
        .filter(|a| !forbidden.iter().any(|b| same(a, b)))
        // An attack that was there, made forbidden only by an escape
        // standing in a protector's way, is no chase.
        .filter(|a| {
            !takes.iter().any(|b| same(a, b)) || !escape_blocks_a_recapture(board, a.from, a.on, to)
        })
        .map(|a| a.victim)
        .collect();
    victims.sort_unstable();
    victims.dedup();
    victims
}

/// The squares of the enemy pieces that `mv`, played on `board`, chases:
/// pieces its side attacks in a forbidden way after it and did not before
/// (by the same attacker). For a move that neither captures nor checks (a
/// check is graded as a check, never as a chase). What the endgame tables
/// need to rule chases one move at a time; the victims do not move, so
/// their squares name them on both boards.
pub fn chased_squares(board: &Board, mv: Move) -> Bitboard {
    let mut ids = [NOBODY; 90];
    for sq in crate::board::bits(board.occupied()) {
        ids[sq] = sq as u8;
    }
    let mut after = board.clone();
    chase_step(
        &mut after,
        &mut ids,
        mv.from().index(),
        mv.to().index(),
        false,
    )
    .into_iter()
    .fold(0, |bb, sq| bb | BIT[sq as usize])
}

/// Grades both sides over a cycle: `start` is the board before the first
/// of `moves`, none of which captures. Returns `[red, black]`.
pub(crate) fn levels(start: &Board, moves: &[CycleMove]) -> [Level; 2] {
    let mut ids = [NOBODY; 90];
    for sq in crate::board::bits(start.occupied()) {
        ids[sq] = sq as u8;
    }
    let mut board = start.clone();
    // Per side: whether every move so far checked, and the victims every
    // move so far chased (None before the side's first move).
    let mut all_checks = [true; 2];
    let mut common: [Option<Vec<u8>>; 2] = [None, None];
    let mut chased_rook_pinned = [true; 2];
    for step in moves {
        let (from, to) = (step.mv.from().index(), step.mv.to().index());
        let s = code_color(board.squares[from]).index();
        all_checks[s] &= step.check;
        let victims = chase_step(&mut board, &mut ids, from, to, step.check);
        let kept = match common[s].take() {
            None => victims,
            Some(prev) => prev.into_iter().filter(|v| victims.contains(v)).collect(),
        };
        // The pinned-rook level needs every chased move to leave a chased
        // rook pinned by a horse's leg.
        let pinned = kept.iter().any(|&id| {
            ids.iter()
                .position(|&i| i == id)
                .is_some_and(|sq| pinned_by_horse_leg(&board, sq))
        });
        chased_rook_pinned[s] &= pinned;
        common[s] = Some(kept);
    }
    [Color::Red, Color::Black].map(|side| {
        let s = side.index();
        let chases = common[s].as_ref().is_some_and(|v| !v.is_empty());
        if all_checks[s] && common[s].is_some() {
            Level::Check
        } else if chases && chased_rook_pinned[s] {
            Level::PinnedRookChase
        } else if chases {
            Level::Chase
        } else {
            Level::Idle
        }
    })
}
