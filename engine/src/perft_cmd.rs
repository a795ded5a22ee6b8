//! The `perft` subcommand: per-root-move counts and a `nodes N` last line.

use std::io::Write;
use std::time::{Duration, Instant};

use xqcore::{perft_divide, Position};

/// The result of a perft run.
pub struct PerftReport {
    pub divide: Vec<(xqcore::Move, u64)>,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Runs perft to `depth` from `fen` (the start position when `None`).
pub fn run(fen: Option<&str>, depth: u32) -> Result<PerftReport, xqcore::FenError> {
    let mut pos = match fen {
        Some(f) => Position::from_fen(f)?,
        None => Position::start(),
    };
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
    Ok(PerftReport {
        divide,
        nodes,
        elapsed: started.elapsed(),
    })
}

/// Writes the report: `move: count` lines, then `nodes N`.
pub fn print(report: &PerftReport, out: &mut impl Write) -> std::io::Result<()> {
    for (m, n) in &report.divide {
        writeln!(out, "{m}: {n}")?;
    }
    writeln!(out, "nodes {}", report.nodes)
}
