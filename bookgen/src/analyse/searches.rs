//! What a search of the analysis is: the settings every search of a run
//! shares ([`Searches`]) and one search to make ([`Job`]), which the work
//! planner makes, the pool hands out and a worker carries out.

use std::sync::Arc;

use xqbook::move_key;
use xqcore::{Move, Position};

use crate::budget::Budget;

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
