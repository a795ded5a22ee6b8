//! Static evaluation, in centipawns from the side to move's view.
//!
//! The evaluation is linear in its weights: every term counts a *feature*
//! (a piece on a square, a mobility count, a king-attack pattern) for one
//! side, and the score is the weighted sum, Red's features minus Black's.
//! Each weight is a midgame/endgame pair ([`S`]); the two sums are blended
//! by the material left on the board (tapered evaluation).
//!
//! The same code serves two masters through the [`Tracer`] trait: the search
//! sums weights ([`evaluate`]), the tuner records which features fired
//! ([`trace`]) to fit the weights to game results. [`feature`] lays out the
//! weight vector; [`weights::WEIGHTS`] holds the fitted values.

pub mod weights;

use std::cell::Cell;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use xqcore::attacks::{
    advisors_attacks, bit, elephants_attacks, for_each_index, king_attacks, lines_through, palace,
    pawns_attacks, squares, Bitboard,
};
use xqcore::{Board, Color, Move, Piece, Position, Role, Square};

/// How much the evaluation knows (UCCI `knowledge`: none, small, medium, large).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Knowledge {
    /// Material only.
    None,
    /// Material and piece-square tables.
    Small,
    /// Plus mobility.
    Medium,
    /// Plus king safety and threats.
    Large,
}

/// Which evaluation the search uses (option `evaluation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// The learned net ([`xqnnue`]), with the hand-crafted evaluation's
    /// draw knowledge (no win without material that can mate).
    Nnue,
    /// The hand-crafted terms of this module, at the [`Knowledge`] level.
    Hce,
}

/// A midgame/endgame pair of centipawn values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

impl S {
    /// Builds a pair.
    pub const fn new(mg: i32, eg: i32) -> S {
        S { mg, eg }
    }
}

impl Add for S {
    type Output = S;
    #[inline]
    fn add(self, o: S) -> S {
        S::new(self.mg + o.mg, self.eg + o.eg)
    }
}

impl Sub for S {
    type Output = S;
    #[inline]
    fn sub(self, o: S) -> S {
        S::new(self.mg - o.mg, self.eg - o.eg)
    }
}

impl AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}

impl SubAssign for S {
    #[inline]
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline]
    fn mul(self, k: i32) -> S {
        S::new(self.mg * k, self.eg * k)
    }
}

impl Neg for S {
    type Output = S;
    #[inline]
    fn neg(self) -> S {
        S::new(-self.mg, -self.eg)
    }
}

/// Offsets of each feature group in the weight vector.
pub mod feature {
    /// Squares of a half board: ten ranks by five files (left-right mirrored).
    pub const HALF: usize = 50;
    /// Material by role index (the king's entry is unused).
    pub const MATERIAL: usize = 0;
    /// Piece-square values by role, `HALF` entries each, from the owner's side.
    pub const PST: usize = MATERIAL + 7;
    /// Rook mobility by number of squares attacked and not own (0..=17).
    pub const ROOK_MOBILITY: usize = PST + 7 * HALF;
    /// Horse mobility (0..=8).
    pub const HORSE_MOBILITY: usize = ROOK_MOBILITY + 18;
    /// Cannon mobility by quiet moves (0..=17).
    pub const CANNON_MOBILITY: usize = HORSE_MOBILITY + 9;
    /// Pressure on the enemy palace by attack units (clamped to 15).
    pub const KING_ATTACK: usize = CANNON_MOBILITY + 18;
    /// Our cannon on the enemy king's file, by pieces between (0, 1, 2, 3+).
    pub const CANNON_KING_FILE: usize = KING_ATTACK + 16;
    /// Our cannon on the enemy king's rank, by pieces between.
    pub const CANNON_KING_RANK: usize = CANNON_KING_FILE + 4;
    /// Our rook on the enemy king's file, by pieces between.
    pub const ROOK_KING_FILE: usize = CANNON_KING_RANK + 4;
    /// Our rook on the enemy king's rank, by pieces between.
    pub const ROOK_KING_RANK: usize = ROOK_KING_FILE + 4;
    /// Each missing advisor of ours, times the enemy's rooks, horses and cannons.
    pub const MISSING_ADVISOR: usize = ROOK_KING_RANK + 4;
    /// Each missing elephant of ours, times the enemy's rooks, horses and cannons.
    pub const MISSING_ELEPHANT: usize = MISSING_ADVISOR + 1;
    /// Our piece attacked and not defended, by role, the enemy to move.
    pub const HANGING: usize = MISSING_ELEPHANT + 1;
    /// The same with us to move (we may save it).
    pub const HANGING_TO_MOVE: usize = HANGING + 7;
    /// Our piece attacked by an enemy pawn, by role, the enemy to move.
    pub const THREAT_BY_PAWN: usize = HANGING_TO_MOVE + 7;
    /// The same with us to move.
    pub const THREAT_BY_PAWN_TO_MOVE: usize = THREAT_BY_PAWN + 7;
    /// Our rook attacked by an enemy horse or cannon: the enemy to move, us to move.
    pub const ROOK_THREATENED: usize = THREAT_BY_PAWN_TO_MOVE + 7;
    /// The side to move.
    pub const TEMPO: usize = ROOK_THREATENED + 2;
    /// Number of weights.
    pub const COUNT: usize = TEMPO + 1;
}

/// Phase points of the material: rook 2, horse 1, cannon 1; 16 in the opening.
pub const MAX_PHASE: i32 = 16;

/// Receives the features of a position, one side at a time.
pub trait Tracer {
    /// Feature `index` occurs `count` times for `color`.
    fn add(&mut self, color: Color, index: usize, count: i32);
}

/// Sums weights: the tracer the search uses. `N` is [`feature::COUNT`], or
/// more for [`PADDED_WEIGHTS`].
struct Scorer<'a, const N: usize> {
    weights: &'a [S; N],
    score: S,
}

impl<const N: usize> Tracer for Scorer<'_, N> {
    #[inline(always)]
    fn add(&mut self, color: Color, index: usize, count: i32) {
        let w = self.weights[index] * count;
        match color {
            Color::Red => self.score += w,
            Color::Black => self.score -= w,
        }
    }
}

/// The features of a position, Red's minus Black's, with what the tuner needs
/// to blend them: the phase and the side to move.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// (feature index, Red count minus Black count), nonzero only.
    pub features: Vec<(u16, i16)>,
    /// Material phase, 0 (bare endgame) ..= [`MAX_PHASE`].
    pub phase: i32,
    /// Scale applied to the blended score, out of 64 (endgame draws).
    pub scale: i32,
    /// Whether Red is to move.
    pub red_to_move: bool,
}

#[derive(Default)]
struct Counter {
    counts: Vec<i32>,
}

impl Tracer for Counter {
    fn add(&mut self, color: Color, index: usize, count: i32) {
        if self.counts.is_empty() {
            self.counts = vec![0; feature::COUNT];
        }
        self.counts[index] += match color {
            Color::Red => count,
            Color::Black => -count,
        };
    }
}

/// Evaluates `pos` from the side to move's view with the built-in weights.
pub fn evaluate(pos: &Position, knowledge: Knowledge) -> i32 {
    evaluate_with(pos, &weights::WEIGHTS, knowledge)
}

/// Material plus piece-square value of every piece on every square, from
/// its owner's view, with the built-in weights.
static PSQ: [[S; 90]; 14] = {
    let w = &weights::WEIGHTS;
    let mut t = [[S::new(0, 0); 90]; 14];
    let mut p = 0;
    while p < 14 {
        let (color, role) = (p / 7, p % 7);
        let mut sq = 0;
        while sq < 90 {
            let m = w[feature::MATERIAL + role];
            let pst = w[feature::PST + role * feature::HALF + HALF[color][sq] as usize];
            t[p][sq] = S::new(m.mg + pst.mg, m.eg + pst.eg);
            sq += 1;
        }
        p += 1;
    }
    t
};

#[inline]
fn signed_psq(piece: Piece, sq: Square) -> S {
    let v = PSQ[piece.index()][sq.index()];
    match piece.color {
        Color::Red => v,
        Color::Black => -v,
    }
}

/// Material and placement of every piece, Red's minus Black's: the part of
/// the evaluation the search keeps up to date move by move.
pub fn placement(board: &Board) -> S {
    board
        .pieces()
        .fold(S::default(), |acc, (sq, piece)| acc + signed_psq(piece, sq))
}

/// [`signed_psq`] by board code ([`Board::code_at`]): row 0, the empty
/// square, is all zeros, so that a move's change needs no branch on
/// whether it captures.
static SIGNED_PSQ_BY_CODE: [[S; 90]; 15] = {
    let mut t = [[S::new(0, 0); 90]; 15];
    let mut p = 0;
    while p < 14 {
        let mut sq = 0;
        while sq < 90 {
            let v = PSQ[p][sq];
            // Pieces 0..7 are Red's, 7..14 Black's.
            t[p + 1][sq] = if p < 7 { v } else { S::new(-v.mg, -v.eg) };
            sq += 1;
        }
        p += 1;
    }
    t
};

/// How [`placement`] changes when the legal move `m` is played in `pos`.
#[inline]
pub fn placement_delta(pos: &Position, m: Move) -> S {
    let board = pos.board();
    let (from, to) = (m.from(), m.to());
    let moving = &SIGNED_PSQ_BY_CODE[board.code_at(from)];
    let captured = &SIGNED_PSQ_BY_CODE[board.code_at(to)];
    debug_assert!(board.piece_at(from).is_some(), "a piece moves");
    // An empty target's row is zero.
    moving[to.index()] - moving[from.index()] - captured[to.index()]
}

/// Margin beyond which the terms after material and placement cannot bring
/// a score back inside the window.
pub const LAZY_MARGIN: i32 = 250;

/// Evaluates `pos` from the side to move's view given its [`placement`];
/// when material and placement alone fall more than [`LAZY_MARGIN`] outside
/// `(alpha, beta)`, the other terms are skipped. Returns the score and
/// whether it is complete (not lazy).
pub fn evaluate_lazy(
    pos: &Position,
    placement: S,
    knowledge: Knowledge,
    alpha: i32,
    beta: i32,
) -> (i32, bool) {
    if knowledge < Knowledge::Small {
        return (evaluate(pos, knowledge), true);
    }
    let board = pos.board();
    let sign = match pos.turn() {
        Color::Red => 1,
        Color::Black => -1,
    };
    let tempo = weights::WEIGHTS[feature::TEMPO] * sign;
    let phase = phase(board);
    let base = sign * blend(placement + tempo, phase, scale(board, placement));
    if knowledge < Knowledge::Medium {
        return (base, true);
    }
    if base - LAZY_MARGIN >= beta || base + LAZY_MARGIN <= alpha {
        return (base, false);
    }
    // The full score depends on the board (the placement is the board's),
    // the side to move and the knowledge only: a position this thread
    // evaluated in full before (same key, same knowledge) gets the same
    // score back. Only the full path is cached, so lazy answers and the
    // `exact` flag are as without the cache.
    let key = pos.key();
    let tag = knowledge as u8 + 1;
    let hit = EVAL_CACHE.with(|cache| {
        let e = cache[key as usize % EVAL_CACHE_SIZE].get();
        (e.key == key && e.knowledge == tag).then_some(e.score)
    });
    if let Some(score) = hit {
        return (score, true);
    }
    (full(pos, placement + tempo, phase, sign, knowledge), true)
}

/// The full evaluation for [`evaluate_lazy`] when not cached, from the side
/// to move's view (`sign`), given material, placement and tempo; stores it
/// in the cache. Kept out of line, so that the lazy path and cache hits
/// spill nothing for it.
#[inline(never)]
fn full(pos: &Position, start: S, phase: i32, sign: i32, knowledge: Knowledge) -> i32 {
    let mut scorer = Scorer {
        weights: &PADDED_WEIGHTS,
        score: start,
    };
    collect_activity(pos, knowledge, &mut scorer);
    let red = blend(scorer.score, phase, scale(pos.board(), scorer.score));
    let score = sign * red;
    let key = pos.key();
    EVAL_CACHE.with(|cache| {
        cache[key as usize % EVAL_CACHE_SIZE].set(CacheEntry {
            key,
            score,
            knowledge: knowledge as u8 + 1,
        })
    });
    score
}

/// The built-in weights padded with zeros to 512 entries: every index the
/// evaluation forms (a feature's offset plus a count below 128) is in
/// bounds, so the compiler drops the bounds checks.
static PADDED_WEIGHTS: [S; 512] = {
    let mut t = [S::new(0, 0); 512];
    let mut i = 0;
    while i < feature::COUNT {
        t[i] = weights::WEIGHTS[i];
        i += 1;
    }
    t
};

/// Entries of the per-thread cache of full evaluations (16 bytes each, 128
/// KB in all). Eight times more saved only 0.3 % of the estimated cycles,
/// for 1 MB a thread competing with the transposition table for L2.
const EVAL_CACHE_SIZE: usize = 8192;

/// A full evaluation: the position's key, its score, and the knowledge it
/// was computed with plus one (0: an empty entry).
#[derive(Clone, Copy)]
struct CacheEntry {
    key: u64,
    score: i32,
    knowledge: u8,
}

thread_local! {
    /// Recent full evaluations of this thread, by key. Entries are
    /// overwritten; a score is only returned for an equal key.
    static EVAL_CACHE: [Cell<CacheEntry>; EVAL_CACHE_SIZE] = const {
        [const {
            Cell::new(CacheEntry {
                key: 0,
                score: 0,
                knowledge: 0,
            })
        }; EVAL_CACHE_SIZE]
    };
}

/// Evaluates `pos` from the side to move's view with the given weights.
pub fn evaluate_with(pos: &Position, weights: &[S; feature::COUNT], knowledge: Knowledge) -> i32 {
    let mut scorer = Scorer {
        weights,
        score: S::default(),
    };
    collect(pos, knowledge, &mut scorer);
    let red = blend(
        scorer.score,
        phase(pos.board()),
        scale(pos.board(), scorer.score),
    );
    match pos.turn() {
        Color::Red => red,
        Color::Black => -red,
    }
}

/// The features of `pos` for the tuner.
pub fn trace(pos: &Position) -> Trace {
    let mut counter = Counter::default();
    collect(pos, Knowledge::Large, &mut counter);
    let features = counter
        .counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != 0)
        .map(|(i, &c)| (i as u16, c.clamp(i16::MIN as i32, i16::MAX as i32) as i16))
        .collect();
    // The scale depends on which side is ahead, which the tuner re-derives
    // from its own weights; the built-in weights decide it here.
    let mut scorer = Scorer {
        weights: &weights::WEIGHTS,
        score: S::default(),
    };
    collect(pos, Knowledge::Large, &mut scorer);
    Trace {
        features,
        phase: phase(pos.board()),
        scale: scale(pos.board(), scorer.score),
        red_to_move: pos.turn() == Color::Red,
    }
}

/// Blends a midgame/endgame pair by phase and applies the draw scale (out of 64).
#[inline]
pub fn blend(score: S, phase: i32, scale: i32) -> i32 {
    let phase = phase.min(MAX_PHASE);
    let mixed = (score.mg * phase + score.eg * (MAX_PHASE - phase)) / MAX_PHASE;
    mixed * scale / 64
}

/// Material phase: rook 2, horse 1, cannon 1, both sides.
#[inline]
pub fn phase(board: &Board) -> i32 {
    let bits = |role| {
        board.piece_bits(Piece::new(Color::Red, role))
            | board.piece_bits(Piece::new(Color::Black, role))
    };
    // The piece sets are disjoint: one count serves for horses and cannons.
    2 * bits(Role::Rook).count_ones() as i32
        + (bits(Role::Horse) | bits(Role::Cannon)).count_ones() as i32
}

/// Whether `color` has anything that can give mate: a rook, horse, cannon or pawn.
fn can_attack(board: &Board, color: Color) -> bool {
    let bits = |role| board.piece_bits(Piece::new(color, role));
    bits(Role::Rook) | bits(Role::Horse) | bits(Role::Cannon) | bits(Role::Pawn) != 0
}

/// Draw scale out of 64: a side without attacking pieces cannot win, so its
/// advantage counts for nothing.
fn scale(board: &Board, red_score: S) -> i32 {
    let leader = if red_score.eg + red_score.mg >= 0 {
        Color::Red
    } else {
        Color::Black
    };
    if can_attack(board, leader) {
        64
    } else {
        0
    }
}

/// A score from `turn`'s view, zeroed when the side it favours has nothing
/// left that can give mate (the draw knowledge of [`scale`], for
/// evaluations that do not have it, like the net's).
#[inline]
pub fn without_winning_material(board: &Board, turn: Color, score: i32) -> i32 {
    let leader = if score >= 0 { turn } else { !turn };
    if can_attack(board, leader) {
        score
    } else {
        0
    }
}

/// The static evaluation of `pos` for the side to move: the net's (with
/// the draw knowledge it lacks), or the hand-crafted one at `knowledge`.
pub fn static_eval(pos: &Position, net: Option<&xqnnue::Network>, knowledge: Knowledge) -> i32 {
    match net {
        Some(net) => {
            let score = net.evaluate_board(pos.board(), pos.turn());
            without_winning_material(pos.board(), pos.turn(), score)
        }
        None => evaluate(pos, knowledge),
    }
}

/// Attack units a piece brings to the enemy palace when it reaches it.
const ATTACK_UNITS: [i32; 7] = [0, 0, 0, 2, 3, 2, 1];

/// Per-side attack information gathered while scoring pieces.
#[derive(Default)]
struct Attacks {
    /// Everything each side attacks or defends.
    all: [Bitboard; 2],
    /// Squares attacked by each side's pawns.
    pawns: [Bitboard; 2],
    /// Squares attacked by each side's horses and cannons.
    minors: [Bitboard; 2],
    /// Attack units against the enemy palace.
    king_units: [i32; 2],
}

/// The half-board index of every square, from each side's view.
static HALF: [[u8; 90]; 2] = {
    let mut t = [[0u8; 90]; 2];
    let mut s = 0;
    while s < 90 {
        let (rank, file) = (s / 9, s % 9);
        let half_file = if file < 8 - file { file } else { 8 - file };
        t[0][s] = (rank * 5 + half_file) as u8;
        t[1][s] = ((9 - rank) * 5 + half_file) as u8;
        s += 1;
    }
    t
};

/// Runs every term of the evaluation through `t`.
fn collect(pos: &Position, knowledge: Knowledge, t: &mut impl Tracer) {
    t.add(pos.turn(), feature::TEMPO, 1);
    for color in Color::ALL {
        material_and_placement(pos.board(), color, knowledge, t);
    }
    collect_activity(pos, knowledge, t);
}

/// The terms beyond material and placement: mobility, king safety, threats.
/// Inlined, so that the scorer's sum stays in registers.
#[inline(always)]
fn collect_activity(pos: &Position, knowledge: Knowledge, t: &mut impl Tracer) {
    if knowledge < Knowledge::Medium {
        return;
    }
    let board = pos.board();
    let mut attacks = Attacks::default();
    // Each side spelled out, so that the colour is a constant in each copy.
    activity(board, Color::Red, pos.king(Color::Red), &mut attacks, t);
    activity(board, Color::Black, pos.king(Color::Black), &mut attacks, t);
    if knowledge >= Knowledge::Large {
        let red_to_move = pos.turn() == Color::Red;
        // Spelled out per colour as well, for constant colours.
        king_safety(pos, Color::Red, &attacks, t);
        threats(board, Color::Red, red_to_move, &attacks, t);
        king_safety(pos, Color::Black, &attacks, t);
        threats(board, Color::Black, !red_to_move, &attacks, t);
    }
}

/// Material and piece-square terms of `color`'s pieces.
#[inline]
fn material_and_placement(board: &Board, color: Color, knowledge: Knowledge, t: &mut impl Tracer) {
    let half = &HALF[color.index()];
    for role in Role::ALL {
        let bb = board.piece_bits(Piece::new(color, role));
        if bb == 0 {
            continue;
        }
        t.add(
            color,
            feature::MATERIAL + role.index(),
            bb.count_ones() as i32,
        );
        if knowledge >= Knowledge::Small {
            let pst = feature::PST + role.index() * feature::HALF;
            for sq in squares(bb) {
                t.add(color, pst + half[sq.index()] as usize, 1);
            }
        }
    }
}

/// Mobility and attack sets of `color`'s pieces.
#[inline(always)]
fn activity(board: &Board, color: Color, king: Square, attacks: &mut Attacks, t: &mut impl Tracer) {
    let c = color.index();
    let own = board.color_bits(color);
    let enemy_palace = palace(!color);
    let piece = |role| board.piece_bits(Piece::new(color, role));
    let mut all = 0;
    let mut minors = 0;
    let mut units = 0;
    // The mobility counts need no clamping: a rook or cannon reaches at most
    // 8 + 9 squares of its rank and file, a horse at most 8.
    for_each_index(piece(Role::Rook), |sq| {
        let a = board.rook_attacks_at(sq);
        let n = (a & !own).count_ones() as usize;
        debug_assert!(n <= 17);
        t.add(color, feature::ROOK_MOBILITY + n, 1);
        all |= a;
        units += ATTACK_UNITS[Role::Rook.index()] * (a & enemy_palace != 0) as i32;
    });
    for_each_index(piece(Role::Horse), |sq| {
        let a = board.horse_attacks_at(sq);
        let n = (a & !own).count_ones() as usize;
        debug_assert!(n <= 8);
        t.add(color, feature::HORSE_MOBILITY + n, 1);
        minors |= a;
        units += ATTACK_UNITS[Role::Horse.index()] * (a & enemy_palace != 0) as i32;
    });
    for_each_index(piece(Role::Cannon), |sq| {
        let (a, n) = board.cannon_attacks_at(sq);
        debug_assert!(n <= 17);
        t.add(color, feature::CANNON_MOBILITY + n as usize, 1);
        minors |= a;
        units += ATTACK_UNITS[Role::Cannon.index()] * (a & enemy_palace != 0) as i32;
    });
    let pawns = pawns_attacks(color, piece(Role::Pawn));
    units += ATTACK_UNITS[Role::Pawn.index()] * (pawns & enemy_palace).count_ones().min(2) as i32;
    all |= advisors_attacks(color, piece(Role::Advisor));
    all |= elephants_attacks(color, piece(Role::Elephant), board.occupied());
    all |= king_attacks(king);
    attacks.all[c] = all | minors | pawns;
    attacks.minors[c] = minors;
    attacks.pawns[c] = pawns;
    attacks.king_units[c] = units;
}

/// `color`'s pressure on the enemy king: palace attack units, rooks and
/// cannons lined up with the king, and the enemy's missing defenders.
#[inline(always)]
fn king_safety(pos: &Position, color: Color, attacks: &Attacks, t: &mut impl Tracer) {
    let board = pos.board();
    let them = !color;
    let king = pos.king(them);
    let units = attacks.king_units[color.index()].min(15) as usize;
    t.add(color, feature::KING_ATTACK + units, 1);
    let rooks = board.piece_bits(Piece::new(color, Role::Rook));
    let cannons = board.piece_bits(Piece::new(color, Role::Cannon));
    // Rooks and cannons lined up with the king, in one pass: few ever are.
    let k = king.index();
    for sq in squares((rooks | cannons) & lines_through(king)) {
        let sq = sq.index();
        let (on_file, on_rank) = if cannons & bit(sq) != 0 {
            (feature::CANNON_KING_FILE, feature::CANNON_KING_RANK)
        } else {
            (feature::ROOK_KING_FILE, feature::ROOK_KING_RANK)
        };
        let (file, between) = board.king_line(sq, k);
        let base = if file { on_file } else { on_rank };
        let between = between.min(3) as usize;
        t.add(color, base + between, 1);
    }
    let horses = board.piece_bits(Piece::new(color, Role::Horse));
    // The sets are disjoint: one count serves for the three roles.
    let force = (rooks | horses | cannons).count_ones() as i32;
    if force == 0 {
        return;
    }
    let missing = |role| 2 - board.piece_bits(Piece::new(them, role)).count_ones() as i32;
    // Written from the attacker's side: the weights are positive.
    t.add(
        color,
        feature::MISSING_ADVISOR,
        force * missing(Role::Advisor),
    );
    t.add(
        color,
        feature::MISSING_ELEPHANT,
        force * missing(Role::Elephant),
    );
}

/// `color`'s pieces under threat: hanging, attacked by pawns, rooks
/// attacked by minors; each counted apart for `color` to move or not.
#[inline(always)]
fn threats(board: &Board, color: Color, to_move: bool, attacks: &Attacks, t: &mut impl Tracer) {
    let (us, them) = (color.index(), (!color).index());
    let (hanging_base, pawn_base) = if to_move {
        (feature::HANGING_TO_MOVE, feature::THREAT_BY_PAWN_TO_MOVE)
    } else {
        (feature::HANGING, feature::THREAT_BY_PAWN)
    };
    let king = board.piece_bits(Piece::new(color, Role::King));
    let attacked = board.color_bits(color) & !king & attacks.all[them];
    if attacked == 0 {
        return;
    }
    // Few pieces are ever under threat: look up the role of each one.
    let role_at = |sq| board.piece_at(sq).map_or(0, |p: Piece| p.role.index());
    for sq in squares(attacked & !attacks.all[us]) {
        t.add(color, hanging_base + role_at(sq), 1);
    }
    let pawns = board.piece_bits(Piece::new(color, Role::Pawn));
    for sq in squares(attacked & attacks.pawns[them] & !pawns) {
        t.add(color, pawn_base + role_at(sq), 1);
    }
    let rooks = board.piece_bits(Piece::new(color, Role::Rook));
    let threatened = (rooks & attacks.minors[them]).count_ones() as i32;
    if threatened != 0 {
        t.add(
            color,
            feature::ROOK_THREATENED + to_move as usize,
            threatened,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str, k: Knowledge) -> i32 {
        evaluate(&Position::from_fen(fen).unwrap(), k)
    }

    #[test]
    fn start_position_is_balanced_for_both_sides() {
        let tempo = weights::WEIGHTS[feature::TEMPO].mg;
        let red = evaluate(&Position::start(), Knowledge::Large);
        assert_eq!(red, tempo);
        let black = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b";
        assert_eq!(eval(black, Knowledge::Large), tempo);
    }

    #[test]
    fn evaluation_is_colour_symmetric_and_mirror_symmetric() {
        for fen in [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w",
            "3akab2/9/4b4/p3p3p/2p6/6P2/P3P3P/4B4/4A4/2BAK4 b",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut setup = pos.to_setup();
            setup.board = setup.board.flip_colors();
            setup.turn = !setup.turn;
            let flipped = Position::from_setup(setup).unwrap();
            for k in [
                Knowledge::None,
                Knowledge::Small,
                Knowledge::Medium,
                Knowledge::Large,
            ] {
                let e = evaluate(&pos, k);
                assert_eq!(e, evaluate(&flipped, k), "{fen} {k:?}");
                assert_eq!(e, evaluate(&pos.mirror(), k), "{fen} {k:?}");
            }
        }
    }

    #[test]
    fn extra_material_scores_higher() {
        let up_a_rook = "rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
        assert!(eval(up_a_rook, Knowledge::Large) > 500);
        // Material only: the rook and the tempo, blended at the phase of a
        // board missing one rook (16 - 2).
        let w = &weights::WEIGHTS;
        let rook = w[feature::MATERIAL + Role::Rook.index()];
        let want = blend(rook + w[feature::TEMPO], MAX_PHASE - 2, 64);
        assert_eq!(eval(up_a_rook, Knowledge::None), want);
    }

    #[test]
    fn incremental_placement_and_lazy_evaluation_agree_with_the_full_one() {
        let mut pos =
            Position::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w")
                .unwrap();
        let mut running = placement(pos.board());
        // Play captures and quiet moves, keeping the placement up to date.
        for _ in 0..12 {
            let moves = pos.legal_moves();
            let Some(&m) = moves
                .iter()
                .find(|m| pos.board().piece_at(m.to()).is_some())
                .or(moves.first())
            else {
                break;
            };
            running += placement_delta(&pos, m);
            pos.make_move(m);
            assert_eq!(running, placement(pos.board()), "after {m}");
            let full = evaluate(&pos, Knowledge::Large);
            let (wide, exact) = evaluate_lazy(&pos, running, Knowledge::Large, -30_000, 30_000);
            assert!(exact);
            assert_eq!(wide, full);
            // A window far away from the score gets the lazy answer.
            let (lazy, exact) =
                evaluate_lazy(&pos, running, Knowledge::Large, full + 5_000, full + 5_001);
            assert!(!exact);
            assert!((lazy - full).abs() < 5_000 - LAZY_MARGIN);
        }
    }

    #[test]
    fn cached_evaluations_match_by_knowledge() {
        let pos =
            Position::from_fen("r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w")
                .unwrap();
        let running = placement(pos.board());
        // Twice each, the second time from the cache, alternating knowledge.
        for _ in 0..2 {
            for k in [Knowledge::Medium, Knowledge::Large] {
                let (e, exact) = evaluate_lazy(&pos, running, k, -30_000, 30_000);
                assert!(exact);
                assert_eq!(e, evaluate(&pos, k), "{k:?}");
            }
        }
        assert_ne!(
            evaluate(&pos, Knowledge::Medium),
            evaluate(&pos, Knowledge::Large)
        );
    }

    #[test]
    fn a_side_without_attackers_cannot_be_ahead() {
        // Red has advisors and elephants against a bare king: no way to mate.
        assert_eq!(
            eval("4k4/9/9/9/9/9/9/4B4/4A4/3AK1B2 w", Knowledge::Large),
            0
        );
    }

    #[test]
    fn the_trace_reproduces_the_score() {
        let w = &weights::WEIGHTS;
        for fen in [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "3akab2/9/4b4/p3p3p/2p6/6P2/P3P3P/4B4/4A4/2BAK4 b",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let tr = trace(&pos);
            let mut sum = S::default();
            for &(i, c) in &tr.features {
                sum += w[i as usize] * c as i32;
            }
            let red = blend(sum, tr.phase, tr.scale);
            let stm = if tr.red_to_move { red } else { -red };
            assert_eq!(stm, evaluate(&pos, Knowledge::Large), "{fen}");
        }
    }

    #[test]
    fn cannons_lined_up_with_the_king_are_counted_by_screens() {
        let count = |fen: &str, index: usize| {
            let tr = trace(&Position::from_fen(fen).unwrap());
            tr.features
                .iter()
                .find(|(i, _)| *i as usize == index)
                .map_or(0, |&(_, c)| c)
        };
        // Red's cannon on the black king's open file: an empty-head cannon.
        let open = "3ak4/9/9/9/9/9/9/4C4/9/3K1A3 w";
        assert_eq!(count(open, feature::CANNON_KING_FILE), 1);
        // With two pieces between, it counts as a cannon behind two screens.
        let screened = "3ak4/4a4/9/4p4/9/9/9/4C4/9/3K1A3 w";
        assert_eq!(count(screened, feature::CANNON_KING_FILE), 0);
        assert_eq!(count(screened, feature::CANNON_KING_FILE + 2), 1);
    }
}
