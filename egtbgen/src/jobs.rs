//! A table set as jobs for a scheduler, so that it can be built past one
//! machine: a Makefile (`make -j N` runs independent tables at once) and a
//! Slurm submission script (one job array per dependency level, each level
//! starting after the one before finished), every job one `egtbgen gen` of
//! one table; with an estimate of what each table costs.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::build::table_path;
use crate::generate::working_bytes;
use xqegtb::index::Indexer;
use xqegtb::material::Material;

/// Bits a table file takes per position, for estimates: the 5-piece set
/// averages 0.63, KRKAABB 0.93 (measured with `egtbgen info`).
pub const ESTIMATED_BITS_PER_POSITION: f64 = 1.0;

/// Positions one core solves a second, for estimates: a cautious figure
/// for tables with both repetition rules to apply, below what the builds
/// measured (docs/speed.md and docs/egtb-sets.md give those rates).
pub const ESTIMATED_POSITIONS_PER_CORE_SECOND: f64 = 1_400_000.0;

/// What building one table is expected to cost.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub material: Material,
    /// Positions: indexes times two sides to move.
    pub positions: u64,
    /// Memory the solver holds: its own working arrays and the values of
    /// the tables its captures lead into (the sides to move they reach).
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
        memory: working_bytes(material) + captured,
        disk: (positions as f64 * ESTIMATED_BITS_PER_POSITION / 8.0) as u64,
        cpu_seconds: positions as f64 / ESTIMATED_POSITIONS_PER_CORE_SECOND,
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
            kept as u64 + working_bytes(*m)
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

/// A shell script that submits `plan` to Slurm: one job array per
/// dependency level ([`levels`]), each element one `egtbgen gen` of one
/// table with the level's memory request ([`requested_mb`]), each level
/// after the one before succeeded (`afterok`; a failure cancels what
/// depends on it), and last a job that reports, once every other has
/// ended, what is missing and why (`egtbgen plan --report`, into
/// `DIR/slurm-logs/report.out`; see [`report`]). Run it where `sbatch` is;
/// `EGTBGEN`, `DIR` and `CPUS` can be set in the environment. Each job
/// solves within the estimate (`--max-memory`): the repetition rules'
/// lists, which no estimate foresees, go to scratch files in the node's
/// `TMPDIR` (or `DIR`) past it, and the job is not killed for them. Each
/// job's output goes to `DIR/slurm-logs/egtb-LEVEL_INDEX.out`.
pub fn slurm(plan: &[Material], dir: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#!/bin/sh\n\
         # {} endgame tables in {} dependency levels, one Slurm job array per level.\n\
         set -eu\n\
         EGTBGEN=${{EGTBGEN:-egtbgen}}\nDIR=${{DIR:-{dir}}}\nCPUS=${{CPUS:-2}}\n\
         mkdir -p \"$DIR/{LOGS}\"\nafter=\"\"\nall=\"\"",
        plan.len(),
        levels(plan).len()
    );
    for (i, level) in levels(plan).iter().enumerate() {
        let memory = level.iter().map(|m| estimate(*m).memory).max().unwrap_or(0);
        let bound_mib = memory.div_ceil(1 << 20).max(1);
        let names: Vec<String> = level.iter().map(Material::to_string).collect();
        let _ = writeln!(
            s,
            "\n# level {i}: {} tables, at most {:.0} MB each (estimated)\n\
             job=$(sbatch --parsable --job-name=egtb-{i} --array=0-{} --cpus-per-task=\"$CPUS\" \
             --mem={}M --kill-on-invalid-dep=yes ${{after:+--dependency=afterok:$after}} \\\n  \
             --output=\"$DIR/{LOGS}/egtb-{i}_%a.out\" \\\n  \
             --wrap=\"set -- {}; shift \\$SLURM_ARRAY_TASK_ID; \
             exec $EGTBGEN gen -q --threads $CPUS --max-memory {bound_mib}M \
             --scratch \\${{TMPDIR:-$DIR}} -o $DIR \\$1\")\n\
             after=${{job%%;*}}\nall=\"$all:$after\"",
            level.len(),
            memory as f64 / 1e6,
            level.len() - 1,
            requested_mb(level),
            names.join(" ")
        );
    }
    let every: Vec<String> = plan.iter().map(Material::to_string).collect();
    let _ = writeln!(
        s,
        "\n# Last, once every job above has ended: what is missing, and why.\n\
         report=$(sbatch --parsable --job-name=egtb-report --dependency=afterany$all \
         --output=\"$DIR/{LOGS}/report.out\" \\\n  \
         --wrap=\"exec $EGTBGEN plan --report -o $DIR {}\")\n\
         echo \"submitted; the last level is job $after, the report job ${{report%%;*}} \
         (in $DIR/{LOGS}/report.out)\"",
        every.join(" ")
    );
    s
}

/// Where the Slurm jobs' output goes, in the tables' directory.
pub const LOGS: &str = "slurm-logs";

/// The memory (MB) the Slurm jobs of a level ask for: a fifth more than
/// its largest table's estimate, and at least 256.
pub fn requested_mb(level: &[Material]) -> u64 {
    let memory = level.iter().map(|m| estimate(*m).memory).max().unwrap_or(0);
    (memory as f64 * 1.2 / 1e6).ceil().max(256.0) as u64
}

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
    for (l, level) in levels(plan).iter().enumerate() {
        let asked = requested_mb(level);
        for (i, &m) in level.iter().enumerate() {
            let built =
                xqegtb::TableFile::open(&table_path(dir, m)).is_ok_and(|t| t.info().material == m);
            let outcome = if built {
                Outcome::Built
            } else {
                let log = dir.join(LOGS).join(format!("egtb-{l}_{i}.out"));
                match std::fs::read_to_string(&log) {
                    Err(_) => Outcome::NotRun,
                    Ok(text) => job_outcome(&text),
                }
            };
            out.push((m, l, estimate(m), asked, outcome));
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
    use xqegtb::material::{Defenders, MaterialClass};

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
        assert!(script.contains("afterok:$after"));
        // Each job solves within the estimate it asks a fifth more for.
        let e = estimate(m("KRKA")).memory;
        let bound = format!("--max-memory {}M ", e.div_ceil(1 << 20));
        assert!(script.contains(&bound), "{script}");
    }
}
