//! The block container that opening books and endgame tables are stored in.
//!
//! A file holds records sorted by a 64-bit key (a position's Zobrist key for
//! a book, a position index for a table), cut into blocks that are
//! compressed independently with zstd, so a probe decompresses one block
//! only. Layout, all integers little-endian:
//!
//! ```text
//! header   64 bytes   magic, versions, counts, offsets, checksums
//! meta     meta_len   the payload's own parameters (free-form bytes)
//! blocks              compressed blocks, back to back, in key order
//! index    32 bytes a block: first key, offset, sizes, records, checksum
//! ```
//!
//! Every byte is covered by a checksum (CRC-32): the header by its own, the
//! meta and the index by the index checksum, each block by its entry's. A
//! reader checks the header and index when it opens a file and a block's
//! checksum when it first decompresses that block, so a truncated, corrupt
//! or foreign file is refused with a [`StoreError`] instead of being misread.
//!
//! The header names the payload: an 8-byte magic, the payload's format
//! version and its key scheme (for books, the version of the Zobrist keys).
//! A reader states what it expects ([`Kind`]) and refuses anything else.
//! [`Layout`] says where a file's parts lie, whatever payload it holds, for
//! tools that look inside files.
//!
//! Writers write to a temporary file beside the target and rename it into
//! place when done, so an interrupted build leaves no broken file behind;
//! the temporary files of writers that were killed are removed by the next
//! writer into the same directory (see [`remove_stale`]).

mod error;
mod format;
mod frame;
mod layout;
mod map;
mod reader;
mod shared;
mod temp;
mod writer;

pub use error::StoreError;
pub use format::{Header, IndexEntry, Kind, CONTAINER_VERSION, HEADER_LEN, INDEX_ENTRY_LEN};
pub use layout::Layout;
pub use reader::Reader;
pub use shared::{cached_bytes, CACHE_BUDGET};
pub use temp::{remove_stale, remove_unfinished, write_whole};
pub use writer::{compress_block, CompressedBlock, Writer};

/// Largest decompressed block a reader accepts: a bound on the memory a
/// corrupt index can make it allocate.
pub const MAX_BLOCK_LEN: u32 = 1 << 24;
