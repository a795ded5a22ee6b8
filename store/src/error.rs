use std::io;
use std::path::PathBuf;

/// Why a container file cannot be written or read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The operating system refused (missing file, no permission, disk full).
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file is not of the expected kind (another program's file, or a
    /// table where a book was expected).
    #[error("{path}: not a {expected} file", path = .path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What kind of file was expected.
        expected: String,
    },
    /// The file was written by a newer or older program.
    #[error("{path}: {what} version {found}, this program reads version {supported}", path = .path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Which version: "container", "format" or "key scheme".
        what: &'static str,
        /// The version in the file.
        found: u16,
        /// The version this program reads.
        supported: u16,
    },
    /// The file is shorter than its header says: an interrupted copy or download.
    #[error("{path}: truncated: {actual} bytes, the header says {expected}", path = .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        actual: u64,
        /// The length its header gives (at least the header's length).
        expected: u64,
    },
    /// The file's contents do not check out.
    #[error("{path}: corrupt: {reason}", path = .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A writer was used wrongly (blocks out of key order, too large).
    #[error("{path}: {reason}", path = .path.display())]
    Misuse {
        /// The file being written.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
        move |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn corrupt(path: &std::path::Path, reason: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}
