//! Drives `xqengine` over stdin/stdout; its lines are read by xqmatch's
//! reader of engine output, as the match runner reads them.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use xqmatch::{read_answer, read_info, Answer, InfoLine, Protocol};

/// A running engine with a line reader.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

impl Engine {
    /// Starts the engine binary.
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xqengine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start xqengine");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Starts the engine and completes the UCCI handshake.
    pub fn ucci() -> Engine {
        let mut e = Engine::start();
        e.send("ucci");
        e.expect("ucciok", Duration::from_secs(5));
        e
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the engine's standard input.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, if one comes within `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.seen.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one starts with `prefix`; panics after `timeout`.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) if l.starts_with(prefix) => return l,
                Some(_) => {}
                None => panic!("no '{prefix}' within {timeout:?}; seen: {:#?}", self.seen),
            }
        }
    }

    /// Lines read until one starts with `prefix` (that one included).
    pub fn collect_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let start = self.seen.len();
        self.expect(prefix, timeout);
        self.seen[start..].to_vec()
    }

    /// Asserts no line arrives for `quiet`.
    pub fn expect_silence(&mut self, quiet: Duration) {
        if let Some(l) = self.next_line(quiet) {
            panic!("unexpected line '{l}'");
        }
    }

    /// Waits for the process to exit and returns whether it exited cleanly.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("engine did not exit within {timeout:?}");
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line; `(none)` for an answer without one.
pub fn best_of(line: &str) -> String {
    match read_answer(line) {
        Some(Answer::Move { mv, .. }) => mv,
        Some(Answer::NoMove) => "(none)".to_string(),
        None => panic!("'{line}' is not an answer to go"),
    }
}

/// The `info` lines of a search among `lines` (those with a depth or a
/// score), read as `protocol` writes them.
pub fn search_infos(protocol: Protocol, lines: &[String]) -> Vec<InfoLine> {
    lines
        .iter()
        .filter_map(|line| read_info(protocol, line))
        .collect()
}

pub const SECS: fn(u64) -> Duration = Duration::from_secs;
