//! One game between two engine processes: the moves asked for and
//! checked, each engine on its own clock ([`crate::time_control`]), and
//! the end, ruled by [`xqcore::Position::outcome`], by the adjudicators
//! ([`crate::adjudication`]) or by what the referee sees (an illegal move,
//! a resignation, a flag fall, an engine that fails).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use xqcore::{Color, EndRules, GameResult, Move, Position};
use xqegtb::Tablebase;
use xqrecords::Opening;

use crate::adjudication::{adjudicate, adjudicate_by_tables, ScoreAdjudication};
use crate::engine::{EngineProcess, Thought};
use crate::protocol::Answer;
use crate::record::{GameRecord, MoveStats, Termination};
use crate::time_control::{Clocks, MoveLimit};

/// Game settings shared by every engine (each has its own [`MoveLimit`]).
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// When the rules end a game: the third occurrence of a position, and
    /// the natural-move limit.
    pub rules: EndRules,
    /// Plies after which a game is drawn (the length cap; not a rule).
    pub max_plies: usize,
    /// Under a depth or node limit, how long a move may take before the
    /// engine is declared failed.
    pub move_timeout: Duration,
    /// Ending games on the engines' scores (off unless set).
    pub score_adjudication: ScoreAdjudication,
    /// Endgame tables that end a game once they hold its position: a draw
    /// at once, a win when its mate comes within the natural-move limit
    /// (wins by the repetition rules are played out).
    pub tables: Option<Arc<Tablebase>>,
}

impl Default for MatchConfig {
    /// The rules' limits ([`EndRules::default`]: third occurrence, 120
    /// plies without capture), 400 plies in all, a 60 s per-move timeout
    /// under depth and node limits, no adjudication.
    fn default() -> MatchConfig {
        MatchConfig {
            rules: EndRules::default(),
            max_plies: 400,
            move_timeout: Duration::from_secs(60),
            score_adjudication: ScoreAdjudication::default(),
            tables: None,
        }
    }
}

/// A game in progress.
struct Game<'a> {
    cfg: &'a MatchConfig,
    pos: Position,
    start: Opening,
    moves: Vec<Move>,
    stats: Vec<MoveStats>,
    clocks: Clocks,
}

impl<'a> Game<'a> {
    fn new(opening: &Opening, limits: [MoveLimit; 2], cfg: &'a MatchConfig) -> Game<'a> {
        Game {
            cfg,
            pos: opening.position(),
            start: opening.clone(),
            moves: Vec::new(),
            stats: Vec::new(),
            clocks: Clocks::new(limits),
        }
    }

    /// `position startpos|fen F [moves ...]`, the same in both protocols.
    fn position_command(&self) -> String {
        let start = match &self.start.fen {
            Some(fen) => format!("position fen {fen}"),
            None => "position startpos".to_string(),
        };
        let moves: Vec<String> = self.history().map(|m| m.to_string()).collect();
        if moves.is_empty() {
            start
        } else {
            format!("{start} moves {}", moves.join(" "))
        }
    }

    fn history(&self) -> impl Iterator<Item = &Move> {
        self.start.moves.iter().chain(&self.moves)
    }

    /// Asks `engine` for a move and plays it.
    fn play_one_move(&mut self, engine: &mut EngineProcess) -> Result<(), Termination> {
        let side = self.pos.turn();
        let (go, wait) = self.clocks.go_command(side, engine, self.cfg.move_timeout);
        let thought = engine
            .think(&self.position_command(), &go, wait)
            .map_err(|e| Termination::EngineFailure(e.to_string()))?;
        self.clocks.charge(side, thought.took)?;
        let mv = move_of(&self.pos, &thought)?;
        self.pos.make_move(mv);
        self.moves.push(mv);
        self.stats.push(MoveStats {
            score: thought.score,
            depth: thought.depth,
            took: thought.took,
        });
        Ok(())
    }

    /// The end of the game at this point, if it has come: by the rules or
    /// the length cap, by the engines' scores, by the tables.
    fn end(&self) -> Option<(GameResult, Termination)> {
        let cfg = self.cfg;
        adjudicate(&self.pos, &cfg.rules, cfg.max_plies)
            .or_else(|| {
                let last_mover = !self.pos.turn();
                cfg.score_adjudication
                    .judge(self.pos.ply(), last_mover, &self.stats)
            })
            .or_else(|| {
                let tables = cfg.tables.as_deref()?;
                adjudicate_by_tables(&self.pos, tables, &cfg.rules)
            })
    }
}

/// The move of an answer, or why the answer loses the game. A resignation
/// ends the game whatever move came with it.
fn move_of(pos: &Position, thought: &Thought) -> Result<Move, Termination> {
    match &thought.answer {
        Answer::NoMove => Err(Termination::IllegalMove("no move".to_string())),
        Answer::Move { resign: true, .. } => Err(Termination::Resignation),
        Answer::Move { mv, .. } => pos
            .parse_move(mv)
            .map_err(|_| Termination::IllegalMove(mv.clone())),
    }
}

/// Plays one game from `opening`, Red's engine at `limits[0]` and Black's
/// at `limits[1]`; the side to move after the opening is asked first.
/// `None` when `stop` was set before the game ended (it is checked
/// between moves): an abandoned game, not a result.
pub fn play_game(
    red: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &Opening,
    limits: [MoveLimit; 2],
    cfg: &MatchConfig,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let mut game = Game::new(opening, limits, cfg);
    let (result, termination) = loop {
        if let Some(end) = game.end() {
            break end;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let side = game.pos.turn();
        let engine = if side == Color::Red {
            &mut *red
        } else {
            &mut *black
        };
        if let Err(why) = game.play_one_move(engine) {
            break (GameResult::win_for(!side), why);
        }
    };
    Some(GameRecord {
        red: red.name.clone(),
        black: black.name.clone(),
        opening: opening.clone(),
        moves: game.moves,
        stats: game.stats,
        result,
        termination,
        worst_overrun_ms: game.clocks.worst_overrun_ms(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished [`Thought`] answering `line`.
    fn thought(line: &str) -> Thought {
        Thought {
            answer: crate::protocol::read_answer(line).unwrap(),
            took: Duration::ZERO,
            depth: None,
            score: None,
            lines: Vec::new(),
            reports: Vec::new(),
        }
    }

    #[test]
    fn answers_are_read_or_lose() {
        let pos = Position::start();
        assert_eq!(
            move_of(&pos, &thought("bestmove h2e2 ponder h9g7")),
            Ok(pos.parse_move("h2e2").unwrap())
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove a0a5")),
            Err(Termination::IllegalMove("a0a5".into()))
        );
        assert_eq!(
            Termination::IllegalMove("a0a5".into()).to_string(),
            "illegal move a0a5"
        );
        assert_eq!(
            move_of(&pos, &thought("nobestmove")),
            Err(Termination::IllegalMove("no move".into()))
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove (none)")),
            Err(Termination::IllegalMove("no move".into()))
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove h2e2 resign")),
            Err(Termination::Resignation)
        );
        assert_eq!(
            move_of(&pos, &thought("bestmove a0a5 resign")),
            Err(Termination::Resignation)
        );
    }

    #[test]
    fn positions_are_sent_from_the_opening() {
        let opening = Opening::parse("h2e2").unwrap();
        let depth = MatchConfig::default();
        let limits = [MoveLimit::Depth(3); 2];
        let game = Game::new(&opening, limits, &depth);
        assert_eq!(game.position_command(), "position startpos moves h2e2");
        let start = Opening::parse("").unwrap();
        assert_eq!(
            Game::new(&start, limits, &depth).position_command(),
            "position startpos"
        );
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let from_fen = Opening::parse(&format!("fen {fen} moves e1e2")).unwrap();
        assert_eq!(
            Game::new(&from_fen, limits, &depth).position_command(),
            format!("position fen {fen} moves e1e2")
        );
    }
}
