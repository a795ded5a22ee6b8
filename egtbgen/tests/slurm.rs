//! `egtbgen plan --slurm` on a real Slurm: a one-node cluster started by
//! scripts/slurm-local.sh (munged, slurmctld and slurmd as root, on
//! loopback only) builds every table of up to 4 pieces and KRKAABB's set
//! from the plan's submission script, and the tables are byte for byte
//! those of `make -j 2` on the plan's Makefile, and pass `egtbgen verify`.
//!
//! Ignored by a plain `cargo test`: it needs root (and installs slurm-wlm
//! and munge when missing). scripts/test.sh runs it:
//! `cargo test -p egtbgen --test slurm -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;
use common::{egtbgen, files, s};

/// The longest the cluster may take over the plan.
const PATIENCE: Duration = Duration::from_secs(600);

fn ok(what: &str, out: Output) -> String {
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A cluster of scripts/slurm-local.sh with its files under a directory
/// of its own, stopped when dropped (a failing test too).
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-local.sh")
    }

    fn up(dir: &Path) -> Cluster {
        let cluster = Cluster {
            dir: dir.to_path_buf(),
        };
        let started = Instant::now();
        ok(
            "slurm-local.sh up",
            cluster.command(&["up"]).output().unwrap(),
        );
        eprintln!("cluster up in {:.1} s", started.elapsed().as_secs_f64());
        cluster
    }

    /// `scripts/slurm-local.sh ARGS` for this cluster.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("bash");
        c.arg(Cluster::script())
            .args(args)
            .env("SLURM_LOCAL_DIR", &self.dir);
        c
    }

    /// Runs `args` beside the cluster (`exec`).
    fn exec(&self, args: &[&str]) -> Command {
        let mut all = vec!["exec"];
        all.extend_from_slice(args);
        self.command(&all)
    }

    /// Waits until no job is queued or running; how long that took.
    fn wait_for_jobs(&self) -> Duration {
        let started = Instant::now();
        loop {
            let queued = ok("squeue", self.exec(&["squeue", "-h"]).output().unwrap());
            if queued.trim().is_empty() {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < PATIENCE,
                "jobs still queued after {PATIENCE:?}:\n{queued}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Each job's name, array task and state, as `scontrol` keeps them.
    fn job_states(&self) -> Vec<String> {
        let shown = ok(
            "scontrol show job",
            self.exec(&["scontrol", "show", "job", "-o"])
                .output()
                .unwrap(),
        );
        shown
            .lines()
            .map(|line| {
                let field = |name: &str| {
                    line.split_whitespace()
                        .find_map(|w| w.strip_prefix(name))
                        .unwrap_or("?")
                        .to_string()
                };
                format!(
                    "{}[{}] {}",
                    field("JobName="),
                    field("ArrayTaskId="),
                    field("JobState=")
                )
            })
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command(&["down"]).output();
    }
}

/// The table files in `dir`, by name, with their bytes.
fn tables(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir, |name| name.ends_with(".xqtb"))
}

#[test]
#[ignore = "starts a Slurm cluster as root; scripts/test.sh runs it"]
fn a_plan_run_on_slurm_builds_what_make_builds() {
    let root = tempfile::tempdir().unwrap();
    let (by_slurm, by_make) = (root.path().join("slurm"), root.path().join("make"));
    let (makefile, submit) = (root.path().join("Makefile"), root.path().join("submit.sh"));
    let planned = ok(
        "egtbgen plan",
        egtbgen(&[
            "plan",
            "--max-pieces",
            "4",
            "KRKAABB",
            "-o",
            s(&by_make),
            "--makefile",
            s(&makefile),
            "--slurm",
            s(&submit),
        ]),
    );
    let count: usize = planned
        .lines()
        .find_map(|l| l.split_once(" tables in ").map(|(n, _)| n.parse().unwrap()))
        .expect("the plan's summary");

    let started = Instant::now();
    ok(
        "make",
        Command::new("make")
            .args(["-s", "-j", "2", "-f", s(&makefile)])
            .arg(format!("EGTBGEN={}", env!("CARGO_BIN_EXE_egtbgen")))
            .arg(format!("DIR={}", s(&by_make)))
            .output()
            .unwrap(),
    );
    let make_took = started.elapsed();

    let cluster = Cluster::up(&root.path().join("cluster"));
    let started = Instant::now();
    let submitted = ok(
        "submit.sh",
        cluster
            .exec(&["sh", s(&submit)])
            .current_dir(root.path())
            .env("EGTBGEN", env!("CARGO_BIN_EXE_egtbgen"))
            .env("DIR", &by_slurm)
            .env("CPUS", "1")
            .output()
            .unwrap(),
    );
    assert!(submitted.contains("submitted"), "{submitted}");
    cluster.wait_for_jobs();
    let slurm_took = started.elapsed();
    let states = cluster.job_states();
    eprintln!(
        "{count} tables: make -j 2 {:.1} s, Slurm {:.1} s ({} array tasks)",
        make_took.as_secs_f64(),
        slurm_took.as_secs_f64(),
        states.len()
    );
    let failed: Vec<&String> = states
        .iter()
        .filter(|s| !s.ends_with(" COMPLETED"))
        .collect();
    assert!(failed.is_empty(), "jobs that did not complete: {failed:?}");
    assert_eq!(states.len(), count, "one array task a table: {states:?}");

    let (built, made) = (tables(&by_slurm), tables(&by_make));
    assert_eq!(built.len(), count);
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&built), names(&made));
    for ((name, a), (_, b)) in built.iter().zip(&made) {
        assert!(a == b, "{name} differs between Slurm and make");
    }
    let verified = ok("egtbgen verify", egtbgen(&["verify", s(&by_slurm)]));
    assert!(
        verified.contains(&format!("{count} tables: {count} pass")),
        "{verified}"
    );
}
