//! The perpetual-chase rule in the solver: among the draws, the positions
//! whose side to move (the chaser) can only avoid losing by chasing one
//! and the same enemy piece for ever, while the other side's moves over
//! every cycle are neither all checks nor all chases of one piece.
//!
//! A game over (position, victim) pairs, the victim named by its place
//! among the other side's pieces other than the king (an ordinal into the
//! table's slots, followed through mirror images):
//!
//! - **Trapped** `(p, k)`, the chaser to move: every move of `p` that does
//!   not lose (in the table, or by a capture into a smaller one) is a quiet
//!   move that gives no check, chases piece `k`
//!   ([`xqcore::chase::chased_squares`]), and reaches a holding position
//!   for `k`. A capture that does not lose leaves the cycle and saves.
//! - **Holding** `(q, k)`, the other side to move: `q` has a quiet move
//!   into a trapped position for the same piece (wherever the move took
//!   it).
//!
//! The other side must also meet, again and again, one condition per piece
//! of the chaser (a move that does not chase it) and one more (a move that
//! gives no check): a generalized Büchi game, solved as one. A greatest
//! fixed point of trapped positions; inside it, for each condition, a least
//! fixed point of those from which the other side forces a move meeting
//! the condition into the greatest one, the chaser chasing all the way.
//! The other side plays toward each condition in turn; the chaser must
//! chase the same piece on every move until a position repeats, and the
//! cycle between the repetitions has every chaser's move a chase of that
//! piece while the other side's moves include one without check and, for
//! each piece, one that does not chase it: perpetual chase against moves
//! the rules allow, and the chaser loses (docs/rules.md). An idle move (no
//! check, no chase) meets every condition at once, so the plain case is a
//! chase answered by idle moves; the others are answers that alternate
//! checks with chases or chase two pieces in turn.
//!
//! Candidates for trapped come from one pass over the table (positions
//! whose every non-losing move chases a common piece are rare); holding
//! candidates are their predecessors.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;
use xqcore::chase::chased_squares;
use xqcore::{Bitboard, Move};

use super::candidates::{Candidates, RuleScan, NOWHERE};
use super::scratch::{List, ListRoom};
use super::{positions_at, table_position, Cursor, State};
use xqegtb::{board_of, mirror_square, Placement, Wdl};

/// Where each victim ordinal of one position stands in another: by
/// ordinal, the ordinal in the other position (the victims of a table
/// are the other side's pieces besides the king, at most eight), three
/// bits each, so that the game's many moves stay small.
#[derive(Clone, Copy, Default, Pod, Zeroable)]
#[repr(transparent)]
struct VictimMap(u32);

impl VictimMap {
    /// The ordinal `k` stands at.
    fn get(self, k: usize) -> usize {
        (self.0 >> (3 * k) & 7) as usize
    }

    fn set(&mut self, k: usize, ordinal: usize) {
        debug_assert!(ordinal < MAX_VICTIMS, "three bits an ordinal");
        self.0 |= (ordinal as u32) << (3 * k);
    }
}

/// Most pieces (besides its king) a side may have in a table the
/// perpetual-chase rule applies to: victims are bits of a byte.
pub const MAX_VICTIMS: usize = 8;

/// The other side's conditions on the cycles it keeps to (a generalized
/// Büchi game): for each piece of the chaser, by its ordinal, a move that
/// does not chase it; and ([`NON_CHECK`]) a move that gives no check. A
/// cycle with a move meeting each has the other side's moves neither all
/// checks nor all chases of one piece.
const CONDITIONS: usize = MAX_VICTIMS + 1;

/// The condition of a move that gives no check.
const NON_CHECK: usize = MAX_VICTIMS;

/// Victim masks by condition.
type ByCondition = [u8; CONDITIONS];

/// A move between candidate positions: where the position it reaches
/// stands among the candidates, where the victims and the chaser's pieces
/// stand there and, for a move of the other side, the conditions it meets
/// (a bit each). The index it reaches is needed only until `at` is found:
/// it is kept apart, for the trapped candidates' moves, until then.
/// Plain bytes without padding, so that scratch files can hold it.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Edge {
    /// Where the position reached stands among the other kind of
    /// candidates (trapped for a holding one's move, holding for a trapped
    /// one's), or [`NOWHERE`].
    at: u32,
    victims: VictimMap,
    pieces: VictimMap,
    meets: u32,
}

// The game holds a move of this size for every move between candidates:
// millions of them in the largest tables.
const _: () = assert!(std::mem::size_of::<Edge>() == 16);

impl Edge {
    /// The condition `c` of the position before the move at the position
    /// it reaches (the piece it names may stand elsewhere in its order).
    fn carried(&self, c: usize) -> usize {
        if c == NON_CHECK {
            c
        } else {
            self.pieces.get(c)
        }
    }
}

impl State<'_> {
    /// The open positions with `chaser` to move that lose by the
    /// perpetual-chase rule (their indexes).
    pub(super) fn trapped_chasers(&self, chaser: usize, base: u16) -> Vec<u64> {
        let sides = Sides {
            victims: Pieces::new(self, 1 - chaser),
            chasers: Pieces::new(self, chaser),
        };
        if sides.victims.slots.is_empty() {
            return Vec::new();
        }
        let earlier = self.chase_scans.lock().expect("no panic")[chaser].take();
        let room = self.lists_room();
        // Victim masks by candidate, and the indexes the moves reach.
        let (mut trapped, mut trapped_mask, mut targets) =
            (Candidates::new(room), List::new(room), List::new(room));
        self.find_candidates(
            chaser,
            earlier,
            |indexes| {
                let found = self.chase_candidates(chaser, &sides, indexes);
                (found.0.len() > 0).then_some(found)
            },
            |(part, masks, reached)| {
                trapped.append(&part);
                trapped_mask.extend_from_slice(&masks);
                targets.extend_from_slice(&reached);
            },
        );
        // Grown by doubling: the room left over goes.
        trapped.shrink_to_fit();
        trapped_mask.shrink_to_fit();
        targets.shrink_to_fit();
        let scan = List::from_slice(&trapped.indexes, room);
        let scan_bytes = scan.held_bytes();
        self.chase_scans.lock().expect("no panic")[chaser] = Some(RuleScan {
            base,
            candidates: scan,
        });
        let holding = self.holding_candidates(chaser, &sides, &trapped, &trapped_mask);
        for (e, &to) in trapped.edges.iter_mut().zip(targets.iter()) {
            e.at = holding.find(to);
        }
        let mut lists = Reach::new(trapped.len(), holding.len(), room);
        // The lists, the indexes the trapped candidates' moves reach, the
        // scan kept for the next pass, the masks, and the game's own.
        self.note_lists(
            trapped.bytes()
                + holding.bytes()
                + targets.held_bytes()
                + scan_bytes
                + trapped_mask.held_bytes()
                + lists.held_bytes(),
        );
        drop(targets);
        let game = Game {
            trapped: &trapped,
            holding: &holding,
            all: sides.victims.all(),
            conditions: (0..sides.chasers.slots.len()).chain([NON_CHECK]).collect(),
        };
        // The greatest fixed point: a trapped position stays so for a
        // victim while the other side can meet every condition from it.
        loop {
            let reached = game.reach(&trapped_mask, &mut lists);
            let mut shrunk = false;
            for (mask, met) in trapped_mask.iter_mut().zip(reached) {
                let after = game.conditions.iter().fold(*mask, |m, &c| m & met[c]);
                if after != *mask {
                    *mask = after;
                    shrunk = true;
                }
            }
            if !shrunk {
                break;
            }
        }
        trapped
            .indexes
            .iter()
            .zip(trapped_mask.iter())
            .filter(|&(_, &mask)| mask != 0)
            .map(|(&index, _)| index)
            .collect()
    }

    /// The trapped candidates among `indexes` (ascending): open positions
    /// with `chaser` to move whose every non-losing move is a quiet,
    /// non-checking chase of a common victim, with those moves, the
    /// victims (a mask each), and the index each move reaches.
    fn chase_candidates(
        &self,
        chaser: usize,
        sides: &Sides,
        indexes: impl Iterator<Item = u64>,
    ) -> (Candidates<Edge>, Vec<u8>, Vec<u64>) {
        // A chunk's own lists, in memory: the pass gathers them.
        let (mut found, mut masks, mut targets) = (Candidates::new(None), Vec::new(), Vec::new());
        let (mut edges, mut reached) = (Vec::new(), Vec::new());
        let mut placement = Placement::new();
        let mut canonical = Placement::new();
        let mut child = Placement::new();
        let mut cursor = Cursor::default();
        for index in indexes {
            if !self.is_open(chaser, index) || !self.may_chase_only(chaser, index, &mut cursor) {
                continue;
            }
            let positions = positions_at(self.indexer, index, &mut placement);
            let Some(mut pos) = positions.into_iter().nth(chaser).flatten() else {
                continue;
            };
            let mut mask = sides.victims.all();
            edges.clear();
            reached.clear();
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
                        mask &= sides
                            .victims
                            .ordinals(&placement, chased_squares(pos.board(), m));
                        edges.push(sides.edge(
                            &placement,
                            m,
                            self.indexer,
                            to,
                            &child,
                            &mut canonical,
                        ));
                        reached.push(to);
                    }
                }
                if mask == 0 {
                    break;
                }
            }
            if mask != 0 {
                found.push(index, &edges);
                masks.push(mask);
                targets.extend_from_slice(&reached);
            }
        }
        (found, masks, targets)
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
    /// other side to move and a quiet move into a trapped candidate.
    fn holding_candidates(
        &self,
        chaser: usize,
        sides: &Sides,
        trapped: &Candidates<Edge>,
        trapped_mask: &[u8],
    ) -> Candidates<Edge> {
        let defender = 1 - chaser;
        self.gather_holding(&trapped.indexes, defender, |index| {
            let mut placement = Placement::new();
            let mut canonical = Placement::new();
            let mut child = Placement::new();
            let positions = positions_at(self.indexer, index, &mut placement);
            let Some(mut pos) = positions.into_iter().nth(defender).flatten() else {
                return Vec::new();
            };
            if pos.in_check() {
                return Vec::new();
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
                // Only a move into a trapped candidate matters; only then is
                // it graded, on the board before it.
                let at = trapped.find(to);
                if at == NOWHERE || trapped_mask[at as usize] == 0 {
                    continue;
                }
                let meets = if check {
                    // A check chases nothing.
                    0xff
                } else {
                    let chased = sides
                        .chasers
                        .ordinals(&placement, chased_squares(pos.board(), m));
                    1 << NON_CHECK | !u32::from(chased) & 0xff
                };
                edges.push(Edge {
                    at,
                    meets,
                    ..sides.edge(&placement, m, self.indexer, to, &child, &mut canonical)
                });
            }
            edges
        })
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
/// ordinal `map.get(k)` the victim reaches.
fn pull(target: u8, map: VictimMap, all: u8) -> u8 {
    (0..8)
        .filter(|&k| all & 1 << k != 0 && target & 1 << map.get(k) != 0)
        .fold(0, |m, k| m | 1 << k)
}

/// The candidates of one chaser and victims: a game between the chaser,
/// who must chase, and the other side, who must meet every condition.
struct Game<'a> {
    trapped: &'a Candidates<Edge>,
    holding: &'a Candidates<Edge>,
    all: u8,
    /// The conditions that apply: one per piece the chaser has, and
    /// [`NON_CHECK`].
    conditions: Vec<usize>,
}

impl Game<'_> {
    /// For each trapped candidate (in order) and condition, the victims for
    /// which the other side can force a move meeting the condition into a
    /// position of `trapped` (victim masks by candidate) for the same
    /// victim, the chaser chasing it all the way: a least fixed point,
    /// grown from nothing in `lists`.
    fn reach<'l>(&self, trapped: &[u8], lists: &'l mut Reach) -> &'l [ByCondition] {
        lists.reached.fill([0; CONDITIONS]);
        loop {
            let Reach {
                reached,
                held,
                next,
            } = &mut *lists;
            held.par_iter_mut()
                .enumerate()
                .for_each(|(h, out)| *out = self.held(h, trapped, reached));
            next.par_iter_mut().enumerate().for_each(|(t, met)| {
                *met = [trapped[t]; CONDITIONS];
                if trapped[t] == 0 {
                    return;
                }
                for e in self.trapped.edges(t) {
                    let there = held.get(e.at as usize).copied().unwrap_or_default();
                    for &c in &self.conditions {
                        met[c] &= pull(there[e.carried(c)], e.victims, self.all);
                    }
                }
            });
            if next[..] == reached[..] {
                return &lists.reached;
            }
            std::mem::swap(reached, next);
        }
    }

    /// What holding candidate `h` reaches, by condition: through a move
    /// meeting it into `trapped`, or through any move into `reached`.
    fn held(&self, h: usize, trapped: &[u8], reached: &[ByCondition]) -> ByCondition {
        let mut held = [0; CONDITIONS];
        for e in self.holding.edges(h) {
            let t = e.at as usize;
            for &c in &self.conditions {
                let there = if e.meets & 1 << c != 0 {
                    trapped[t]
                } else {
                    reached[t][e.carried(c)]
                };
                held[c] |= pull(there, e.victims, self.all);
            }
        }
        held
    }
}

/// The game's lists, by condition: what each trapped candidate reaches,
/// its next value in the fixed point's step, and what each holding one
/// reaches in that step.
struct Reach {
    reached: List<ByCondition>,
    next: List<ByCondition>,
    held: List<ByCondition>,
}

impl Reach {
    fn new(trapped: usize, holding: usize, room: Option<&ListRoom>) -> Reach {
        Reach {
            reached: List::zeroed(trapped, room),
            next: List::zeroed(trapped, room),
            held: List::zeroed(holding, room),
        }
    }

    fn held_bytes(&self) -> u64 {
        self.reached.held_bytes() + self.next.held_bytes() + self.held.held_bytes()
    }
}

/// The pieces of both sides that the game follows.
struct Sides {
    /// The other side's pieces, which the chaser may chase.
    victims: Pieces,
    /// The chaser's own, which the other side may chase.
    chasers: Pieces,
}

impl Sides {
    /// The move `moved` from `placement` to index `to`, whose board as
    /// reached is `reached` (before the mirror image is folded away): where
    /// the victims and the chaser's pieces stand in `to`'s canonical
    /// placement, and no condition met.
    fn edge(
        &self,
        placement: &[u8],
        moved: Move,
        indexer: &xqegtb::Indexer,
        to: u64,
        reached: &[u8],
        canonical: &mut Placement,
    ) -> Edge {
        indexer.placement(to, canonical);
        // Compared as boards: the order of like pieces in a placement says
        // nothing.
        let mirrored = board_of(indexer, reached) != board_of(indexer, canonical);
        Edge {
            at: NOWHERE,
            victims: self.victims.map(placement, moved, mirrored, canonical),
            pieces: self.chasers.map(placement, moved, mirrored, canonical),
            meets: 0,
        }
    }
}

/// The pieces of one side other than its king, by their slots in the
/// table's placements: victims of chases.
struct Pieces {
    slots: Vec<usize>,
}

impl Pieces {
    fn new(state: &State, side: usize) -> Pieces {
        let slots = state
            .indexer
            .slots()
            .iter()
            .enumerate()
            .filter(|(_, p)| p.side == side && p.role != xqcore::Role::King)
            .map(|(slot, _)| slot)
            .collect::<Vec<_>>();
        debug_assert!(slots.len() <= MAX_VICTIMS);
        Pieces { slots }
    }

    /// Every ordinal.
    fn all(&self) -> u8 {
        ((1u16 << self.slots.len()) - 1) as u8
    }

    /// The ordinals of the pieces standing on `squares` in `placement`.
    fn ordinals(&self, placement: &[u8], squares: Bitboard) -> u8 {
        self.slots
            .iter()
            .enumerate()
            .filter(|&(_, &slot)| squares & 1 << placement[slot] != 0)
            .fold(0, |m, (k, _)| m | 1 << k)
    }

    /// Where the pieces of `placement` stand after `moved` in `canonical`
    /// (`mirrored`: whether the move's board is its mirror image), by
    /// ordinal.
    fn map(&self, placement: &[u8], moved: Move, mirrored: bool, canonical: &[u8]) -> VictimMap {
        let mut map = VictimMap::default();
        for (k, &slot) in self.slots.iter().enumerate() {
            let mut sq = placement[slot];
            if moved.from().index() == sq as usize {
                sq = moved.to().index() as u8;
            }
            if mirrored {
                sq = mirror_square(sq);
            }
            let ordinal = self
                .slots
                .iter()
                .position(|&s| canonical[s] == sq)
                .expect("a piece keeps its place among its side's");
            map.set(k, ordinal);
        }
        map
    }
}
