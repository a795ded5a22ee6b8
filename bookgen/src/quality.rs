//! `bookgen quality`: how good the moves are that the engine plays from a
//! book, judged by a search deeper than the analysis.
//!
//! From the start position, both sides play the book as the engine does
//! (its own book code, through [`xqengine::Engine`]: by weight, or within
//! the margin of an analysis), following every move with at least a
//! minimum share of the choices (moves drawn in proportion to their
//! weight, `selectivity medium`), up to a ply. Each position met is
//! searched to the judging depth to find its best move; that move and each
//! move played there are scored alike, by a search one ply less deep after
//! them: a move's loss is how far its score falls below the best of
//! those. The book is judged twice, by weight alone (its analysis set
//! aside) and with its analysis when it has one.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use xqbook::analysis::{analysis_path, Searched, DECIDED};
use xqbook::book_key;
use xqcore::{Move, Position};

use crate::analyse::{search_all, AnalyseError, Budget, Searches};
use crate::journal::Journal;

/// How to judge.
#[derive(Clone)]
pub struct QualityConfig {
    /// Depth of the search that judges a position (its moves: one less).
    pub depth: u32,
    /// Positions before this ply are judged.
    pub max_ply: usize,
    /// Moves with a smaller share of the engine's choices are not followed
    /// nor judged.
    pub min_share: f64,
    /// The engine's `bookmargin`.
    pub margin: i16,
    /// Judge the book with its analysis only, not also by weight.
    pub analysed_only: bool,
    pub searches: Searches,
    /// A journal keeping the judging searches, so that a long judgement
    /// stopped midway goes on where it stopped (results are taken from it
    /// at the same depth only).
    pub journal: Option<PathBuf>,
    /// The judging engine's name (ours: `xqengine VERSION`; another
    /// program: the name it gives), for the journal.
    pub engine_name: String,
    /// The evaluation's name, for the journal.
    pub net_name: String,
}

/// A book move the engine plays, judged.
#[derive(Clone, Debug)]
pub struct JudgedMove {
    /// The moves from the start to the position, then the move.
    pub line: Vec<Move>,
    pub mv: Move,
    /// Its share of the engine's choices there.
    pub share: f64,
    /// Centipawns below the best move at the judging depth (0 or more).
    pub loss: i32,
}

/// The judgement of one way of playing a book.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// Positions met where the book had a move.
    pub positions: usize,
    pub moves: Vec<JudgedMove>,
}

impl Judgement {
    /// Moves losing at least `cp`.
    pub fn worse_by(&self, cp: i32) -> usize {
        self.moves.iter().filter(|m| m.loss >= cp).count()
    }

    /// The loss per book move, weighted by each move's share of the
    /// choices in its position.
    pub fn mean_loss(&self) -> f64 {
        let shares: f64 = self.moves.iter().map(|m| m.share).sum();
        let losses: f64 = self.moves.iter().map(|m| m.share * f64::from(m.loss)).sum();
        if shares == 0.0 {
            0.0
        } else {
            losses / shares
        }
    }
}

/// The book by weight (`None` when [`QualityConfig::analysed_only`]), then
/// with its analysis (`None` when it has none).
///
/// # Errors
///
/// The book cannot be copied aside, the journal cannot be used, or an
/// external judge fails.
pub fn judge(
    book: &Path,
    cfg: &QualityConfig,
) -> Result<(Option<Judgement>, Option<Judgement>), AnalyseError> {
    let by_weight = if cfg.analysed_only {
        Vec::new()
    } else {
        // The book alone: a copy without the analysis beside it.
        let plain_dir = tempfile_dir()?;
        let plain = plain_dir.join("plain.xqb");
        std::fs::copy(book, &plain).map_err(|e| io_error(book, e))?;
        let lines = played(&plain, cfg);
        let _ = std::fs::remove_dir_all(&plain_dir);
        lines
    };
    let analysed = analysis_path(book).is_file().then(|| played(book, cfg));
    // Every judged position at the judging depth, every move's position one
    // ply less deep: a position both judged and reached by a move is
    // searched both ways, so that each move is scored alike.
    let (at_position, after_move) = (
        Budget::Depth(cfg.depth),
        Budget::Depth(cfg.depth.saturating_sub(1)),
    );
    let mut todo: Todo = HashMap::new();
    for lines in std::iter::once(&by_weight).chain(analysed.as_ref()) {
        for (pos, moves) in lines {
            todo.insert((book_key(pos).0, at_position), pos.clone());
            for (mv, _) in moves {
                let mut child = pos.clone();
                child.make_move(*mv);
                todo.insert((book_key(&child).0, after_move), child);
            }
        }
    }
    let mut journal = match &cfg.journal {
        Some(path) => {
            let settings = format!("engine {}\nnet {}\n", cfg.engine_name, cfg.net_name);
            let (journal, results) = Journal::open(path, &settings)?;
            let known: Found = results.into_iter().map(|(k, s, b)| ((k, b), s)).collect();
            Some((journal, known))
        }
        None => None,
    };
    let mut found: Found = HashMap::new();
    let mut search = |todo: Todo, found: &mut Found| -> Result<(), AnalyseError> {
        let mut list: Vec<(u64, Position, Budget)> = Vec::new();
        for ((key, budget), pos) in todo {
            match journal.as_ref().and_then(|j| j.1.get(&(key, budget))) {
                Some(&searched) => {
                    found.insert((key, budget), searched);
                }
                None => list.push((key, pos, budget)),
            }
        }
        list.sort_unstable_by_key(|t| (t.0, t.2.encode()));
        let never = AtomicBool::new(false);
        search_all(
            &list,
            &cfg.searches,
            &never,
            &mut |key, searched, budget| {
                if let Some((j, _)) = journal.as_mut() {
                    j.append(key, searched, budget)?;
                }
                found.insert((key, budget), searched);
                Ok(())
            },
        )?;
        Ok(())
    };
    search(todo, &mut found)?;
    // The search's best move in each judged position, scored as the book's
    // moves are: by the search one ply less deep after it.
    let mut best_after: Todo = HashMap::new();
    for (pos, _) in by_weight.iter().chain(analysed.iter().flatten()) {
        let (key, mirrored) = book_key(pos);
        let best = found[&(key, at_position)].best;
        if best == Move::NULL {
            continue;
        }
        let mut child = pos.clone();
        child.make_move(if mirrored { best.mirror() } else { best });
        let child_key = (book_key(&child).0, after_move);
        if !found.contains_key(&child_key) {
            best_after.insert(child_key, child);
        }
    }
    search(best_after, &mut found)?;
    let judged = |lines: &Played| judgement(lines, &found, at_position, after_move);
    let by_weight = (!cfg.analysed_only).then(|| judged(&by_weight));
    Ok((by_weight, analysed.as_ref().map(judged)))
}

/// Positions to search, under their book key and budget.
type Todo = HashMap<(u64, Budget), Position>;

/// Searches made, under their position's book key and budget.
type Found = HashMap<(u64, Budget), Searched>;

/// Positions met with the moves played there and their shares.
type Played = Vec<(Position, Vec<(Move, f64)>)>;

/// Plays the book as the engine does, from the start, every move with at
/// least the minimum share, up to the ply.
fn played(book: &Path, cfg: &QualityConfig) -> Played {
    let mut engine = xqengine::Engine::new();
    engine.set_book_files(vec![book.to_string_lossy().into_owned()]);
    engine.options.book_margin = cfg.margin;
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::from([Position::start()]);
    let mut out = Vec::new();
    while let Some(pos) = queue.pop_front() {
        if pos.ply() >= cfg.max_ply || !seen.insert(book_key(&pos).0) {
            continue;
        }
        engine.set_position(pos.clone());
        let Some(choice) = engine.book_move(&mut Vec::new()) else {
            continue;
        };
        let total: f64 = choice.candidates.iter().map(|c| f64::from(c.weight)).sum();
        let moves: Vec<(Move, f64)> = choice
            .candidates
            .iter()
            .map(|c| (c.mv, f64::from(c.weight) / total))
            .filter(|&(_, share)| share >= cfg.min_share)
            .collect();
        for (mv, _) in &moves {
            let mut child = pos.clone();
            child.make_move(*mv);
            queue.push_back(child);
        }
        out.push((pos, moves));
    }
    out
}

/// Each played move's loss: how far its score (the negated score of the
/// search after it) falls below the best of the played moves' and the
/// judging search's best move's, all scored alike.
fn judgement(lines: &Played, found: &Found, at_position: Budget, after_move: Budget) -> Judgement {
    let mut judged = Judgement::default();
    for (pos, moves) in lines {
        let (key, mirrored) = book_key(pos);
        let score_of = |mv: Move| {
            let mut child = pos.clone();
            child.make_move(mv);
            -i32::from(found[&(book_key(&child).0, after_move)].score)
        };
        let own_best = found[&(key, at_position)].best;
        let own_best = (own_best != Move::NULL).then(|| {
            score_of(if mirrored {
                own_best.mirror()
            } else {
                own_best
            })
        });
        let best = moves
            .iter()
            .map(|&(m, _)| score_of(m))
            .chain(own_best)
            .max()
            .unwrap_or(0);
        judged.positions += 1;
        for &(mv, share) in moves {
            // A mate score's distance is no loss in centipawns.
            let loss = (best - score_of(mv)).min(i32::from(DECIDED));
            judged.moves.push(JudgedMove {
                line: pos.moves_played().collect(),
                mv,
                share,
                loss,
            });
        }
    }
    judged
}

fn tempfile_dir() -> Result<PathBuf, AnalyseError> {
    let dir = std::env::temp_dir().join(format!("bookgen-quality-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    Ok(dir)
}

fn io_error(path: &Path, source: std::io::Error) -> AnalyseError {
    AnalyseError::Io {
        path: path.to_path_buf(),
        source,
    }
}
