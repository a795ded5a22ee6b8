//! Opening and probing a book file.

use std::path::Path;

use xqcore::Position;
use xqstore::{Reader, StoreError};

use crate::codec;
use crate::{book_key, BookMove, BOOK_KIND};

/// Why a book cannot be opened or probed.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The container refused the file (missing, foreign, truncated, corrupt).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A block passed its checksum but does not decode: a file from a
    /// faulty writer.
    #[error("{path}: corrupt: block {block}: {reason}")]
    Corrupt {
        /// The book file.
        path: String,
        /// The block.
        block: usize,
        /// What is wrong.
        reason: String,
    },
}

/// What a book says of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookInfo {
    /// (position, move) entries.
    pub entries: u64,
    /// Blocks.
    pub blocks: usize,
    /// The description written when it was built.
    pub description: String,
}

/// An open book file, memory-mapped. Probing is safe from several threads.
#[derive(Debug)]
pub struct Book {
    reader: Reader,
}

impl Book {
    /// Opens a book, checking its header and index.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Ok(Book {
            reader: Reader::open(path, BOOK_KIND)?,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.reader.path()
    }

    /// The book's counts and description.
    pub fn info(&self) -> BookInfo {
        BookInfo {
            entries: self.reader.header().record_count,
            blocks: self.reader.index().len(),
            description: String::from_utf8_lossy(self.reader.meta()).into_owned(),
        }
    }

    /// The book moves of `pos` that are legal there, most games first.
    pub fn probe(&self, pos: &Position) -> Result<Vec<BookMove>, BookError> {
        let (key, mirrored) = book_key(pos);
        let moves = self.probe_key(key)?;
        Ok(moves
            .into_iter()
            .map(|m| if mirrored { m.mirror() } else { m })
            // A key shared by another position (a hash collision) would
            // give moves that make no sense here.
            .filter(|m| pos.is_legal(m.mv))
            .collect())
    }

    /// The moves stored under a book key, as stored.
    pub fn probe_key(&self, key: u64) -> Result<Vec<BookMove>, BookError> {
        let Some(i) = self.reader.block_for(key) else {
            return Ok(Vec::new());
        };
        let raw = self.reader.block(i)?;
        let first = self.reader.index()[i].first_key;
        codec::find(&raw, first, key)
            .map(Option::unwrap_or_default)
            .map_err(|reason| self.corrupt(i, reason))
    }

    /// Every position of the book with its moves, in key order, block by block.
    pub fn positions(
        &self,
    ) -> impl Iterator<Item = Result<Vec<(u64, Vec<BookMove>)>, BookError>> + '_ {
        (0..self.reader.index().len()).map(move |i| {
            let raw = self.reader.block(i)?;
            let first = self.reader.index()[i].first_key;
            codec::decode(&raw, first).map_err(|reason| self.corrupt(i, reason))
        })
    }

    fn corrupt(&self, block: usize, reason: String) -> BookError {
        BookError::Corrupt {
            path: self.path().display().to_string(),
            block,
            reason,
        }
    }
}
