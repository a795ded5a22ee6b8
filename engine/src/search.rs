//! Alpha-beta search: iterative deepening with PVS and aspiration windows, a
//! shared transposition table (Lazy SMP over threads), null move with
//! verification, late-move reductions, killer and history ordering, MVV/LVA
//! with static exchange, quiescence with check evasions, check extension,
//! mate-distance scores, and the xiangqi repetition and natural-move rules.
//!
//! It knows nothing of text: results go out through [`Reporter`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xqcore::{Color, Move, MoveList, Position, RepetitionKind, Role};

use crate::eval::{evaluate_lazy, EvalParams, Knowledge};
use crate::tt::{Bound, Entry, TranspositionTable};

/// Score of being mated at the root; mated in `n` plies scores `-MATE + n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Score for losing by a banned repetition (perpetual check), below mate scores.
pub const BAN: i32 = MATE_BOUND - 500;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;

/// How repeated positions are scored (UCCI `repetition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionRule {
    /// Every repetition is a draw.
    AlwaysDraw,
    /// Perpetual check loses for the checking side; anything else draws.
    CheckBan,
    /// Asian rules: perpetual check loses (perpetual chase: not yet recognised).
    AsianRule,
    /// Chinese rules: treated like Asian rules for now.
    ChineseRule,
}

/// How hard the search prunes (UCCI `pruning`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pruning {
    /// Full-width alpha-beta.
    None,
    /// Null move only.
    Small,
    /// Null move and late-move reductions.
    Medium,
    /// Also futility and late-move pruning near the leaves.
    Large,
}

/// Settings of one search, from the engine's options.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub knowledge: Knowledge,
    pub pruning: Pruning,
    /// Amplitude of random noise added to evaluations (UCCI `selectivity`).
    pub randomness: i32,
    /// Seed of that noise, changed per game.
    pub random_seed: u64,
    /// How much the engine dislikes draws, in centipawns (UCCI `style`).
    pub contempt: i32,
    /// Plies without capture after which the game is drawn (UCCI `drawmoves`).
    pub draw_plies: u32,
    pub repetition: RepetitionRule,
    pub threads: usize,
    /// Principal variations to report (UCI MultiPV).
    pub multipv: usize,
    pub params: Arc<EvalParams>,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            knowledge: Knowledge::Large,
            pruning: Pruning::Large,
            randomness: 0,
            random_seed: 0,
            contempt: 0,
            draw_plies: 120,
            repetition: RepetitionRule::AsianRule,
            threads: 1,
            multipv: 1,
            params: Arc::new(EvalParams::default()),
        }
    }
}

/// When to stop.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Stop after an iteration once this much time has passed.
    pub soft_time: Option<Duration>,
    /// Stop at once once this much time has passed.
    pub hard_time: Option<Duration>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<u32>,
    /// Search until stopped (no time limit; the depth limit still applies).
    pub infinite: bool,
}

/// The clock of a search; pondering holds it until `ponderhit`.
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    base: Instant,
    start_ns: AtomicU64,
}

impl SearchControl {
    /// A running clock; `pondering` holds time limits until [`SearchControl::ponderhit`].
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            base: Instant::now(),
            start_ns: AtomicU64::new(0),
        }
    }

    /// Asks the search to stop as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The pondered move was played: time limits start now.
    pub fn ponderhit(&self) {
        let now = self.base.elapsed().as_nanos() as u64;
        self.start_ns.store(now, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Relaxed);
    }

    /// Whether the search is pondering.
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// Time since the search (or the ponderhit) started.
    pub fn elapsed(&self) -> Duration {
        let now = self.base.elapsed().as_nanos() as u64;
        Duration::from_nanos(now.saturating_sub(self.start_ns.load(Ordering::Relaxed)))
    }
}

/// A reported score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// Converts an internal score.
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-(MATE + s) / 2)
        } else {
            Score::Cp(s)
        }
    }
}

/// One line of search progress.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub multipv: usize,
    pub score: Score,
    /// The raw score, for UCCI which prints mates as large numbers.
    pub raw_score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// Receives progress from the search thread.
pub trait Reporter: Send + Sync {
    /// A completed iteration (or a new best line).
    fn info(&self, info: &SearchInfo);
    /// The root move being searched, numbered from 1.
    fn currmove(&self, _mv: Move, _number: usize, _depth: i32) {}
}

/// A reporter that drops everything.
pub struct Silent;
impl Reporter for Silent {
    fn info(&self, _: &SearchInfo) {}
}

/// What the search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
}

const PIECE_VALUES_SEE: [i32; 7] = [20_000, 120, 120, 400, 900, 450, 100];

/// What all search threads share: settings, limits, the table, the clock
/// and one node counter per thread.
#[derive(Clone, Copy)]
struct Shared<'a> {
    config: &'a SearchConfig,
    tt: &'a TranspositionTable,
    control: &'a SearchControl,
    limits: &'a Limits,
    counters: &'a [AtomicU64],
}

/// Search state of one thread.
struct Worker<'a> {
    pos: Position,
    shared: Shared<'a>,
    /// Thread index; thread 0 is the main thread, which reports and decides.
    id: usize,
    nodes: u64,
    main: bool,
    root_color: Color,
    seldepth: i32,
    killers: [[Move; 2]; MAX_PLY + 1],
    history: Box<[[i32; 90]; 14]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    aborted: bool,
    /// Inside a null-move verification search, where null moves are off.
    verifying: bool,
}

/// Runs a search on `pos` among `root_moves` (legal moves minus banned ones).
pub fn search(
    pos: &Position,
    root_moves: &[Move],
    config: &SearchConfig,
    limits: &Limits,
    tt: &TranspositionTable,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    tt.new_search();
    let threads = config.threads.max(1);
    let counters: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let done = AtomicBool::new(false);
    let shared = Shared {
        config,
        tt,
        control,
        limits,
        counters: &counters,
    };
    let result = std::thread::scope(|scope| {
        for id in 1..threads {
            let done = &done;
            scope.spawn(move || Worker::new(pos, shared, id).iterate(root_moves, reporter, done));
        }
        let r = Worker::new(pos, shared, 0).iterate(root_moves, reporter, &done);
        done.store(true, Ordering::Relaxed);
        r
    });
    SearchResult {
        nodes: counters.iter().map(|c| c.load(Ordering::Relaxed)).sum(),
        ..result
    }
}

impl<'a> Worker<'a> {
    fn new(pos: &Position, shared: Shared<'a>, id: usize) -> Self {
        Worker {
            pos: pos.clone(),
            shared,
            id,
            nodes: 0,
            main: id == 0,
            root_color: pos.turn(),
            seldepth: 0,
            killers: [[Move::NULL; 2]; MAX_PLY + 1],
            history: Box::new([[0; 90]; 14]),
            pv: Box::new([[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            aborted: false,
            verifying: false,
        }
    }

    fn total_nodes(&self) -> u64 {
        self.shared
            .counters
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .sum()
    }

    /// Counts a node and, every so often, checks the stop conditions.
    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes & 255 != 0 {
            return;
        }
        self.shared.counters[self.id].store(self.nodes, Ordering::Relaxed);
        if self.shared.control.stopped() {
            self.aborted = true;
            return;
        }
        if !self.main {
            return;
        }
        if let Some(n) = self.shared.limits.nodes {
            if self.total_nodes() >= n {
                self.shared.control.stop();
                self.aborted = true;
            }
        }
        if let Some(hard) = self.shared.limits.hard_time {
            if !self.shared.control.pondering()
                && !self.shared.limits.infinite
                && self.shared.control.elapsed() >= hard
            {
                self.shared.control.stop();
                self.aborted = true;
            }
        }
    }

    fn iterate(
        &mut self,
        root_moves: &[Move],
        reporter: &dyn Reporter,
        done: &AtomicBool,
    ) -> SearchResult {
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
        };
        if root_moves.is_empty() {
            return result;
        }
        let max_depth = self
            .shared
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 8)
            .clamp(1, MAX_PLY as i32 - 8);
        let mut order: Vec<Move> = root_moves.to_vec();
        let mut score = 0;
        // Helper threads start one ply deeper on odd ids, so threads spread over depths.
        let mut depth = 1 + (self.id % 2) as i32;
        while depth <= max_depth {
            if done.load(Ordering::Relaxed) && !self.main {
                break;
            }
            let mut lines: Vec<(Move, i32, Vec<Move>)> = Vec::new();
            let multipv = if self.main {
                self.shared.config.multipv.clamp(1, order.len())
            } else {
                1
            };
            for pv_index in 0..multipv {
                let candidates: Vec<Move> = order
                    .iter()
                    .copied()
                    .filter(|m| !lines.iter().any(|l| l.0 == *m))
                    .collect();
                let prev = if pv_index == 0 {
                    score
                } else {
                    lines[pv_index - 1].1
                };
                let Some((mv, s, pv)) = self.aspiration(&candidates, depth, prev, reporter) else {
                    break;
                };
                lines.push((mv, s, pv));
            }
            if self.aborted && lines.is_empty() {
                break;
            }
            if let Some((mv, s, pv)) = lines.first().cloned() {
                score = s;
                result.best = Some(mv);
                result.ponder = pv.get(1).copied();
                result.score = s;
                result.depth = depth;
                order.retain(|m| *m != mv);
                order.insert(0, mv);
                if self.main {
                    for (i, (_, s, pv)) in lines.iter().enumerate() {
                        reporter.info(&self.info(depth, i + 1, *s, pv));
                    }
                }
            }
            if self.aborted {
                break;
            }
            if self.main && self.should_stop_after_iteration(score, depth, root_moves.len()) {
                break;
            }
            depth += 1;
        }
        self.shared.counters[self.id].store(self.nodes, Ordering::Relaxed);
        result.time = self.shared.control.elapsed();
        result
    }

    fn should_stop_after_iteration(&self, score: i32, depth: i32, root_count: usize) -> bool {
        if let Some(m) = self.shared.limits.mate {
            if score >= MATE_BOUND && (MATE - score + 1) / 2 <= m as i32 {
                return true;
            }
        }
        if self.shared.limits.infinite || self.shared.control.pondering() {
            return false;
        }
        let timed = self.shared.limits.soft_time.is_some();
        // A proven mate either way, or a single legal move, ends a timed search.
        if timed && (score.abs() >= MATE_BOUND && depth > 1 || root_count == 1) {
            return true;
        }
        if let Some(soft) = self.shared.limits.soft_time {
            if self.shared.control.elapsed() >= soft {
                return true;
            }
        }
        false
    }

    fn info(&self, depth: i32, multipv: usize, score: i32, pv: &[Move]) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth),
            multipv,
            score: Score::from_internal(score),
            raw_score: score,
            nodes: self.total_nodes().max(self.nodes),
            time: self.shared.control.elapsed(),
            hashfull: self.shared.tt.hashfull(),
            pv: pv.to_vec(),
        }
    }

    /// Root search with an aspiration window around the previous score.
    fn aspiration(
        &mut self,
        candidates: &[Move],
        depth: i32,
        prev: i32,
        reporter: &dyn Reporter,
    ) -> Option<(Move, i32, Vec<Move>)> {
        let mut delta = 30;
        let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < MATE_BOUND {
            (prev - delta, prev + delta)
        } else {
            (-MATE, MATE)
        };
        loop {
            let (best, score) = self.root(candidates, depth, alpha, beta, reporter);
            if self.aborted {
                // An interrupted iteration still counts if its first move finished.
                return best
                    .filter(|_| score > alpha && score < beta)
                    .map(|m| (m, score, self.root_pv(m)));
            }
            if score <= alpha {
                alpha = (alpha - delta).max(-MATE);
            } else if score >= beta {
                beta = (beta + delta).min(MATE);
            } else {
                let m = best?;
                return Some((m, score, self.root_pv(m)));
            }
            delta *= 2;
        }
    }

    fn root_pv(&self, best: Move) -> Vec<Move> {
        let line = &self.pv[0][..self.pv_len[0]];
        if line.first() == Some(&best) {
            line.to_vec()
        } else {
            vec![best]
        }
    }

    fn root(
        &mut self,
        moves: &[Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        reporter: &dyn Reporter,
    ) -> (Option<Move>, i32) {
        let mut best = None;
        let mut best_score = -MATE - 1;
        self.pv_len[0] = 0;
        for (i, &m) in moves.iter().enumerate() {
            if self.main && self.shared.control.elapsed() > Duration::from_secs(3) {
                reporter.currmove(m, i + 1, depth);
            }
            self.pos.make_move(m);
            let ext = self.pos.in_check() as i32;
            let score = if i == 0 {
                -self.search(-beta, -alpha, depth - 1 + ext, 1, true)
            } else {
                let s = -self.search(-alpha - 1, -alpha, depth - 1 + ext, 1, false);
                if s > alpha && s < beta && !self.aborted {
                    -self.search(-beta, -alpha, depth - 1 + ext, 1, true)
                } else {
                    s
                }
            };
            self.pos.unmake_move();
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best = Some(m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if let Some(m) = best {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if self.pv_len[0] > 0 {
                Bound::Exact
            } else {
                Bound::Upper
            };
            if !self.aborted {
                self.shared.tt.store(
                    self.pos.key(),
                    Entry {
                        mv: Some(m),
                        score: best_score,
                        depth,
                        bound,
                    },
                );
            }
        }
        (best, best_score)
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][0] = m;
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - 1);
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    fn draw_score(&self) -> i32 {
        if self.pos.turn() == self.root_color {
            -self.shared.config.contempt
        } else {
            self.shared.config.contempt
        }
    }

    /// The score of a repeated position for the side to move, by the rules in force.
    fn repetition_score(&self, kind: RepetitionKind, ply: usize) -> i32 {
        if self.shared.config.repetition == RepetitionRule::AlwaysDraw {
            return self.draw_score();
        }
        match kind {
            RepetitionKind::PerpetualCheck { by } if by == self.pos.turn() => -BAN + ply as i32,
            RepetitionKind::PerpetualCheck { .. } => BAN - ply as i32,
            _ => self.draw_score(),
        }
    }

    fn evaluate(&self, alpha: i32, beta: i32) -> i32 {
        let e = evaluate_lazy(
            &self.pos,
            &self.shared.config.params,
            self.shared.config.knowledge,
            alpha,
            beta,
        );
        if self.shared.config.randomness == 0 {
            return e;
        }
        let mut h = self.pos.key() ^ self.shared.config.random_seed;
        h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        let r = self.shared.config.randomness as u64;
        e + (h % (2 * r + 1)) as i32 - r as i32
    }

    /// Whether the side to move has a rook, horse or cannon (null move is unsafe without).
    fn attacking_pieces(&self, color: Color) -> usize {
        self.pos
            .board()
            .pieces()
            .filter(|(_, p)| {
                p.color == color && matches!(p.role, Role::Rook | Role::Horse | Role::Cannon)
            })
            .count()
    }

    fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.quiesce(alpha, beta, ply);
        }
        self.tick();
        if self.aborted {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as i32);
        if let Some(rep) = self.pos.repetition() {
            return self.repetition_score(rep.kind, ply);
        }
        if self.pos.plies_since_capture() >= self.shared.config.draw_plies {
            return if self.pos.is_lost() {
                -MATE + ply as i32
            } else {
                self.draw_score()
            };
        }
        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = self.pos.key();
        let tt_entry = self.shared.tt.probe(key);
        let tt_move = tt_entry.and_then(|e| e.mv);
        if let Some(e) = tt_entry {
            if !pv_node && e.depth >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let in_check = self.pos.in_check();
        let static_eval = if in_check {
            -MATE
        } else {
            self.evaluate(alpha, beta)
        };
        let us = self.pos.turn();

        if !pv_node && !in_check {
            // Reverse futility: far above beta near the leaves.
            if self.shared.config.pruning >= Pruning::Large
                && depth <= 3
                && static_eval - 120 * depth >= beta
                && beta.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Null move, with a verification search when material is thin.
            if self.shared.config.pruning >= Pruning::Small
                && !self.verifying
                && depth >= 3
                && static_eval >= beta
            {
                let attackers = self.attacking_pieces(us);
                if attackers > 0 {
                    let r = 2 + depth / 4;
                    self.pos.make_null_move();
                    let s = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false);
                    self.pos.unmake_null_move();
                    if self.aborted {
                        return 0;
                    }
                    if s >= beta {
                        if attackers > 1 || depth < 5 {
                            return if s >= MATE_BOUND { beta } else { s };
                        }
                        let v = self.search_no_null(beta, depth - 1 - r, ply);
                        if v >= beta {
                            return s.min(MATE_BOUND - 1);
                        }
                    }
                }
            }
        }

        let mut list = MoveList::new();
        self.pos.pseudo_legal_moves(&mut list);
        let mut scores = self.score_moves(&list, tt_move, ply);
        let mut best_score = -MATE - 1;
        let mut best_move = None;
        let mut searched = 0;
        let original_alpha = alpha;
        let mut quiets_tried: MoveList = MoveList::new();

        for i in 0..list.len() {
            let m = pick_next(&mut list, &mut scores, i);
            if !self.pos.is_legal_pseudo(m) {
                continue;
            }
            let capture = self.pos.board().piece_at(m.to()).is_some();
            let moving = self.pos.board().piece_at(m.from()).expect("a piece moves");
            self.pos.make_move(m);
            let gives_check = self.pos.in_check();
            // Late-move pruning of quiet moves near the leaves; checks are kept
            // (they are how mates are found).
            if self.shared.config.pruning >= Pruning::Large
                && !pv_node
                && !in_check
                && !capture
                && !gives_check
                && depth <= 3
                && searched >= 4 + 4 * depth as usize
                && best_score > -MATE_BOUND
            {
                self.pos.unmake_move();
                continue;
            }
            let ext = gives_check as i32;
            let new_depth = depth - 1 + ext;
            let score = if searched == 0 {
                -self.search(-beta, -alpha, new_depth, ply + 1, pv_node)
            } else {
                let mut r = 0;
                if self.shared.config.pruning >= Pruning::Medium
                    && depth >= 3
                    && searched >= 3
                    && !capture
                    && !in_check
                    && !gives_check
                {
                    r = lmr(depth, searched);
                    if pv_node {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, false);
                if s > alpha && r > 0 && !self.aborted {
                    s = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false);
                }
                if s > alpha && s < beta && pv_node && !self.aborted {
                    s = -self.search(-beta, -alpha, new_depth, ply + 1, true);
                }
                s
            };
            self.pos.unmake_move();
            if self.aborted {
                return 0;
            }
            searched += 1;
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if !capture {
                            self.reward_quiet(m, moving.index(), depth, ply, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if !capture {
                quiets_tried.push(m);
            }
        }

        if searched == 0 {
            // No legal move: lost, whether in check or not.
            return -MATE + ply as i32;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            Entry {
                mv: best_move,
                score: score_to_tt(best_score, ply),
                depth,
                bound,
            },
        );
        best_score
    }

    /// A reduced search with null move disabled, to verify a null-move cutoff.
    fn search_no_null(&mut self, beta: i32, depth: i32, ply: usize) -> i32 {
        let saved = std::mem::replace(&mut self.verifying, true);
        let v = self.search(beta - 1, beta, depth, ply, false);
        self.verifying = saved;
        v
    }

    fn reward_quiet(&mut self, m: Move, piece: usize, depth: i32, ply: usize, tried: &MoveList) {
        if self.killers[ply][0] != m {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = m;
        }
        let bonus = (depth * depth).min(400);
        let h = &mut self.history[piece][m.to().index()];
        *h += bonus - *h * bonus / 16_384;
        for &q in tried.iter() {
            if let Some(p) = self.pos.board().piece_at(q.from()) {
                let h = &mut self.history[p.index()][q.to().index()];
                *h -= bonus + *h * bonus / 16_384;
            }
        }
    }

    fn score_moves(
        &self,
        list: &MoveList,
        tt_move: Option<Move>,
        ply: usize,
    ) -> [i32; xqcore::MAX_MOVES] {
        let mut scores = [0i32; xqcore::MAX_MOVES];
        let board = self.pos.board();
        for (i, &m) in list.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                1 << 30
            } else if let Some(victim) = board.piece_at(m.to()) {
                let attacker = board.piece_at(m.from()).expect("a piece moves");
                let mvv_lva =
                    16 * PIECE_VALUES_SEE[victim.role.index()] / 10 - attacker.role.index() as i32;
                if self.pos.see(m, &PIECE_VALUES_SEE) >= 0 {
                    (1 << 28) + mvv_lva
                } else {
                    -(1 << 20) + mvv_lva
                }
            } else if self.killers[ply][0] == m {
                (1 << 27) + 1
            } else if self.killers[ply][1] == m {
                1 << 27
            } else {
                let p = board.piece_at(m.from()).expect("a piece moves");
                self.history[p.index()][m.to().index()]
            };
        }
        scores
    }

    fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.tick();
        if self.aborted {
            return 0;
        }
        self.pv_len[ply] = 0;
        self.seldepth = self.seldepth.max(ply as i32);
        if ply > 0 {
            if let Some(rep) = self.pos.repetition() {
                return self.repetition_score(rep.kind, ply);
            }
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                0
            } else {
                self.evaluate(alpha, beta)
            };
        }
        let mut best = -MATE + ply as i32;
        let mut list = MoveList::new();
        if in_check {
            self.pos.pseudo_legal_moves(&mut list);
        } else {
            let stand_pat = self.evaluate(alpha, beta);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            self.pos.pseudo_legal_captures(&mut list);
        }
        let mut scores = self.score_moves(&list, None, ply.min(MAX_PLY));
        let mut any_legal = false;
        for i in 0..list.len() {
            let m = pick_next(&mut list, &mut scores, i);
            if !self.pos.is_legal_pseudo(m) {
                continue;
            }
            any_legal = true;
            // Losing captures are not worth a look outside check.
            if !in_check && scores[i] < 0 {
                continue;
            }
            self.pos.make_move(m);
            let score = -self.quiesce(-beta, -alpha, ply + 1);
            self.pos.unmake_move();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && !any_legal {
            return -MATE + ply as i32;
        }
        best
    }
}

/// Late-move reduction in plies.
fn lmr(depth: i32, searched: usize) -> i32 {
    let r = ((depth as f32).ln() * (searched as f32).ln() / 2.0) as i32;
    r.max(1)
}

/// Moves the best-scored remaining move to position `i` and returns it.
/// The first picks select (most cutoffs come early); past them the rest is
/// sorted once, instead of selecting quadratically.
#[inline]
fn pick_next(list: &mut MoveList, scores: &mut [i32; xqcore::MAX_MOVES], i: usize) -> Move {
    const SELECT: usize = 6;
    if i == SELECT {
        let n = list.len();
        let mut pairs: Vec<(i32, Move)> = (i..n).map(|k| (scores[k], list[k])).collect();
        pairs.sort_unstable_by_key(|p| std::cmp::Reverse(p.0));
        for (k, (sc, m)) in pairs.into_iter().enumerate() {
            scores[i + k] = sc;
            list[i + k] = m;
        }
    }
    if i >= SELECT {
        return list[i];
    }
    let mut best = i;
    for j in i + 1..list.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    list.swap(i, best);
    scores.swap(i, best);
    list[i]
}

/// Mate scores are stored relative to the node, not the root.
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}
