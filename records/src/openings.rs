//! Openings files: where the games of a match or of self-play start.
//!
//! Each line is one opening, in one of three forms:
//!
//! - ICCS moves from the start position: `h2e2 h9g7`;
//! - a FEN with moves after it: `fen FEN moves m1 m2 ...`;
//! - a FEN alone: `fen FEN`, or the FEN without the word (`FEN`, told by
//!   the `/` of its board).
//!
//! Blank lines and lines starting with `#` are skipped. Every move is
//! checked against its position, and anything else on a line is refused:
//! a mistyped line is an error naming its file and line, never a game
//! silently played from somewhere else.
//!
//! [`read_any_openings`] also reads EPD files (a position a line, its
//! operations ignored) and game records (PGN or XQF: each game's start and
//! main line is an opening), told by the file's extension.

use std::path::{Path, PathBuf};

use xqcore::{FenError, Move, MoveError, Position};

use crate::file::{read_file, ReadError, ReadOptions};
use crate::pgn::{Game, GameError};

/// The 60 opening lines of data/openings.txt, bundled so that tools run
/// from any directory.
pub const BUNDLED_OPENINGS: &str = include_str!("../../data/openings.txt");

/// The word that ends a FEN and starts its moves.
const MOVES: &str = "moves";

/// The word that starts a FEN.
const FEN: &str = "fen";

/// The most fields a FEN has: placement, side, two unused fields, the two
/// counters.
const FEN_FIELDS: usize = 6;

/// Where a game starts: a position (the start, or a FEN) and moves from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The FEN the line starts from; `None` for the start position.
    pub fen: Option<String>,
    /// The moves played from there before the players take over.
    pub moves: Vec<Move>,
    /// The position of `fen`.
    start: Position,
}

/// Why a line is not an opening.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// The line says `fen` and gives none.
    #[error("`fen` with no FEN after it")]
    MissingFen,
    /// The FEN is not a legal position.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// Words after a complete FEN that are not introduced by `moves`.
    #[error("'{word}' after the FEN (moves go after the word `moves`)")]
    AfterFen {
        /// The first such word.
        word: String,
    },
    /// A move that is not ICCS or not legal where it is played.
    #[error("move {number}: {source}")]
    Move {
        /// 1-based number of the move on the line.
        number: usize,
        /// Why it was refused.
        source: MoveError,
    },
}

/// A line of an openings text that is not an opening.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {source}")]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub source: OpeningError,
}

/// Why an openings file cannot be used. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsFileError {
    /// The file cannot be read (or is not UTF-8 text).
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A line is not an opening.
    #[error("{path}: {source}", path = .path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: LineError,
    },
    /// The file holds no opening: only blank lines and comments, or nothing.
    #[error("{path}: no opening in the file (only blank lines and # comments)", path = .path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A game record holds no game that can be read.
    #[error("{path}: no game in the file can be read{}", first_error(.skipped))]
    NoGame {
        /// The file.
        path: PathBuf,
        /// The games that could not be read.
        skipped: Vec<GameError>,
    },
}

/// `: ` and the first of `errors`, or nothing.
fn first_error(errors: &[GameError]) -> String {
    errors.first().map_or(String::new(), |e| format!(" ({e})"))
}

/// How an openings file is written, told by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningsFormat {
    /// One opening a line (the module's forms): any other extension.
    Lines,
    /// `.epd`: a position a line, its first two fields (the placement and
    /// the side to move); the rest (unused fields, operations) is ignored.
    Epd,
    /// `.pgn`, `.xqf`: game records; each game is an opening.
    Games,
}

impl OpeningsFormat {
    /// The format of the file at `path`, by its extension (any case).
    pub fn of_path(path: &Path) -> OpeningsFormat {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("epd") => OpeningsFormat::Epd,
            Some("pgn" | "xqf") => OpeningsFormat::Games,
            _ => OpeningsFormat::Lines,
        }
    }
}

/// The openings of a file, and the games of a game record that were
/// skipped because they cannot be read.
#[derive(Clone, Debug)]
pub struct OpeningsRead {
    pub openings: Vec<Opening>,
    pub skipped: Vec<GameError>,
}

impl Default for Opening {
    /// The start position, no moves.
    fn default() -> Self {
        Opening {
            fen: None,
            moves: Vec::new(),
            start: Position::start(),
        }
    }
}

impl std::str::FromStr for Opening {
    type Err = OpeningError;

    fn from_str(line: &str) -> Result<Opening, OpeningError> {
        Opening::parse(line)
    }
}

impl Opening {
    /// Reads one line (see the module's documentation); an empty line is
    /// the start position.
    ///
    /// # Errors
    ///
    /// A FEN that is missing or not a legal position, words after a FEN
    /// without `moves` before them, or a move that is not ICCS or not
    /// legal where it is played.
    pub fn parse(line: &str) -> Result<Opening, OpeningError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (fen, moves) = split_fen(&words)?;
        let mut opening = Opening::default();
        if let Some(fen) = fen {
            opening.start = Position::from_fen(&fen)?;
            opening.fen = Some(fen);
        }
        let mut pos = opening.start.clone();
        for (i, text) in moves.iter().enumerate() {
            let mv = pos.parse_move(text).map_err(|source| OpeningError::Move {
                number: i + 1,
                source,
            })?;
            pos.make_move(mv);
            opening.moves.push(mv);
        }
        Ok(opening)
    }

    /// The position the opening starts from (the start, or its FEN's).
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The position after the opening's moves, with their history.
    pub fn position(&self) -> Position {
        let mut pos = self.start.clone();
        for &m in &self.moves {
            pos.make_move(m);
        }
        pos
    }

    /// The moves as ICCS text, space-separated.
    pub fn moves_text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(Move::to_string).collect();
        moves.join(" ")
    }

    /// The opening of a game read from a record: its start (the start
    /// position stays `fen: None`) and its main line.
    pub fn of_game(game: &Game) -> Opening {
        let fen = (game.start.fen() != Position::start().fen()).then(|| game.start.fen());
        Opening {
            fen,
            moves: game.moves.clone(),
            start: game.start.clone(),
        }
    }

    /// The opening cut to its first `plies` moves.
    pub fn truncated(mut self, plies: usize) -> Opening {
        self.moves.truncate(plies);
        self
    }
}

/// Cuts a line's words into its FEN (if it has one) and its moves.
fn split_fen<'w, 'a>(
    words: &'w [&'a str],
) -> Result<(Option<String>, &'w [&'a str]), OpeningError> {
    let fen_words = match words.first() {
        Some(&FEN) => &words[1..],
        Some(first) if first.contains('/') => words,
        Some(&MOVES) => return Ok((None, &words[1..])),
        _ => return Ok((None, words)),
    };
    let (fen, moves) = match fen_words.iter().position(|&w| w == MOVES) {
        Some(at) => (&fen_words[..at], &fen_words[at + 1..]),
        None => (fen_words, &[][..]),
    };
    if fen.is_empty() {
        return Err(OpeningError::MissingFen);
    }
    if let Some(word) = stray_word(fen) {
        return Err(OpeningError::AfterFen {
            word: word.to_string(),
        });
    }
    Ok((Some(fen.join(" ")), moves))
}

/// A word of a FEN's fields that cannot be part of it: one past the six
/// fields, or a move where the unused third and fourth fields stand (the
/// FEN reader would skip it).
fn stray_word<'a>(fen: &[&'a str]) -> Option<&'a str> {
    let unused = fen.iter().skip(2).take(2);
    unused
        .copied()
        .find(|w| w.parse::<xqcore::IccsMove>().is_ok())
        .or_else(|| fen.get(FEN_FIELDS).copied())
}

/// Reads the openings of a file's text, skipping blank lines and `#`
/// comments.
///
/// # Errors
///
/// The first line that is not an opening, with its number.
pub fn read_openings(text: &str) -> Result<Vec<Opening>, LineError> {
    read_lines(text, Opening::parse)
}

/// Reads each line of `text` that is neither blank nor a `#` comment with
/// `read` (a byte-order mark is not part of the first line).
fn read_lines(
    text: &str,
    read: impl Fn(&str) -> Result<Opening, OpeningError>,
) -> Result<Vec<Opening>, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening = read(line).map_err(|source| LineError {
            line: i + 1,
            source,
        })?;
        openings.push(opening);
    }
    Ok(openings)
}

/// The openings of the file at `path`.
///
/// # Errors
///
/// The file cannot be read, a line is not an opening, or the file holds
/// no opening at all; each error names the file (and the line).
pub fn read_openings_file(path: &Path) -> Result<Vec<Opening>, OpeningsFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| OpeningsFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let openings = read_openings(&text).map_err(|source| OpeningsFileError::Line {
        path: path.to_path_buf(),
        source,
    })?;
    if openings.is_empty() {
        return Err(OpeningsFileError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(openings)
}

/// The openings of an EPD text: the first two fields of each line that is
/// neither blank nor a `#` comment.
///
/// # Errors
///
/// The first line whose position is not legal, with its number.
pub fn read_epd(text: &str) -> Result<Vec<Opening>, LineError> {
    read_lines(text, |line| {
        let position: Vec<&str> = line.split_whitespace().take(2).collect();
        Opening::parse(&format!("{FEN} {}", position.join(" ")))
    })
}

/// The openings of the file at `path`, read as its extension says
/// ([`OpeningsFormat::of_path`]). Games of a record that cannot be read are
/// skipped and returned with where and why.
///
/// # Errors
///
/// The file cannot be read, a line of a lines or EPD file is not an
/// opening, or the file holds no opening (no game that can be read); each
/// error names the file (and the line).
pub fn read_any_openings(path: &Path) -> Result<OpeningsRead, OpeningsFileError> {
    let openings = match OpeningsFormat::of_path(path) {
        OpeningsFormat::Lines => read_openings_file(path)?,
        OpeningsFormat::Epd => {
            let text = std::fs::read_to_string(path).map_err(|source| OpeningsFileError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            read_epd(&text).map_err(|source| OpeningsFileError::Line {
                path: path.to_path_buf(),
                source,
            })?
        }
        OpeningsFormat::Games => {
            let records = read_file(path, &ReadOptions::default(), &|_| {})
                .map_err(|ReadError { path, source }| OpeningsFileError::Io { path, source })?;
            if records.games.is_empty() {
                return Err(OpeningsFileError::NoGame {
                    path: path.to_path_buf(),
                    skipped: records.errors,
                });
            }
            let openings = records.games.iter().map(Opening::of_game).collect();
            return Ok(OpeningsRead {
                openings,
                skipped: records.errors,
            });
        }
    };
    if openings.is_empty() {
        return Err(OpeningsFileError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(OpeningsRead {
        openings,
        skipped: Vec::new(),
    })
}

/// The 60 bundled openings ([`BUNDLED_OPENINGS`]).
pub fn bundled_openings() -> Vec<Opening> {
    read_openings(BUNDLED_OPENINGS).expect("the bundled openings are legal (a test reads them)")
}

/// The openings of the file at `path`, or the bundled ones when there is
/// no path.
///
/// # Errors
///
/// As [`read_openings_file`].
pub fn load_openings(path: Option<&Path>) -> Result<Vec<Opening>, OpeningsFileError> {
    path.map_or_else(|| Ok(bundled_openings()), read_openings_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_openings_are_legal() {
        let openings = read_openings(BUNDLED_OPENINGS).unwrap();
        assert_eq!(openings.len(), 60);
        assert!(openings
            .iter()
            .all(|o| o.fen.is_none() && o.moves.len() == 6));
        assert_eq!(bundled_openings().len(), 60);
    }

    #[test]
    fn lines_start_from_the_start_or_a_fen() {
        let moves = Opening::parse("h2e2 h9g7").unwrap();
        assert_eq!(moves.moves_text(), "h2e2 h9g7");
        assert_eq!(moves.position().ply(), 2);
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let from_fen = Opening::parse(&format!("fen {fen} moves e1e2 d9d8")).unwrap();
        assert_eq!(from_fen.fen.as_deref(), Some(fen));
        assert_eq!(from_fen.moves.len(), 2);
        for bare in [
            fen.to_string(),
            format!("fen {fen}"),
            format!("{fen} moves"),
        ] {
            let bare = Opening::parse(&bare).unwrap();
            assert_eq!(
                bare.position().fen(),
                Position::from_fen(fen).unwrap().fen()
            );
        }
        let full = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1";
        assert_eq!(Opening::parse(full).unwrap().fen.as_deref(), Some(full));
        assert_eq!(Opening::parse("moves h2e2").unwrap().moves.len(), 1);
        assert!(Opening::parse("").unwrap().moves.is_empty());
    }

    #[test]
    fn malformed_lines_are_refused_with_their_number() {
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let refused = |line: &str| Opening::parse(line).unwrap_err();
        assert_eq!(refused("fen"), OpeningError::MissingFen);
        assert_eq!(refused("fen moves h2e2"), OpeningError::MissingFen);
        assert!(matches!(refused("fen 9/9 w"), OpeningError::Fen(_)));
        // Moves without `moves` before them would be read as FEN fields
        // and dropped.
        for line in [format!("fen {fen} e1e2"), format!("{fen} - - 0 1 e1e2")] {
            assert_eq!(
                refused(&line),
                OpeningError::AfterFen {
                    word: "e1e2".into()
                },
                "{line}"
            );
        }
        assert!(matches!(
            refused("h2e2 h2e2"),
            OpeningError::Move { number: 2, .. }
        ));
        assert!(matches!(
            refused("h2e2 xyz"),
            OpeningError::Move { number: 2, .. }
        ));
        let e = read_openings("# comment\nh2e2\n\nh2e2 h2e2\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.to_string().starts_with("line 4: move 2: "), "{e}");
        // A byte-order mark is not part of the first line.
        assert_eq!(read_openings("\u{feff}h2e2\n").unwrap().len(), 1);
    }

    #[test]
    fn files_name_themselves_and_must_hold_an_opening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        for text in ["", "\n\n", "# only a comment\n"] {
            std::fs::write(&path, text).unwrap();
            let e = read_openings_file(&path).unwrap_err();
            assert!(matches!(e, OpeningsFileError::Empty { .. }), "{text:?}");
            assert!(e.to_string().starts_with(&path.display().to_string()));
        }
        std::fs::write(&path, "h2e2\nfen\n").unwrap();
        let e = read_openings_file(&path).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}: line 2: `fen` with no FEN after it", path.display())
        );
        let missing = dir.path().join("missing.txt");
        let e = load_openings(Some(&missing)).unwrap_err().to_string();
        assert!(e.starts_with(&missing.display().to_string()), "{e}");
        std::fs::write(&path, "h2e2 h9g7\n").unwrap();
        assert_eq!(load_openings(Some(&path)).unwrap().len(), 1);
        assert_eq!(load_openings(None).unwrap().len(), 60);
    }

    #[test]
    fn epd_and_game_files_give_openings_by_their_extension() {
        let dir = tempfile::tempdir().unwrap();
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let epd = dir.path().join("set.EPD");
        std::fs::write(
            &epd,
            format!("# two\n{fen} - - bm e1e2; id \"a\";\n\n{fen}\n"),
        )
        .unwrap();
        let read = read_any_openings(&epd).unwrap();
        assert_eq!(read.openings.len(), 2);
        assert_eq!(read.openings[0].fen.as_deref(), Some(fen));
        assert!(read.openings[0].moves.is_empty());
        std::fs::write(&epd, "9/9 w\n").unwrap();
        let e = read_any_openings(&epd).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: line 1: bad FEN", epd.display())),
            "{e}"
        );

        let pgn = dir.path().join("games.pgn");
        let games = format!(
            "[Event \"a\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n\
             [Event \"b\"]\n\n1. h2e2 h2e2 1-0\n\n\
             [Event \"c\"]\n[FEN \"{fen} - - 0 1\"]\n\n1. e1e2 d9d8 1/2-1/2\n"
        );
        std::fs::write(&pgn, games).unwrap();
        let read = read_any_openings(&pgn).unwrap();
        assert_eq!(read.openings.len(), 2);
        assert_eq!(read.skipped.len(), 1);
        assert_eq!(read.skipped[0].index, 2);
        assert_eq!(read.openings[0].fen, None);
        assert_eq!(read.openings[0].moves_text(), "h2e2 h9g7 h0g2");
        assert_eq!(
            read.openings[0].clone().truncated(2).moves_text(),
            "h2e2 h9g7"
        );
        assert_eq!(read.openings[1].moves_text(), "e1e2 d9d8");
        assert_eq!(
            read.openings[1].start().fen(),
            Position::from_fen(fen).unwrap().fen()
        );

        std::fs::write(&pgn, "[Event \"b\"]\n\n1. h2e2 h2e2 1-0\n").unwrap();
        let e = read_any_openings(&pgn).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}: no game in the file can be read (game 1",
                pgn.display()
            )),
            "{e}"
        );
        let lines = dir.path().join("lines.txt");
        std::fs::write(&lines, "h2e2\n").unwrap();
        assert_eq!(OpeningsFormat::of_path(&lines), OpeningsFormat::Lines);
        assert_eq!(read_any_openings(&lines).unwrap().openings.len(), 1);
    }
}
