//! Any book the toolkit reads, told apart by its first bytes: ours (built
//! by `bookgen`, [`Book`]) or ElephantEye's `BOOK.DAT` ([`EleeyeBook`]).
//! [`open`] opens either; [`AnyBook::probe`] gives both kinds' moves with
//! their weights, and ours with their game statistics too.

use std::io::Read;
use std::path::{Path, PathBuf};

use xqcore::{Move, Position};

use crate::eleeye::{EleeyeBook, EleeyeError};
use crate::{Book, BookError, BookMove, BOOK_KIND};

/// The kinds of book file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookFormat {
    /// Ours: the xqstore container of [`BOOK_KIND`].
    Xqbook,
    /// ElephantEye's `BOOK.DAT`.
    Eleeye,
}

impl std::fmt::Display for BookFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BookFormat::Xqbook => BOOK_KIND.name,
            BookFormat::Eleeye => "ElephantEye BOOK.DAT",
        })
    }
}

/// An open book of either kind.
#[derive(Debug)]
pub enum AnyBook {
    Ours(Box<Book>),
    Eleeye(EleeyeBook),
}

/// Why a book cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file cannot be read.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// It starts as our books do, but is not a good one.
    #[error(transparent)]
    Ours(#[from] BookError),
    /// It is not a good `BOOK.DAT` either.
    #[error(transparent)]
    Eleeye(#[from] EleeyeError),
}

/// A book move with its weight (how often it is to be played), and its
/// game statistics where the book keeps them (ours does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightedMove {
    pub mv: Move,
    pub weight: u32,
    pub stats: Option<BookMove>,
}

/// Opens the book at `path`, of whichever kind its first bytes say: a
/// file of the toolkit's container (`XQ....\0\0`: a book, or a table given
/// as a book) is read as ours, and refused with the container's reason if
/// it is not a good book; anything else as a `BOOK.DAT`.
pub fn open(path: &Path) -> Result<AnyBook, OpenError> {
    let io = |source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut magic = [0u8; 8];
    let mut file = std::fs::File::open(path).map_err(io)?;
    let head = file.read(&mut magic).map_err(io)?;
    let container = magic.starts_with(b"XQ") && magic.ends_with(b"\0\0");
    if head == magic.len() && container {
        Ok(AnyBook::Ours(Box::new(Book::open(path)?)))
    } else {
        Ok(AnyBook::Eleeye(EleeyeBook::open(path)?))
    }
}

impl AnyBook {
    /// The kind of the book.
    pub fn format(&self) -> BookFormat {
        match self {
            AnyBook::Ours(_) => BookFormat::Xqbook,
            AnyBook::Eleeye(_) => BookFormat::Eleeye,
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        match self {
            AnyBook::Ours(b) => b.path(),
            AnyBook::Eleeye(b) => b.path(),
        }
    }

    /// The legal book moves of `pos`, most played (ours) or heaviest
    /// (ElephantEye's) first.
    pub fn probe(&self, pos: &Position) -> Result<Vec<WeightedMove>, BookError> {
        let mut moves: Vec<WeightedMove> = match self {
            AnyBook::Ours(b) => b
                .probe(pos)?
                .into_iter()
                .map(|m| WeightedMove {
                    mv: m.mv,
                    weight: m.weight(),
                    stats: Some(m),
                })
                .collect(),
            AnyBook::Eleeye(b) => b
                .probe(pos)
                .into_iter()
                .map(|(mv, weight)| WeightedMove {
                    mv,
                    weight: u32::from(weight),
                    stats: None,
                })
                .collect(),
        };
        if self.format() == BookFormat::Eleeye {
            moves.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.mv.cmp(&b.mv)));
        }
        Ok(moves)
    }
}
