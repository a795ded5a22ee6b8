//! `bookgen analyse --plan N --slurm` on a real Slurm: a one-node cluster
//! started by scripts/slurm-local.sh runs the analysis of a small book as
//! a job array of shards and the merge after them (`afterok`), and the
//! analysis is byte for byte that of one run with the same options.
//!
//! Ignored by a plain `cargo test`: it needs root (and installs slurm-wlm
//! and munge when missing). scripts/test.sh runs it.

mod common;
use common::{bookgen, s, small_book, stdout};
#[path = "../../scripts/slurm_cluster.rs"]
mod slurm_cluster;
use slurm_cluster::{ok, Cluster};

#[test]
#[ignore = "starts a Slurm cluster as root; scripts/test.sh runs it"]
fn a_sharded_analysis_run_on_slurm_is_the_analysis_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let book = small_book(dir.path(), "small.xqb", "3");
    let submit = dir.path().join("submit.sh");
    let args = [
        "--depth", "3", "--net", "hce", "--tables", "none", "--grow", "8",
    ];
    let mut plan = vec!["analyse", "--plan", "3", "--slurm", s(&submit)];
    plan.extend(args);
    plan.push(s(&book));
    stdout(&bookgen(&plan));

    let cluster = Cluster::up(&dir.path().join("cluster"));
    let submitted = ok(
        "submit.sh",
        cluster
            .exec(&["sh", s(&submit)])
            .current_dir(dir.path())
            .env("BOOKGEN", env!("CARGO_BIN_EXE_bookgen"))
            .env("CPUS", "1")
            .output()
            .unwrap(),
    );
    assert!(submitted.contains("submitted"), "{submitted}");
    cluster.wait_for_jobs();
    let mut states = cluster.job_states();
    states.sort();
    assert_eq!(
        states,
        [
            "book-merge[?] COMPLETED",
            "book-shards[0] COMPLETED",
            "book-shards[1] COMPLETED",
            "book-shards[2] COMPLETED",
        ]
        .map(String::from)
        .to_vec(),
        "three shards, then the merge"
    );
    let planned = book.with_extension("xqa");

    let one = dir.path().join("one.xqa");
    let mut run = vec!["analyse", "-q", "-o", s(&one)];
    run.extend(args);
    run.push(s(&book));
    stdout(&bookgen(&run));
    assert!(
        std::fs::read(&planned).unwrap() == std::fs::read(&one).unwrap(),
        "the analysis made on Slurm differs from one run's"
    );
}
