//! Where the parts of a container file lie, for tools that look inside
//! files rather than read records: a listing of a file's blocks, a test
//! that cuts or damages a file exactly at a block's end.

use std::ops::Range;
use std::path::Path;

use crate::format::{Header, IndexEntry, HEADER_LEN, INDEX_ENTRY_LEN};
use crate::frame::{check_header, map_file, read_index};
use crate::StoreError;

/// The byte ranges of a container's parts, in file order (see the crate's
/// documentation for the layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The decoded header.
    pub header: Header,
    /// The payload's metadata, after the header.
    pub meta: Range<u64>,
    /// Each block's compressed bytes, back to back, in key order.
    pub blocks: Vec<Range<u64>>,
    /// The block index, to the end of the file.
    pub index: Range<u64>,
}

impl Layout {
    /// The layout of the container at `path`, whatever payload it holds.
    /// The header and the index are checked as [`crate::Reader::open`]
    /// checks them (checksums, container version, length, offsets); the
    /// payload's magic and versions and the blocks' bytes are not.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or its header or index do not check out;
    /// every error names the file.
    pub fn read(path: &Path) -> Result<Layout, StoreError> {
        let map = map_file(path)?;
        let header = check_header(path, &map, None)?;
        let index = read_index(path, &map, &header)?;
        Ok(Layout::new(header, &index))
    }

    /// The layout a checked header and index describe.
    pub(crate) fn new(header: Header, index: &[IndexEntry]) -> Layout {
        let meta_end = HEADER_LEN as u64 + u64::from(header.meta_len);
        let index_len = index.len() as u64 * INDEX_ENTRY_LEN as u64;
        Layout {
            header,
            meta: HEADER_LEN as u64..meta_end,
            blocks: index
                .iter()
                .map(|e| e.offset..e.offset + u64::from(e.compressed_len))
                .collect(),
            index: header.index_offset..header.index_offset + index_len,
        }
    }

    /// The offsets where blocks end: where a copy cut short most likely
    /// stops, and the last byte of each block is the one before.
    pub fn block_ends(&self) -> impl Iterator<Item = u64> + '_ {
        self.blocks.iter().map(|block| block.end)
    }
}
