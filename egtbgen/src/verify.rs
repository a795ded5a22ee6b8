//! Checking a table: every position's value must be the best of its
//! successors' values, one ply on (the minimax rule). With distances to
//! mate this settles every value: a win's distance falls by one along its
//! best line down to a mate, so no cycle of wins or losses can agree with
//! itself, and a draw with a losing successor for the opponent would not.
//!
//! One exception, the perpetual-check rule: a loss at distance `d` (from
//! [`RULE_DTM`] up) may be shorter than its successors say when every move
//! that would last longer than `d` is a quiet check into a win at `d + 1`
//! for the opponent. Such a win goes on (by the minimax rule) into a loss
//! at `d`. A line that never falls below `d` is then one side checking on
//! every move: the checker loses unless the other side checks on every
//! move too. That it need not is the generator's game to ensure
//! (`generate/check.rs`), and beyond what one position's successors can
//! show: the brute-force tests check it.
//!
//! The perpetual-chase rule likewise: from [`CHASE_DTM`] up, a loss at `d`
//! may also be shorter than its successors say when every move that would
//! last longer than `d` is a quiet move, giving no check, into a win at
//! `d + 1` for the opponent, and all of them chase one piece in common.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use xqcore::{Move, Position};

use crate::build::{needed_sides, table_path};
use crate::generate::{positions_of, table_position, Lookup, Solution, Solutions, Table};
use xqcore::chase::chased_squares;
use xqegtb::{
    Dtc, Indexer, Material, Placement, TableError, TableFile, Value, Wdl, CHASE_DTM, RULE_DTM,
};

/// Why a table could not be read for [`verify`].
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Table(#[from] TableError),
    /// A table that one of `material`'s captures leads to.
    #[error("{source} (needed for the captures of {material})")]
    Capture {
        material: Material,
        source: TableError,
    },
}

/// A table file, read for [`verify`], and the tables in `dir` its captures
/// lead to: a byte a position (two where a table's values take more than
/// 256 codes), and of each capture table only the sides to move one
/// capture reaches. The tables further down are not needed: [`verify`]
/// looks one ply on.
pub fn load_with_captures(path: &Path, dir: &Path) -> Result<(Solution, Solutions), LoadError> {
    let file = TableFile::open(path)?;
    let table = Solution::from_file(&file, [true, true], None)?;
    let material = file.info().material;
    let mut captures = Solutions::default();
    for sub in material.captures() {
        let read = || {
            let file = TableFile::open(&table_path(dir, sub))?;
            Solution::from_file(&file, needed_sides(&[material], &sub), None)
        };
        let solution = read().map_err(|source| LoadError::Capture { material, source })?;
        captures.insert(solution);
    }
    Ok((table, captures))
}

/// A position whose stored value disagrees with its successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub fen: String,
    pub stored: Value,
    pub from_successors: Value,
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Positions checked (legal ones, both sides to move).
    pub checked: u64,
    /// The first few disagreements, and how many there were.
    pub mismatches: Vec<Mismatch>,
    pub mismatch_count: u64,
}

/// Checks every legal position of `table` against its successors: those
/// in the table itself, and captures through `lookup`. `progress` gets the
/// number of indexes done as work finishes.
pub fn verify(
    table: &impl Table,
    lookup: &dyn Lookup,
    progress: &(dyn Fn(u64) + Sync),
) -> VerifyReport {
    let found = each_position(table, progress, &|pos, side, index, placement| {
        let stored = table
            .value_at(side, index)
            .expect("legal positions are valid");
        let at = At { side, placement };
        let mut child = Placement::new();
        let derived = best_of_successors(pos, at, stored, table, lookup, &mut child);
        (stored != derived).then(|| Mismatch {
            fen: pos.fen(),
            stored,
            from_successors: derived,
        })
    });
    let (checked, mismatches, mismatch_count) = found.first();
    VerifyReport {
        checked,
        mismatches,
        mismatch_count,
    }
}

/// Where a position stands in its table: the side to move (0: the side
/// written first) and the placement of its pieces, in table orientation.
#[derive(Clone, Copy)]
struct At<'a> {
    side: usize,
    placement: &'a [u8],
}

/// The value of `pos` (at `at`) from its successors: the best of their
/// values seen one ply earlier, or a loss when there is no legal move. A
/// loss by the perpetual-check rule shorter than that is accepted as
/// stored (see the module documentation).
fn best_of_successors(
    pos: &mut Position,
    at: At,
    stored: Value,
    table: &impl Table,
    lookup: &dyn Lookup,
    child: &mut Placement,
) -> Value {
    let mut best: Option<Value> = None;
    // Whether every move lasting longer than `stored` (for a stored loss
    // by a rule) is a quiet check into a win one ply longer, and the pieces
    // all such moves chase (for the chase rule: none of them may check).
    let mut all_check = true;
    let mut all_chase = true;
    let mut common_victims = u128::MAX;
    // Checks and chases are graded only where a repetition rule may be
    // what holds.
    let rule_band_loss = matches!(stored, Value::Loss(d) if d >= RULE_DTM);
    let chase_band_loss = matches!(stored, Value::Loss(d) if d >= CHASE_DTM);
    for &m in pos.legal_moves().iter() {
        let capture = pos.board().piece_at(m.to()).is_some();
        let chased = if capture || !chase_band_loss {
            0
        } else {
            chased_squares(pos.board(), m)
        };
        let (v, check) = if capture || rule_band_loss {
            pos.make_move(m);
            let v = if capture {
                lookup.value(pos.board(), pos.turn())
            } else {
                let (side, index) = table_position(table.indexer(), pos, child);
                table
                    .value_at(side, index)
                    .expect("a legal successor is valid")
            };
            let check = pos.in_check();
            pos.unmake_move();
            (v, check)
        } else {
            // A quiet move out of the rules' band: its successor's index
            // straight from the placement, without making the move.
            let index = successor_index(table.indexer(), at.placement, m, child);
            debug_assert_eq!(
                {
                    pos.make_move(m);
                    let found = table_position(table.indexer(), pos, &mut Placement::new());
                    pos.unmake_move();
                    found
                },
                (1 - at.side, index)
            );
            let v = table
                .value_at(1 - at.side, index)
                .expect("a legal successor is valid");
            (v, false)
        };
        let v = v.parent();
        if let (Value::Loss(d), Value::Loss(e)) = (stored, v) {
            if e > d {
                let next_ply = !capture && e == d + 2;
                all_check &= next_ply && check;
                all_chase &= next_ply && !check;
                if !check {
                    common_victims &= chased;
                }
            }
        }
        if best.is_none_or(|b| v.better_than(b)) {
            best = Some(v);
        }
    }
    let derived = best.unwrap_or(Value::Loss(0));
    let chase_holds = all_chase && common_victims != 0;
    match (stored, derived) {
        (Value::Loss(d), Value::Loss(e)) if d >= RULE_DTM && e > d && all_check => stored,
        (Value::Loss(d), Value::Loss(e)) if d >= CHASE_DTM && e > d && chase_holds => stored,
        _ => derived,
    }
}

/// The index of the position that `m`, a move capturing nothing, leads to
/// from `placement`: the piece on the move's origin goes to its target.
fn successor_index(indexer: &Indexer, placement: &[u8], m: Move, child: &mut Placement) -> u64 {
    child.clear();
    child.extend_from_slice(placement);
    let from = m.from().index() as u8;
    let slot = child
        .iter()
        .position(|&s| s == from)
        .expect("a piece on the move's origin");
    child[slot] = m.to().index() as u8;
    indexer.index(child).expect("a legal position has an index")
}

/// A position whose stored distance to conversion (or verdict)
/// disagrees with its table's value or its successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricMismatch {
    pub fen: String,
    pub stored: String,
    pub expected: String,
}

/// What [`verify_wdl`] or [`verify_dtc`] found.
#[derive(Clone, Debug, Default)]
pub struct MetricReport {
    pub checked: u64,
    pub mismatches: Vec<MetricMismatch>,
    pub mismatch_count: u64,
}

/// A check of one position of a table: its position, side to move, index
/// and placement; what it found wrong.
type PositionCheck<'a, M> = dyn Fn(&mut Position, usize, u64, &[u8]) -> Option<M> + Sync + 'a;

/// What [`each_position`] found: positions checked and every finding.
struct Found<M> {
    checked: u64,
    all: Vec<M>,
}

impl<M> Found<M> {
    /// The first few findings, and how many there were.
    fn first(mut self) -> (u64, Vec<M>, u64) {
        let count = self.all.len() as u64;
        self.all.truncate(10);
        (self.checked, self.all, count)
    }
}

/// Calls `check` on every legal position of `table` (its position, side
/// to move, index and placement), in parallel; collects what it finds.
fn each_position<M: Send>(
    table: &impl Table,
    progress: &(dyn Fn(u64) + Sync),
    check: &PositionCheck<M>,
) -> Found<M> {
    let indexer = table.indexer();
    let checked = AtomicU64::new(0);
    let chunk = 4096u64;
    let chunks = indexer.size().div_ceil(chunk);
    let found: Vec<M> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let (start, end) = (c * chunk, ((c + 1) * chunk).min(indexer.size()));
            let mut found = Vec::new();
            let mut placement = Placement::new();
            let mut n = 0;
            indexer.placement(start, &mut placement);
            for index in start..end {
                if index > start {
                    indexer.step_placement(index, &mut placement);
                }
                let mut positions = positions_of(indexer, index, &placement);
                for (side, pos) in positions.iter_mut().enumerate() {
                    let Some(pos) = pos else { continue };
                    n += 1;
                    found.extend(check(pos, side, index, &placement));
                }
            }
            checked.fetch_add(n, Relaxed);
            progress(end - start);
            found
        })
        .collect();
    Found {
        checked: checked.into_inner(),
        all: found,
    }
}

impl From<Found<MetricMismatch>> for MetricReport {
    fn from(found: Found<MetricMismatch>) -> MetricReport {
        let (checked, mismatches, mismatch_count) = found.first();
        MetricReport {
            checked,
            mismatches,
            mismatch_count,
        }
    }
}

/// Checks a win/draw/loss file's verdicts (`wdl`, its codes by side to
/// move: 0 draw, 1 loss, 2 win) against the table's values.
pub fn verify_wdl(
    table: &impl Table,
    wdl: &[Vec<u16>; 2],
    progress: &(dyn Fn(u64) + Sync),
) -> MetricReport {
    let found = each_position(table, progress, &|pos, side, index, _| {
        let value = table
            .value_at(side, index)
            .expect("legal positions are valid");
        let expected = match value.wdl() {
            Wdl::Draw => 0,
            Wdl::Loss => 1,
            Wdl::Win => 2,
        };
        let stored = wdl[side][index as usize];
        (stored != expected).then(|| MetricMismatch {
            fen: pos.fen(),
            stored: format!("verdict code {stored}"),
            expected: value.wdl().to_string(),
        })
    });
    found.into()
}

/// Checks a distance-to-conversion file (`dtc`, its codes by side to
/// move, of which it stores `stored_side`'s, or [`xqegtb::BOTH_SIDES`])
/// against the table's values and against its successors: a win's
/// distance is one more than its quickest conversion (a capture into a
/// win, at 1) or lost successor, in the lowest order; a loss's one more
/// than its longest quiet successor, in the highest order, or 0 where it
/// has no quiet move, or (in an order of the rules) where a rule found it
/// lost. The side the file does not store is first filled in one ply on,
/// as a probe reads it.
pub fn verify_dtc(
    table: &impl Table,
    dtc: &[Vec<u16>; 2],
    stored_side: u8,
    lookup: &dyn Lookup,
    progress: &(dyn Fn(u64) + Sync),
) -> MetricReport {
    let mut codes = dtc.clone();
    if let Some(stored) = [0, 1].into_iter().find(|&s| s == usize::from(stored_side)) {
        let other = 1 - stored;
        let filled = each_position(table, &|_| {}, &|pos, side, index, placement| {
            let code = dtc[side][index as usize];
            (side == other && !Dtc::from_code(code).is_rule_start()).then(|| {
                let derived = from_successors(pos, side, index, placement, table, dtc, lookup);
                (index, derived.to_code())
            })
        });
        for (index, code) in filled.all {
            codes[other][index as usize] = code;
        }
    }
    let codes = &codes;
    let found = each_position(table, progress, &|pos, side, index, placement| {
        let stored = Dtc::from_code(codes[side][index as usize]);
        let expected = if stored.is_rule_start() {
            // Where a rule found it lost, its repetition forms.
            stored
        } else {
            from_successors(pos, side, index, placement, table, codes, lookup)
        };
        (stored != expected).then(|| MetricMismatch {
            fen: pos.fen(),
            stored: stored.to_string(),
            expected: expected.to_string(),
        })
    });
    found.into()
}

/// The distance to conversion of `pos` (at `index`, `side` to move, its
/// pieces on `placement`) one ply on: its verdict from the table, its
/// captures' from `lookup`, its quiet moves' distances from `codes`.
fn from_successors(
    pos: &mut Position,
    side: usize,
    index: u64,
    placement: &[u8],
    table: &impl Table,
    codes: &[Vec<u16>; 2],
    lookup: &dyn Lookup,
) -> Dtc {
    let wdl = table
        .value_at(side, index)
        .expect("legal positions are valid")
        .wdl();
    let mut child = Placement::new();
    let (mut converts, mut quiet) = (false, Vec::new());
    for &m in pos.legal_moves().iter() {
        if pos.board().piece_at(m.to()).is_some() {
            if wdl == Wdl::Win {
                pos.make_move(m);
                converts |= lookup.value(pos.board(), pos.turn()).wdl() == Wdl::Loss;
                pos.unmake_move();
            }
            continue;
        }
        let next = successor_index(table.indexer(), placement, m, &mut child);
        quiet.push(Dtc::from_code(codes[1 - side][next as usize]));
    }
    Dtc::one_ply_on(wdl, converts, quiet)
}
