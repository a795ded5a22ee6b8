//! Staged move ordering: the hash move first, then winning and even captures,
//! killers and the counter move, quiet moves by history, losing captures last.
//! Later stages are generated only when the earlier ones did not cut off.

use xqcore::{
    CaptureVisitor, CheckFilter, Move, MoveList, Piece, Position, QuietVisitor, Role, Square,
    MAX_MOVES, NUM_SQUARES,
};

use super::history::{Histories, PieceTo, QuietScorer};

/// Piece values for ordering and exchange evaluation (king above everything).
pub const SEE_VALUES: [i32; 7] = [20_000, 120, 120, 400, 900, 450, 100];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenerateCaptures,
    GoodCaptures,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiets,
    Quiets,
    BadCaptures,
    Done,
}

/// What the picker needs to know about the node.
pub struct Context<'a> {
    pub pos: &'a Position,
    pub histories: &'a Histories,
    /// The moves one and two plies earlier, for continuation histories.
    pub earlier: [PieceTo; 2],
}

/// The move lists a picker fills: allocated once per ply and reused, so a
/// node does not clear a kilobyte of arrays it may never use.
pub struct Buffers {
    /// The generated moves of the current stage, in picking order.
    moves: MoveList,
    /// The [`key`]s of `moves`, entry for entry.
    /// [`pad`]ded to a whole [`GROUP`].
    keys: [i32; MAX_MOVES + GROUP],
    /// Room to copy moves into while they are put in sorted order.
    scratch: [Move; MAX_MOVES],
    bad_captures: MoveList,
    /// The quiet moves the node searched without a cutoff.
    pub quiets_tried: MoveList,
    /// The captures the node searched without a cutoff.
    pub captures_tried: MoveList,
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers {
            moves: MoveList::new(),
            keys: [0; MAX_MOVES + GROUP],
            scratch: [Move::NULL; MAX_MOVES],
            bad_captures: MoveList::new(),
            quiets_tried: MoveList::new(),
            captures_tried: MoveList::new(),
        }
    }
}

impl Buffers {
    /// Generates the captures, with their keys. Not inlined: the picker's
    /// other calls need none of what scoring keeps at hand.
    #[inline(never)]
    fn generate_captures(&mut self, ctx: &Context) {
        let histories = ctx.histories;
        let mut visitor = CaptureKeys {
            histories,
            row: &[0; NUM_SQUARES * 7],
            moves: self.moves.storage_mut(),
            keys: &mut self.keys,
            len: 0,
        };
        ctx.pos.visit_captures(&mut visitor);
        let len = visitor.len;
        self.moves.set_len(len);
        pad(&mut self.keys, len);
    }

    /// Generates the quiet moves, with their keys (see
    /// [`Buffers::generate_captures`]).
    #[inline(never)]
    fn generate_quiets(&mut self, ctx: &Context) {
        let pos = ctx.pos;
        let scorer = ctx.histories.quiet_scorer(pos.turn(), ctx.earlier);
        let mut visitor = QuietKeys {
            scorer,
            rows: [&[0; NUM_SQUARES]; 3],
            moves: self.moves.storage_mut(),
            keys: &mut self.keys,
            len: 0,
        };
        pos.visit_quiets(&mut visitor);
        let len = visitor.len;
        self.moves.set_len(len);
        pad(&mut self.keys, len);
    }
}

/// Scores captures as they are generated, into a list and its keys: the
/// same keys as [`capture_score`] gives, with the capture history row of
/// each piece looked up once.
struct CaptureKeys<'a> {
    histories: &'a Histories,
    /// The capture histories of the piece now moving.
    row: &'a [i16; NUM_SQUARES * 7],
    moves: &'a mut [Move; MAX_MOVES],
    keys: &'a mut Keys,
    len: usize,
}

impl CaptureVisitor for CaptureKeys<'_> {
    #[inline]
    fn piece(&mut self, piece: Piece, _: Square) {
        self.row = self.histories.capture_row(piece);
    }

    #[inline]
    fn capture(&mut self, m: Move, victim: Role) {
        let history = self.row[m.to().index() * 7 + victim.index()] as i32;
        let score = history / 16 + 8 * SEE_VALUES[victim.index()];
        let slot = self.len;
        self.moves[slot] = m;
        self.keys[slot] = key(score, slot);
        self.len = slot + 1;
    }
}

/// Scores quiet moves as they are generated, into a list and its keys.
struct QuietKeys<'a> {
    scorer: QuietScorer<'a>,
    /// The scorer's rows for the piece now moving.
    rows: [&'a [i16; NUM_SQUARES]; 3],
    moves: &'a mut [Move; MAX_MOVES],
    keys: &'a mut Keys,
    len: usize,
}

impl QuietVisitor for QuietKeys<'_> {
    #[inline]
    fn piece(&mut self, piece: Piece, from: Square) {
        self.rows = self.scorer.rows(piece, from);
    }

    #[inline]
    fn quiet(&mut self, m: Move) {
        let to = m.to().index();
        let [a, b, c] = self.rows;
        let score = a[to] as i32 + b[to] as i32 + c[to] as i32;
        let slot = self.len;
        self.moves[slot] = m;
        self.keys[slot] = key(score, slot);
        self.len = slot + 1;
    }
}

/// The low bits of a [`key`], which hold the entry's place in the list.
const SLOT_BITS: i32 = 0x7f;

/// The sort key of the move with ordering score `score` at place `slot` of
/// the list: the negated score above the slot's 7 bits, so that the
/// smallest key is the best score and, of equal scores, the first in the
/// list. Keys are unique: a minimum needs no tie-break, and a sort of keys
/// is stable by score. When an entry changes place its slot bits follow.
#[inline]
fn key(score: i32, slot: usize) -> i32 {
    // Scores are sums of at most three i16 histories plus eight times a
    // piece value: far inside the 24 bits left to them.
    debug_assert!(score.abs() < 1 << 23, "{score}");
    debug_assert!(slot <= SLOT_BITS as usize);
    (-score) << 7 | slot as i32
}

/// Hands out the moves of a node one at a time, best-looking first.
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    buffers: Box<Buffers>,
    next: usize,
    next_bad: usize,
    /// Hand out the rest of the quiet moves without ordering them.
    unordered: bool,
    /// Quiet moves handed out by selection before the rest is sorted.
    quiet_selections: usize,
    /// Captures only (quiescence), unless in check.
    captures_only: bool,
    /// Set by the search once late quiet moves are not worth trying.
    pub skip_quiets: bool,
    /// For check tests, worked out when first needed.
    checks: Option<CheckFilter>,
}

/// The piece-to index of a move in `pos`.
#[inline]
pub fn piece_to(pos: &Position, m: Move) -> PieceTo {
    let piece = pos.board().piece_index_at(m.from()).expect("a piece moves");
    PieceTo::from_index(piece, m.to())
}

/// Most valuable victim, least valuable attacker, plus capture history (what
/// [`Buffers::generate_captures`] works out for a whole list).
#[cfg(test)]
fn capture_score(ctx: &Context, m: Move) -> i32 {
    let board = ctx.pos.board();
    let victim = board.piece_at(m.to()).expect("a capture").role;
    ctx.histories.capture(piece_to(ctx.pos, m), victim) / 16 + 8 * SEE_VALUES[victim.index()]
}

/// Whether a capture wins at least as much as it can lose. (SEE settles
/// without an exchange when the attacker is worth no more than its victim.)
#[inline]
fn capture_is_good(pos: &Position, m: Move) -> bool {
    pos.see_ge(m, &SEE_VALUES, 0)
}

/// A quiet move's score, one lookup at a time (what
/// [`Buffers::generate_quiets`] works out for a whole list).
#[cfg(test)]
fn quiet_score(ctx: &Context, m: Move) -> i32 {
    let moved = piece_to(ctx.pos, m);
    ctx.histories.main(ctx.pos.turn(), m)
        + ctx.histories.continuation(ctx.earlier[0], moved)
        + ctx.histories.continuation(ctx.earlier[1], moved)
}

/// Picks made by selection before the rest of a list is sorted once: nodes
/// that cut off mostly do so within the first few moves, and nodes that
/// try them all are better served by one sort than by repeated scans.
const SELECT_PICKS: usize = 3;

/// Keys are scanned in aligned groups of this many, the list padded with
/// [`PAD`] to a whole group: a fixed-width minimum compiles to vector code
/// without a scalar tail.
const GROUP: usize = 8;

/// The key of padding and of picked entries, above every real key.
const PAD: i32 = i32::MAX;

/// Fills `keys[n..]` up to a whole [`GROUP`] with [`PAD`] (and a little beyond).
#[inline]
fn pad(keys: &mut Keys, n: usize) {
    keys[n..n + GROUP].copy_from_slice(&[PAD; GROUP]);
}

/// Room for the keys of a full list, padded.
type Keys = [i32; MAX_MOVES + GROUP];

/// The move to try at place `at` of `moves`, whose [`key`]s are `keys`
/// ([`pad`]ded): selection for the first `select` picks, then the
/// remainder sorted once (stable: equal scores keep their order).
/// `scratch` is room for the sort.
#[inline(always)]
fn pick(
    keys: &mut Keys,
    moves: &mut [Move],
    scratch: &mut [Move; MAX_MOVES],
    at: usize,
    select: usize,
) -> Move {
    if at < select {
        return select_best(keys, moves, at);
    }
    if at == select {
        sort_rest(keys, moves, scratch, at);
    }
    moves[at]
}

/// Sorts `moves[at..]` by their keys (whose slots still name their places).
#[inline(never)]
fn sort_rest(keys: &mut Keys, moves: &mut [Move], scratch: &mut [Move; MAX_MOVES], at: usize) {
    let n = moves.len();
    let keys = &mut keys[at..n];
    keys.sort_unstable();
    // The moves as they stood, at the slots their keys name.
    scratch[at..n].copy_from_slice(&moves[at..]);
    for (m, &k) in moves[at..].iter_mut().zip(keys.iter()) {
        *m = scratch[(k & SLOT_BITS) as usize];
    }
}

/// Swaps the best-scored of `moves[from..]` (the first of equals) to
/// `from`, keeping `keys` in step, and returns it.
#[inline]
fn select_best(keys: &mut Keys, moves: &mut [Move], from: usize) -> Move {
    // Entries before `from` were picked: their keys are `PAD`.
    let start = from / GROUP * GROUP;
    let end = moves.len().next_multiple_of(GROUP);
    let mut low = [PAD; GROUP];
    for group in keys[start..end].chunks_exact(GROUP) {
        for (l, &k) in low.iter_mut().zip(group) {
            *l = (*l).min(k);
        }
    }
    let top = low.into_iter().min().expect("a group");
    let best = (top & SLOT_BITS) as usize;
    // The entry at `from` takes the best one's place, and its slot.
    keys[best] = keys[from] & !SLOT_BITS | best as i32;
    keys[from] = PAD;
    moves.swap(from, best);
    moves[from]
}

impl MovePicker {
    /// A picker for a full-width node, filling `buffers`.
    pub fn new(
        buffers: Box<Buffers>,
        tt_move: Option<Move>,
        killers: [Move; 2],
        counter: Move,
    ) -> MovePicker {
        let mut buffers = buffers;
        buffers.bad_captures.clear();
        buffers.quiets_tried.clear();
        buffers.captures_tried.clear();
        MovePicker {
            stage: Stage::TtMove,
            tt_move: tt_move.unwrap_or(Move::NULL),
            killers,
            counter,
            buffers,
            next: 0,
            next_bad: 0,
            unordered: false,
            quiet_selections: SELECT_PICKS,
            captures_only: false,
            skip_quiets: false,
            checks: None,
        }
    }

    /// A picker for quiescence: captures that do not lose material, or every
    /// move when in check. Quiescence keeps nothing in the table, so there
    /// is no hash move.
    pub fn quiescence(buffers: Box<Buffers>, in_check: bool) -> MovePicker {
        let mut p = MovePicker::new(buffers, None, [Move::NULL; 2], Move::NULL);
        p.captures_only = !in_check;
        p
    }

    /// Hands out up to `n` quiet moves by selection before sorting the
    /// rest: near the leaves late-move pruning stops well before a sort pays.
    pub fn select_quiets(&mut self, n: usize) {
        self.quiet_selections = n.max(SELECT_PICKS);
    }

    /// Late-move pruning: of the remaining quiet moves only checks are
    /// worth trying; hand out just those, as generated.
    pub fn checks_only(&mut self) {
        self.unordered = true;
    }

    /// Whether pseudo-legal move `m` gives check in `pos`, the node's position.
    pub fn gives_check(&mut self, pos: &Position, m: Move) -> bool {
        let filter = self.checks.get_or_insert_with(|| pos.check_filter());
        pos.gives_check_filtered(filter, m)
    }

    /// The next of the remaining quiet moves, in list order, that gives
    /// check and was not handed out before the quiet stage.
    #[inline(never)]
    fn next_check(&mut self, pos: &Position) -> Option<Move> {
        let filter = self.checks.get_or_insert_with(|| pos.check_filter());
        let moves: &[Move] = &self.buffers.moves;
        let start = self.next.min(moves.len());
        // The walk keeps its place in a local and stores it once.
        for (i, &m) in moves[start..].iter().enumerate() {
            if filter.may_check(m)
                && pos.gives_check_filtered(filter, m)
                && !(m == self.tt_move
                    || m == self.killers[0]
                    || m == self.killers[1]
                    || m == self.counter)
            {
                self.next = start + i + 1;
                return Some(m);
            }
        }
        self.next = moves.len();
        None
    }

    /// Gives back the buffers for the next node.
    pub fn into_buffers(self) -> Box<Buffers> {
        self.buffers
    }

    /// Records a move the node searched without a cutoff.
    #[inline]
    pub fn record_tried(&mut self, m: Move, quiet: bool) {
        if quiet {
            self.buffers.quiets_tried.push(m);
        } else {
            self.buffers.captures_tried.push(m);
        }
    }

    /// Whether `m` was handed out before the generated stages (so they skip it).
    fn already_tried(&self, m: Move) -> bool {
        m == self.tt_move
            || (!self.captures_only
                && (m == self.killers[0] || m == self.killers[1] || m == self.counter))
    }

    /// A killer or counter move, if it is a playable quiet move not yet tried.
    #[inline(never)]
    fn special(&self, ctx: &Context, m: Move, tried: &[Move]) -> Option<Move> {
        (m != Move::NULL
            && m != self.tt_move
            && !tried.contains(&m)
            && ctx.pos.board().is_empty(m.to())
            && ctx.pos.is_pseudo_legal(m))
        .then_some(m)
    }

    /// The next move, or `None` when all were handed out. Moves are
    /// pseudo-legal: the caller checks legality.
    ///
    /// Most calls hand out the next of the ordered quiet moves: they take a
    /// short path, which keeps none of what the other stages need at hand.
    #[inline(never)]
    pub fn next(&mut self, ctx: &Context) -> Option<Move> {
        if self.stage == Stage::Quiets && !self.unordered && !self.skip_quiets {
            if let Some(m) = self.next_quiet() {
                return Some(m);
            }
        }
        self.next_by_stage(ctx)
    }

    /// Picks the best of the generated moves not handed out yet (the first
    /// `n` are the stage's), selecting for the first `select` picks.
    #[inline(always)]
    fn pick_next(&mut self, n: usize, select: usize) -> Move {
        let b = &mut *self.buffers;
        let m = pick(
            &mut b.keys,
            &mut b.moves[..n],
            &mut b.scratch,
            self.next,
            select,
        );
        self.next += 1;
        m
    }

    /// The next of the ordered quiet moves not handed out before.
    #[inline]
    fn next_quiet(&mut self) -> Option<Move> {
        let n = self.buffers.moves.len();
        while self.next < n {
            let m = self.pick_next(n, self.quiet_selections);
            if !self.already_tried(m) {
                return Some(m);
            }
        }
        None
    }

    /// The next capture that does not lose material, setting aside those
    /// that do for later (at full width).
    #[inline(never)]
    fn good_capture(&mut self, pos: &Position) -> Option<Move> {
        let n = self.buffers.moves.len();
        while self.next < n {
            let m = self.pick_next(n, SELECT_PICKS);
            if m == self.tt_move {
                continue;
            }
            if capture_is_good(pos, m) {
                return Some(m);
            }
            // Quiescence drops losing captures; full width tries them last.
            if !self.captures_only {
                self.buffers.bad_captures.push(m);
            }
        }
        None
    }

    /// The killers and the counter move, in the stages that come before the
    /// quiet moves.
    #[inline]
    fn next_special(&mut self, ctx: &Context) -> Option<Move> {
        if self.stage == Stage::Killer1 {
            self.stage = Stage::Killer2;
            if let Some(m) = self.special(ctx, self.killers[0], &[]) {
                return Some(m);
            }
        }
        if self.stage == Stage::Killer2 {
            self.stage = Stage::Counter;
            if let Some(m) = self.special(ctx, self.killers[1], &[self.killers[0]]) {
                return Some(m);
            }
        }
        self.stage = Stage::GenerateQuiets;
        self.special(ctx, self.counter, &self.killers)
    }

    /// [`MovePicker::next`] through the stages. Stages only move forward:
    /// each is a range test that falls through to the next, so the stages
    /// are found by direct branches rather than by one jump through a table.
    #[inline(never)]
    fn next_by_stage(&mut self, ctx: &Context) -> Option<Move> {
        if self.stage < Stage::GoodCaptures {
            if self.stage == Stage::TtMove {
                self.stage = Stage::GenerateCaptures;
                let m = self.tt_move;
                let fits = !self.captures_only || !ctx.pos.board().is_empty(m.to());
                if m != Move::NULL && fits && ctx.pos.is_pseudo_legal(m) {
                    return Some(m);
                }
                self.tt_move = Move::NULL;
            }
            self.buffers.generate_captures(ctx);
            self.next = 0;
            self.stage = Stage::GoodCaptures;
        }
        if self.stage == Stage::GoodCaptures {
            if let Some(m) = self.good_capture(ctx.pos) {
                return Some(m);
            }
            if self.captures_only {
                self.stage = Stage::Done;
                return None;
            }
            self.stage = Stage::Killer1;
        }
        if self.stage < Stage::GenerateQuiets {
            if let Some(m) = self.next_special(ctx) {
                return Some(m);
            }
        }
        if self.stage == Stage::GenerateQuiets {
            self.stage = Stage::Quiets;
            let b = &mut *self.buffers;
            b.moves.clear();
            self.next = 0;
            if !self.skip_quiets {
                b.generate_quiets(ctx);
            }
        }
        if self.stage == Stage::Quiets {
            if !self.skip_quiets {
                let m = if self.unordered {
                    self.next_check(ctx.pos)
                } else {
                    self.next_quiet()
                };
                if m.is_some() {
                    return m;
                }
            }
            self.stage = Stage::BadCaptures;
        }
        if self.next_bad < self.buffers.bad_captures.len() {
            self.next_bad += 1;
            return Some(self.buffers.bad_captures[self.next_bad - 1]);
        }
        self.stage = Stage::Done;
        None
    }

    /// Whether the picker has moved on to the losing captures.
    pub fn in_bad_captures(&self) -> bool {
        self.stage >= Stage::BadCaptures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_moves(fen: &str, tt: Option<&str>, in_quiescence: bool) -> Vec<Move> {
        let pos = Position::from_fen(fen).unwrap();
        let histories = Histories::default();
        let ctx = Context {
            pos: &pos,
            histories: &histories,
            earlier: [PieceTo::NONE; 2],
        };
        let tt = tt.map(|m| pos.parse_move(m).unwrap());
        let buffers = Box::default();
        let mut picker = if in_quiescence {
            assert!(tt.is_none(), "quiescence has no hash move");
            MovePicker::quiescence(buffers, pos.in_check())
        } else {
            MovePicker::new(buffers, tt, [Move::NULL; 2], Move::NULL)
        };
        std::iter::from_fn(|| picker.next(&ctx)).collect()
    }

    const MIDDLEGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w";

    /// Keys and moves for `scores`, as the picker fills them.
    fn keyed(list: &[Move], scores: &[i32]) -> (Keys, MoveList) {
        // Garbage beyond the list, which `pad` must cover.
        let mut keys = [i32::MIN; MAX_MOVES + GROUP];
        for (i, &s) in scores.iter().enumerate() {
            keys[i] = key(s, i);
        }
        pad(&mut keys, scores.len());
        let mut moves = MoveList::new();
        for &m in &list[..scores.len()] {
            moves.push(m);
        }
        (keys, moves)
    }

    #[test]
    fn selection_hands_out_moves_best_first() {
        let pos = Position::start();
        let mut list = MoveList::new();
        pos.pseudo_legal_moves(&mut list);
        let n = list.len();
        let score = |i: usize| (i as i32 * 37) % 11 - 5;
        let scores: Vec<i32> = (0..n).map(score).collect();
        let (mut keys, mut moves) = keyed(&list, &scores);
        let mut scratch = [Move::NULL; MAX_MOVES];
        let mut picked = Vec::new();
        for i in 0..n {
            let m = pick(&mut keys, &mut moves, &mut scratch, i, SELECT_PICKS);
            let at = list.iter().position(|&x| x == m).unwrap();
            picked.push(score(at));
        }
        assert!(picked.windows(2).all(|w| w[0] >= w[1]), "{picked:?}");
        let mut sorted_moves = moves.to_vec();
        sorted_moves.sort();
        let mut want = list.to_vec();
        want.sort();
        assert_eq!(sorted_moves, want, "the same moves");
    }

    /// The low bits of a packed reference entry, which hold the move.
    const MOVE_BITS: i64 = 0xffff;

    /// The picker's entries as first written: the score above the move's
    /// 16 bits.
    fn pack(m: Move, score: i32) -> i64 {
        (score as i64) << 16 | m.to_u16() as i64
    }

    fn unpack(entry: i64) -> Move {
        Move::from_u16_unchecked((entry & MOVE_BITS) as u16)
    }

    /// [`pick`] as first written, on packed entries: selection by a scan
    /// that keeps the first of equals, then a plain insertion sort.
    fn slow_pick(list: &mut [i64], at: usize, select: usize) -> Move {
        if at < select {
            let mut best = at;
            let mut bound = list[at] | MOVE_BITS;
            for (i, &entry) in list.iter().enumerate().skip(at + 1) {
                if entry > bound {
                    best = i;
                    bound = entry | MOVE_BITS;
                }
            }
            list.swap(at, best);
            return unpack(list[at]);
        }
        if at == select {
            for i in at + 1..list.len() {
                let entry = list[i];
                let bound = entry & !MOVE_BITS;
                let mut j = i;
                while j > at && list[j - 1] < bound {
                    list[j] = list[j - 1];
                    j -= 1;
                }
                list[j] = entry;
            }
        }
        unpack(list[at])
    }

    /// After every pick the moves stand in the same order as the reference
    /// entries (the checks-only stage walks the rest in list order), and
    /// each key's slot bits name its place.
    #[test]
    fn pick_agrees_with_the_slow_pick_ties_included() {
        let pos = Position::from_fen(MIDDLEGAME).unwrap();
        let mut list = MoveList::new();
        pos.pseudo_legal_moves(&mut list);
        // Every slot of a full list, moves repeating: only the order matters.
        let list: Vec<Move> = list.iter().copied().cycle().take(MAX_MOVES).collect();
        let mut scratch = [Move::NULL; MAX_MOVES];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = 1 + (seed % MAX_MOVES as u64) as usize;
            let n = if round % 2 == 0 { n.min(50) } else { n };
            // Few distinct scores, negative ones too: many ties; and the
            // extremes of quiet and capture scores.
            let spread = [3, 10, 40_000, 170_000][round % 4];
            let scores: Vec<i32> = (0..n)
                .map(|i| {
                    let r = seed.rotate_left(i as u32 * 7) ^ (i as u64).wrapping_mul(0x9e37_79b9);
                    (r % (2 * spread + 1) as u64) as i32 - spread
                })
                .collect();
            let (mut keys, mut moves) = keyed(&list, &scores);
            let mut slow: Vec<i64> = (0..n).map(|i| pack(list[i], scores[i])).collect();
            let select = [0, 1, 3, 5, 9, 17, 200][round % 7];
            for at in 0..n {
                let m = pick(&mut keys, &mut moves, &mut scratch, at, select);
                assert_eq!(m, slow_pick(&mut slow, at, select));
                let want: Vec<Move> = slow.iter().map(|&e| unpack(e)).collect();
                assert_eq!(moves.to_vec(), want, "round {round} at {at}");
                if at < select {
                    for (i, &k) in keys.iter().enumerate().take(n).skip(at + 1) {
                        assert_eq!((k & SLOT_BITS) as usize, i);
                    }
                }
            }
        }
    }

    #[test]
    fn generated_keys_agree_with_scoring_one_move_at_a_time() {
        let mut rng = xqcore::SplitMix64::new(0x9e37_79b9_7f4a_7c15);
        let mut histories = Histories::default();
        let mut buffers = Buffers::default();
        let mut lists = 0;
        for _ in 0..30 {
            let mut pos = Position::start();
            let mut earlier = [PieceTo::NONE; 2];
            for _ in 0..120 {
                let mut all = MoveList::new();
                pos.pseudo_legal_moves(&mut all);
                // Rewards and punishments all over the tables.
                for &m in all.iter() {
                    let bonus = rng.below(3_001) as i32 - 1_500;
                    histories.update_quiet(pos.turn(), m, piece_to(&pos, m), earlier, bonus);
                    let victim = pos.board().piece_at(m.to());
                    if let Some(v) = victim {
                        histories.update_capture(piece_to(&pos, m), v.role, bonus);
                    }
                }
                let ctx = Context {
                    pos: &pos,
                    histories: &histories,
                    earlier,
                };
                buffers.moves.clear();
                buffers.generate_quiets(&ctx);
                for (slot, &m) in buffers.moves.iter().enumerate() {
                    assert_eq!(buffers.keys[slot], key(quiet_score(&ctx, m), slot));
                }
                buffers.generate_captures(&ctx);
                for (slot, &m) in buffers.moves.iter().enumerate() {
                    assert_eq!(buffers.keys[slot], key(capture_score(&ctx, m), slot));
                }
                lists += 1;
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                earlier = [piece_to(&pos, m), earlier[0]];
                pos.make_move(m);
            }
        }
        assert!(lists > 1_000, "{lists}");
    }

    #[test]
    fn every_move_comes_once_hash_move_first() {
        let pos = Position::from_fen(MIDDLEGAME).unwrap();
        let mut expected = MoveList::new();
        pos.pseudo_legal_moves(&mut expected);
        let got = all_moves(MIDDLEGAME, Some("b2b5"), false);
        assert_eq!(got[0].to_string(), "b2b5");
        let mut sorted = got.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), got.len(), "no move twice");
        let mut want = expected.to_vec();
        want.sort();
        assert_eq!(sorted, want);
    }

    #[test]
    fn quiescence_hands_out_the_captures_that_do_not_lose() {
        // The rook on a0 wins a free pawn; the one on i5 would lose itself
        // for the pawn on e5, which the horse on d7 guards.
        let fen = "4k4/9/3n5/9/p3p3R/9/9/9/9/R3K4 w";
        let got: Vec<String> = all_moves(fen, None, true)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(got, ["a0a5"]);
        // At full width the losing capture comes too, after the quiet moves.
        let all = all_moves(fen, None, false);
        assert_eq!(all.first().map(|m| m.to_string()).as_deref(), Some("a0a5"));
        assert_eq!(all.last().map(|m| m.to_string()).as_deref(), Some("i5e5"));
    }

    #[test]
    fn in_check_quiescence_hands_out_every_move() {
        // Black is in check from the cannon on e2 over the pawn on e6.
        let fen = "4k4/9/9/4p4/9/9/9/4C4/9/3K5 b";
        let pos = Position::from_fen(fen).unwrap();
        assert!(pos.in_check());
        let mut all = MoveList::new();
        pos.pseudo_legal_moves(&mut all);
        assert_eq!(all_moves(fen, None, true).len(), all.len());
    }
}
