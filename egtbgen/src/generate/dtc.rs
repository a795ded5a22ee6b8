//! The distance to conversion ([`xqegtb::Dtc`]), counted once the values
//! are solved: a second retrograde pass over the decided positions, whose
//! verdicts it no longer has to find, only their distances.
//!
//! Conversions are captures into a smaller table's win for the capturer,
//! and mates: a won position with such a capture is won at 1; a lost
//! position without quiet moves (mated, or left only captures that lose) is
//! lost at 0. From there rounds of increasing distance: a position lost at
//! `n` makes its predecessors won at `n + 1`, and a lost position whose
//! quiet moves all reach wins for the opponent is lost at one more than the
//! longest of them (its captures all lose, and convert sooner).
//!
//! The repetition rules' results come after, in the order the solver found
//! them: each pass's trapped positions are lost at 0 in its order, and the
//! rounds go on from them. Rounds settle exactly what the solver's rounds
//! settled, in the same order, so every decided position gets a distance.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use xqegtb::{Dtc, Placement, TableCodes, Value, Wdl, INVALID, MAX_DTC, MAX_ORDER};

use super::cells::Cell;
use super::scratch::CellArray;
use super::walk::Cursor;
use super::{Bits, Progress, Rule, RuleBatch, Solution, SolveError, State, CHUNK};

/// A settled cell: this bit, the order (bits 10-14) and the plies (0-9).
const SETTLED: u32 = 0x8000;
/// An unsettled win.
const OPEN_WIN: u32 = 0x7fff;
/// A draw, or no position: never settled.
const NEVER: u32 = 0x7ffe;

fn settled(order: u8, plies: u16) -> u32 {
    SETTLED | u32::from(order) << 10 | u32::from(plies)
}

/// Distances to conversion by side to move, then index: the pass's cells,
/// read with the table's values.
pub struct DtcCells {
    cells: [CellArray; 2],
}

impl DtcCells {
    /// The distance to conversion of the position at `index` with `side`
    /// to move, whose value is `value` (`None` for no position).
    pub fn dtc(&self, side: usize, index: u64, value: Option<Value>) -> Option<Dtc> {
        let value = value?;
        let cell = self.cells[side][index as usize].get();
        if value.wdl() == Wdl::Draw || cell & SETTLED == 0 {
            return Some(Dtc::DRAW);
        }
        Some(Dtc {
            wdl: value.wdl(),
            plies: (cell & 0x3ff) as u16,
            order: (cell >> 10 & 0x1f) as u8,
        })
    }
}

/// A solved table's distance-to-conversion file codes, for
/// [`xqegtb::write_dtc`].
pub struct DtcCodes<'a> {
    pub dtc: &'a DtcCells,
    pub values: &'a Solution,
}

impl TableCodes for DtcCodes<'_> {
    fn size(&self) -> u64 {
        self.values.indexer.size()
    }

    fn code(&self, side: usize, index: u64) -> u16 {
        self.dtc
            .dtc(side, index, self.values.value(side, index))
            .map_or(INVALID, Dtc::to_code)
    }
}

impl State<'_> {
    /// The distance to conversion of every position, once the solve is
    /// over (the cells hold the final values).
    pub(super) fn distances_to_conversion(
        &self,
        batches: &[RuleBatch],
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<DtcCells, SolveError> {
        let size = self.indexer.size() as usize;
        let scratch = self.cells[0].scratch_dir();
        let scratch_error = |e: std::io::Error| SolveError::Scratch {
            material: self.indexer.material().to_string(),
            dir: scratch.map_or(String::new(), |d| d.display().to_string()),
            reason: e.to_string(),
        };
        let dtc = DtcCells {
            cells: [
                CellArray::new(size, scratch).map_err(scratch_error)?,
                CellArray::new(size, scratch).map_err(scratch_error)?,
            ],
        };
        let positions = 2 * size as u64;
        let (lost_now, won_next) = (Bits::new(positions), Bits::new(positions));
        let chunks = self.indexer.size().div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each(|c| {
            let start = c * CHUNK;
            let end = (start + CHUNK).min(self.indexer.size());
            self.dtc_setup(&dtc, start, end, &lost_now, &won_next);
        });
        self.dtc_rounds(&dtc, 0, lost_now, Some(won_next), progress)?;
        for (k, batch) in batches.iter().enumerate() {
            let order = u8::try_from(k + 1)
                .ok()
                .filter(|&o| o <= MAX_ORDER)
                .ok_or_else(|| self.too_deep())?;
            // The positions a rule decides are lost where its repetition
            // forms: where the other side has just answered a check (or a
            // chase) from a position still open. A trapped position its
            // side enters the cycle from is lost later, by the rounds.
            let cycles = |index: u64| self.answers_into(&dtc, batch, index);
            let (on_cycles, entries): (Vec<u64>, Vec<u64>) =
                batch.trapped.iter().partition(|&&index| cycles(index));
            for seeds in [on_cycles, entries] {
                let now = Bits::new(positions);
                for index in seeds {
                    let cell = &dtc.cells[batch.side][index as usize];
                    if cell.get() & SETTLED == 0 {
                        cell.set(settled(order, 0));
                        now.set(batch.side as u64 * size as u64 + index);
                    }
                }
                self.dtc_rounds(&dtc, order, now, None, progress)?;
            }
        }
        let left: u64 = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(self.indexer.size()));
                (start..end)
                    .flat_map(|index| [(0, index), (1, index)])
                    .filter(|&(side, index)| {
                        let cell = dtc.cells[side][index as usize].get();
                        cell & SETTLED == 0 && cell != NEVER
                    })
                    .count() as u64
            })
            .sum();
        if left > 0 {
            return Err(SolveError::Conversion {
                material: self.indexer.material().to_string(),
                left,
            });
        }
        Ok(dtc)
    }

    /// Whether the other side reaches the trapped position at `index` of
    /// `batch` from a position still open, by a quiet move out of check
    /// (for the check rule) or any quiet move (the chase rule).
    fn answers_into(&self, dtc: &DtcCells, batch: &RuleBatch, index: u64) -> bool {
        let mover = 1 - batch.side;
        let (mut placement, mut parents) = (Placement::new(), Vec::new());
        self.parents_into(index, mover, &mut placement, &mut parents);
        parents.iter().any(|&p| {
            if dtc.cells[mover][p as usize].get() & SETTLED != 0 {
                return false;
            }
            let mut at = Placement::new();
            let Some(node) = self.walker.node(p, &mut at) else {
                return false;
            };
            self.walker.valid(&node, mover)
                && (batch.rule == Rule::Chase || self.walker.in_check(&node, mover))
        })
    }

    fn too_deep(&self) -> SolveError {
        SolveError::TooDeep {
            material: self.indexer.material().to_string(),
        }
    }

    /// The final value of a position (`None` for no position).
    fn solved_value(&self, side: usize, index: u64) -> Option<Value> {
        let cell = self.cell(side, index).get();
        if cell == Cell::MAX {
            return None;
        }
        Some(match self.codes.dtm_of(cell) {
            None => Value::Draw,
            Some(d) if d % 2 == 0 => Value::Loss(d),
            Some(d) => Value::Win(d),
        })
    }

    /// Sets up the distance cells of indexes `start..end`: wins by a
    /// capture at 1 (on `won_next`), losses without quiet moves at 0 (on
    /// `lost_now`), other losses with their count of quiet successors.
    fn dtc_setup(&self, dtc: &DtcCells, start: u64, end: u64, lost_now: &Bits, won_next: &Bits) {
        let mut cursor = Cursor::default();
        let mut successors: Vec<u64> = Vec::with_capacity(128);
        let size = self.indexer.size();
        for index in start..end {
            let node = self.walker.node_at(index, &mut cursor);
            for side in 0..2 {
                let cell = &dtc.cells[side][index as usize];
                let value = self.solved_value(side, index);
                let Some(node) = node.as_ref().filter(|_| value.is_some()) else {
                    cell.set(NEVER);
                    continue;
                };
                match value.map(Value::wdl) {
                    Some(Wdl::Win) => {
                        let mut converts = false;
                        self.walker.captures(node, side, |step| {
                            converts |= self.captured_value(node, step).parent().wdl() == Wdl::Win;
                        });
                        if converts {
                            cell.set(settled(0, 1));
                            won_next.set(side as u64 * size + index);
                        } else {
                            cell.set(OPEN_WIN);
                        }
                    }
                    Some(Wdl::Loss) => {
                        successors.clear();
                        self.walker.moves(node, side, |step| {
                            if step.captured.is_none() {
                                successors.push(self.walker.child_index(node, step));
                            }
                        });
                        successors.sort_unstable();
                        successors.dedup();
                        if successors.is_empty() {
                            cell.set(settled(0, 0));
                            lost_now.set(side as u64 * size + index);
                        } else {
                            cell.set(successors.len() as u32);
                        }
                    }
                    _ => cell.set(NEVER),
                }
            }
        }
    }

    /// Rounds of order `order` from the positions of `now` (settled at 0),
    /// with `then` settled at 1 joining the second round, until none
    /// settles more.
    fn dtc_rounds(
        &self,
        dtc: &DtcCells,
        order: u8,
        mut now: Bits,
        mut then: Option<Bits>,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<(), SolveError> {
        let positions = 2 * self.indexer.size();
        let mut next = Bits::new(positions);
        let mut plies = 0u16;
        loop {
            let settled = self.dtc_round(dtc, order, plies, &now, &next);
            if let Some(joining) = then.take() {
                for (w, j) in next.words.iter().zip(&joining.words) {
                    w.fetch_or(j.load(Relaxed), Relaxed);
                }
            }
            progress(Progress::Conversion {
                order,
                plies,
                settled,
            });
            if settled == 0 && plies > 0 {
                return Ok(());
            }
            if plies + 1 > MAX_DTC {
                return Err(self.too_deep());
            }
            std::mem::swap(&mut now, &mut next);
            plies += 1;
        }
    }

    /// One round: the positions of `now` settled at `plies` settle their
    /// predecessors onto `next`. Leaves `now` empty; returns how many there
    /// were.
    fn dtc_round(&self, dtc: &DtcCells, order: u8, plies: u16, now: &Bits, next: &Bits) -> usize {
        let size = self.indexer.size();
        let words_per_chunk = (CHUNK / 64) as usize;
        let chunks = now.words.len().div_ceil(words_per_chunk);
        let onward = settled(order, plies + 1);
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(now.words.len());
                let mut found = 0;
                let (mut placement, mut parents) = (Placement::new(), Vec::with_capacity(64));
                for w in words {
                    let mut bits = now.words[w].swap(0, Relaxed);
                    while bits != 0 {
                        let position = w as u64 * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let (side, index) = ((position / size) as usize, position % size);
                        found += 1;
                        let lost =
                            self.solved_value(side, index).map(Value::wdl) == Some(Wdl::Loss);
                        let mover = 1 - side;
                        self.parents_into(index, mover, &mut placement, &mut parents);
                        for &p in &parents {
                            let cell = &dtc.cells[mover][p as usize];
                            let settles = if lost {
                                cell.replace(OPEN_WIN, onward)
                            } else {
                                decrement(cell)
                            };
                            if settles {
                                if !lost {
                                    cell.set(onward);
                                }
                                next.set(mover as u64 * size + p);
                            }
                        }
                    }
                }
                found
            })
            .sum()
    }
}

/// Counts one more quiet move of an open loss known to reach a win;
/// whether that was its last.
fn decrement(cell: &Cell) -> bool {
    loop {
        let c = cell.get();
        if c == 0 || c >= NEVER {
            return false;
        }
        if cell.replace(c, c - 1) {
            return c == 1;
        }
    }
}
