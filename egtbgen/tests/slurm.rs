//! `egtbgen plan --slurm` on a real Slurm: a one-node cluster started by
//! scripts/slurm-local.sh (munged, slurmctld and slurmd as root, on
//! loopback only) builds every table of up to 4 pieces and KRKAABB's set
//! from the plan's submission script, and the tables are byte for byte
//! those of `make -j 2` on the plan's Makefile, and pass `egtbgen verify`.
//!
//! And a plan cancelled while a table is being built, its scratch
//! directory wiped, and submitted again: only the missing tables are
//! built, the half-built one is never taken for done, and the set is byte
//! for byte that of one `egtbgen gen`.
//!
//! Ignored by a plain `cargo test`: it needs root (and installs slurm-wlm
//! and munge when missing). scripts/test.sh runs it:
//! `cargo test -p egtbgen --test slurm -- --ignored`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{egtbgen, files, s};
#[path = "../../scripts/slurm_cluster.rs"]
mod slurm_cluster;
use slurm_cluster::{ok, Cluster, PATIENCE};

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
    assert_eq!(
        states.len(),
        count + 1,
        "one array task a table, and the report: {states:?}"
    );
    let report = std::fs::read_to_string(by_slurm.join("slurm-logs/report.out")).unwrap();
    assert!(
        report.contains(&format!("{count} of {count} tables in ")),
        "{report}"
    );

    let (built, made) = (tables(&by_slurm), tables(&by_make));
    assert_eq!(built.len(), count);
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&built), names(&made));
    for ((name, a), (_, b)) in built.iter().zip(&made) {
        assert!(a == b, "{name} differs between Slurm and make");
    }
    // Each table's file and its win/draw/loss file.
    let verified = ok("egtbgen verify", egtbgen(&["verify", s(&by_slurm)]));
    let files = 2 * count;
    assert!(
        verified.contains(&format!("{files} files: {files} pass")),
        "{verified}"
    );
}

/// The modification time of each file of `tables`.
fn mtimes(dir: &Path, tables: &[(String, Vec<u8>)]) -> Vec<std::time::SystemTime> {
    tables
        .iter()
        .map(|(name, _)| {
            std::fs::metadata(dir.join(name))
                .unwrap()
                .modified()
                .unwrap()
        })
        .collect()
}

#[test]
#[ignore = "starts a Slurm cluster as root; scripts/test.sh runs it"]
fn a_plan_cancelled_mid_table_and_submitted_again_builds_only_what_is_missing() {
    // KRNKAB (about 30 s on one core) is the plan's last level, after the
    // 11 tables its captures lead into.
    const LAST: &str = "KRNKAB";
    let root = tempfile::tempdir().unwrap();
    let (by_slurm, by_gen) = (root.path().join("slurm"), root.path().join("gen"));
    let (scratch, submit) = (root.path().join("scratch"), root.path().join("submit.sh"));
    std::fs::create_dir_all(&scratch).unwrap();
    ok(
        "egtbgen plan",
        egtbgen(&["plan", LAST, "-o", s(&by_slurm), "--slurm", s(&submit)]),
    );
    let cluster = Cluster::up(&root.path().join("cluster"));
    let submit_plan = || {
        let out = cluster
            .exec(&["sh", s(&submit)])
            .current_dir(root.path())
            .env("EGTBGEN", env!("CARGO_BIN_EXE_egtbgen"))
            .env("DIR", &by_slurm)
            .env("TMPDIR", &scratch)
            .env("CPUS", "1")
            .output()
            .unwrap();
        ok("submit.sh", out)
    };

    // Cancel everything two seconds into the last table.
    submit_plan();
    let started = Instant::now();
    let levels = submit_levels(&submit);
    // The last level holds only the last table, in one array.
    let last_level = format!("egtb-{}-0", levels - 1);
    while !cluster.queue().contains(&format!("{last_level} 0 RUNNING")) {
        assert!(started.elapsed() < PATIENCE, "{last_level} never ran");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(2));
    ok(
        "scancel",
        cluster
            .exec(&["scancel", "--name", &last_level])
            .output()
            .unwrap(),
    );
    cluster.wait_for_jobs();
    let states = cluster.job_states();
    assert!(
        states.contains(&format!("{last_level}[0] CANCELLED")),
        "{states:?}"
    );
    let before = tables(&by_slurm);
    assert_eq!(before.len(), 11, "every table but the cancelled one");
    assert!(!by_slurm.join(format!("{LAST}.xqtb")).exists());
    let times = mtimes(&by_slurm, &before);
    let report = std::fs::read_to_string(by_slurm.join("slurm-logs/report.out")).unwrap();
    assert!(
        report.contains(&format!(
            "{LAST} (level {}): missing: its job failed: egtbgen: interrupted",
            levels - 1
        )),
        "{report}"
    );

    // The node's scratch wiped, and the plan submitted again.
    std::fs::remove_dir_all(&scratch).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    submit_plan();
    cluster.wait_for_jobs();
    let states = cluster.job_states();
    let failed: Vec<&String> = states
        .iter()
        .filter(|s| !s.ends_with(" COMPLETED") && !s.ends_with(" CANCELLED"))
        // The first report said a table was missing.
        .filter(|s| !s.starts_with("egtb-report"))
        .collect();
    assert!(failed.is_empty(), "jobs that failed: {failed:?}");
    let report = std::fs::read_to_string(by_slurm.join("slurm-logs/report.out")).unwrap();
    assert!(report.contains("12 of 12 tables in "), "{report}");
    let after = tables(&by_slurm);
    assert_eq!(after.len(), 12);
    let kept: Vec<_> = after
        .iter()
        .filter(|t| t.0 != format!("{LAST}.xqtb"))
        .cloned()
        .collect();
    assert!(kept == before, "the tables already built changed");
    assert_eq!(
        mtimes(&by_slurm, &kept),
        times,
        "tables already built were written again"
    );

    ok(
        "egtbgen gen",
        egtbgen(&["gen", "-q", "-o", s(&by_gen), LAST]),
    );
    assert!(
        after == tables(&by_gen),
        "the resumed set differs from one gen"
    );
}

/// How many dependency levels a submission script submits.
fn submit_levels(script: &Path) -> usize {
    let text = std::fs::read_to_string(script).unwrap();
    let level = |l: &str| l.strip_prefix("# level ")?.split(':').next()?.parse().ok();
    text.lines()
        .filter_map(level)
        .max()
        .map_or(0, |l: usize| l + 1)
}

#[test]
#[ignore = "starts a Slurm cluster as root; scripts/test.sh runs it"]
fn a_job_killed_for_memory_is_reported_with_its_table_and_estimate() {
    let root = tempfile::tempdir().unwrap();
    let (tables_dir, submit) = (root.path().join("tables"), root.path().join("submit.sh"));
    ok(
        "egtbgen plan",
        egtbgen(&["plan", "KRKN", "-o", s(&tables_dir), "--slurm", s(&submit)]),
    );
    // An egtbgen that, asked for KRKN, takes 600 MB instead: past the 256
    // MiB its job asks for.
    let greedy = root.path().join("greedy-egtbgen");
    std::fs::write(
        &greedy,
        format!(
            "#!/bin/sh\nfor last; do :; done\n\
             if [ \"$1\" = gen ] && [ \"$last\" = KRKN ]; then\n  \
             exec python3 -c 'import time; a = bytearray(600 << 20); a[::4096] = b\"x\" * (len(a) // 4096); time.sleep(30)'\n\
             fi\nexec {} \"$@\"\n",
            env!("CARGO_BIN_EXE_egtbgen")
        ),
    )
    .unwrap();
    ok(
        "chmod",
        Command::new("chmod")
            .arg("755")
            .arg(&greedy)
            .output()
            .unwrap(),
    );
    let cluster = Cluster::up(&root.path().join("cluster"));
    ok(
        "submit.sh",
        cluster
            .exec(&["sh", s(&submit)])
            .current_dir(root.path())
            .env("EGTBGEN", &greedy)
            .env("DIR", &tables_dir)
            .env("CPUS", "1")
            .output()
            .unwrap(),
    );
    cluster.wait_for_jobs();
    let report = std::fs::read_to_string(tables_dir.join("slurm-logs/report.out")).unwrap();
    let line = report
        .lines()
        .find(|l| l.starts_with("KRKN "))
        .unwrap_or_else(|| panic!("KRKN not reported:\n{report}"));
    assert!(
        line.contains("killed for memory (estimated ") && line.contains("asked 256 MiB"),
        "{report}"
    );
    assert!(report.contains("2 of 3 tables"), "{report}");
}
