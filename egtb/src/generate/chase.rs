//! The perpetual-chase rule in the solver: among the draws, the positions
//! whose side to move (the chaser) can only avoid losing by chasing one
//! and the same enemy piece for ever, while the other side answers every
//! chase with a move that neither checks nor chases.
//!
//! A greatest fixed point over (position, victim) pairs, the victim named
//! by its place among the other side's pieces other than the king (an
//! ordinal into the table's slots, followed through mirror images):
//!
//! - **Trapped** `(p, k)`, the chaser to move: every move of `p` that does
//!   not lose (in the table, or by a capture into a smaller one) is a quiet
//!   move that gives no check, chases piece `k`
//!   ([`xqcore::chase::chased_squares`]), and reaches a holding position
//!   for `k`. A capture that does not lose leaves the cycle and saves.
//! - **Holding** `(q, k)`, the other side to move: `q` has a quiet move
//!   that neither checks nor chases into a trapped position for the same
//!   piece (wherever the move took it).
//!
//! Candidates for trapped come from one pass over the table (positions
//! whose every non-losing move chases a common piece are rare); holding
//! candidates are their predecessors. Both shrink in turns until nothing
//! changes. From a trapped position the other side keeps to holding moves;
//! the chaser must chase the same piece on every move until a position
//! repeats, and the cycle between the repetitions is a perpetual chase
//! against idle moves: the chaser loses (docs/rules.md).

use std::collections::HashMap;

use rayon::prelude::*;
use xqcore::chase::chased_squares;
use xqcore::{Bitboard, Move};

use super::{positions_at, table_position, Cursor, State, CHUNK};
use crate::index::{mirror_square, Placement};
use crate::orient::board_of;
use crate::value::Wdl;

/// Where each victim ordinal of one position stands in another: by
/// ordinal, the ordinal in the other position (the victims of a table
/// are the other side's pieces besides the king, at most seven).
type VictimMap = [u8; MAX_VICTIMS];

/// Most pieces (besides its king) a side may have in a table the
/// perpetual-chase rule applies to: victims are bits of a byte.
pub const MAX_VICTIMS: usize = 8;

/// Victim masks of candidate positions, by index.
type Masks = HashMap<u64, u8>;

/// A move between candidate positions: the index it reaches and where
/// the victims stand there.
#[derive(Clone, Copy)]
struct Edge {
    to: u64,
    map: VictimMap,
}

/// A candidate position with its victims (a bit per ordinal) and its moves
/// that matter: for a trapped one every non-losing move, for a holding one
/// its idle moves into trapped candidates.
struct Candidate {
    index: u64,
    edges: Vec<Edge>,
}

impl State<'_> {
    /// The open positions with `chaser` to move that lose by the
    /// perpetual-chase rule (their indexes).
    pub(super) fn trapped_chasers(&self, chaser: usize) -> Vec<u64> {
        let size = self.indexer.size();
        let victims = Victims::new(self, 1 - chaser);
        if victims.slots.is_empty() {
            return Vec::new();
        }
        // Victim masks of trapped candidates (chaser to move) and of holding
        // ones (the other side to move), by index: candidates are few, so
        // maps rather than a byte for every index.
        let trapped: Vec<(Candidate, u8)> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(size));
                self.chase_candidates(chaser, &victims, start, end)
            })
            .collect();
        let mut trapped_mask: Masks = trapped.iter().map(|(t, mask)| (t.index, *mask)).collect();
        let trapped: Vec<Candidate> = trapped.into_iter().map(|(t, _)| t).collect();
        let holding = self.holding_candidates(chaser, &victims, &trapped, &trapped_mask);
        let mut holding_mask = Masks::new();
        let mask_at = |masks: &Masks, index: u64| masks.get(&index).copied().unwrap_or(0);
        loop {
            for h in &holding {
                let mask = h.edges.iter().fold(0, |m, e| {
                    m | pull(mask_at(&trapped_mask, e.to), &e.map, victims.all())
                });
                holding_mask.insert(h.index, mask);
            }
            let mut changed = false;
            for t in &trapped {
                let before = mask_at(&trapped_mask, t.index);
                let after = t.edges.iter().fold(before, |m, e| {
                    m & pull(mask_at(&holding_mask, e.to), &e.map, victims.all())
                });
                if after != before {
                    trapped_mask.insert(t.index, after);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        trapped
            .iter()
            .filter(|t| mask_at(&trapped_mask, t.index) != 0)
            .map(|t| t.index)
            .collect()
    }

    /// The trapped candidates among indexes `start..end`: open positions
    /// with `chaser` to move whose every non-losing move is a quiet,
    /// non-checking chase of a common victim, with those victims and moves.
    fn chase_candidates(
        &self,
        chaser: usize,
        victims: &Victims,
        start: u64,
        end: u64,
    ) -> Vec<(Candidate, u8)> {
        let mut found = Vec::new();
        let mut placement = Placement::new();
        let mut canonical = Placement::new();
        let mut child = Placement::new();
        let mut cursor = Cursor::default();
        for index in start..end {
            if !self.is_open(chaser, index) || !self.may_chase_only(chaser, index, &mut cursor) {
                continue;
            }
            let positions = positions_at(self.indexer, index, &mut placement);
            let Some(mut pos) = positions.into_iter().nth(chaser).flatten() else {
                continue;
            };
            let mut mask = victims.all();
            let mut edges = Vec::new();
            for &m in pos.legal_moves().iter() {
                let capture = pos.board().piece_at(m.to()).is_some();
                pos.make_move(m);
                let step = if capture {
                    // A capture that does not lose leaves the cycle.
                    match self.lookup.value(pos.board(), pos.turn()).wdl() {
                        Wdl::Win => Step::Loses,
                        _ => Step::Escapes,
                    }
                } else {
                    let (side, to) = table_position(self.indexer, &pos, &mut child);
                    if !self.is_open(side, to) {
                        // Settled: a win for the other side, or this
                        // position would have been won.
                        Step::Loses
                    } else if pos.in_check() {
                        Step::Escapes
                    } else {
                        Step::Quiet { to }
                    }
                };
                pos.unmake_move();
                match step {
                    Step::Loses => {}
                    Step::Escapes => {
                        mask = 0;
                    }
                    // What it chases is judged on the board before it:
                    // only for the moves that can make a cycle.
                    Step::Quiet { to } => {
                        mask &= victims.ordinals(&placement, chased_squares(pos.board(), m));
                        let map =
                            victims.map(&placement, None, self.indexer, to, &child, &mut canonical);
                        edges.push(Edge { to, map });
                    }
                }
                if mask == 0 {
                    break;
                }
            }
            if mask != 0 {
                found.push((Candidate { index, edges }, mask));
            }
        }
        found
    }

    /// Whether the open position at `index`, `chaser` to move, may be a
    /// trapped candidate: no move that does not lose escapes by a capture,
    /// a check, or a quiet move after which its side attacks nothing (no
    /// chase). What most positions fail, found without building them.
    fn may_chase_only(&self, chaser: usize, index: u64, cursor: &mut Cursor) -> bool {
        let Some(node) = self.walker.node_at(index, cursor) else {
            return false;
        };
        let escapes = self.walker.any_move(&node, chaser, |step| {
            if step.captured.is_some() {
                self.captured_value(&node, step).wdl() != Wdl::Win
            } else {
                // What the move does first, then (a read far away in
                // memory) whether it loses.
                (self.walker.gives_check(&node, step) || !self.walker.threatens_after(&node, step))
                    && self.is_open(1 - chaser, self.walker.child_index(&node, step))
            }
        });
        !escapes
    }

    /// The holding candidates: open positions, out of check, with the
    /// other side to move and a quiet move that neither checks nor chases
    /// into a trapped candidate.
    fn holding_candidates(
        &self,
        chaser: usize,
        victims: &Victims,
        trapped: &[Candidate],
        trapped_mask: &Masks,
    ) -> Vec<Candidate> {
        let defender = 1 - chaser;
        let mut parents: Vec<u64> = trapped
            .par_iter()
            .flat_map_iter(|t| self.parents(t.index, defender))
            .collect();
        parents.par_sort_unstable();
        parents.dedup();
        parents
            .par_iter()
            .filter_map(|&index| {
                if !self.is_open(defender, index) {
                    return None;
                }
                let mut placement = Placement::new();
                let mut canonical = Placement::new();
                let mut child = Placement::new();
                let positions = positions_at(self.indexer, index, &mut placement);
                let mut pos = positions.into_iter().nth(defender).flatten()?;
                if pos.in_check() {
                    return None;
                }
                let mut edges = Vec::new();
                for &m in pos.legal_moves().iter() {
                    if pos.board().piece_at(m.to()).is_some() {
                        continue;
                    }
                    pos.make_move(m);
                    let (_, to) = table_position(self.indexer, &pos, &mut child);
                    let check = pos.in_check();
                    pos.unmake_move();
                    // Only a move into a trapped candidate matters; only then
                    // is it graded, on the board before it.
                    if trapped_mask.get(&to).is_none_or(|&m| m == 0)
                        || check
                        || chased_squares(pos.board(), m) != 0
                    {
                        continue;
                    }
                    let map = victims.map(
                        &placement,
                        Some(m),
                        self.indexer,
                        to,
                        &child,
                        &mut canonical,
                    );
                    edges.push(Edge { to, map });
                }
                (!edges.is_empty()).then_some(Candidate { index, edges })
            })
            .collect()
    }
}

/// What one move of a trapped candidate does.
enum Step {
    /// It loses (the other side wins after it).
    Loses,
    /// It leaves the cycle without losing, or checks.
    Escapes,
    /// A quiet move, not a check, into the open position at index `to`:
    /// a chase of the victims it chases (possibly none).
    Quiet { to: u64 },
}

/// The victims of `mask` at a position from the victims `target` holds at
/// the position a move reaches: ordinal `k` is set when `target` has the
/// ordinal `map[k]` the victim reaches.
fn pull(target: u8, map: &VictimMap, all: u8) -> u8 {
    (0..8)
        .filter(|&k| all & 1 << k != 0 && target & 1 << map[k] != 0)
        .fold(0, |m, k| m | 1 << k)
}

/// The pieces that may be chased: one side's pieces other than its king,
/// by their slots in the table's placements.
struct Victims {
    slots: Vec<usize>,
}

impl Victims {
    fn new(state: &State, side: usize) -> Victims {
        let slots = state
            .indexer
            .slots()
            .iter()
            .enumerate()
            .filter(|(_, p)| p.side == side && p.role != xqcore::Role::King)
            .map(|(slot, _)| slot)
            .collect::<Vec<_>>();
        debug_assert!(slots.len() <= MAX_VICTIMS);
        Victims { slots }
    }

    /// Every ordinal.
    fn all(&self) -> u8 {
        ((1u16 << self.slots.len()) - 1) as u8
    }

    /// The ordinals of the victims standing on `squares` in `placement`.
    fn ordinals(&self, placement: &[u8], squares: Bitboard) -> u8 {
        self.slots
            .iter()
            .enumerate()
            .filter(|&(_, &slot)| squares & 1 << placement[slot] != 0)
            .fold(0, |m, (k, _)| m | 1 << k)
    }

    /// Where the victims of `placement` stand after `moved` (none for a
    /// move of the other side), in the canonical placement of index `to`,
    /// whose board as reached is `reached` (before the mirror image is
    /// folded away).
    fn map(
        &self,
        placement: &[u8],
        moved: Option<Move>,
        indexer: &crate::Indexer,
        to: u64,
        reached: &[u8],
        canonical: &mut Placement,
    ) -> VictimMap {
        indexer.placement(to, canonical);
        // Compared as boards: the order of like pieces in a placement says
        // nothing.
        let mirrored = board_of(indexer, reached) != board_of(indexer, canonical);
        let mut map = [0u8; MAX_VICTIMS];
        for (k, &slot) in self.slots.iter().enumerate() {
            let mut sq = placement[slot];
            if let Some(m) = moved {
                if m.from().index() == sq as usize {
                    sq = m.to().index() as u8;
                }
            }
            if mirrored {
                sq = mirror_square(sq);
            }
            map[k] = self
                .slots
                .iter()
                .position(|&s| canonical[s] == sq)
                .expect("a victim keeps its place among the victims") as u8;
        }
        map
    }
}
