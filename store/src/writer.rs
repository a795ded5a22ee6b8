//! Writing a container: blocks in key order into a temporary file, renamed
//! into place by [`Writer::finish`].

use std::fs;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::format::{Header, IndexEntry, Kind, CONTAINER_VERSION, HEADER_LEN};
use crate::temp::TempFile;
use crate::{StoreError, MAX_BLOCK_LEN};

/// A block compressed and checksummed, ready for [`Writer::add_compressed`].
/// Compressing is the slow part of a build; callers may compress blocks in
/// parallel with [`compress_block`] and add them in order.
#[derive(Clone, Debug)]
pub struct CompressedBlock {
    bytes: Vec<u8>,
    raw_len: u32,
    crc: u32,
}

impl CompressedBlock {
    /// Its compressed length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether it is empty (never: zstd writes a frame header).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// Compresses `raw` at zstd `level`.
///
/// # Panics
/// If `raw` is longer than [`MAX_BLOCK_LEN`]; writers cut blocks smaller.
pub fn compress_block(raw: &[u8], level: i32) -> CompressedBlock {
    assert!(raw.len() <= MAX_BLOCK_LEN as usize, "block too large");
    let bytes = zstd::bulk::compress(raw, level).expect("zstd compresses any input in memory");
    let crc = crc32fast::hash(&bytes);
    CompressedBlock {
        bytes,
        raw_len: raw.len() as u32,
        crc,
    }
}

/// Writes a container file. Nothing appears at the target path until
/// [`Writer::finish`] succeeds; a writer dropped before that (an error, an
/// interrupted build) deletes its temporary file.
pub struct Writer {
    target: PathBuf,
    out: BufWriter<fs::File>,
    temp: TempFile,
    kind: Kind,
    meta_len: u32,
    crc: crc32fast::Hasher,
    index: Vec<IndexEntry>,
    offset: u64,
    records: u64,
    level: i32,
}

impl Writer {
    /// Starts a file at `path` of the given kind, with the payload's `meta`
    /// bytes, compressing blocks at zstd `level`.
    pub fn create(path: &Path, kind: Kind, meta: &[u8], level: i32) -> Result<Writer, StoreError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // What writers killed earlier left here goes first.
        crate::temp::remove_stale(dir);
        let (temp, file) = TempFile::create(dir).map_err(StoreError::io(path))?;
        let mut out = BufWriter::new(file);
        // The header is written last, once the index is known.
        out.write_all(&[0u8; HEADER_LEN])
            .and_then(|_| out.write_all(meta))
            .map_err(StoreError::io(path))?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(meta);
        let meta_len = u32::try_from(meta.len()).map_err(|_| StoreError::Misuse {
            path: path.to_path_buf(),
            reason: "metadata longer than 4 GiB".into(),
        })?;
        Ok(Writer {
            target: path.to_path_buf(),
            out,
            temp,
            kind,
            meta_len,
            crc,
            index: Vec::new(),
            offset: (HEADER_LEN + meta.len()) as u64,
            records: 0,
            level,
        })
    }

    /// Compresses and appends a block of `records` records whose first key
    /// is `first_key`. Blocks must come in key order.
    pub fn add_block(
        &mut self,
        first_key: u64,
        records: u32,
        raw: &[u8],
    ) -> Result<(), StoreError> {
        if raw.len() > MAX_BLOCK_LEN as usize {
            return Err(self.misuse(format!(
                "block of {} bytes, at most {MAX_BLOCK_LEN} allowed",
                raw.len()
            )));
        }
        let block = compress_block(raw, self.level);
        self.add_compressed(first_key, records, block)
    }

    /// Appends a block compressed with [`compress_block`].
    pub fn add_compressed(
        &mut self,
        first_key: u64,
        records: u32,
        block: CompressedBlock,
    ) -> Result<(), StoreError> {
        if let Some(last) = self.index.last() {
            if first_key < last.first_key {
                return Err(self.misuse(format!(
                    "block keys out of order: {first_key:#x} after {:#x}",
                    last.first_key
                )));
            }
        }
        self.out
            .write_all(&block.bytes)
            .map_err(StoreError::io(&self.target))?;
        self.index.push(IndexEntry {
            first_key,
            offset: self.offset,
            compressed_len: block.bytes.len() as u32,
            raw_len: block.raw_len,
            records,
            crc: block.crc,
        });
        self.offset += block.bytes.len() as u64;
        self.records += u64::from(records);
        Ok(())
    }

    /// Writes the index and header, flushes to disk and renames the file
    /// into place, replacing any file there. Returns the file's length.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        let path = self.target.clone();
        let io = StoreError::io(&path);
        let block_count = u32::try_from(self.index.len())
            .map_err(|_| self.misuse("more than 2^32 blocks".into()))?;
        let index_offset = self.offset;
        for entry in &self.index {
            let bytes = entry.encode();
            self.crc.update(&bytes);
            self.out.write_all(&bytes).map_err(StoreError::io(&path))?;
        }
        let file_len = index_offset + (self.index.len() * crate::INDEX_ENTRY_LEN) as u64;
        let header = Header {
            magic: self.kind.magic,
            container_version: CONTAINER_VERSION,
            format_version: self.kind.format_version,
            key_scheme: self.kind.key_scheme,
            record_count: self.records,
            block_count,
            meta_len: self.meta_len,
            index_offset,
            file_len,
            index_crc: self.crc.clone().finalize(),
        };
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| StoreError::io(&path)(e.into_error()))?;
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(&header.encode()))
            .and_then(|_| file.sync_all())
            .map_err(StoreError::io(&path))?;
        // A temporary file is private (0600); a book or table is a normal
        // file that other users of the machine may read.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(self.temp.path(), fs::Permissions::from_mode(0o644))
                .map_err(StoreError::io(&path))?;
        }
        self.temp.persist(&path).map_err(io)?;
        // The lock on the file goes with its handle, after the rename.
        drop(file);
        // Make the rename itself durable where the platform allows.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(file_len)
    }

    fn misuse(&self, reason: String) -> StoreError {
        StoreError::Misuse {
            path: self.target.clone(),
            reason,
        }
    }
}
