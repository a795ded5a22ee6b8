//! A table set as jobs for a scheduler, so that it can be built past one
//! machine: a Makefile (`make -j N` runs independent tables at once) and a
//! Slurm submission script (one job array per dependency level, each level
//! starting after the one before finished), every job one `egtbgen gen` of
//! one table; with an estimate of what each table costs.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::build::table_path;
use crate::generate::working_bytes;
use xqegtb::{Indexer, Material};

/// Bits a table file takes per position, for estimates: the 5-piece set
/// averages 0.63, KRKAABB 0.93 (measured with `egtbgen info`).
pub const ESTIMATED_BITS_PER_POSITION: f64 = 1.0;

/// Positions one core solves a second, for estimates: a cautious figure
/// for tables with both repetition rules to apply, below what the builds
/// measured (docs/speed.md and docs/egtb-sets.md give those rates).
pub const ESTIMATED_POSITIONS_PER_CORE_SECOND: f64 = 1_400_000.0;

/// Bytes a position the repetition rules' candidate lists are allowed, in
/// tables where the perpetual-chase rule applies (both sides have a rook,
/// horse or cannon). Measured, each table built alone with its smaller
/// tables there (2026-11-28, docs/egtb-sets.md): the solver held past the
/// rest of the estimate up to 1.04 bytes a position (KRBBKR; KRBKRB 0.90,
/// KRBBKRB 0.82, KRBBKRBB 0.76), and nothing past it in the tables with a
/// horse against a rook (KRKNAABB, KRKNABB, KRKNAAB).
pub const LIST_BYTES_PER_POSITION: f64 = 1.25;

/// What building one table is expected to cost.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub material: Material,
    /// Positions: indexes times two sides to move.
    pub positions: u64,
    /// Memory the solver holds: its own working arrays, the values of the
    /// tables its captures lead into (the sides to move they reach), and
    /// the repetition rules' lists ([`list_bytes`]).
    pub memory: u64,
    /// Bytes of the table file.
    pub disk: u64,
    /// CPU seconds.
    pub cpu_seconds: f64,
}

/// The estimate for `material` (canonical).
pub fn estimate(material: Material) -> Estimate {
    let positions = 2 * Indexer::new(material).size();
    // The solver keeps of each table its captures reach only the side to
    // move there, two bytes a position at most.
    let captured: u64 = material
        .capture_sides()
        .iter()
        .map(|(c, _)| 2 * Indexer::new(*c).size())
        .sum();
    Estimate {
        material,
        positions,
        memory: working_bytes(material) + captured + list_bytes(material),
        disk: (positions as f64 * ESTIMATED_BITS_PER_POSITION / 8.0) as u64,
        cpu_seconds: positions as f64 / ESTIMATED_POSITIONS_PER_CORE_SECOND,
    }
}

/// The memory allowed for the repetition rules' candidate lists of
/// `material`: [`LIST_BYTES_PER_POSITION`] where the chase rule applies
/// (the check rule's lists are a few MB at most).
pub fn list_bytes(material: Material) -> u64 {
    if material.chase_rule_applies() {
        let positions = 2 * Indexer::new(material).size();
        (positions as f64 * LIST_BYTES_PER_POSITION) as u64
    } else {
        0
    }
}

/// Most bytes one `egtbgen gen` of `plan`, in its order, holds at once:
/// the working arrays of the table being solved, and the tables solved
/// before it that a later table captures into, a byte an index for each
/// side to move captures reach there (two where a table's values take more
/// than 256 codes, which this does not foresee).
pub fn build_memory(plan: &[Material]) -> u64 {
    let position: HashMap<Material, usize> =
        plan.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    // The last table in the plan that reads each side of each table.
    let mut last_reader: HashMap<(Material, usize), usize> = HashMap::new();
    for (i, m) in plan.iter().enumerate() {
        for side in m.capture_sides() {
            last_reader.insert(side, i);
        }
    }
    // Kept bytes per step: a table's side is held from the step after it
    // is solved through the step of its last reader.
    let mut change = vec![0i64; plan.len() + 1];
    for ((table, _), last) in last_reader {
        let Some(&solved) = position.get(&table) else {
            continue;
        };
        let bytes = Indexer::new(table).size() as i64;
        change[solved + 1] += bytes;
        change[last + 1] -= bytes;
    }
    let mut kept = 0i64;
    plan.iter()
        .zip(&change)
        .map(|(m, delta)| {
            kept += delta;
            kept as u64 + working_bytes(*m) + list_bytes(*m)
        })
        .max()
        .unwrap_or(0)
}

/// The tables of `plan` by dependency level: level 0 captures into no
/// table of the plan, level k into tables of levels below k only.
/// `plan` must hold every table its tables capture into (as
/// [`crate::build::plan`] gives).
pub fn levels(plan: &[Material]) -> Vec<Vec<Material>> {
    let mut level: HashMap<Material, usize> = HashMap::new();
    let mut out: Vec<Vec<Material>> = Vec::new();
    // Each table's captures come before it in `plan`.
    for &m in plan {
        let l = m
            .captures()
            .iter()
            .filter_map(|c| level.get(c))
            .map(|l| l + 1)
            .max()
            .unwrap_or(0);
        level.insert(m, l);
        if out.len() <= l {
            out.resize(l + 1, Vec::new());
        }
        out[l].push(m);
    }
    out
}

/// A Makefile building `plan` into `$(DIR)`: one target per table file,
/// depending on the files of the tables its captures lead into, built by
/// `$(EGTBGEN) gen` with `$(THREADS)` threads. `make -j N` builds N tables
/// at once.
pub fn makefile(plan: &[Material], dir: &str) -> String {
    let file = |m: &Material| {
        table_path(std::path::Path::new("$(DIR)"), *m)
            .display()
            .to_string()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {} endgame tables, one `egtbgen gen` each: make -j N -f THIS_FILE\n\
         # Override EGTBGEN (the program), DIR (where the tables go) and THREADS (per table).\n\
         EGTBGEN ?= egtbgen\nDIR ?= {dir}\nTHREADS ?= 1\n",
        plan.len()
    );
    let all: Vec<String> = plan.iter().map(file).collect();
    let _ = writeln!(s, ".PHONY: all\nall: {}\n", all.join(" "));
    for m in plan {
        let deps: Vec<String> = m.captures().iter().map(file).collect();
        let e = estimate(*m);
        let _ = writeln!(
            s,
            "# {m}: {} positions, {:.0} MB of memory, {:.2} CPU hours (estimated)\n\
             {}: {}\n\t$(EGTBGEN) gen -q --threads $(THREADS) -o $(DIR) {m}\n",
            e.positions,
            e.memory as f64 / 1e6,
            e.cpu_seconds / 3600.0,
            file(m),
            deps.join(" ")
        );
    }
    s
}

/// One Slurm job array of a plan: tables of one dependency level whose
/// jobs ask for about the same memory, so that small tables do not hold
/// the memory of their level's largest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobArray {
    pub level: usize,
    /// Its place among its level's arrays, smallest requests first.
    pub group: usize,
    /// Its tables, in plan order: element `i` builds `tables[i]`.
    pub tables: Vec<Material>,
}

/// Memory (MiB) every job asks for at least: a table this small is mostly
/// the program.
pub const LEAST_REQUEST_MIB: u64 = 256;

/// How much more than its bound a job asks for: past what the solver
/// counts it holds the program, its threads' stacks and the slices of
/// candidates being found (peak RSS measured 10 to 55 MB past the count,
/// up to 24 % of it, on the tables of [`LIST_BYTES_PER_POSITION`]).
pub const REQUEST_OVER_BOUND: f64 = 1.2;

impl JobArray {
    /// Its Slurm job name, `egtb-LEVEL-GROUP`; element `i` writes its
    /// output to `DIR/slurm-logs/NAME_i.out`.
    pub fn name(&self) -> String {
        format!("egtb-{}-{}", self.level, self.group)
    }

    /// The bound its jobs solve within (MiB, `--max-memory`): its largest
    /// table's estimate.
    pub fn bound_mib(&self) -> u64 {
        self.tables.iter().map(|m| bound_mib(*m)).max().unwrap_or(1)
    }

    /// The memory its jobs ask for (MiB, Slurm's `--mem`).
    pub fn requested_mib(&self) -> u64 {
        requested_mib(self.bound_mib())
    }
}

/// The bound (MiB) a job of `material` alone would solve within.
fn bound_mib(material: Material) -> u64 {
    estimate(material).memory.div_ceil(1 << 20).max(1)
}

/// What a job solving within `bound_mib` asks for.
fn requested_mib(bound_mib: u64) -> u64 {
    ((bound_mib as f64 * REQUEST_OVER_BOUND).ceil() as u64).max(LEAST_REQUEST_MIB)
}

/// The job arrays of `plan`: each level's tables grouped by what their
/// jobs ask for, the requests of one array within a factor of √2 (or all
/// at the least request).
pub fn job_arrays(plan: &[Material]) -> Vec<JobArray> {
    let mut arrays = Vec::new();
    for (level, tables) in levels(plan).iter().enumerate() {
        // Each table's request in half-octaves above the least; a stable
        // sort keeps plan order within a class.
        let mut classed: Vec<(u32, Material)> = tables
            .iter()
            .map(|&m| {
                let asked = requested_mib(bound_mib(m)) as f64 / LEAST_REQUEST_MIB as f64;
                ((2.0 * asked.log2()).ceil() as u32, m)
            })
            .collect();
        classed.sort_by_key(|&(class, _)| class);
        for chunk in classed.chunk_by(|a, b| a.0 == b.0) {
            arrays.push(JobArray {
                level,
                group: arrays
                    .iter()
                    .filter(|a: &&JobArray| a.level == level)
                    .count(),
                tables: chunk.iter().map(|&(_, m)| m).collect(),
            });
        }
    }
    arrays
}

/// A shell script that submits `plan` to Slurm: job arrays by dependency
/// level ([`job_arrays`]), each element one `egtbgen gen` of one table
/// with its array's memory request, each level after every array of the
/// one before succeeded (`afterok`; a failure cancels what depends on it),
/// and last a job that reports, once every other has ended, what is
/// missing and why (`egtbgen plan --report`, into
/// `DIR/slurm-logs/report.out`; see [`report`]). Run it where `sbatch` is;
/// `EGTBGEN`, `DIR` and `CPUS` can be set in the environment. Each job
/// solves within its bound (`--max-memory`), which allows the repetition
/// rules' lists [`LIST_BYTES_PER_POSITION`]; lists past it go to scratch
/// files in the node's `TMPDIR` (or `DIR`), whose pages the kernel takes
/// back under the job's memory limit (a cgroup's). Each job's output goes to
/// `DIR/slurm-logs/NAME_INDEX.out` ([`JobArray::name`]).
pub fn slurm(plan: &[Material], dir: &str) -> String {
    let arrays = job_arrays(plan);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#!/bin/sh\n\
         # {} endgame tables in {} dependency levels, {} Slurm job arrays: each level's\n\
         # tables grouped by the memory their jobs ask for.\n\
         set -eu\n\
         EGTBGEN=${{EGTBGEN:-egtbgen}}\nDIR=${{DIR:-{dir}}}\nCPUS=${{CPUS:-2}}\n\
         mkdir -p \"$DIR/{LOGS}\"\nafter=\"\"\nlevel=\"\"\nall=\"\"",
        plan.len(),
        levels(plan).len(),
        arrays.len()
    );
    for (i, array) in arrays.iter().enumerate() {
        if i > 0 && array.level != arrays[i - 1].level {
            let _ = writeln!(s, "after=$level\nlevel=\"\"");
        }
        let names: Vec<String> = array.tables.iter().map(Material::to_string).collect();
        let _ = writeln!(
            s,
            "\n# level {}: {} tables, within {} MiB each\n\
             job=$(sbatch --parsable --job-name={} --array=0-{} --cpus-per-task=\"$CPUS\" \
             --mem={}M --kill-on-invalid-dep=yes ${{after:+--dependency=afterok$after}} \\\n  \
             --output=\"$DIR/{LOGS}/{}_%a.out\" \\\n  \
             --wrap=\"set -- {}; shift \\$SLURM_ARRAY_TASK_ID; \
             exec $EGTBGEN gen -q --threads $CPUS --max-memory {}M \
             --scratch \\${{TMPDIR:-$DIR}} -o $DIR \\$1\")\n\
             level=\"$level:${{job%%;*}}\"\nall=\"$all:${{job%%;*}}\"",
            array.level,
            array.tables.len(),
            array.bound_mib(),
            array.name(),
            array.tables.len() - 1,
            array.requested_mib(),
            array.name(),
            names.join(" "),
            array.bound_mib(),
        );
    }
    let every: Vec<String> = plan.iter().map(Material::to_string).collect();
    let _ = writeln!(
        s,
        "\n# Last, once every job above has ended: what is missing, and why.\n\
         report=$(sbatch --parsable --job-name=egtb-report --dependency=afterany$all \
         --output=\"$DIR/{LOGS}/report.out\" \\\n  \
         --wrap=\"exec $EGTBGEN plan --report -o $DIR {}\")\n\
         echo \"submitted; the last level's jobs are ${{level#:}}, the report job ${{report%%;*}} \
         (in $DIR/{LOGS}/report.out)\"",
        every.join(" ")
    );
    s
}

/// Where the Slurm jobs' output goes, in the tables' directory.
pub const LOGS: &str = "slurm-logs";

/// What became of one table of a plan run on Slurm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its file is in place and opens (its checksums pass).
    Built,
    /// Missing: its job was killed for going past its memory request; the
    /// job's words.
    OutOfMemory(String),
    /// Missing: its job ended otherwise; its last words, if any.
    Failed(String),
    /// Missing, its job never having run (a table it needs is missing).
    NotRun,
}

/// Each table of `plan`, with its level, its estimate, the memory its job
/// asked for and what became of it, as the files in `dir` and the jobs'
/// output in `dir/slurm-logs` tell.
pub fn report(
    plan: &[Material],
    dir: &std::path::Path,
) -> Vec<(Material, usize, Estimate, u64, Outcome)> {
    let mut out = Vec::new();
    for array in job_arrays(plan) {
        let asked = array.requested_mib();
        for (i, &m) in array.tables.iter().enumerate() {
            let built =
                xqegtb::TableFile::open(&table_path(dir, m)).is_ok_and(|t| t.info().material == m);
            let outcome = if built {
                Outcome::Built
            } else {
                let log = dir.join(LOGS).join(format!("{}_{i}.out", array.name()));
                match std::fs::read_to_string(&log) {
                    Err(_) => Outcome::NotRun,
                    Ok(text) => job_outcome(&text),
                }
            };
            out.push((m, array.level, estimate(m), asked, outcome));
        }
    }
    out
}

/// What a job's output says of why its table is missing.
fn job_outcome(text: &str) -> Outcome {
    let memory = text.lines().find(|l| {
        l.contains("memory limit") || l.contains("oom-kill") || l.contains("Out Of Memory")
    });
    match memory {
        Some(line) => Outcome::OutOfMemory(line.trim().to_string()),
        None => Outcome::Failed(
            text.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::plan;
    use xqegtb::{Defenders, MaterialClass};

    fn m(s: &str) -> Material {
        s.parse().unwrap()
    }

    #[test]
    fn levels_put_each_table_after_its_captures() {
        let plan = plan(&[m("KRKAB"), m("KRKN")]);
        let levels = levels(&plan);
        let level_of = |x: Material| levels.iter().position(|l| l.contains(&x)).unwrap();
        for t in &plan {
            for c in t.captures() {
                assert!(level_of(c) < level_of(*t), "{c} before {t}");
            }
        }
        assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), plan.len());
        assert!(levels[0].contains(&m("KRK")));
        assert!(levels.last().unwrap().contains(&m("KRKAB")));
    }

    #[test]
    fn the_plan_builds_each_table_once_after_its_captures() {
        let class = MaterialClass {
            max_attackers: 2,
            max_attackers_per_side: 1,
            defenders: Defenders::Any,
            max_pieces: 6,
        };
        let targets = class.materials();
        let plan = plan(&targets);
        let position: HashMap<Material, usize> =
            plan.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        assert_eq!(position.len(), plan.len(), "a table twice");
        for t in &targets {
            assert!(position.contains_key(t), "{t} missing");
            for d in t.dependencies() {
                assert!(position[&d] < position[t], "{d} after {t}");
            }
        }
        // Depth first keeps fewer tables at once than smallest first.
        let mut smallest_first = plan.clone();
        smallest_first.sort_by_key(|m| (m.piece_count(), m.to_string()));
        let (depth_first, smallest_first) = (build_memory(&plan), build_memory(&smallest_first));
        assert!(
            depth_first < smallest_first * 3 / 4,
            "{depth_first} against {smallest_first}"
        );
    }

    #[test]
    fn build_memory_counts_the_tables_kept_for_later_captures() {
        // KRK is read by KRKA's captures of the advisor, held while KRKA is solved.
        let plan = plan(&[m("KRKA")]);
        assert_eq!(plan, [m("KRK"), m("KRKA")]);
        let krk = Indexer::new(m("KRK")).size();
        assert_eq!(build_memory(&plan), working_bytes(m("KRKA")) + krk);
    }

    #[test]
    fn estimates_grow_with_the_table() {
        let small = estimate(m("KRK"));
        let big = estimate(m("KRKAABB"));
        assert_eq!(big.positions, 2 * Indexer::new(m("KRKAABB")).size());
        assert!(big.memory > small.memory && big.disk > small.disk);
        assert!(big.cpu_seconds > small.cpu_seconds);
    }

    #[test]
    fn job_files_name_every_table_and_its_dependencies() {
        let plan = plan(&[m("KRKA")]);
        let make = makefile(&plan, "tables");
        assert!(
            make.contains("$(DIR)/KRKA.xqtb: $(DIR)/KRK.xqtb\n"),
            "{make}"
        );
        assert!(make.contains("gen -q --threads $(THREADS) -o $(DIR) KRKA\n"));
        let script = slurm(&plan, "tables");
        assert!(script.contains("--array=0-0"), "{script}");
        assert!(script.contains("set -- KRKA;"), "{script}");
        assert!(script.contains("--dependency=afterok$after"));
        assert!(script.contains("--job-name=egtb-1-0 "), "{script}");
        // Each job solves within the estimate it asks a fifth more for.
        let e = estimate(m("KRKA")).memory;
        let bound = format!("--max-memory {}M ", e.div_ceil(1 << 20));
        assert!(script.contains(&bound), "{script}");
    }

    #[test]
    fn small_tables_do_not_ask_for_the_memory_of_their_levels_largest() {
        let plan = plan(&[m("KRBBKRBB")]);
        let arrays = job_arrays(&plan);
        let mut tables: Vec<Material> = arrays.iter().flat_map(|a| a.tables.clone()).collect();
        tables.sort_by_key(Material::to_string);
        let mut want = plan.clone();
        want.sort_by_key(Material::to_string);
        assert_eq!(tables, want, "each table in one array");
        for a in &arrays {
            let asked: Vec<u64> = a
                .tables
                .iter()
                .map(|t| requested_mib(bound_mib(*t)))
                .collect();
            let (least, most) = (asked.iter().min().unwrap(), asked.iter().max().unwrap());
            assert!(*most as f64 <= *least as f64 * 2f64.sqrt(), "{a:?}");
            assert_eq!(a.requested_mib(), *most);
            assert!(a.bound_mib() << 20 >= estimate(a.tables[0]).memory);
            assert!(a.requested_mib() >= LEAST_REQUEST_MIB);
        }
        // KRBBKRB (277 MB) and KRBBKBB (10 MB) share a level, not a request.
        let array_of = |t: &str| arrays.iter().find(|a| a.tables.contains(&m(t))).unwrap();
        let (big, small) = (array_of("KRBBKRB"), array_of("KRBBKBB"));
        assert_eq!(big.level, small.level);
        assert!(small.requested_mib() < big.requested_mib());
        assert_eq!(small.requested_mib(), LEAST_REQUEST_MIB);
        // The script: a level waits for every array of the level before.
        let script = slurm(&plan, "tables");
        assert_eq!(script.matches("job=$(sbatch").count(), arrays.len());
        assert!(script.contains(&format!("--job-name={} ", big.name())));
    }
}
