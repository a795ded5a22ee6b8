//! XBoard's protocol (CECP, version 2), entered when the first command is
//! `xboard`: the GUI sends the game's moves (`usermove`) and clocks
//! (`time`, `otim`, `level`, `st`, `sd`), and the engine moves by itself on
//! its turn unless in `force` mode, answering `move M`. Xiangqi's squares
//! are XBoard's of a 9 × 10 board: files `a`-`i`, ranks `0`-`9`, Red
//! moving first (XBoard's white), as in ICCS.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use xqcore::{Color, EndRules, Move, Outcome, Position};

use crate::engine::Engine;
use crate::options::{OptionValue, Setting};
use crate::output::Output;
use crate::search::{Reporter, SearchInfo};
use crate::time::{Clock, Limits};
use crate::Score;

/// A clock of `level MPS BASE INC`: moves a period (0: the whole game),
/// the base time, the increment a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    moves: u32,
    base: Duration,
    increment: Duration,
}

/// The state of an XBoard game: the moves so far, the side the engine
/// plays, the clocks, and what the GUI asked for.
pub(crate) struct Xboard {
    out: Output,
    game: Position,
    /// No thinking, no moving: the GUI just sets up moves.
    force: bool,
    engine_side: Color,
    post: Arc<Mutex<bool>>,
    analyzing: bool,
    level: Option<Level>,
    /// Time left on the engine's clock, as `time` last said.
    engine_time: Option<Duration>,
    move_time: Option<Duration>,
    depth: Option<u32>,
    /// The move the engine played (and printed), not yet applied to
    /// `game`: applied before the next command is handled.
    played: Arc<Mutex<Option<Move>>>,
}

/// Thinking output (`post`): `DEPTH SCORE TIME NODES PV`, time in
/// centiseconds, a mate as XBoard writes it (100000 + moves).
struct Thinking {
    out: Output,
    post: Arc<Mutex<bool>>,
}

impl Reporter for Thinking {
    fn info(&self, info: &SearchInfo) {
        if !*self.post.lock().unwrap_or_else(|e| e.into_inner()) {
            return;
        }
        let score = match info.score {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 100_000 + n,
            Score::Mate(n) => -100_000 + n,
        };
        let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
        self.out.line(&format!(
            "{} {score} {} {} {}",
            info.depth,
            info.time.as_millis() / 10,
            info.nodes,
            pv.join(" ")
        ));
    }
}

impl Xboard {
    /// A game at the start position, the engine Black (XBoard's `new`).
    pub(crate) fn new(out: Output) -> Xboard {
        Xboard {
            out,
            game: Position::start(),
            force: false,
            engine_side: Color::Black,
            post: Arc::new(Mutex::new(true)),
            analyzing: false,
            level: None,
            engine_time: None,
            move_time: None,
            depth: None,
            played: Arc::new(Mutex::new(None)),
        }
    }

    /// Handles one command; `false` on `quit`.
    pub(crate) fn handle(&mut self, engine: &mut Engine, line: &str) -> bool {
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match command {
            // Taken during a search without stopping it.
            "ping" => {
                self.say(&format!("pong {rest}"));
                return true;
            }
            "time" => {
                self.engine_time = centiseconds(rest);
                return true;
            }
            "otim" | "." | "hint" | "bk" | "accepted" | "rejected" | "random" | "hard" | "easy"
            | "computer" | "name" | "rating" | "ics" | "draw" | "" => return true,
            "post" | "nopost" => {
                *self.post.lock().unwrap_or_else(|e| e.into_inner()) = command == "post";
                return true;
            }
            "?" => {
                engine.stop();
                return true;
            }
            _ => {}
        }
        // Anything else first ends a search and takes in the engine's move.
        engine.stop_and_wait();
        self.take_played(engine);
        match command {
            "xboard" => {}
            "protover" => self.features(),
            "new" => {
                self.analyzing = false;
                self.game = Position::start();
                self.force = false;
                self.engine_side = Color::Black;
                self.move_time = None;
                self.depth = None;
                engine.new_game();
                engine.set_position(self.game.clone());
            }
            "variant" if rest == "xiangqi" => {}
            "variant" => self.say(&format!("Error (unsupported variant): {rest}")),
            "quit" => return false,
            "force" => self.force = true,
            "go" => {
                self.force = false;
                self.engine_side = self.game.turn();
                self.think(engine);
            }
            "white" | "black" => {}
            "playother" => {
                self.force = false;
                self.engine_side = !self.game.turn();
            }
            "level" => match level(rest) {
                Some(level) => {
                    self.level = Some(level);
                    self.move_time = None;
                }
                None => self.say(&format!("Error (bad level): {rest}")),
            },
            "st" => match rest.parse::<f64>() {
                Ok(s) if s > 0.0 => self.move_time = Some(Duration::from_secs_f64(s)),
                _ => self.say(&format!("Error (bad st): {rest}")),
            },
            "sd" => match rest.parse::<u32>() {
                Ok(d) => self.depth = Some(d.max(1)),
                Err(_) => self.say(&format!("Error (bad sd): {rest}")),
            },
            "usermove" => self.user_move(engine, rest),
            "setboard" => match Position::from_fen(rest) {
                Ok(pos) => {
                    self.game = pos;
                    engine.set_position(self.game.clone());
                    self.restart_analysis(engine);
                }
                Err(e) => self.say(&format!("tellusererror Illegal position: {e}")),
            },
            "undo" | "remove" => {
                let plies = if command == "undo" { 1 } else { 2 };
                for _ in 0..plies {
                    if self.game.moves_played().next().is_some() {
                        self.game.unmake_move();
                    }
                }
                engine.set_position(self.game.clone());
                self.restart_analysis(engine);
            }
            "result" => self.force = true,
            "analyze" => {
                self.analyzing = true;
                self.restart_analysis(engine);
            }
            "exit" => self.analyzing = false,
            "memory" => self.set(engine, Setting::HashSize, rest),
            "cores" => self.set(engine, Setting::Threads, rest),
            // A bare move, as protocol 1 sends it.
            _ if self.game.parse_move(command).is_ok() => self.user_move(engine, command),
            _ => self.say(&format!("Error (unknown command): {command}")),
        }
        true
    }

    fn say(&self, text: &str) {
        self.out.line(text);
    }

    /// Protocol 2's features: the moves as `usermove`, boards by
    /// `setboard`, xiangqi the one variant, `ping`, analysis; done.
    fn features(&self) {
        let version = env!("CARGO_PKG_VERSION");
        self.say(&format!(
            "feature done=0 myname=\"xqengine {version}\" variants=\"xiangqi\" usermove=1 \
             setboard=1 ping=1 time=1 draw=0 sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 \
             playother=1 san=0 memory=1 smp=1 debug=0"
        ));
        self.say("feature done=1");
    }

    fn set(&self, engine: &mut Engine, setting: Setting, value: &str) {
        match value.parse::<i64>() {
            Ok(n) => {
                for note in engine.set_option(setting, OptionValue::Spin(n.max(0))) {
                    self.say(&format!("# {note}"));
                }
            }
            Err(_) => self.say(&format!("Error (not a number): {value}")),
        }
    }

    /// The engine's move, once played and printed, into the game.
    fn take_played(&mut self, engine: &mut Engine) {
        let played = self.played.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mv) = played {
            self.game.make_move(mv);
            engine.set_position(self.game.clone());
        }
    }

    /// The GUI's move: played, then the engine thinks if it is its turn.
    fn user_move(&mut self, engine: &mut Engine, text: &str) {
        let legal = self
            .game
            .parse_move(text)
            .ok()
            .filter(|_| self.game.outcome(&EndRules::default()).is_none());
        let Some(mv) = legal else {
            self.say(&format!("Illegal move: {text}"));
            return;
        };
        self.game.make_move(mv);
        engine.set_position(self.game.clone());
        if self.analyzing {
            self.restart_analysis(engine);
        } else if !self.force && self.game.turn() == self.engine_side {
            self.think(engine);
        }
    }

    /// Analysis of the game's position until told otherwise.
    fn restart_analysis(&mut self, engine: &mut Engine) {
        if !self.analyzing || self.game.legal_moves().is_empty() {
            return;
        }
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        let reporter = Arc::new(Thinking {
            out: self.out.clone(),
            post: Arc::new(Mutex::new(true)),
        });
        engine.go(limits, false, reporter, Box::new(|_| {}));
    }

    /// The limits of the engine's move: `sd`, `st`, else its clock.
    fn limits(&self) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            movetime: self.move_time,
            ..Limits::default()
        };
        if self.move_time.is_none() {
            if let (Some(remaining), Some(level)) = (self.engine_time, self.level) {
                let played = (self.game.moves_played().count() / 2) as u32;
                limits.clock = Some(Clock {
                    remaining,
                    movestogo: (level.moves > 0).then(|| level.moves - played % level.moves),
                    increment: level.increment,
                });
            } else if self.depth.is_none() {
                limits.movetime = Some(Duration::from_secs(5));
            }
        }
        limits
    }

    /// The engine's move: searched, then printed and kept for the game.
    /// A game already over is said so instead.
    fn think(&mut self, engine: &mut Engine) {
        if let Some(result) = result(&self.game) {
            self.say(&result);
            return;
        }
        let reporter = Arc::new(Thinking {
            out: self.out.clone(),
            post: self.post.clone(),
        });
        let (out, played) = (self.out.clone(), self.played.clone());
        engine.go(
            self.limits(),
            false,
            reporter,
            Box::new(move |best| {
                let Some(mv) = best.mv else { return };
                if best.resign {
                    out.line("resign");
                    return;
                }
                *played.lock().unwrap_or_else(|e| e.into_inner()) = Some(mv);
                out.line(&format!("move {mv}"));
            }),
        );
    }
}

/// Centiseconds as XBoard's `time` gives them.
fn centiseconds(text: &str) -> Option<Duration> {
    text.parse::<u64>()
        .ok()
        .map(|cs| Duration::from_millis(cs * 10))
}

/// `level MPS BASE INC`: BASE in minutes or `minutes:seconds`, INC in
/// seconds.
fn level(text: &str) -> Option<Level> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [moves, base, increment] = fields[..] else {
        return None;
    };
    let base = match base.split_once(':') {
        Some((m, s)) => m.parse::<u64>().ok()? * 60 + s.parse::<u64>().ok()?,
        None => base.parse::<u64>().ok()? * 60,
    };
    Some(Level {
        moves: moves.parse().ok()?,
        base: Duration::from_secs(base),
        increment: Duration::from_secs_f64(increment.parse::<f64>().ok()?.max(0.0)),
    })
}

/// XBoard's result line when the game is over at `pos` (the side to move
/// has no move, or the rules ended it): `1-0 {...}`, `0-1 {...}` or
/// `1/2-1/2 {...}`.
fn result(pos: &Position) -> Option<String> {
    let outcome = pos.outcome(&EndRules::default())?;
    let score = |winner: Color| if winner == Color::Red { "1-0" } else { "0-1" };
    Some(match outcome {
        Outcome::NoLegalMove { loser } => {
            format!("{} {{{} has no move}}", score(!loser), name(loser))
        }
        Outcome::PerpetualCheck { by } => {
            format!("{} {{{} checked perpetually}}", score(!by), name(by))
        }
        Outcome::PerpetualChase { by } => {
            format!("{} {{{} chased perpetually}}", score(!by), name(by))
        }
        Outcome::NaturalMoveLimit => "1/2-1/2 {Draw by the move limit}".to_string(),
        // A repetition no rule forbids (and any outcome the rules add).
        _ => "1/2-1/2 {Draw by repetition}".to_string(),
    })
}

fn name(color: Color) -> &'static str {
    if color == Color::Red {
        "Red"
    } else {
        "Black"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_xboard_writes_them() {
        assert_eq!(
            level("40 5 0"),
            Some(Level {
                moves: 40,
                base: Duration::from_secs(300),
                increment: Duration::ZERO
            })
        );
        assert_eq!(level("0 0:30 0.5").unwrap().base, Duration::from_secs(30));
        assert_eq!(level("0 2 1").unwrap().increment, Duration::from_secs(1));
        assert_eq!(level("40 x 0"), None);
        assert_eq!(level("40 5"), None);
    }
}
