//! The protocol session: reads command lines from a channel, drives the
//! [`Engine`], and writes replies. Input is read by its own thread, so `stop`,
//! `isready` and `ponderhit` are answered while the search runs.

use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use xqcore::{Color, Move, Position};

use crate::book::BookVariety;
use crate::engine::{Engine, GoRequest};
use crate::eval::Knowledge;
use crate::protocol::{self, clip, Command, Dialect, GoArgs};
use crate::search::{Pruning, RepetitionRule, Reporter, SearchInfo};
use crate::time::{limits_for, Clock};

/// A shared, line-flushed output.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Wraps a writer.
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line and flushes it.
    pub fn line(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }
}

struct LineReporter {
    out: Output,
    dialect: Dialect,
}

impl Reporter for LineReporter {
    fn info(&self, info: &SearchInfo) {
        self.out.line(&protocol::format_info(self.dialect, info));
    }

    fn currmove(&self, mv: Move, number: usize, _depth: i32) {
        self.out.line(&protocol::format_currmove(mv, number));
    }

    fn message(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    fn book_move(&self, mv: Move, weight: u32) {
        self.out
            .line(&protocol::format_book_move(self.dialect, mv, weight));
    }
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
    use_millisec: bool,
    batch: bool,
    debug: bool,
}

/// Whether the session goes on after a command.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

const LEVELS: [&str; 4] = ["none", "small", "medium", "large"];

impl Session {
    /// A session writing to `out`.
    pub fn new(out: Output) -> Session {
        Session {
            engine: Engine::new(),
            searching: Arc::new(Mutex::new(false)),
            out,
            dialect: Dialect::Ucci,
            booted: false,
            use_millisec: false,
            batch: false,
            debug: false,
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
        let command = match protocol::parse(line) {
            Ok(c) => c,
            Err(reason) => {
                self.info_string(&reason);
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
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => self.engine.new_game(),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::BanMoves(moves) => self.ban_moves(&moves),
            Command::Go(args) => self.go(args),
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
                for line in ucci_options() {
                    out.line(&line);
                }
                out.line("ucciok");
            }
            Dialect::Uci => {
                out.line(&format!("id name xqengine {version}"));
                out.line("id author the xiangqi toolkit authors");
                for line in uci_options() {
                    out.line(&line);
                }
                out.line("uciok");
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let key = name.to_ascii_lowercase().replace(' ', "");
        // UCI GUIs send `<empty>` for an empty string option.
        let v = value.unwrap_or("").trim();
        let v = if v == "<empty>" { "" } else { v };
        let flag = || matches!(v.to_ascii_lowercase().as_str(), "true" | "on" | "1" | "yes");
        let level = || LEVELS.iter().position(|l| v.eq_ignore_ascii_case(l));
        let opts = &mut self.engine.options;
        let ok = match key.as_str() {
            "usemillisec" => {
                self.use_millisec = flag();
                true
            }
            "batch" => {
                self.batch = flag();
                true
            }
            "debug" => {
                self.debug = flag();
                true
            }
            "ponder" => {
                opts.ponder = flag();
                true
            }
            "usebook" => {
                opts.use_book = flag();
                true
            }
            "useegtb" => {
                opts.use_egtb = flag();
                true
            }
            "bookfiles" => {
                let files = split_paths(v);
                self.engine.set_book_files(files);
                true
            }
            "egtbpaths" => {
                opts.egtb_paths = split_paths(v);
                true
            }
            "hashsize" | "hash" => v
                .parse()
                .map(|mb: usize| opts.hash_mb = mb.min(65_536))
                .is_ok(),
            "threads" => v.parse().map(|n: usize| opts.threads = n.min(256)).is_ok(),
            "multipv" => v
                .parse()
                .map(|n: usize| opts.multipv = n.clamp(1, 128))
                .is_ok(),
            "drawmoves" => v.parse().map(|n: u32| opts.draw_plies = n.max(1)).is_ok(),
            "repetition" => match v.to_ascii_lowercase().as_str() {
                "alwaysdraw" => Some(RepetitionRule::AlwaysDraw),
                "checkban" => Some(RepetitionRule::CheckBan),
                "asianrule" => Some(RepetitionRule::AsianRule),
                "chineserule" => Some(RepetitionRule::ChineseRule),
                _ => None,
            }
            .map(|r| opts.repetition = r)
            .is_some(),
            "pruning" => level()
                .map(|l| {
                    opts.pruning = [
                        Pruning::None,
                        Pruning::Small,
                        Pruning::Medium,
                        Pruning::Large,
                    ][l]
                })
                .is_some(),
            "knowledge" => level()
                .map(|l| {
                    opts.knowledge = [
                        Knowledge::None,
                        Knowledge::Small,
                        Knowledge::Medium,
                        Knowledge::Large,
                    ][l]
                })
                .is_some(),
            "selectivity" => level()
                .map(|l| {
                    opts.randomness = [0, 10, 25, 50][l];
                    opts.book_variety = [
                        BookVariety::None,
                        BookVariety::Small,
                        BookVariety::Medium,
                        BookVariety::Large,
                    ][l];
                })
                .is_some(),
            "style" => match v.to_ascii_lowercase().as_str() {
                "solid" => Some(0),
                "normal" => Some(10),
                "risky" => Some(30),
                _ => None,
            }
            .map(|c| opts.contempt = c)
            .is_some(),
            "clearhash" => {
                self.engine.clear_hash();
                true
            }
            "newgame" => {
                self.engine.new_game();
                true
            }
            "loadbook" => {
                let (errors, open) = self.engine.load_books();
                for e in errors {
                    self.info_string(&e);
                }
                self.info_string(&format!("loadbook: {open} book file(s) open"));
                true
            }
            "dualtime" => true,
            _ => {
                if self.debug {
                    self.info_string(&format!("unknown option '{}' ignored", clip(name)));
                }
                true
            }
        };
        if !ok {
            self.info_string(&format!("option {}: bad value '{}'", clip(name), clip(v)));
        }
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

    /// Converts a protocol time to a duration (UCCI: seconds unless usemillisec).
    fn duration(&self, t: f64) -> Duration {
        let ms = match self.dialect {
            Dialect::Ucci if !self.use_millisec => t * 1000.0,
            _ => t,
        };
        Duration::from_secs_f64((ms / 1000.0).clamp(0.0, 1e9))
    }

    fn go(&mut self, args: GoArgs) {
        let red = self.engine.position().turn() == Color::Red;
        let mut req = GoRequest {
            ponder: args.ponder,
            draw_offered: args.draw,
            depth: args.depth,
            nodes: args.nodes,
            mate: args.mate,
            infinite: args.infinite,
            movetime: args.movetime.map(|t| self.duration(t)),
            ..GoRequest::default()
        };
        let remaining = args.time.or(if red { args.wtime } else { args.btime });
        let increment = args.increment.or(if red { args.winc } else { args.binc });
        if let Some(t) = remaining {
            req.clock = Some(Clock {
                remaining: self.duration(t),
                movestogo: args.movestogo,
                increment: increment.map_or(Duration::ZERO, |i| self.duration(i)),
            });
        }
        for m in &args.search_moves {
            match self.engine.position().parse_move(m) {
                Ok(mv) => req.search_moves.push(mv),
                Err(e) => self.info_string(&format!("searchmoves: {e}")),
            }
        }
        if self.debug {
            self.info_string(&format!("go {:?}", limits_for(&req)));
        }
        // Batch mode reads nothing until the search ends; a search that only
        // `stop` or `ponderhit` can end would then never end, so those are
        // read as usual during it.
        let ends_by_itself = !req.ponder && !limits_for(&req).infinite;
        if self.batch && !ends_by_itself {
            self.info_string("batch: this search ends only on stop or ponderhit, which are read");
        }
        let reporter = Arc::new(LineReporter {
            out: self.out.clone(),
            dialect: self.dialect,
        });
        let (out, dialect, searching) = (self.out.clone(), self.dialect, self.searching.clone());
        *searching.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.engine.go(
            req,
            reporter,
            Box::new(move |best| {
                let mut busy = searching.lock().unwrap_or_else(|e| e.into_inner());
                out.line(&protocol::format_bestmove(dialect, &best));
                *busy = false;
            }),
        );
        if self.batch && ends_by_itself {
            self.engine.wait();
        }
    }
}

fn split_paths(v: &str) -> Vec<String> {
    v.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn ucci_options() -> Vec<String> {
    let levels = "var none var small var medium var large";
    vec![
        "option usemillisec type check default false".into(),
        "option batch type check default false".into(),
        "option debug type check default false".into(),
        "option ponder type check default false".into(),
        "option usebook type check default true".into(),
        "option useegtb type check default true".into(),
        "option bookfiles type string default".into(),
        "option egtbpaths type string default".into(),
        "option hashsize type spin min 0 max 65536 default 0".into(),
        "option threads type spin min 0 max 256 default 1".into(),
        "option drawmoves type spin min 1 max 10000 default 120".into(),
        "option repetition type combo var alwaysdraw var checkban var asianrule var chineserule default asianrule".into(),
        format!("option pruning type combo {levels} default large"),
        format!("option knowledge type combo {levels} default large"),
        format!("option selectivity type combo {levels} default none"),
        "option style type combo var solid var normal var risky default normal".into(),
        "option loadbook type button".into(),
        "option clearhash type button".into(),
        "option newgame type button".into(),
        "option dualtime type label".into(),
    ]
}

fn uci_options() -> Vec<String> {
    let levels = "var none var small var medium var large";
    vec![
        "option name Hash type spin default 64 min 1 max 65536".into(),
        "option name Threads type spin default 1 min 1 max 256".into(),
        "option name Ponder type check default false".into(),
        "option name MultiPV type spin default 1 min 1 max 128".into(),
        "option name Clear Hash type button".into(),
        "option name UseBook type check default true".into(),
        "option name BookFiles type string default <empty>".into(),
        "option name UseEGTB type check default true".into(),
        "option name EGTBPaths type string default <empty>".into(),
        "option name DrawMoves type spin default 120 min 1 max 10000".into(),
        "option name Repetition type combo default asianrule var alwaysdraw var checkban var asianrule var chineserule".into(),
        format!("option name Pruning type combo default large {levels}"),
        format!("option name Knowledge type combo default large {levels}"),
        format!("option name Selectivity type combo default none {levels}"),
        "option name Style type combo default normal var solid var normal var risky".into(),
    ]
}

/// Runs a session on standard input and output.
pub fn run_stdio() {
    let out = Output::new(Box::new(std::io::stdout()));
    Session::new(out).run_reader(std::io::BufReader::new(std::io::stdin()));
}
