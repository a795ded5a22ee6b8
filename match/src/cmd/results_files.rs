//! The files a tournament writes as its games finish (`--pgn`,
//! `--results`), each game appended whole, and the PGN a resumed
//! tournament (`--resume`) reads its earlier games from.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use xqcli::Failure;
use xqmatch::{pgn, CallbackError, PlayedGame};

/// A file finished games are appended to.
pub struct Appended {
    file: File,
    path: PathBuf,
}

impl Appended {
    /// Opens `path` (given as `flag`) to append to, creating it.
    ///
    /// # Errors
    ///
    /// It cannot be opened: refused before any game, naming `flag` and
    /// the path.
    pub fn open(path: &Path, flag: &str) -> xqcli::Result<Appended> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Failure::usage(format!("{flag} {}: {e}", path.display())))?;
        Ok(Appended {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends a game's text in one write ([`pgn::append_game`]).
    ///
    /// # Errors
    ///
    /// The write fails; the message names the file.
    pub fn append(&mut self, text: &str) -> Result<(), CallbackError> {
        pgn::append_game(&mut self.file, text)
            .map_err(|e| format!("{}: {e}", self.path.display()).into())
    }
}

/// The games a `--resume` counts: those of the PGN at `path` (none when
/// there is no such file yet), whose cut-off last game (the runner killed
/// as it wrote it) is removed first.
///
/// # Errors
///
/// The file cannot be read, holds a game the runner did not write, or
/// cannot be cut: refused before any game.
pub fn games_played_before(path: &Path) -> xqcli::Result<Vec<PlayedGame>> {
    let refused = |flag: &str, e: &dyn std::fmt::Display| {
        Failure::usage(format!("{flag} {}: {e}", path.display()))
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(refused("--pgn", &e)),
    };
    let played = pgn::read_played_games(&text).map_err(|e| refused("--resume", &e))?;
    if played.complete_len < text.len() {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(played.complete_len as u64))
            .map_err(|e| refused("--pgn", &e))?;
        eprintln!(
            "xqmatch: {}: removed a game cut off as it was written",
            path.display()
        );
    }
    Ok(played.games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_pgn_is_no_game_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("games.pgn");
        assert_eq!(games_played_before(&pgn), Ok(Vec::new()));
        std::fs::write(&pgn, "[Event \"x\"]\n[Result \"1-0\"]\n\n1. h2e2 1-0\n").unwrap();
        let refused = games_played_before(&pgn).unwrap_err();
        assert_eq!(refused.status(), Failure::USAGE);
        assert!(
            refused
                .message()
                .starts_with(&format!("--resume {}: game 1 (line 1): ", pgn.display())),
            "{refused}"
        );
        let refused = Appended::open(&dir.path().join("no/such/dir"), "--results");
        let refused = refused.err().unwrap();
        assert_eq!(refused.status(), Failure::USAGE);
        assert!(refused.message().starts_with("--results "), "{refused}");
    }
}
