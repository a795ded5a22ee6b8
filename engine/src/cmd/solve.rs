//! `xqengine solve`: searches each position of a puzzle file and says
//! which are solved.

use std::path::Path;
use std::time::Duration;

use xqcli::{out, Failure};
use xqengine::puzzles::{self, Expected, Verdict};
use xqengine::{Engine, Limits, Score};

/// One line a puzzle of `file` (solved or not, the move, and the score,
/// depth, nodes and time of the last iteration), then `solved K of N`.
///
/// # Errors
///
/// A file that cannot be read, has a line that is no puzzle or has no
/// puzzle at all (exit status 2); puzzles not solved (exit status 1).
pub fn run(file: &Path, movetime: u64, nodes: Option<u64>) -> xqcli::Result {
    let puzzles = puzzles::read(file).map_err(Failure::usage)?;
    let limits = match nodes {
        Some(n) => Limits::nodes(n),
        None => Limits::movetime(Duration::from_millis(movetime)),
    };
    let mut engine = Engine::new();
    engine.options.use_book = false;
    engine.options.use_egtb = false;
    let mut solved = 0;
    for p in &puzzles {
        let verdict = puzzles::solve(&mut engine, p, limits.clone());
        solved += usize::from(verdict.solved);
        out!("{}", line(p, &verdict));
    }
    out!("solved {solved} of {}", puzzles.len());
    if solved < puzzles.len() {
        return Err(Failure::new(format!(
            "{} of {} puzzles not solved",
            puzzles.len() - solved,
            puzzles.len()
        )));
    }
    Ok(())
}

/// A puzzle's line: `solved line  12: want mate 3 h7e7, played h7e7 (mate
/// 3, depth 9, 1234 nodes, 5 ms)`.
fn line(p: &puzzles::Puzzle, v: &Verdict) -> String {
    let want = match p.expected {
        Expected::MateIn(n, mv) => format!("mate {n} {mv}"),
        Expected::NoMove => "no move".to_string(),
    };
    let got = v.played.map_or("(none)".to_string(), |m| m.to_string());
    let score = match v.score {
        Some(Score::Mate(n)) => format!("mate {n}"),
        Some(Score::Cp(cp)) => format!("cp {cp}"),
        None => "-".to_string(),
    };
    format!(
        "{} line {:>3}: want {want}, played {got} ({score}, depth {}, {} nodes, {} ms)",
        if v.solved { "solved" } else { "FAILED" },
        p.line,
        v.depth,
        v.nodes,
        v.time.as_millis()
    )
}
