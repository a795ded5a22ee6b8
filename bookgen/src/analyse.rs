//! `bookgen analyse`: every book position and every position a book move
//! leads to searched by the engine at a fixed budget, on all cores; the
//! book grown where the search's best move is not in it; the scores backed
//! up through the book ([`xqbook::back_up`]) and written beside it
//! ([`xqbook::analysis`]).
//!
//! Each search's result is appended to a journal as soon as it is known,
//! so a run killed at any moment resumes where it stopped, losing only the
//! searches under way (see [`crate::journal`]). The searches are
//! deterministic (one thread, a cleared hash table, a node or depth
//! budget), and growing depends only on their results, so a resumed run
//! grows the book exactly as an unbroken one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use xqbook::analysis::{
    analysis_path, write_analysis, AnalysisHeader, BookId, PositionAnalysis, Searched, MATE,
};
use xqbook::convert::walk;
use xqbook::{back_up, book_key, move_key, Book, BookGraph, BookMove, SEARCH_NOISE};
use xqcore::{Move, Position};
use xqengine::{Limits, SearchConfig, Searcher, Silent};

pub use crate::budget::Budget;
use crate::budget::{as_stored, averaged_scores};
pub use crate::error::AnalyseError;
use crate::journal::{Journal, JournalError};

/// How to analyse.
#[derive(Clone)]
pub struct AnalyseConfig {
    pub budget: Budget,
    /// Positions before this ply searched at this budget instead: the
    /// lines every game plays, searched deeper.
    pub deep: Option<(usize, Budget)>,
    /// The lines the engine itself plays from the analysed book, searched
    /// deeper still (see [`Refine`]); tiers of them, each deeper than the
    /// one before over fewer plies, where more depth costs least and the
    /// choices matter most.
    pub refine: Vec<Refine>,
    /// Searches at once, each on one thread.
    pub threads: usize,
    /// The net to evaluate with; `None`: the hand-crafted evaluation.
    pub net: Option<Arc<xqnnue::Network>>,
    /// Endgame tables for the searches.
    pub tables: Option<Arc<xqegtb::Tablebase>>,
    /// Moves the analysis may add to the book in all, besides the best
    /// moves of the positions of `grow_from`'s games.
    pub grow: usize,
    /// Moves are added from positions up to this ply.
    pub grow_plies: usize,
    /// Hash table of each search, in MB.
    pub hash_mb: usize,
    /// Search only this shard of the book's positions, into the shard's
    /// own journal, for a later run without a shard to merge.
    pub shard: Option<Shard>,
    /// Games whose moves join the book before it is analysed (self-play or
    /// match games: lines the engine meets), from their start up to
    /// `grow_plies`; each of their positions gains its best move.
    pub grow_from: Vec<(Position, Vec<Move>)>,
    /// The engine's lines, once refined, with each position's candidate
    /// moves scored together in one search (see [`Together`]).
    pub together: Option<Together>,
}

/// Where the engine's own lines (followed as [`Refine`] follows them, at
/// `margin`) have each position's moves scored in one search to `depth`
/// with a line each (MultiPV): every book move within
/// [`TOGETHER_WINDOW`] of the best and the position's own best move. Moves
/// compared in one search are compared alike; searches apart, one after
/// each move, differ by chance by about 30 cp, more than the engine's
/// margin. Again until the moves within the margin no longer change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Together {
    pub plies: usize,
    pub depth: u32,
    pub margin: i16,
    /// Each move scored by the mean of its last this many depths (1: its
    /// last depth's score; see [`Budget::EachMoveAveraged`]).
    pub averaged: u32,
}

impl Together {
    /// The budget of its searches.
    pub fn budget(self) -> Budget {
        match self.averaged {
            0 | 1 => Budget::EachMove(self.depth),
            iterations => Budget::EachMoveAveraged {
                depth: self.depth,
                iterations,
            },
        }
    }
}

/// How far below a position's best move a book move is still scored with
/// it (see [`Together`]): twice what searches apart differ by.
pub const TOGETHER_WINDOW: i16 = 2 * SEARCH_NOISE;

/// Where the engine's own play from the book is searched again, deeper:
/// from the start, both sides playing every move within `margin` of the
/// best the analysis knows (as the engine's `bookmargin` does), every
/// position before `plies` and every position its moves lead to are
/// searched at `budget`, the search's best move added where it is
/// missing, and again, until the moves within the margin no longer change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refine {
    pub plies: usize,
    pub budget: Budget,
    pub margin: i16,
}

/// One of `count` parts of a book's positions, split by key: shard `index`
/// holds the positions whose book key leaves `index` divided by `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N`, `I` from 0 to `N - 1`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}`: a shard is I/N with I from 0 to N-1, e.g. 0/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) =
            (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    fn holds(self, key: u64) -> bool {
        key % u64::from(self.count) == u64::from(self.index)
    }

    /// The journal of this shard of the analysis written to `output`.
    pub fn journal(self, output: &Path) -> PathBuf {
        let mut name = output.as_os_str().to_owned();
        name.push(format!(".shard-{}-of-{}.journal", self.index, self.count));
        PathBuf::from(name)
    }
}

/// Folds the journals of the shards of the analysis written to `output`
/// (those beside it) into `journal` and `searched`, then removes them.
fn merge_shards(
    output: &Path,
    settings: &str,
    journal: &mut Journal,
    done: &mut Vec<(u64, Searched, Budget)>,
) -> Result<(), AnalyseError> {
    for path in shard_journals(output) {
        let (_, results) = Journal::open(&path, settings)?;
        for &(key, searched, budget) in &results {
            journal.append(key, searched, budget)?;
        }
        done.extend(results);
        std::fs::remove_file(&path).map_err(|source| AnalyseError::Io { path, source })?;
    }
    Ok(())
}

/// The shard journals beside `output`, in name order.
fn shard_journals(output: &Path) -> Vec<PathBuf> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = output.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!("{name}.shard-");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".journal"))
        })
        .collect();
    out.sort();
    out
}

impl AnalyseConfig {
    /// The evaluation's name, for the analysis header.
    pub fn net_name(&self) -> String {
        net_name(self.net.as_deref())
    }

    /// What the journal says of how positions were searched: results of
    /// another engine or net are not mixed (each result keeps its budget).
    fn search_settings(&self) -> String {
        format!(
            "engine xqengine {}\nnet {}\n",
            env!("CARGO_PKG_VERSION"),
            self.net_name(),
        )
    }

    /// The budget a position at `ply` is searched at.
    fn budget_at(&self, ply: usize) -> Budget {
        match self.deep {
            Some((plies, deep)) if ply < plies => deep,
            _ => self.budget,
        }
    }

    /// The budgets, as the analysis's header says them.
    pub fn budget_text(&self) -> String {
        let mut text = self.budget.to_string();
        if let Some((plies, deep)) = self.deep {
            text.push_str(&format!(", {deep} before ply {plies}"));
        }
        for r in &self.refine {
            text.push_str(&format!(
                ", {} along the moves within {} cp before ply {}",
                r.budget, r.margin, r.plies
            ));
        }
        if let Some(t) = self.together {
            text.push_str(&format!(
                ", moves scored together at depth {} along the moves within {} cp before ply {}",
                t.depth, t.margin, t.plies
            ));
            if t.averaged > 1 {
                text.push_str(&format!(
                    ", each the mean of its last {} depths",
                    t.averaged
                ));
            }
        }
        text
    }
}

/// An evaluation's name: a net's checksum, or `hce`.
pub fn net_name(net: Option<&xqnnue::Network>) -> String {
    match net {
        Some(net) => format!("nnue {:08x}", net.checksum()),
        None => "hce".into(),
    }
}

/// Where the work stands, for a progress bar.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Positions searched of those known so far to need a search.
    pub searched: usize,
    pub to_search: usize,
    /// Moves the analysis added so far.
    pub grown: usize,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct AnalyseSummary {
    /// Book positions analysed (with moves), the added ones included.
    pub positions: usize,
    /// Their moves, and of those the moves the analysis added.
    pub moves: usize,
    pub grown: usize,
    /// Positions searched in all, and of those by this run.
    pub searched: usize,
    pub searched_now: usize,
    /// Nodes this run searched.
    pub nodes: u64,
    /// The analysis file and its bytes.
    pub output: PathBuf,
    pub bytes: u64,
}

/// The journal of an analysis written to `output`.
pub fn journal_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// The book being analysed, as a graph of positions.
struct Work {
    graph: BookGraph,
    /// The budget of each position's search.
    budgets: HashMap<u64, Budget>,
    /// Positions to be searched at more than their ply asks (refining).
    required: HashMap<u64, Budget>,
    /// Every result by position and budget: growing reads the results at
    /// the budget of the position's ply, so that it grows the same book
    /// whatever deeper searches a resumed run already knows.
    by_budget: HashMap<(u64, Budget), Searched>,
    /// Every position met, under its book key, with its ply from the start.
    positions: HashMap<u64, (Position, usize)>,
    /// Positions to start backing up from (every book position).
    roots: Vec<Position>,
    grown: usize,
    /// The moves of each position scored together so far (see
    /// [`Together`]), as stored.
    scored_together: HashMap<u64, Vec<Move>>,
    /// The key of each move's score from a search of moves together (its
    /// position's, its company's and its own) to the key
    /// [`BookGraph::move_scores`] keeps it under.
    together_keys: HashMap<u64, u64>,
    /// The searches of moves together asked for in this run, by key.
    together_asked: std::collections::HashSet<u64>,
    /// The positions of the games grown from (`--grow-from`): the lines the
    /// engine is known to meet, each gaining its best move outside the
    /// budget of growing.
    game_lines: std::collections::HashSet<u64>,
}

impl Work {
    /// The positions of `book`, with the positions their moves lead to.
    fn of_book(book: &Book) -> Work {
        let probe = |pos: &Position| book.probe(pos).unwrap_or_default();
        let walked = walk(probe, 1, usize::MAX);
        let mut work = Work {
            graph: BookGraph::default(),
            budgets: HashMap::new(),
            required: HashMap::new(),
            by_budget: HashMap::new(),
            positions: HashMap::new(),
            roots: Vec::new(),
            grown: 0,
            scored_together: HashMap::new(),
            together_keys: HashMap::new(),
            together_asked: std::collections::HashSet::new(),
            game_lines: std::collections::HashSet::new(),
        };
        for (pos, moves) in walked {
            work.add_node(&pos, &moves);
        }
        work
    }

    fn add_node(&mut self, pos: &Position, moves: &[BookMove]) {
        let (key, mirrored) = book_key(pos);
        self.meet(pos);
        self.roots.push(pos.clone());
        let stored = moves
            .iter()
            .map(|m| (if mirrored { m.mv.mirror() } else { m.mv }, true))
            .collect();
        self.graph.nodes.insert(key, stored);
        for m in moves {
            let mut child = pos.clone();
            child.make_move(m.mv);
            self.meet(&child);
        }
    }

    /// Adds the moves of a game from `start`, up to `max_ply`, that the
    /// book does not have (as moves the analysis added).
    fn add_line(&mut self, start: &Position, moves: &[Move], max_ply: usize) {
        let mut pos = start.clone();
        for &mv in moves.iter().take(max_ply) {
            if !pos.legal_moves().contains(&mv) {
                return;
            }
            let (key, mirrored) = book_key(&pos);
            let stored = if mirrored { mv.mirror() } else { mv };
            self.meet(&pos);
            self.game_lines.insert(key);
            if !self.graph.nodes.contains_key(&key) {
                self.roots.push(pos.clone());
            }
            let known = self.graph.nodes.entry(key).or_default();
            if known.iter().all(|m| m.0 != stored) {
                known.push((stored, false));
            }
            pos.make_move(mv);
            self.meet(&pos);
        }
    }

    fn meet(&mut self, pos: &Position) {
        let key = book_key(pos).0;
        self.positions
            .entry(key)
            .or_insert_with(|| (pos.clone(), pos.ply()));
    }

    /// Positions met and not yet searched at the budget asked of them (their
    /// ply's, or a refining's), in key order, with that budget. A result
    /// the journal already holds at that budget is taken in here, when
    /// the analysis asks for it, and not before: a resumed run then decides
    /// what to grow and refine on the same results, in the same order, as
    /// an unbroken one did, however much deeper searching its journal knows.
    fn take_known_or_list(&mut self, cfg: &AnalyseConfig) -> Vec<Job> {
        let mut out: Vec<(u64, Position, Budget)> = self
            .positions
            .iter()
            .map(|(&key, (pos, ply))| {
                let asked = cfg.budget_at(*ply);
                let required = self.required.get(&key).copied();
                let asked = required.filter(|r| r.covers(asked)).unwrap_or(asked);
                (key, pos, asked)
            })
            .filter(|(key, _, asked)| !self.budgets.get(key).is_some_and(|b| b.covers(*asked)))
            .map(|(key, pos, asked)| (key, pos.clone(), asked))
            .collect();
        out.retain(|&(key, _, asked)| match self.by_budget.get(&(key, asked)) {
            Some(&known) => {
                self.found(key, known, asked);
                false
            }
            None => true,
        });
        out.sort_unstable_by_key(|p| p.0);
        out.into_iter()
            .map(|(key, pos, budget)| Job::position(key, pos, budget))
            .collect()
    }

    /// Keeps a result from the journal, to be taken in when asked for.
    fn known(&mut self, key: u64, searched: Searched, budget: Budget) {
        self.by_budget.insert((key, budget), searched);
    }

    /// Takes in a search's result, unless one at a larger budget is known
    /// (a move's score from [`Together`]: always, the last search's).
    fn found(&mut self, key: u64, searched: Searched, budget: Budget) {
        self.by_budget.insert((key, budget), searched);
        if budget.scores_moves() {
            let move_key = self.together_keys.get(&key).copied().unwrap_or(key);
            self.graph.move_scores.insert(move_key, searched);
            return;
        }
        if self
            .budgets
            .get(&key)
            .is_some_and(|b| b.covers(budget) && *b != budget)
        {
            return;
        }
        self.graph.searched.insert(key, searched);
        self.budgets.insert(key, budget);
    }

    /// One round of [`Refine`]: asks for the deeper searches of the
    /// engine's own lines as the analysis stands, and adds the best moves
    /// those searches found where they are missing. Returns how many
    /// searches it asked for and moves it added (none: the lines are
    /// refined).
    fn refine(&mut self, refine: Refine) -> usize {
        let analysis = back_up(&self.graph, &self.roots);
        let mut changes = 0;
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::from([Position::start()]);
        while let Some(pos) = queue.pop_front() {
            let (key, mirrored) = book_key(&pos);
            if pos.ply() >= refine.plies || !seen.insert(key) {
                continue;
            }
            let Some(a) = analysis.get(&key) else {
                continue;
            };
            changes += usize::from(self.require(key, refine.budget));
            changes += usize::from(self.add_search_best(&pos));
            let moves = self.graph.nodes[&key].clone();
            for (stored, _) in moves {
                let mv = if mirrored { stored.mirror() } else { stored };
                let mut child = pos.clone();
                child.make_move(mv);
                self.meet(&child);
                changes += usize::from(self.require(book_key(&child).0, refine.budget));
                let within = a.within(refine.margin).any(|m| m.mv == stored);
                if within {
                    queue.push_back(child);
                }
            }
        }
        changes
    }

    /// Adds the search's best move of book position `pos` to its moves
    /// where they lack it (as a move the analysis added), and meets the
    /// position it leads to; whether it added it.
    fn add_search_best(&mut self, pos: &Position) -> bool {
        let (key, mirrored) = book_key(pos);
        let best = self.graph.searched.get(&key).map_or(Move::NULL, |s| s.best);
        let Some(known) = self.graph.nodes.get_mut(&key) else {
            return false;
        };
        if best == Move::NULL || known.iter().any(|m| m.0 == best) {
            return false;
        }
        known.push((best, false));
        self.grown += 1;
        let mut child = pos.clone();
        child.make_move(if mirrored { best.mirror() } else { best });
        self.meet(&child);
        true
    }

    /// The searches [`Together`] asks for, as the analysis stands: each
    /// position of the engine's lines whose candidate moves were not all
    /// scored together at its depth (those the journal holds are taken in
    /// here, as [`Work::take_known_or_list`] takes them), and how many
    /// scores and moves that took in or added. A position's own best move
    /// joins the book where it is missing ([`Work::add_search_best`]).
    fn together(&mut self, t: Together) -> (Vec<Job>, usize) {
        let budget = t.budget();
        let analysis = back_up(&self.graph, &self.roots);
        let (mut jobs, mut changes) = (Vec::new(), 0);
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::from([Position::start()]);
        while let Some(pos) = queue.pop_front() {
            let (key, mirrored) = book_key(&pos);
            if pos.ply() >= t.plies || !seen.insert(key) {
                continue;
            }
            let Some(a) = analysis.get(&key) else {
                continue;
            };
            let met = |m: Move| if mirrored { m.mirror() } else { m };
            changes += usize::from(self.add_search_best(&pos));
            let best = self.graph.searched.get(&key).map_or(Move::NULL, |s| s.best);
            // The moves scored together here before stay in (so that the
            // moves a position compares only grow, and the rounds end), and
            // in a symmetric position each move's mirror image joins it.
            let mut set = self.scored_together.get(&key).cloned().unwrap_or_default();
            let symmetric = pos.mirror().fen() == pos.fen();
            let near = a.within(TOGETHER_WINDOW).map(|m| m.mv);
            for m in near.chain((best != Move::NULL).then_some(best)) {
                let images = [Some(m), symmetric.then(|| m.mirror())];
                for m in images.into_iter().flatten() {
                    if !set.contains(&m) {
                        set.push(m);
                    }
                }
            }
            set.sort_unstable();
            if set.len() >= 2 {
                match self.scored_together_job(key, &set, budget) {
                    Ok(taken) => changes += taken,
                    // Searched once already (a line it did not report is
                    // not searched for again and again).
                    Err(job_key) if !self.together_asked.insert(job_key) => {}
                    Err(job_key) => jobs.push(Job {
                        key: job_key,
                        pos: pos.clone(),
                        budget,
                        moves: set.iter().map(|&m| met(m)).collect(),
                    }),
                }
                self.scored_together.insert(key, set);
            }
            for m in a.within(t.margin) {
                let mut child = pos.clone();
                child.make_move(met(m.mv));
                queue.push_back(child);
            }
        }
        jobs.sort_unstable_by_key(|job| job.key);
        (jobs, changes)
    }

    /// The scores of `set`, the stored moves of position `key`, from one
    /// search at `budget`: taken in from the journal when it holds them
    /// (how many changed), or the key that search's results are kept under
    /// (the position's and the moves', so that the same moves scored in
    /// another company are not taken for these).
    fn scored_together_job(
        &mut self,
        key: u64,
        set: &[Move],
        budget: Budget,
    ) -> Result<usize, u64> {
        let job_key = company_key(key, set);
        let mut changes = 0;
        for &m in set {
            self.together_keys
                .insert(move_key(job_key, m), move_key(key, m));
        }
        let known: Option<Vec<Searched>> = set
            .iter()
            .map(|&m| self.by_budget.get(&(move_key(job_key, m), budget)).copied())
            .collect();
        let known = known.ok_or(job_key)?;
        for (&m, searched) in set.iter().zip(known) {
            if self.graph.move_scores.get(&move_key(key, m)) != Some(&searched) {
                self.found(move_key(job_key, m), searched, budget);
                changes += 1;
            }
        }
        Ok(changes)
    }

    /// Asks for `key` searched at `budget` at least; whether that is new
    /// (neither searched nor asked for at that budget or more).
    fn require(&mut self, key: u64, budget: Budget) -> bool {
        let covered = |b: Option<&Budget>| b.is_some_and(|b| b.covers(budget));
        if covered(self.budgets.get(&key)) || covered(self.required.get(&key)) {
            return false;
        }
        self.required.insert(key, budget);
        true
    }

    /// Adds the search's best move (at the budget of the position's ply)
    /// where the book does not have it, from positions before
    /// `cfg.grow_plies`: at every position of the games grown from (the
    /// lines the engine is known to meet, a move each at most), and at
    /// `budget` more positions, lowest plies first. Returns how many moves
    /// it added.
    fn grow(&mut self, cfg: &AnalyseConfig, budget: usize) -> usize {
        let (mut on_games, mut elsewhere): (Vec<_>, Vec<_>) = self
            .positions
            .iter()
            .filter(|(_, (_, ply))| *ply < cfg.grow_plies)
            .filter_map(|(&key, &(_, ply))| {
                let at_ply = self.by_budget.get(&(key, cfg.budget_at(ply)));
                let best = at_ply.or(self.graph.searched.get(&key))?.best;
                let known = self.graph.nodes.get(&key);
                let new = best != Move::NULL && known.is_none_or(|m| m.iter().all(|x| x.0 != best));
                new.then_some((ply, key, best))
            })
            .partition(|&(_, key, _)| self.game_lines.contains(&key));
        on_games.sort_unstable();
        elsewhere.sort_unstable();
        elsewhere.truncate(budget);
        self.grown += elsewhere.len();
        let candidates = [on_games, elsewhere].concat();
        for &(_, key, stored) in &candidates {
            let pos = self.positions[&key].0.clone();
            let mirrored = book_key(&pos).1;
            let mv = if mirrored { stored.mirror() } else { stored };
            if !self.graph.nodes.contains_key(&key) {
                self.roots.push(pos.clone());
            }
            self.graph
                .nodes
                .entry(key)
                .or_default()
                .push((stored, false));
            let mut child = pos;
            child.make_move(mv);
            self.meet(&child);
        }
        candidates.len()
    }
}

/// Analyses `book`, writing the analysis to `output` (default: beside the
/// book, [`analysis_path`]) and its journal beside that. `stop` ends the
/// run early (the journal keeps what was done); `progress` sees the work
/// after every search.
///
/// # Errors
///
/// The journal (or a shard's) holds another engine's or net's searches,
/// or cannot be read or written; the analysis cannot be written; the run
/// was stopped.
pub fn analyse(
    book: &Book,
    output: Option<&Path>,
    cfg: &AnalyseConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<AnalyseSummary, AnalyseError> {
    let output = output.map_or_else(|| analysis_path(book.path()), Path::to_path_buf);
    let settings = cfg.search_settings();
    let journal_at = match cfg.shard {
        Some(shard) => shard.journal(&output),
        None => journal_path(&output),
    };
    let (mut journal, done) = Journal::open(&journal_at, &settings)?;
    let mut work = Work::of_book(book);
    for (start, moves) in &cfg.grow_from {
        work.add_line(start, moves, cfg.grow_plies);
    }
    let mut done = done;
    if cfg.shard.is_none() {
        merge_shards(&output, &settings, &mut journal, &mut done)?;
    }
    for (key, searched, budget) in done {
        work.known(key, searched, budget);
    }
    let mut summary = AnalyseSummary::default();
    let mut report = Progress::default();
    // Searching and growing until the book stops growing, then searching
    // and refining until the engine's lines settle: growing first, on the
    // results at each ply's own budget, grows the same book however much
    // refining a resumed run already knows.
    let mut refining = false;
    let mut together = Vec::new();
    loop {
        let mut todo = work.take_known_or_list(cfg);
        todo.append(&mut together);
        if let Some(shard) = cfg.shard {
            todo.retain(|job| shard.holds(job.key));
        }
        report.to_search = todo.len() + report.searched;
        report.grown = work.grown;
        progress(report);
        let (count, nodes) = search_all(
            &todo,
            &cfg.searches(),
            stop,
            &mut |key, searched, budget| {
                journal.append(key, searched, budget)?;
                work.found(key, searched, budget);
                report.searched += 1;
                progress(report);
                Ok(())
            },
        )?;
        summary.searched_now += count;
        summary.nodes += nodes;
        if stop.load(Ordering::Relaxed) {
            return Err(AnalyseError::Stopped);
        }
        // A shard searches its part of the book's own positions; growing
        // needs every result, so the merging run grows.
        if cfg.shard.is_some() {
            break;
        }
        if !refining {
            let budget = cfg.grow.saturating_sub(work.grown);
            if work.grow(cfg, budget) > 0 {
                continue;
            }
            refining = true;
        }
        // Every tier on the same analysis, again until none asks for more:
        // a deeper tier's results move the lines a shallower one follows.
        let changes: usize = cfg.refine.iter().map(|&r| work.refine(r)).sum();
        if changes > 0 {
            continue;
        }
        // Then the refined lines' moves scored together, again until that
        // changes nothing (refining again on the way).
        let Some(t) = cfg.together else { break };
        let changes;
        (together, changes) = work.together(t);
        if together.is_empty() && changes == 0 {
            break;
        }
    }
    summary.searched = work.graph.searched.len();
    if cfg.shard.is_some() {
        summary.output = journal_at;
        return Ok(summary);
    }
    let analysis = back_up(&work.graph, &work.roots);
    summary.positions = analysis.len();
    summary.moves = analysis.values().map(|a| a.moves.len()).sum();
    summary.grown = count_grown(&analysis);
    let header = AnalysisHeader {
        book: BookId::of(book),
        engine: format!("xqengine {}", env!("CARGO_PKG_VERSION")),
        net: cfg.net_name(),
        budget: cfg.budget_text(),
        searched: summary.searched as u64,
    };
    summary.bytes = write_analysis(&output, &header, &analysis)?;
    summary.output = output;
    Ok(summary)
}

fn count_grown(analysis: &HashMap<u64, PositionAnalysis>) -> usize {
    analysis
        .values()
        .flat_map(|a| &a.moves)
        .filter(|m| !m.in_book)
        .count()
}

/// How the searches of a run are made: on how many threads, with which
/// evaluation and tables.
#[derive(Clone)]
pub struct Searches {
    pub threads: usize,
    pub net: Option<Arc<xqnnue::Network>>,
    pub tables: Option<Arc<xqegtb::Tablebase>>,
    pub hash_mb: usize,
    /// Another program to search with instead of our engine (one process a
    /// thread): `bookgen quality`'s independent judge.
    pub external: Option<xqmatch::EngineSpec>,
}

impl AnalyseConfig {
    fn searches(&self) -> Searches {
        Searches {
            threads: self.threads,
            net: self.net.clone(),
            tables: self.tables.clone(),
            hash_mb: self.hash_mb,
            external: None,
        }
    }
}

/// One search to make: a position met, under its book key, at a budget;
/// or with [`Budget::EachMove`], the moves of `pos` (legal there) it
/// scores together, each result kept under [`move_key`] of `key` and the
/// move as the book key stores it.
pub(crate) struct Job {
    pub key: u64,
    pub pos: Position,
    pub budget: Budget,
    pub moves: Vec<Move>,
}

impl Job {
    /// The search of a position at `budget`.
    pub(crate) fn position(key: u64, pos: Position, budget: Budget) -> Job {
        Job {
            key,
            pos,
            budget,
            moves: Vec::new(),
        }
    }
}

/// The key of a search scoring `set` (moves of position `key`, as
/// stored, in order) together: its results are kept under [`move_key`] of
/// it and each move, so that a move scored in other company is not taken
/// for one scored in this.
pub(crate) fn company_key(key: u64, set: &[Move]) -> u64 {
    set.iter().fold(key, |k, &m| move_key(k, m))
}

/// Makes each job of `todo` on `how.threads` threads, handing each result
/// (under the position's book key, as stored, or a move's key) to
/// `record` as it comes. Returns the jobs done and the nodes.
pub(crate) fn search_all(
    todo: &[Job],
    how: &Searches,
    stop: &AtomicBool,
    record: &mut dyn FnMut(u64, Searched, Budget) -> Result<(), JournalError>,
) -> Result<(usize, u64), AnalyseError> {
    if todo.is_empty() {
        return Ok((0, 0));
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    type Done = (Vec<(u64, Searched)>, Budget, u64);
    let (tx, rx) = channel::<Result<Done, AnalyseError>>();
    let mut outcome = Ok((0usize, 0u64));
    std::thread::scope(|scope| {
        for _ in 0..how.threads.max(1) {
            let tx = tx.clone();
            let (next, failed) = (&next, &failed);
            std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, move || {
                    let mut worker = match Worker::new(how) {
                        Ok(worker) => worker,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= todo.len()
                            || failed.load(Ordering::Relaxed)
                            || stop.load(Ordering::Relaxed)
                        {
                            break;
                        }
                        let job = &todo[i];
                        let message = worker
                            .make(job, how.tables.as_deref())
                            .map(|(results, nodes)| (results, job.budget, nodes));
                        let failing = message.is_err();
                        if tx.send(message).is_err() || failing {
                            break;
                        }
                    }
                })
                .expect("spawn an analysis thread");
        }
        drop(tx);
        let (mut count, mut nodes) = (0, 0);
        for message in rx {
            let recorded = message.and_then(|(results, budget, n)| {
                for (key, searched) in results {
                    record(key, searched, budget)?;
                }
                Ok(n)
            });
            match recorded {
                Ok(n) => {
                    count += 1;
                    nodes += n;
                }
                Err(e) => {
                    failed.store(true, Ordering::Relaxed);
                    outcome = Err(e);
                    return;
                }
            }
        }
        outcome = Ok((count, nodes));
    });
    outcome
}

/// What searches on one thread: our engine, or another program.
enum Worker {
    Ours(Box<Searcher>),
    External(Box<xqmatch::EngineProcess>),
}

impl Worker {
    fn new(how: &Searches) -> Result<Worker, AnalyseError> {
        if let Some(spec) = &how.external {
            let engine = xqmatch::EngineProcess::start(spec)?;
            return Ok(Worker::External(Box::new(engine)));
        }
        let config = SearchConfig {
            egtb: how.tables.clone(),
            net: how.net.clone(),
            threads: 1,
            ..SearchConfig::default()
        };
        Ok(Worker::Ours(Box::new(Searcher::new(config, how.hash_mb))))
    }

    /// `job`'s results, under their keys, and the nodes they took (0 when
    /// another program searched): a position the tables hold takes their
    /// value.
    fn make(
        &mut self,
        job: &Job,
        tables: Option<&xqegtb::Tablebase>,
    ) -> Result<(Vec<(u64, Searched)>, u64), AnalyseError> {
        let each_move = match job.budget {
            Budget::EachMove(depth) => Some((depth, 1)),
            Budget::EachMoveAveraged { depth, iterations } => Some((depth, iterations)),
            _ => None,
        };
        if let Some((depth, iterations)) = each_move {
            return self.score_moves(job.key, &job.pos, &job.moves, depth, iterations);
        }
        let result = match tables.and_then(|tb| from_tables(tb, &job.pos)) {
            Some(exact) => (exact, 0),
            None => self.search(&job.pos, job.budget)?,
        };
        Ok((vec![(job.key, result.0)], result.1))
    }

    /// The search of `met` at `budget`, as its book key stores it, and the
    /// nodes it took (0 when another program searched).
    ///
    /// The position is searched as its book key stores it (a mirror image
    /// turned round) and without the line that reached it: a search's move
    /// ordering is not mirror-symmetric, so this makes the result a
    /// function of the key alone, whichever image and line a run met first.
    fn search(&mut self, met: &Position, budget: Budget) -> Result<(Searched, u64), AnalyseError> {
        let stored = stored_image(met);
        if stored.legal_moves().is_empty() {
            let lost = Searched {
                score: -MATE,
                best: Move::NULL,
                depth: 0,
            };
            return Ok((lost, 0));
        }
        match self {
            Worker::Ours(searcher) => Ok(search_one(searcher, &stored, budget)),
            Worker::External(engine) => {
                crate::external::search(engine, &stored, budget).map(|searched| (searched, 0))
            }
        }
    }

    /// `moves` of `met` scored in one search to `depth`, each under
    /// [`move_key`] of `key` and the move as stored, with the nodes it
    /// took; searched as the book key stores the position, as
    /// [`Worker::search`] does.
    fn score_moves(
        &mut self,
        key: u64,
        met: &Position,
        moves: &[Move],
        depth: u32,
        iterations: u32,
    ) -> Result<(Vec<(u64, Searched)>, u64), AnalyseError> {
        let mirrored = book_key(met).1;
        let stored = stored_image(met);
        let moves: Vec<Move> = moves
            .iter()
            .map(|&m| if mirrored { m.mirror() } else { m })
            .collect();
        let (scores, nodes) = match self {
            Worker::Ours(searcher) => {
                score_moves_ours(searcher, &stored, &moves, depth, iterations)
            }
            Worker::External(engine) => (
                crate::external::score_moves(engine, &stored, &moves, depth, iterations)?,
                0,
            ),
        };
        let results = scores
            .into_iter()
            .map(|(mv, searched)| (move_key(key, mv), searched))
            .collect();
        Ok((results, nodes))
    }
}

/// `met` as its book key stores it: a mirror image turned round, without
/// the line that reached it.
fn stored_image(met: &Position) -> Position {
    let image = if book_key(met).1 {
        met.mirror()
    } else {
        met.clone()
    };
    Position::from_fen(&image.fen()).expect("a position's own FEN")
}

/// The depth recorded for a position the endgame tables hold: their value
/// is exact.
pub const TABLES_DEPTH: u8 = u8::MAX;

/// The tables' value and best move of `met` (under the Asian rules, as
/// the server answers), as its book key stores them, when they hold it.
fn from_tables(tb: &xqegtb::Tablebase, met: &Position) -> Option<Searched> {
    let answers = tb
        .under(xqegtb::Repetitions::CheckAndChase)
        .preferring(xqengine::EvalPreference::builtin());
    let (best, value) = answers.best_move(met).ok()??;
    // A forced result `d` plies away, as the search scores a mate; a
    // result of the repetition rules (counted from far beyond any mate)
    // stays beyond the decided bound.
    let far = |d: u16| MATE - d.min(999) as i16;
    let score = match value {
        xqegtb::Value::Win(d) => far(d),
        xqegtb::Value::Loss(d) => -far(d),
        xqegtb::Value::Draw => 0,
    };
    let best = if book_key(met).1 { best.mirror() } else { best };
    Some(Searched {
        score,
        best,
        depth: TABLES_DEPTH,
    })
}

/// Our search of `pos`, a position as its book key stores it with a legal
/// move, and its nodes.
fn search_one(searcher: &mut Searcher, pos: &Position, budget: Budget) -> (Searched, u64) {
    searcher.new_game();
    let r = searcher.search(pos, &budget.limits(), &Silent);
    let searched = as_stored(r.score, r.best.unwrap_or(Move::NULL), r.depth);
    (searched, r.nodes)
}

/// The lines of a MultiPV search as it reports them at the end of each
/// iteration: depth, score and first move.
#[derive(Default)]
struct Lines(std::sync::Mutex<Vec<(i32, i32, Move)>>);

impl xqengine::Reporter for Lines {
    fn info(&self, info: &xqengine::SearchInfo) {
        if let Some(&mv) = info.pv.first() {
            let mut lines = self.0.lock().expect("no panic while held");
            lines.push((info.depth, info.raw_score, mv));
        }
    }
}

/// Our one search of `pos` (as its book key stores it) among `moves`, to
/// `depth`, with a line for each (MultiPV): each move's score as
/// [`averaged_scores`] makes it of its last `iterations` depths, and the
/// nodes.
fn score_moves_ours(
    searcher: &mut Searcher,
    pos: &Position,
    moves: &[Move],
    depth: u32,
    iterations: u32,
) -> (Vec<(Move, Searched)>, u64) {
    let single = searcher.config().clone();
    searcher.set_config(SearchConfig {
        multipv: moves.len(),
        ..single.clone()
    });
    searcher.new_game();
    let limits = Limits {
        search_moves: moves.to_vec(),
        ..Limits::depth(depth)
    };
    let lines = Lines::default();
    let r = searcher.search(pos, &limits, &lines);
    searcher.set_config(single);
    let lines = lines.0.into_inner().expect("no panic while held");
    (averaged_scores(&lines, iterations), r.nodes)
}

/// A Makefile analysing `book` in `shards` jobs and a merge: one target a
/// shard (a stamp file written when its `bookgen analyse --shard` ends
/// well), then the analysis itself, made by a run without a shard that
/// merges the shards' journals, grows the book and writes it. `args` are
/// the analysis options every run takes (budget, net, growth); `make -j N`
/// runs N shards at once. BOOKGEN, BOOK, OUT and ARGS can be overridden.
pub fn makefile(book: &Path, output: &Path, shards: u32, args: &str) -> String {
    let stamp = |i: u32| format!("$(OUT).shard-{i}-of-{shards}.done");
    let stamps: Vec<String> = (0..shards).map(stamp).collect();
    let mut s = format!(
        "# The analysis of a book in {shards} shards and a merge: make -j N -f THIS_FILE\n\
         BOOKGEN ?= bookgen\nBOOK ?= {book}\nOUT ?= {output}\nARGS ?= {args}\n\n\
         .PHONY: all\nall: $(OUT)\n\n\
         $(OUT): {stamps}\n\t$(BOOKGEN) analyse -q $(ARGS) -o $(OUT) $(BOOK)\n",
        book = book.display(),
        output = output.display(),
        stamps = stamps.join(" "),
    );
    for i in 0..shards {
        s.push_str(&format!(
            "\n{}:\n\t$(BOOKGEN) analyse -q $(ARGS) --shard {i}/{shards} -o $(OUT) $(BOOK) && touch $@\n",
            stamp(i)
        ));
    }
    s
}

/// A shell script submitting the same to Slurm: a job array of the
/// shards, then the merging run once every shard succeeded (`afterok`).
/// BOOKGEN, BOOK, OUT, ARGS and CPUS can be set in the environment.
pub fn slurm(book: &Path, output: &Path, shards: u32, args: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # The analysis of a book in {shards} shards (a Slurm job array) and a merge.\n\
         set -eu\n\
         BOOKGEN=${{BOOKGEN:-bookgen}}\nBOOK=${{BOOK:-{book}}}\nOUT=${{OUT:-{output}}}\n\
         ARGS=${{ARGS:-{args}}}\nCPUS=${{CPUS:-2}}\n\
         shards=$(sbatch --parsable --job-name=book-shards --array=0-{last} --cpus-per-task=\"$CPUS\" \\\n  \
         --wrap=\"exec $BOOKGEN analyse -q $ARGS --threads $CPUS --shard \\$SLURM_ARRAY_TASK_ID/{shards} -o $OUT $BOOK\")\n\
         merge=$(sbatch --parsable --job-name=book-merge --cpus-per-task=\"$CPUS\" \
         --dependency=afterok:${{shards%%;*}} \\\n  \
         --wrap=\"exec $BOOKGEN analyse -q $ARGS --threads $CPUS -o $OUT $BOOK\")\n\
         echo \"submitted: shards ${{shards%%;*}}, merge ${{merge%%;*}}\"\n",
        book = book.display(),
        output = output.display(),
        last = shards.saturating_sub(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_scored_in_one_search_are_kept_by_position_and_move_whichever_image() {
        // Red's rook takes Black's, or leaves its own to be taken.
        let pos = Position::from_fen("3k5/9/9/9/r8/9/9/9/9/R3K4 w").unwrap();
        let (take, wait) = (
            pos.parse_move("a0a5").unwrap(),
            pos.parse_move("e0e1").unwrap(),
        );
        let how = Searches {
            threads: 1,
            net: None,
            tables: None,
            hash_mb: 1,
            external: None,
        };
        let scored = |met: &Position, moves: Vec<Move>| {
            let job = Job {
                key: book_key(met).0,
                pos: met.clone(),
                budget: Budget::EachMove(5),
                moves,
            };
            let mut found = HashMap::new();
            let never = AtomicBool::new(false);
            search_all(&[job], &how, &never, &mut |key, searched, budget| {
                assert_eq!(budget, Budget::EachMove(5));
                found.insert(key, searched);
                Ok(())
            })
            .unwrap();
            found
        };
        let found = scored(&pos, vec![take, wait]);
        let (key, mirrored) = book_key(&pos);
        let stored = |m: Move| if mirrored { m.mirror() } else { m };
        let (took, waited) = (
            found[&move_key(key, stored(take))],
            found[&move_key(key, stored(wait))],
        );
        assert_eq!(found.len(), 2);
        assert_eq!((took.best, waited.best), (stored(take), stored(wait)));
        assert_eq!((took.depth, waited.depth), (5, 5));
        assert!(took.score > waited.score + 800, "{took:?} {waited:?}");
        // The mirror image, its moves mirrored: the same results.
        let mirror = scored(&pos.mirror(), vec![take.mirror(), wait.mirror()]);
        assert_eq!(mirror, found);
        assert_ne!(move_key(key, take), key);
    }

    #[test]
    fn positions_the_tables_hold_take_their_exact_value() {
        let dir = tempfile::tempdir().unwrap();
        let krk: xqegtb::Material = "KRK".parse().unwrap();
        egtbgen::build(dir.path(), &egtbgen::plan(&[krk]), &|_| {}).unwrap();
        let mut tb = xqegtb::Tablebase::new();
        tb.add_dir(dir.path()).unwrap();
        // The rook mates; its mirror image is stored with the mirrored move.
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
        let found = from_tables(&tb, &pos).unwrap();
        assert!(found.score > xqbook::analysis::DECIDED, "{found:?}");
        assert_eq!(found.depth, TABLES_DEPTH);
        let mirrored = from_tables(&tb, &pos.mirror()).unwrap();
        assert_eq!(mirrored.score, found.score);
        let (stored, mirror_stored) = (book_key(&pos), book_key(&pos.mirror()));
        assert_eq!(stored.0, mirror_stored.0);
        assert_eq!(found.best, mirrored.best);
        // Black to move, a rook down: lost, by as many plies less one.
        let black = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b").unwrap();
        assert!(from_tables(&tb, &black).unwrap().score < -xqbook::analysis::DECIDED);
        // A position of other material is the search's.
        assert!(from_tables(&tb, &Position::start()).is_none());
    }
}
