//! Xiangqi (Chinese chess) rules.
//!
//! - Small `Copy` types: [`Color`], [`Role`], [`Piece`], [`Square`], [`Move`].
//! - [`Setup`] is a position as written (FEN), unchecked; [`Position::from_setup`]
//!   validates it into a [`Position`] or says precisely what is wrong.
//! - Moves are parsed without a position ([`IccsMove`]) and resolved against one
//!   ([`Position::resolve`]), which says why an illegal move is illegal.
//! - [`Position`] generates legal moves, makes and unmakes them with an
//!   incrementally updated Zobrist key ([`zobrist`], fixed constants), and keeps
//!   the history the repetition rules need ([`Position::repetition`]).
//! - [`Position::outcome`] says whether and how the rules end the game
//!   ([`Outcome`]: no legal move, perpetual check, repetition, the
//!   natural-move limit).
//! - [`perft()`] counts move-tree leaves to check the generator.
//! - [`SplitMix64`] is the toolkit's one small deterministic random number
//!   generator (the Zobrist keys are drawn from it at compile time).
//!
//! Squares are named as in ICCS moves: files `a`..`i` from Red's left, ranks
//! 0..9 from Red's side.

pub mod attacks;
mod board;
pub mod chase;
mod moves;
mod outcome;
pub mod perft;
mod position;
mod rng;
mod see;
mod setup;
mod tables;
mod types;
pub mod zobrist;

pub use attacks::{squares, Bitboard};
pub use board::Board;
pub use moves::{IccsMove, Move, MoveList, ParseMoveError, MAX_MOVES};
pub use outcome::{EndRules, GameResult, Outcome, NATURAL_MOVE_LIMIT};
pub use perft::{perft, perft_divide};
pub use position::{
    CaptureVisitor, CheckFilter, IllegalMove, MoveError, MoveFilter, Position, QuietVisitor,
    Repetition, RepetitionKind,
};
pub use rng::SplitMix64;
pub use setup::{FenError, PositionError, Setup, START_FEN};
pub use types::{Color, Piece, Role, Square, NUM_SQUARES};
