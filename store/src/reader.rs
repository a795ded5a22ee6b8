//! Reading a container: the file memory-mapped, header and index checked
//! once, blocks decompressed on demand into a cache shared by all readers.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::format::{Header, IndexEntry, Kind, HEADER_LEN};
use crate::frame::{check_header, map_file, read_index};
use crate::map::Map;
use crate::{shared, Layout, StoreError};

/// Ids of opened readers, telling their blocks apart in the shared cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// An open container file.
pub struct Reader {
    path: PathBuf,
    map: Map,
    header: Header,
    index: Vec<IndexEntry>,
    /// This reader's blocks in the shared cache are under this id.
    id: u64,
}

impl Drop for Reader {
    fn drop(&mut self) {
        shared::forget(self.id);
    }
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// Opens `path`, which must be a container of `kind`: checks the
    /// header, the versions, the length, the index and its checksum.
    pub fn open(path: &Path, kind: Kind) -> Result<Reader, StoreError> {
        let map = map_file(path)?;
        let header = check_header(path, &map, Some(kind))?;
        let index = read_index(path, &map, &header)?;
        Ok(Reader {
            path: path.to_path_buf(),
            map,
            header,
            index,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A number no other reader opened by this process has: tells this
    /// file's blocks apart in caches keyed by file.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The payload's metadata bytes.
    pub fn meta(&self) -> &[u8] {
        &self.map[HEADER_LEN..HEADER_LEN + self.header.meta_len as usize]
    }

    /// The block index.
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }

    /// Where the file's parts lie (see [`Layout`]).
    pub fn layout(&self) -> Layout {
        Layout::new(self.header, &self.index)
    }

    /// The last block whose first key is at most `key`: the only block that
    /// can hold `key`. `None` when `key` is below every block.
    pub fn block_for(&self, key: u64) -> Option<usize> {
        self.index
            .partition_point(|e| e.first_key <= key)
            .checked_sub(1)
    }

    /// Block `i`, decompressed and checked against its checksum and length.
    /// Recent blocks come from a cache that all readers share, within
    /// [`CACHE_BUDGET`](crate::CACHE_BUDGET) bytes.
    pub fn block(&self, i: usize) -> Result<Arc<[u8]>, StoreError> {
        if let Some(data) = shared::cached(self.id, i) {
            return Ok(data);
        }
        let data = self.decompress(i)?;
        shared::keep(self.id, i, &data);
        Ok(data)
    }

    /// Checks every block's checksum without decompressing it: for files
    /// small enough to vouch for whole when they are opened, rather than
    /// block by block as they are read.
    pub fn check_blocks(&self) -> Result<(), StoreError> {
        (0..self.index.len()).try_for_each(|i| self.checked_block_bytes(i).map(|_| ()))
    }

    /// The compressed bytes of block `i`, checked against their checksum.
    fn checked_block_bytes(&self, i: usize) -> Result<&[u8], StoreError> {
        let e = &self.index[i];
        let start = e.offset as usize;
        let bytes = &self.map[start..start + e.compressed_len as usize];
        if crc32fast::hash(bytes) != e.crc {
            return Err(StoreError::corrupt(
                &self.path,
                format!("block {i} fails its checksum"),
            ));
        }
        Ok(bytes)
    }

    fn decompress(&self, i: usize) -> Result<Arc<[u8]>, StoreError> {
        let e = &self.index[i];
        let bytes = self.checked_block_bytes(i)?;
        let raw = shared::with_decompressor(|d| d.decompress(bytes, e.raw_len as usize))
            .map_err(StoreError::io(&self.path))?
            .map_err(|err| {
                StoreError::corrupt(&self.path, format!("block {i} does not decompress: {err}"))
            })?;
        if raw.len() != e.raw_len as usize {
            return Err(StoreError::corrupt(
                &self.path,
                format!(
                    "block {i} holds {} bytes, the index says {}",
                    raw.len(),
                    e.raw_len
                ),
            ));
        }
        Ok(raw.into())
    }
}
