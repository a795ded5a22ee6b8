//! Building a set of tables into a directory, each from the ones its
//! captures lead into.

use std::cmp::Reverse;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::generate::{
    bit_bytes, rule_pass_bytes, solve_metrics, working_bytes, DtcCodes, Progress, Scratch,
    Solution, Solutions, SolveError,
};
use xqegtb::{
    dtc_side_to_store, rules_for, write_dtc, write_table_with, write_wdl, EncodedBlock, Indexer,
    Material, Metric, MetricFile, MetricInfo, TableError, TableFile, TableInfo, EXTENSION,
};

/// zstd level of table files: on KRKNAABB level 13 writes 1.068 bits a
/// position against level 19's 1.027, in a sixth of the time; the 4 % of
/// disk is not worth a sixth of a whole build (docs/log/speed-history.md).
pub const LEVEL: i32 = 13;

/// Encodes a batch of a table file's blocks on the thread pool, for
/// [`write_table_with`]: compressing is a large part of a build.
pub fn encode_in_parallel(
    blocks: std::ops::Range<u64>,
    encode: &(dyn Fn(u64) -> EncodedBlock + Sync),
) -> Vec<EncodedBlock> {
    use rayon::prelude::*;
    blocks.into_par_iter().map(encode).collect()
}

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("{material}: needs {needed} bytes in memory even with its cells on disk (bit-packed state and the tables its captures read), past the bound of {bound}")]
    Bound {
        material: Material,
        needed: u64,
        bound: u64,
    },
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a build reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A table is about to be solved; `indexes` per side to move.
    Solving { material: Material, indexes: u64 },
    /// Progress of the table being solved.
    Progress(Progress),
    /// A table was solved and written.
    Written {
        material: Material,
        info: &'a TableInfo,
        bytes: u64,
        elapsed: Duration,
        /// Most memory held while solving it, as [`Summary::peak_memory`]
        /// counts it.
        held: u64,
    },
    /// A table already in the directory was read instead of solved.
    Existing { material: Material },
}

/// Totals of a build.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub solved: usize,
    pub existing: usize,
    /// Bytes of the tables written.
    pub bytes: u64,
    /// Positions (indexes times two sides to move) of the tables written.
    pub positions: u64,
    /// Most memory the solver and the tables kept for captures held at once:
    /// counted before each table, and for the repetition rules' candidate
    /// lists as the solver reports them.
    pub peak_memory: u64,
}

/// The tables to build for `targets`: each one and everything its captures
/// lead into, canonical, without dead draws, each after the tables its
/// captures lead into.
///
/// The order is depth first: the targets from the most pieces down (and by
/// name, backwards, within a piece count), each after its captures. A build
/// keeps a solved table until the last table that captures into it is
/// solved; depth first, the tables that read one table lie close together,
/// so fewer are kept at once than when all the smaller tables come first
/// ([`crate::jobs::build_memory`]: up to 8 pieces with an attacker on each
/// side, 1.5 GB held instead of 7.5 GB; up to 9, 6.1 GB instead of 30.6).
pub fn plan(targets: &[Material]) -> Vec<Material> {
    let mut tops: Vec<Material> = targets
        .iter()
        .map(|t| t.canonical().0)
        .filter(|m| !m.is_dead_draw())
        .collect();
    tops.sort_by_cached_key(|m| Reverse((m.piece_count(), m.to_string())));
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    for top in tops {
        add_after_captures(top, &mut seen, &mut order);
    }
    order
}

/// Appends `material` to `order` after the tables its captures lead into,
/// unless it is already there.
fn add_after_captures(material: Material, seen: &mut HashSet<Material>, order: &mut Vec<Material>) {
    if !seen.insert(material) {
        return;
    }
    let mut captures = material.captures();
    captures.sort();
    for capture in captures {
        add_after_captures(capture, seen, order);
    }
    order.push(material);
}

/// The path of a material's table in `dir`.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!("{material}.{EXTENSION}"))
}

/// Builds the tables of `plan` (in its order) into `dir`. A table already
/// there is read and kept, so a build that was interrupted goes on where it
/// stopped. Tables are written under a temporary name and renamed when
/// complete.
pub fn build(
    dir: &Path,
    plan: &[Material],
    events: &(dyn Fn(Event) + Sync),
) -> Result<Summary, BuildError> {
    build_bounded(dir, plan, None, events)
}

/// A memory bound for a build: what the solver may hold in memory; the
/// rest goes to scratch files in `scratch`, mapped into memory and paged
/// by the kernel (whose cache of them it takes back under pressure).
#[derive(Clone, Debug)]
pub struct MemoryBound {
    pub bytes: u64,
    pub scratch: PathBuf,
}

impl MemoryBound {
    /// The bytes above which a table kept for later ones waits in a
    /// scratch file: an eighth of the bound, so that the tables a
    /// solve reads leave it room.
    fn spill_limit(&self) -> u64 {
        self.bytes / 8
    }
}

/// [`build`] within a memory bound: a table whose cells and the tables
/// its captures read would pass `bound` keeps its cells, and its solution
/// for later tables, in scratch files; a table kept for later ones that
/// holds more than an eighth of the bound waits in a scratch file too.
/// Refused when even the bit-packed state a table needs in memory passes
/// the bound. Writes the default metrics ([`DEFAULT_METRICS`]).
pub fn build_bounded(
    dir: &Path,
    plan: &[Material],
    bound: Option<&MemoryBound>,
    events: &(dyn Fn(Event) + Sync),
) -> Result<Summary, BuildError> {
    build_metrics(dir, plan, &DEFAULT_METRICS, bound, events)
}

/// The metrics a build writes unless told otherwise: the table file
/// (distance to mate) and the small win/draw/loss file beside it.
pub const DEFAULT_METRICS: [Metric; 2] = [Metric::Wdl, Metric::Dtm];

/// [`build_bounded`], writing the files of `metrics` for each table. A
/// table whose files of those metrics are all there is kept; one with
/// some missing gets them (the win/draw/loss file from its table file when
/// that is there, the others by solving it again), and the files there are
/// never written over.
pub fn build_metrics(
    dir: &Path,
    plan: &[Material],
    metrics: &[Metric],
    bound: Option<&MemoryBound>,
    events: &(dyn Fn(Event) + Sync),
) -> Result<Summary, BuildError> {
    std::fs::create_dir_all(dir).map_err(|source| BuildError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut summary = Summary::default();
    let mut solutions = Solutions::default();
    for (i, &material) in plan.iter().enumerate() {
        let later = &plan[i + 1..];
        let needed = needed_sides(later, &material);
        let missing: Vec<Metric> = metrics
            .iter()
            .copied()
            .filter(|&m| !metric_file_ok(dir, material, m))
            .collect();
        let table = table_path(dir, material);
        // Complete, and read by no later table: nothing more to read (its
        // files' blocks were checked above).
        let unread = missing.is_empty() && needed == [false, false];
        let from_table = if !unread && missing.iter().all(|&m| m == Metric::Wdl) {
            // The win/draw/loss file, if missing, comes from the table file.
            let keep = if missing.is_empty() {
                needed
            } else {
                [true, true]
            };
            existing(&table, material, bound, keep)?
        } else {
            None
        };
        let solved = match from_table {
            Some(solved) => {
                if !missing.is_empty() {
                    summary.bytes += write_wdl_of(dir, &solved)?;
                }
                events(Event::Existing { material });
                summary.existing += 1;
                solved
            }
            None if unread => {
                events(Event::Existing { material });
                summary.existing += 1;
                Solution::empty(material)
            }
            None => {
                let started = Instant::now();
                let indexes = Indexer::new(material).size();
                events(Event::Solving { material, indexes });
                let held = solutions.bytes();
                let mut working = working_bytes(material) + held;
                let cells_out = bound.is_some_and(|b| working > b.bytes);
                if let Some(bound) = bound.filter(|_| cells_out) {
                    working = bit_bytes(material) + held;
                    if working > bound.bytes {
                        return Err(BuildError::Bound {
                            material,
                            needed: working,
                            bound: bound.bytes,
                        });
                    }
                }
                // The rule passes hold their lists without the frontiers:
                // what is left of the bound then is the lists' room.
                let without_lists = working - bit_bytes(material) + rule_pass_bytes(material, 0);
                let scratch = bound.map(|b| Scratch {
                    dir: &b.scratch,
                    cells: cells_out,
                    lists_room: b.bytes.saturating_sub(without_lists),
                });
                let lists = AtomicU64::new(0);
                let progress = |p| {
                    if let Progress::RuleLists { bytes } = p {
                        lists.store(bytes, Relaxed);
                    }
                    events(Event::Progress(p))
                };
                let dtc = missing.contains(&Metric::Dtc);
                let (solved, distances) =
                    solve_metrics(material, &solutions, scratch, dtc, &progress)?;
                let in_passes = without_lists + lists.into_inner();
                let held = working.max(in_passes);
                summary.peak_memory = summary.peak_memory.max(held);
                let info = TableInfo::of_values(material, rules_for(material), &solved);
                let mut bytes = 0;
                if missing.contains(&Metric::Dtm) {
                    bytes += write_table_with(&table, &info, &solved, LEVEL, &encode_in_parallel)?;
                }
                if missing.contains(&Metric::Wdl) {
                    bytes += write_wdl_of(dir, &solved)?;
                }
                if let Some(dtc) = &distances {
                    let codes = DtcCodes {
                        dtc,
                        values: &solved,
                    };
                    let side = dtc_side_to_store(&codes, LEVEL);
                    let info = MetricInfo::of_dtc(material, rules_for(material), &codes, side);
                    let path = metric_path(dir, material, Metric::Dtc);
                    bytes += write_dtc(&path, &info, &codes, LEVEL, &encode_in_parallel)?;
                }
                summary.solved += 1;
                summary.bytes += bytes;
                summary.positions += 2 * indexes;
                events(Event::Written {
                    material,
                    info: &info,
                    bytes,
                    elapsed: started.elapsed(),
                    held,
                });
                solved
            }
        };
        solutions.insert(solved);
        // A table is kept for the later ones that capture into it, and
        // only with the sides to move their captures reach.
        solutions.retain(|m| needed_sides(later, m));
        // Under a bound, the larger tables kept wait in scratch files.
        if let Some(bound) = bound {
            solutions
                .spill_larger_than(bound.spill_limit(), &bound.scratch)
                .map_err(|source| BuildError::Io {
                    path: bound.scratch.clone(),
                    source,
                })?;
        }
    }
    Ok(summary)
}

/// The path of a material's file of `metric` in `dir`.
pub fn metric_path(dir: &Path, material: Material, metric: Metric) -> PathBuf {
    dir.join(format!("{material}.{}", metric.extension()))
}

/// Whether `dir` holds a whole file of `metric` for `material`: its
/// header, index and every block's checksum sound (a damaged one is
/// built again).
fn metric_file_ok(dir: &Path, material: Material, metric: Metric) -> bool {
    let path = metric_path(dir, material, metric);
    match metric {
        Metric::Dtm => TableFile::open(&path)
            .is_ok_and(|t| t.info().material == material && t.check_blocks().is_ok()),
        _ => MetricFile::open(&path, metric)
            .is_ok_and(|f| f.info().material == material && f.check_blocks().is_ok()),
    }
}

/// Writes the win/draw/loss file of a solved table (both sides held);
/// returns its length.
fn write_wdl_of(dir: &Path, solved: &Solution) -> Result<u64, TableError> {
    let material = solved.indexer.material();
    let info = MetricInfo::of_values(material, rules_for(material), solved);
    let path = metric_path(dir, material, Metric::Wdl);
    write_wdl(&path, &info, solved, LEVEL, &encode_in_parallel)
}

/// The sides to move of table `table` that the captures of `later`
/// tables reach (side 0: the side written first in `table`'s name).
pub fn needed_sides(later: &[Material], table: &Material) -> [bool; 2] {
    let mut sides = [false; 2];
    for m in later {
        for (captured, side) in m.capture_sides() {
            if captured == *table {
                sides[side] = true;
            }
        }
    }
    sides
}

/// A complete table of `material` already at `path`, with only the sides
/// to move `keep` asks for (none: its blocks' checksums checked, nothing
/// read); `None` when there is none or it does not open (it is then built
/// again). Under a memory bound a large table is read into scratch files.
fn existing(
    path: &Path,
    material: Material,
    bound: Option<&MemoryBound>,
    keep: [bool; 2],
) -> Result<Option<Solution>, BuildError> {
    let Ok(table) = TableFile::open(path) else {
        return Ok(None);
    };
    if table.info().material != material {
        return Ok(None);
    }
    // Kept sides past the spill limit (a byte a position each) would be
    // spilled as soon as they were kept: read them into scratch files.
    let sides_kept = keep.iter().filter(|&&k| k).count() as u64;
    let scratch = bound
        .filter(|b| sides_kept * table.info().size > b.spill_limit())
        .map(|b| b.scratch.as_path());
    match Solution::from_file(&table, keep, scratch) {
        Ok(solution) => Ok(Some(solution)),
        Err(e @ TableError::Scratch { .. }) => Err(e.into()),
        // A damaged table is built again.
        Err(_) => Ok(None),
    }
}
