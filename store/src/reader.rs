//! Reading a container: the file memory-mapped, header and index checked
//! once, blocks decompressed on demand into a cache shared by all readers.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::format::{Header, IndexEntry, Kind, CONTAINER_VERSION, HEADER_LEN, INDEX_ENTRY_LEN};
use crate::map::Map;
use crate::{shared, Layout, StoreError, MAX_BLOCK_LEN};

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

/// Maps the file at `path`, which must be long enough for a header.
pub(crate) fn map_file(path: &Path) -> Result<Map, StoreError> {
    let file = File::open(path).map_err(StoreError::io(path))?;
    let len = file.metadata().map_err(StoreError::io(path))?.len();
    if len < HEADER_LEN as u64 {
        return Err(StoreError::Truncated {
            path: path.to_path_buf(),
            actual: len,
            expected: HEADER_LEN as u64,
        });
    }
    Map::new(&file).map_err(StoreError::io(path))
}

/// Checks the header of a mapped file: its magic and payload versions
/// against `kind` (unless `None`: any payload), its checksum, the
/// container version, and the file's length and offsets against it.
pub(crate) fn check_header(
    path: &Path,
    map: &[u8],
    kind: Option<Kind>,
) -> Result<Header, StoreError> {
    let bytes: &[u8; HEADER_LEN] = map[..HEADER_LEN].try_into().expect("length checked");
    if let Some(kind) = kind.filter(|kind| bytes[..8] != kind.magic) {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            expected: kind.name.to_string(),
        });
    }
    let header = Header::decode(bytes)
        .ok_or_else(|| StoreError::corrupt(path, "the header fails its checksum"))?;
    let version = |what, found, supported| {
        if found == supported {
            Ok(())
        } else {
            Err(StoreError::Version {
                path: path.to_path_buf(),
                what,
                found,
                supported,
            })
        }
    };
    version("container", header.container_version, CONTAINER_VERSION)?;
    if let Some(kind) = kind {
        version("format", header.format_version, kind.format_version)?;
        version("key scheme", header.key_scheme, kind.key_scheme)?;
    }
    let actual = map.len() as u64;
    if actual < header.file_len {
        return Err(StoreError::Truncated {
            path: path.to_path_buf(),
            actual,
            expected: header.file_len,
        });
    }
    if actual > header.file_len {
        return Err(StoreError::corrupt(
            path,
            format!(
                "{} bytes after the end the header gives",
                actual - header.file_len
            ),
        ));
    }
    let index_len = u64::from(header.block_count) * INDEX_ENTRY_LEN as u64;
    let blocks_start = HEADER_LEN as u64 + u64::from(header.meta_len);
    if header.index_offset < blocks_start
        || header.index_offset.checked_add(index_len) != Some(header.file_len)
    {
        return Err(StoreError::corrupt(
            path,
            "the header's offsets do not add up",
        ));
    }
    Ok(header)
}

pub(crate) fn read_index(
    path: &Path,
    map: &[u8],
    header: &Header,
) -> Result<Vec<IndexEntry>, StoreError> {
    let meta = &map[HEADER_LEN..HEADER_LEN + header.meta_len as usize];
    let index_bytes = &map[header.index_offset as usize..];
    let mut crc = crc32fast::Hasher::new();
    crc.update(meta);
    crc.update(index_bytes);
    if crc.finalize() != header.index_crc {
        return Err(StoreError::corrupt(
            path,
            "the block index fails its checksum",
        ));
    }
    let index: Vec<IndexEntry> = index_bytes
        .chunks_exact(INDEX_ENTRY_LEN)
        .map(IndexEntry::decode)
        .collect();
    // Blocks lie back to back from the end of the metadata to the index, in
    // key order, so that every byte is covered by some checksum.
    let mut expected_offset = HEADER_LEN as u64 + u64::from(header.meta_len);
    let mut records = 0u64;
    for (i, e) in index.iter().enumerate() {
        let bad = |what: &str| StoreError::corrupt(path, format!("index entry {i}: {what}"));
        if e.offset != expected_offset {
            return Err(bad("block not where the previous one ends"));
        }
        if e.raw_len > MAX_BLOCK_LEN {
            return Err(bad("block larger than any writer makes"));
        }
        if i > 0 && e.first_key < index[i - 1].first_key {
            return Err(bad("keys out of order"));
        }
        expected_offset += u64::from(e.compressed_len);
        records += u64::from(e.records);
    }
    if expected_offset != header.index_offset {
        return Err(StoreError::corrupt(
            path,
            "the blocks do not end where the index starts",
        ));
    }
    if records != header.record_count {
        return Err(StoreError::corrupt(
            path,
            format!(
                "the blocks hold {records} records, the header says {}",
                header.record_count
            ),
        ));
    }
    Ok(index)
}
