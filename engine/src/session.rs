//! The protocol session: reads command lines from a channel, drives the
//! [`Engine`], and writes replies. Input is read by its own thread, so `stop`,
//! `isready` and `ponderhit` are answered while the search runs.

use std::io::BufRead;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

use xqcore::{Move, Position};

use crate::engine::Engine;
use crate::options::{self, OptionValue, Setting};
use crate::output::Output;
use crate::protocol::{self, clip, Command, Dialect, GoContext};
use crate::search::{Reporter, SearchInfo};
use crate::time::Limits;
use crate::wdl::WdlView;
use crate::xboard::Xboard;

/// Search progress as the protocol's `info` lines.
struct LineReporter {
    out: Output,
    dialect: Dialect,
    /// With `UCI_ShowWDL`: how the scores read as win, draw and loss.
    wdl: Option<WdlView>,
}

impl Reporter for LineReporter {
    fn info(&self, info: &SearchInfo) {
        let wdl = self.wdl.map(|view| view.per_mille(info.raw_score));
        self.out
            .line(&protocol::format_info(self.dialect, info, wdl));
    }

    fn currmove(&self, mv: Move, number: usize, _depth: i32) {
        self.out.line(&protocol::format_currmove(mv, number));
    }

    fn message(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }
}

/// The options that are the protocol's, not the engine's (UCCI
/// `usemillisec`, `batch`, `debug`; UCI `UCI_ShowWDL`): the session
/// keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ProtocolFlags {
    /// UCCI times are milliseconds, not seconds.
    use_millisec: bool,
    /// Read nothing while a search that ends by itself runs.
    batch: bool,
    /// Say more (`info string`) about what is ignored.
    debug: bool,
    /// Print win, draw and loss with each score (UCI `UCI_ShowWDL`).
    show_wdl: bool,
}

/// The protocol state: dialect, protocol-only options and the engine.
pub struct Session {
    engine: Engine,
    /// True from `go` until its answer is printed. Printing the answer and
    /// clearing this happen under the lock, so a command read after the
    /// answer always finds the engine idle.
    searching: Arc<Mutex<bool>>,
    out: Output,
    dialect: Dialect,
    booted: bool,
    /// The options that are the protocol's, not the engine's.
    flags: ProtocolFlags,
    /// XBoard's game, once the first command was `xboard`.
    xboard: Option<Xboard>,
}

/// Whether the session goes on after a command.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

impl Session {
    /// A session writing to `out`, with an engine of default options.
    pub fn new(out: Output) -> Session {
        Session::with_engine(Engine::new(), out)
    }

    /// A session driving `engine` (as its program set it up: the default
    /// book and tables, say), writing to `out`.
    pub fn with_engine(engine: Engine, out: Output) -> Session {
        Session {
            engine,
            searching: Arc::new(Mutex::new(false)),
            out,
            dialect: Dialect::Ucci,
            booted: false,
            flags: ProtocolFlags::default(),
            xboard: None,
        }
    }

    /// Reads lines from `input` on a separate thread and runs until `quit` or
    /// the end of input.
    pub fn run_reader(self, input: impl BufRead + Send + 'static) {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in input.split(b'\n') {
                let Ok(bytes) = line else { break };
                // Invalid UTF-8 is replaced, not fatal: the line is then refused as a command.
                if tx
                    .send(String::from_utf8_lossy(&bytes).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        self.run(rx);
    }

    /// Runs until `quit` or until the channel closes (end of input counts as quit).
    pub fn run(mut self, input: Receiver<String>) {
        while let Ok(line) = input.recv() {
            if self.handle(&line) == Flow::Quit {
                return;
            }
        }
        self.engine.stop_and_wait();
    }

    /// Handles one command line, as read from the GUI; `false` once the
    /// session should end (`quit`).
    pub fn handle_line(&mut self, line: &str) -> bool {
        self.handle(line) == Flow::Continue
    }

    /// The engine behind the session.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Stops a running search and waits for its answer.
    pub fn finish(&mut self) {
        self.engine.stop_and_wait();
    }

    fn info_string(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    fn handle(&mut self, line: &str) -> Flow {
        if !self.booted && self.xboard.is_none() && line.trim() == "xboard" {
            self.xboard = Some(Xboard::new(self.out.clone()));
            self.booted = true;
        }
        if let Some(xboard) = &mut self.xboard {
            return match xboard.handle(&mut self.engine, line) {
                true => Flow::Continue,
                false => {
                    self.engine.stop_and_wait();
                    Flow::Quit
                }
            };
        }
        let context = GoContext {
            millisec: self.dialect == Dialect::Uci || self.flags.use_millisec,
            turn: self.engine.position().turn(),
        };
        let command = match protocol::parse(line, context) {
            Ok(c) => c,
            Err(reason) => {
                self.info_string(&reason.to_string());
                return Flow::Continue;
            }
        };
        // While searching only these are taken at once; anything else first
        // ends the search (its bestmove is printed), then runs.
        let searching = *self.searching.lock().unwrap_or_else(|e| e.into_inner());
        if searching {
            match command {
                Command::Stop => {
                    self.engine.stop();
                    return Flow::Continue;
                }
                Command::IsReady => {
                    self.out.line("readyok");
                    return Flow::Continue;
                }
                Command::PonderHit { .. } => {
                    self.engine.ponderhit();
                    return Flow::Continue;
                }
                Command::Empty => return Flow::Continue,
                _ => self.engine.stop_and_wait(),
            }
        } else {
            // A finished search's thread is joined before anything else.
            self.engine.wait();
        }
        match command {
            Command::Ucci => self.boot(Dialect::Ucci),
            Command::Uci => self.boot(Dialect::Uci),
            Command::IsReady => {
                self.prepare();
                self.out.line("readyok");
            }
            Command::NewGame => {
                self.prepare();
                self.engine.new_game();
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::BanMoves(moves) => self.ban_moves(&moves),
            Command::Go {
                limits,
                draw_offered,
            } => self.go(limits, draw_offered),
            Command::PonderHit { .. } => {}
            Command::Stop => {
                if self.dialect == Dialect::Ucci {
                    self.out.line("nobestmove");
                }
            }
            Command::Quit => {
                self.engine.stop_and_wait();
                if self.dialect == Dialect::Ucci {
                    self.out.line("bye");
                }
                return Flow::Quit;
            }
            Command::Empty => {}
        }
        Flow::Continue
    }

    fn boot(&mut self, dialect: Dialect) {
        self.dialect = dialect;
        self.booted = true;
        let out = &self.out;
        let version = env!("CARGO_PKG_VERSION");
        match dialect {
            Dialect::Ucci => {
                out.line(&format!("id name xqengine {version}"));
                out.line("id copyright 2026 the xiangqi toolkit authors, MIT or Apache-2.0");
                out.line("id author the xiangqi toolkit authors");
                for line in options::all().filter_map(|o| protocol::format_option(dialect, o)) {
                    out.line(&line);
                }
                out.line("ucciok");
            }
            Dialect::Uci => {
                out.line(&format!("id name xqengine {version}"));
                out.line("id author the xiangqi toolkit authors");
                for line in options::all().filter_map(|o| protocol::format_option(dialect, o)) {
                    out.line(&line);
                }
                out.line("uciok");
            }
        }
    }

    /// Makes the hash table and opens the books and tables before a game's
    /// clock runs ([`Engine::prepare`]), saying what cannot be used.
    fn prepare(&mut self) {
        for note in self.engine.prepare() {
            self.info_string(&note);
        }
    }

    /// `setoption`: looked up in the option table, the value checked
    /// against the option's kind, then set; a bad value changes nothing
    /// and says why. Unknown options are ignored, as UCCI says (noted in
    /// debug mode).
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(spec) = options::find(name) else {
            if self.flags.debug {
                self.info_string(&format!("unknown option '{}' ignored", clip(name)));
            }
            return;
        };
        let (parsed, clamped) = match spec.parse(value) {
            Ok(parsed) => parsed,
            Err(takes) => {
                let given = clip(value.unwrap_or("").trim());
                self.info_string(&format!(
                    "option {}: bad value '{given}' (takes {takes})",
                    clip(name)
                ));
                return;
            }
        };
        if let Some(clamped) = clamped {
            self.info_string(&format!("option {}: {clamped}", clip(name)));
        }
        for note in self.apply(spec.setting, parsed) {
            self.info_string(&note);
        }
    }

    /// Sets what an option sets: the protocol's own flags here, the rest
    /// in the engine. Returns notes for the user.
    fn apply(&mut self, setting: Setting, value: OptionValue) -> Vec<String> {
        let flag = match setting {
            Setting::UseMillisec => &mut self.flags.use_millisec,
            Setting::Batch => &mut self.flags.batch,
            Setting::Debug => &mut self.flags.debug,
            Setting::ShowWdl => &mut self.flags.show_wdl,
            _ => return self.engine.set_option(setting, value),
        };
        *flag = value.check();
        Vec::new()
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let mut pos = match fen {
            None => Position::start(),
            Some(f) => match Position::from_fen(f) {
                Ok(p) => p,
                Err(e) => {
                    self.info_string(&format!("position refused, bad FEN: {e}"));
                    return;
                }
            },
        };
        for (i, m) in moves.iter().enumerate() {
            match pos.parse_move(m) {
                Ok(mv) => pos.make_move(mv),
                Err(e) => {
                    self.info_string(&format!("position refused, move {} is illegal: {e}", i + 1));
                    return;
                }
            }
        }
        self.engine.set_position(pos);
    }

    fn ban_moves(&mut self, moves: &[String]) {
        let mut banned = Vec::new();
        for m in moves {
            match self.engine.position().parse_move(m) {
                Ok(mv) => banned.push(mv),
                Err(e) => self.info_string(&format!("banmoves: {e}")),
            }
        }
        self.engine.set_banned(banned);
    }

    fn go(&mut self, mut limits: Limits, draw_offered: bool) {
        let position = self.engine.position().clone();
        limits.search_moves.retain(|&mv| {
            let legal = position.is_legal(mv);
            if !legal {
                self.info_string(&format!("searchmoves: {mv} is not legal here"));
            }
            legal
        });
        let budget = limits.budget_with(self.engine.options.move_overhead);
        if self.flags.debug {
            self.info_string(&format!("go {budget:?}"));
        }
        // Batch mode reads nothing until the search ends; a search that only
        // `stop` or `ponderhit` can end would then never end, so those are
        // read as usual during it.
        let ends_by_itself = limits.ends_within(&budget);
        if self.flags.batch && !ends_by_itself {
            self.info_string("batch: this search ends only on stop or ponderhit, which are read");
        }
        let reporter = Arc::new(LineReporter {
            out: self.out.clone(),
            dialect: self.dialect,
            wdl: (self.flags.show_wdl && self.dialect == Dialect::Uci)
                .then(|| self.engine.wdl_view()),
        });
        let (out, dialect, searching) = (self.out.clone(), self.dialect, self.searching.clone());
        *searching.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.engine.go_within(
            limits,
            budget,
            draw_offered,
            reporter,
            Box::new(move |best| {
                let mut busy = searching.lock().unwrap_or_else(|e| e.into_inner());
                // A book move's candidates, as `info string` lines: a
                // weight is no score.
                for candidate in &best.book {
                    out.line(&protocol::format_book_move(candidate));
                }
                out.line(&protocol::format_bestmove(dialect, &best));
                *busy = false;
            }),
        );
        if self.flags.batch && ends_by_itself {
            self.engine.wait();
        }
    }
}

/// Runs a session of `engine` on standard input and output.
pub fn run_stdio(engine: Engine) {
    let out = Output::new(Box::new(std::io::stdout()));
    Session::with_engine(engine, out).run_reader(std::io::BufReader::new(std::io::stdin()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A writer whose lines the test reads back.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Lines {
        fn take(&self) -> String {
            String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
        }
    }

    /// `hashsize` makes the table when it is set, so that no `go` pays for
    /// it, and says the size it gets when that is not the one asked.
    #[test]
    fn a_table_is_made_when_its_size_is_set_and_the_size_used_is_said() {
        let lines = Lines::default();
        let mut session = Session::new(Output::new(Box::new(lines.clone())));
        // A machine of 16 MB, so that the test allocates little.
        session.engine.memory_cap_mb = Some(8);
        session.handle_line("setoption hashsize 4");
        assert_eq!(lines.take(), "");
        assert_eq!(session.engine().hash_mb(), 4, "made when set");
        session.handle_line("setoption name Hash value 999999999");
        let said = lines.take();
        assert!(
            said.contains(
                "info string option Hash: 999999999 is out of range (0 to 65536), 65536 used"
            ),
            "{said}"
        );
        assert!(
            said.contains(
                "info string hashsize 65536 MB is more than half this machine's memory: \
                 the table gets at most 8 MB"
            ),
            "{said}"
        );
        assert_eq!(
            session.engine().hash_mb(),
            8,
            "made when set, at the size said"
        );
    }
}
