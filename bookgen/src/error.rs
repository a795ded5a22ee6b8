//! Why an analysis or a judgement fails.

use std::path::PathBuf;

use crate::journal::JournalError;

/// Why an analysis failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Write(#[from] xqstore::StoreError),
    #[error(transparent)]
    Book(#[from] xqbook::BookError),
    /// A file that cannot be read or written.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The run was stopped (an interrupt); the journal keeps the work.
    #[error("stopped; run again to go on")]
    Stopped,
    /// An external engine could not be started or talked to.
    #[error(transparent)]
    Engine(#[from] xqmatch::EngineError),
    /// An external engine's answer makes no sense in the position asked.
    #[error("{engine}: {reason}, searching {fen}")]
    EngineAnswer {
        engine: String,
        fen: String,
        reason: String,
    },
}
