//! PyPI's cchess as a second reader of our PGN files, for tests.

use std::path::Path;
use std::process::Command;

/// The moves (ICCS) of the first game of the PGN file at `path` as the
/// Python library `cchess` reads them; `None` when python3 or cchess is
/// not installed (`python3 -m pip install cchess==1.25.5`; scripts/test.sh
/// installs it).
///
/// # Panics
///
/// If cchess is there but fails to read the file.
pub fn pgn_moves(path: &Path) -> Option<Vec<String>> {
    let script = "import sys, cchess\n\
        game = cchess.read_from_pgn(sys.argv[1])\n\
        print(' '.join(game.dump_iccs_moves()[0]) if game.dump_iccs_moves() else '')";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("No module named 'cchess'") {
        return None;
    }
    assert!(out.status.success(), "cchess failed: {stderr}");
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.split_whitespace().map(String::from).collect())
}
