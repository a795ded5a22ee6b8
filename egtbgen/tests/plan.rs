//! `egtbgen plan`: a class of tables written as jobs and built by those
//! jobs, through make and through the Slurm script (with a stand-in
//! `sbatch` that runs each array's elements at once, and the report job), giving the same
//! files as one `egtbgen gen`.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{egtbgen, files, s};

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The class: one attacker in all, any defenders, up to 4 pieces.
const CLASS: [&str; 4] = ["--max-attackers", "1", "--max-pieces", "4"];

/// The table files in `dir`, by name, with their bytes.
fn tables(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir, |name| name.ends_with(".xqtb"))
}

#[test]
fn a_class_built_through_make_and_slurm_equals_one_gen() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct");
    let mut gen = vec!["gen", "-q", "-o", s(&direct)];
    gen.extend(CLASS);
    ok(egtbgen(&gen));
    let want = tables(&direct);
    assert_eq!(
        want.len(),
        20,
        "{:?}",
        want.iter().map(|t| &t.0).collect::<Vec<_>>()
    );

    let makefile = dir.path().join("Makefile");
    let script = dir.path().join("submit.sh");
    let mut plan = vec!["plan", "--makefile", s(&makefile), "--slurm", s(&script)];
    plan.extend(CLASS);
    let report = ok(egtbgen(&plan));
    assert!(
        report.contains("20 tables in 2 dependency levels"),
        "{report}"
    );
    assert!(report.lines().any(|l| l.starts_with("KRKA ")), "{report}");

    // make -j2 builds them.
    let made = dir.path().join("made");
    let out = Command::new("make")
        .args(["-j2", "-f", s(&makefile)])
        .arg(format!("EGTBGEN={}", env!("CARGO_BIN_EXE_egtbgen")))
        .arg(format!("DIR={}", made.display()))
        .output()
        .expect("make is needed for this test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(tables(&made), want);

    // The Slurm script, with an sbatch that logs its arguments and runs the
    // array's elements one after another.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(
        &sbatch,
        r#"#!/bin/sh
log="$SBATCH_LOG"; n=$(($(wc -l < "$log") + 1)); echo "$*" >> "$log"; last=0
for a in "$@"; do
  case "$a" in --array=0-*) last=${a#--array=0-};; --wrap=*) cmd=${a#--wrap=};; esac
done
i=0; while [ $i -le $last ]; do SLURM_ARRAY_TASK_ID=$i sh -c "$cmd" >&2 || exit 1; i=$((i + 1)); done
echo "$n;cluster"
"#,
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&sbatch)
        .status()
        .unwrap();
    let log = dir.path().join("sbatch.log");
    std::fs::write(&log, "").unwrap();
    let slurmed = dir.path().join("slurmed");
    let out = Command::new("sh")
        .arg(&script)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("SBATCH_LOG", &log)
        .env("EGTBGEN", env!("CARGO_BIN_EXE_egtbgen"))
        .env("DIR", &slurmed)
        .env("CPUS", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(tables(&slurmed), want);
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(!calls[0].contains("--dependency"), "{}", calls[0]);
    assert!(calls[1].contains("--dependency=afterok:1 "), "{}", calls[1]);
    assert!(calls[0].contains("--array=0-3"), "{}", calls[0]);
    // Last, the report, after every level however it ended: all there.
    assert!(
        calls[2].contains("--dependency=afterany:1:2 "),
        "{}",
        calls[2]
    );
    assert!(calls[2].contains("plan --report"), "{}", calls[2]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("20 of 20 tables"), "{said}");
}

#[test]
fn plan_plays_the_slurm_script_out_on_a_cluster() {
    let said = ok(egtbgen(&[
        "plan",
        "KRKA",
        "--cluster",
        "1x2x4G",
        "--rate",
        "1000",
        "--seconds-between-jobs",
        "3",
    ]));
    // KRK (9,720 positions) then KRKA (43,200), a level after it, each on
    // 2 cores at 1,000 a core: 4.9 s, 3 s of Slurm, then 21.6 s.
    let line = said
        .lines()
        .find(|l| l.starts_with("  1 node of 2 cores and 4 GiB: 2 jobs, "))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(line.contains(" 29 s wall"), "{line}");
    assert!(line.contains("the longest job KRKA 22 s"), "{line}");
    // A node smaller than a job's 256 MiB cannot run the plan.
    let out = egtbgen(&["plan", "KRKA", "--cluster", "1x2x100M"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 node of 2 cores") && err.contains("asks for 256 MiB"),
        "{err}"
    );
}
