//! Searches by another program (UCCI or UCI, spoken to through
//! [`xqmatch::EngineProcess`]): `bookgen quality` judges a book with an
//! engine other than the one that analysed it.

use std::time::Duration;

use xqbook::{Searched, DECIDED, MATE};
use xqcore::{Move, Position};
use xqmatch::{Answer, EngineOption, EngineProcess, EngineScore};

use crate::budget::{averaged_scores, Budget};
use crate::error::AnalyseError;

/// The longest a single search may take before the program is given up on.
const SEARCH_TIMEOUT: Duration = Duration::from_secs(3600);

/// `engine`'s search of `pos`, a position as its book key stores it with a
/// legal move, at `budget` (a new game first, so that each result depends
/// on the position alone).
///
/// # Errors
///
/// The program cannot be talked to, or answers with no move, an illegal
/// move or no score; a budget in time, which another program's searches
/// would not repeat.
pub(crate) fn search(
    engine: &mut EngineProcess,
    pos: &Position,
    budget: Budget,
) -> Result<Searched, AnalyseError> {
    let answer_error = answer_error(engine, pos);
    let go = match budget {
        Budget::Depth(depth) => format!("go depth {depth}"),
        Budget::Nodes(nodes) => format!("go nodes {nodes}"),
        Budget::Millis(_) | Budget::EachMove(_) | Budget::EachMoveAveraged { .. } => {
            return Err(answer_error("only depth and node budgets".into()))
        }
    };
    engine.new_game()?;
    let thought = engine.think(&format!("position fen {}", pos.fen()), &go, SEARCH_TIMEOUT)?;
    let best = match &thought.answer {
        Answer::Move { mv, .. } => pos
            .parse_move(mv)
            .map_err(|_| answer_error(format!("illegal best move {mv}")))?,
        Answer::NoMove => return Err(answer_error("no best move".into())),
    };
    let score = thought
        .score
        .ok_or_else(|| answer_error("no score before its best move".into()))?;
    Ok(Searched {
        score: score_as_stored(score),
        best,
        depth: thought.depth.unwrap_or(0).min(u32::from(u8::MAX - 1)) as u8,
    })
}

/// `engine`'s one search of `pos` (as its book key stores it) among
/// `moves`, to `depth`, with a line for each (UCI `MultiPV` and `go
/// searchmoves`): each move's score as [`averaged_scores`] makes it of its
/// lines' last `iterations` depths.
///
/// # Errors
///
/// The program cannot be talked to, or reports no scored line for one of
/// the moves.
pub(crate) fn score_moves(
    engine: &mut EngineProcess,
    pos: &Position,
    moves: &[Move],
    depth: u32,
    iterations: u32,
) -> Result<Vec<(Move, Searched)>, AnalyseError> {
    let answer_error = answer_error(engine, pos);
    engine.new_game()?;
    engine.set_option(&EngineOption {
        name: "MultiPV".into(),
        value: Some(moves.len().to_string()),
    })?;
    let listed: Vec<String> = moves.iter().map(Move::to_string).collect();
    let go = format!("go depth {depth} searchmoves {}", listed.join(" "));
    let thought = engine.think(&format!("position fen {}", pos.fen()), &go, SEARCH_TIMEOUT)?;
    let reports: Vec<(i32, i32, Move)> = thought
        .reports
        .iter()
        .filter_map(|line| {
            let mv = pos.parse_move(&line.pv[0]).ok()?;
            let score = score_as_stored(line.score?);
            let depth = line.depth.unwrap_or(0).min(u32::from(u8::MAX - 1)) as i32;
            Some((depth, i32::from(score), mv))
        })
        .collect();
    let scores = averaged_scores(&reports, iterations);
    moves
        .iter()
        .map(|&mv| {
            scores
                .iter()
                .find(|s| s.0 == mv)
                .copied()
                .ok_or_else(|| answer_error(format!("no line for {mv} among {go}")))
        })
        .collect()
}

/// The error of a bad answer of `engine` searching `pos`, for a reason.
fn answer_error(engine: &EngineProcess, pos: &Position) -> impl Fn(String) -> AnalyseError {
    let (name, fen) = (engine.name.clone(), pos.fen());
    move |reason| AnalyseError::EngineAnswer {
        engine: name.clone(),
        fen: fen.clone(),
        reason,
    }
}

/// A program's score as analyses store scores: centipawns short of
/// [`DECIDED`], a mate in n moves as [`MATE`] less its plies (beyond
/// [`DECIDED`] however far).
fn score_as_stored(score: EngineScore) -> i16 {
    let (decided, mate) = (i32::from(DECIDED), i32::from(MATE));
    let stored = match score {
        EngineScore::Cp(cp) => cp.clamp(1 - decided, decided - 1),
        EngineScore::Mate(n) if n > 0 => (mate - (2 * n - 1)).max(decided + 1),
        EngineScore::Mate(n) => (-mate - 2 * n).min(-decided - 1),
    };
    stored as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_stored_as_ours() {
        assert_eq!(score_as_stored(EngineScore::Cp(37)), 37);
        assert_eq!(score_as_stored(EngineScore::Cp(-99_999)), 1 - DECIDED);
        assert_eq!(score_as_stored(EngineScore::Mate(1)), MATE - 1);
        assert_eq!(score_as_stored(EngineScore::Mate(3)), MATE - 5);
        assert_eq!(score_as_stored(EngineScore::Mate(-2)), -(MATE - 4));
        assert_eq!(score_as_stored(EngineScore::Mate(0)), -MATE);
        assert_eq!(score_as_stored(EngineScore::Mate(5000)), DECIDED + 1);
        assert_eq!(score_as_stored(EngineScore::Mate(-5000)), -DECIDED - 1);
    }
}
