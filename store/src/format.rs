//! The header and index entries, byte for byte.

/// Version of the container layout itself (header, index, checksums).
pub const CONTAINER_VERSION: u16 = 1;

/// Bytes in the header.
pub const HEADER_LEN: usize = 64;

/// Bytes in one index entry.
pub const INDEX_ENTRY_LEN: usize = 32;

/// What a file holds: its payload's magic and versions. A writer stamps
/// them into the header; a reader refuses a file whose stamp differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// Eight bytes naming the payload, e.g. `b"XQBOOK\0\0"`.
    pub magic: [u8; 8],
    /// Human name for error messages, e.g. "xqbook opening book".
    pub name: &'static str,
    /// Version of the payload's record format.
    pub format_version: u16,
    /// Version of the key scheme (Zobrist constants, index scheme).
    pub key_scheme: u16,
}

/// The decoded header of a container file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Payload magic.
    pub magic: [u8; 8],
    /// Container layout version ([`CONTAINER_VERSION`]).
    pub container_version: u16,
    /// Payload record format version.
    pub format_version: u16,
    /// Payload key scheme version.
    pub key_scheme: u16,
    /// Records in all blocks.
    pub record_count: u64,
    /// Number of blocks.
    pub block_count: u32,
    /// Bytes of payload metadata after the header.
    pub meta_len: u32,
    /// Where the index starts.
    pub index_offset: u64,
    /// Length of the whole file.
    pub file_len: u64,
    /// CRC-32 of the metadata followed by the index.
    pub index_crc: u32,
}

impl Header {
    /// Encodes the header, its own checksum last.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&self.magic);
        b[8..10].copy_from_slice(&self.container_version.to_le_bytes());
        b[10..12].copy_from_slice(&self.format_version.to_le_bytes());
        b[12..14].copy_from_slice(&self.key_scheme.to_le_bytes());
        b[16..24].copy_from_slice(&self.record_count.to_le_bytes());
        b[24..28].copy_from_slice(&self.block_count.to_le_bytes());
        b[28..32].copy_from_slice(&self.meta_len.to_le_bytes());
        b[32..40].copy_from_slice(&self.index_offset.to_le_bytes());
        b[40..48].copy_from_slice(&self.file_len.to_le_bytes());
        b[48..52].copy_from_slice(&self.index_crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..HEADER_LEN - 4]);
        b[HEADER_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes a header; `None` when its checksum does not match.
    pub fn decode(b: &[u8; HEADER_LEN]) -> Option<Header> {
        if crc32fast::hash(&b[..HEADER_LEN - 4]) != u32_at(b, HEADER_LEN - 4) {
            return None;
        }
        Some(Header {
            magic: b[0..8].try_into().expect("8 bytes"),
            container_version: u16_at(b, 8),
            format_version: u16_at(b, 10),
            key_scheme: u16_at(b, 12),
            record_count: u64_at(b, 16),
            block_count: u32_at(b, 24),
            meta_len: u32_at(b, 28),
            index_offset: u64_at(b, 32),
            file_len: u64_at(b, 40),
            index_crc: u32_at(b, 48),
        })
    }
}

/// Where a block lies and what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// Key of the block's first record.
    pub first_key: u64,
    /// Offset of the compressed block in the file.
    pub offset: u64,
    /// Compressed length.
    pub compressed_len: u32,
    /// Decompressed length.
    pub raw_len: u32,
    /// Records in the block.
    pub records: u32,
    /// CRC-32 of the compressed bytes.
    pub crc: u32,
}

impl IndexEntry {
    /// Encodes the entry.
    pub fn encode(&self) -> [u8; INDEX_ENTRY_LEN] {
        let mut b = [0u8; INDEX_ENTRY_LEN];
        b[0..8].copy_from_slice(&self.first_key.to_le_bytes());
        b[8..16].copy_from_slice(&self.offset.to_le_bytes());
        b[16..20].copy_from_slice(&self.compressed_len.to_le_bytes());
        b[20..24].copy_from_slice(&self.raw_len.to_le_bytes());
        b[24..28].copy_from_slice(&self.records.to_le_bytes());
        b[28..32].copy_from_slice(&self.crc.to_le_bytes());
        b
    }

    /// Decodes an entry (the index checksum vouches for it).
    pub fn decode(b: &[u8]) -> IndexEntry {
        IndexEntry {
            first_key: u64_at(b, 0),
            offset: u64_at(b, 8),
            compressed_len: u32_at(b, 16),
            raw_len: u32_at(b, 20),
            records: u32_at(b, 24),
            crc: u32_at(b, 28),
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().expect("2 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_any_flipped_bit_is_caught() {
        let h = Header {
            magic: *b"TESTMAGC",
            container_version: CONTAINER_VERSION,
            format_version: 3,
            key_scheme: 7,
            record_count: 123_456,
            block_count: 42,
            meta_len: 9,
            index_offset: 987_654,
            file_len: 987_654 + 42 * 32,
            index_crc: 0xdead_beef,
        };
        let bytes = h.encode();
        assert_eq!(Header::decode(&bytes), Some(h));
        for bit in 0..HEADER_LEN * 8 {
            let mut b = bytes;
            b[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(Header::decode(&b), None, "bit {bit}");
        }
    }

    #[test]
    fn index_entry_round_trips() {
        let e = IndexEntry {
            first_key: u64::MAX - 5,
            offset: 1 << 40,
            compressed_len: 17,
            raw_len: 1 << 20,
            records: 99,
            crc: 12345,
        };
        assert_eq!(IndexEntry::decode(&e.encode()), e);
    }
}
