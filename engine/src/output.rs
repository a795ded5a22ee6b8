//! The engine's output to a GUI: lines written whole and flushed, from
//! the protocol's thread and the search's alike.

use std::io::Write;
use std::sync::{Arc, Mutex};

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
