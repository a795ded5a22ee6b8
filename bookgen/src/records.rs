//! The record files a command reads: files named as they are, and
//! directories searched for `.pgn` and `.xqf` files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A record file or directory that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}", path = .path.display())]
pub struct RecordFilesError {
    /// The file or directory.
    pub path: PathBuf,
    /// What the system said.
    pub source: io::Error,
}

impl RecordFilesError {
    /// The error for `path`, given what the system says of it.
    fn at(path: &Path) -> impl FnOnce(io::Error) -> RecordFilesError + '_ {
        |source| RecordFilesError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Record files under `paths`: files named on the command line as they
/// are, directories searched recursively for `.pgn` and `.xqf` files, in
/// name order.
///
/// # Errors
///
/// A path that does not exist, or a directory that cannot be listed; the
/// error names it.
pub fn record_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RecordFilesError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = fs::metadata(p).map_err(RecordFilesError::at(p))?;
        if meta.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), RecordFilesError> {
    let read = fs::read_dir(dir).map_err(RecordFilesError::at(dir))?;
    // Entries that vanish or cannot be read while listing are passed over.
    let mut entries: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if is_record(&p) {
            out.push(p);
        }
    }
    Ok(())
}

fn is_record(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn") || e.eq_ignore_ascii_case("xqf"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_searched_for_pgn_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.pgn", "a.PGN", "notes.txt", "sub/c.pgn"] {
            fs::write(dir.path().join(f), "").unwrap();
        }
        let files = record_files(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["a.PGN", "b.pgn", "sub/c.pgn"]);
        // A missing path is named once, with the system's reason.
        let none = dir.path().join("none");
        let missing = record_files(std::slice::from_ref(&none)).unwrap_err();
        assert_eq!(missing.source.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            missing.to_string(),
            format!("{}: {}", none.display(), missing.source)
        );
    }
}
