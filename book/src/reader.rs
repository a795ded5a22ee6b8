//! Opening and probing a book file.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use xqcore::Position;
use xqstore::{Reader, StoreError};

use crate::codec::{self, BlockError};
use crate::{book_key, BookMove, BOOK_KIND};

/// Why a book cannot be opened or probed.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The container refused the file (missing, foreign, truncated, corrupt).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A block passed its checksum but does not decode: a file from a
    /// faulty writer.
    #[error("{path}: corrupt: block {block}: {source}", path = .path.display())]
    Corrupt {
        /// The book file.
        path: PathBuf,
        /// The block.
        block: usize,
        /// What is wrong.
        source: BlockError,
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

/// Decoded blocks kept per book: a probe of a cached block is a binary
/// search. 256 blocks hold about 65,000 entries (a few MB).
const DECODED_BLOCKS: usize = 256;

/// A block's positions and moves, decoded.
type DecodedBlock = Arc<Vec<(u64, Vec<BookMove>)>>;

/// Decoded blocks, with the order they were decoded in (oldest first):
/// the oldest goes when the cache is full.
#[derive(Debug, Default)]
struct DecodedCache {
    blocks: HashMap<usize, DecodedBlock>,
    order: VecDeque<usize>,
}

/// An open book file, memory-mapped. Probing is safe from several threads.
#[derive(Debug)]
pub struct Book {
    reader: Reader,
    decoded: Mutex<DecodedCache>,
}

impl Book {
    /// Opens a book, checking its header, its index and the checksum of
    /// every block: a book is small enough to vouch for whole at once, so a
    /// damaged one is refused when it is opened, not midway through a game.
    pub fn open(path: &Path) -> Result<Book, BookError> {
        let reader = Reader::open(path, BOOK_KIND)?;
        reader.check_blocks()?;
        Ok(Book {
            reader,
            decoded: Mutex::new(DecodedCache::default()),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.reader.path()
    }

    /// The container under the book.
    pub(crate) fn reader(&self) -> &Reader {
        &self.reader
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
        if moves.is_empty() {
            return Ok(moves);
        }
        let legal = pos.legal_moves();
        Ok(moves
            .into_iter()
            .map(|m| if mirrored { m.mirror() } else { m })
            // A key shared by another position (a hash collision) would
            // give moves that make no sense here.
            .filter(|m| legal.contains(&m.mv))
            .collect())
    }

    /// The moves stored under a book key, as stored.
    pub fn probe_key(&self, key: u64) -> Result<Vec<BookMove>, BookError> {
        let Some(i) = self.reader.block_for(key) else {
            return Ok(Vec::new());
        };
        let block = self.decoded_block(i)?;
        Ok(block
            .binary_search_by_key(&key, |p| p.0)
            .map(|at| block[at].1.clone())
            .unwrap_or_default())
    }

    /// Block `i` decoded, from the cache when it is there.
    fn decoded_block(&self, i: usize) -> Result<DecodedBlock, BookError> {
        let lock = || self.decoded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = lock().blocks.get(&i) {
            return Ok(b.clone());
        }
        let raw = self.reader.block(i)?;
        let first = self.reader.index()[i].first_key;
        let block = Arc::new(codec::decode(&raw, first).map_err(|reason| self.corrupt(i, reason))?);
        let mut cache = lock();
        if cache.blocks.insert(i, block.clone()).is_none() {
            cache.order.push_back(i);
            if cache.order.len() > DECODED_BLOCKS {
                let old = cache.order.pop_front().expect("not empty");
                cache.blocks.remove(&old);
            }
        }
        Ok(block)
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

    fn corrupt(&self, block: usize, source: BlockError) -> BookError {
        BookError::Corrupt {
            path: self.path().to_path_buf(),
            block,
            source,
        }
    }
}
