//! `egtbgen` driven as users run it, on broken files: `info`, `verify` and
//! `probe` exit non-zero with a message naming the file, and never print a
//! value read from a damaged table.

use std::path::Path;
use std::process::{Command, Output};

use xqstore::Layout;

mod common;
mod metrics;
use common::{egtbgen, s};

/// The command failed, saying why on stderr with `name` in it.
fn refused(out: &Output, name: &str, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: accepted");
    assert!(err.contains(name), "{what}: {err}");
}

#[test]
fn broken_tables_are_refused_by_info_verify_and_probe() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRK", "KCK"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let krk = dir.path().join("KRK.xqtb");
    let good = std::fs::read(&krk).unwrap();
    let other = std::fs::read(dir.path().join("KCK.xqtb")).unwrap();
    let info = egtbgen(&["info", s(&krk)]);
    assert!(info.status.success());
    assert!(String::from_utf8_lossy(&info.stdout).contains("KRK"));

    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (at, what) in [(20, "header"), (65, "metadata"), (good.len() - 5, "index")] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x01;
        cases.push((format!("flipped {what} byte"), bytes));
    }
    for (i, end) in Layout::read(&krk).unwrap().block_ends().enumerate() {
        let end = end as usize;
        let mut bytes = good.clone();
        bytes[end - 1] ^= 0x01;
        cases.push((format!("flipped byte in block {i}"), bytes));
        cases.push((format!("cut at the end of block {i}"), good[..end].to_vec()));
    }
    let mut swapped = good[..64].to_vec();
    swapped.extend_from_slice(&other[64..]);
    cases.push(("a swapped header".into(), swapped));
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb");
    cases.push(("a book".into(), std::fs::read(book).unwrap()));

    let broken = tempfile::tempdir().unwrap();
    let file = broken.path().join("KRK.xqtb");
    for (what, bytes) in &cases {
        std::fs::write(&file, bytes).unwrap();
        refused(&egtbgen(&["info", s(&file)]), "KRK.xqtb", what);
        let verify = egtbgen(&["verify", "-q", "--path", s(dir.path()), s(&file)]);
        refused(&verify, "KRK.xqtb", what);
        let err = String::from_utf8_lossy(&verify.stderr);
        assert_eq!(
            err.lines().count(),
            1,
            "{what}: one table, one error: {err}"
        );
    }
    // Another table's file under KRK's name: the prober refuses it.
    std::fs::write(&file, &other).unwrap();
    let probe = egtbgen(&[
        "probe",
        "--path",
        s(broken.path()),
        "3k5/9/9/9/9/9/9/9/R8/4K4 w",
    ]);
    refused(&probe, "KRK.xqtb", "KCK's file named KRK");
    assert!(String::from_utf8_lossy(&probe.stderr).contains("holds KCK"));
    // The intact table answers the same probe.
    let probe = egtbgen(&[
        "probe",
        "--path",
        s(dir.path()),
        "3k5/9/9/9/9/9/9/9/R8/4K4 w",
    ]);
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    assert!(String::from_utf8_lossy(&probe.stdout).contains("win"));
}

/// The files in `dir` whose names end with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect()
}

/// Every table in `dir` is complete: `info` checks every block of it.
fn all_tables_whole(dir: &Path) -> usize {
    let tables = files_ending(dir, ".xqtb");
    for t in &tables {
        let out = egtbgen(&["info", s(t)]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    tables.len()
}

fn spawn_gen(dir: &Path, material: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_egtbgen"))
        .args(["gen", "-q", "-o", s(dir), material])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// A test of a build's directory: the moment to stop it has come.
type Moment = dyn Fn(&Path) -> bool;

/// Waits until `ready` holds for `dir` (polling), or the child ends.
fn wait_for(child: &mut std::process::Child, dir: &Path, ready: impl Fn(&Path) -> bool) {
    while !ready(dir) && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn killed_builds_leave_only_whole_tables_and_a_rerun_finishes() {
    // KRKAABB and the 8 tables it needs, stopped while a table file is
    // being written and between tables, by SIGINT (which removes the file
    // being written) and by SIGKILL (whose leftovers the next run removes).
    let writing = |d: &Path| !files_ending(d, ".tmp").is_empty();
    let three_done = |d: &Path| files_ending(d, ".xqtb").len() >= 3;
    let moments: [(&str, &Moment); 3] =
        [("INT", &writing), ("KILL", &writing), ("KILL", &three_done)];
    for (signal, moment) in moments {
        let dir = tempfile::tempdir().unwrap();
        let mut child = spawn_gen(dir.path(), "KRKAABB");
        wait_for(&mut child, dir.path(), moment);
        let pid = child.id().to_string();
        Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        let before = all_tables_whole(dir.path());
        assert!(before < 9, "{signal}: the build was not stopped midway");
        if signal == "INT" {
            assert_eq!(status.code(), Some(130), "SIGINT exits with 130");
            assert!(
                files_ending(dir.path(), ".tmp").is_empty(),
                "SIGINT leaves no file"
            );
        }
        let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRKAABB"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(all_tables_whole(dir.path()), 9, "{signal}");
        assert!(files_ending(dir.path(), ".tmp").is_empty(), "{signal}");
        assert!(files_ending(dir.path(), ".new").is_empty(), "{signal}");
    }
}

#[test]
fn verify_reads_the_tables_one_capture_leads_to_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRKAB"]);
    assert!(out.status.success());
    let krkab = dir.path().join("KRKAB.xqtb");
    // KRK is two captures away from KRKAB: not needed to check it.
    std::fs::remove_file(dir.path().join("KRK.xqtb")).unwrap();
    let out = egtbgen(&["verify", "-q", s(&krkab)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(dir.path().join("KRKA.xqtb")).unwrap();
    let out = egtbgen(&["verify", "-q", s(&krkab)]);
    refused(&out, "KRKA.xqtb", "KRKA missing");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needed for the captures of KRKAB"), "{err}");
}

#[test]
fn two_builds_into_one_directory_do_not_spoil_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = spawn_gen(dir.path(), "KRKAB");
    let mut b = spawn_gen(dir.path(), "KRKAB");
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    let tables = all_tables_whole(dir.path());
    assert!(tables >= 4, "{tables}");
    assert!(files_ending(dir.path(), ".tmp").is_empty());
    let file = dir.path().join("KRKAB.xqtb");
    let out = egtbgen(&["verify", "-q", s(&file)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bench_times_cached_first_and_opening_probes() {
    let dir = tempfile::tempdir().unwrap();
    assert!(egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRK"])
        .status
        .success());
    let out = egtbgen(&[
        "bench",
        "--path",
        s(dir.path()),
        "KRK",
        "--positions",
        "300",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8_lossy(&out.stdout);
    // Three medians, each a number of microseconds, none missing.
    let figures: Vec<f64> = line
        .split_whitespace()
        .zip(line.split_whitespace().skip(1))
        .filter(|(_, unit)| *unit == "us")
        .map(|(n, _)| n.parse().unwrap())
        .collect();
    assert!(line.starts_with("KRK (dtm): 300 positions"), "{line}");
    assert_eq!(figures.len(), 3, "{line}");
    assert!(figures.iter().all(|f| f.is_finite() && *f > 0.0), "{line}");
    assert!(line.contains("(200 openings)"), "{line}");
}

#[test]
fn probe_lists_every_move_and_the_line_to_mate() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRKA"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fen = "3ak4/9/9/9/9/9/9/9/5R3/3K5 w";
    let probe = egtbgen(&["probe", "--all", "--line", "--path", s(dir.path()), fen]);
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let text = String::from_utf8(probe.stdout).unwrap();
    let field = |prefix: &str| {
        let line = text.lines().find(|l| l.starts_with(prefix)).expect(prefix);
        line[prefix.len()..].to_string()
    };
    let dtm: usize = field("dtm ").parse().unwrap();
    let best = field("bestmove ");
    // Every legal move, best first: the best move leads to the position's value.
    let pos = xqcore::Position::from_fen(fen).unwrap();
    let listed: usize = field("moves ").parse().unwrap();
    assert_eq!(listed, pos.legal_moves().len());
    let first = text
        .lines()
        .skip_while(|l| !l.starts_with("moves "))
        .nth(1)
        .unwrap();
    assert_eq!(first, format!("{best} win dtm {dtm}"));
    // The line: dtm plies from the best move, ending in mate.
    let line = field("line ");
    let (plies, moves) = line.split_once(" plies: ").unwrap();
    let moves: Vec<&str> = moves.split(' ').collect();
    assert_eq!(plies.parse::<usize>().unwrap(), dtm);
    assert_eq!(moves.len(), dtm);
    assert_eq!(moves[0], best);
    let mut end = pos.clone();
    for m in &moves {
        let mv = end.parse_move(m).unwrap();
        assert!(end.is_legal(mv), "{m}");
        end.make_move(mv);
    }
    assert!(
        end.legal_moves().is_empty(),
        "the line ends in mate: {}",
        end.fen()
    );
}

#[test]
fn verify_checks_every_table_of_a_directory_and_names_the_one_that_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = egtbgen(&["gen", "-q", "-o", s(dir.path()), "KRKA"]);
    assert!(out.status.success());
    let all = egtbgen(&["verify", "-q", s(dir.path())]);
    let said = String::from_utf8_lossy(&all.stdout);
    assert!(all.status.success(), "{said}");
    // KRKA and KRK (the rook's capture leaves a draw, which has no table).
    assert!(said.contains("KRKA.xqtb: all"), "{said}");
    assert!(said.contains("KRK.xqtb: all"), "{said}");
    assert!(
        said.contains(" files: ") && said.contains(", 0 fail"),
        "{said}"
    );

    // One damaged table: the others are still checked, the run fails and
    // names it.
    let krka = dir.path().join("KRKA.xqtb");
    let end = Layout::read(&krka).unwrap().blocks[0].end as usize;
    let mut bytes = std::fs::read(&krka).unwrap();
    bytes[end - 1] ^= 0x01;
    std::fs::write(&krka, bytes).unwrap();
    let krk = dir.path().join("KRK.xqtb");
    let some = egtbgen(&["verify", "-q", s(&krka), s(&krk)]);
    refused(&some, "KRKA.xqtb", "a damaged table among two");
    assert!(String::from_utf8_lossy(&some.stdout).contains("2 files: 1 pass"));
    let empty = tempfile::tempdir().unwrap();
    refused(
        &egtbgen(&["verify", s(empty.path())]),
        "no table files",
        "an empty directory",
    );
}
