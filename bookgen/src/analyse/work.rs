//! The work planner: the book being analysed as a graph of positions,
//! the results known of each, and what to search next. It lists the
//! positions still to search at the budget their ply (or a refining) asks
//! for, grows the book with the searches' best moves, asks for the deeper
//! searches of the engine's own lines ([`Refine`]) and for the searches
//! that score a position's moves together ([`Together`]).

use std::collections::HashMap;

use xqbook::{back_up, book_key, move_key, walk, Book, BookGraph, BookMove, Searched};
use xqcore::{Move, Position};

use super::config::{AnalyseConfig, Refine, Together, TOGETHER_WINDOW};
use super::searches::{company_key, Job};
use crate::budget::Budget;

/// The book being analysed, as a graph of positions.
pub(super) struct Work {
    pub(super) graph: BookGraph,
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
    pub(super) roots: Vec<Position>,
    pub(super) grown: usize,
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
    pub(super) fn of_book(book: &Book) -> Work {
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
    pub(super) fn add_line(&mut self, start: &Position, moves: &[Move], max_ply: usize) {
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
    pub(super) fn take_known_or_list(&mut self, cfg: &AnalyseConfig) -> Vec<Job> {
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
    pub(super) fn known(&mut self, key: u64, searched: Searched, budget: Budget) {
        self.by_budget.insert((key, budget), searched);
    }

    /// Takes in a search's result, unless one at a larger budget is known
    /// (a move's score from [`Together`]: always, the last search's).
    pub(super) fn found(&mut self, key: u64, searched: Searched, budget: Budget) {
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
    pub(super) fn refine(&mut self, refine: Refine) -> usize {
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
    pub(super) fn together(&mut self, t: Together) -> (Vec<Job>, usize) {
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
    pub(super) fn grow(&mut self, cfg: &AnalyseConfig, budget: usize) -> usize {
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
