//! What a table set costs as a Slurm run, on paper: the submission script
//! of [`crate::jobs::slurm`] played out on a cluster of identical nodes,
//! with job times from measured rates. A level's jobs wait for the whole
//! level before (`afterok`), each job asks for its array's memory
//! ([`crate::jobs::JobArray::requested_mib`]) and the cores `CPUS` gives
//! it, and Slurm starts them in submission order on the first node with
//! room.

use std::fmt;
use std::str::FromStr;

use xqegtb::Material;

use crate::jobs::{estimate, job_arrays};

/// A cluster of identical nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: u32,
    pub cores_per_node: u32,
    /// Bytes of memory a node gives jobs.
    pub memory_per_node: u64,
}

impl Cluster {
    pub fn cores(&self) -> u64 {
        u64::from(self.nodes) * u64::from(self.cores_per_node)
    }
}

/// The error of a cluster written other than `NODESxCORESxMEMORY`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}: a cluster is NODESxCORESxMEMORY, e.g. 8x64x256G (8 nodes of 64 cores and 256 GiB)")]
pub struct ParseClusterError(String);

impl FromStr for Cluster {
    type Err = ParseClusterError;

    /// `8x64x256G`: 8 nodes of 64 cores and 256 GiB (K, M, G, T: powers of 1024).
    fn from_str(text: &str) -> Result<Cluster, ParseClusterError> {
        let error = || ParseClusterError(text.to_string());
        let parts: Vec<&str> = text.split('x').collect();
        let [nodes, cores, memory] = parts[..] else {
            return Err(error());
        };
        let (digits, shift) = match memory.chars().last().map(|c| c.to_ascii_uppercase()) {
            Some('K') => (&memory[..memory.len() - 1], 10),
            Some('M') => (&memory[..memory.len() - 1], 20),
            Some('G') => (&memory[..memory.len() - 1], 30),
            Some('T') => (&memory[..memory.len() - 1], 40),
            _ => (memory, 0),
        };
        let cluster = Cluster {
            nodes: nodes.parse().map_err(|_| error())?,
            cores_per_node: cores.parse().map_err(|_| error())?,
            memory_per_node: digits
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(1 << shift))
                .ok_or_else(error)?,
        };
        if cluster.nodes == 0 || cluster.cores_per_node == 0 || cluster.memory_per_node == 0 {
            return Err(error());
        }
        Ok(cluster)
    }
}

impl fmt::Display for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} node{} of {} cores and {:.0} GiB",
            self.nodes,
            if self.nodes == 1 { "" } else { "s" },
            self.cores_per_node,
            self.memory_per_node as f64 / f64::from(1u32 << 30)
        )
    }
}

/// How fast the jobs go: figures measured on a real Slurm (docs/egtb-sets.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobRates {
    /// Cores a job holds (the script's `CPUS`).
    pub cpus_per_job: u32,
    /// Positions a job solves a second of wall time, per core it holds, at
    /// `cpus_per_job` cores.
    pub positions_per_core_second: f64,
    /// Seconds Slurm takes from a job's end to start the next in its place,
    /// and from a level's end to start the level after.
    pub seconds_between_jobs: f64,
}

/// The rates measured on Slurm (docs/egtb-sets.md, "On a real Slurm"):
/// KRBBKRBB, the largest table built here as one job (285 M positions),
/// solved 0.55 M positions a second per core on 2 cores, the slowest of
/// the jobs measured (KRBKRB's job 1.0 M, KRKNAABB's 0.82 M); the local
/// Slurm started the next job 2.1 s after one ended (mean of 11 gaps,
/// 0.6 to 2.9 s).
pub const MEASURED: JobRates = JobRates {
    cpus_per_job: 2,
    positions_per_core_second: 550_000.0,
    seconds_between_jobs: 2.1,
};

/// One job of the run as played out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    pub material: Material,
    pub level: usize,
    /// What the job asks for, bytes (its array's request).
    pub memory: u64,
    /// Seconds it runs.
    pub seconds: f64,
    /// When it starts, seconds after the submission.
    pub start: f64,
}

/// A run played out.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub jobs: Vec<Job>,
    /// Seconds from the submission to the last job's end.
    pub wall_seconds: f64,
    /// Core-seconds the jobs hold, in all.
    pub core_seconds: f64,
}

impl Run {
    /// The share of the cluster's cores the jobs kept busy.
    pub fn utilisation(&self, cluster: &Cluster) -> f64 {
        self.core_seconds / (self.wall_seconds * cluster.cores() as f64)
    }
}

/// Why a plan cannot run on a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("{material}'s job asks for {asked_mib} MiB and {cpus} cores, more than one node has")]
    JobTooBig {
        material: Material,
        asked_mib: u64,
        cpus: u32,
    },
}

/// `plan` submitted by the Slurm script to `cluster`, its jobs timed by
/// `rates`.
///
/// # Errors
///
/// [`RunError::JobTooBig`] when a job asks for more memory or cores than a
/// node has.
pub fn run(plan: &[Material], cluster: &Cluster, rates: &JobRates) -> Result<Run, RunError> {
    let cpus = rates.cpus_per_job.max(1);
    let arrays = job_arrays(plan);
    let mut jobs = Vec::with_capacity(plan.len());
    let mut end = 0.0f64;
    let levels = arrays.last().map_or(0, |a| a.level + 1);
    for level in 0..levels {
        let start = if level == 0 {
            0.0
        } else {
            end + rates.seconds_between_jobs
        };
        let pending: Vec<(Material, u64)> = arrays
            .iter()
            .filter(|a| a.level == level)
            .flat_map(|a| a.tables.iter().map(move |m| (*m, a.requested_mib())))
            .collect();
        for &(material, asked_mib) in &pending {
            if asked_mib << 20 > cluster.memory_per_node || cpus > cluster.cores_per_node {
                return Err(RunError::JobTooBig {
                    material,
                    asked_mib,
                    cpus,
                });
            }
        }
        let seconds = |m: Material| {
            estimate(m).positions as f64 / (rates.positions_per_core_second * f64::from(cpus))
        };
        for (material, memory, begin) in schedule(&pending, cluster, cpus, start, rates, seconds) {
            let job = Job {
                material,
                level,
                memory,
                seconds: seconds(material),
                start: begin,
            };
            end = end.max(job.start + job.seconds);
            jobs.push(job);
        }
    }
    let core_seconds = jobs.iter().map(|j| j.seconds * f64::from(cpus)).sum();
    Ok(Run {
        jobs,
        wall_seconds: end,
        core_seconds,
    })
}

/// When each of one level's jobs starts: Slurm starts, in submission
/// order, every pending job that fits a node (backfilling past one that
/// does not), and when none fits waits for the next job to end.
fn schedule(
    pending: &[(Material, u64)],
    cluster: &Cluster,
    cpus: u32,
    start: f64,
    rates: &JobRates,
    seconds: impl Fn(Material) -> f64,
) -> Vec<(Material, u64, f64)> {
    // Free cores and memory of each node; the jobs running: end and node.
    let mut free = vec![(cluster.cores_per_node, cluster.memory_per_node); cluster.nodes as usize];
    let mut running: Vec<(f64, usize, u64)> = Vec::new();
    let mut waiting: Vec<(Material, u64)> = pending.to_vec();
    let mut started = Vec::with_capacity(pending.len());
    let mut now = start;
    while !waiting.is_empty() {
        let mut i = 0;
        while i < waiting.len() {
            let (material, asked_mib) = waiting[i];
            let memory = asked_mib << 20;
            match free.iter().position(|&(c, m)| c >= cpus && m >= memory) {
                Some(node) => {
                    free[node].0 -= cpus;
                    free[node].1 -= memory;
                    running.push((now + seconds(material), node, memory));
                    started.push((material, memory, now));
                    waiting.remove(i);
                }
                None => i += 1,
            }
        }
        if waiting.is_empty() {
            break;
        }
        // Wait for the next job to end, and Slurm to see it.
        let next = running
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .map(|(i, _)| i)
            .expect("a job runs while one waits, as each fits an empty node");
        let (ended, node, memory) = running.swap_remove(next);
        free[node].0 += cpus;
        free[node].1 += memory;
        now = now.max(ended + rates.seconds_between_jobs);
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::plan;
    use crate::jobs::levels;

    fn m(s: &str) -> Material {
        s.parse().unwrap()
    }

    const RATES: JobRates = JobRates {
        cpus_per_job: 1,
        positions_per_core_second: 1e6,
        seconds_between_jobs: 1.0,
    };

    /// `plan` run on two clusters.
    fn runs(plan: &[Material], first: &str, second: &str) -> (Run, Run) {
        let on = |c: &str| run(plan, &c.parse().unwrap(), &RATES).unwrap();
        (on(first), on(second))
    }

    #[test]
    fn clusters_are_read_as_written() {
        let c: Cluster = "8x64x256G".parse().unwrap();
        assert_eq!(c.nodes, 8);
        assert_eq!(c.cores_per_node, 64);
        assert_eq!(c.memory_per_node, 256 << 30);
        assert_eq!(c.cores(), 512);
        assert_eq!(c.to_string(), "8 nodes of 64 cores and 256 GiB");
        for bad in ["8x64", "0x64x1G", "8x64x1Q", "ax64x1G", "8x64x256Gx2", ""] {
            assert!(bad.parse::<Cluster>().is_err(), "{bad}");
        }
    }

    #[test]
    fn one_core_runs_the_jobs_one_after_another() {
        let plan = plan(&[m("KRKAB")]);
        let one: Cluster = "1x1x64G".parse().unwrap();
        let run = run(&plan, &one, &RATES).unwrap();
        let work: f64 = run.jobs.iter().map(|j| j.seconds).sum();
        // Every job after the first waits for Slurm once.
        let waits = (plan.len() - 1) as f64 * RATES.seconds_between_jobs;
        assert!((run.wall_seconds - work - waits).abs() < 1e-6, "{run:?}");
        assert!((run.core_seconds - work).abs() < 1e-6);
    }

    #[test]
    fn each_level_starts_after_the_one_before_and_more_cores_go_faster() {
        let plan = plan(&[m("KRKNAB")]);
        let (small, big) = runs(&plan, "1x2x64G", "4x64x256G");
        for run in [&small, &big] {
            for job in &run.jobs {
                for before in run.jobs.iter().filter(|j| j.level < job.level) {
                    assert!(
                        before.start + before.seconds < job.start,
                        "{before:?} {job:?}"
                    );
                }
            }
        }
        assert!(big.wall_seconds < small.wall_seconds);
        // With a node's cores for each job of a level, the run is its
        // longest job a level, and Slurm's pause between levels.
        let levels = levels(&plan);
        let longest: f64 = levels
            .iter()
            .map(|l| {
                l.iter()
                    .map(|t| estimate(*t).positions as f64 / RATES.positions_per_core_second)
                    .fold(0.0, f64::max)
            })
            .sum();
        let pauses = (levels.len() - 1) as f64 * RATES.seconds_between_jobs;
        assert!((big.wall_seconds - longest - pauses).abs() < 1e-6);
    }

    #[test]
    fn memory_holds_jobs_back_and_a_job_past_a_node_is_refused() {
        let plan = plan(&[m("KRKNAB")]);
        // Every job asks for 256 MiB: a node of 300 MiB runs one at a time.
        let (roomy, tight) = runs(&plan, "1x64x64G", "1x64x300M");
        assert!(tight.wall_seconds > roomy.wall_seconds);
        let small: Cluster = "1x64x100M".parse().unwrap();
        assert!(matches!(
            run(&plan, &small, &RATES),
            Err(RunError::JobTooBig { .. })
        ));
    }
}
