//! Moves on placements: the solver's own move generator.
//!
//! The solver looks at every position of a table and each of its moves,
//! hundreds of millions of times. Building an `xqcore::Position` for each
//! (board arrays, a hash key, a history) and ranking every child from its
//! board again cost more than the solving itself. Here a position is the
//! placement the index decodes to plus two occupancy masks; moves are
//! generated per slot, judged legal by looking at the few enemy pieces
//! that can attack a king, and a quiet move's child index is the parent's
//! with one digit changed ([`Indexer::moved_index`]). Only captures, which
//! leave the table, get a board (for the smaller table's lookup).
//!
//! The rules are xqcore's; the tests compare both generators move by move.

use std::sync::OnceLock;

use xqcore::{Board, Color, Piece, Role, Square, NUM_SQUARES};

use xqegtb::{color_of_side, mirror_square, Indexer, Placement, MAX_PIECES};

/// Marks a square that is none.
const NONE: u8 = u8::MAX;

/// Bit 127 of a [`between`] mask: the two squares share no rank or file.
const UNALIGNED: u128 = 1 << 127;

/// Squares strictly between each pair of squares on one rank or file,
/// and whether a horse on the first square attacks the second (its leg).
struct Lines {
    between: Vec<u128>,
    horse_leg: Vec<u8>,
    /// By a king's square: the squares whose emptying or filling can
    /// change whether it is attacked (its rank and file, where rooks,
    /// cannons and the other king act, and the legs of horses next to
    /// it diagonally).
    exposed: Vec<u128>,
}

fn lines() -> &'static Lines {
    static LINES: OnceLock<Lines> = OnceLock::new();
    LINES.get_or_init(|| {
        let n = NUM_SQUARES;
        let mut between = vec![UNALIGNED; n * n];
        let mut horse_leg = vec![NONE; n * n];
        for a in 0..n {
            let (ra, fa) = ((a / 9) as i32, (a % 9) as i32);
            for b in 0..n {
                let (rb, fb) = ((b / 9) as i32, (b % 9) as i32);
                if a != b && (ra == rb || fa == fb) {
                    let (dr, df) = ((rb - ra).signum(), (fb - fa).signum());
                    let mut mask = 0u128;
                    let (mut r, mut f) = (ra + dr, fa + df);
                    while (r, f) != (rb, fb) {
                        mask |= 1 << (r * 9 + f);
                        r += dr;
                        f += df;
                    }
                    between[a * n + b] = mask;
                }
                let (dr, df) = (rb - ra, fb - fa);
                let leg = match (dr.abs(), df.abs()) {
                    (2, 1) => Some((ra + dr / 2, fa)),
                    (1, 2) => Some((ra, fa + df / 2)),
                    _ => None,
                };
                if let Some((r, f)) = leg {
                    horse_leg[a * n + b] = (r * 9 + f) as u8;
                }
            }
        }
        let exposed = (0..n as u8)
            .map(|k| {
                let mut mask = 0u128;
                for s in 0..n as u8 {
                    if s / 9 == k / 9 || s % 9 == k % 9 {
                        mask |= 1 << s;
                    }
                }
                for (dr, df) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(s) = step(k, dr, df) {
                        mask |= 1 << s;
                    }
                }
                mask
            })
            .collect();
        Lines {
            between,
            horse_leg,
            exposed,
        }
    })
}

/// A horse's moves as (ranks, files).
pub(super) const HORSE_STEPS: [(i32, i32); 8] = [
    (1, 2),
    (1, -2),
    (-1, 2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

/// A square `dr` ranks and `df` files from `s`, if on the board.
pub(super) fn step(s: u8, dr: i32, df: i32) -> Option<u8> {
    let (r, f) = ((s / 9) as i32 + dr, (s % 9) as i32 + df);
    ((0..10).contains(&r) && (0..9).contains(&f)).then(|| (r * 9 + f) as u8)
}

/// Whether square `s` is in the palace of table side `side` (0: bottom).
pub(super) fn in_palace(s: u8, side: usize) -> bool {
    let (rank, file) = (s / 9, s % 9);
    let ranks = if side == 0 { 0..=2 } else { 7..=9 };
    (3..=5).contains(&file) && ranks.contains(&rank)
}

/// Whether square `s` is on table side `side`'s half of the board.
pub(super) fn on_own_half(s: u8, side: usize) -> bool {
    (s / 9 <= 4) == (side == 0)
}

/// What the walker knows of a table's slots.
pub(super) struct Walker<'a> {
    indexer: &'a Indexer,
    roles: Vec<Role>,
    sides: Vec<usize>,
    /// By side: the slot of its king.
    kings: [usize; 2],
    /// By side: the slots of its pieces that can attack a king (rooks,
    /// horses, cannons, pawns, and the king, by facing).
    attackers: [Vec<usize>; 2],
    /// By side: its slots.
    own: [Vec<usize>; 2],
    /// By slot: its kind of piece (side and role), numbered from 0.
    kinds: Vec<usize>,
    lines: &'static Lines,
}

/// A position of the table: the placement of an index as it stands (not
/// mirror folded), with its raw index.
#[derive(Clone)]
pub(super) struct Node {
    raw: u64,
    squares: [u8; MAX_PIECES],
    /// By side: the squares its pieces stand on.
    occupied: [u128; 2],
    /// When group 0 is its own mirror image: the mirror image's raw
    /// index and placement (worked out once, for the first child).
    mirror: std::cell::OnceCell<Option<(u64, [u8; MAX_PIECES])>>,
    /// By side: whether its king is attacked.
    attacked: [bool; 2],
}

impl Node {
    /// Where the piece of `slot` stands after `step`.
    pub(super) fn square_after(&self, slot: usize, step: Step) -> u8 {
        if slot == step.slot {
            step.to
        } else {
            self.squares[slot]
        }
    }
}

/// The placement of the last index a sweep looked at
/// ([`Walker::node_at`]).
#[derive(Default)]
pub(super) struct Cursor {
    placement: Placement,
    holds: Option<u64>,
}

/// A legal move from a [`Node`]: the piece of `slot` to `to`, capturing
/// the piece of slot `captured` (or none).
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub slot: usize,
    pub to: u8,
    pub captured: Option<usize>,
}

impl<'a> Walker<'a> {
    pub(super) fn new(indexer: &'a Indexer) -> Walker<'a> {
        let slots = indexer.slots();
        let roles: Vec<Role> = slots.iter().map(|s| s.role).collect();
        let sides: Vec<usize> = slots.iter().map(|s| s.side).collect();
        let of_side = |side: usize, attacking: bool| -> Vec<usize> {
            (0..slots.len())
                .filter(|&i| {
                    sides[i] == side
                        && (!attacking || !matches!(roles[i], Role::Advisor | Role::Elephant))
                })
                .collect()
        };
        let king = |side| {
            (0..slots.len())
                .find(|&i| sides[i] == side && roles[i] == Role::King)
                .expect("a king a side")
        };
        Walker {
            indexer,
            kings: [king(0), king(1)],
            attackers: [of_side(0, true), of_side(1, true)],
            own: [of_side(0, false), of_side(1, false)],
            kinds: slots.iter().map(|s| s.side * 7 + s.role.index()).collect(),
            roles,
            sides,
            lines: lines(),
        }
    }

    /// The node of `index`, or `None` when the index names no position
    /// (two pieces on one square, the larger of a mirror pair).
    pub(super) fn node(&self, index: u64, placement: &mut Placement) -> Option<Node> {
        self.indexer.placement(index, placement);
        self.checked_node(index, placement)
    }

    /// [`Walker::node`] for indexes taken in order: the cursor's placement
    /// is stepped, not decoded again, from one index to the next.
    pub(super) fn node_at(&self, index: u64, cursor: &mut Cursor) -> Option<Node> {
        match cursor.holds {
            Some(held) if held + 1 == index => {
                self.indexer.step_placement(index, &mut cursor.placement)
            }
            _ => self.indexer.placement(index, &mut cursor.placement),
        }
        cursor.holds = Some(index);
        self.checked_node(index, &cursor.placement)
    }

    fn checked_node(&self, index: u64, placement: &[u8]) -> Option<Node> {
        if !self.indexer.is_canonical(index, placement) {
            return None;
        }
        Some(self.node_of(index, placement))
    }

    /// The node of a placement whose raw index is `raw`.
    fn node_of(&self, raw: u64, placement: &[u8]) -> Node {
        let mut node = Node {
            raw,
            squares: [NONE; MAX_PIECES],
            occupied: [0; 2],
            mirror: std::cell::OnceCell::new(),
            attacked: [false; 2],
        };
        for (slot, &s) in placement.iter().enumerate() {
            node.squares[slot] = s;
            node.occupied[self.sides[slot]] |= 1 << s;
        }
        let occupied = node.occupied[0] | node.occupied[1];
        node.attacked = [0, 1].map(|side| self.attacked(&node.squares, occupied, side, NONE));
        node
    }

    /// Whether the king of `side` is attacked by the other side's pieces
    /// (the other king facing it counts), with `occupied` the board's
    /// squares and the enemy piece on `captured` gone.
    fn attacked(&self, squares: &[u8], occupied: u128, side: usize, captured: u8) -> bool {
        let king = squares[self.kings[side]] as usize;
        let enemy = 1 - side;
        self.attackers[enemy].iter().any(|&slot| {
            let s = squares[slot];
            if s == captured {
                return false;
            }
            let at = s as usize * NUM_SQUARES + king;
            match self.roles[slot] {
                Role::Rook | Role::King => {
                    let between = self.lines.between[at];
                    between & UNALIGNED == 0 && between & occupied == 0
                }
                Role::Cannon => {
                    let between = self.lines.between[at];
                    between & UNALIGNED == 0 && (between & occupied).count_ones() == 1
                }
                Role::Horse => {
                    let leg = self.lines.horse_leg[at];
                    leg != NONE && occupied & 1 << leg == 0
                }
                Role::Pawn => pawn_attacks(s, king as u8, enemy),
                Role::Advisor | Role::Elephant => false,
            }
        })
    }

    /// Whether the node is a position with `side` to move: the other
    /// side not in check and the kings not facing.
    pub(super) fn valid(&self, node: &Node, side: usize) -> bool {
        !node.attacked[1 - side]
    }

    /// Whether two moves from the node may reach one index: only when
    /// the node and its mirror image differ by at most two pieces. (Two
    /// moves reach one index when one child is the other's mirror image:
    /// `P - a + x = mirror(P) - b + y` puts every piece of `P` but `a` and
    /// `y` on a square its mirror image also has.) Elsewhere the distinct
    /// successors are the quiet moves, counted without their indexes.
    pub(super) fn near_symmetric(&self, node: &Node) -> bool {
        self.near_symmetric_placement(&node.squares[..self.kinds.len()])
    }

    /// [`Walker::near_symmetric`] of a placement. The same holds of the
    /// positions un-moves come from: two of them share an index only
    /// when the position is near its mirror image.
    pub(super) fn near_symmetric_placement(&self, squares: &[u8]) -> bool {
        let mut by_kind = [0u128; 14];
        for (&kind, &s) in self.kinds.iter().zip(squares) {
            by_kind[kind] |= 1 << s;
        }
        let unmatched = self
            .kinds
            .iter()
            .zip(squares)
            .filter(|&(&kind, &s)| by_kind[kind] & 1 << mirror_square(s) == 0)
            .count();
        unmatched <= 2
    }

    /// Whether `side`'s king is attacked in the node.
    pub(super) fn in_check(&self, node: &Node, side: usize) -> bool {
        node.attacked[side]
    }

    /// Calls `visit` with each legal move of `side` in the node (a valid
    /// position with `side` to move).
    pub(super) fn moves(&self, node: &Node, side: usize, mut visit: impl FnMut(Step)) {
        self.any_move(node, side, |step| {
            visit(step);
            false
        });
    }

    /// [`Walker::moves`], the captures only: quiet moves are passed over
    /// before their legality is tested.
    pub(super) fn captures(&self, node: &Node, side: usize, mut visit: impl FnMut(Step)) {
        self.first_move::<true>(node, side, |step| {
            visit(step);
            false
        });
    }

    /// Whether `found` holds for some legal move of `side` in the node (a
    /// valid position with `side` to move): the moves after the first it
    /// holds for are neither generated nor tested for legality.
    pub(super) fn any_move(
        &self,
        node: &Node,
        side: usize,
        found: impl FnMut(Step) -> bool,
    ) -> bool {
        self.first_move::<false>(node, side, found)
    }

    /// [`Walker::any_move`] over the captures only, or over every move.
    fn first_move<const CAPTURES_ONLY: bool>(
        &self,
        node: &Node,
        side: usize,
        mut found: impl FnMut(Step) -> bool,
    ) -> bool {
        let occupied = node.occupied[0] | node.occupied[1];
        let mut squares = node.squares;
        let king = self.kings[side];
        // Out of check, a move other than the king's that neither leaves
        // nor enters a square where the king's safety is decided is legal.
        let exposed = if node.attacked[side] {
            u128::MAX
        } else {
            self.lines.exposed[squares[king] as usize]
        };
        let mut done = false;
        for &slot in &self.own[side] {
            let from = squares[slot];
            let mut target = |to: u8| {
                if done || node.occupied[side] & 1 << to != 0 {
                    return;
                }
                let capture = node.occupied[1 - side] & 1 << to != 0;
                if CAPTURES_ONLY && !capture {
                    return;
                }
                let judged = slot == king || exposed & (1 << from | 1 << to) != 0;
                let legal = !judged || {
                    squares[slot] = to;
                    let after = occupied & !(1u128 << from) | 1 << to;
                    let safe =
                        !self.attacked(&squares, after, side, if capture { to } else { NONE });
                    squares[slot] = from;
                    safe
                };
                if legal {
                    let captured = capture.then(|| self.slot_at(node, 1 - side, to));
                    done = found(Step { slot, to, captured });
                }
            };
            self.targets(self.roles[slot], side, from, occupied, &mut target);
            if done {
                return true;
            }
        }
        false
    }

    /// The slot of `side`'s piece on `square`.
    fn slot_at(&self, node: &Node, side: usize, square: u8) -> usize {
        *self.own[side]
            .iter()
            .find(|&&slot| node.squares[slot] == square)
            .expect("a piece on the square")
    }

    /// Calls `target` with every square a piece of `role` and `side` on
    /// `from` reaches by its rules, own pieces included (the caller drops
    /// those).
    fn targets(
        &self,
        role: Role,
        side: usize,
        from: u8,
        occupied: u128,
        target: &mut impl FnMut(u8),
    ) {
        let empty = |s: u8| occupied & 1 << s == 0;
        match role {
            Role::King => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    if let Some(s) = step(from, dr, df).filter(|&s| in_palace(s, side)) {
                        target(s);
                    }
                }
            }
            Role::Advisor => {
                for (dr, df) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(s) = step(from, dr, df).filter(|&s| in_palace(s, side)) {
                        target(s);
                    }
                }
            }
            Role::Elephant => {
                for (dr, df) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    let Some(s) = step(from, dr, df).filter(|&s| on_own_half(s, side)) else {
                        continue;
                    };
                    if empty(step(from, dr / 2, df / 2).expect("between two squares")) {
                        target(s);
                    }
                }
            }
            Role::Horse => {
                for (dr, df) in HORSE_STEPS {
                    let Some(s) = step(from, dr, df) else {
                        continue;
                    };
                    let leg = self.lines.horse_leg[from as usize * NUM_SQUARES + s as usize];
                    if empty(leg) {
                        target(s);
                    }
                }
            }
            Role::Rook | Role::Cannon => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let mut at = step(from, dr, df);
                    while let Some(s) = at.filter(|&s| empty(s)) {
                        target(s);
                        at = step(s, dr, df);
                    }
                    let Some(blocker) = at else {
                        continue;
                    };
                    if role == Role::Rook {
                        target(blocker);
                        continue;
                    }
                    // A cannon captures the first piece past its screen.
                    let mut past = step(blocker, dr, df);
                    while let Some(s) = past {
                        if !empty(s) {
                            target(s);
                            break;
                        }
                        past = step(s, dr, df);
                    }
                }
            }
            Role::Pawn => {
                let forward = if side == 0 { 1 } else { -1 };
                if let Some(s) = step(from, forward, 0) {
                    target(s);
                }
                if !on_own_half(from, side) {
                    for df in [1, -1] {
                        if let Some(s) = step(from, 0, df) {
                            target(s);
                        }
                    }
                }
            }
        }
    }

    /// The table side a slot's piece belongs to.
    pub(super) fn side_of(&self, slot: usize) -> usize {
        self.sides[slot]
    }

    /// The index of the position a quiet move reaches (mirror folded).
    pub(super) fn child_index(&self, node: &Node, step: Step) -> u64 {
        let n = self.roles.len();
        let placement = &node.squares[..n];
        let mirror = node.mirror.get_or_init(|| {
            let mut out = [0u8; MAX_PIECES];
            let raw = self.indexer.mirror_raw(node.raw, placement, &mut out)?;
            Some((raw, out))
        });
        let mirror = mirror.as_ref().map(|(raw, squares)| (*raw, &squares[..n]));
        self.indexer
            .moved_index_mirrored(node.raw, placement, mirror, step.slot, step.to)
    }

    /// Whether the move checks the other side's king.
    pub(super) fn gives_check(&self, node: &Node, step: Step) -> bool {
        let mut squares = node.squares;
        let from = squares[step.slot];
        squares[step.slot] = step.to;
        let occupied = (node.occupied[0] | node.occupied[1]) & !(1u128 << from) | 1 << step.to;
        // The captured piece is not the king: its squares stay as they are.
        let side = self.sides[step.slot];
        self.attacked(&squares, occupied, 1 - side, NONE)
    }

    /// Whether, after the move, its side can capture some piece of the
    /// other side (by the rules of each piece, legal or not): what any
    /// chase needs ([`xqcore::chase::chased_squares`] names only pieces
    /// so reached).
    pub(super) fn threatens_after(&self, node: &Node, step: Step) -> bool {
        let side = self.sides[step.slot];
        let mut squares = node.squares;
        let from = squares[step.slot];
        squares[step.slot] = step.to;
        let own = node.occupied[side] & !(1u128 << from) | 1 << step.to;
        let enemy = node.occupied[1 - side] & !(1u128 << step.to);
        let occupied = own | enemy;
        self.own[side].iter().any(|&slot| {
            let mut hit = false;
            self.targets(self.roles[slot], side, squares[slot], occupied, &mut |to| {
                hit |= enemy & 1 << to != 0;
            });
            hit
        })
    }

    /// The board after a move (in table orientation) and the colour to
    /// move: for captures, whose positions are in a smaller table.
    pub(super) fn board_after(&self, node: &Node, step: Step) -> (Board, Color) {
        let mut board = Board::empty();
        for slot in 0..self.roles.len() {
            if Some(slot) == step.captured {
                continue;
            }
            let s = if slot == step.slot {
                step.to
            } else {
                node.squares[slot]
            };
            let piece = Piece::new(color_of_side(self.sides[slot], false), self.roles[slot]);
            board.set(
                Square::from_index(s as usize).expect("a board square"),
                Some(piece),
            );
        }
        let mover = self.sides[step.slot];
        (board, color_of_side(1 - mover, false))
    }
}

/// Whether a pawn of table side `side` on `pawn` attacks square `target`.
fn pawn_attacks(pawn: u8, target: u8, side: usize) -> bool {
    let forward = if side == 0 { 1 } else { -1 };
    if step(pawn, forward, 0) == Some(target) {
        return true;
    }
    !on_own_half(pawn, side)
        && (step(pawn, 0, 1) == Some(target) || step(pawn, 0, -1) == Some(target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{positions_at, table_position};
    use std::collections::BTreeSet;
    use xqcore::chase::chased_squares;
    use xqegtb::Material;

    /// Every move of every sampled position, as xqcore makes it and as the
    /// walker does: the same positions valid, in check, with the same
    /// quiet children (and checks) and the same boards after captures.
    #[test]
    fn the_walker_moves_as_xqcore_does() {
        let (mut chases, mut near) = (0, 0);
        for name in [
            "KRKNAABB", "KCKNAB", "KPPKAB", "KAABKRP", "KNKP", "KRKR", "KCPKA", "KPKP",
        ] {
            let material: Material = name.parse().unwrap();
            let indexer = Indexer::new(material);
            let walker = Walker::new(&indexer);
            let (mut placement, mut child) = (Placement::new(), Placement::new());
            let step = indexer.size() / 3000 + 1;
            let mut moves = 0;
            for index in (0..indexer.size()).step_by(step as usize) {
                let positions = positions_at(&indexer, index, &mut placement);
                let node = walker.node(index, &mut placement);
                if node.is_none() {
                    assert!(positions.iter().all(|p| p.is_none()), "{name} {index}");
                }
                for (side, pos) in positions.into_iter().enumerate() {
                    let valid = node.as_ref().is_some_and(|n| walker.valid(n, side));
                    assert_eq!(valid, pos.is_some(), "{name} {index} side {side}");
                    let (Some(mut pos), Some(node)) = (pos, node.as_ref()) else {
                        continue;
                    };
                    assert_eq!(walker.in_check(node, side), pos.in_check());
                    let mut expected = BTreeSet::new();
                    let mut chasing = BTreeSet::new();
                    for &m in pos.legal_moves().iter() {
                        let capture = pos.board().piece_at(m.to()).is_some();
                        let chases = !capture && chased_squares(pos.board(), m) != 0;
                        pos.make_move(m);
                        if chases {
                            chasing.insert(table_position(&indexer, &pos, &mut child).1);
                        }
                        expected.insert(if capture {
                            (true, pos.board().fen_placement(), 0, pos.in_check())
                        } else {
                            let (_, i) = table_position(&indexer, &pos, &mut child);
                            (false, String::new(), i, pos.in_check())
                        });
                        pos.unmake_move();
                    }
                    let mut walked = BTreeSet::new();
                    let mut threatening = BTreeSet::new();
                    let mut quiet = 0;
                    walker.moves(node, side, |s| {
                        quiet += usize::from(s.captured.is_none());
                        if s.captured.is_none() && walker.threatens_after(node, s) {
                            threatening.insert(walker.child_index(node, s));
                        }
                        let check = walker.gives_check(node, s);
                        walked.insert(if s.captured.is_some() {
                            let (board, turn) = walker.board_after(node, s);
                            assert_eq!(turn, color_of_side(1 - side, false));
                            (true, board.fen_placement(), 0, check)
                        } else {
                            (false, String::new(), walker.child_index(node, s), check)
                        });
                    });
                    moves += expected.len();
                    assert_eq!(walked, expected, "{name} index {index} side {side}");
                    let (mut captures, mut among_moves) = (BTreeSet::new(), BTreeSet::new());
                    walker.captures(node, side, |s| {
                        captures.insert((s.slot, s.to, s.captured));
                    });
                    walker.moves(node, side, |s| {
                        if s.captured.is_some() {
                            among_moves.insert((s.slot, s.to, s.captured));
                        }
                    });
                    assert_eq!(captures, among_moves, "{name} index {index} side {side}");
                    // Stopping at the k-th move visits exactly k moves (k = 0:
                    // never stopping visits them all).
                    let mut all = 0;
                    walker.moves(node, side, |_| all += 1);
                    for k in [0, 1, all / 2, all].into_iter().filter(|&k| k <= all) {
                        let mut visited = 0;
                        let found = walker.any_move(node, side, |_| {
                            visited += 1;
                            visited == k
                        });
                        let expected = if k == 0 { (false, all) } else { (true, k) };
                        assert_eq!((found, visited), expected, "{name} index {index}");
                    }
                    let distinct = walked.iter().filter(|m| !m.0).count();
                    let mut parents = Vec::new();
                    crate::generate::un_moves(&indexer, &placement, 1 - side, |slot, from| {
                        parents.push(indexer.moved_index(index, &placement, slot, from));
                    });
                    let steps = parents.len();
                    parents.sort_unstable();
                    parents.dedup();
                    if !walker.near_symmetric_placement(&placement) {
                        assert_eq!(steps, parents.len(), "{name} index {index}: parents");
                    }
                    if walker.near_symmetric(node) {
                        near += 1;
                    } else {
                        assert_eq!(quiet, distinct, "{name} index {index} side {side}");
                    }
                    chases += chasing.len();
                    assert!(
                        chasing.is_subset(&threatening),
                        "{name} index {index} side {side}: a chase without a threat"
                    );
                }
            }
            assert!(moves > 1000, "{name}: {moves} moves compared");
        }
        assert!(chases > 100, "{chases} chasing moves compared");
        assert!(near > 0, "no near-symmetric position seen");
    }
}
