//! Opening a container file's frame, for every reader of it: the file
//! mapped, its header checked against what the reader expects, and its
//! block index read and checked. [`crate::Reader`] and [`crate::Layout`]
//! both start here.

use std::fs::File;
use std::path::Path;

use crate::format::{Header, IndexEntry, Kind, CONTAINER_VERSION, HEADER_LEN, INDEX_ENTRY_LEN};
use crate::map::Map;
use crate::{StoreError, MAX_BLOCK_LEN};

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

/// Reads the block index of a mapped file whose header has been checked,
/// and checks it: its checksum (with the meta), blocks back to back in key
/// order, sizes a writer makes, and the record count of the header.
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
