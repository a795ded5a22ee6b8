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
    /// The file has no bytes at all: a copy or download that never
    /// started, rather than a book of either kind.
    #[error("{path}: empty file (0 bytes), not a book", path = .path.display())]
    Empty { path: PathBuf },
    /// It starts as our books do, but is not a good one.
    #[error(transparent)]
    Ours(#[from] BookError),
    /// It is a book of neither kind: it does not start with a magic of
    /// ours, and its bytes are not a `BOOK.DAT`'s (random bytes, a text
    /// file, a file named as a book that is something else).
    #[error(
        "{path}: not a book: not one of ours (it does not start with the magic {magic}) \
         nor an {eleeye} ({reason})",
        path = .path.display(),
        magic = our_magic_text(),
        eleeye = BookFormat::Eleeye
    )]
    Neither {
        /// The file.
        path: PathBuf,
        /// Why it is not a `BOOK.DAT`.
        reason: String,
    },
}

/// Our books' magic as the message of a file of neither kind shows it:
/// its text, up to the NULs that pad it to eight bytes.
fn our_magic_text() -> impl std::fmt::Display {
    let magic = &BOOK_KIND.magic;
    let text = magic.iter().position(|&b| b == 0).unwrap_or(magic.len());
    magic[..text].escape_ascii()
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
/// it is not a good book; so is a file cut inside a book's magic; anything
/// else as a `BOOK.DAT`, and refused as a book of neither kind
/// ([`OpenError::Neither`]) if it is not one.
///
/// # Errors
///
/// The file cannot be read, is empty, or is not a good book of the kind
/// its first bytes say, or of either kind; every error names the file.
pub fn open(path: &Path) -> Result<AnyBook, OpenError> {
    let io = |source| OpenError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut head = Vec::with_capacity(BOOK_KIND.magic.len());
    file.take(BOOK_KIND.magic.len() as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.is_empty() {
        Err(OpenError::Empty {
            path: path.to_path_buf(),
        })
    } else if starts_as_container(&head) {
        Ok(AnyBook::Ours(Box::new(Book::open(path)?)))
    } else {
        match EleeyeBook::open(path) {
            Ok(book) => Ok(AnyBook::Eleeye(book)),
            // Without our magic, a file that is no BOOK.DAT either is a
            // book of neither kind: saying only why it is no BOOK.DAT
            // would tell the owner of a damaged `.xqb` the wrong story.
            Err(EleeyeError::Malformed { path, reason }) => {
                Err(OpenError::Neither { path, reason })
            }
            Err(EleeyeError::Io { path, source }) => Err(OpenError::Io { path, source }),
        }
    }
}

/// Whether a file's first bytes (up to 8) are those of the toolkit's
/// container: a whole magic of its form, or, in a file too short to hold
/// one, the start of a book's magic (a cut book, which the container
/// reader then calls truncated).
fn starts_as_container(head: &[u8]) -> bool {
    if head.len() == BOOK_KIND.magic.len() {
        head.starts_with(b"XQ") && head.ends_with(b"\0\0")
    } else {
        BOOK_KIND.magic.starts_with(head)
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

/// A book file as players use it: the book, and the analysis beside it
/// ([`crate::analysis_path`]) when it has a usable one.
#[derive(Debug)]
pub struct BookFile {
    pub book: AnyBook,
    pub analysis: Option<crate::Analysis>,
}

impl BookFile {
    /// Opens the book at `path` and, for a book of ours, the analysis
    /// beside it when there is one. An analysis that cannot be used (damaged,
    /// foreign, of another book) is left out and its error returned with
    /// the book, which then plays by weight.
    ///
    /// # Errors
    ///
    /// The book itself cannot be opened ([`open`]).
    pub fn open(path: &Path) -> Result<(BookFile, Option<crate::AnalysisError>), OpenError> {
        let book = open(path)?;
        let at = crate::analysis_path(path);
        let opened = match &book {
            AnyBook::Ours(ours) if at.is_file() => Some(crate::Analysis::open(&at, ours)),
            _ => None,
        };
        let (analysis, error) = match opened {
            Some(Ok(a)) => (Some(a), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        Ok((BookFile { book, analysis }, error))
    }

    /// The book file's path.
    pub fn path(&self) -> &Path {
        self.book.path()
    }
}
