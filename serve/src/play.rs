//! The engine's moves in a game on the board: each move is the engine's
//! own answer to `go`, as a GUI gets it (an [`xqengine::Engine`] at the
//! level asked, with the server's books, tables and net, on the game's
//! clock), so a level plays on the board as it was measured in matches.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use xqcore::Position;
use xqengine::strength::{Strength, MAX_SKILL};
use xqengine::{BestMove, Clock, Engine, Evaluation, Limits, Reporter};

use crate::library::Library;

/// Hash table of an engine playing one move, in MB.
const PLAY_HASH_MB: usize = 16;

/// What the engine is asked to play.
#[derive(Clone, Debug)]
pub struct MoveRequest {
    /// The game so far (its history rules repetitions).
    pub pos: Position,
    /// `Skill Level`, 0 to 20 (full strength).
    pub level: i64,
    /// The engine's clock; `None`: a game without clocks, each move
    /// thought over for [`UNTIMED_MOVE`].
    pub clock: Option<Clock>,
    /// The player offers a draw, which the engine may accept.
    pub draw_offered: bool,
}

/// Time a move takes in a game without clocks.
pub const UNTIMED_MOVE: Duration = Duration::from_secs(1);

/// The levels a game may be played at, weakest first, with the Elo each
/// claims (none at full strength, whose rating depends on the clock).
pub fn levels() -> Vec<(i64, Option<i64>)> {
    (0..=MAX_SKILL)
        .map(|level| (level, Strength::from_level(level).elo()))
        .collect()
}

/// The engine's answer to `request`, its thinking reported to `reporter`:
/// a move (none when it has none), and whether it accepts the offered
/// draw or resigns. Blocks while it thinks.
pub fn engine_move(
    library: &Library,
    request: MoveRequest,
    reporter: Arc<dyn Reporter>,
) -> BestMove {
    let mut engine = Engine::new();
    engine.options.hash_mb = PLAY_HASH_MB;
    engine.options.threads = 1;
    engine.options.skill_level = request.level.clamp(0, MAX_SKILL);
    match &library.engine.config().search.net {
        Some(net) => engine.options.net = net.clone(),
        None => engine.options.evaluation = Evaluation::Hce,
    }
    let books: Vec<PathBuf> = library
        .books
        .iter()
        .map(|b| b.path().to_path_buf())
        .collect();
    engine.set_default_data(books, Vec::new());
    match &library.tables {
        Some(tables) => engine.set_default_tables(tables.clone()),
        None => engine.options.use_egtb = false,
    }
    engine.set_position(request.pos);
    for note in engine.prepare() {
        reporter.message(&note);
    }
    let limits = match request.clock {
        Some(clock) => Limits {
            clock: Some(clock),
            ..Limits::default()
        },
        None => Limits::movetime(UNTIMED_MOVE),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    engine.go(
        limits,
        request.draw_offered,
        reporter,
        Box::new(move |answer| {
            let _ = tx.send(answer);
        }),
    );
    let answer = rx.recv().unwrap_or(BestMove::NONE);
    engine.wait();
    answer
}
