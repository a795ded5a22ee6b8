//! Record files of either kind, told apart by their bytes: XQF by its
//! signature, anything else as PGN text in a detected (or given) encoding.
//! [`read_file`] and [`read_records`] give every game a file holds and,
//! for each one that could not be read, where and why.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::encoding::{decode, TextEncoding};
use crate::pgn::{parse_game, split, Game, GameError, SkipReason};
use crate::xqf::read_xqf;

/// The kind of a record file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// PGN text (ICCS, WXF or Chinese notation).
    Pgn,
    /// XQF, the binary format of XQStudio and its kin.
    Xqf,
}

/// The kind of a file, by its bytes whatever its name: XQF files start
/// with `XQ` and hold at least their 1 KB header.
pub fn sniff(bytes: &[u8]) -> RecordFormat {
    if bytes.len() >= 0x400 && bytes.starts_with(b"XQ") {
        RecordFormat::Xqf
    } else {
        RecordFormat::Pgn
    }
}

/// How to read record files.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// The text encoding of PGN files; `None` detects it per file.
    pub encoding: Option<TextEncoding>,
    /// Also read the variations of XQF files, each line as a game.
    pub variations: bool,
}

/// What a record file holds.
#[derive(Debug)]
pub struct Records {
    pub format: RecordFormat,
    /// The text encoding read (XQF text is GB18030).
    pub encoding: TextEncoding,
    /// The games read.
    pub games: Vec<Game>,
    /// The games that could not be read, with where and why (an XQF file
    /// that cannot be read is one error, [`SkipReason::BadXqf`]).
    pub errors: Vec<GameError>,
}

/// A record file that could not be read at all.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct ReadError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Reads every game of the file at `path` (see [`read_records`]).
pub fn read_file(
    path: &Path,
    options: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Records, ReadError> {
    let bytes = std::fs::read(path).map_err(|source| ReadError {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(read_records(&bytes, options, progress))
}

/// Reads every game of a file's bytes: PGN games in parallel, or an XQF
/// file's main line (and its other lines with `options.variations`).
/// `progress` is told how many bytes are done as the work goes on; in all,
/// the length of `bytes`.
pub fn read_records(
    bytes: &[u8],
    options: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Records {
    let total = bytes.len() as u64;
    match sniff(bytes) {
        RecordFormat::Xqf => {
            let read = read_xqf(bytes, options.variations);
            progress(total);
            let (games, errors) = match read {
                Ok(games) => (games, Vec::new()),
                Err(e) => (
                    Vec::new(),
                    vec![GameError {
                        index: 1,
                        line: 0,
                        reason: SkipReason::BadXqf,
                        detail: e.0,
                    }],
                ),
            };
            Records {
                format: RecordFormat::Xqf,
                encoding: TextEncoding::Gb18030,
                games,
                errors,
            }
        }
        RecordFormat::Pgn => read_pgn(bytes, options.encoding, progress),
    }
}

fn read_pgn(
    bytes: &[u8],
    encoding: Option<TextEncoding>,
    progress: &(dyn Fn(u64) + Sync),
) -> Records {
    let decoded = decode(bytes, encoding);
    let texts = split(&decoded.text);
    // Progress in decoded characters, scaled to the file's bytes.
    let scale = bytes.len() as f64 / decoded.text.len().max(1) as f64;
    let parsed: Vec<_> = texts
        .par_iter()
        .map(|t| {
            let game = parse_game(t);
            progress((t.text.len() as f64 * scale) as u64);
            game
        })
        .collect();
    let mut games = Vec::with_capacity(parsed.len());
    let mut errors = Vec::new();
    for p in parsed {
        match p {
            Ok(g) => games.push(g),
            Err(e) => errors.push(e),
        }
    }
    Records {
        format: RecordFormat::Pgn,
        encoding: decoded.encoding,
        games,
        errors,
    }
}
