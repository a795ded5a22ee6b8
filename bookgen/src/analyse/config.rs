//! How an analysis is made: the budgets of its searches (by ply, and the
//! deeper tiers along the engine's own lines), the evaluation and tables
//! they use, how far the book may grow, and what the analysis's header
//! says of them.

use std::sync::Arc;

use xqbook::SEARCH_NOISE;
use xqcore::{Move, Position};

use super::searches::Searches;
use super::shard::Shard;
use crate::budget::Budget;

/// How to analyse.
#[derive(Clone)]
pub struct AnalyseConfig {
    pub budget: Budget,
    /// Positions before this ply searched at this budget instead: the
    /// lines every game plays, searched deeper.
    pub deep: Option<(usize, Budget)>,
    /// The lines the engine itself plays from the analysed book, searched
    /// deeper still (see [`Refine`]); tiers of them, each deeper than the
    /// one before over fewer plies, where more depth costs least and the
    /// choices matter most.
    pub refine: Vec<Refine>,
    /// Searches at once, each on one thread.
    pub threads: usize,
    /// The net to evaluate with; `None`: the hand-crafted evaluation.
    pub net: Option<Arc<xqnnue::Network>>,
    /// Endgame tables for the searches.
    pub tables: Option<Arc<xqegtb::Tablebase>>,
    /// Moves the analysis may add to the book in all, besides the best
    /// moves of the positions of `grow_from`'s games.
    pub grow: usize,
    /// Moves are added from positions up to this ply.
    pub grow_plies: usize,
    /// Hash table of each search, in MB.
    pub hash_mb: usize,
    /// Search only this shard of the book's positions, into the shard's
    /// own journal, for a later run without a shard to merge.
    pub shard: Option<Shard>,
    /// Games whose moves join the book before it is analysed (self-play or
    /// match games: lines the engine meets), from their start up to
    /// `grow_plies`; each of their positions gains its best move.
    pub grow_from: Vec<(Position, Vec<Move>)>,
    /// The engine's lines, once refined, with each position's candidate
    /// moves scored together in one search (see [`Together`]).
    pub together: Option<Together>,
}

/// Where the engine's own lines (followed as [`Refine`] follows them, at
/// `margin`) have each position's moves scored in one search to `depth`
/// with a line each (MultiPV): every book move within
/// [`TOGETHER_WINDOW`] of the best and the position's own best move. Moves
/// compared in one search are compared alike; searches apart, one after
/// each move, differ by chance by about 30 cp, more than the engine's
/// margin. Again until the moves within the margin no longer change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Together {
    pub plies: usize,
    pub depth: u32,
    pub margin: i16,
    /// Each move scored by the mean of its last this many depths (1: its
    /// last depth's score; see [`Budget::EachMoveAveraged`]).
    pub averaged: u32,
}

impl Together {
    /// The budget of its searches.
    pub fn budget(self) -> Budget {
        match self.averaged {
            0 | 1 => Budget::EachMove(self.depth),
            iterations => Budget::EachMoveAveraged {
                depth: self.depth,
                iterations,
            },
        }
    }
}

/// How far below a position's best move a book move is still scored with
/// it (see [`Together`]): twice what searches apart differ by.
pub const TOGETHER_WINDOW: i16 = 2 * SEARCH_NOISE;

/// Where the engine's own play from the book is searched again, deeper:
/// from the start, both sides playing every move within `margin` of the
/// best the analysis knows (as the engine's `bookmargin` does), every
/// position before `plies` and every position its moves lead to are
/// searched at `budget`, the search's best move added where it is
/// missing, and again, until the moves within the margin no longer change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refine {
    pub plies: usize,
    pub budget: Budget,
    pub margin: i16,
}

impl AnalyseConfig {
    /// The evaluation's name, for the analysis header.
    pub fn net_name(&self) -> String {
        net_name(self.net.as_deref())
    }

    /// What the journal says of how positions were searched: results of
    /// another engine or net are not mixed (each result keeps its budget).
    pub(super) fn search_settings(&self) -> String {
        format!("engine {}\nnet {}\n", engine_name(), self.net_name())
    }

    /// The budget a position at `ply` is searched at.
    pub(super) fn budget_at(&self, ply: usize) -> Budget {
        match self.deep {
            Some((plies, deep)) if ply < plies => deep,
            _ => self.budget,
        }
    }

    /// The budgets, as the analysis's header says them.
    pub fn budget_text(&self) -> String {
        let mut text = self.budget.to_string();
        if let Some((plies, deep)) = self.deep {
            text.push_str(&format!(", {deep} before ply {plies}"));
        }
        for r in &self.refine {
            text.push_str(&format!(
                ", {} along the moves within {} cp before ply {}",
                r.budget, r.margin, r.plies
            ));
        }
        if let Some(t) = self.together {
            text.push_str(&format!(
                ", moves scored together at depth {} along the moves within {} cp before ply {}",
                t.depth, t.margin, t.plies
            ));
            if t.averaged > 1 {
                text.push_str(&format!(
                    ", each the mean of its last {} depths",
                    t.averaged
                ));
            }
        }
        text
    }

    /// How its searches are made: on its threads, with its evaluation,
    /// tables and hash table.
    pub(super) fn searches(&self) -> Searches {
        Searches {
            threads: self.threads,
            net: self.net.clone(),
            tables: self.tables.clone(),
            hash_mb: self.hash_mb,
            external: None,
        }
    }
}

/// Our engine's name and version, as analysis headers, journals and
/// `bookgen quality` name the engine that searched.
pub fn engine_name() -> String {
    format!("xqengine {}", env!("CARGO_PKG_VERSION"))
}

/// An evaluation's name: a net's checksum, or `hce`.
pub fn net_name(net: Option<&xqnnue::Network>) -> String {
    match net {
        Some(net) => format!("nnue {:08x}", net.checksum()),
        None => "hce".into(),
    }
}
