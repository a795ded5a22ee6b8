//! An engine's standard error, read on a thread of its own so that an
//! engine that writes much there never blocks, its last bytes kept: what
//! the shell says when it cannot run the command, or the engine's last
//! words when it exits.

use std::io::{ErrorKind, Read};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The end of what an engine wrote on its standard error.
pub(super) struct StderrTail {
    /// At most [`StderrTail::KEPT`] bytes, the last ones read.
    tail: Arc<Mutex<Vec<u8>>>,
    /// The reader, finished once the stream ends (the engine, and whatever
    /// it started, has exited).
    reader: JoinHandle<()>,
}

impl StderrTail {
    /// Bytes kept: enough for a line or two of the shell's or the engine's
    /// last words, however much (or without newlines) the engine writes.
    const KEPT: usize = 1024;

    /// Reads `stream` to its end on a thread of its own, in chunks,
    /// keeping the last [`StderrTail::KEPT`] bytes.
    pub(super) fn collect(mut stream: impl Read + Send + 'static) -> StderrTail {
        let tail = Arc::new(Mutex::new(Vec::with_capacity(Self::KEPT)));
        let writer = Arc::clone(&tail);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0; 512];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => keep_last(
                        &mut writer.lock().unwrap_or_else(|e| e.into_inner()),
                        &chunk[..n],
                    ),
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        StderrTail { tail, reader }
    }

    /// Waits until the stream has ended, or `deadline`: an engine that has
    /// just failed may still have its last words in the pipe.
    pub(super) fn wait_closed(&self, deadline: Instant) {
        while !self.reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The last line with text in it, trimmed (empty when there is none).
    pub(super) fn last_line(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        last_line(&tail)
    }
}

/// Appends `bytes` to `tail`, dropping its oldest bytes beyond
/// [`StderrTail::KEPT`].
fn keep_last(tail: &mut Vec<u8>, bytes: &[u8]) {
    tail.extend_from_slice(bytes);
    let excess = tail.len().saturating_sub(StderrTail::KEPT);
    tail.drain(..excess);
}

/// The last line of `bytes` with text in it, trimmed.
fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .rev()
        .find(|line| !line.is_empty())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_with_text_is_kept_and_the_rest_bounded() {
        let tail = StderrTail::collect(&b"first\nsh: 1: ./x: not found\n\n  \n"[..]);
        tail.wait_closed(Instant::now() + Duration::from_secs(10));
        assert_eq!(tail.last_line(), "sh: 1: ./x: not found");
        // An engine that writes much, without a newline: bounded.
        let mut flood = vec![b'x'; 100_000];
        flood.extend_from_slice(b"\nlast words");
        let tail = StderrTail::collect(std::io::Cursor::new(flood));
        tail.wait_closed(Instant::now() + Duration::from_secs(10));
        assert_eq!(tail.tail.lock().unwrap().len(), StderrTail::KEPT);
        assert_eq!(tail.last_line(), "last words");
        let silent = StderrTail::collect(&b""[..]);
        silent.wait_closed(Instant::now() + Duration::from_secs(10));
        assert_eq!(silent.last_line(), "");
    }
}
