//! The engine's answer to a `go` ([`BestMove`]), and how a search becomes
//! one: whether it accepts an offered draw or resigns, and a guard that
//! answers even when the search fails.

use std::sync::Arc;

use xqcore::{Move, Position};

use crate::book::{BookCandidate, BookChoice};
use crate::score::{is_rule_score, MATE_BOUND};
use crate::search::Reporter;
use crate::searcher::Searcher;
use crate::strength::Chooser;
use crate::time::{Budget, SearchControl};

/// The engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// `None`: no move (no legal move, or `go depth 0`).
    pub mv: Option<Move>,
    pub ponder: Option<Move>,
    /// Accept the offered draw.
    pub draw: bool,
    pub resign: bool,
    /// A book move's candidates, heaviest first, for the front end to
    /// report (empty when the move is not the book's).
    pub book: Vec<BookCandidate>,
}

/// Accept a draw offer when the engine's score is at most this.
pub const DRAW_ACCEPT_SCORE: i32 = -50;
/// Resign when the score is at most this (or a mate against is proven),
/// but not on a result of the repetition rules: the opponent may still
/// leave the cycle.
pub const RESIGN_SCORE: i32 = -2_000;

impl BestMove {
    /// No move, no offer.
    pub const NONE: BestMove = BestMove {
        mv: None,
        ponder: None,
        draw: false,
        resign: false,
        book: Vec::new(),
    };

    /// The book's move, with the candidates it was chosen from.
    pub(crate) fn from_book(choice: BookChoice) -> BestMove {
        BestMove {
            mv: Some(choice.mv),
            book: choice.candidates,
            ..BestMove::NONE
        }
    }

    /// The tables' move at a won or lost root, whose score is `score`.
    pub(crate) fn from_tables(mv: Move, ponder: Option<Move>, score: i32) -> BestMove {
        BestMove {
            mv: Some(mv),
            ponder,
            resign: score <= -MATE_BOUND,
            ..BestMove::NONE
        }
    }
}

/// Whether a search's `score` resigns: a proven mate against, or a score
/// at most [`RESIGN_SCORE`] that is no result of the repetition rules.
fn resigns(score: i32) -> bool {
    score <= -MATE_BOUND || (score <= RESIGN_SCORE && !is_rule_score(score))
}

/// A search the root left to do: the moves, the budget worked out from the
/// `go`'s limits, and where its progress goes.
pub(crate) struct RootSearch {
    pub root_moves: Vec<Move>,
    pub budget: Budget,
    /// `go depth 0`: no search, no move.
    pub depth_zero: bool,
    /// The opponent offers a draw, which the answer may accept.
    pub draw_offered: bool,
    pub reporter: Arc<dyn Reporter>,
    /// Below full strength: what picks the move played among the lines.
    pub chooser: Option<Arc<Chooser>>,
}

impl RootSearch {
    /// Searches `pos` with `searcher` under `control` and answers. A bug in
    /// the search must not leave the GUI waiting for a move forever: a
    /// panic answers with the first root move instead.
    pub(crate) fn run(
        self,
        searcher: &mut Searcher,
        pos: &Position,
        control: &SearchControl,
    ) -> BestMove {
        if self.root_moves.is_empty() || self.depth_zero {
            return BestMove::NONE;
        }
        let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            searcher.search_within(
                pos,
                &self.root_moves,
                &self.budget,
                control,
                self.reporter.as_ref(),
            )
        }));
        match searched {
            Ok(r) => {
                let (mv, ponder) = match &self.chooser {
                    Some(chooser) => chooser.choose(&r),
                    None => (r.best, r.ponder),
                };
                BestMove {
                    mv,
                    ponder,
                    draw: self.draw_offered && r.score <= DRAW_ACCEPT_SCORE,
                    resign: resigns(r.score),
                    book: Vec::new(),
                }
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                self.reporter.message(&format!(
                    "search failed ({why}); playing the first legal move"
                ));
                searcher.new_game();
                BestMove {
                    mv: self.root_moves.first().copied(),
                    ..BestMove::NONE
                }
            }
        }
    }
}
