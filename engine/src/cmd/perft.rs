//! `xqengine perft`: counts the leaves of the legal move tree, for checking
//! move generation against known counts.

use std::time::Instant;

use xqcli::out;
use xqcore::perft_divide;

/// `move: count` for each root move, then `nodes N`; the time on stderr.
///
/// # Errors
///
/// A bad `--fen` (exit status 2).
pub fn run(depth: u32, fen: Option<&str>) -> xqcli::Result {
    let mut pos = super::start(fen)?;
    let started = Instant::now();
    let divide = if depth == 0 {
        Vec::new()
    } else {
        perft_divide(&mut pos, depth)
    };
    let nodes = if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    };
    let secs = started.elapsed().as_secs_f64();
    for (m, n) in &divide {
        out!("{m}: {n}");
    }
    out!("nodes {nodes}");
    eprintln!(
        "time {secs:.3} s, {:.0} nodes/s",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}
