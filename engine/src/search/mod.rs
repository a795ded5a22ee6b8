//! Alpha-beta search: iterative deepening with PVS and aspiration windows, a
//! shared transposition table (Lazy SMP over threads), staged move ordering
//! (hash move, captures by MVV/LVA and static exchange, killers, counter
//! moves, butterfly and continuation histories), null move with verification,
//! late-move reductions, futility, late-move and SEE pruning, singular and
//! check extensions, quiescence with check evasions, mate-distance scores,
//! and the xiangqi repetition and natural-move rules.
//!
//! It knows nothing of text: results go out through [`Reporter`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use xqcore::{Color, Move, Outcome, Position, Repetition, NATURAL_MOVE_LIMIT};

use crate::eval::{self, evaluate_lazy, Knowledge, S};
use crate::time::{Iteration, TimeFactors};
use crate::tt::{Bound, Entry, TranspositionTable};
use xqnnue::AccumulatorStack;

use crate::score::table_result_score;
pub(crate) use crate::score::{Score, BAN, MATE, MATE_BOUND, MAX_PLY};
use crate::time::{Budget, SearchControl};

mod alphabeta;
pub mod history;
mod movepick;
mod params;

pub use history::Histories;
use history::PieceTo;
pub use params::{SearchParams, Tunable, TUNABLES};

/// How repeated positions are scored (UCCI `repetition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionRule {
    /// Every repetition is a draw.
    AlwaysDraw,
    /// Perpetual check loses for the checking side; anything else
    /// (perpetual chase too) draws.
    CheckBan,
    /// Asian (AXF) rules: perpetual check and perpetual chase lose.
    AsianRule,
}

impl RepetitionRule {
    /// How the endgame tables' results are read under this rule.
    pub fn table_rules(self) -> xqegtb::Repetitions {
        match self {
            RepetitionRule::AlwaysDraw => xqegtb::Repetitions::AllDraw,
            RepetitionRule::CheckBan => xqegtb::Repetitions::CheckLoses,
            RepetitionRule::AsianRule => xqegtb::Repetitions::CheckAndChase,
        }
    }
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
    /// Endgame tables probed after captures into their material.
    pub egtb: Option<std::sync::Arc<xqegtb::Tablebase>>,
    /// The learned evaluation; `None`: the hand-crafted one, at `knowledge`.
    pub net: Option<std::sync::Arc<xqnnue::Network>>,
    /// The search's margins (their defaults but in tuning).
    pub params: SearchParams,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            knowledge: Knowledge::Large,
            pruning: Pruning::Large,
            randomness: 0,
            random_seed: 0,
            contempt: 0,
            draw_plies: NATURAL_MOVE_LIMIT,
            repetition: RepetitionRule::AsianRule,
            threads: 1,
            multipv: 1,
            egtb: None,
            net: None,
            params: SearchParams::default(),
        }
    }
}

impl SearchConfig {
    /// The net's evaluation as the search sees it: `net_scale` hundredths
    /// of it.
    fn scaled_net_score(&self, raw: i32) -> i32 {
        raw * self.params.net_scale / 100
    }

    /// A search's `score` in the net's own centipawns, the units its
    /// trainer maps to results (self-play records these). Mate and table
    /// distances, and the hand-crafted evaluation's scores, are returned
    /// as they are.
    pub fn score_in_net_units(&self, score: i32) -> i32 {
        if self.net.is_none() || score.abs() >= MATE_BOUND {
            return score;
        }
        let unscaled = i64::from(score) * 100 / i64::from(self.params.net_scale.max(1));
        unscaled.clamp(-i64::from(MATE_BOUND - 1), i64::from(MATE_BOUND - 1)) as i32
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
    /// Endgame table probes that gave a value.
    pub tbhits: u64,
    pub pv: Vec<Move>,
}

/// Receives progress from the search thread.
pub trait Reporter: Send + Sync {
    /// A completed iteration (or a new best line).
    fn info(&self, info: &SearchInfo);
    /// The root move being searched, numbered from 1.
    fn currmove(&self, _mv: Move, _number: usize, _depth: i32) {}
    /// A note for the user (`info string` in the protocols).
    fn message(&self, _text: &str) {}
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
    /// The principal variation of the last iteration, `best` first (just
    /// `best` when no iteration finished).
    pub pv: Vec<Move>,
    /// On the search's scale: centipawns, mates beyond
    /// [`MATE_BOUND`](crate::MATE_BOUND).
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
}

/// A static evaluation that was not computed (the side to move is in check).
const NO_EVAL: i32 = MATE + 100;

/// What all search threads share: settings, limits, the table, the clock
/// and one node counter per thread.
#[derive(Clone, Copy)]
struct Shared<'a> {
    config: &'a SearchConfig,
    tt: &'a TranspositionTable,
    control: &'a SearchControl,
    limits: &'a Budget,
    counters: &'a [AtomicU64],
    tb_hits: &'a AtomicU64,
    /// Set once the main thread has its answer: helper threads then stop
    /// at once, mid-iteration, since nobody waits for their results.
    done: &'a AtomicBool,
}

/// Search state of one ply.
#[derive(Clone, Copy)]
struct Frame {
    /// Static evaluation of the position at this ply, or [`NO_EVAL`].
    static_eval: i32,
    /// The move played from this ply, as continuation histories index it.
    piece_to: PieceTo,
    killers: [Move; 2],
    /// The move a singular-extension search leaves out.
    excluded: Move,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            static_eval: NO_EVAL,
            piece_to: PieceTo::NONE,
            killers: [Move::NULL; 2],
            excluded: Move::NULL,
        }
    }
}

/// Frames below ply 0, so `ply - 2` lookups need no special case.
const FRAME_OFFSET: usize = 2;
/// Frames of one thread: the offset ones, every ply, and two beyond.
const FRAMES: usize = MAX_PLY + FRAME_OFFSET + 4;

/// Search state of one thread.
struct Worker<'a> {
    pos: Position,
    shared: Shared<'a>,
    histories: &'a mut Histories,
    /// Thread index; thread 0 is the main thread, which reports and decides.
    id: usize,
    nodes: u64,
    /// The stop conditions are checked when `nodes & tick_mask` is 0:
    /// every 1024 nodes, or every 16 under a small node budget (a weak
    /// level's few hundred nodes).
    tick_mask: u64,
    main: bool,
    root_color: Color,
    root_depth: i32,
    seldepth: i32,
    frames: Box<[Frame; FRAMES]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    aborted: bool,
    /// Inside a null-move verification search, where null moves are off.
    verifying: bool,
    /// Root moves whose last result was a proven loss.
    losing: Vec<Move>,
    /// Material and placement of the current position ([`eval::placement`]),
    /// kept up to date by [`Worker::play`], with the values before each move.
    placement: S,
    placement_stack: Vec<S>,
    /// The net's accumulators along the current line, with the net on.
    accumulators: Option<AccumulatorStack>,
    /// Spare move-list buffers: each node takes a set for its picker and
    /// gives it back, so the pool grows to the deepest nesting of nodes
    /// (a singular-extension search nests two at a ply) and no further.
    /// Boxed so that handing a set to a picker moves a pointer, not the lists.
    #[allow(clippy::vec_box)]
    buffers: Vec<Box<movepick::Buffers>>,
}

/// What one search thread keeps from search to search: its move-ordering
/// tables, learnt over a game, and its working memory, so that a search
/// allocates nothing big. (Making and freeing the working memory every
/// `go` fragmented the allocator's per-thread arenas: an engine's memory
/// crept up over hundreds of games.)
#[derive(Default)]
pub struct ThreadMemory {
    /// The move-ordering tables.
    pub histories: Histories,
    /// Working memory, absent until the first search and while one runs.
    scratch: Option<Scratch>,
}

impl ThreadMemory {
    /// Forgets what the move-ordering tables learnt (a new game).
    pub fn clear(&mut self) {
        self.histories.clear();
    }
}

/// A search thread's working memory: ply frames, the PV triangle and the
/// pool of move-list buffers.
struct Scratch {
    frames: Box<[Frame; FRAMES]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    #[allow(clippy::vec_box)]
    buffers: Vec<Box<movepick::Buffers>>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            frames: Box::new([Frame::default(); FRAMES]),
            pv: Box::new([[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1]),
            buffers: Vec::with_capacity(2 * (MAX_PLY + 8)),
        }
    }
}

/// Runs a search on `pos` among `root_moves` (legal moves minus banned ones).
/// `memory` holds each thread's [`ThreadMemory`], kept from search to
/// search; missing ones are created.
#[allow(clippy::too_many_arguments)]
pub fn search(
    pos: &Position,
    root_moves: &[Move],
    config: &SearchConfig,
    limits: &Budget,
    tt: &TranspositionTable,
    control: &SearchControl,
    reporter: &dyn Reporter,
    memory: &mut Vec<ThreadMemory>,
) -> SearchResult {
    tt.new_search();
    let threads = config.threads.max(1);
    memory.resize_with(threads.max(memory.len()), ThreadMemory::default);
    let counters: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let done = AtomicBool::new(false);
    let tb_hits = AtomicU64::new(0);
    let shared = Shared {
        config,
        tt,
        control,
        limits,
        counters: &counters,
        tb_hits: &tb_hits,
        done: &done,
    };
    let (first, helpers) = memory.split_at_mut(1);
    let result = std::thread::scope(|scope| {
        for (i, m) in helpers.iter_mut().take(threads - 1).enumerate() {
            std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(scope, move || {
                    Worker::run(pos, shared, m, i + 1, root_moves, reporter)
                })
                .expect("spawn a search thread");
        }
        let r = Worker::run(pos, shared, &mut first[0], 0, root_moves, reporter);
        // The scope waits for the helpers: without this they would finish
        // the iteration they are in, which may take longer than the main
        // thread's whole search, and the answer would wait with them.
        done.store(true, Ordering::Relaxed);
        r
    });
    SearchResult {
        nodes: counters.iter().map(|c| c.load(Ordering::Relaxed)).sum(),
        ..result
    }
}

impl<'a> Worker<'a> {
    /// Searches as thread `id` with the thread's memory, and keeps the
    /// working memory there for the next search.
    #[allow(clippy::too_many_arguments)]
    fn run(
        pos: &Position,
        shared: Shared<'a>,
        memory: &'a mut ThreadMemory,
        id: usize,
        root_moves: &[Move],
        reporter: &dyn Reporter,
    ) -> SearchResult {
        let mut scratch = memory.scratch.take().unwrap_or_default();
        // A search starts from clean frames and an empty PV, as from fresh
        // memory; the buffers are cleared by each node that takes them.
        scratch.frames.fill(Frame::default());
        scratch.pv.fill([Move::NULL; MAX_PLY + 1]);
        let mut worker = Worker::new(pos, shared, &mut memory.histories, scratch, id);
        let result = worker.iterate(root_moves, reporter);
        memory.scratch = Some(Scratch {
            frames: worker.frames,
            pv: worker.pv,
            buffers: worker.buffers,
        });
        result
    }

    fn new(
        pos: &Position,
        shared: Shared<'a>,
        histories: &'a mut Histories,
        scratch: Scratch,
        id: usize,
    ) -> Self {
        Worker {
            pos: pos.clone(),
            shared,
            histories,
            id,
            nodes: 0,
            tick_mask: if shared.limits.nodes.is_some_and(|n| n < 1 << 16) {
                15
            } else {
                1023
            },
            main: id == 0,
            root_color: pos.turn(),
            root_depth: 0,
            seldepth: 0,
            frames: scratch.frames,
            pv: scratch.pv,
            pv_len: [0; MAX_PLY + 1],
            aborted: false,
            verifying: false,
            losing: Vec::new(),
            placement: eval::placement(pos.board()),
            placement_stack: Vec::with_capacity(MAX_PLY + 8),
            accumulators: shared
                .config
                .net
                .as_deref()
                .map(|net| AccumulatorStack::new(net, pos.board())),
            buffers: scratch.buffers,
        }
    }

    /// A set of move-list buffers from the pool (a new one if it is empty).
    #[inline]
    fn take_buffers(&mut self) -> Box<movepick::Buffers> {
        self.buffers.pop().unwrap_or_default()
    }

    /// Returns buffers to the pool for the next node.
    #[inline]
    fn give_back_buffers(&mut self, buffers: Box<movepick::Buffers>) {
        self.buffers.push(buffers);
    }

    /// Plays a legal move, updating the placement sum or, with the net
    /// on, its accumulators.
    #[inline]
    fn play(&mut self, m: Move) {
        if let (Some(stack), Some(net)) = (&mut self.accumulators, &self.shared.config.net) {
            stack.push(net, self.pos.board(), m);
        } else {
            self.placement_stack.push(self.placement);
            self.placement += eval::placement_delta(&self.pos, m);
        }
        self.pos.make_move(m);
    }

    /// Takes back the last move [`Worker::play`] made.
    #[inline]
    fn take_back(&mut self) {
        self.pos.unmake_move();
        match &mut self.accumulators {
            Some(stack) => stack.pop(),
            None => self.placement = self.placement_stack.pop().expect("a move to take back"),
        }
    }

    /// The frame of `ply`.
    #[inline]
    fn frame(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply + FRAME_OFFSET]
    }

    /// The frame `back` plies before `ply` (frames before the root are empty).
    #[inline]
    fn frame_before(&self, ply: usize, back: usize) -> &Frame {
        &self.frames[ply + FRAME_OFFSET - back]
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
        if self.nodes & self.tick_mask != 0 {
            return;
        }
        self.shared.counters[self.id].store(self.nodes, Ordering::Relaxed);
        if self.shared.control.stopped() {
            self.aborted = true;
            return;
        }
        if !self.main {
            if self.shared.done.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            return;
        }
        // The first iteration is never cut by a node budget: the answer
        // would be the first legal move, not a searched one.
        let nodes_counted = || {
            if self.root_depth > 1 {
                self.total_nodes()
            } else {
                0
            }
        };
        if self
            .shared
            .limits
            .must_stop(self.shared.control, nodes_counted)
        {
            self.shared.control.stop();
            self.aborted = true;
        }
    }

    fn iterate(&mut self, root_moves: &[Move], reporter: &dyn Reporter) -> SearchResult {
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            ponder: None,
            pv: root_moves.first().copied().into_iter().collect(),
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
        let mut stability = TimeFactors::default();
        // Helper threads start one ply deeper on odd ids, so threads spread over depths.
        let mut depth = 1 + (self.id % 2) as i32;
        while depth <= max_depth {
            if self.shared.done.load(Ordering::Relaxed) && !self.main {
                break;
            }
            self.root_depth = depth;
            self.losing.clear();
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
                stability.update(result.best != Some(mv) && depth > 1, score, s);
                score = s;
                result.best = Some(mv);
                result.ponder = pv.get(1).copied();
                result.pv = pv.clone();
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
            let done = Iteration {
                score,
                depth,
                root_moves: root_moves.len(),
                losing: self.losing.len(),
            };
            if self.main
                && self
                    .shared
                    .limits
                    .stop_after_iteration(self.shared.control, &done, &stability)
            {
                break;
            }
            depth += 1;
        }
        self.shared.counters[self.id].store(self.nodes, Ordering::Relaxed);
        result.time = self.shared.control.elapsed();
        result
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
            tbhits: self.shared.tb_hits.load(Ordering::Relaxed),
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
        let mut delta = self.shared.config.params.aspiration.max(1);
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
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-MATE);
            } else if score >= beta {
                beta = (score + delta).min(MATE);
            } else {
                let m = best?;
                return Some((m, score, self.root_pv(m)));
            }
            delta += delta / 2;
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
        *self.frame(0) = Frame::default();
        let static_eval = if self.pos.in_check() {
            NO_EVAL
        } else {
            self.evaluate(-MATE, MATE).0
        };
        self.frame(0).static_eval = static_eval;
        for (i, &m) in moves.iter().enumerate() {
            if self.main && self.shared.control.elapsed() > Duration::from_secs(3) {
                reporter.currmove(m, i + 1, depth);
            }
            self.frame(0).piece_to = movepick::piece_to(&self.pos, m);
            self.shared.tt.prefetch(self.pos.key_after(m));
            self.play(m);
            let ext = self.pos.in_check() as i32;
            let score = if i == 0 {
                -self.search(-beta, -alpha, depth - 1 + ext, 1, true, false)
            } else {
                let s = -self.search(-alpha - 1, -alpha, depth - 1 + ext, 1, false, true);
                if s > alpha && s < beta && !self.aborted {
                    -self.search(-beta, -alpha, depth - 1 + ext, 1, true, false)
                } else {
                    s
                }
            };
            self.take_back();
            if self.aborted {
                break;
            }
            // Aspiration re-searches visit a move again: count it once.
            if score <= -MATE_BOUND && !self.losing.contains(&m) {
                self.losing.push(m);
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
                        eval: (static_eval != NO_EVAL).then_some(static_eval),
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

    /// The tables' verdict on the current position at `ply`, if they have
    /// one, read under the game's repetition rule and scored as
    /// [`table_result_score`] says. Broken table files give no verdict
    /// (the root reports them). Under the Asian rules the small
    /// win/draw/loss file answers where there is one (the verdict is all
    /// the search needs); under other rules the table file says which
    /// results are the rules'.
    fn probe_tables(&self, ply: usize) -> Option<i32> {
        let tb = self.shared.config.egtb.as_deref()?;
        if self.pos.board().count() as usize > tb.max_pieces() {
            return None;
        }
        let rules = self.shared.config.repetition.table_rules();
        let wdl = if rules == xqegtb::Repetitions::CheckAndChase {
            tb.probe_wdl(&self.pos).ok()??
        } else {
            tb.probe(&self.pos).ok()??.under(rules).wdl()
        };
        self.shared.tb_hits.fetch_add(1, Ordering::Relaxed);
        Some(table_result_score(wdl, ply, self.draw_score()))
    }

    fn draw_score(&self) -> i32 {
        if self.pos.turn() == self.root_color {
            -self.shared.config.contempt
        } else {
            self.shared.config.contempt
        }
    }

    /// The score of a repeated position for the side to move, by the
    /// rules in force ([`Repetition::outcome`] rules the cycle: perpetual
    /// check, and under Asian rules perpetual chase, loses for the side
    /// that does it), or `None` when the repetition ends nothing yet.
    ///
    /// A cycle wholly inside the tree is ruled at its first return, as the
    /// game would be at the third: the players chose every move of it
    /// there, and could repeat it again. A cycle reaching back before the
    /// root holds moves already played, which their player may still
    /// leave, and the game is ruled only at a third occurrence, by the
    /// cycle since the second: before that the position is searched on,
    /// so that the third occurrence is found and ruled in the tree. Not
    /// even a draw is scored there at once: the opponent may answer with
    /// a shorter cycle that loses for us (a cannon shuttling to chase a
    /// rook, where the longer cycle had an idle move and drew, cost a
    /// game at four times the odds). A rule result scores [`BAN`] less the ply:
    /// beyond any evaluation, below every mate and table result, so it is
    /// never reported as a mate.
    fn repetition_score(&self, repetition: &Repetition, ply: usize) -> Option<i32> {
        let outcome = match self.shared.config.repetition {
            RepetitionRule::AlwaysDraw => return Some(self.draw_score()),
            RepetitionRule::CheckBan => match repetition.outcome() {
                Outcome::PerpetualChase { .. } => Outcome::Repetition,
                other => other,
            },
            RepetitionRule::AsianRule => repetition.outcome(),
        };
        let crosses_root = repetition.plies > ply;
        if crosses_root && self.pos.repetition_count() < 3 {
            return None;
        }
        let Some(winner) = outcome.winner() else {
            return Some(self.draw_score());
        };
        Some(if winner == self.pos.turn() {
            BAN - ply as i32
        } else {
            -BAN + ply as i32
        })
    }

    /// The static evaluation, with the seeded noise `selectivity` asks
    /// for; lazy (and flagged so) when far outside `(alpha, beta)`.
    fn evaluate(&self, alpha: i32, beta: i32) -> (i32, bool) {
        let (e, exact) = match (&self.accumulators, &self.shared.config.net) {
            (Some(stack), Some(net)) => {
                let board = self.pos.board();
                // One evaluation in 64 checked: a recompute costs as much as
                // dozens of updates, and debug builds run whole matches.
                debug_assert!(
                    !self.nodes.is_multiple_of(64) || *stack.top() == net.refresh(board),
                    "accumulator out of date"
                );
                let score = self.shared.config.scaled_net_score(net.evaluate(
                    stack.top(),
                    board,
                    self.pos.turn(),
                ));
                (
                    eval::without_winning_material(board, self.pos.turn(), score),
                    true,
                )
            }
            _ => {
                debug_assert_eq!(self.placement, eval::placement(self.pos.board()));
                evaluate_lazy(
                    &self.pos,
                    self.placement,
                    self.shared.config.knowledge,
                    alpha,
                    beta,
                )
            }
        };
        if self.shared.config.randomness == 0 {
            return (e, exact);
        }
        let mut h = self.pos.key() ^ self.shared.config.random_seed;
        h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        let r = self.shared.config.randomness as u64;
        (e + (h % (2 * r + 1)) as i32 - r as i32, exact)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_go_back_to_the_nets_own_units() {
        let mut config = SearchConfig::default();
        config.params.net_scale = 75;
        assert_eq!(config.score_in_net_units(150), 150, "no net: left alone");
        config.net = Some(std::sync::Arc::new(xqnnue::Network::embedded().clone()));
        assert_eq!(config.scaled_net_score(200), 150);
        assert_eq!(config.score_in_net_units(150), 200);
        assert_eq!(config.score_in_net_units(-75), -100);
        assert_eq!(config.score_in_net_units(MATE_BOUND + 3), MATE_BOUND + 3);
        assert!(
            config.score_in_net_units(MATE_BOUND - 1) < MATE_BOUND,
            "no score becomes a mate"
        );
        config.params.net_scale = 100;
        assert_eq!(config.score_in_net_units(-321), -321);
    }

    /// Runs `f` with a [`Shared`] over default settings, a 1 MB table and
    /// the `done` flag.
    fn with_shared<R>(
        tt: &TranspositionTable,
        done: &AtomicBool,
        f: impl FnOnce(Shared) -> R,
    ) -> R {
        let config = SearchConfig::default();
        let limits = Budget::default();
        let control = SearchControl::new(false);
        let counters = [AtomicU64::new(0), AtomicU64::new(0)];
        let tb_hits = AtomicU64::new(0);
        f(Shared {
            config: &config,
            tt,
            control: &control,
            limits: &limits,
            counters: &counters,
            tb_hits: &tb_hits,
            done,
        })
    }

    /// A helper thread stops within one node-count interval (1,024 nodes)
    /// of the main thread's end, mid-iteration: the answer does not wait
    /// for work nobody reads. The main thread does not answer to the flag.
    #[test]
    fn helpers_stop_once_the_main_thread_is_done() {
        let pos = Position::start();
        let tt = TranspositionTable::new(1);
        let done = AtomicBool::new(false);
        with_shared(&tt, &done, |shared| {
            let (mut main_memory, mut helper_memory) =
                (ThreadMemory::default(), ThreadMemory::default());
            let mut main = Worker::new(
                &pos,
                shared,
                &mut main_memory.histories,
                Scratch::default(),
                0,
            );
            let mut helper = Worker::new(
                &pos,
                shared,
                &mut helper_memory.histories,
                Scratch::default(),
                1,
            );
            for _ in 0..4096 {
                main.tick();
                helper.tick();
            }
            assert!(!main.aborted && !helper.aborted);
            done.store(true, Ordering::Relaxed);
            for _ in 0..1024 {
                main.tick();
                helper.tick();
            }
            assert!(helper.aborted);
            assert!(!main.aborted);
        });
    }

    /// Quiescence neither probes nor fills the transposition table (see
    /// `Worker::quiesce`): after a capture sequence the table is as empty
    /// as before, for the position and for every position a capture leads to.
    #[test]
    fn quiescence_leaves_the_table_alone() {
        // Red's rook takes the black rook or horse; black's cannon answers.
        let pos = Position::from_fen("3k5/9/9/4c4/2r1R1n2/9/9/9/9/4K4 w").unwrap();
        let tt = TranspositionTable::new(1);
        let done = AtomicBool::new(false);
        let nodes = with_shared(&tt, &done, |shared| {
            let mut memory = ThreadMemory::default();
            let mut worker =
                Worker::new(&pos, shared, &mut memory.histories, Scratch::default(), 0);
            worker.quiesce(-MATE, MATE, 0, true);
            worker.nodes
        });
        assert!(nodes > 2, "captures were searched: {nodes} nodes");
        assert!(tt.probe(pos.key()).is_none());
        for m in pos
            .legal_moves()
            .iter()
            .filter(|m| !pos.board().is_empty(m.to()))
        {
            assert!(tt.probe(pos.key_after(*m)).is_none(), "{m}");
        }
    }
}
