//! Solving a material by retrograde analysis.
//!
//! Values are settled in rounds of increasing distance to mate, as in every
//! retrograde solver: positions lost in `n` plies make their predecessors
//! won in `n + 1`; a position whose every move reaches a win for the
//! opponent is lost, one ply longer than the longest of those wins.
//!
//! 1. **Setup** (one pass over all indexes): positions that cannot occur
//!    (the side not to move in check, kings facing, two pieces on a square,
//!    the larger of a mirror pair) are marked invalid. For each side to
//!    move the legal moves are counted, distinct successors once; captures
//!    leave the table and are scored at once from the smaller tables (a
//!    capture that wins gives a distance the rounds may still shorten).
//! 2. **Rounds**: each round takes the positions settled at its distance
//!    `n` (its frontier bitmap, and those settled outside the rounds and
//!    still pending) and walks them backwards (un-moves of the side that
//!    just moved: no un-captures, no pawn steps backwards); each
//!    predecessor is either won at `n + 1` or has one more move known to
//!    lose. A position found lost learns then what its captures lose in.
//! 3. Whatever is left unsettled is a draw: neither side can force mate.
//!
//! Memory is one two-byte cell per index and side to move
//! (`generate/cells.rs`). Rounds run in
//! parallel (rayon) on atomic cells, and each round only reads what
//! earlier rounds settled, so the result does not depend on the number of
//! threads.
//!
//! 4. **Perpetual check** (when a side has pieces that give check): among
//!    the draws, a game finds the positions whose side can only avoid
//!    losing by checking for ever against answers not all checks
//!    (`generate/check.rs`), one checker at a time; they lose, the rounds
//!    go on from them, and the search repeats until it finds none. These
//!    results lie from [`RULE_DTM`] up.
//! 5. **Perpetual chase** (when both sides have a rook, horse or cannon):
//!    from [`CHASE_DTM`] up, the positions whose side can only avoid
//!    losing by chasing one piece for ever lose (`generate/chase.rs`), the
//!    rounds go on, perpetual check is looked for again, and so on until
//!    neither rule finds anything.
//!
//! Rule set (the Asian rules): a position with no legal move is lost
//! (checkmate and stalemate alike); a side that can only check for ever,
//! against a side that does not, loses; so does a side that can only
//! chase one piece for ever against a side whose moves are neither all
//! checks nor all chases of one piece; every other repetition is a draw.
//! Values below [`CHASE_DTM`] are those of the perpetual-check rule alone.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;
use xqcore::{Board, Color, Position, Role, Setup};

use xqegtb::{
    board_of, color_of_side, placement_of, Indexer, Material, Placement, Value, Wdl, CHASE_DTM,
    MAX_DTM, MAX_PIECES, RULE_DTM,
};

mod candidates;
mod cells;
mod chase;
mod check;
mod dtc;
mod scratch;
mod solution;
mod walk;

use cells::{Cell, Codes};
pub use chase::MAX_VICTIMS;
pub use dtc::{DtcCells, DtcCodes};
use scratch::{CellArray, ListRoom};
pub use solution::{Solution, Solutions, Solved, Table};
use walk::{in_palace, on_own_half, step, Cursor, Node, Step, Walker, HORSE_STEPS};

/// Values of the tables a material's captures lead into.
pub trait Lookup: Sync {
    /// The value of a position for the side to move, reached by a capture:
    /// its material has one piece fewer than the table being solved.
    fn value(&self, board: &Board, turn: Color) -> Value;

    /// The solved table of a canonical material, when held in memory: the
    /// solver then reads it from placements, without boards.
    fn solution(&self, _material: &Material) -> Option<&Solution> {
        None
    }
}

/// Where the capture of one slot's piece leads: the smaller table, and
/// for each of its slots the slot of the larger table whose piece takes it.
struct CaptureTable<'a> {
    /// `None`: neither side can mate there (a dead draw).
    table: Option<&'a Solution>,
    /// Whether the smaller table's sides are the larger's swapped (its
    /// board turned round).
    swapped: bool,
    from_slots: Vec<usize>,
}

impl<'a> CaptureTable<'a> {
    /// The capture tables of `indexer`'s slots, where `lookup` holds them
    /// in memory (by slot; `None` for kings, and where it does not).
    fn of_slots(indexer: &Indexer, lookup: &'a dyn Lookup) -> Vec<Option<CaptureTable<'a>>> {
        let slots = indexer.slots();
        (0..slots.len())
            .map(|captured| {
                let piece = slots[captured];
                if piece.role == Role::King {
                    return None;
                }
                let (material, swapped) = indexer.material().without(piece.side, piece.role);
                if material.is_dead_draw() {
                    return Some(CaptureTable {
                        table: None,
                        swapped,
                        from_slots: Vec::new(),
                    });
                }
                let into = lookup.solution(&material)?;
                // Each slot of the smaller table takes the next unused
                // piece of its side and role.
                let mut used = vec![false; slots.len()];
                used[captured] = true;
                let from_slots = into
                    .indexer
                    .slots()
                    .iter()
                    .map(|small| {
                        let side = if swapped { 1 - small.side } else { small.side };
                        let slot = (0..slots.len())
                            .find(|&s| {
                                !used[s] && slots[s].side == side && slots[s].role == small.role
                            })
                            .expect("the smaller table has one piece fewer");
                        used[slot] = true;
                        slot
                    })
                    .collect();
                Some(CaptureTable {
                    table: Some(into),
                    swapped,
                    from_slots,
                })
            })
            .collect()
    }

    /// The value, for its side to move, of the position a capture reaches.
    fn value(&self, node: &Node, step: Step, mover: usize) -> Value {
        let Some(table) = self.table else {
            return Value::Draw;
        };
        let mut placement = [0u8; MAX_PIECES];
        for (square, &slot) in placement.iter_mut().zip(&self.from_slots) {
            let s = node.square_after(slot, step);
            *square = if self.swapped { 89 - s } else { s };
        }
        let index = table
            .indexer
            .index(&placement[..self.from_slots.len()])
            .expect("a legal position has an index");
        let side = (1 - mover) ^ usize::from(self.swapped);
        table.value(side, index).expect("a legal position is valid")
    }
}

/// What the solver reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// Setup: this many more indexes done (of `Indexer::size`).
    Setup(u64),
    /// A round settled this many positions at distance `dtm`.
    Round { dtm: u16, settled: usize },
    /// The perpetual-check rule found this many positions whose side can
    /// only check (each a loss; 0 when the search for them is over).
    Perpetual { trapped: usize },
    /// The perpetual-chase rule found this many positions whose side can
    /// only chase one piece (each a loss; 0 when the search is over).
    PerpetualChase { trapped: usize },
    /// The solve is over; the repetition rules' passes held at most this
    /// many bytes of candidate lists at once (see `rule_pass_bytes`).
    RuleLists { bytes: u64 },
    /// The distances to conversion: a round of `order` settled this many
    /// positions at `plies`.
    Conversion {
        order: u8,
        plies: u16,
        settled: usize,
    },
}

/// Why a material could not be solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("{material}: a mate of {RULE_DTM} plies or more, or distances past {MAX_DTM} plies: more than a table's values hold")]
    TooDeep { material: String },
    #[error("{material}: the perpetual-chase rule applies and a side has more than {MAX_VICTIMS} pieces besides its king to be chased: more than the solver tracks")]
    TooManyVictims { material: String },
    #[error("{material}: {left} decided positions got no distance to conversion")]
    Conversion { material: String, left: u64 },
    #[error("{material}: scratch file in {dir}: {reason}")]
    Scratch {
        material: String,
        dir: String,
        reason: String,
    },
}

/// Bytes the solver holds for `material` (besides the smaller tables its
/// captures read): two bytes per index and side to move, and three bits
/// more each (the rounds' two frontiers, the positions pending outside
/// the rounds). The repetition rules' passes, which run between rounds,
/// hold a bit an index in the frontiers' place, and lists of their few
/// candidates besides.
pub fn working_bytes(material: Material) -> u64 {
    let positions = 2 * Indexer::new(material).size();
    2 * positions + bit_bytes(material)
}

/// Bytes of the bit-packed state the solver holds for `material` while a
/// repetition rule's pass holds `lists` bytes of candidate lists: the
/// rounds' two frontiers are let go ([`bit_bytes`] less them), and a bit
/// an index of one side to move taken.
pub fn rule_pass_bytes(material: Material, lists: u64) -> u64 {
    let size = Indexer::new(material).size();
    let frontiers = (2 * 2 * size).div_ceil(8);
    bit_bytes(material) - frontiers + size.div_ceil(8) + lists
}

/// Bytes of the solver's bit-packed state for `material` (three bits per
/// index and side to move): what stays in memory when the cells are in
/// scratch files ([`solve_in`]).
pub fn bit_bytes(material: Material) -> u64 {
    let positions = 2 * Indexer::new(material).size();
    (3 * positions).div_ceil(8)
}

/// Indexes per unit of parallel work.
const CHUNK: u64 = 4096;

/// Solves `material` (as written: side 0 is its first side), with
/// `lookup` giving the values of the smaller tables behind its captures.
pub fn solve(
    material: Material,
    lookup: &dyn Lookup,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Solution, SolveError> {
    solve_in(material, lookup, None, progress)
}

/// Where a solve under a memory bound keeps what passes the bound.
#[derive(Clone, Copy, Debug)]
pub struct Scratch<'a> {
    /// The directory of its scratch files.
    pub dir: &'a Path,
    /// Whether the cells (two bytes an index and side to move, most of the
    /// solver's memory), and then the solution, go there: only the
    /// bit-packed state stays in memory (`bit_bytes`).
    pub cells: bool,
    /// Bytes of memory the repetition rules' candidate lists may take
    /// before they go there.
    pub lists_room: u64,
}

/// [`solve`], keeping what passes a memory bound in `scratch` when given.
pub fn solve_in(
    material: Material,
    lookup: &dyn Lookup,
    scratch: Option<Scratch>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Solution, SolveError> {
    solve_metrics(material, lookup, scratch, false, progress).map(|(solution, _)| solution)
}

/// [`solve_in`], with the distances to conversion when `dtc` asks for
/// them (a second pass over the solved table, as long as its rounds).
pub fn solve_metrics(
    material: Material,
    lookup: &dyn Lookup,
    scratch: Option<Scratch>,
    dtc: bool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Solution, Option<DtcCells>), SolveError> {
    let non_kings = |side| material.piece_count_of(side) - 1;
    if material.chase_rule_applies() && (non_kings(0) > MAX_VICTIMS || non_kings(1) > MAX_VICTIMS) {
        return Err(SolveError::TooManyVictims {
            material: material.to_string(),
        });
    }
    solve_checked(material, lookup, scratch, dtc, progress)
}

/// Most distinct successors in the table a position of `material` can
/// have, plus one for a capture that draws: the largest move counter.
fn open_max(material: Material) -> u32 {
    let moves = |role: Role| match role {
        Role::King | Role::Advisor | Role::Elephant => 4,
        Role::Horse => 8,
        Role::Rook | Role::Cannon => 17,
        Role::Pawn => 3,
    };
    (0..2)
        .map(|side| {
            Role::ALL
                .iter()
                .map(|&role| moves(role) * material.count(side, role) as u32)
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0)
        + 1
}

/// [`solve`], once the material is known to fit the solver.
fn solve_checked(
    material: Material,
    lookup: &dyn Lookup,
    bound: Option<Scratch>,
    dtc: bool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(Solution, Option<DtcCells>), SolveError> {
    let scratch = bound.filter(|b| b.cells).map(|b| b.dir);
    let indexer = Indexer::new(material);
    let size = indexer.size() as usize;
    let may_check = [0, 1].map(|side| material.has_attackers(side));
    let scratch_error = |e: std::io::Error| SolveError::Scratch {
        material: material.to_string(),
        dir: scratch.map_or(String::new(), |d| d.display().to_string()),
        reason: e.to_string(),
    };
    let cells = [CellArray::new(size, scratch), CellArray::new(size, scratch)];
    let [Ok(first), Ok(second)] = cells else {
        let [a, b] = cells;
        return Err(scratch_error(a.and(b).err().expect("one failed")));
    };
    let state = State {
        cells: [first, second],
        codes: Codes::new(open_max(material), Cell::MAX),
        unlisted: (0..=MAX_DTM as usize + 1)
            .map(|_| AtomicBool::new(false))
            .collect(),
        pending: Bits::new(2 * size as u64),
        rule_captures: AtomicBool::new(false),
        chase_captures: AtomicBool::new(false),
        indexer: &indexer,
        walker: Walker::new(&indexer),
        captures: CaptureTable::of_slots(&indexer, lookup),
        lookup,
        may_check,
        check_scans: Mutex::new([None, None]),
        chase_scans: Mutex::new([None, None]),
        lists_peak: AtomicU64::new(0),
        lists_room: bound.map(|b| ListRoom::new(b.dir, b.lists_room)),
        rule_batches: Mutex::new(Vec::new()),
    };
    // Setup: every cell, and the positions the captures already settle.
    let chunks = indexer.size().div_ceil(CHUNK);
    (0..chunks).into_par_iter().for_each(|c| {
        let start = c * CHUNK;
        let end = (start + CHUNK).min(indexer.size());
        state.setup_range(start, end);
        progress(Progress::Setup(end - start));
    });
    state.check_codes()?;
    let mut longest = state.rounds(0, progress)?;
    // Mates are shorter than RULE_DTM; longer distances here can only come
    // from captures into results of the rule.
    if longest >= RULE_DTM && !state.rule_captures.load(Relaxed) {
        return Err(SolveError::TooDeep {
            material: material.to_string(),
        });
    }
    // The perpetual-check rule: a side whose only ways to avoid losing are
    // checks for ever loses. Such losses decide more positions, which may
    // trap more checkers, so this repeats until no checker is trapped.
    // Each repeat's losses lie beyond every distance settled before, so
    // that `verify` can tell them from ordinary losses.
    while let Some(next) = state.check_rule(longest, RULE_DTM, progress)? {
        longest = next;
    }
    // The perpetual-check rule's own results stay below CHASE_DTM.
    if longest >= CHASE_DTM && !state.chase_captures.load(Relaxed) {
        return Err(SolveError::TooDeep {
            material: material.to_string(),
        });
    }
    // Then the perpetual-chase rule, from CHASE_DTM up, so that every value
    // below it holds where only perpetual check loses. Its losses may trap
    // more checkers, and those more chasers, to a fixed point of both.
    if material.chase_rule_applies() {
        // Whether the last check pass trapped a checker (the passes above
        // ran until one did not).
        let mut checked = false;
        loop {
            // One chaser at a time, each pass followed by its rounds: the
            // other chaser's pass then sees every position its losses
            // decide (a move into one of them wins, it does not chase).
            let mut chased = false;
            for chaser in [0, 1] {
                let base = CHASE_DTM.max((longest + 2) & !1);
                let trapped = state.trapped_chasers(chaser, base);
                let report = |trapped| Progress::PerpetualChase { trapped };
                if let Some(next) =
                    state.rule_losses((chaser, Rule::Chase), trapped, base, report, progress)?
                {
                    chased = true;
                    longest = next;
                }
            }
            if !chased && !checked {
                // Nothing changed since a check pass found nothing.
                break;
            }
            checked = match state.check_rule(longest, CHASE_DTM, progress)? {
                Some(next) => {
                    longest = next;
                    true
                }
                None => false,
            };
            if !chased && !checked {
                break;
            }
        }
    }
    progress(Progress::RuleLists {
        bytes: state.lists_peak.load(Relaxed),
    });
    let distances = if dtc {
        let batches = std::mem::take(&mut *state.rule_batches.lock().expect("no panic"));
        Some(state.distances_to_conversion(&batches, progress)?)
    } else {
        None
    };
    let decode = state.codes.decode_table();
    let solution =
        Solution::from_cells(indexer.clone(), state.cells, decode).map_err(scratch_error)?;
    Ok((solution, distances))
}

/// A bit per index and side to move (`side * size + index`).
struct Bits {
    words: Vec<AtomicU64>,
}

impl Bits {
    fn new(positions: u64) -> Bits {
        Bits {
            words: (0..positions.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    fn set(&self, position: u64) {
        self.words[(position / 64) as usize].fetch_or(1 << (position % 64), Relaxed);
    }

    /// The positions set among `start..end` (`start` a multiple of 64), in
    /// order.
    fn ones(&self, start: u64, end: u64) -> impl Iterator<Item = u64> + '_ {
        debug_assert_eq!(start % 64, 0, "whole words");
        (start / 64..end.div_ceil(64)).flat_map(move |w| {
            let mut bits = self.words[w as usize].load(Relaxed);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let position = w * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    position
                })
            })
            .take_while(move |&p| p < end)
        })
    }
}

struct State<'a> {
    /// By side to move, then index (see `generate/cells.rs`).
    cells: [CellArray; 2],
    codes: Codes,
    /// By distance: whether cells were settled at it outside the rounds
    /// (by captures in the setup, or by a rule), so that its round looks
    /// through the pending positions.
    unlisted: Vec<AtomicBool>,
    /// The positions settled outside the rounds and not yet followed.
    pending: Bits,
    /// Whether a capture reached a result of a repetition rule.
    rule_captures: AtomicBool,
    /// Whether a capture reached a result of the perpetual-chase rule.
    chase_captures: AtomicBool,
    indexer: &'a Indexer,
    walker: Walker<'a>,
    /// By captured slot: its smaller table, when held in memory.
    captures: Vec<Option<CaptureTable<'a>>>,
    lookup: &'a dyn Lookup,
    /// By side: whether it has pieces that give check.
    may_check: [bool; 2],
    /// By checker: what its last perpetual-check pass found.
    check_scans: Mutex<[Option<check::CheckScan>; 2]>,
    /// By chaser: what its last perpetual-chase pass found.
    chase_scans: Mutex<[Option<candidates::RuleScan>; 2]>,
    /// The most bytes of candidate lists a rule's pass held at once.
    lists_peak: AtomicU64,
    /// Under a memory bound: what the lists may take in memory before they
    /// go to scratch files.
    lists_room: Option<ListRoom>,
    /// Each repetition rule's pass that trapped positions, in order: the
    /// side to move that lost, and the indexes.
    rule_batches: Mutex<Vec<RuleBatch>>,
}

/// Which repetition rule a pass applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Check,
    Chase,
}

/// The positions one pass of a repetition rule found lost.
struct RuleBatch {
    /// Their side to move.
    side: usize,
    rule: Rule,
    trapped: Vec<u64>,
}

impl State<'_> {
    fn cell(&self, side: usize, index: u64) -> &Cell {
        &self.cells[side][index as usize]
    }

    /// Whether the position is still unsettled (or no position).
    fn is_open(&self, side: usize, index: u64) -> bool {
        self.codes.is_open(self.cell(side, index).get())
    }

    /// Stops an attempt whose cells ran out of codes.
    fn check_codes(&self) -> Result<(), SolveError> {
        if self.codes.exhausted() {
            Err(SolveError::TooDeep {
                material: self.indexer.material().to_string(),
            })
        } else {
            Ok(())
        }
    }

    /// Settles the open position as lost at `at`, or later when its
    /// captures last longer.
    fn lose(&self, side: usize, index: u64, at: u16) {
        self.set_unlisted(side, index, at.max(self.capture_loss(side, index)));
    }

    /// Settles a position at `dtm` outside the rounds, on no frontier but
    /// among the pending ones, which the round of `dtm` looks through
    /// (a later round's: the rounds before pass over its cell). Its code
    /// is handed out now, so the rounds go on until then.
    fn set_unlisted(&self, side: usize, index: u64, dtm: u16) {
        self.cell(side, index).set(self.codes.code(dtm));
        self.unlisted[dtm as usize].store(true, Relaxed);
        self.pending.set(side as u64 * self.indexer.size() + index);
    }

    /// Settles the positions whose cells hold distance `first` and
    /// everything that follows from them, round by round. Returns the
    /// longest distance settled (`first` if none).
    fn rounds(&self, first: u16, progress: &(dyn Fn(Progress) + Sync)) -> Result<u16, SolveError> {
        let positions = 2 * self.indexer.size();
        // The positions settled at this round's distance and the next's.
        let (mut now, mut next) = (Bits::new(positions), Bits::new(positions));
        let mut longest = first;
        let mut dtm = first;
        loop {
            let mut settled = 0;
            if let Some(code) = self.codes.existing(dtm) {
                let scan = self.unlisted[dtm as usize].load(Relaxed);
                settled = self.round(dtm, code, scan, &now, &next);
            }
            std::mem::swap(&mut now, &mut next);
            self.check_codes()?;
            progress(Progress::Round { dtm, settled });
            if settled > 0 {
                longest = dtm;
            }
            // Done when no position is settled further on: no distance
            // with a code beyond this one (a loss settled for a later
            // round has one).
            if settled == 0 && self.codes.longest() <= dtm {
                return Ok(longest);
            }
            if dtm == MAX_DTM {
                return Err(SolveError::TooDeep {
                    material: self.indexer.material().to_string(),
                });
            }
            dtm += 1;
        }
    }

    /// One round: the positions settled at `dtm` (their cells hold `code`)
    /// settle their predecessors, onto `next`. They are the bits of `now`,
    /// and with `scan` the pending positions whose cells hold `code`
    /// (settled outside the rounds). Leaves `now` empty. Returns how many
    /// there were.
    fn round(&self, dtm: u16, code: u32, scan: bool, now: &Bits, next: &Bits) -> usize {
        let size = self.indexer.size();
        let words_per_chunk = (CHUNK / 64) as usize;
        let chunks = now.words.len().div_ceil(words_per_chunk);
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(now.words.len());
                let mut found = 0;
                let mut scratch = (Placement::new(), Vec::with_capacity(64));
                for w in words {
                    let mut bits = now.words[w].swap(0, Relaxed);
                    if scan {
                        bits |= self.take_pending(w, dtm, code);
                    }
                    while bits != 0 {
                        let position = w as u64 * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let (side, index) = ((position / size) as usize, position % size);
                        debug_assert_eq!(self.cell(side, index).get(), code);
                        found += 1;
                        self.predecessors(side, index, dtm, next, &mut scratch);
                    }
                }
                found
            })
            .sum()
    }

    /// The pending positions among the 64 of word `w` whose cells hold
    /// `code` (distance `dtm`), as bits; they, and those the rounds have
    /// since settled sooner, are pending no more.
    fn take_pending(&self, w: usize, dtm: u16, code: u32) -> u64 {
        let size = self.indexer.size();
        let pending = self.pending.words[w].load(Relaxed);
        let (mut taken, mut done) = (0, 0);
        let mut bits = pending;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= bits - 1;
            let position = w as u64 * 64 + u64::from(bit.trailing_zeros());
            let c = self.cell((position / size) as usize, position % size).get();
            if c == code {
                taken |= bit;
            } else if self.codes.dtm_of(c).is_some_and(|d| d < dtm) {
                done |= bit;
            }
        }
        if taken | done != 0 {
            self.pending.words[w].fetch_and(!(taken | done), Relaxed);
        }
        taken
    }

    /// Follows a position settled at `dtm` (a loss when even) to its
    /// predecessors: wins one ply longer, or losses once every move is
    /// known to lose (for a later round when a capture lasts longer).
    fn predecessors(
        &self,
        side: usize,
        index: u64,
        dtm: u16,
        next_frontier: &Bits,
        (placement, parents): &mut (Placement, Vec<u64>),
    ) {
        let mover = 1 - side;
        let lost = dtm.is_multiple_of(2);
        let next = dtm + 1;
        let win = if lost { self.codes.code(next) } else { 0 };
        self.parents_into(index, mover, placement, parents);
        // The cells are far apart: ask for all of them before the first
        // atomic update waits on its own.
        for &p in parents.iter() {
            self.cells[mover][p as usize].prefetch();
        }
        for &p in parents.iter() {
            let cell = self.cell(mover, p);
            loop {
                let c = cell.get();
                if lost {
                    // Open, or won only later (by a capture, from setup).
                    let open = c != 0 && self.codes.is_open(c);
                    let longer = self.codes.dtm_of(c).is_some_and(|d| d % 2 == 1 && d > next);
                    if !(open || longer) {
                        break;
                    }
                    if cell.replace(c, win) {
                        next_frontier.set(mover as u64 * self.indexer.size() + p);
                        break;
                    }
                } else {
                    if c == 0 || !self.codes.is_open(c) {
                        break;
                    }
                    if !cell.replace(c, c - 1) {
                        continue;
                    }
                    if c == 1 {
                        let dtm = next.max(self.capture_loss(mover, p));
                        if dtm == next {
                            cell.set(self.codes.code(next));
                            next_frontier.set(mover as u64 * self.indexer.size() + p);
                        } else {
                            self.set_unlisted(mover, p, dtm);
                        }
                    }
                    break;
                }
            }
        }
    }

    /// The longest loss among the captures of the position at `index` with
    /// `side` to move (0 when none loses): a lost position lasts at least
    /// this long.
    fn capture_loss(&self, side: usize, index: u64) -> u16 {
        let mut placement = Placement::new();
        let Some(node) = self.walker.node(index, &mut placement) else {
            return 0;
        };
        if !self.walker.valid(&node, side) {
            return 0;
        }
        let mut longest = 0;
        self.walker.captures(&node, side, |step| {
            if let Value::Loss(d) = self.captured_value(&node, step).parent() {
                longest = longest.max(d);
            }
        });
        longest
    }

    /// The value of the position a capture reaches, for its side to move
    /// (from the smaller table).
    fn captured_value(&self, node: &Node, step: Step) -> Value {
        let captured = step.captured.expect("a capture");
        let slow = || {
            let (board, turn) = self.walker.board_after(node, step);
            self.lookup.value(&board, turn)
        };
        match &self.captures[captured] {
            Some(table) => {
                let value = table.value(node, step, self.walker.side_of(step.slot));
                debug_assert_eq!(value, slow(), "placements and boards agree");
                value
            }
            None => slow(),
        }
    }

    /// The perpetual-check rule, one checker at a time, each pass followed
    /// by its rounds (the other checker's pass then sees every position
    /// its losses decide): the trapped checkers lose at the first even
    /// distance past `longest` (and at least `floor`). The longest distance
    /// then settled, or `None` when no checker was trapped.
    fn check_rule(
        &self,
        mut longest: u16,
        floor: u16,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Option<u16>, SolveError> {
        let mut any = false;
        for checker in [0, 1].into_iter().filter(|&c| self.may_check[c]) {
            let base = floor.max((longest + 2) & !1);
            let trapped = self.trapped_checkers(checker, base);
            let report = |trapped| Progress::Perpetual { trapped };
            if let Some(next) =
                self.rule_losses((checker, Rule::Check), trapped, base, report, progress)?
            {
                any = true;
                longest = next;
            }
        }
        Ok(any.then_some(longest))
    }

    /// Settles the positions a repetition rule found lost (`side` to move)
    /// at `base`, reports how many there were, and runs the rounds from
    /// them. The longest distance then settled, or `None` when there were
    /// none.
    fn rule_losses(
        &self,
        (side, rule): (usize, Rule),
        trapped: Vec<u64>,
        base: u16,
        report: impl Fn(usize) -> Progress,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Option<u16>, SolveError> {
        for &index in &trapped {
            self.lose(side, index, base);
        }
        self.check_codes()?;
        progress(report(trapped.len()));
        if trapped.is_empty() {
            return Ok(None);
        }
        self.rule_batches.lock().expect("no panic").push(RuleBatch {
            side,
            rule,
            trapped,
        });
        self.rounds(base, progress).map(Some)
    }

    /// Whether every move of a drawn position that does not lose is a
    /// quiet check into a drawn position.
    ///
    /// Below [`CHASE_DTM`] (`base`) the check rule is applied alone: a
    /// capture into a smaller table's result of the chase rule escapes, as
    /// it does where only perpetual check loses, so that every value below
    /// [`CHASE_DTM`] is that rule's; from [`CHASE_DTM`] up it loses.
    fn only_checks(&self, node: &Node, side: usize, base: u16) -> bool {
        let escapes = self.walker.any_move(node, side, |step| {
            if step.captured.is_some() {
                // A capture that does not lose leaves the cycle.
                let v = self.captured_value(node, step);
                v.wdl() != Wdl::Win || (base < CHASE_DTM && v.by_chase_rule())
            } else {
                !self.walker.gives_check(node, step)
                    && self.is_open(1 - side, self.walker.child_index(node, step))
            }
        });
        !escapes
    }

    /// The distinct indexes from which `mover` reaches the position at
    /// `index` by a quiet move (un-moves; legality is the caller's
    /// business: positions that cannot occur are never open), into `out`,
    /// with `placement` for scratch.
    fn parents_into(
        &self,
        index: u64,
        mover: usize,
        placement: &mut Placement,
        out: &mut Vec<u64>,
    ) {
        self.indexer.placement(index, placement);
        out.clear();
        let mut mirrored = [0u8; MAX_PIECES];
        let mirror = self.indexer.mirror_raw(index, placement, &mut mirrored);
        let mirror = mirror.map(|raw| (raw, &mirrored[..placement.len()]));
        un_moves(self.indexer, placement, mover, |slot, from| {
            out.push(
                self.indexer
                    .moved_index_mirrored(index, placement, mirror, slot, from),
            );
        });
        if self.walker.near_symmetric_placement(placement) {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// Sets up the cells of indexes `start..end`: no position, a move
    /// counter, or the distance the captures already decide (a capture
    /// that wins, the rounds may still shorten; every move a capture that
    /// loses).
    fn setup_range(&self, start: u64, end: u64) {
        let mut cursor = Cursor::default();
        let mut successors: Vec<u64> = Vec::with_capacity(128);
        for index in start..end {
            let node = self.walker.node_at(index, &mut cursor);
            for side in 0..2 {
                let cell = self.cell(side, index);
                let Some(node) = node.as_ref().filter(|n| self.walker.valid(n, side)) else {
                    cell.set(Cell::MAX);
                    continue;
                };
                let mut best_capture: Option<Value> = None;
                let mut capture_loss = 0u16;
                let mut blocked = false;
                successors.clear();
                // Far from its mirror image, a position's quiet moves reach
                // distinct indexes: they need only be counted.
                let distinct = !self.walker.near_symmetric(node);
                let mut quiet = 0;
                self.walker.moves(node, side, |step| {
                    if step.captured.is_some() {
                        let v = self.captured_value(node, step).parent();
                        if v.by_rule() {
                            self.rule_captures.store(true, Relaxed);
                        }
                        if v.by_chase_rule() {
                            self.chase_captures.store(true, Relaxed);
                        }
                        match v {
                            Value::Loss(d) => capture_loss = capture_loss.max(d),
                            _ => blocked = true,
                        }
                        if best_capture.is_none_or(|b| v.better_than(b)) {
                            best_capture = Some(v);
                        }
                    } else if distinct {
                        quiet += 1;
                    } else {
                        successors.push(self.walker.child_index(node, step));
                    }
                });
                successors.sort_unstable();
                successors.dedup();
                let open = quiet + successors.len() + usize::from(blocked);
                match best_capture {
                    Some(Value::Win(d)) => self.set_unlisted(side, index, d),
                    // Every move is a capture that loses: the longest loss.
                    _ if open == 0 => self.set_unlisted(side, index, capture_loss),
                    _ => {
                        assert!(open as u32 <= self.codes.open_max(), "counted moves fit");
                        cell.set(open as u32);
                    }
                }
            }
        }
    }
}

/// Where a position of the table's own material (as written, not colour
/// flipped) stands in it: the side to move and the index.
pub fn table_position(
    indexer: &Indexer,
    pos: &Position,
    placement: &mut Placement,
) -> (usize, u64) {
    placement_of(indexer, pos.board(), false, placement);
    let index = indexer
        .index(placement)
        .expect("a legal position has an index");
    (usize::from(pos.turn() != color_of_side(0, false)), index)
}

/// The positions an index names, for each side to move (0: the side
/// written first): `None` where the index names no position (pieces
/// sharing a square, the larger of a mirror pair) or the position cannot
/// occur with that side to move (the other side in check, kings facing).
pub fn positions_at(
    indexer: &Indexer,
    index: u64,
    placement: &mut Placement,
) -> [Option<Position>; 2] {
    indexer.placement(index, placement);
    positions_of(indexer, index, placement)
}

/// [`positions_at`] with `placement` already that of `index` (as
/// [`Indexer::placement`] or [`Indexer::step_placement`] give it).
pub fn positions_of(indexer: &Indexer, index: u64, placement: &[u8]) -> [Option<Position>; 2] {
    if !indexer.is_canonical(index, placement) {
        return [None, None];
    }
    let board = board_of(indexer, placement);
    let position = |board, side| {
        Position::from_setup(Setup {
            board,
            turn: color_of_side(side, false),
            plies_since_capture: 0,
            fullmoves: 1,
        })
        .ok()
    };
    // One copy of the board, not two: positions are built by the million.
    [position(board.clone(), 0), position(board, 1)]
}

/// The non-capturing moves by which `side` could have reached
/// `placement`: calls `visit` with the slot of each piece of `side` that
/// could have come back along its own moves from an empty square, and
/// that square. Legality of the result is the caller's business.
fn un_moves(indexer: &Indexer, placement: &[u8], side: usize, mut visit: impl FnMut(usize, u8)) {
    let occupied = placement.iter().fold(0u128, |o, &s| o | 1 << s);
    let empty = |s: u8| occupied & 1 << s == 0;
    for (slot, piece) in indexer.slots().iter().enumerate() {
        if piece.side != side {
            continue;
        }
        let to = placement[slot];
        let mut origin = |from: u8| visit(slot, from);
        match piece.role {
            Role::King => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    if let Some(s) = step(to, dr, df) {
                        if in_palace(s, side) && empty(s) {
                            origin(s);
                        }
                    }
                }
            }
            Role::Advisor => {
                for (dr, df) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(s) = step(to, dr, df) {
                        if in_palace(s, side) && empty(s) {
                            origin(s);
                        }
                    }
                }
            }
            Role::Elephant => {
                for (dr, df) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    let (Some(s), Some(eye)) = (step(to, dr, df), step(to, dr / 2, df / 2)) else {
                        continue;
                    };
                    if on_own_half(s, side) && empty(s) && empty(eye) {
                        origin(s);
                    }
                }
            }
            Role::Horse => {
                for (dr, df) in HORSE_STEPS {
                    // From `s` the horse steps first along its long leg.
                    let leg = if dr.abs() == 2 {
                        step(to, -dr / 2, -df)
                    } else {
                        step(to, -dr, -df / 2)
                    };
                    let (Some(s), Some(leg)) = (step(to, -dr, -df), leg) else {
                        continue;
                    };
                    if empty(s) && empty(leg) {
                        origin(s);
                    }
                }
            }
            Role::Rook | Role::Cannon => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let mut at = step(to, dr, df);
                    while let Some(s) = at.filter(|&s| empty(s)) {
                        origin(s);
                        at = step(s, dr, df);
                    }
                }
            }
            Role::Pawn => {
                let forward = if side == 0 { 1 } else { -1 };
                if let Some(s) = step(to, -forward, 0) {
                    if pawn_square(s, side) && empty(s) {
                        origin(s);
                    }
                }
                if !on_own_half(to, side) {
                    for df in [1, -1] {
                        if let Some(s) = step(to, 0, df) {
                            if empty(s) {
                                origin(s);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Whether a pawn of table side `side` can stand on `s`.
fn pawn_square(s: u8, side: usize) -> bool {
    let (rank, file) = (s / 9, s % 9);
    let ahead = if side == 0 { rank } else { 9 - rank };
    ahead >= 5 || (ahead >= 3 && file % 2 == 0)
}
