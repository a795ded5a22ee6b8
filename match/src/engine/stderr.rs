//! An engine's standard error, read on a thread of its own so that an
//! engine that writes much there never blocks, its last lines kept: what
//! the shell says when it cannot run the command.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};

/// The last lines an engine wrote on its standard error.
#[derive(Debug, Default)]
pub(super) struct StderrTail {
    pub(super) lines: VecDeque<String>,
    /// The stream ended: the engine (and whatever it started) exited.
    pub(super) closed: bool,
}

impl StderrTail {
    /// Lines kept: enough for the shell's word on a command it cannot run.
    const KEPT: usize = 4;

    /// Reads `stream` to its end on a thread of its own, so that an engine
    /// that writes much there never blocks, keeping the last lines.
    pub(super) fn collect(stream: impl Read + Send + 'static) -> Arc<Mutex<StderrTail>> {
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let writer = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stream).split(b'\n') {
                let Ok(line) = line else { break };
                let mut tail = writer.lock().unwrap_or_else(|e| e.into_inner());
                if tail.lines.len() == Self::KEPT {
                    tail.lines.pop_front();
                }
                tail.lines
                    .push_back(String::from_utf8_lossy(&line).trim().to_string());
            }
            writer.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        });
        tail
    }
}
