//! `xqserve work` on a real Slurm: a one-node cluster started by
//! scripts/slurm-local.sh runs scripts/xqserve-work.sbatch as a job array
//! of two workers for a server beside it (its own analysers off), and
//! every queued position ends up in the server's store, analysed, the
//! queue empty.
//!
//! Ignored by a plain `cargo test`: it needs root (and installs slurm-wlm
//! and munge when missing). scripts/test.sh runs it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use xqcore::Position;
use xqserve::store::Store;

#[path = "../../scripts/slurm_cluster.rs"]
mod slurm_cluster;
use slurm_cluster::{ok, Cluster};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Positions a few moves into six openings, none a mirror of another.
fn positions() -> Vec<Position> {
    [
        "h2e2 h9g7",
        "b2e2 b9c7 h0g2",
        "c3c4",
        "g3g4 c6c5",
        "h0g2 i9i8",
        "b0c2 c9e7",
    ]
    .iter()
    .map(|line| {
        let mut pos = Position::start();
        for m in line.split(' ') {
            let mv = pos.parse_move(m).unwrap();
            pos.make_move(mv);
        }
        pos
    })
    .collect()
}

#[test]
#[ignore = "starts a Slurm cluster as root; scripts/test.sh runs it"]
fn workers_on_slurm_analyse_the_servers_queue() {
    let dir = tempfile::tempdir().unwrap();
    let store_file = dir.path().join("store.sqlite");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "slurm test secret\n").unwrap();
    {
        let store = Store::open(Some(&store_file)).unwrap();
        for pos in positions() {
            store.enqueue(&pos, 1).unwrap();
        }
    }
    let cluster = Cluster::up(&dir.path().join("cluster"));
    // The server beside the cluster (in its network), its own analysers
    // off: only the workers analyse.
    let pid_file = dir.path().join("server.pid");
    let serve = format!(
        "echo $$ > {}; exec {} --listen 127.0.0.1:0 --store {} --token-file {} \
         --analysers 0 --tables none",
        s(&pid_file),
        env!("CARGO_BIN_EXE_xqserve"),
        s(&store_file),
        s(&token_file)
    );
    let mut server = cluster
        .exec(&["sh", "-c", &serve])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.strip_prefix("listening on ")
                .map(|u| u.trim_end_matches("/chessdb.php").to_string())
        })
        .expect("the server's address");
    std::thread::spawn(move || lines.for_each(drop));

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/xqserve-work.sbatch");
    let submitted = ok(
        "sbatch",
        cluster
            .exec(&["sbatch", "--array=0-1", s(&script)])
            .current_dir(dir.path())
            .env("SERVER", &url)
            .env("TOKEN_FILE", &token_file)
            .env("XQSERVE", env!("CARGO_BIN_EXE_xqserve"))
            .env(
                "WORK_ARGS",
                "--until-empty --analyse-ms 300 --lines 3 --tables none",
            )
            .output()
            .unwrap(),
    );
    assert!(submitted.contains("Submitted"), "{submitted}");
    cluster.wait_for_jobs();
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    let _ = server.wait();

    let logs: String = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("xqserve-work-"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut states = cluster.job_states();
    states.sort();
    assert_eq!(
        states,
        ["xqserve-work[0] COMPLETED", "xqserve-work[1] COMPLETED"]
            .map(String::from)
            .to_vec(),
        "{logs}"
    );
    assert!(logs.contains("position(s) analysed"), "{logs}");
    let store = Store::open(Some(&store_file)).unwrap();
    let counts = store.counts().unwrap();
    assert_eq!(
        (counts.positions, counts.queued),
        (6, 0),
        "{counts:?}\n{logs}"
    );
    for pos in positions() {
        let stored = store.get(&pos).unwrap().expect("analysed");
        assert_eq!(stored.moves.len(), 3, "{stored:?}");
    }
}
