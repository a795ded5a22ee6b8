//! [`Position`]: a validated position with its game history, make and
//! unmake, and what the rules say of it (legality of a move, repetitions,
//! the game's end). Its move generation ([`movegen`]), the test that a
//! move keeps the own king safe ([`legality`]) and the test that it gives
//! check ([`checks`]) have files of their own.

mod checks;
mod legality;
mod movegen;

use std::fmt;

use crate::attacks::square_attacked;
use crate::board::{code_color, Board, Code};
use crate::chase;
use crate::moves::{IccsMove, Move, MoveList, ParseMoveError};
use crate::outcome::{EndRules, Outcome};
use crate::setup::{FenError, PositionError, Setup};
use crate::tables::{CHECK_LANDINGS, FILE_OF, FILE_SLIDES, KING_SENSITIVE, RANK_OF};
use crate::types::{Color, Piece, Role, Square};
use crate::zobrist;

pub use checks::CheckFilter;
pub use legality::MoveFilter;
pub use movegen::{CaptureVisitor, QuietVisitor};

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
    use crate::board::{bits16, codes};
    use crate::tables::{HORSE_ATTACKERS, HORSE_REACH, PAWN_ATTACKERS, RANK_SLIDES};
    use crate::types::NUM_SQUARES;

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
