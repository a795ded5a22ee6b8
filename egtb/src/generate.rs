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
//!    leave the table and are scored at once from the smaller tables.
//! 2. **Rounds**: the positions settled at distance `n` are walked
//!    backwards (un-moves of the side that just moved: no un-captures, no
//!    pawn steps backwards), and each predecessor is either won at `n + 1`
//!    or has one more move known to lose.
//! 3. Whatever is left unsettled is a draw: neither side can force mate.
//!
//! Rounds run in parallel (rayon); values and move counters are atomics,
//! and each round only reads what earlier rounds settled, so the result
//! does not depend on the number of threads.
//!
//! 4. **Perpetual check** (when a side has pieces that give check): among
//!    the draws, a greatest fixed point finds the positions whose side can
//!    only avoid losing by checking for ever (`State::trapped_checkers`);
//!    they lose, the rounds go on from them, and the search repeats until
//!    it finds none. These results lie from [`RULE_DTM`] up.
//! 5. **Perpetual chase** (when both sides have a rook, horse or cannon):
//!    from [`CHASE_DTM`] up, the positions whose side can only avoid
//!    losing by chasing one piece for ever lose (`generate/chase.rs`), the
//!    rounds go on, perpetual check is looked for again, and so on until
//!    neither rule finds anything.
//!
//! Rule set (the Asian rules): a position with no legal move is lost
//! (checkmate and stalemate alike); a side that can only check for ever,
//! or only chase one piece for ever against a side that neither checks
//! nor chases, loses; every other repetition is a draw. Values below
//! [`CHASE_DTM`] are those of the perpetual-check rule alone.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use xqcore::{Board, Color, Position, Role, Setup};

use crate::index::{Indexer, Placement};
use crate::material::{color_of_side, Material};
use crate::orient::{board_of, placement_of};
use crate::value::{Value, Wdl, CHASE_DTM, INVALID, MAX_DTM, RULE_DTM};

mod chase;

pub use chase::MAX_VICTIMS;

/// Values of the tables a material's captures lead into.
pub trait Lookup: Sync {
    /// The value of a position for the side to move, reached by a capture:
    /// its material has one piece fewer than the table being solved.
    fn value(&self, board: &Board, turn: Color) -> Value;
}

/// A solved material: one value code per index and side to move
/// ([`Value::to_code`], [`INVALID`] for positions that cannot occur).
pub struct Solved {
    pub indexer: Indexer,
    /// By side to move (0: the side written first), then by index.
    pub values: [Vec<u16>; 2],
}

impl Solved {
    /// The value of the position at `index` with `side` to move; `None`
    /// for one that cannot occur.
    pub fn value(&self, side: usize, index: u64) -> Option<Value> {
        Value::from_code(self.values[side][index as usize])
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
}

/// Why a material could not be solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("{material}: a mate of {RULE_DTM} plies or more, or distances past {MAX_DTM} plies: more than a table's values hold")]
    TooDeep { material: String },
    #[error("{material}: the perpetual-chase rule applies and a side has more than {MAX_VICTIMS} pieces besides its king to be chased: more than the solver tracks")]
    TooManyVictims { material: String },
}

/// A position settled in a round, or scheduled for a later one.
#[derive(Clone, Copy, Debug)]
struct Settled {
    side: u8,
    index: u64,
    value: Value,
}

/// Bytes the solver holds for `material`, per index and side to move:
/// values and capture losses two bytes each, unresolved counts one, and
/// two more for the perpetual-check pass when a side can check.
pub fn working_bytes(material: Material) -> u64 {
    let per_index = if material.has_attackers(0) || material.has_attackers(1) {
        14
    } else {
        10
    };
    per_index * Indexer::new(material).size()
}

/// Indexes per unit of parallel setup work.
const CHUNK: u64 = 4096;

/// Solves `material` (as written: side 0 is its first side), with
/// `lookup` giving the values of the smaller tables behind its captures.
pub fn solve(
    material: Material,
    lookup: &dyn Lookup,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Solved, SolveError> {
    let non_kings = |side| material.piece_count_of(side) - 1;
    if material.chase_rule_applies() && (non_kings(0) > MAX_VICTIMS || non_kings(1) > MAX_VICTIMS) {
        return Err(SolveError::TooManyVictims {
            material: material.to_string(),
        });
    }
    let indexer = Indexer::new(material);
    let size = indexer.size() as usize;
    let state = State {
        values: [0, 1].map(|_| (0..size).map(|_| AtomicU16::new(0)).collect()),
        unresolved: [0, 1].map(|_| (0..size).map(|_| AtomicU8::new(0)).collect()),
        capture_loss: [0, 1].map(|_| (0..size).map(|_| AtomicU16::new(0)).collect()),
        rule_captures: AtomicBool::new(false),
        chase_captures: AtomicBool::new(false),
        indexer: &indexer,
    };
    // Setup: per chunk, the positions already settled by their captures.
    let chunks = indexer.size().div_ceil(CHUNK);
    let found: Vec<Settled> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let start = c * CHUNK;
            let end = (start + CHUNK).min(indexer.size());
            let found = state.setup_range(start, end, lookup);
            progress(Progress::Setup(end - start));
            found
        })
        .collect();
    let mut longest = state.rounds(found, 0, progress)?;
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
    let may_check = [0, 1].map(|side| material.has_attackers(side));
    let traps = may_check.iter().any(|&c| c).then(|| Traps::new(size));
    if let Some(traps) = &traps {
        while let Some(next) =
            state.check_rule(traps, may_check, longest, RULE_DTM, lookup, progress)?
        {
            longest = next;
        }
    }
    // The perpetual-check rule's own results stay below CHASE_DTM.
    if longest >= CHASE_DTM && !state.chase_captures.load(Relaxed) {
        return Err(SolveError::TooDeep {
            material: material.to_string(),
        });
    }
    // Then the perpetual-chase rule, from CHASE_DTM up, so that every value
    // below it holds where only perpetual check loses. Its losses may trap
    // more checkers, and those more chasers, to a fixed point.
    if material.chase_rule_applies() {
        let traps = traps.as_ref().expect("chasers can check");
        loop {
            let base = CHASE_DTM.max((longest + 2) & !1);
            let trapped: Vec<Settled> = [0, 1]
                .into_iter()
                .flat_map(|chaser| state.trapped_chasers(chaser, base, lookup))
                .collect();
            progress(Progress::PerpetualChase {
                trapped: trapped.len(),
            });
            let chased = !trapped.is_empty();
            if chased {
                longest = state.rounds(trapped, base, progress)?;
            }
            let checked =
                match state.check_rule(traps, may_check, longest, CHASE_DTM, lookup, progress)? {
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
    let values = state
        .values
        .map(|v| v.into_iter().map(|a| a.into_inner()).collect::<Vec<u16>>());
    Ok(Solved { indexer, values })
}

/// Flags of the perpetual-check pass, by side to move and index.
struct Traps {
    /// [`TRAPPED`] and [`HOLDING`] bits.
    flags: [Vec<AtomicU8>; 2],
    /// For a holding position: its quiet, non-checking moves into
    /// positions still trapped (distinct successors).
    holds: [Vec<AtomicU8>; 2],
}

/// A position that stopped being [`TRAPPED`] or [`HOLDING`]: side to move,
/// index and which of the two it was.
type Released = (usize, u64, u8);

/// A drawn position, not in check, whose every move that avoids losing is
/// a quiet check into a holding position: its side can only check.
const TRAPPED: u8 = 1;
/// A drawn position in check whose side has a quiet, non-checking move
/// into a trapped position: it keeps the checker trapped.
const HOLDING: u8 = 2;

impl Traps {
    fn new(size: usize) -> Traps {
        let zeros = || (0..size).map(|_| AtomicU8::new(0)).collect();
        Traps {
            flags: [zeros(), zeros()],
            holds: [zeros(), zeros()],
        }
    }
}

struct State<'a> {
    /// 0 while unsettled, [`INVALID`], or a value code.
    values: [Vec<AtomicU16>; 2],
    /// Distinct successors in the table not yet known to be won for the
    /// opponent, plus one when a capture draws or wins (then the position
    /// is never lost).
    unresolved: [Vec<AtomicU8>; 2],
    /// The loss distance forced by captures into positions the opponent
    /// wins (0 when there are none): a lost position lasts at least this long.
    capture_loss: [Vec<AtomicU16>; 2],
    /// Whether a capture reached a result of a repetition rule.
    rule_captures: AtomicBool,
    /// Whether a capture reached a result of the perpetual-chase rule.
    chase_captures: AtomicBool,
    indexer: &'a Indexer,
}

impl State<'_> {
    /// Settles `found` (positions whose distance is already known) and
    /// everything that follows from them, round by round from distance
    /// `first`. Returns the longest distance settled (`first` if none).
    fn rounds(
        &self,
        found: Vec<Settled>,
        first: u16,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<u16, SolveError> {
        // Positions whose distance is known before their round, by distance.
        let mut scheduled: BTreeMap<u16, Vec<Settled>> = BTreeMap::new();
        let mut pending = 0usize;
        let schedule = |scheduled: &mut BTreeMap<u16, Vec<Settled>>, s: Settled| {
            let dtm = s.value.dtm().expect("decided");
            scheduled.entry(dtm).or_default().push(s);
        };
        for s in found {
            schedule(&mut scheduled, s);
            pending += 1;
        }
        let mut dtm = first;
        let mut longest = first;
        let mut frontier: Vec<Settled> = Vec::new();
        loop {
            // Positions whose distance was fixed ahead of time settle now,
            // unless something shorter settled them first.
            let now = scheduled.remove(&dtm).unwrap_or_default();
            pending -= now.len();
            frontier.extend(now.into_iter().filter(|s| self.settle(s)));
            progress(Progress::Round {
                dtm,
                settled: frontier.len(),
            });
            if !frontier.is_empty() {
                longest = dtm;
            }
            if frontier.is_empty() && pending == 0 {
                return Ok(longest);
            }
            if dtm == MAX_DTM {
                return Err(SolveError::TooDeep {
                    material: self.indexer.material().to_string(),
                });
            }
            let (next, later): (Vec<Settled>, Vec<Settled>) = frontier
                .par_iter()
                .flat_map_iter(|s| self.predecessors(s))
                .partition(|s| s.value.dtm() == Some(dtm + 1));
            pending += later.len();
            for s in later {
                schedule(&mut scheduled, s);
            }
            frontier = next;
            dtm += 1;
        }
    }

    /// One pass of the perpetual-check rule: the trapped checkers lose at
    /// the first even distance past `longest` (and at least `floor`), and
    /// the rounds go on from them. The longest distance then settled, or
    /// `None` when no checker was trapped.
    fn check_rule(
        &self,
        traps: &Traps,
        may_check: [bool; 2],
        longest: u16,
        floor: u16,
        lookup: &dyn Lookup,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Option<u16>, SolveError> {
        let base = floor.max((longest + 2) & !1);
        let trapped = self.trapped_checkers(traps, may_check, base, lookup);
        progress(Progress::Perpetual {
            trapped: trapped.len(),
        });
        if trapped.is_empty() {
            return Ok(None);
        }
        self.rounds(trapped, base, progress).map(Some)
    }

    /// The drawn positions whose side to move can only check for ever, as
    /// losses at `base` (or longer, when a capture loses more slowly), not
    /// yet settled. `may_check`: which sides have pieces that give check.
    ///
    /// A greatest fixed point: every drawn position not in check whose
    /// non-losing moves are all quiet checks starts out trapped, every
    /// drawn position in check starts out holding; then a holding position
    /// with no quiet, non-checking move left into a trapped one stops
    /// holding, and a trapped position with a non-losing check into a
    /// position that stopped holding stops being trapped, until nothing
    /// changes. What is left trapped can only check, and the other side
    /// answers every check without checking, so the checker loses.
    fn trapped_checkers(
        &self,
        traps: &Traps,
        may_check: [bool; 2],
        base: u16,
        lookup: &dyn Lookup,
    ) -> Vec<Settled> {
        let size = self.indexer.size();
        // Candidates.
        (0..size.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(size));
            self.mark_candidates(traps, start, end, may_check, base, lookup);
        });
        let mut released: Vec<Released> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(size));
                self.count_holds(traps, start, end)
            })
            .collect();
        // Release until nothing changes.
        while !released.is_empty() {
            released = released
                .par_iter()
                .flat_map_iter(|&released| self.release(traps, released))
                .collect();
        }
        (0..2usize)
            .flat_map(|side| {
                let flags = &traps.flags[side];
                let capture_loss = &self.capture_loss[side];
                (0..size)
                    .into_par_iter()
                    .filter(move |&i| flags[i as usize].load(Relaxed) & TRAPPED != 0)
                    .map(move |index| Settled {
                        side: side as u8,
                        index,
                        value: Value::Loss(base.max(capture_loss[index as usize].load(Relaxed))),
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Flags the candidates among indexes `start..end`: drawn positions in
    /// check hold, drawn positions out of check whose every non-losing move
    /// is a quiet check are trapped (`base`: see [`State::only_checks`]).
    fn mark_candidates(
        &self,
        traps: &Traps,
        start: u64,
        end: u64,
        may_check: [bool; 2],
        base: u16,
        lookup: &dyn Lookup,
    ) {
        let mut placement = Placement::new();
        let mut child = Placement::new();
        for index in start..end {
            let i = index as usize;
            let open = [0, 1].map(|side| self.values[side][i].load(Relaxed) == 0);
            if !open.iter().any(|&o| o) {
                for side in 0..2 {
                    traps.flags[side][i].store(0, Relaxed);
                }
                continue;
            }
            let positions = positions_at(self.indexer, index, &mut placement);
            for (side, pos) in positions.into_iter().enumerate() {
                let flag = match pos {
                    Some(pos) if open[side] => {
                        if pos.in_check() {
                            HOLDING
                        } else if may_check[side] && self.only_checks(pos, base, lookup, &mut child)
                        {
                            TRAPPED
                        } else {
                            0
                        }
                    }
                    _ => 0,
                };
                traps.flags[side][i].store(flag, Relaxed);
            }
        }
    }

    /// Whether every move of a drawn position that does not lose is a
    /// quiet check into a drawn position.
    ///
    /// Below [`CHASE_DTM`] (`base`) the check rule is applied alone: a
    /// capture into a smaller table's result of the chase rule escapes, as
    /// it does where only perpetual check loses, so that every value below
    /// [`CHASE_DTM`] is that rule's; from [`CHASE_DTM`] up it loses.
    fn only_checks(
        &self,
        mut pos: Position,
        base: u16,
        lookup: &dyn Lookup,
        child: &mut Placement,
    ) -> bool {
        for &m in pos.legal_moves().iter() {
            let capture = pos.board().piece_at(m.to()).is_some();
            pos.make_move(m);
            let escapes = if capture {
                // A capture that does not lose leaves the cycle.
                let v = lookup.value(pos.board(), pos.turn());
                v.wdl() != Wdl::Win || (base < CHASE_DTM && v.by_chase_rule())
            } else {
                let (side, index) = table_position(self.indexer, &pos, child);
                self.values[side][index as usize].load(Relaxed) == 0 && !pos.in_check()
            };
            pos.unmake_move();
            if escapes {
                return false;
            }
        }
        true
    }

    /// Counts, for the holding candidates among indexes `start..end`, their
    /// quiet moves into trapped positions (distinct successors; such moves
    /// never check, as a trapped position is not in check). Returns the
    /// candidates with none, released at once.
    fn count_holds(&self, traps: &Traps, start: u64, end: u64) -> Vec<Released> {
        let mut released = Vec::new();
        let mut placement = Placement::new();
        let mut child = Placement::new();
        let mut successors: Vec<u64> = Vec::with_capacity(128);
        for index in start..end {
            let i = index as usize;
            let holding = [0, 1].map(|side| traps.flags[side][i].load(Relaxed) == HOLDING);
            if !holding.iter().any(|&h| h) {
                continue;
            }
            let positions = positions_at(self.indexer, index, &mut placement);
            for (side, pos) in positions.into_iter().enumerate() {
                let (true, Some(mut pos)) = (holding[side], pos) else {
                    continue;
                };
                successors.clear();
                for &m in pos.legal_moves().iter() {
                    if pos.board().piece_at(m.to()).is_some() {
                        continue;
                    }
                    pos.make_move(m);
                    successors.push(table_position(self.indexer, &pos, &mut child).1);
                    pos.unmake_move();
                }
                successors.sort_unstable();
                successors.dedup();
                let opponent = 1 - side;
                let holds = successors
                    .iter()
                    .filter(|&&s| traps.flags[opponent][s as usize].load(Relaxed) & TRAPPED != 0)
                    .count();
                traps.holds[side][i].store(holds as u8, Relaxed);
                if holds == 0 {
                    traps.flags[side][i].store(0, Relaxed);
                    released.push((side, index, HOLDING));
                }
            }
        }
        released
    }

    /// Follows a position that stopped being trapped or holding to its
    /// predecessors (un-moves of the other side); returns those released
    /// in turn. A trapped position's checks reach positions in check, so a
    /// position that stops holding releases the trapped ones before it; a
    /// holding position's counted moves reach trapped ones, so a position
    /// that stops being trapped takes one from each holding one before it.
    fn release(&self, traps: &Traps, (side, index, was): Released) -> Vec<Released> {
        let mover = 1 - side;
        let mut released = Vec::new();
        for p in self.parents(index, mover) {
            let (flag, holds) = (
                &traps.flags[mover][p as usize],
                &traps.holds[mover][p as usize],
            );
            let kind = if was == HOLDING { TRAPPED } else { HOLDING };
            if flag.load(Relaxed) != kind {
                continue;
            }
            let release = kind == TRAPPED || holds.fetch_sub(1, Relaxed) == 1;
            if release && flag.swap(0, Relaxed) == kind {
                released.push((mover, p, kind));
            }
        }
        released
    }

    /// The distinct indexes from which `mover` reaches the position at
    /// `index` by a quiet move (un-moves; legality is the caller's
    /// business: positions that cannot occur are never open).
    fn parents(&self, index: u64, mover: usize) -> Vec<u64> {
        let mut placement = Placement::new();
        self.indexer.placement(index, &mut placement);
        let mut parents = Vec::with_capacity(64);
        un_moves(self.indexer, &placement, mover, &mut |parent| {
            parents.push(
                self.indexer
                    .index(parent)
                    .expect("a predecessor on its points"),
            );
        });
        parents.sort_unstable();
        parents.dedup();
        parents
    }

    /// Settles a position if it is still open; whether it was.
    fn settle(&self, s: &Settled) -> bool {
        self.values[s.side as usize][s.index as usize]
            .compare_exchange(0, s.value.to_code(), Relaxed, Relaxed)
            .is_ok()
    }

    /// Sets up indexes `start..end`; returns the positions whose value the
    /// setup already decides (no move, or a capture that wins), to be
    /// settled in the round of their distance.
    fn setup_range(&self, start: u64, end: u64, lookup: &dyn Lookup) -> Vec<Settled> {
        let mut found = Vec::new();
        let mut placement = Placement::new();
        let mut child = Placement::new();
        let mut successors: Vec<u64> = Vec::with_capacity(128);
        for index in start..end {
            let i = index as usize;
            let positions = positions_at(self.indexer, index, &mut placement);
            for (side, pos) in positions.into_iter().enumerate() {
                let Some(mut pos) = pos else {
                    self.values[side][i].store(INVALID, Relaxed);
                    continue;
                };
                let mut best_capture: Option<Value> = None;
                let mut capture_loss = 0u16;
                let mut blocked = false;
                successors.clear();
                for &m in pos.legal_moves().iter() {
                    let capture = pos.board().piece_at(m.to()).is_some();
                    pos.make_move(m);
                    if capture {
                        let v = lookup.value(pos.board(), pos.turn()).parent();
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
                    } else {
                        successors.push(table_position(self.indexer, &pos, &mut child).1);
                    }
                    pos.unmake_move();
                }
                successors.sort_unstable();
                successors.dedup();
                let open = successors.len() + usize::from(blocked);
                self.unresolved[side][i].store(open as u8, Relaxed);
                self.capture_loss[side][i].store(capture_loss, Relaxed);
                let decided = match best_capture {
                    Some(v @ Value::Win(_)) => Some(v),
                    // Every move is a capture that loses: the longest loss.
                    _ if open == 0 => Some(Value::Loss(capture_loss)),
                    _ => None,
                };
                if let Some(value) = decided {
                    found.push(Settled {
                        side: side as u8,
                        index,
                        value,
                    });
                }
            }
        }
        found
    }

    /// The predecessors of a position settled in this round whose values
    /// follow from it: wins one ply longer, or losses once every move is
    /// known to lose (scheduled later when a capture lasts longer).
    fn predecessors(&self, s: &Settled) -> Vec<Settled> {
        let mut out = Vec::new();
        let mover = 1 - s.side as usize;
        for p in self.parents(s.index, mover) {
            let i = p as usize;
            if self.values[mover][i].load(Relaxed) != 0 {
                continue;
            }
            let value = match s.value {
                Value::Loss(d) => Value::Win(d + 1),
                Value::Win(d) => {
                    if self.unresolved[mover][i].fetch_sub(1, Relaxed) != 1 {
                        continue;
                    }
                    Value::Loss((d + 1).max(self.capture_loss[mover][i].load(Relaxed)))
                }
                Value::Draw => unreachable!("draws are never settled in rounds"),
            };
            let settled = Settled {
                side: mover as u8,
                index: p,
                value,
            };
            // Wins one ply on settle now (first come, same value); longer
            // losses wait for their round.
            if value.dtm() != Some(s.value.dtm().expect("decided") + 1) || self.settle(&settled) {
                out.push(settled);
            }
        }
        out
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
    if !indexer.is_canonical(index, placement) {
        return [None, None];
    }
    let board = board_of(indexer, placement);
    [0, 1].map(|side| {
        Position::from_setup(Setup {
            board: board.clone(),
            turn: color_of_side(side, false),
            plies_since_capture: 0,
            fullmoves: 1,
        })
        .ok()
    })
}

/// Calls `visit` with every placement from which `side` could have made a
/// non-capturing move to reach `placement` (pieces of `side` moved back
/// along their own moves onto empty squares). Legality of the result is
/// the caller's business.
pub fn un_moves(indexer: &Indexer, placement: &[u8], side: usize, visit: &mut dyn FnMut(&[u8])) {
    let occupied = placement.iter().fold(0u128, |o, &s| o | 1 << s);
    let empty = |s: u8| occupied & 1 << s == 0;
    let mut parent: Placement = placement.to_vec();
    for (slot, piece) in indexer.slots().iter().enumerate() {
        if piece.side != side {
            continue;
        }
        let to = placement[slot];
        let mut origin = |from: u8| {
            parent[slot] = from;
            visit(&parent);
            parent[slot] = to;
        };
        let (rank, file) = ((to / 9) as i32, (to % 9) as i32);
        let at = |r: i32, f: i32| {
            ((0..10).contains(&r) && (0..9).contains(&f)).then(|| (r * 9 + f) as u8)
        };
        match piece.role {
            Role::King => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    if let Some(s) = at(rank + dr, file + df) {
                        if in_palace(s, side) && empty(s) {
                            origin(s);
                        }
                    }
                }
            }
            Role::Advisor => {
                for (dr, df) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(s) = at(rank + dr, file + df) {
                        if in_palace(s, side) && empty(s) {
                            origin(s);
                        }
                    }
                }
            }
            Role::Elephant => {
                for (dr, df) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    let (Some(s), Some(eye)) =
                        (at(rank + dr, file + df), at(rank + dr / 2, file + df / 2))
                    else {
                        continue;
                    };
                    if on_own_half(s, side) && empty(s) && empty(eye) {
                        origin(s);
                    }
                }
            }
            Role::Horse => {
                for (dr, df) in [
                    (1, 2),
                    (1, -2),
                    (-1, 2),
                    (-1, -2),
                    (2, 1),
                    (2, -1),
                    (-2, 1),
                    (-2, -1),
                ] {
                    // From `s` the horse steps first along its long leg.
                    let (r, f) = (rank - dr, file - df);
                    let leg = if dr.abs() == 2 {
                        at(r + dr / 2, f)
                    } else {
                        at(r, f + df / 2)
                    };
                    let (Some(s), Some(leg)) = (at(r, f), leg) else {
                        continue;
                    };
                    if empty(s) && empty(leg) {
                        origin(s);
                    }
                }
            }
            Role::Rook | Role::Cannon => {
                for (dr, df) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let (mut r, mut f) = (rank + dr, file + df);
                    while let Some(s) = at(r, f) {
                        if !empty(s) {
                            break;
                        }
                        origin(s);
                        r += dr;
                        f += df;
                    }
                }
            }
            Role::Pawn => {
                let forward = if side == 0 { 1 } else { -1 };
                if let Some(s) = at(rank - forward, file) {
                    if pawn_square(s, side) && empty(s) {
                        origin(s);
                    }
                }
                if !on_own_half(to, side) {
                    for df in [1, -1] {
                        if let Some(s) = at(rank, file + df) {
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

/// Whether square `s` is in the palace of table side `side` (0: bottom).
fn in_palace(s: u8, side: usize) -> bool {
    let (rank, file) = (s / 9, s % 9);
    let ranks = if side == 0 { 0..=2 } else { 7..=9 };
    (3..=5).contains(&file) && ranks.contains(&rank)
}

/// Whether square `s` is on table side `side`'s half of the board.
fn on_own_half(s: u8, side: usize) -> bool {
    (s / 9 <= 4) == (side == 0)
}

/// Whether a pawn of table side `side` can stand on `s`.
fn pawn_square(s: u8, side: usize) -> bool {
    let (rank, file) = (s / 9, s % 9);
    let ahead = if side == 0 { rank } else { 9 - rank };
    ahead >= 5 || (ahead >= 3 && file % 2 == 0)
}

/// Solved tables held in memory, looked up by material: what a material's
/// captures need while a set of tables is generated smallest first.
#[derive(Default)]
pub struct Solutions {
    tables: std::collections::HashMap<Material, Solved>,
}

impl Solutions {
    /// Adds a solved table.
    pub fn insert(&mut self, solved: Solved) {
        self.tables.insert(solved.indexer.material(), solved);
    }

    /// The solved table of a canonical material.
    pub fn get(&self, material: &Material) -> Option<&Solved> {
        self.tables.get(material)
    }

    /// Keeps only the tables whose material passes `keep`.
    pub fn retain(&mut self, mut keep: impl FnMut(&Material) -> bool) {
        self.tables.retain(|m, _| keep(m));
    }

    /// Bytes of values held.
    pub fn bytes(&self) -> u64 {
        self.tables
            .values()
            .map(|t| (t.values[0].len() + t.values[1].len()) as u64)
            .sum::<u64>()
            * std::mem::size_of::<u16>() as u64
    }
}

impl Lookup for Solutions {
    /// # Panics
    /// If the position's table was not solved before (dead draws need none).
    fn value(&self, board: &Board, turn: Color) -> Value {
        let (material, swapped) = crate::orient::table_of(board);
        if material.is_dead_draw() {
            return Value::Draw;
        }
        let table = self.tables.get(&material).unwrap_or_else(|| {
            panic!("{material} is solved before the tables that capture into it")
        });
        let mut placement = Placement::new();
        placement_of(&table.indexer, board, swapped, &mut placement);
        let index = table
            .indexer
            .index(&placement)
            .expect("a legal position has an index");
        table
            .value(crate::orient::side_of(turn, swapped), index)
            .expect("a legal position is valid")
    }
}
