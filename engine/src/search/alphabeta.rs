//! The recursive search below the root: principal variation search with
//! pruning, reductions and extensions, and the quiescence search.

use std::sync::OnceLock;

use xqcore::{Move, MoveList, Piece, Role};

use super::history::{self, PieceTo};
use super::movepick::{piece_to, Context, MovePicker, SEE_VALUES};
use super::{
    score_from_tt, score_to_tt, Pruning, SearchParams, Worker, MATE, MATE_BOUND, MAX_PLY, NO_EVAL,
};
use crate::tt::{Bound, Entry};

/// Natural logarithms of 0 to 63, with ln 0 taken as 0: the late-move
/// reduction is a product of two of them.
fn logarithms() -> &'static [f64; 64] {
    static TABLE: OnceLock<[f64; 64]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| if i == 0 { 0.0 } else { (i as f64).ln() }))
}

/// The late-move reductions of the moves of one node, by move number.
struct Reductions {
    /// [`SearchParams::lmr_base`] in plies.
    base: f64,
    /// ln(depth) over [`SearchParams::lmr_div`]: a move's reduction adds
    /// this times ln(its number).
    scale: f64,
}

impl Reductions {
    /// The reductions of a node of `depth` plies.
    #[inline]
    fn new(depth: i32, p: &SearchParams) -> Reductions {
        Reductions {
            base: p.lmr_base as f64 / 100.0,
            scale: logarithms()[depth.clamp(0, 63) as usize] * (100.0 / p.lmr_div.max(1) as f64),
        }
    }

    /// The reduction in whole plies of move `move_count` (from 1); none for
    /// the first move or at depth 1.
    #[inline]
    fn of(&self, move_count: usize) -> i32 {
        if move_count <= 1 || self.scale == 0.0 {
            return 0;
        }
        let ln = logarithms()[move_count.min(63)];
        (self.base + self.scale * ln).max(0.0) as i32
    }
}

/// What a late move's reduction depends on besides its number and history.
#[derive(Clone, Copy)]
struct ReductionFlags {
    pv_node: bool,
    improving: bool,
    cut_node: bool,
    gives_check: bool,
    /// A killer or the counter move.
    refutation: bool,
}

/// A late move's reduction in whole plies: the table's `reduction`, less a
/// ply for each [`SearchParams::lmr_history_div`] of `history`, adjusted
/// by the node and the move in hundredths of a ply (tunable) and rounded
/// down.
#[inline]
fn adjusted_reduction(reduction: i32, history: i32, f: ReductionFlags, p: &SearchParams) -> i32 {
    let mut r = 100 * (reduction - history / p.lmr_history_div.max(1));
    r += p.lmr_not_pv * !f.pv_node as i32;
    r += p.lmr_not_improving * !f.improving as i32;
    r += p.lmr_cut_node * f.cut_node as i32;
    r -= p.lmr_check * f.gives_check as i32;
    r -= p.lmr_refutation * f.refutation as i32;
    r.div_euclid(100)
}

/// Quiet moves tried before the rest are skipped, near the leaves.
#[inline]
fn late_move_limit(depth: i32, improving: bool, p: &SearchParams) -> usize {
    let base = (p.lmp_base + p.lmp_scale * depth * depth) / 100;
    (if improving { base } else { base / 2 }).max(0) as usize
}

impl<'a> Worker<'a> {
    /// Whether `color` has a rook, horse or cannon: null move is unsafe without.
    fn attackers(&self, color: xqcore::Color) -> u32 {
        let board = self.pos.board();
        // The three sets are disjoint: one count of their union.
        let bits = |r: Role| board.piece_bits(Piece::new(color, r));
        (bits(Role::Rook) | bits(Role::Horse) | bits(Role::Cannon)).count_ones()
    }

    /// The value of the opponent's most valuable piece other than the king.
    fn best_victim(&self) -> i32 {
        let board = self.pos.board();
        let them = !self.pos.turn();
        [
            Role::Rook,
            Role::Cannon,
            Role::Horse,
            Role::Advisor,
            Role::Pawn,
        ]
        .iter()
        .find(|&&r| board.piece_bits(Piece::new(them, r)) != 0)
        .map_or(0, |r| SEE_VALUES[r.index()])
    }

    /// The search's margins, borrowed from the shared settings rather than
    /// from `self`, so that the search can go on changing its own state.
    #[inline]
    fn params(&self) -> &'a SearchParams {
        &self.shared.config.params
    }

    fn pruning(&self, level: Pruning) -> bool {
        self.shared.config.pruning >= level
    }

    /// Alpha-beta search of the position at `ply` to `depth` plies.
    /// `pv_node`: the window is open; `cut_node`: a fail-high is expected.
    pub(super) fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply, pv_node);
        }
        self.pv_len[ply] = 0;
        self.tick();
        if self.aborted {
            return 0;
        }
        if pv_node {
            self.seldepth = self.seldepth.max(ply as i32);
        }
        if let Some(score) = self
            .pos
            .repetition()
            .and_then(|r| self.repetition_score(&r, ply))
        {
            return score;
        }
        if self.pos.plies_since_capture() >= self.shared.config.draw_plies {
            return if self.pos.is_lost() {
                -MATE + ply as i32
            } else {
                self.draw_score()
            };
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 4 {
            return if in_check {
                0
            } else {
                self.evaluate(alpha, beta).0
            };
        }
        let p = self.params();
        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        // A capture into a material the endgame tables hold: they know.
        if ply > 0 && self.pos.plies_since_capture() == 0 {
            if let Some(score) = self.probe_tables(ply) {
                return score;
            }
        }

        let excluded = self.frame(ply).excluded;
        let key = self.pos.key();
        let tt_entry = if excluded == Move::NULL {
            self.shared.tt.probe(key)
        } else {
            None
        };
        let tt_move = tt_entry.and_then(|e| e.mv);
        let tt_score = tt_entry.map(|e| score_from_tt(e.score, ply));
        if let (Some(e), Some(s)) = (tt_entry, tt_score) {
            if !pv_node && e.depth >= depth && bound_allows(e.bound, s, alpha, beta) {
                return s;
            }
        }

        // Static evaluation, and a better estimate from the table's bound.
        // Lazy, as in quiescence: far outside the window the material and
        // placement sum decides the pruning below just as well, and most
        // nodes near the leaves are far outside it. Only complete
        // evaluations go to the table.
        let mut exact_eval = true;
        let static_eval = if in_check {
            NO_EVAL
        } else if let Some(e) = tt_entry.and_then(|e| e.eval) {
            e
        } else {
            let (e, exact) = self.evaluate(alpha, beta);
            exact_eval = exact;
            e
        };
        let eval = match (tt_entry, tt_score) {
            (Some(e), Some(s))
                if !in_check && bound_allows(e.bound, s, static_eval, static_eval + 1) =>
            {
                s
            }
            _ => static_eval,
        };
        self.frame(ply).static_eval = static_eval;
        let before = self.frame_before(ply, 2).static_eval;
        let improving = !in_check && before != NO_EVAL && static_eval > before;
        self.frame(ply + 2).killers = [Move::NULL; 2];
        let us = self.pos.turn();

        if !pv_node && !in_check && excluded == Move::NULL {
            if let Some(v) = self.prune_early(
                alpha,
                beta,
                depth,
                ply,
                eval,
                static_eval,
                improving,
                cut_node,
            ) {
                return v;
            }
        }

        // Internal iterative reduction: without a hash move this node was
        // never searched deep; spend less on it.
        if tt_move.is_none()
            && depth >= p.iir_min_depth
            && (pv_node || cut_node)
            && self.pruning(Pruning::Medium)
        {
            depth -= 1;
        }

        let earlier = [
            self.frame_before(ply, 1).piece_to,
            self.frame_before(ply, 2).piece_to,
        ];
        let killers = self.frame(ply).killers;
        let counter = self.histories.counter(earlier[0]);
        let buffers = self.take_buffers();
        let mut picker = MovePicker::new(buffers, tt_move, killers, counter);
        if self.pruning(Pruning::Large) && depth <= 4 {
            picker.select_quiets(late_move_limit(depth, improving, p) + 1);
        }
        let mut best_score = -MATE - 1;
        let mut best_move = None;
        let mut move_count = 0usize;
        let original_alpha = alpha;
        let large = self.pruning(Pruning::Large);
        let filter = self.pos.move_filter();
        let reductions = Reductions::new(depth, p);

        loop {
            let ctx = Context {
                pos: &self.pos,
                histories: self.histories,
                earlier,
            };
            let Some(m) = picker.next(&ctx) else { break };
            if m == excluded || !self.pos.is_legal_filtered(&filter, m) {
                continue;
            }
            move_count += 1;
            // The child's table entry, fetched while pruning decides.
            self.shared.tt.prefetch(self.pos.key_after(m));
            let board = self.pos.board();
            let moving = board.piece_index_at(m.from()).expect("a piece moves");
            let moved = PieceTo::from_index(moving, m.to());
            let quiet = board.is_empty(m.to());
            let history = if quiet {
                self.histories.main(us, m)
                    + self.histories.continuation(earlier[0], moved)
                    + self.histories.continuation(earlier[1], moved)
            } else {
                0
            };
            let reduction = reductions.of(move_count);
            let lmr_depth = (depth - 1 - reduction).max(0);

            // Pruning before the move is played. Checks are kept: they are
            // how mates are found; the check test runs only for moves about
            // to be pruned.
            if large && best_score > -MATE_BOUND && ply > 0 {
                let late =
                    depth <= p.lmp_max_depth && move_count >= late_move_limit(depth, improving, p);
                if late && quiet {
                    picker.checks_only();
                }
                let prune = if quiet {
                    late || (lmr_depth < p.history_prune_max_depth
                        && history < -p.history_prune * depth)
                        || (!in_check
                            && lmr_depth < p.futility_max_depth
                            && static_eval + p.futility_base + p.futility_depth * lmr_depth
                                <= alpha)
                        || (lmr_depth < p.see_quiet_max_depth
                            && !self.pos.see_ge(
                                m,
                                &SEE_VALUES,
                                -p.see_quiet * lmr_depth * lmr_depth,
                            ))
                } else {
                    depth < p.see_capture_max_depth
                        && !self.pos.see_ge(m, &SEE_VALUES, -p.see_capture * depth)
                };
                if prune && !picker.gives_check(&self.pos, m) {
                    continue;
                }
            }

            // Singular extension: is the hash move much better than the rest?
            let mut extension = 0;
            if let (Some(e), Some(s)) = (tt_entry, tt_score) {
                if large
                    && Some(m) == tt_move
                    && depth >= p.singular_min_depth
                    && (ply as i32) < 2 * self.root_depth
                    && e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && s.abs() < MATE_BOUND
                {
                    let singular_beta = s - p.singular_depth * depth;
                    self.frame(ply).excluded = m;
                    let v = self.search(
                        singular_beta - 1,
                        singular_beta,
                        (depth - 1) / 2,
                        ply,
                        false,
                        cut_node,
                    );
                    self.frame(ply).excluded = Move::NULL;
                    if self.aborted {
                        return 0;
                    }
                    if v < singular_beta {
                        extension = 1;
                    } else if singular_beta >= beta {
                        // Several moves beat beta: cut off now.
                        return singular_beta;
                    } else if s >= beta {
                        extension = -1;
                    }
                }
            }

            self.frame(ply).piece_to = moved;
            self.play(m);
            let gives_check = self.pos.in_check();
            if gives_check && extension == 0 && (ply as i32) < 2 * self.root_depth {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            let mut score;
            let late = move_count > 1 + pv_node as usize;
            if depth >= 2
                && late
                && (quiet || picker.in_bad_captures())
                && self.pruning(Pruning::Medium)
            {
                let r = adjusted_reduction(
                    reduction,
                    history,
                    ReductionFlags {
                        pv_node,
                        improving,
                        cut_node,
                        gives_check,
                        refutation: killers.contains(&m) || m == counter,
                    },
                    p,
                );
                let d = (new_depth - r).clamp(1, new_depth.max(1));
                score = -self.search(-alpha - 1, -alpha, d, ply + 1, false, true);
                if score > alpha && d < new_depth && !self.aborted {
                    score = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false, !cut_node);
                }
            } else if !pv_node || move_count > 1 {
                score = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false, !cut_node);
            } else {
                score = alpha + 1;
            }
            if pv_node && (move_count == 1 || (score > alpha && score < beta)) && !self.aborted {
                score = -self.search(-beta, -alpha, new_depth, ply + 1, true, false);
            }
            self.take_back();
            if self.aborted {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if Some(m) != best_move {
                picker.record_tried(m, quiet);
            }
        }

        let buffers = picker.into_buffers();
        if move_count == 0 {
            self.give_back_buffers(buffers);
            // No legal move: lost, whether in check or not (or, in a singular
            // search, nothing but the excluded move).
            return if excluded != Move::NULL {
                alpha
            } else {
                -MATE + ply as i32
            };
        }
        if best_score >= beta {
            if let Some(m) = best_move {
                self.reward_cutoff(
                    m,
                    ply,
                    depth,
                    earlier,
                    &buffers.quiets_tried,
                    &buffers.captures_tried,
                );
            }
        }
        self.give_back_buffers(buffers);
        if excluded == Move::NULL {
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
                    mv: best_move.or(tt_move),
                    score: score_to_tt(best_score, ply),
                    eval: (static_eval != NO_EVAL && exact_eval).then_some(static_eval),
                    depth,
                    bound,
                },
            );
        }
        best_score
    }

    /// Razoring, reverse futility and null move: ways to leave a node
    /// before searching its moves. `None`: search the node.
    #[allow(clippy::too_many_arguments)]
    fn prune_early(
        &mut self,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        eval: i32,
        static_eval: i32,
        improving: bool,
        cut_node: bool,
    ) -> Option<i32> {
        let large = self.pruning(Pruning::Large);
        let p = self.params();
        // Razoring: hopeless near the leaves unless a capture saves it.
        if large
            && depth <= p.razor_max_depth
            && eval + p.razor_base + p.razor_depth * depth < alpha
        {
            let v = self.quiesce(alpha, alpha + 1, ply, false);
            if v <= alpha {
                return Some(v);
            }
        }
        // Reverse futility: far above beta near the leaves.
        let margin = p.rfp_depth * depth - p.rfp_improving * improving as i32;
        if large
            && depth <= p.rfp_max_depth
            && eval - margin >= beta
            && eval < MATE_BOUND
            && beta > -MATE_BOUND
        {
            return Some((eval + beta) / 2);
        }
        // Null move, with a verification search when material is thin.
        if !(self.pruning(Pruning::Small)
            && !self.verifying
            && depth >= 3
            && eval >= beta
            && static_eval >= beta - p.nmp_depth * depth + p.nmp_base
            && self.frame_before(ply, 1).piece_to != PieceTo::NONE)
        {
            return None;
        }
        // Counted only for the nodes that get this far.
        let attackers = self.attackers(self.pos.turn());
        if attackers > 0 && beta > -MATE_BOUND {
            let by_depth = depth * 10_000 / p.nmp_reduction_div.max(1);
            let r =
                (p.nmp_reduction + by_depth) / 100 + ((eval - beta) / p.nmp_eval_div.max(1)).min(3);
            self.frame(ply).piece_to = PieceTo::NONE;
            self.pos.make_null_move();
            let v = -self.search(-beta, -beta + 1, depth - r, ply + 1, false, !cut_node);
            self.pos.unmake_null_move();
            if self.aborted {
                return Some(0);
            }
            if v >= beta {
                let v = if v >= MATE_BOUND { beta } else { v };
                if attackers > 1 && depth < 12 {
                    return Some(v);
                }
                // Few pieces or a deep node: zugzwang is possible, verify.
                self.verifying = true;
                let w = self.search(beta - 1, beta, depth - r, ply, false, false);
                self.verifying = false;
                if w >= beta {
                    return Some(v);
                }
            }
        }
        None
    }

    /// Updates killers, counter move and histories after a cutoff by `best`.
    fn reward_cutoff(
        &mut self,
        best: Move,
        ply: usize,
        depth: i32,
        earlier: [PieceTo; 2],
        quiets: &MoveList,
        captures: &MoveList,
    ) {
        let bonus = history::bonus(depth, self.params());
        let us = self.pos.turn();
        let moved = piece_to(&self.pos, best);
        if let Some(victim) = self.pos.board().piece_at(best.to()) {
            self.histories.update_capture(moved, victim.role, bonus);
        } else {
            let frame = self.frame(ply);
            if frame.killers[0] != best {
                frame.killers[1] = frame.killers[0];
                frame.killers[0] = best;
            }
            self.histories.set_counter(earlier[0], best);
            self.histories.update_quiet(us, best, moved, earlier, bonus);
            for &q in quiets.iter() {
                let pt = piece_to(&self.pos, q);
                self.histories.update_quiet(us, q, pt, earlier, -bonus);
            }
        }
        for &c in captures.iter() {
            let pt = piece_to(&self.pos, c);
            let victim = self.pos.board().piece_at(c.to()).expect("a capture").role;
            self.histories.update_capture(pt, victim, -bonus);
        }
    }

    /// Quiescence: captures that do not lose material (every move when in
    /// check) until the position is quiet.
    ///
    /// It neither probes nor fills the transposition table, as ElephantEye's
    /// does not: a probe here waits on memory at nearly every node. Without
    /// it the search needs more nodes but visits them faster, for no
    /// measurable loss of strength (docs/speed.md has the figures).
    pub(super) fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: usize, pv_node: bool) -> i32 {
        self.tick();
        if self.aborted {
            return 0;
        }
        self.pv_len[ply] = 0;
        if pv_node {
            self.seldepth = self.seldepth.max(ply as i32);
        }
        if let Some(score) = self
            .pos
            .repetition()
            .and_then(|r| self.repetition_score(&r, ply))
        {
            return score;
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 4 {
            return if in_check {
                0
            } else {
                self.evaluate(alpha, beta).0
            };
        }
        let mut best = -MATE + ply as i32;
        let mut static_eval = NO_EVAL;
        if !in_check {
            // Standing pat: the side to move need not capture.
            static_eval = self.evaluate(alpha, beta).0;
            if static_eval >= beta {
                return static_eval;
            }
            // Even winning the enemy's most valuable piece cannot reach alpha.
            if static_eval + self.best_victim() + self.params().best_victim_margin <= alpha {
                return static_eval;
            }
            alpha = alpha.max(static_eval);
            best = static_eval;
        }
        let buffers = self.take_buffers();
        let mut picker = MovePicker::quiescence(buffers, in_check);
        // Made for the first move that gets as far as the legality test:
        // many nodes have no capture, or prune them all.
        let mut filter = None;
        loop {
            let ctx = Context {
                pos: &self.pos,
                histories: self.histories,
                earlier: [PieceTo::NONE; 2],
            };
            let Some(m) = picker.next(&ctx) else { break };
            if !in_check {
                // Delta pruning: even winning the victim cannot reach alpha.
                let victim = self
                    .pos
                    .board()
                    .piece_at(m.to())
                    .map_or(0, |p| SEE_VALUES[p.role.index()]);
                if static_eval + victim + self.params().delta_margin <= alpha && best > -MATE_BOUND
                {
                    continue;
                }
            }
            let filter = filter.get_or_insert_with(|| self.pos.move_filter());
            if !self.pos.is_legal_filtered(filter, m) {
                continue;
            }
            self.play(m);
            let score = -self.quiesce(-beta, -alpha, ply + 1, pv_node);
            self.take_back();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        self.give_back_buffers(picker.into_buffers());
        best
    }
}

/// Whether a stored score with this bound settles the window.
#[inline]
fn bound_allows(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tunable shapes, at the values they had before SPSA moved them,
    /// are the formulas the search had before they were tunable, at every
    /// depth and move number.
    #[test]
    fn untuned_shapes_are_the_old_formulas() {
        let p = SearchParams {
            lmr_base: 50,
            lmr_div: 200,
            lmp_base: 300,
            lmp_scale: 100,
            ..SearchParams::default()
        };
        for depth in 1..64 {
            let row = Reductions::new(depth, &p);
            for m in 1..64usize {
                let old = (0.5 + (depth as f64).ln() * (m as f64).ln() / 2.0) as i32;
                assert_eq!(row.of(m), old, "depth {depth}, move {m}");
            }
            for improving in [false, true] {
                let old = 3 + depth * depth;
                let old = if improving { old } else { old / 2 };
                assert_eq!(late_move_limit(depth, improving, &p), old as usize);
            }
        }
        let more = SearchParams { lmr_base: 150, ..p };
        assert_eq!(Reductions::new(20, &more).of(2), 2, "the base moves it");
    }

    /// At a whole ply each, the tunable adjustments are the whole-ply sum
    /// the search had before they were tunable; fractions round down.
    #[test]
    fn reduction_adjustments_of_a_ply_are_the_old_sum() {
        let p = SearchParams {
            lmr_not_pv: 100,
            lmr_not_improving: 100,
            lmr_cut_node: 100,
            lmr_check: 100,
            lmr_refutation: 100,
            ..SearchParams::default()
        };
        for bits in 0..32u32 {
            let f = ReductionFlags {
                pv_node: bits & 1 != 0,
                improving: bits & 2 != 0,
                cut_node: bits & 4 != 0,
                gives_check: bits & 8 != 0,
                refutation: bits & 16 != 0,
            };
            for reduction in 0..6 {
                for history in [-40_000, -7_000, -1, 0, 1, 6_681, 6_682, 20_000] {
                    let old =
                        reduction + !f.pv_node as i32 + !f.improving as i32 + f.cut_node as i32
                            - f.gives_check as i32
                            - f.refutation as i32
                            - history / p.lmr_history_div;
                    assert_eq!(adjusted_reduction(reduction, history, f, &p), old);
                }
            }
        }
        let half = SearchParams {
            lmr_cut_node: 50,
            ..p
        };
        let f = ReductionFlags {
            pv_node: true,
            improving: true,
            cut_node: true,
            gives_check: true,
            refutation: false,
        };
        // 2 + 0.5 - 1 = 1.5 plies: one.
        assert_eq!(adjusted_reduction(2, 0, f, &half), 1);
        // 0 + 0.5 - 1 = -0.5 plies: rounded down, not toward zero.
        assert_eq!(adjusted_reduction(0, 0, f, &half), -1);
    }
}
