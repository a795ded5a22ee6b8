//! `bookgen quality`: how good the moves are that the engine plays from a
//! book, judged by a search deeper than the analysis.
//!
//! From the start position, both sides play the book as the engine does
//! (its own book code, through [`xqengine::Engine`]: by weight, or within
//! the margin of an analysis), following every move with at least a
//! minimum share of the choices (moves drawn as the engine's
//! `selectivity` draws them: by default in proportion to their weight,
//! `selectivity medium`), up to a ply. Each position met is
//! searched to the judging depth to find its best move; that move and each
//! move played there are scored alike, by a search one ply less deep after
//! them: a move's loss is how far its score falls below the best of
//! those. The book is judged twice, by weight alone (its analysis set
//! aside) and with its analysis when it has one.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use xqbook::{analysis_path, Searched, DECIDED};
use xqbook::{book_key, move_key};
use xqcore::{Move, Position};

use crate::analyse::{company_key, search_all, AnalyseError, Budget, Job, Searches};
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
    /// How the engine draws its book moves (its `selectivity`), which
    /// gives each move its share.
    pub variety: xqengine::BookVariety,
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
    /// How a position's moves are scored against each other.
    pub scoring: Scoring,
}

/// A book move the engine plays, judged.
#[derive(Clone, Debug)]
pub struct JudgedMove {
    /// The moves from the start to the position, then the move.
    pub line: Vec<Move>,
    pub mv: Move,
    /// Its share of the engine's choices there.
    pub share: f64,
    /// How often a game from the start reaches its position, both sides
    /// playing the book as the engine does (the moves followed only).
    pub reach: f64,
    /// Centipawns below the best move at the judging depth (0 or more).
    pub loss: i32,
    /// That best move.
    pub best: Move,
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
        weighted_mean(self.moves.iter().map(|m| (m.share, f64::from(m.loss))))
    }

    /// The loss per book move as games play them: weighted by how often a
    /// game plays each (its position's reach times its share).
    pub fn played_loss(&self) -> f64 {
        weighted_mean(
            self.moves
                .iter()
                .map(|m| (m.reach * m.share, f64::from(m.loss))),
        )
    }

    /// How many moves losing at least `cp` a game plays from the book, on
    /// average (a game meets a position once at most).
    pub fn played_worse_by(&self, cp: i32) -> f64 {
        self.moves
            .iter()
            .filter(|m| m.loss >= cp)
            .map(|m| m.reach * m.share)
            // Folded from +0: an empty f64 sum is -0.
            .fold(0.0, |sum, p| sum + p)
    }
}

/// The mean of values under weights (0 for no weight).
fn weighted_mean(weighted: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut weights, mut sum) = (0.0, 0.0);
    for (w, v) in weighted {
        weights += w;
        sum += w * v;
    }
    if weights == 0.0 {
        0.0
    } else {
        sum / weights
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
    let all = || by_weight.iter().chain(analysed.iter().flatten());
    let mut searches = Searching::open(cfg)?;
    // Every judged position at the judging depth, for its best move.
    let at_position = Budget::Depth(cfg.depth);
    let mut todo: Todo = HashMap::new();
    for met in all() {
        let pos = &met.pos;
        todo.insert((book_key(pos).0, at_position), (pos.clone(), Vec::new()));
    }
    searches.make(todo)?;
    // Then each move played and that best move, scored alike.
    let scoring = match cfg.scoring {
        Scoring::MultiPv => Budget::EachMove(cfg.depth),
        Scoring::Separate => Budget::Depth(cfg.depth.saturating_sub(1)),
    };
    let mut todo: Todo = HashMap::new();
    for Met { pos, moves, .. } in all() {
        let (key, mirrored) = book_key(pos);
        let best = searches.found[&(key, at_position)].best;
        let best = (best != Move::NULL).then(|| if mirrored { best.mirror() } else { best });
        let scored = moves.iter().map(|m| m.0).chain(best);
        match scoring {
            Budget::EachMove(_) => {
                let job = todo
                    .entry((key, scoring))
                    .or_insert((pos.clone(), Vec::new()));
                for mv in scored {
                    if !job.1.contains(&mv) {
                        job.1.push(mv);
                    }
                }
            }
            _ => {
                for mv in scored {
                    let mut child = pos.clone();
                    child.make_move(mv);
                    todo.insert((book_key(&child).0, scoring), (child, Vec::new()));
                }
            }
        }
    }
    searches.make(todo)?;
    let judged = |lines: &Played| judgement(lines, &searches.found, at_position, scoring);
    let by_weight = (!cfg.analysed_only).then(|| judged(&by_weight));
    Ok((by_weight, analysed.as_ref().map(judged)))
}

/// How a position's moves are scored against each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// In one search of the position to the judging depth, a line for
    /// each move (MultiPV): every move searched alike, on one hash table.
    MultiPv,
    /// Each by its own search, one ply less deep, of the position it
    /// leads to: searches apart, whose scores differ by chance.
    Separate,
}

/// Searches to make: a position's (under its book key) or, with
/// [`Budget::EachMove`], its moves' (listed).
type Todo = HashMap<(u64, Budget), (Position, Vec<Move>)>;

/// Searches made, under their position's book key (or a move's
/// [`move_key`]) and budget.
type Found = HashMap<(u64, Budget), Searched>;

/// The judge's searches: those made, with the journal they are kept in.
struct Searching<'a> {
    cfg: &'a QualityConfig,
    journal: Option<Journal>,
    /// What the journal held when opened.
    known: Found,
    found: Found,
}

impl<'a> Searching<'a> {
    fn open(cfg: &'a QualityConfig) -> Result<Searching<'a>, AnalyseError> {
        let (journal, known) = match &cfg.journal {
            Some(path) => {
                let settings = format!("engine {}\nnet {}\n", cfg.engine_name, cfg.net_name);
                let (journal, results) = Journal::open(path, &settings)?;
                let known = results.into_iter().map(|(k, s, b)| ((k, b), s)).collect();
                (Some(journal), known)
            }
            None => (None, HashMap::new()),
        };
        Ok(Searching {
            cfg,
            journal,
            known,
            found: HashMap::new(),
        })
    }

    /// Makes the searches of `todo` that the journal does not hold (a
    /// position's moves: unless it holds them all, scored together).
    fn make(&mut self, todo: Todo) -> Result<(), AnalyseError> {
        let mut list: Vec<Job> = Vec::new();
        // A move's result is kept under its company's key (the position's
        // and all the moves'), and found under the position's and its own.
        let mut found_as: HashMap<u64, u64> = HashMap::new();
        for ((key, budget), (pos, moves)) in todo {
            let (job_key, keys) = if moves.is_empty() {
                (key, vec![key])
            } else {
                let mirrored = book_key(&pos).1;
                let stored = |m: &Move| if mirrored { m.mirror() } else { *m };
                let mut set: Vec<Move> = moves.iter().map(stored).collect();
                set.sort_unstable();
                let company = company_key(key, &set);
                for &m in &set {
                    found_as.insert(move_key(company, m), move_key(key, m));
                }
                (company, set.iter().map(|&m| move_key(company, m)).collect())
            };
            let known: Option<Vec<Searched>> = keys
                .iter()
                .map(|&k| self.known.get(&(k, budget)).copied())
                .collect();
            match known {
                Some(known) => {
                    for (k, searched) in keys.into_iter().zip(known) {
                        let k = found_as.get(&k).copied().unwrap_or(k);
                        self.found.insert((k, budget), searched);
                    }
                }
                None => list.push(Job {
                    key: job_key,
                    pos,
                    budget,
                    moves,
                }),
            }
        }
        list.sort_unstable_by_key(|job| (job.key, job.budget.encode()));
        let never = AtomicBool::new(false);
        let (journal, found) = (&mut self.journal, &mut self.found);
        search_all(
            &list,
            &self.cfg.searches,
            &never,
            &mut |key, searched, budget| {
                if let Some(j) = journal.as_mut() {
                    j.append(key, searched, budget)?;
                }
                let key = found_as.get(&key).copied().unwrap_or(key);
                found.insert((key, budget), searched);
                Ok(())
            },
        )?;
        Ok(())
    }
}

/// A position met, how often a game reaches it, and the moves played
/// there with their shares.
struct Met {
    pos: Position,
    reach: f64,
    moves: Vec<(Move, f64)>,
}

/// Positions met, in the order played.
type Played = Vec<Met>;

/// Plays the book as the engine does, from the start, every move with at
/// least the minimum share, up to the ply. Breadth first, so that every
/// line into a position (transpositions, mirror images) has added its
/// reach before the position is played from.
fn played(book: &Path, cfg: &QualityConfig) -> Played {
    let mut engine = xqengine::Engine::new();
    engine.set_book_files(vec![book.to_string_lossy().into_owned()]);
    engine.options.book_margin = cfg.margin;
    let mut seen = std::collections::HashSet::new();
    let mut reach: HashMap<u64, f64> = HashMap::from([(book_key(&Position::start()).0, 1.0)]);
    let mut queue = VecDeque::from([Position::start()]);
    let mut out = Vec::new();
    while let Some(pos) = queue.pop_front() {
        let key = book_key(&pos).0;
        if pos.ply() >= cfg.max_ply || !seen.insert(key) {
            continue;
        }
        let here = reach[&key];
        engine.set_position(pos.clone());
        let Some(choice) = engine.book_move(&mut Vec::new()) else {
            continue;
        };
        let shares = cfg.variety.shares(&choice.candidates);
        let moves: Vec<(Move, f64)> = choice
            .candidates
            .iter()
            .zip(shares)
            .map(|(c, share)| (c.mv, share))
            .filter(|&(_, share)| share > 0.0 && share >= cfg.min_share)
            .collect();
        for &(mv, share) in &moves {
            let mut child = pos.clone();
            child.make_move(mv);
            *reach.entry(book_key(&child).0).or_default() += here * share;
            queue.push_back(child);
        }
        out.push(Met {
            pos,
            reach: here,
            moves,
        });
    }
    out
}

/// Each played move's loss: how far its score falls below the best of the
/// played moves' and the judging search's best move's, all scored alike
/// (at `scoring`: in one search of the position, or as the negated score
/// of the search after each).
fn judgement(lines: &Played, found: &Found, at_position: Budget, scoring: Budget) -> Judgement {
    let mut judged = Judgement::default();
    for Met { pos, reach, moves } in lines {
        let (key, mirrored) = book_key(pos);
        let score_of = |mv: Move| match scoring {
            Budget::EachMove(_) => {
                let stored = if mirrored { mv.mirror() } else { mv };
                i32::from(found[&(move_key(key, stored), scoring)].score)
            }
            _ => {
                let mut child = pos.clone();
                child.make_move(mv);
                -i32::from(found[&(book_key(&child).0, scoring)].score)
            }
        };
        let own_best = found[&(key, at_position)].best;
        let own_best = (own_best != Move::NULL).then(|| {
            if mirrored {
                own_best.mirror()
            } else {
                own_best
            }
        });
        let Some((best, best_move)) = moves
            .iter()
            .map(|&(m, _)| m)
            .chain(own_best)
            .map(|m| (score_of(m), m))
            .max_by_key(|&(score, _)| score)
        else {
            continue;
        };
        judged.positions += 1;
        for &(mv, share) in moves {
            // A mate score's distance is no loss in centipawns.
            let loss = (best - score_of(mv)).min(i32::from(DECIDED));
            judged.moves.push(JudgedMove {
                line: pos.moves_played().collect(),
                mv,
                share,
                reach: *reach,
                loss,
                best: best_move,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_are_weighted_by_share_or_by_how_often_games_play_them() {
        let mv = Position::start().parse_move("h2e2").unwrap();
        let judged = |share, reach, loss| JudgedMove {
            line: Vec::new(),
            mv,
            share,
            reach,
            loss,
            best: mv,
        };
        let j = Judgement {
            positions: 2,
            moves: vec![
                judged(0.5, 1.0, 0),
                judged(0.5, 1.0, 20),
                judged(1.0, 0.1, 60),
            ],
        };
        assert_eq!(j.worse_by(50), 1);
        // By share: (0 + 10 + 60) / 2; as played: (0 + 10 + 6) / 1.1.
        assert!((j.mean_loss() - 35.0).abs() < 1e-9);
        assert!((j.played_loss() - 16.0 / 1.1).abs() < 1e-9);
        assert!((j.played_worse_by(50) - 0.1).abs() < 1e-12);
        assert_eq!(Judgement::default().played_loss(), 0.0);
        assert!(Judgement::default().played_worse_by(50).is_sign_positive());
    }
}
