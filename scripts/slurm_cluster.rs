//! A one-node Slurm cluster of scripts/slurm-local.sh for the tests that
//! run plans on a real Slurm (egtbgen/tests/slurm.rs,
//! bookgen/tests/slurm.rs include this file).
#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The longest the cluster may take over the plan.
pub const PATIENCE: Duration = Duration::from_secs(600);

pub fn ok(what: &str, out: Output) -> String {
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
pub struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-local.sh")
    }

    pub fn up(dir: &Path) -> Cluster {
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
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("bash");
        c.arg(Cluster::script())
            .args(args)
            .env("SLURM_LOCAL_DIR", &self.dir);
        c
    }

    /// Runs `args` beside the cluster (`exec`).
    pub fn exec(&self, args: &[&str]) -> Command {
        let mut all = vec!["exec"];
        all.extend_from_slice(args);
        self.command(&all)
    }

    /// Waits until no job is queued or running.
    pub fn wait_for_jobs(&self) {
        let started = Instant::now();
        loop {
            let queued = ok("squeue", self.exec(&["squeue", "-h"]).output().unwrap());
            if queued.trim().is_empty() {
                return;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "jobs still queued after {PATIENCE:?}:\n{queued}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The jobs queued or running: name, array task and state, one a line.
    pub fn queue(&self) -> String {
        ok(
            "squeue",
            self.exec(&["squeue", "-h", "-r", "-o", "%j %K %T"])
                .output()
                .unwrap(),
        )
    }

    /// Each job's name, array task and state, as `scontrol` keeps them.
    pub fn job_states(&self) -> Vec<String> {
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
