//! Engine processes: started from a command line, spoken to in UCCI or UCI
//! (told, or found out at the handshake), asked for moves, and measured.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::protocol::{
    read_answer, read_info, refuses_command, Answer, EngineOption, EngineScore, InfoLine, Protocol,
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

/// Memory of an engine's processes, in kB, from /proc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident anonymous memory now (heap and stacks; not the mapped book
    /// and table files, whose pages the system may drop at will).
    pub anon_kb: u64,
    /// The most resident memory so far (VmHWM), mapped files included.
    pub peak_kb: u64,
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
    /// The name the engine gave (`id name`), or its command.
    pub name: String,
    protocol: Protocol,
    /// UCCI: the engine took `usemillisec`, so times go in milliseconds.
    millis: bool,
    /// The names of the options it announced at the handshake.
    announced: Vec<String>,
}

/// Why an engine cannot be started or talked to. Every variant names the
/// engine: the name it gave (`id name`), or its command.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The shell that runs the command cannot be started.
    #[error("cannot start '{command}': {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// A line cannot be written to the engine (it has gone).
    #[error("{engine}: {source}")]
    Write {
        engine: String,
        source: std::io::Error,
    },
    /// The engine said nothing that was awaited in time.
    #[error("{engine}: no answer within {timeout:?}")]
    NoAnswer { engine: String, timeout: Duration },
    /// The engine's output ended: it exited.
    #[error("{engine}: exited")]
    Exited { engine: String },
    /// The engine did not complete the protocol's handshake.
    #[error("{engine}: no {} to {protocol}", protocol.hello_done())]
    NotThisProtocol { engine: String, protocol: Protocol },
    /// Found out at the handshake: the engine answered neither protocol;
    /// `source` is why UCI failed.
    #[error("{source} (and it did not answer ucci either)")]
    NeitherProtocol { source: Box<EngineError> },
}

/// Why a handshake failed.
enum HandshakeError {
    /// The engine does not speak this protocol (it said so, or was silent).
    NotThisProtocol,
    /// It cannot be talked to at all.
    Failed(EngineError),
}

impl EngineProcess {
    /// Starts the engine of `spec`, completes the handshake, sets its
    /// options and waits until it is ready.
    ///
    /// # Errors
    ///
    /// The command cannot be run, or the engine does not complete the
    /// handshake (in the protocol given, or in either), exits, or is not
    /// ready in time.
    pub fn start(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let mut engine = match spec.protocol {
            Some(protocol) => {
                let mut e = EngineProcess::spawn(&spec.command, protocol)?;
                let handshake = e.handshake(HANDSHAKE_TIMEOUT);
                handshake.map_err(|why| e.handshake_error(why))?;
                e
            }
            None => EngineProcess::start_detecting(&spec.command)?,
        };
        for option in &spec.options {
            engine.send(&engine.protocol.set_option(option))?;
        }
        engine.wait_ready()?;
        Ok(engine)
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
                // It exited (some engines do on an unknown first command).
                engine = EngineProcess::spawn(command, Protocol::Uci)?;
            }
            Err(HandshakeError::NotThisProtocol) => engine.protocol = Protocol::Uci,
        }
        let handshake = engine.handshake(HANDSHAKE_TIMEOUT);
        handshake.map_err(|why| EngineError::NeitherProtocol {
            source: Box::new(engine.handshake_error(why)),
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
            .stderr(Stdio::null());
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
            name: command.to_string(),
            protocol,
            millis: false,
            announced: Vec::new(),
        })
    }

    /// Sends the protocol's hello and reads the engine's name and options
    /// up to its `ucciok` / `uciok`.
    fn handshake(&mut self, timeout: Duration) -> Result<(), HandshakeError> {
        self.send(self.protocol.hello())
            .map_err(HandshakeError::Failed)?;
        let deadline = Instant::now() + timeout;
        let mut announces_millis = false;
        self.announced.clear();
        loop {
            let line = match self.next_line(deadline) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(HandshakeError::NotThisProtocol),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(HandshakeError::Failed(EngineError::Exited {
                        engine: self.name.clone(),
                    }))
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
    /// until it is ready.
    ///
    /// # Errors
    ///
    /// The engine has gone, or is not ready in time.
    pub fn set_option(&mut self, option: &EngineOption) -> Result<(), EngineError> {
        self.send(&self.protocol.set_option(option))?;
        self.wait_ready()
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
        self.send("isready")?;
        self.wait_for(|l| l == "readyok", HANDSHAKE_TIMEOUT)
            .map(drop)
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

    fn wait_for(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, EngineError> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_line(deadline) {
                Ok(l) if pred(&l) => return Ok(l),
                Ok(_) => {}
                Err(e) => return Err(self.silence(e, timeout)),
            }
        }
    }

    fn silence(&self, e: RecvTimeoutError, timeout: Duration) -> EngineError {
        let engine = self.name.clone();
        match e {
            RecvTimeoutError::Timeout => EngineError::NoAnswer { engine, timeout },
            RecvTimeoutError::Disconnected => EngineError::Exited { engine },
        }
    }

    /// The error of a failed handshake in the engine's protocol.
    fn handshake_error(&self, why: HandshakeError) -> EngineError {
        match why {
            HandshakeError::NotThisProtocol => EngineError::NotThisProtocol {
                engine: self.name.clone(),
                protocol: self.protocol,
            },
            HandshakeError::Failed(e) => e,
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

/// Kills the process group `id` leads (the engine's shell and whatever it
/// started), where the system has groups.
fn kill_group(id: u32) {
    #[cfg(unix)]
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{id}")])
        .stderr(Stdio::null())
        .status();
    #[cfg(not(unix))]
    let _ = id;
}

/// The memory of process `pid` and its descendants, summed.
fn memory_of_tree(pid: u32) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let mut total = Memory {
        anon_kb: field("RssAnon:"),
        peak_kb: field("VmHWM:"),
    };
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
        if let Some(m) = memory_of_tree(child) {
            total.anon_kb += m.anon_kb;
            total.peak_kb += m.peak_kb;
        }
    }
    Some(total)
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
}
