//! Test positions with a known answer, searched through the [`Engine`] as a
//! GUI would search them: `xqengine solve data/mates.txt --movetime 500`.
//!
//! A puzzle file has one position a line, tab-separated, and `#` comments:
//!
//! ```text
//! 3    FEN    h7e7    mate in 3 moves, h7e7 the one first move that mates
//! m    FEN    -       the side to move is checkmated: no move to play
//! s    FEN    -       the side to move is stalemated (lost in xiangqi)
//! ```

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use xqcore::{Move, Position};

use crate::engine::Engine;
use crate::score::Score;
use crate::search::{Reporter, SearchInfo};
use crate::time::Limits;

/// What a puzzle's side to move should find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Mate in this many moves, starting with this move.
    MateIn(u32, Move),
    /// No move at all: the side to move is mated or stalemated.
    NoMove,
}

/// One position of a puzzle file.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// The line of the file it came from, from 1.
    pub line: usize,
    pub position: Position,
    pub expected: Expected,
}

/// A line of a puzzle file that is not a puzzle.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct PuzzleError {
    pub line: usize,
    pub reason: String,
}

/// A puzzle file that cannot be used, named.
#[derive(Debug, thiserror::Error)]
pub enum PuzzleFileError {
    #[error("{}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", .path.display())]
    Line { path: PathBuf, source: PuzzleError },
    /// Nothing to solve: blank, or comments only.
    #[error("{}: no puzzles (one a line: kind, FEN and move, tab-separated)", .path.display())]
    Empty { path: PathBuf },
}

/// Reads every puzzle of the puzzle file at `path`.
///
/// # Errors
///
/// The file cannot be read, a line is no puzzle ([`parse`]), or the file
/// holds no puzzle at all; the error names the file.
pub fn read(path: &Path) -> Result<Vec<Puzzle>, PuzzleFileError> {
    let named = || path.to_path_buf();
    let text = std::fs::read_to_string(path).map_err(|source| PuzzleFileError::Read {
        path: named(),
        source,
    })?;
    let puzzles = parse(&text).map_err(|source| PuzzleFileError::Line {
        path: named(),
        source,
    })?;
    if puzzles.is_empty() {
        return Err(PuzzleFileError::Empty { path: named() });
    }
    Ok(puzzles)
}

/// Reads every puzzle of a puzzle file's text.
///
/// # Errors
///
/// The first line that is neither a comment, blank nor a puzzle, with why:
/// a missing column, a bad FEN, a move that is not legal, or a kind that is
/// neither a number of moves nor `m`/`s`.
pub fn parse(text: &str) -> Result<Vec<Puzzle>, PuzzleError> {
    let mut puzzles = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: String| PuzzleError {
            line: i + 1,
            reason,
        };
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        let [kind, fen, answer] = cols[..] else {
            return Err(bad(format!(
                "{} tab-separated columns, not 3 (kind, FEN, move)",
                cols.len()
            )));
        };
        let position = Position::from_fen(fen).map_err(|e| bad(format!("FEN {fen:?}: {e}")))?;
        let expected = match kind {
            "m" | "s" => {
                if !position.legal_moves().is_empty() {
                    return Err(bad(format!("kind {kind}, but the side to move has moves")));
                }
                Expected::NoMove
            }
            n => {
                let moves =
                    n.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| {
                        bad(format!("kind {n:?}: neither a number of moves nor m/s"))
                    })?;
                let first = position
                    .parse_move(answer)
                    .map_err(|e| bad(format!("move {answer:?}: {e}")))?;
                Expected::MateIn(moves, first)
            }
        };
        puzzles.push(Puzzle {
            line: i + 1,
            position,
            expected,
        });
    }
    Ok(puzzles)
}

/// How the engine answered one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The move it played (`None`: no move).
    pub played: Option<Move>,
    /// The score of its last reported iteration (`None`: no search).
    pub score: Option<Score>,
    /// Depth, nodes and time of that last iteration (the search may have
    /// gone on without finding better until its limit).
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
    /// The expected move with the expected mate score, or no move where
    /// none is expected.
    pub solved: bool,
}

/// Keeps the last iteration a search reports.
#[derive(Default)]
struct LastInfo(Mutex<Option<SearchInfo>>);

impl Reporter for LastInfo {
    fn info(&self, info: &SearchInfo) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(info.clone());
    }
}

/// Searches `puzzle` with `engine` (its options as they are; a new game
/// first, so no puzzle learns from the one before) within `limits`, and
/// judges the answer.
pub fn solve(engine: &mut Engine, puzzle: &Puzzle, limits: Limits) -> Verdict {
    engine.new_game();
    engine.set_position(puzzle.position.clone());
    let last = Arc::new(LastInfo::default());
    let (tx, rx) = mpsc::channel();
    engine.go(
        limits,
        false,
        last.clone(),
        Box::new(move |answer| {
            let _ = tx.send(answer);
        }),
    );
    engine.wait();
    let played = rx.recv().ok().and_then(|answer| answer.mv);
    let info = last.0.lock().unwrap_or_else(|e| e.into_inner()).take();
    let score = info.as_ref().map(|i| i.score);
    let solved = match puzzle.expected {
        Expected::MateIn(n, first) => played == Some(first) && score == Some(Score::Mate(n as i32)),
        Expected::NoMove => played.is_none(),
    };
    Verdict {
        played,
        score,
        depth: info.as_ref().map_or(0, |i| i.depth),
        nodes: info.as_ref().map_or(0, |i| i.nodes),
        time: info.map_or(Duration::ZERO, |i| i.time),
        solved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATES: &str = include_str!("../../data/mates.txt");

    #[test]
    fn the_mates_file_reads() {
        let puzzles = parse(MATES).unwrap();
        assert_eq!(puzzles.len(), 21);
        let mates = puzzles
            .iter()
            .filter(|p| matches!(p.expected, Expected::MateIn(..)))
            .count();
        assert_eq!(mates, 17);
    }

    #[test]
    fn bad_lines_are_named() {
        let cases = [
            ("1\tnot a fen\th7e7", "line 1: FEN"),
            (
                "# c\n1\t4k4/9/9/9/9/9/9/9/9/4K4 w",
                "line 2: 2 tab-separated",
            ),
            ("x\t4k4/9/9/9/9/9/9/9/9/3K5 w\t-", "line 1: kind \"x\""),
            ("0\t4k4/9/9/9/9/9/9/9/9/3K5 w\td0d1", "line 1: kind \"0\""),
            (
                "1\t4k4/9/9/9/9/9/9/9/9/3K5 w\ta0a1",
                "line 1: move \"a0a1\"",
            ),
            ("m\t4k4/9/9/9/9/9/9/9/9/3K5 w\t-", "line 1: kind m, but"),
        ];
        for (text, start) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(start), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_puzzle_file_is_read_and_its_errors_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.txt");
        let e = read(&missing).unwrap_err().to_string();
        assert!(e.contains("missing.txt: "), "{e}");
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "# x\n1\tnot a fen\th7e7\n").unwrap();
        let e = read(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.txt: line 2: FEN"), "{e}");
        let good = dir.path().join("good.txt");
        std::fs::write(&good, MATES).unwrap();
        assert_eq!(read(&good).unwrap().len(), 21);
    }

    #[test]
    fn a_file_without_puzzles_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("empty.txt", ""), ("comments.txt", "# none yet\n\n")] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let e = read(&path).map(|p| p.len()).unwrap_err().to_string();
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(
                e.ends_with(": no puzzles (one a line: kind, FEN and move, tab-separated)"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_mate_in_one_is_solved_and_a_wrong_answer_is_not() {
        let puzzles = parse(MATES).unwrap();
        let mut engine = Engine::new();
        engine.options.use_book = false;
        engine.options.use_egtb = false;
        let mate_in_one = puzzles
            .iter()
            .find(|p| matches!(p.expected, Expected::MateIn(1, _)))
            .unwrap();
        let v = solve(&mut engine, mate_in_one, Limits::depth(4));
        assert!(v.solved, "{v:?}");
        assert_eq!(v.score, Some(Score::Mate(1)));

        // The same position, expecting another first move: not solved.
        let Expected::MateIn(_, first) = mate_in_one.expected else {
            unreachable!()
        };
        let other = mate_in_one
            .position
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| m != first)
            .unwrap();
        let wrong = Puzzle {
            expected: Expected::MateIn(1, other),
            ..mate_in_one.clone()
        };
        assert!(!solve(&mut engine, &wrong, Limits::depth(4)).solved);

        let mated = puzzles
            .iter()
            .find(|p| p.expected == Expected::NoMove)
            .unwrap();
        let v = solve(&mut engine, mated, Limits::depth(4));
        assert!(v.solved && v.played.is_none(), "{v:?}");
    }
}
