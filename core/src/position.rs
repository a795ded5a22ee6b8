//! [`Position`]: a validated position with its game history, legal move
//! generation and make/unmake.

use std::fmt;

use crate::attacks::square_attacked;
use crate::board::{bits, code_color, codes, is_enemy, role_of, Board, Code};
use crate::chase;
use crate::moves::{IccsMove, Move, MoveList, ParseMoveError};
use crate::outcome::{EndRules, Outcome};
use crate::setup::{FenError, PositionError, Setup};
use crate::tables::{
    file_points, horse_leg, rank_points, Slide, ADVISOR_REACH, ADVISOR_STEPS, BIT, BLACK_HALF,
    CHECK_LANDINGS, ELEPHANT_REACH, ELEPHANT_STEPS, FILE_BB, FILE_BB_A, FILE_BB_I, FILE_OF,
    FILE_SLIDES, HORSE_ATTACKERS, HORSE_REACH, HORSE_STEPS, KING_REACH, KING_SENSITIVE, KING_STEPS,
    LINES, PAWN_ATTACKERS, PAWN_REACH, PAWN_STEPS, PAWN_TARGETS, RANK_BB, RANK_OF, RANK_SLIDES,
    RED_HALF,
};
#[cfg(test)]
use crate::types::NUM_SQUARES;
use crate::types::{Color, Piece, Role, Square};
use crate::zobrist;

/// Why a move was refused in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("{mv}: no piece on {square}")]
    NoPiece { mv: String, square: Square },
    #[error("{mv}: the piece on {square} is not the side to move's")]
    NotYourPiece { mv: String, square: Square },
    #[error("{mv}: a {} cannot move that way here", role.name())]
    CannotMoveThere { mv: String, role: Role },
    #[error("{mv}: the kings would face each other")]
    KingsWouldFace { mv: String },
    #[error("{mv}: it leaves the king in check")]
    LeavesKingInCheck { mv: String },
}

/// Why a move given as text was refused in a position: not a move in ICCS
/// notation, or a move the position does not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

/// What is undone by [`Position::unmake_move`], and what repetition rules look back at.
#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    captured: Code,
    key: u64,
    in_check: bool,
    plies_since_capture: u32,
}

/// The kind of a repetition cycle, by how each side played it (see
/// [`crate::chase`]'s levels): checks on every move outrank a chase of one
/// piece on every move, which outranks anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepetitionKind {
    /// Neither side checked or chased on every move: a plain repetition.
    Idle,
    /// One side checked on every one of its moves in the cycle (whatever
    /// the other did, unless it checked on every move too).
    PerpetualCheck { by: Color },
    /// Both sides checked on every move.
    MutualCheck,
    /// One side chased one and the same piece on every move, and the other
    /// did not (or only chased a piece while its own chased rook stood
    /// pinned, which ranks higher: then that side is `by`).
    PerpetualChase { by: Color },
    /// Both sides chased on every move, at the same level.
    MutualChase,
}

/// A repetition of the current position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repetition {
    pub kind: RepetitionKind,
    /// Length of the cycle in plies.
    pub plies: usize,
}

impl Repetition {
    /// What the rules make of the cycle: perpetual check loses for the
    /// checker, perpetual chase for the chaser; any other repetition is a
    /// draw.
    pub fn outcome(&self) -> Outcome {
        match self.kind {
            RepetitionKind::PerpetualCheck { by } => Outcome::PerpetualCheck { by },
            RepetitionKind::PerpetualChase { by } => Outcome::PerpetualChase { by },
            RepetitionKind::Idle | RepetitionKind::MutualCheck | RepetitionKind::MutualChase => {
                Outcome::Repetition
            }
        }
    }
}

/// Per-position masks for [`Position::is_legal_filtered`], from
/// [`Position::move_filter`]: a move that neither leaves a square of `from`
/// nor lands on one of `to` is settled without looking at the board, legal
/// unless the side to move is in check.
#[derive(Clone, Copy, Debug)]
pub struct MoveFilter {
    /// Out of check, the squares whose vacating may expose the king; in
    /// check, those a legal evasion may leave. In 64-bit halves, as
    /// [`CheckFilter`]'s masks.
    from: [u64; 2],
    /// Out of check, the squares whose occupying may expose the king; in
    /// check, those a legal evasion may land on.
    to: [u64; 2],
    in_check: bool,
}

/// Whether the square with index `sq` is in the bitboard `halves` (see [`halves`]).
#[inline]
fn in_halves(halves: &[u64; 2], sq: usize) -> bool {
    // Squares are below 90: bit 6 picks the half.
    (halves[(sq >> 6) & 1] >> (sq & 63)) & 1 != 0
}

/// Per-position masks for [`Position::gives_check_filtered`], from
/// [`Position::check_filter`]: which moves check the enemy king, for all
/// moves but those along one of its lines.
#[derive(Clone, Copy, Debug)]
pub struct CheckFilter {
    /// The enemy king, with its rank and file.
    king: usize,
    king_rank: u8,
    king_file: u8,
    /// Squares whose vacating alone uncovers a check: a piece in front of a
    /// rook (or of the own king, on the file), one of the two in front of a
    /// cannon, or a horse's leg.
    discovers: u128,
    /// By [`Role::index`] of the moving piece: the squares where it lands
    /// giving check itself or as a cannon's new screen.
    landing: [u128; 7],
    /// A move that checks leaves one of these squares (`discovers` or the
    /// king's lines, for moves along them) or lands on one of `landing_any`;
    /// in two 64-bit halves, so one square's bit is a single word's shift.
    from_any: [u64; 2],
    /// Every `landing` set together, in halves as `from_any`.
    landing_any: [u64; 2],
}

impl CheckFilter {
    /// Whether move `m` may give check: false only for moves that do not
    /// (for which [`Position::gives_check_filtered`] is false), found with
    /// two bit tests.
    #[inline]
    pub fn may_check(&self, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        // Squares are below 90: bit 6 picks the half.
        let (fh, th) = ((from >> 6) & 1, (to >> 6) & 1);
        ((self.from_any[fh] >> (from & 63)) | (self.landing_any[th] >> (to & 63))) & 1 != 0
    }
}

/// A legal position with the moves played since it was set up.
#[derive(Clone)]
pub struct Position {
    pub(crate) board: Board,
    turn: Color,
    kings: [usize; 2],
    key: u64,
    in_check: bool,
    plies_since_capture: u32,
    start_fullmoves: u32,
    start_turn: Color,
    history: Vec<Undo>,
}

impl Position {
    /// The initial position.
    pub fn start() -> Position {
        Position::from_setup(Setup::start()).expect("start position is legal")
    }

    /// Reads and validates a FEN.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let setup: Setup = fen.parse()?;
        Ok(Position::from_setup(setup)?)
    }

    /// Validates a setup: king counts, every piece on a square it can reach,
    /// piece counts, kings not facing, the side not to move not in check.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let board = setup.board;
        let mut kings = [usize::MAX; 2];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                let count = board.squares_of(piece).count();
                if count > role.max_count() {
                    return Err(PositionError::TooMany {
                        piece,
                        count,
                        max: role.max_count(),
                    });
                }
            }
            let king = board.squares_of(Piece::new(color, Role::King)).next();
            kings[color.index()] = king.ok_or(PositionError::MissingKing { color })?.index();
        }
        for (square, piece) in board.pieces() {
            check_placement(piece, square)?;
        }
        let mut pos = Position {
            key: 0,
            board,
            turn: setup.turn,
            kings,
            in_check: false,
            plies_since_capture: setup.plies_since_capture,
            start_fullmoves: setup.fullmoves,
            start_turn: setup.turn,
            history: Vec::new(),
        };
        if pos.kings_face() {
            return Err(PositionError::KingsFacing);
        }
        let them = !pos.turn;
        if pos.king_attacked(them) {
            return Err(PositionError::OpponentInCheck { color: them });
        }
        pos.key = pos.compute_key();
        pos.in_check = pos.king_attacked(pos.turn);
        Ok(pos)
    }

    /// The position as a [`Setup`].
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            plies_since_capture: self.plies_since_capture,
            fullmoves: self.fullmoves(),
        }
    }

    /// The FEN of the current position.
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// The pieces.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The 64-bit Zobrist key, maintained incrementally.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.in_check
    }

    /// The square of `color`'s king.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        Square::from_index_unchecked(self.kings[color.index()])
    }

    /// Plies since the last capture (or since the setup, plus its counter).
    #[inline]
    pub fn plies_since_capture(&self) -> u32 {
        self.plies_since_capture
    }

    /// Plies played since the position was set up.
    #[inline]
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The moves played since the setup.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The move number for FEN.
    pub fn fullmoves(&self) -> u32 {
        let black_first = (self.start_turn == Color::Black) as usize;
        self.start_fullmoves + ((self.history.len() + black_first) / 2) as u32
    }

    /// The Zobrist key computed from scratch (tests compare it with [`Position::key`]).
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::side_key(self.turn);
        for (sq, p) in self.board.pieces() {
            key ^= zobrist::piece_key(p, sq);
        }
        key
    }

    /// The position seen in a left-right mirror, without history.
    pub fn mirror(&self) -> Position {
        let setup = self.to_setup().mirror();
        Position::from_setup(setup).expect("the mirror of a legal position is legal")
    }

    // ---- attacks ----------------------------------------------------------

    /// Whether the kings stand on one file with nothing between them.
    pub fn kings_face(&self) -> bool {
        let (r, b) = (self.kings[0], self.kings[1]);
        let f = FILE_OF[r] as usize;
        f == FILE_OF[b] as usize
            && FILE_SLIDES[RANK_OF[r] as usize][self.board.files[f] as usize].rook
                & (1 << RANK_OF[b])
                != 0
    }

    /// Whether `color`'s king is attacked (the other king facing it counts).
    /// For the side to move this is [`Position::in_check`], kept up to date.
    #[inline]
    pub fn king_attacked(&self, color: Color) -> bool {
        square_attacked(&self.board, self.kings[color.index()], !color)
    }

    // ---- move generation --------------------------------------------------

    /// Appends the pseudo-legal moves of the side to move: moves by the rules
    /// of each piece, not yet checked for leaving the own king attacked.
    pub fn pseudo_legal_moves(&self, list: &mut MoveList) {
        self.generate::<true, true>(list);
    }

    /// Appends the pseudo-legal captures of the side to move.
    pub fn pseudo_legal_captures(&self, list: &mut MoveList) {
        self.visit_captures(list);
    }

    /// Hands the pseudo-legal captures of the side to move to `visitor`,
    /// piece by piece, in the order of [`Position::pseudo_legal_moves`].
    /// For callers that score captures as they are generated.
    #[inline]
    pub fn visit_captures(&self, visitor: &mut impl CaptureVisitor) {
        let us = self.turn;
        let sq = &self.board.squares;
        // Pieces with no enemy in reach have no capture, and are left out
        // before looking at their moves.
        for from in bits(self.capture_candidates()) {
            let role = role_of(sq[from]);
            visitor.piece(Piece::new(us, role), Square::from_index_unchecked(from));
            self.piece_captures(visitor, role, from);
        }
    }

    /// The captures of our `role` on `from`, handed to `visitor`. A
    /// stepping piece mostly has one victim in reach, which needs no walk
    /// over its targets; with more, the walk keeps their order.
    #[inline]
    fn piece_captures(&self, visitor: &mut impl CaptureVisitor, role: Role, from: usize) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        let them = board.by_color[(!us).index()];
        let mut take = |to: usize| visitor.capture(Move::from_raw(from, to), role_of(sq[to]));
        let lone = |victims: u128| victims & (victims - 1) == 0;
        match role {
            Role::King | Role::Advisor | Role::Pawn => {
                let victims = match role {
                    Role::King => KING_REACH[from],
                    Role::Advisor => ADVISOR_REACH[from],
                    _ => PAWN_TARGETS[us.index()][from],
                } & them;
                if lone(victims) {
                    take(victims.trailing_zeros() as usize);
                    return;
                }
                for &to in step_targets(role, us, from) {
                    if is_enemy(sq[to as usize], us) {
                        take(to as usize);
                    }
                }
            }
            Role::Elephant | Role::Horse => {
                let horse = role == Role::Horse;
                let reach = if horse { &HORSE_REACH } else { &ELEPHANT_REACH };
                let victims = reach[from] & them;
                if lone(victims) {
                    let to = victims.trailing_zeros() as usize;
                    // The horse's leg, or the elephant's eye midway.
                    let blocker = if horse {
                        horse_leg(from, to)
                    } else {
                        (from + to) / 2
                    };
                    if sq[blocker] == 0 {
                        take(to);
                    }
                    return;
                }
                for &(to, blocker) in legged_targets(role, from) {
                    if is_enemy(sq[to as usize], us) && sq[blocker as usize] == 0 {
                        take(to as usize);
                    }
                }
            }
            Role::Rook | Role::Cannon => {
                let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
                let file = &FILE_SLIDES[r][board.files[f] as usize];
                let (on_rank, on_file) = if role == Role::Rook {
                    (rank.rook, file.rook)
                } else {
                    (rank.cannon, file.cannon)
                };
                // The enemies among the pieces it reaches, rank before file.
                let enemy_rank = (them >> (r * 9)) as u16;
                for t in bits16(on_rank & enemy_rank) {
                    take(r * 9 + t);
                }
                for to in bits(file_points(on_file, f) & them) {
                    take(to);
                }
            }
        }
    }

    /// Appends the pseudo-legal non-captures of the side to move.
    pub fn pseudo_legal_quiets(&self, list: &mut MoveList) {
        self.visit_quiets(list);
    }

    /// Hands the pseudo-legal non-captures of the side to move to
    /// `visitor`, piece by piece, in the order of
    /// [`Position::pseudo_legal_quiets`]. For callers that score moves as
    /// they are generated.
    #[inline]
    pub fn visit_quiets(&self, visitor: &mut impl QuietVisitor) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        for from in bits(board.by_color[us.index()]) {
            let role = role_of(sq[from]);
            visitor.piece(Piece::new(us, role), Square::from_index_unchecked(from));
            match role {
                Role::King | Role::Advisor | Role::Pawn => {
                    let targets = step_targets(role, us, from);
                    for &to in targets {
                        if sq[to as usize] == 0 {
                            visitor.quiet(Move::from_raw(from, to as usize));
                        }
                    }
                }
                Role::Elephant | Role::Horse => {
                    let targets = legged_targets(role, from);
                    for &(to, blocker) in targets {
                        if sq[blocker as usize] == 0 && sq[to as usize] == 0 {
                            visitor.quiet(Move::from_raw(from, to as usize));
                        }
                    }
                }
                Role::Rook | Role::Cannon => {
                    let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                    let rank = RANK_SLIDES[f][board.ranks[r] as usize].quiet;
                    let file = FILE_SLIDES[r][board.files[f] as usize].quiet;
                    for t in bits16(rank) {
                        visitor.quiet(Move::from_raw(from, r * 9 + t));
                    }
                    for t in bits16(file) {
                        visitor.quiet(Move::from_raw(from, t * 9 + f));
                    }
                }
            }
        }
    }

    fn generate<const CAPTURES: bool, const QUIETS: bool>(&self, list: &mut MoveList) {
        self.generate_from::<CAPTURES, QUIETS>(self.board.by_color[self.turn.index()], list);
    }

    /// The moves of the pieces in `movers` (the side to move's), in square order.
    fn generate_from<const CAPTURES: bool, const QUIETS: bool>(
        &self,
        movers: u128,
        list: &mut MoveList,
    ) {
        let us = self.turn;
        let board = &self.board;
        let sq = &board.squares;
        let enemy = |c: Code| is_enemy(c, us);
        // A step to `to`: quiet if empty, a capture if an enemy stands there.
        let step = |list: &mut MoveList, from: usize, to: usize| {
            let c = sq[to];
            if (QUIETS && c == 0) || (CAPTURES && enemy(c)) {
                list.push(Move::from_raw(from, to));
            }
        };
        for from in bits(movers) {
            let role = role_of(sq[from]);
            match role {
                Role::King | Role::Advisor | Role::Pawn => {
                    let targets = step_targets(role, us, from);
                    for &to in targets {
                        step(list, from, to as usize);
                    }
                }
                Role::Elephant | Role::Horse => {
                    let targets = legged_targets(role, from);
                    for &(to, blocker) in targets {
                        if sq[blocker as usize] == 0 {
                            step(list, from, to as usize);
                        }
                    }
                }
                Role::Rook | Role::Cannon => {
                    let (r, f) = (RANK_OF[from] as usize, FILE_OF[from] as usize);
                    let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
                    let file = &FILE_SLIDES[r][board.files[f] as usize];
                    if CAPTURES {
                        let (on_rank, on_file) = if role == Role::Rook {
                            (rank.rook, file.rook)
                        } else {
                            (rank.cannon, file.cannon)
                        };
                        for t in bits16(on_rank) {
                            if enemy(sq[r * 9 + t]) {
                                list.push(Move::from_raw(from, r * 9 + t));
                            }
                        }
                        for t in bits16(on_file) {
                            if enemy(sq[t * 9 + f]) {
                                list.push(Move::from_raw(from, t * 9 + f));
                            }
                        }
                    }
                    if QUIETS {
                        for t in bits16(rank.quiet) {
                            list.push(Move::from_raw(from, r * 9 + t));
                        }
                        for t in bits16(file.quiet) {
                            list.push(Move::from_raw(from, t * 9 + f));
                        }
                    }
                }
            }
        }
    }

    /// The side to move's pieces with an enemy piece in reach (blockers
    /// aside): every rook and cannon, and the stepping pieces with an enemy
    /// on one of their targets. A piece outside this set has no capture.
    #[inline]
    fn capture_candidates(&self) -> u128 {
        let us = self.turn;
        let board = &self.board;
        let them = board.by_color[(!us).index()];
        let [k, a, e, h, r, c, p] = codes(us);
        let pieces = |code: Code| board.by_piece[code as usize - 1];
        let mut candidates = pieces(r) | pieces(c);
        // Pawns, all at once: an enemy straight ahead or, across the river, beside.
        let beside = ((them << 1) & !FILE_BB_A) | ((them >> 1) & !FILE_BB_I);
        let pawns = pieces(p);
        candidates |= match us {
            Color::Red => pawns & ((them >> 9) | (beside & BLACK_HALF)),
            Color::Black => pawns & ((them << 9) | (beside & RED_HALF)),
        };
        for from in bits(pieces(h)) {
            // Horse moves go both ways: the squares it attacks from reach it.
            if HORSE_REACH[from] & them != 0 {
                candidates |= BIT[from];
            }
        }
        // Kings and advisors never leave their palace, elephants their half.
        let home = match us {
            Color::Red => RED_HALF,
            Color::Black => BLACK_HALF,
        };
        if them & home != 0 {
            for from in bits(pieces(e)) {
                if ELEPHANT_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
            for from in bits(pieces(a)) {
                if ADVISOR_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
            for from in bits(pieces(k)) {
                if KING_REACH[from] & them != 0 {
                    candidates |= BIT[from];
                }
            }
        }
        candidates
    }

    /// Whether `m` is pseudo-legal here: the side to move's piece moving by
    /// its rules to a square not holding its own piece. Cheap enough to vet
    /// moves from a hash table or killer slot before playing them.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        let sq = &self.board.squares;
        let (moving, target) = (sq[from], sq[to]);
        if moving == 0 || code_color(moving) != self.turn || from == to {
            return false;
        }
        let capture = target != 0;
        if capture && !is_enemy(target, self.turn) {
            return false;
        }
        let free = |s: u8| sq[s as usize] == 0;
        match role_of(moving) {
            Role::King => KING_STEPS[from].as_slice().contains(&(to as u8)),
            Role::Advisor => ADVISOR_STEPS[from].as_slice().contains(&(to as u8)),
            Role::Pawn => PAWN_STEPS[self.turn.index()][from]
                .as_slice()
                .contains(&(to as u8)),
            Role::Elephant => ELEPHANT_STEPS[from]
                .as_slice()
                .iter()
                .any(|&(t, eye)| t as usize == to && free(eye)),
            Role::Horse => HORSE_STEPS[from]
                .as_slice()
                .iter()
                .any(|&(t, leg)| t as usize == to && free(leg)),
            role => {
                let (fr, ff, tr, tf) = (RANK_OF[from], FILE_OF[from], RANK_OF[to], FILE_OF[to]);
                let (slide, point) = if fr == tr {
                    (
                        &RANK_SLIDES[ff as usize][self.board.ranks[fr as usize] as usize],
                        tf,
                    )
                } else if ff == tf {
                    (
                        &FILE_SLIDES[fr as usize][self.board.files[ff as usize] as usize],
                        tr,
                    )
                } else {
                    return false;
                };
                let targets = match (role, capture) {
                    (_, false) => slide.quiet,
                    (Role::Rook, true) => slide.rook,
                    _ => slide.cannon,
                };
                targets & (1 << point) != 0
            }
        }
    }

    /// Whether a pseudo-legal move keeps the own king safe (not attacked, not
    /// facing the other king), which makes it legal.
    #[inline]
    pub fn keeps_king_safe(&self, m: Move) -> bool {
        self.is_legal_filtered(&self.move_filter(), m)
    }

    /// Masks that let most moves of this position skip the exact legality
    /// test; compute once per position, use for all its moves.
    ///
    /// Vacating a square of the king's rank or file matters only with a
    /// rook, cannon or king of the other side on that line; landing on one
    /// only with a cannon there (a new screen); vacating a square diagonally
    /// next to the king only with a horse that could use it as its leg.
    pub fn move_filter(&self) -> MoveFilter {
        let us = self.turn;
        let own_king = self.kings[us.index()];
        // In check, a move touching none of the evasion squares is
        // illegal; otherwise, one touching none of the hazards is legal.
        let (from, to) = if self.in_check {
            self.evasion_squares(own_king, !us)
        } else {
            self.line_hazards(own_king, !us)
        };
        let from = from | BIT[own_king];
        MoveFilter {
            from: halves(from),
            to: halves(to),
            in_check: self.in_check,
        }
    }

    /// The masks that settle [`Position::gives_check`] for this position's
    /// moves, but for those along a line of the enemy king; compute once
    /// per position, use for all its moves.
    pub fn check_filter(&self) -> CheckFilter {
        let us = self.turn;
        let king = self.kings[(!us).index()];
        let b = &self.board;
        let sq = &b.squares;
        let [k, _, _, horse, rook, cannon, _] = codes(us);
        let mut discovers = 0;
        let mut horse_checks = 0;
        if b.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
                if sq[h as usize] == horse {
                    discovers |= BIT[leg as usize];
                }
            }
        }
        for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
            if sq[leg as usize] == 0 {
                horse_checks |= BIT[h as usize];
            }
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        // The kings never share a rank: the own king counts as a rook on both lines.
        let rook_like = |c: Code| c == rook || c == k;
        let rank = line_checks(&RANK_SLIDES[kf], b.ranks[kr], kf, cannon, rook_like, |x| {
            sq[kr * 9 + x]
        });
        let file = line_checks(&FILE_SLIDES[kr], b.files[kf], kr, cannon, rook_like, |x| {
            sq[x * 9 + kf]
        });
        let on_board = |i: usize| rank_points(rank[i], kr) | file_points(file[i], kf);
        let (direct, screened, screen) = (on_board(0), on_board(1), on_board(2));
        discovers |= on_board(3);
        let mut landing = [screen; 7];
        landing[Role::King.index()] |= direct;
        landing[Role::Rook.index()] |= direct;
        landing[Role::Cannon.index()] |= screened;
        landing[Role::Horse.index()] |= horse_checks;
        landing[Role::Pawn.index()] |= PAWN_REACH[us.index()][king];
        CheckFilter {
            king,
            king_rank: kr as u8,
            king_file: kf as u8,
            discovers,
            landing,
            from_any: halves(discovers | RANK_BB[kr] | FILE_BB[kf]),
            landing_any: halves(
                screen | direct | screened | horse_checks | PAWN_REACH[us.index()][king],
            ),
        }
    }

    /// For a king in check on `king`: the squares a legal evasion may leave
    /// (a cannon's screen) and those it may land on (a checker, or a square
    /// between a rook or cannon and the king, or a checking horse's leg).
    /// Every legal move that is not a king move leaves or lands on one.
    fn evasion_squares(&self, king: usize, by: Color) -> (u128, u128) {
        let b = &self.board;
        let sq = &b.squares;
        let [k, _, _, horse, rook, cannon, pawn] = codes(by);
        let (mut from, mut to) = (0u128, 0u128);
        for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
            if sq[h as usize] == horse && sq[leg as usize] == 0 {
                to |= BIT[h as usize] | BIT[leg as usize];
            }
        }
        for &p in PAWN_ATTACKERS[by.index()][king].as_slice() {
            if sq[p as usize] == pawn {
                to |= BIT[p as usize];
            }
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        let rank = &RANK_SLIDES[kf][b.ranks[kr] as usize];
        let file = &FILE_SLIDES[kr][b.files[kf] as usize];
        let lines = [
            (rank.rook, rank.cannon, kr * 9, 1usize),
            (file.rook, file.cannon, kf, 9usize),
        ];
        for (direct, screened, base, step) in lines {
            let at = |point: usize| base + point * step;
            // The squares from the king (excluded) to `s` (included) on this line.
            let path = |s: usize| {
                let (lo, hi) = if s < king { (s, king) } else { (king, s) };
                (lo..hi + 1)
                    .step_by(step)
                    .filter(|&x| x != king)
                    .fold(0u128, |bb, x| bb | BIT[x])
            };
            for point in bits16(direct) {
                let s = at(point);
                if sq[s] == rook || sq[s] == k {
                    to |= path(s);
                }
            }
            for point in bits16(screened) {
                let s = at(point);
                if sq[s] == cannon {
                    let between = path(s) & !BIT[s];
                    to |= path(s);
                    from |= between & b.occupied();
                }
            }
        }
        (from, to)
    }

    /// The squares whose vacating, and those whose occupying, could change
    /// whether `by` attacks the king on `king`.
    fn line_hazards(&self, king: usize, by: Color) -> (u128, u128) {
        let b = &self.board;
        let [k, _, _, horse, rook, cannon, _] = codes(by);
        let cannons = b.by_piece[cannon as usize - 1];
        let sliders = b.by_piece[rook as usize - 1] | cannons | b.by_piece[k as usize - 1];
        let rank = RANK_BB[RANK_OF[king] as usize];
        let file = FILE_BB[FILE_OF[king] as usize];
        let mut from = 0;
        let mut to = 0;
        if sliders & rank != 0 {
            from |= rank;
        }
        if sliders & file != 0 {
            from |= file;
        }
        if cannons & rank != 0 {
            to |= rank;
        }
        if cannons & file != 0 {
            to |= file;
        }
        if b.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            from |= KING_SENSITIVE[king] & !LINES[king];
        }
        (from, to)
    }

    /// [`Position::keeps_king_safe`] with this position's [`MoveFilter`].
    #[inline]
    pub fn is_legal_filtered(&self, filter: &MoveFilter, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        if !in_halves(&filter.from, from) && !in_halves(&filter.to, to) {
            return !filter.in_check;
        }
        !self.king_attacked_after(from, to)
    }

    /// Whether the side to move's king would be attacked after moving the
    /// piece on `from` to `to`.
    #[inline]
    fn king_attacked_after(&self, from: usize, to: usize) -> bool {
        let own_king = self.kings[self.turn.index()];
        let king = if from == own_king { to } else { own_king };
        self.attacked_after(king, !self.turn, from, to)
    }

    /// Whether pseudo-legal move `m` checks the opponent's king: directly,
    /// by uncovering a rook or cannon, or by becoming a cannon's screen.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_filtered(&self.check_filter(), m)
    }

    /// [`Position::gives_check`] with this position's [`CheckFilter`].
    ///
    /// The enemy king is not in check now. A move that does not run along
    /// one of its lines changes at most one line by leaving `from` (or
    /// frees a horse's leg) and at most the other by landing on `to`: each
    /// can be judged on the board as it stands.
    #[inline]
    pub fn gives_check_filtered(&self, filter: &CheckFilter, m: Move) -> bool {
        let (from, to) = (m.from().index(), m.to().index());
        let king = filter.king;
        let (kr, kf) = (filter.king_rank, filter.king_file);
        let along_rank = RANK_OF[from] == kr && RANK_OF[to] == kr;
        if along_rank || (FILE_OF[from] == kf && FILE_OF[to] == kf) {
            return self.line_move_checks(king, from, to, along_rank);
        }
        let role = role_of(self.board.squares[from]);
        (filter.discovers & BIT[from]) | (filter.landing[role.index()] & BIT[to]) != 0
    }

    /// [`Position::gives_check_filtered`] for a move from `from` to `to`
    /// along the enemy king's rank (`along_rank`) or file. Such a move
    /// changes only that line: horse legs are diagonal to the king, and the
    /// other line is untouched. So it checks as a pawn stepping next to the
    /// king, or by the line recomputed with `from` empty and `to` taken.
    fn line_move_checks(&self, king: usize, from: usize, to: usize, along_rank: bool) -> bool {
        let us = self.turn;
        let sq = &self.board.squares;
        let moving = sq[from];
        let [k, _, _, _, rook, cannon, pawn] = codes(us);
        if moving == pawn && PAWN_REACH[us.index()][king] & BIT[to] != 0 {
            return true;
        }
        // `from` is off the line's occupancy, so never read.
        let code_at = |s: usize| if s == to { moving } else { sq[s] };
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        if along_rank {
            let occ = self.board.ranks[kr] & !(1 << FILE_OF[from]) | 1 << FILE_OF[to];
            let line = &RANK_SLIDES[kf][occ as usize];
            // The kings never share a rank.
            bits16(line.rook).any(|x| code_at(kr * 9 + x) == rook)
                || bits16(line.cannon).any(|x| code_at(kr * 9 + x) == cannon)
        } else {
            let occ = self.board.files[kf] & !(1 << RANK_OF[from]) | 1 << RANK_OF[to];
            let line = &FILE_SLIDES[kr][occ as usize];
            // The own king counts as a rook on the file.
            bits16(line.rook).any(|x| matches!(code_at(x * 9 + kf), c if c == rook || c == k))
                || bits16(line.cannon).any(|x| code_at(x * 9 + kf) == cannon)
        }
    }

    /// Whether `by` would attack the square `king` after the piece on `from`
    /// moved to `to`, worked out without changing the board: the target's
    /// rank and file occupancy are adjusted and the two squares read as they
    /// would be.
    fn attacked_after(&self, king: usize, by: Color, from: usize, to: usize) -> bool {
        let board = &self.board;
        let moving = board.squares[from];
        let at = |s: usize| -> Code {
            if s == to {
                moving
            } else if s == from {
                0
            } else {
                board.squares[s]
            }
        };
        let [k, _, _, horse, rook, cannon, pawn] = codes(by);
        // Only horses already within reach, or the one moving, can attack.
        if moving == horse || board.by_piece[horse as usize - 1] & HORSE_REACH[king] != 0 {
            for &(h, leg) in HORSE_ATTACKERS[king].as_slice() {
                if at(h as usize) == horse && at(leg as usize) == 0 {
                    return true;
                }
            }
        }
        let pieces = |c: Code| board.by_piece[c as usize - 1];
        // Only pawns already next to the king, or the one moving, can attack.
        if moving == pawn || pieces(pawn) & PAWN_REACH[by.index()][king] != 0 {
            for &p in PAWN_ATTACKERS[by.index()][king].as_slice() {
                if at(p as usize) == pawn {
                    return true;
                }
            }
        }
        // Only a line holding a rook, cannon or king of `by`, before or
        // after the move, can carry an attack.
        let mut sliders = pieces(rook) | pieces(cannon) | pieces(k);
        if moving == rook || moving == cannon || moving == k {
            sliders |= BIT[to];
        }
        if sliders & LINES[king] == 0 {
            return false;
        }
        let (kr, kf) = (RANK_OF[king] as usize, FILE_OF[king] as usize);
        let mut rank_occ = board.ranks[kr];
        let mut file_occ = board.files[kf];
        if RANK_OF[from] as usize == kr {
            rank_occ &= !(1 << FILE_OF[from]);
        }
        if FILE_OF[from] as usize == kf {
            file_occ &= !(1 << RANK_OF[from]);
        }
        if RANK_OF[to] as usize == kr {
            rank_occ |= 1 << FILE_OF[to];
        }
        if FILE_OF[to] as usize == kf {
            file_occ |= 1 << RANK_OF[to];
        }
        let rank = &RANK_SLIDES[kf][rank_occ as usize];
        let file = &FILE_SLIDES[kr][file_occ as usize];
        // The pieces these slides reach stand on occupied points of the
        // adjusted lines, which never include `from`.
        let at = |s: usize| -> Code {
            if s == to {
                moving
            } else {
                board.squares[s]
            }
        };
        bits16(rank.rook).any(|t| at(kr * 9 + t) == rook)
            || bits16(file.rook).any(|t| matches!(at(t * 9 + kf), c if c == rook || c == k))
            || bits16(rank.cannon).any(|t| at(kr * 9 + t) == cannon)
            || bits16(file.cannon).any(|t| at(t * 9 + kf) == cannon)
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.pseudo_legal_moves(&mut list);
        let filter = self.move_filter();
        list.retain(|m| self.is_legal_filtered(&filter, m));
        list
    }

    /// Whether `m` is legal here (any move, not only a generated one).
    pub fn is_legal(&self, m: Move) -> bool {
        self.check_move(m).is_ok()
    }

    /// Resolves a move parsed without a position, or says why it is illegal.
    pub fn resolve(&self, m: IccsMove) -> Result<Move, IllegalMove> {
        let mv = Move::new(m.from, m.to);
        self.check_move(mv).map(|()| mv)
    }

    /// Parses an ICCS move (`h2e2`, `H2-E2`) and resolves it.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let iccs: IccsMove = text.parse()?;
        Ok(self.resolve(iccs)?)
    }

    fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        let text = || mv.to_string();
        let piece = self
            .board
            .piece_at(mv.from())
            .ok_or_else(|| IllegalMove::NoPiece {
                mv: text(),
                square: mv.from(),
            })?;
        if piece.color != self.turn {
            return Err(IllegalMove::NotYourPiece {
                mv: text(),
                square: mv.from(),
            });
        }
        let mut list = MoveList::new();
        self.pseudo_legal_moves(&mut list);
        if !list.contains(&mv) {
            return Err(IllegalMove::CannotMoveThere {
                mv: text(),
                role: piece.role,
            });
        }
        if self.keeps_king_safe(mv) {
            return Ok(());
        }
        let mut after = self.clone();
        after.make_move(mv);
        if after.kings_face() {
            Err(IllegalMove::KingsWouldFace { mv: text() })
        } else {
            Err(IllegalMove::LeavesKingInCheck { mv: text() })
        }
    }

    /// Whether the side to move has no legal move (it has lost: checkmate or stalemate).
    pub fn is_lost(&self) -> bool {
        let mut list = MoveList::new();
        self.pseudo_legal_moves(&mut list);
        let filter = self.move_filter();
        !list.iter().any(|&m| self.is_legal_filtered(&filter, m))
    }

    // ---- make / unmake ----------------------------------------------------

    /// The Zobrist key after the legal move `m`, without playing it: lets
    /// a search fetch the child's table entry while it still works here.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let (from, to) = (m.from().index(), m.to().index());
        let sq = &self.board.squares;
        let moving = sq[from];
        debug_assert!(moving != 0, "a legal move moves a piece");
        // An empty target's key is 0: captures and quiet moves alike.
        self.key
            ^ zobrist::side_key(Color::Black)
            ^ zobrist::code_key(moving, from)
            ^ zobrist::code_key(moving, to)
            ^ zobrist::code_key(sq[to], to)
    }

    /// Plays a legal move (as generated or resolved; anything else corrupts the position).
    ///
    /// [`Position::in_check`] after the move is exact when the side not to
    /// move was not in check before it, as in every position reached by legal
    /// moves; after an illegal move, it may be wrong for the next one.
    pub fn make_move(&mut self, m: Move) {
        let (from, to) = (m.from().index(), m.to().index());
        let moving = self.board.squares[from];
        let captured = self.board.squares[to];
        debug_assert!(moving != 0 && code_color(moving) == self.turn);
        // Whether the side not to move is in check: never, in a position reached
        // by legal moves; the in-check test below relies on it.
        #[cfg(debug_assertions)]
        let corrupt = self.king_attacked(!self.turn);
        self.history.push(Undo {
            mv: m,
            captured,
            key: self.key,
            in_check: self.in_check,
            plies_since_capture: self.plies_since_capture,
        });
        let us = self.turn.index();
        let moving_idx = moving as usize - 1;
        self.key ^= zobrist::piece_key_raw(moving_idx, from)
            ^ zobrist::piece_key_raw(moving_idx, to)
            ^ zobrist::side_key(Color::Black);
        if captured != 0 {
            self.key ^= zobrist::piece_key_raw(captured as usize - 1, to);
            self.board.toggle(to, captured);
            self.plies_since_capture = 0;
        }
        self.board.shift(from, to, moving);
        if captured == 0 {
            self.plies_since_capture += 1;
        }
        if self.kings[us] == from {
            self.kings[us] = to;
        }
        self.turn = !self.turn;
        // The king of the side now to move was not attacked before the move
        // (the position was legal): only a move landing where it can attack
        // it or stand on its lines, or one leaving its lines or a horse's
        // leg next to it, can check it.
        let king = self.kings[1 - us];
        self.in_check = (has_square(KING_SENSITIVE[king], from)
            | has_square(CHECK_LANDINGS[us][king], to))
            && square_attacked(&self.board, king, !self.turn);
        #[cfg(debug_assertions)]
        debug_assert!(corrupt || self.in_check == self.king_attacked(self.turn));
    }

    /// Takes back the last move. Does nothing when no move was played.
    pub fn unmake_move(&mut self) {
        let Some(u) = self.history.pop() else { return };
        let (from, to) = (u.mv.from().index(), u.mv.to().index());
        self.turn = !self.turn;
        let us = self.turn.index();
        let moving = self.board.squares[to];
        self.board.shift(to, from, moving);
        if u.captured != 0 {
            self.board.toggle(to, u.captured);
        }
        if self.kings[us] == to {
            self.kings[us] = from;
        }
        self.key = u.key;
        self.in_check = u.in_check;
        self.plies_since_capture = u.plies_since_capture;
    }

    /// Passes the turn (for null-move pruning in search). The side to move must
    /// not be in check. Repetition detection does not look past a null move.
    pub fn make_null_move(&mut self) {
        debug_assert!(!self.in_check);
        self.history.push(Undo {
            mv: Move::NULL,
            captured: 0,
            key: self.key,
            in_check: self.in_check,
            plies_since_capture: self.plies_since_capture,
        });
        self.key ^= zobrist::side_key(Color::Black);
        self.turn = !self.turn;
        self.plies_since_capture = 0;
        self.in_check = false;
    }

    /// Takes back [`Position::make_null_move`].
    pub fn unmake_null_move(&mut self) {
        let u = self.history.pop().expect("a null move to take back");
        debug_assert!(u.mv == Move::NULL);
        self.turn = !self.turn;
        self.key = u.key;
        self.in_check = u.in_check;
        self.plies_since_capture = u.plies_since_capture;
    }

    /// The move that would be taken back by [`Position::unmake_move`].
    pub fn last_move(&self) -> Option<Move> {
        self.history.last().map(|u| u.mv)
    }

    /// The piece captured by the last move, if any.
    pub fn last_captured(&self) -> Option<Piece> {
        match self.history.last()?.captured {
            0 => None,
            c => Some(Piece::from_index(c as usize - 1)),
        }
    }

    // ---- repetition -------------------------------------------------------

    /// Key and in-check flag of the position `back` plies ago (0 = now).
    fn past(&self, back: usize) -> (u64, bool) {
        if back == 0 {
            (self.key, self.in_check)
        } else {
            let u = &self.history[self.history.len() - back];
            (u.key, u.in_check)
        }
    }

    /// The most recent earlier occurrence of the current position since the
    /// last capture, with the kind of the cycle that led back to it.
    pub fn repetition(&self) -> Option<Repetition> {
        let reach = (self.plies_since_capture as usize).min(self.history.len());
        // Every node asks, and the answer is nearly always no: a plain loop
        // over the keys 4, 6, .. plies back, not a stepped range.
        let since_capture = &self.history[self.history.len() - reach..];
        let mut plies = 4;
        loop {
            if plies > reach {
                return None;
            }
            // `plies` back is `since_capture[reach - plies]`.
            if since_capture[reach - plies].key == self.key {
                break;
            }
            plies += 2;
        }
        // The positions 0, 2, .. plies ago were reached by the opponent's moves,
        // those 1, 3, .. ago by ours; a move gave check if the side to move in
        // the position it reached was in check.
        let checked_every = |first: usize| (first..plies).step_by(2).all(|b| self.past(b).1);
        let them_checked = checked_every(0);
        let us_checked = checked_every(1);
        let kind = match (us_checked, them_checked) {
            (true, true) => RepetitionKind::MutualCheck,
            (true, false) => RepetitionKind::PerpetualCheck { by: self.turn },
            (false, true) => RepetitionKind::PerpetualCheck { by: !self.turn },
            // Only now, with a cycle found and no side checking throughout,
            // are the cycle's attacks looked at.
            (false, false) => self.chase_kind(plies),
        };
        Some(Repetition { kind, plies })
    }

    /// The kind of a cycle of the last `plies` plies in which no side
    /// checked on every move: who, if anyone, chased throughout.
    fn chase_kind(&self, plies: usize) -> RepetitionKind {
        let cycle = &self.history[self.history.len() - plies..];
        // No move of the cycle captures: undo them on a copy of the board.
        let mut start = self.board.clone();
        for u in cycle.iter().rev() {
            let (from, to) = (u.mv.from().index(), u.mv.to().index());
            let code = start.squares[to];
            start.shift(to, from, code);
        }
        let moves: Vec<chase::CycleMove> = (0..plies)
            .map(|k| chase::CycleMove {
                mv: cycle[k].mv,
                check: self.past(plies - 1 - k).1,
            })
            .collect();
        let [red, black] = chase::levels(&start, &moves);
        match red.cmp(&black) {
            std::cmp::Ordering::Equal if red == chase::Level::Idle => RepetitionKind::Idle,
            std::cmp::Ordering::Equal => RepetitionKind::MutualChase,
            std::cmp::Ordering::Greater => RepetitionKind::PerpetualChase { by: Color::Red },
            std::cmp::Ordering::Less => RepetitionKind::PerpetualChase { by: Color::Black },
        }
    }

    /// Whether the rules end the game here, and how: no legal move, then a
    /// repetition at the `rules.occurrences`-th occurrence of the position
    /// (ruled by [`Repetition::outcome`]), then the natural-move limit.
    pub fn outcome(&self, rules: &EndRules) -> Option<Outcome> {
        if self.is_lost() {
            return Some(Outcome::NoLegalMove { loser: self.turn });
        }
        if self.repetition_count() >= rules.occurrences.max(2) {
            if let Some(repetition) = self.repetition() {
                return Some(repetition.outcome());
            }
        }
        (self.plies_since_capture >= rules.natural_move_limit).then_some(Outcome::NaturalMoveLimit)
    }

    /// How many times the current position has occurred since the last
    /// capture, this time included.
    pub fn repetition_count(&self) -> usize {
        let reach = (self.plies_since_capture as usize).min(self.history.len());
        1 + (4..=reach)
            .step_by(2)
            .filter(|&d| self.past(d).0 == self.key)
            .count()
    }
}

/// The squares a king, advisor or pawn of `us` on `from` steps to.
#[inline]
fn step_targets(role: Role, us: Color, from: usize) -> &'static [u8] {
    match role {
        Role::King => KING_STEPS[from].as_slice(),
        Role::Advisor => ADVISOR_STEPS[from].as_slice(),
        _ => PAWN_STEPS[us.index()][from].as_slice(),
    }
}

/// The targets of a horse or elephant on `from`, each with the square
/// (leg or eye) that must be empty.
#[inline]
fn legged_targets(role: Role, from: usize) -> &'static [(u8, u8)] {
    if role == Role::Horse {
        HORSE_STEPS[from].as_slice()
    } else {
        ELEPHANT_STEPS[from].as_slice()
    }
}

/// Checks that a piece stands on a square it could have reached in a game.
fn check_placement(piece: Piece, square: Square) -> Result<(), PositionError> {
    let file = square.file() as i32;
    let own_rank = match piece.color {
        Color::Red => square.rank() as i32,
        Color::Black => 9 - square.rank() as i32,
    };
    match piece.role {
        Role::King if !square.in_palace(piece.color) => {
            Err(PositionError::OutsidePalace { piece, square })
        }
        Role::Advisor if !square.in_palace(piece.color) => {
            Err(PositionError::OutsidePalace { piece, square })
        }
        Role::Advisor if (file + own_rank) % 2 == 0 => {
            Err(PositionError::AdvisorOffPoints { piece, square })
        }
        Role::Elephant
            if own_rank > 4
                || own_rank % 2 == 1
                || file % 2 == 1
                || (own_rank / 2 + file / 2) % 2 == 0 =>
        {
            Err(PositionError::ElephantOffPoints { piece, square })
        }
        Role::Pawn if own_rank < 3 => Err(PositionError::PawnBehindStart { piece, square }),
        Role::Pawn if own_rank <= 4 && file % 2 == 1 => {
            Err(PositionError::PawnUnreachable { piece, square })
        }
        _ => Ok(()),
    }
}

/// Receives the quiet moves of [`Position::visit_quiets`], piece by piece.
pub trait QuietVisitor {
    /// The moves that follow, up to the next call, are made by `piece`
    /// from `from`.
    fn piece(&mut self, piece: Piece, from: Square);
    /// A quiet move of the piece last announced.
    fn quiet(&mut self, m: Move);
}

/// Receives the captures of [`Position::visit_captures`], piece by piece.
pub trait CaptureVisitor {
    /// The captures that follow, up to the next call, are made by `piece`
    /// from `from`.
    fn piece(&mut self, piece: Piece, from: Square);
    /// A capture of a `victim` by the piece last announced.
    fn capture(&mut self, m: Move, victim: Role);
}

impl CaptureVisitor for MoveList {
    #[inline]
    fn piece(&mut self, _: Piece, _: Square) {}

    #[inline]
    fn capture(&mut self, m: Move, _: Role) {
        self.push(m);
    }
}

impl QuietVisitor for MoveList {
    #[inline]
    fn piece(&mut self, _: Piece, _: Square) {}

    #[inline]
    fn quiet(&mut self, m: Move) {
        self.push(m);
    }
}

/// Iterates the set bits of a line's occupancy as point indices.
#[inline]
pub(crate) fn bits16(mut b: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(i)
        }
    })
}

/// Whether bitboard `bb` holds the square with index `sq`: a shift, where
/// a test against `BIT[sq]` reads a 128-bit constant.
#[inline]
fn has_square(bb: u128, sq: usize) -> bool {
    (bb >> sq) & 1 != 0
}

/// A bitboard's low and high 64 bits.
#[inline]
fn halves(b: u128) -> [u64; 2] {
    [b as u64, (b >> 64) as u64]
}

/// What landing on, or leaving, the points of one line of a king does (see
/// [`CheckFilter`]), for the side with `cannon` and the rook-like pieces:
/// the points with nothing between them and the king, those with one piece
/// between, those that would screen a cannon, and those whose vacating
/// uncovers a rook or cannon. `slides` are the line's slide tables from the
/// king's point, `code_at` reads the line.
#[inline]
fn line_checks(
    slides: &[Slide],
    occ: u16,
    point: usize,
    cannon: Code,
    rook_like: impl Fn(Code) -> bool,
    code_at: impl Fn(usize) -> Code,
) -> [u16; 4] {
    let s = &slides[occ as usize];
    // The second pieces each way once the first are gone: the third.
    let third = slides[(occ & !s.rook) as usize].cannon;
    let (mut screen, mut discovers) = (0, 0);
    let below = (1u16 << point) - 1;
    for side in [below, !below] {
        let first = s.rook & side;
        if first == 0 {
            continue;
        }
        let (second, beyond) = (s.cannon & side, third & side);
        let at = |points: u16| code_at(points.trailing_zeros() as usize);
        if at(first) == cannon {
            screen |= s.quiet & side;
        }
        if second != 0 && rook_like(at(second)) {
            discovers |= first;
        }
        if beyond != 0 && at(beyond) == cannon {
            discovers |= first | second;
        }
    }
    [s.quiet | s.rook, s.over, screen, discovers]
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The move generator looking at every piece of the side to move, as it
    /// did before the capture candidates (a reference for the move order).
    fn generate_slow<const CAPTURES: bool, const QUIETS: bool>(
        pos: &Position,
        list: &mut MoveList,
    ) {
        pos.generate_from::<CAPTURES, QUIETS>(pos.board.by_color[pos.turn.index()], list);
    }

    /// `attacked_after` found independently: the move played on a copy of
    /// the board, then each attacking piece's attack set from
    /// [`crate::attacks`]; a king attacks along its file (the kings may not
    /// face each other).
    fn attacked_after_reference(
        pos: &Position,
        king: usize,
        by: Color,
        from: usize,
        to: usize,
    ) -> bool {
        let sq = |s: usize| Square::from_index(s).expect("on the board");
        let mut board = pos.board.clone();
        let moving = board.piece_at(sq(from));
        board.set(sq(from), None);
        board.set(sq(to), moving);
        let target = BIT[king];
        let of = |role| board.squares_of(Piece::new(by, role));
        of(Role::Rook).any(|s| board.rook_attacks(s) & target != 0)
            || of(Role::Cannon).any(|s| board.cannon_attacks(s) & target != 0)
            || of(Role::Horse).any(|s| board.horse_attacks(s) & target != 0)
            || of(Role::Pawn).any(|s| crate::attacks::pawn_attacks(by, s) & target != 0)
            || of(Role::King)
                .any(|s| FILE_OF[s.index()] == FILE_OF[king] && board.rook_attacks(s) & target != 0)
    }

    #[test]
    fn attacked_after_matches_its_reference() {
        for pos in random_positions(40, 150) {
            let mut list = MoveList::new();
            pos.pseudo_legal_moves(&mut list);
            for &m in list.iter() {
                let (from, to) = (m.from().index(), m.to().index());
                for by in Color::ALL {
                    for target in pos.kings.iter().map(|&k| if k == from { to } else { k }) {
                        assert_eq!(
                            pos.attacked_after(target, by, from, to),
                            attacked_after_reference(&pos, target, by, from, to),
                            "{target} by {by:?} after {m} in {}",
                            pos.fen()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn in_check_after_every_legal_move_is_exact() {
        for mut pos in random_positions(40, 150) {
            for m in pos.legal_moves().iter().copied() {
                pos.make_move(m);
                assert_eq!(
                    pos.in_check(),
                    pos.king_attacked(pos.turn()),
                    "after {m} in {}",
                    pos.fen()
                );
                pos.unmake_move();
            }
        }
    }

    #[test]
    fn key_after_is_the_key_the_move_makes() {
        for mut pos in random_positions(40, 150) {
            for m in pos.legal_moves().iter().copied() {
                let predicted = pos.key_after(m);
                pos.make_move(m);
                assert_eq!(predicted, pos.key(), "after {m} in {}", pos.fen());
                pos.unmake_move();
            }
        }
    }

    #[test]
    fn move_generation_keeps_its_order() {
        for pos in random_positions(40, 150) {
            for mirrored in [false, true] {
                let pos = if mirrored { pos.mirror() } else { pos.clone() };
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_captures(&mut fast);
                generate_slow::<true, false>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "captures in {}", pos.fen());
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_quiets(&mut fast);
                generate_slow::<false, true>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "quiets in {}", pos.fen());
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                pos.pseudo_legal_moves(&mut fast);
                generate_slow::<true, true>(&pos, &mut slow);
                assert_eq!(&fast[..], &slow[..], "moves in {}", pos.fen());
            }
        }
    }

    // The square-by-square version the bitboard test replaced, kept as a reference.
    /// Whether `target` is attacked by `by`'s rooks, cannons, horses, pawns or king
    /// (the king only along an open file: the facing rule). Advisors and elephants
    /// never reach the other side's palace, so they are not looked at: this is
    /// meant for king squares.
    fn square_attacked_slow(board: &Board, target: usize, by: Color) -> bool {
        let sq = &board.squares;
        let [king, _, _, horse, rook, cannon, pawn] = codes(by);
        if board.by_piece[horse as usize - 1] & HORSE_REACH[target] != 0 {
            for &(h, leg) in HORSE_ATTACKERS[target].as_slice() {
                if sq[h as usize] == horse && sq[leg as usize] == 0 {
                    return true;
                }
            }
        }
        for &p in PAWN_ATTACKERS[by.index()][target].as_slice() {
            if sq[p as usize] == pawn {
                return true;
            }
        }
        let (r, f) = (RANK_OF[target] as usize, FILE_OF[target] as usize);
        let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
        let file = &FILE_SLIDES[r][board.files[f] as usize];
        bits16(rank.rook).any(|t| sq[r * 9 + t] == rook)
            || bits16(file.rook).any(|t| matches!(sq[t * 9 + f], c if c == rook || c == king))
            || bits16(rank.cannon).any(|t| sq[r * 9 + t] == cannon)
            || bits16(file.cannon).any(|t| sq[t * 9 + f] == cannon)
    }

    /// Positions from random games from the perft positions, xorshift-driven.
    pub(crate) fn random_positions(games: usize, plies: usize) -> Vec<Position> {
        let fens: Vec<&str> = include_str!("../../data/perft.txt")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| l.split(';').next().unwrap().trim())
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut out = Vec::new();
        for game in 0..games {
            let mut pos = Position::from_fen(fens[game % fens.len()]).unwrap();
            for _ in 0..plies {
                out.push(pos.clone());
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.make_move(moves[next() as usize % moves.len()]);
            }
        }
        out
    }

    #[test]
    fn bitboard_attack_test_matches_the_square_by_square_one() {
        for pos in random_positions(40, 150) {
            for by in Color::ALL {
                for target in 0..NUM_SQUARES {
                    assert_eq!(
                        square_attacked(&pos.board, target, by),
                        square_attacked_slow(&pos.board, target, by),
                        "{target} by {by:?} in {}",
                        pos.fen()
                    );
                }
            }
        }
    }
}
