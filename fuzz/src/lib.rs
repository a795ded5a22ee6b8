//! Helpers shared by the fuzz targets.
//!
//! Book and table files are covered by checksums end to end (see xqstore),
//! so almost every mutation of a real file is refused at the first
//! checksum. [`reseal`] recomputes the checksums of a mutated container
//! wherever its layout still lets them be found, so the fuzzer also reaches
//! the checks behind them: offsets, counts, metadata, compressed blocks and
//! the records inside.

use std::path::PathBuf;

use xqstore::{Header, IndexEntry, HEADER_LEN, INDEX_ENTRY_LEN};

/// Rewrites the block, index and header checksums of a container in place,
/// as far as its header and index can be read. Everything else is left as
/// the fuzzer made it.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    seal_header(bytes);
    let header = Header::decode(bytes[..HEADER_LEN].try_into().expect("header length"))
        .expect("just sealed");
    let meta_end = HEADER_LEN as u64 + u64::from(header.meta_len);
    let index_len = u64::from(header.block_count) * INDEX_ENTRY_LEN as u64;
    let len = bytes.len() as u64;
    let index_start = header.index_offset;
    if meta_end > len || index_start < meta_end || index_start.saturating_add(index_len) > len {
        return;
    }
    let (index_start, index_len) = (index_start as usize, index_len as usize);
    for at in (index_start..index_start + index_len).step_by(INDEX_ENTRY_LEN) {
        let mut entry = IndexEntry::decode(&bytes[at..at + INDEX_ENTRY_LEN]);
        let end = entry.offset.saturating_add(u64::from(entry.compressed_len));
        if end <= len {
            entry.crc = crc32fast::hash(&bytes[entry.offset as usize..end as usize]);
            bytes[at..at + INDEX_ENTRY_LEN].copy_from_slice(&entry.encode());
        }
    }
    // The reader checks the metadata and everything from the index on.
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[HEADER_LEN..meta_end as usize]);
    crc.update(&bytes[index_start..]);
    let header = Header {
        index_crc: crc.finalize(),
        ..header
    };
    bytes[..HEADER_LEN].copy_from_slice(&header.encode());
}

/// Makes the header's own checksum match its other bytes.
fn seal_header(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[..HEADER_LEN - 4]);
    bytes[HEADER_LEN - 4..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
}

/// A file path of this process's own for a target's input (the readers
/// take paths: they memory-map the file).
pub fn scratch_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xq-fuzz-{}-{name}", std::process::id()))
}

/// Writes `bytes` to the scratch file `name` and returns its path.
pub fn write_scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch_file(name);
    std::fs::write(&path, bytes).expect("the scratch file can be written");
    path
}

/// `bytes` with their checksums [`reseal`]ed, written to the scratch file
/// `name`: a container file the readers get past the checksums of.
pub fn resealed_file(name: &str, bytes: &[u8]) -> PathBuf {
    let mut bytes = bytes.to_vec();
    reseal(&mut bytes);
    write_scratch(name, &bytes)
}
