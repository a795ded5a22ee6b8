//! Engine processes: started from a command line, spoken to in UCCI or UCI
//! (told, or found out at the handshake), their options set and checked,
//! asked for moves, and measured.
//!
//! An engine that cannot be started says why: a command the shell cannot
//! find or run is told by what the shell printed and its exit status; an
//! option the engine does not announce, or answers with a refusal, stops
//! it before its first game rather than leave it playing without.

mod error;
mod stderr;
mod system;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub use error::EngineError;
use stderr::StderrTail;
pub use system::Memory;
use system::{kill_group, memory_of_tree};

use crate::protocol::{
    read_answer, read_info, refuses_command, refuses_option, Answer, EngineOption, EngineScore,
    InfoLine, Protocol,
};

/// How long an engine may take to answer the handshake, and `isready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// How to start one engine of a match.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Command line, run by `sh -c`.
    pub command: String,
    /// The protocol to speak; `None` finds it out: `ucci` first, then `uci`
    /// when the engine refuses that, does not answer, or exits.
    pub protocol: Option<Protocol>,
    /// Options set after the handshake, in order.
    pub options: Vec<EngineOption>,
}

impl EngineSpec {
    /// An engine found out at the handshake, with no options.
    pub fn new(command: &str) -> EngineSpec {
        EngineSpec {
            command: command.to_string(),
            protocol: None,
            options: Vec::new(),
        }
    }
}

/// An engine's answer to one `go`, with what its last `info` lines said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    pub answer: Answer,
    /// From `go` sent to the answer read.
    pub took: Duration,
    /// The last depth and score reported before the answer.
    pub depth: Option<u32>,
    pub score: Option<EngineScore>,
    /// The last `info` line with a score and a line of moves for each
    /// line of a multi-line search (UCI `MultiPV`), in the order the lines
    /// were first reported; one for a single-line search.
    pub lines: Vec<InfoLine>,
    /// Every `info` line with a score and a line of moves, in the order
    /// reported: each iteration's, for what is made of more than the last.
    pub reports: Vec<InfoLine>,
}

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The end of its standard error, for saying why it could not be
    /// started or exited.
    stderr: StderrTail,
    /// The name the engine gave (`id name`), or its command.
    pub name: String,
    /// The command line that started it.
    command: String,
    protocol: Protocol,
    /// UCCI: the engine took `usemillisec`, so times go in milliseconds.
    millis: bool,
    /// The names of the options it announced at the handshake.
    announced: Vec<String>,
}

/// Why a handshake failed.
enum HandshakeError {
    /// The engine does not speak this protocol (it said so, or was silent).
    NotThisProtocol,
    /// It cannot be talked to at all.
    Failed(EngineError),
}

/// The exit statuses of a shell that could not find a command (127) or
/// run it (126). The dynamic loader also exits with 127, when a library the
/// program needs is missing: [`says_not_found`] tells them apart.
const NOT_RUN: [i32; 2] = [126, 127];

/// Whether the shell's last line says it found no such command (`sh: 1:
/// ./x: not found`, bash's `./x: No such file or directory`), rather than
/// the dynamic loader that it found no library (`./x: error while loading
/// shared libraries: libm.so.6: cannot open shared object file: No such
/// file or directory`).
fn says_not_found(shell_says: &str) -> bool {
    let lower = shell_says.to_ascii_lowercase();
    (lower.contains("not found") || lower.contains("no such file"))
        && !lower.contains("shared librar")
}

/// How long a failed engine is given to exit and finish its standard
/// error before its exit status is read.
const EXIT_WAIT: Duration = Duration::from_secs(2);

impl EngineProcess {
    /// Starts the engine of `spec`, completes the handshake and sets its
    /// options, each checked (and followed by `isready`, so that what the
    /// engine answers is read as its answer to that option), until it is
    /// ready. The start that checks an engine before its first game; the
    /// games' own starts send the options unchecked.
    ///
    /// # Errors
    ///
    /// The command cannot be found or run, or the engine does not complete
    /// the handshake (in the protocol given, or in either), exits, is not
    /// ready in time, or does not take one of the options (see
    /// [`EngineProcess::set_option`]).
    pub fn start(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::start_speaking(spec)?;
        // No `isready` before the first option: getting ready makes the
        // engine's default setup (its hash table, books and tables), which
        // options such as `hashsize` and `bookfiles` would then make again.
        // What it says while getting ready is told from a refusal by
        // whether it is about the option (see `refuses_option`).
        for option in &spec.options {
            engine.set_option(option)?;
        }
        if spec.options.is_empty() {
            engine.wait_ready()?;
        }
        Ok(engine)
    }

    /// Starts the engine of `spec` for a game, its options checked before
    /// by [`EngineProcess::start`]: the handshake, all the options, then
    /// one `isready`, so that the engine makes its setup once, at the
    /// options' sizes (the memory of a game is measured on this engine).
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::start`], but for options.
    pub(crate) fn start_for_game(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::start_speaking(spec)?;
        for option in &spec.options {
            engine.send(&engine.protocol.set_option(option))?;
        }
        engine.wait_ready()?;
        Ok(engine)
    }

    /// Starts the engine of `spec` and completes the handshake, in the
    /// protocol given or the one found out.
    fn start_speaking(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        match spec.protocol {
            Some(protocol) => {
                let mut engine = EngineProcess::spawn(&spec.command, protocol)?;
                let handshake = engine.handshake(HANDSHAKE_TIMEOUT);
                handshake.map_err(|why| engine.start_error(why))?;
                Ok(engine)
            }
            None => EngineProcess::start_detecting(&spec.command),
        }
    }

    /// Starts `command`, trying UCCI first (an engine that speaks both is
    /// spoken to in UCCI), then UCI, in the same process when it is still
    /// there, else in a new one.
    fn start_detecting(command: &str) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::spawn(command, Protocol::Ucci)?;
        // A UCI engine usually says at once that it does not know `ucci`;
        // the wait is for one that says nothing.
        match engine.handshake(Duration::from_secs(10)) {
            Ok(()) => return Ok(engine),
            Err(HandshakeError::Failed(_)) => {
                // A command the shell cannot run fails the same in UCI.
                if let Some(not_found) = engine.not_run() {
                    return Err(not_found);
                }
                // It exited (some engines do on an unknown first command).
                engine = EngineProcess::spawn(command, Protocol::Uci)?;
            }
            Err(HandshakeError::NotThisProtocol) => engine.protocol = Protocol::Uci,
        }
        let handshake = engine.handshake(HANDSHAKE_TIMEOUT);
        handshake.map_err(|why| match engine.start_error(why) {
            e @ (EngineError::NotFound { .. } | EngineError::NotRun { .. }) => e,
            e => EngineError::NeitherProtocol {
                source: Box::new(e),
            },
        })?;
        Ok(engine)
    }

    fn spawn(command: &str, protocol: Protocol) -> Result<EngineProcess, EngineError> {
        let mut shell = Command::new("sh");
        shell
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A process group of its own: Ctrl-C at the terminal reaches the
        // runner alone (which then ends the games itself), and an engine
        // that hangs is killed with everything it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut shell, 0);
        let mut child = shell.spawn().map_err(|source| EngineError::Spawn {
            command: command.to_string(),
            source,
        })?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let stderr = StderrTail::collect(child.stderr.take().expect("piped"));
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines: rx,
            stderr,
            name: command.to_string(),
            command: command.to_string(),
            protocol,
            millis: false,
            announced: Vec::new(),
        })
    }

    /// Sends the protocol's hello and reads the engine's name and options
    /// up to its `ucciok` / `uciok`.
    fn handshake(&mut self, timeout: Duration) -> Result<(), HandshakeError> {
        // A process that is already gone closed its input: that it exited,
        // with its last words, is what there is to say, not the broken
        // pipe (which one of the two comes first is a race).
        if let Err(e) = self.send(self.protocol.hello()) {
            return Err(HandshakeError::Failed(match &e {
                EngineError::Write { source, .. }
                    if source.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    self.exited()
                }
                _ => e,
            }));
        }
        let deadline = Instant::now() + timeout;
        let mut announces_millis = false;
        self.announced.clear();
        loop {
            let line = match self.next_line(deadline) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(HandshakeError::NotThisProtocol),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(HandshakeError::Failed(self.exited()));
                }
            };
            if line == self.protocol.hello_done() {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = name.trim().to_string();
            } else if let Some(option) = self.protocol.announced_option(&line) {
                announces_millis |= option == "usemillisec";
                self.announced.push(option.to_string());
            } else if refuses_command(&line) {
                return Err(HandshakeError::NotThisProtocol);
            }
        }
        if self.protocol == Protocol::Ucci && announces_millis {
            self.send("setoption usemillisec true")
                .map_err(HandshakeError::Failed)?;
            self.millis = true;
        }
        Ok(())
    }

    /// The protocol the engine is spoken to in.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Whether the engine announced the option `name` at its handshake
    /// (letter case aside, as UCI compares names). An engine ignores an
    /// option it does not know, often silently.
    pub fn announces(&self, name: &str) -> bool {
        self.announced.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Whether UCCI times are sent in milliseconds.
    pub fn millis(&self) -> bool {
        self.millis
    }

    /// The memory of the engine's processes (the shell that started it and
    /// its descendants), where the system tells (Linux).
    pub fn memory(&self) -> Option<Memory> {
        memory_of_tree(self.child.id())
    }

    /// Sets an option of the engine (in its protocol's words) and waits
    /// until it is ready, reading what it answers on the way.
    ///
    /// # Errors
    ///
    /// The engine announced options at its handshake but not this one
    /// (an engine ignores an option it does not know, often silently; one
    /// that announces none is left to say so itself), it answered with a
    /// refusal (a line about the option, or a file its value names, that
    /// says it is unknown, bad or cannot be used), it has gone, or it is
    /// not ready in time.
    pub fn set_option(&mut self, option: &EngineOption) -> Result<(), EngineError> {
        if !self.announced.is_empty() && !self.announces(&option.name) {
            return Err(EngineError::UnknownOption {
                engine: self.name.clone(),
                name: option.name.clone(),
                announced: self.announced.clone(),
            });
        }
        self.send(&self.protocol.set_option(option))?;
        let answers = self.answers_until_ready()?;
        match answers
            .into_iter()
            .find(|line| refuses_option(line, option))
        {
            Some(reply) => Err(EngineError::OptionRefused {
                engine: self.name.clone(),
                option: option.to_string(),
                reply,
            }),
            None => Ok(()),
        }
    }

    /// Tells the engine a new game starts and waits until it is ready.
    ///
    /// # Errors
    ///
    /// The engine has gone, or is not ready in time.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send(self.protocol.new_game())?;
        self.wait_ready()
    }

    /// `isready`, answered by `readyok`.
    fn wait_ready(&mut self) -> Result<(), EngineError> {
        self.answers_until_ready().map(drop)
    }

    /// `isready`, and the lines the engine prints before its `readyok`.
    fn answers_until_ready(&mut self) -> Result<Vec<String>, EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut answers = Vec::new();
        loop {
            match self.next_line(deadline) {
                Ok(line) if line == "readyok" => return Ok(answers),
                Ok(line) => answers.push(line),
                Err(e) => return Err(self.silence(e, HANDSHAKE_TIMEOUT)),
            }
        }
    }

    pub(crate) fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| EngineError::Write {
                engine: self.name.clone(),
                source,
            })
    }

    fn next_line(&self, deadline: Instant) -> Result<String, RecvTimeoutError> {
        self.lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map(|l| l.trim().to_string())
    }

    fn silence(&self, e: RecvTimeoutError, timeout: Duration) -> EngineError {
        match e {
            RecvTimeoutError::Timeout => EngineError::NoAnswer {
                engine: self.name.clone(),
                timeout,
            },
            RecvTimeoutError::Disconnected => self.exited(),
        }
    }

    /// [`EngineError::Exited`], with the engine's last words on its
    /// standard error.
    fn exited(&self) -> EngineError {
        EngineError::Exited {
            engine: self.name.clone(),
            stderr: self.last_stderr_line(),
        }
    }

    /// The last line of the engine's standard error, once the stream has
    /// ended (an engine that has just exited may still have its last words
    /// in the pipe), or after a moment.
    fn last_stderr_line(&self) -> String {
        self.stderr.wait_closed(Instant::now() + EXIT_WAIT);
        self.stderr.last_line()
    }

    /// The error of a failed handshake in the engine's protocol: the
    /// shell's, when it could not run the command.
    fn start_error(&mut self, why: HandshakeError) -> EngineError {
        match why {
            HandshakeError::NotThisProtocol => EngineError::NotThisProtocol {
                engine: self.name.clone(),
                protocol: self.protocol,
                stderr: self.stderr.last_line(),
            },
            HandshakeError::Failed(e) => self.not_run().unwrap_or(e),
        }
    }

    /// The error of a command the engine's shell could not find or run, as
    /// its exit status (126 or 127) and its last line on standard error
    /// tell: [`EngineError::NotFound`] only when the line says so, as the
    /// dynamic loader's 127 for a missing library is no missing command;
    /// else [`EngineError::NotRun`]. `None` when the shell ran it.
    fn not_run(&mut self) -> Option<EngineError> {
        let status = self.exit_status()?;
        if !NOT_RUN.contains(&status) {
            return None;
        }
        let command = self.command.clone();
        let shell_says = self.last_stderr_line();
        Some(if status == 127 && says_not_found(&shell_says) {
            EngineError::NotFound {
                command,
                status,
                shell_says,
            }
        } else {
            EngineError::NotRun {
                command,
                status,
                shell_says,
            }
        })
    }

    /// The exit status of the engine's shell, waited for a moment (the
    /// engine having just failed); `None` when it is still running or was
    /// killed by a signal.
    fn exit_status(&mut self) -> Option<i32> {
        let deadline = Instant::now() + EXIT_WAIT;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => return None,
            }
        }
    }

    /// Sends `position_command` and `go_command` and waits up to `wait`
    /// for the answer, reading the `info` lines on the way.
    ///
    /// # Errors
    ///
    /// The engine has gone, or gives no answer within `wait`.
    pub fn think(
        &mut self,
        position_command: &str,
        go_command: &str,
        wait: Duration,
    ) -> Result<Thought, EngineError> {
        self.send(position_command)?;
        let started = Instant::now();
        self.send(go_command)?;
        let deadline = started + wait;
        let (mut depth, mut score) = (None, None);
        let (mut lines, mut reports): (Vec<InfoLine>, Vec<InfoLine>) = (Vec::new(), Vec::new());
        loop {
            let line = self
                .next_line(deadline)
                .map_err(|e| self.silence(e, wait))?;
            if let Some(answer) = read_answer(&line) {
                return Ok(Thought {
                    answer,
                    took: started.elapsed(),
                    depth,
                    score,
                    lines,
                    reports,
                });
            }
            if let Some(info) = read_info(self.protocol, &line) {
                depth = info.depth.or(depth);
                score = info.score.or(score);
                if info.score.is_some() && !info.pv.is_empty() {
                    let index = info.multipv.unwrap_or(1);
                    reports.push(info.clone());
                    match lines.iter_mut().find(|l| l.multipv.unwrap_or(1) == index) {
                        Some(known) => *known = info,
                        None => lines.push(info),
                    }
                }
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell engine that speaks only UCI and says so when spoken to in
    /// UCCI, as Pikafish does.
    const UCI_ONLY: &str = "echo 'Banner 1.0'; while read -r line; do case \"$line\" in \
        uci) echo 'id name ShellUci'; echo 'option name Hash type spin default 16 min 1 max 64'; echo uciok;; \
        isready) echo readyok;; quit) exit 0;; *) echo \"Unknown command: '$line'\";; esac; done";

    /// A shell engine that exits on anything but `uci`.
    const EXITS_ON_UCCI: &str = "while read -r line; do case \"$line\" in \
        uci) echo 'id name Strict'; echo uciok;; isready) echo readyok;; quit) exit 0;; *) exit 1;; esac; done";

    /// A shell UCCI engine that takes `usemillisec`.
    const UCCI_MILLIS: &str = "while read -r line; do case \"$line\" in \
        ucci) echo 'id name ShellUcci'; echo 'option usemillisec type check default false'; echo ucciok;; \
        isready) echo readyok;; quit) exit 0;; esac; done";

    #[test]
    fn the_protocol_is_found_at_the_handshake() {
        let uci = EngineProcess::start(&EngineSpec::new(UCI_ONLY)).unwrap();
        assert_eq!(uci.protocol(), Protocol::Uci);
        assert_eq!(uci.name, "ShellUci");
        // Its options, letter case aside as UCI compares them.
        assert!(uci.announces("hash") && !uci.announces("Threads"));
        let strict = EngineProcess::start(&EngineSpec::new(EXITS_ON_UCCI)).unwrap();
        assert_eq!(strict.protocol(), Protocol::Uci);
        assert_eq!(strict.name, "Strict");
        let ucci = EngineProcess::start(&EngineSpec::new(UCCI_MILLIS)).unwrap();
        assert_eq!(ucci.protocol(), Protocol::Ucci);
        assert!(ucci.millis());
        assert!(ucci.announces("usemillisec") && !ucci.announces("hash"));
    }

    #[test]
    fn a_protocol_given_is_the_one_spoken() {
        let spec = EngineSpec {
            protocol: Some(Protocol::Ucci),
            ..EngineSpec::new(UCI_ONLY)
        };
        let refused = EngineProcess::start(&spec).err().unwrap();
        assert!(
            matches!(
                refused,
                EngineError::NotThisProtocol {
                    protocol: Protocol::Ucci,
                    ..
                }
            ),
            "{refused}"
        );
        assert!(refused.to_string().contains("no ucciok to ucci"));
        let spec = EngineSpec {
            protocol: Some(Protocol::Uci),
            ..EngineSpec::new(UCI_ONLY)
        };
        assert_eq!(
            EngineProcess::start(&spec).unwrap().protocol(),
            Protocol::Uci
        );
    }

    #[test]
    fn thinking_reads_info_lines_up_to_the_answer() {
        let engine = "while read -r line; do case \"$line\" in \
            uci) echo uciok;; isready) echo readyok;; \
            go*) echo 'info depth 1 score cp 10 pv h2e2'; echo 'info depth 2 score mate 3 pv h2e2'; \
            echo 'info string thinking'; echo 'bestmove h2e2 ponder h9g7';; quit) exit 0;; esac; done";
        let spec = EngineSpec {
            protocol: Some(Protocol::Uci),
            ..EngineSpec::new(engine)
        };
        let mut e = EngineProcess::start(&spec).unwrap();
        let thought = e
            .think("position startpos", "go depth 2", Duration::from_secs(10))
            .unwrap();
        assert_eq!(thought.depth, Some(2));
        assert_eq!(thought.score, Some(EngineScore::Mate(3)));
        assert_eq!(
            thought.answer,
            Answer::Move {
                mv: "h2e2".into(),
                draw: false,
                resign: false
            }
        );
        assert_eq!(thought.lines.len(), 1);
        assert_eq!(thought.lines[0].depth, Some(2));
    }

    #[test]
    fn each_line_of_a_multi_line_search_keeps_its_last_report() {
        let engine = "while read -r line; do case \"$line\" in \
            uci) echo uciok;; isready) echo readyok;; setoption*) ;; \
            go*) echo 'info depth 1 multipv 1 score cp 30 pv h2e2 h9g7'; \
            echo 'info depth 1 multipv 2 score cp 10 pv b2e2'; \
            echo 'info depth 2 multipv 1 score cp 25 pv b2e2 h9g7'; \
            echo 'info depth 2 multipv 2 score cp 20 pv h2e2'; \
            echo 'info depth 2 currmove c3c4 currmovenumber 3'; \
            echo 'bestmove b2e2';; quit) exit 0;; esac; done";
        let spec = EngineSpec {
            protocol: Some(Protocol::Uci),
            ..EngineSpec::new(engine)
        };
        let mut e = EngineProcess::start(&spec).unwrap();
        e.set_option(&EngineOption {
            name: "MultiPV".into(),
            value: Some("2".into()),
        })
        .unwrap();
        let thought = e
            .think(
                "position startpos",
                "go depth 2 searchmoves h2e2 b2e2",
                Duration::from_secs(10),
            )
            .unwrap();
        let lines: Vec<(Option<u32>, Option<EngineScore>, &str)> = thought
            .lines
            .iter()
            .map(|l| (l.multipv, l.score, l.pv[0].as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (Some(1), Some(EngineScore::Cp(25)), "b2e2"),
                (Some(2), Some(EngineScore::Cp(20)), "h2e2"),
            ]
        );
    }

    #[test]
    fn a_command_the_shell_cannot_find_or_run_says_so() {
        for protocol in [None, Some(Protocol::Ucci), Some(Protocol::Uci)] {
            let spec = EngineSpec {
                protocol,
                ..EngineSpec::new("./no-such-engine --fast")
            };
            let missing = EngineProcess::start(&spec).err().unwrap();
            assert!(
                matches!(missing, EngineError::NotFound { status: 127, .. }),
                "{missing}"
            );
            let text = missing.to_string();
            assert!(
                text.starts_with("cannot start './no-such-engine --fast': not found ("),
                "{text}"
            );
            // The shell's own words, e.g. `sh: 1: ./no-such-engine: not found`.
            assert!(
                text.contains("no-such-engine") && text.ends_with(')'),
                "{text}"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let unrunnable = dir.path().join("engine");
        std::fs::write(&unrunnable, "not a program").unwrap();
        let command = unrunnable.display().to_string();
        let refused = EngineProcess::start(&EngineSpec::new(&command))
            .err()
            .unwrap();
        assert!(
            refused
                .to_string()
                .starts_with(&format!("cannot start '{command}': not executable (")),
            "{refused}"
        );
        // An engine that exits by itself is no command the shell missed,
        // and its last words are told.
        let exits = EngineProcess::start(&EngineSpec::new(
            "echo 'cannot open nets/x.xqnn' >&2; exit 3",
        ))
        .err()
        .unwrap();
        assert!(!matches!(exits, EngineError::NotFound { .. }), "{exits}");
        assert!(
            exits
                .to_string()
                .contains(": exited (stderr: cannot open nets/x.xqnn) (and it did not answer ucci"),
            "{exits}"
        );
    }

    #[test]
    fn a_library_the_loader_cannot_find_is_no_missing_command() {
        let loader = "./engine: error while loading shared libraries: libxq.so.1: \
            cannot open shared object file: No such file or directory";
        let command = format!("echo '{loader}' >&2; exit 127");
        let failed = EngineProcess::start(&EngineSpec::new(&command))
            .err()
            .unwrap();
        assert!(
            matches!(failed, EngineError::NotRun { status: 127, .. }),
            "{failed}"
        );
        assert_eq!(
            failed.to_string(),
            format!("cannot start '{command}': cannot be run (exit 127: {loader})")
        );
    }

    /// A shell UCCI engine with options `hashsize` and `bookfiles` that
    /// writes what it is sent to the file `$LOG`, and says while it gets
    /// ready that it cannot open its default book, as our engine does
    /// without one.
    const LOGS: &str = "while read -r line; do echo \"$line\" >> \"$LOG\"; case \"$line\" in \
        ucci) echo 'option hashsize type spin min 0 max 64 default 16'; \
        echo 'option bookfiles type string default'; echo ucciok;; \
        isready) echo 'info string book not used: /data/book.xqb: No such file or directory (os error 2)'; \
        echo readyok;; quit) exit 0;; esac; done";

    #[test]
    fn options_go_before_the_first_isready_each_checked_or_all_at_once_for_a_game() {
        let dir = tempfile::tempdir().unwrap();
        let sent = |start: fn(&EngineSpec) -> Result<EngineProcess, EngineError>| {
            let log = dir.path().join("log");
            let spec = EngineSpec {
                options: vec![
                    "hashsize=8".parse().unwrap(),
                    "bookfiles=a.xqb".parse().unwrap(),
                ],
                ..EngineSpec::new(&format!("LOG='{}'; {LOGS}", log.display()))
            };
            drop(start(&spec).unwrap());
            let sent = std::fs::read_to_string(&log).unwrap();
            std::fs::remove_file(&log).unwrap();
            sent
        };
        // The note of getting ready is of no option: no refusal.
        assert_eq!(
            sent(EngineProcess::start),
            "ucci\nsetoption hashsize 8\nisready\nsetoption bookfiles a.xqb\nisready\nquit\n"
        );
        assert_eq!(
            sent(EngineProcess::start_for_game),
            "ucci\nsetoption hashsize 8\nsetoption bookfiles a.xqb\nisready\nquit\n"
        );
    }

    /// A shell UCCI engine with one option, `hashsize` (a number), that
    /// refuses any other value as our engine does.
    const PICKY: &str = "while read -r line; do case \"$line\" in \
        ucci) echo 'id name Picky'; echo 'option hashsize type spin min 0 max 64 default 16'; echo ucciok;; \
        'setoption hashsize '*[!0-9]*) echo \"info string option hashsize: bad value '${line#setoption hashsize }'\";; \
        isready) echo readyok;; quit) exit 0;; esac; done";

    /// A shell UCI engine that announces no option and refuses them all,
    /// as Stockfish's descendants refuse an unknown one.
    const NO_OPTIONS: &str = "while read -r line; do case \"$line\" in \
        uci) echo 'id name Bare'; echo uciok;; \
        'setoption name '*) n=${line#setoption name }; echo \"No such option: ${n% value *}\";; \
        isready) echo readyok;; quit) exit 0;; *) echo \"Unknown command: '$line'\";; esac; done";

    #[test]
    fn options_the_engine_refuses_or_does_not_announce_stop_it() {
        let with = |command: &str, option: &str| EngineSpec {
            options: vec![option.parse().unwrap()],
            ..EngineSpec::new(command)
        };
        assert!(EngineProcess::start(&with(PICKY, "hashsize=32")).is_ok());
        let refused = EngineProcess::start(&with(PICKY, "hashsize=abc"))
            .err()
            .unwrap();
        assert!(
            matches!(refused, EngineError::OptionRefused { .. }),
            "{refused}"
        );
        assert_eq!(
            refused.to_string(),
            "Picky: option 'hashsize=abc' refused: info string option hashsize: bad value 'abc'"
        );
        let unknown = EngineProcess::start(&with(PICKY, "hashsiz=32"))
            .err()
            .unwrap();
        assert_eq!(
            unknown.to_string(),
            "Picky: unknown option 'hashsiz' (not among the options it announces: hashsize)"
        );
        let bare = EngineProcess::start(&with(NO_OPTIONS, "Hash=16"))
            .err()
            .unwrap();
        assert_eq!(
            bare.to_string(),
            "Bare: option 'Hash=16' refused: No such option: Hash"
        );
        // Set on a running engine, the same.
        let mut picky = EngineProcess::start(&EngineSpec::new(PICKY)).unwrap();
        assert!(picky.set_option(&"hashsize 8".parse().unwrap()).is_ok());
        let refused = picky.set_option(&"hashsize=x".parse().unwrap());
        assert!(
            matches!(refused, Err(EngineError::OptionRefused { .. })),
            "{refused:?}"
        );
    }
}
