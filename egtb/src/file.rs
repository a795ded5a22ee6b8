//! The table file: an [`xqstore`] container of one value code (u16) per
//! index and side to move, with the table's parameters in its metadata.
//!
//! Records are keyed `side * size + index` (side 0 to move first), one code
//! each ([`Value::to_code`]), cut into blocks of [`BLOCK_RECORDS`]. A block
//! holds the low bytes of its codes, then their high bytes (nearly all
//! zero: distances of 256 plies or more are rare), compressed with zstd.
//! Positions that cannot occur take the code before them, which costs the
//! compressor nothing.
//!
//! Metadata, little-endian:
//!
//! ```text
//! u8        length of the material name, then its ASCII bytes (KRKAABB)
//! u8        rule set (RULES_AS_GAMES, or RULES_PERPETUAL_CHECK)
//! u64       indexes per side to move
//! per side to move (2x):
//!   u64 x3  wins, draws, losses (those by the rules included)
//!   u16     longest mate (won or lost) in plies
//!   u64     an index that attains it
//!   u64 x2  wins and losses by the repetition rules
//!   u64 x2  of those, the ones by the perpetual-chase rule (rule sets 3, 4)
//! ```
//!
//! A material where only one side has pieces that give check has the same
//! values under rule sets 2 and 4 (the other side can neither check back
//! nor chase): its table is written under rule set 2, byte for byte as
//! before, and tables built then stay valid. Elsewhere a table of rule set
//! 2 or 3 is refused, to be built again.
//!
//! Earlier format versions (1: one byte per position and no perpetual-check
//! rule; 2 and 3: one byte per position, the rule's distances cut short) are
//! refused, and `egtbgen gen` builds such a table again.

use std::path::{Path, PathBuf};

use xqstore::{Kind, Reader, StoreError, Writer};

use crate::index::{Indexer, INDEX_SCHEME};
use crate::material::Material;
use crate::value::{Value, INVALID};

/// What a table file is, for the container's header.
pub const TABLE_KIND: Kind = Kind {
    magic: *b"XQEGTB\0\0",
    name: "xqegtb endgame table",
    format_version: 4,
    key_scheme: INDEX_SCHEME,
};

/// File name extension of tables.
pub const EXTENSION: &str = "xqtb";

/// Records in a block (two bytes each): small blocks keep a cold probe
/// quick.
pub const BLOCK_RECORDS: u64 = 8 * 1024;

/// Rule set 2: a side without a legal move loses; a side that can only
/// avoid losing by checking for ever loses (values from
/// [`crate::RULE_DTM`] up); every other repetition is a draw.
/// Perpetual chasing is not scored. (Rule set 1, of format version 1, had
/// no perpetual-check rule.)
pub const RULES_PERPETUAL_CHECK: u8 = 2;

/// Rule set 3, the Asian rules as first built: as rule set 2, and a side
/// that can only avoid losing by chasing one piece for ever, against a side
/// that neither checks nor chases, loses (values from
/// [`crate::CHASE_DTM`] up). Refused now: rule set 4 rules more of
/// its draws.
pub const RULES_CHECK_AND_CHASE: u8 = 3;

/// Rule set 4, the Asian rules: a side without a legal move loses; a side
/// that can only avoid losing by checking for ever loses, unless the other
/// side checks on every move too (values from [`crate::RULE_DTM`]
/// up); a side that can only avoid losing by chasing one piece for ever
/// loses, unless the other side's moves are all checks or all chases of one
/// piece (values from [`crate::CHASE_DTM`] up); every other
/// repetition is a draw.
pub const RULES_AS_GAMES: u8 = 4;

/// The rule set a table of `material` is written under: rule set 4 where
/// both sides have pieces that give check, otherwise rule set 2 (the values
/// are the same, and so stay the files).
pub fn rules_for(material: Material) -> u8 {
    if material.has_attackers(0) && material.has_attackers(1) {
        RULES_AS_GAMES
    } else {
        RULES_PERPETUAL_CHECK
    }
}

/// Why a table file was refused or could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: corrupt table: {reason}", path = .path.display())]
    Corrupt { path: PathBuf, reason: String },
    /// A scratch file for a table read under a memory bound could not be
    /// made in `dir`.
    #[error("{table}: cannot make a scratch file in {dir}: {source}", table = .table.display(), dir = .dir.display())]
    Scratch {
        table: PathBuf,
        dir: PathBuf,
        source: std::io::Error,
    },
}

impl TableError {
    /// The table file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Store(
                StoreError::Io { path, .. }
                | StoreError::Foreign { path, .. }
                | StoreError::Version { path, .. }
                | StoreError::Truncated { path, .. }
                | StoreError::Corrupt { path, .. }
                | StoreError::Misuse { path, .. },
            )
            | TableError::Corrupt { path, .. } => path,
            TableError::Scratch { table, .. } => table,
        }
    }

    pub(crate) fn corrupt(path: &Path, reason: impl Into<String>) -> TableError {
        TableError::Corrupt {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Counts of one side to move's values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest distance to mate (of a win or a loss), in plies.
    pub longest: u16,
    /// An index whose value has that distance.
    pub longest_index: u64,
    /// Wins by the repetition rules (counted in `wins` too).
    pub rule_wins: u64,
    /// Losses by the repetition rules (counted in `losses` too).
    pub rule_losses: u64,
    /// Wins that need the perpetual-chase rule (counted in `rule_wins`
    /// too): draws where only perpetual check loses.
    pub chase_wins: u64,
    /// Losses that need the perpetual-chase rule (counted in
    /// `rule_losses` too).
    pub chase_losses: u64,
}

/// A table's parameters, as stored in its metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    pub material: Material,
    pub rules: u8,
    pub size: u64,
    pub stats: [SideStats; 2],
}

impl TableInfo {
    /// The statistics of a table's values.
    pub fn of_values(material: Material, rules: u8, values: &impl TableCodes) -> TableInfo {
        let stats = [0, 1].map(|side| {
            let mut s = SideStats::default();
            for i in 0..values.size() {
                let Some(v) = Value::from_code(values.code(side, i)) else {
                    continue;
                };
                match v {
                    Value::Win(_) => s.wins += 1,
                    Value::Draw => s.draws += 1,
                    Value::Loss(_) => s.losses += 1,
                }
                if v.by_rule() {
                    match v {
                        Value::Win(_) => s.rule_wins += 1,
                        _ => s.rule_losses += 1,
                    }
                    if v.by_chase_rule() {
                        match v {
                            Value::Win(_) => s.chase_wins += 1,
                            _ => s.chase_losses += 1,
                        }
                    }
                } else if let Some(d) = v.dtm() {
                    if d > s.longest {
                        s.longest = d;
                        s.longest_index = i;
                    }
                }
            }
            s
        });
        TableInfo {
            material,
            rules,
            size: values.size(),
            stats,
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = encode_head(self.material, self.rules, self.size);
        for s in &self.stats {
            for n in [s.wins, s.draws, s.losses] {
                b.extend_from_slice(&n.to_le_bytes());
            }
            b.extend_from_slice(&s.longest.to_le_bytes());
            b.extend_from_slice(&s.longest_index.to_le_bytes());
            for n in [s.rule_wins, s.rule_losses] {
                b.extend_from_slice(&n.to_le_bytes());
            }
            if self.rules >= RULES_CHECK_AND_CHASE {
                for n in [s.chase_wins, s.chase_losses] {
                    b.extend_from_slice(&n.to_le_bytes());
                }
            }
        }
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<TableInfo, TableError> {
        let bad = |what: &str| TableError::corrupt(path, format!("metadata: {what}"));
        let mut r = ByteReader { b, at: 0 };
        let (material, rules, size) = decode_head(path, &mut r)?;
        let mut stats = [SideStats::default(); 2];
        for s in &mut stats {
            s.wins = r.u64().ok_or_else(|| bad("counts cut short"))?;
            s.draws = r.u64().ok_or_else(|| bad("counts cut short"))?;
            s.losses = r.u64().ok_or_else(|| bad("counts cut short"))?;
            s.longest = r.u16().ok_or_else(|| bad("counts cut short"))?;
            s.longest_index = r.u64().ok_or_else(|| bad("counts cut short"))?;
            s.rule_wins = r.u64().ok_or_else(|| bad("counts cut short"))?;
            s.rule_losses = r.u64().ok_or_else(|| bad("counts cut short"))?;
            if rules >= RULES_CHECK_AND_CHASE {
                s.chase_wins = r.u64().ok_or_else(|| bad("counts cut short"))?;
                s.chase_losses = r.u64().ok_or_else(|| bad("counts cut short"))?;
            }
        }
        Ok(TableInfo {
            material,
            rules,
            size,
            stats,
        })
    }
}

/// The metadata every table file starts with: the material's name (a
/// length byte, then ASCII), the rule set, the indexes per side.
pub(crate) fn encode_head(material: Material, rules: u8, size: u64) -> Vec<u8> {
    let name = material.to_string();
    let mut b = vec![name.len() as u8];
    b.extend_from_slice(name.as_bytes());
    b.push(rules);
    b.extend_from_slice(&size.to_le_bytes());
    b
}

/// Reads what [`encode_head`] wrote: the material (a canonical name), the
/// rule set, the indexes per side.
pub(crate) fn decode_head(
    path: &Path,
    r: &mut ByteReader,
) -> Result<(Material, u8, u64), TableError> {
    let bad = |what: &str| TableError::corrupt(path, format!("metadata: {what}"));
    let len = r.u8().ok_or_else(|| bad("no material name"))? as usize;
    let name = r.bytes(len).ok_or_else(|| bad("material name cut short"))?;
    let name = std::str::from_utf8(name).map_err(|_| bad("material name is not text"))?;
    let material: Material = name.parse().map_err(|e| bad(&format!("material: {e}")))?;
    if material.canonical().0 != material {
        return Err(bad(&format!("{name} is not a table name")));
    }
    let rules = r.u8().ok_or_else(|| bad("no rule set"))?;
    let size = r.u64().ok_or_else(|| bad("no size"))?;
    Ok((material, rules, size))
}

pub(crate) struct ByteReader<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> ByteReader<'a> {
    pub(crate) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at + n)?;
        self.at += n;
        Some(s)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.bytes(1).map(|s| s[0])
    }
    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.bytes(2)
            .map(|s| u16::from_le_bytes(s.try_into().expect("2 bytes")))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.bytes(8)
            .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
    }
}

/// A table's value codes ([`Value::to_code`], [`INVALID`] where no
/// position is), as the writer reads them.
pub trait TableCodes: Sync {
    /// Indexes per side to move.
    fn size(&self) -> u64;
    /// The code of the position at `index` with `side` to move.
    fn code(&self, side: usize, index: u64) -> u16;
}

/// Codes by side to move, then index.
impl TableCodes for [Vec<u16>; 2] {
    fn size(&self) -> u64 {
        self[0].len() as u64
    }

    fn code(&self, side: usize, index: u64) -> u16 {
        self[side][index as usize]
    }
}

/// Blocks compressed at once: bounds what the writer holds besides the
/// values.
const BLOCKS_AT_ONCE: u64 = 512;

/// One block of a table file, packed and compressed, ready to be written.
pub struct EncodedBlock {
    compressed: xqstore::CompressedBlock,
    /// Records in the block.
    records: u32,
}

impl EncodedBlock {
    pub(crate) fn new(compressed: xqstore::CompressedBlock, records: u64) -> EncodedBlock {
        EncodedBlock {
            compressed,
            records: records as u32,
        }
    }

    /// Appends the block, whose first record is `first_key`.
    pub(crate) fn add_to(self, writer: &mut Writer, first_key: u64) -> Result<(), TableError> {
        Ok(writer.add_compressed(first_key, self.records, self.compressed)?)
    }
}

/// Encodes block `k` of the table `values` at zstd `level`: its codes'
/// low bytes then their high bytes, positions that cannot occur taking the
/// code before them.
fn encode_block(values: &impl TableCodes, k: u64, level: i32) -> EncodedBlock {
    let records = 2 * values.size();
    let (start, end) = (k * BLOCK_RECORDS, ((k + 1) * BLOCK_RECORDS).min(records));
    let code = |r: u64| values.code((r / values.size()) as usize, r % values.size());
    // Don't-care positions repeat the code before them.
    let mut last = (start..end).map(code).find(|&c| c != INVALID).unwrap_or(0);
    let mut plane = vec![0u8; 2 * (end - start) as usize];
    let (low, high) = plane.split_at_mut((end - start) as usize);
    for (i, r) in (start..end).enumerate() {
        let c = code(r);
        last = if c == INVALID { last } else { c };
        low[i] = last as u8;
        high[i] = (last >> 8) as u8;
    }
    EncodedBlock {
        compressed: xqstore::compress_block(&plane, level),
        records: (end - start) as u32,
    }
}

/// Encodes the blocks of a range, in order: on this thread, or on many
/// (the generator hands its thread pool in through
/// [`write_table_with`]).
pub type EncodeBatch<'a> =
    dyn Fn(std::ops::Range<u64>, &(dyn Fn(u64) -> EncodedBlock + Sync)) -> Vec<EncodedBlock> + 'a;

/// Writes a table file at `path` on this thread (see
/// [`write_table_with`]). Returns the file's length.
///
/// # Errors
///
/// The file cannot be written.
pub fn write_table(
    path: &Path,
    info: &TableInfo,
    values: &impl TableCodes,
    level: i32,
) -> Result<u64, TableError> {
    write_table_with(path, info, values, level, &|blocks, encode| {
        blocks.map(encode).collect()
    })
}

/// Writes a table file at `path` (through a temporary file renamed into
/// place: an interrupted write leaves nothing under `path`), its blocks
/// encoded a batch at a time by `batch`, so writing holds no copy of the
/// values. Returns the file's length. The bytes do not depend on how
/// `batch` shares out the work.
///
/// # Errors
///
/// The file cannot be written.
pub fn write_table_with(
    path: &Path,
    info: &TableInfo,
    values: &impl TableCodes,
    level: i32,
    batch: &EncodeBatch,
) -> Result<u64, TableError> {
    let mut writer = Writer::create(path, TABLE_KIND, &info.encode(), level)?;
    let blocks = (2 * values.size()).div_ceil(BLOCK_RECORDS);
    let encode = |k: u64| encode_block(values, k, level);
    for first in (0..blocks).step_by(BLOCKS_AT_ONCE as usize) {
        let encoded = batch(first..(first + BLOCKS_AT_ONCE).min(blocks), &encode);
        for (k, block) in (first..).zip(encoded) {
            writer.add_compressed(k * BLOCK_RECORDS, block.records, block.compressed)?;
        }
    }
    Ok(writer.finish()?)
}

/// Block `i` of `reader`, from this thread's cache or else from the reader
/// (which decompresses it, or finds it in its own shared cache).
pub(crate) fn cached_block(reader: &Reader, i: usize) -> Result<std::sync::Arc<[u8]>, TableError> {
    let file = reader.id();
    let hit = BLOCKS.with_borrow_mut(|cache| {
        let at = cache
            .iter()
            .rposition(|(id, b, _)| *id == file && *b == i)?;
        let entry = cache.remove(at);
        let data = entry.2.clone();
        cache.push(entry);
        Some(data)
    });
    if let Some(data) = hit {
        return Ok(data);
    }
    let data = reader.block(i)?;
    BLOCKS.with_borrow_mut(|cache| {
        if cache.len() == THREAD_BLOCKS {
            cache.remove(0);
        }
        cache.push((file, i, data.clone()));
    });
    Ok(data)
}

/// An open table file.
pub struct TableFile {
    reader: Reader,
    info: TableInfo,
    indexer: Indexer,
}

/// Decompressed blocks each thread keeps, most recent last.
const THREAD_BLOCKS: usize = 8;

/// A thread's cached block: the file's reader id, the block number, its bytes.
type CachedBlock = (u64, usize, std::sync::Arc<[u8]>);

thread_local! {
    /// Each thread's recent blocks, by (file id, block): a probe that hits
    /// one takes no lock, so search threads never wait on each other.
    static BLOCKS: std::cell::RefCell<Vec<CachedBlock>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl TableFile {
    /// Opens and checks a table file: the container's header, index and
    /// checksums, then that its metadata, size and blocks fit its material.
    pub fn open(path: &Path) -> Result<TableFile, TableError> {
        let reader = Reader::open(path, TABLE_KIND)?;
        let info = TableInfo::decode(path, reader.meta())?;
        match info.rules {
            RULES_AS_GAMES => {}
            RULES_PERPETUAL_CHECK if rules_for(info.material) == RULES_PERPETUAL_CHECK => {}
            old @ (RULES_PERPETUAL_CHECK | RULES_CHECK_AND_CHASE) => {
                return Err(TableError::corrupt(
                    path,
                    format!(
                        "built under an older repetition rule (rule set {old}), which leaves \
                         draws that rule set 4 rules lost: build it again with `egtbgen gen`"
                    ),
                ))
            }
            other => {
                return Err(TableError::corrupt(
                    path,
                    format!("rule set {other} is unknown to this program"),
                ))
            }
        }
        let indexer = Indexer::new(info.material);
        if info.size != indexer.size() {
            return Err(TableError::corrupt(
                path,
                format!(
                    "{} has {} indexes per side, the file says {}",
                    info.material,
                    indexer.size(),
                    info.size
                ),
            ));
        }
        if reader.header().record_count != 2 * info.size {
            return Err(TableError::corrupt(
                path,
                format!(
                    "{} records, expected {}",
                    reader.header().record_count,
                    2 * info.size
                ),
            ));
        }
        // Blocks must tile the keys: each starts where the one before ended.
        let mut next = 0u64;
        for (i, e) in reader.index().iter().enumerate() {
            if e.first_key != next || 2 * e.records as u64 != e.raw_len as u64 {
                return Err(TableError::corrupt(
                    path,
                    format!("block {i} does not follow on from the one before"),
                ));
            }
            next += e.records as u64;
        }
        Ok(TableFile {
            reader,
            info,
            indexer,
        })
    }

    /// The table's parameters and statistics.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// The table's indexer.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.reader.path()
    }

    /// The value at `index` with table side `side` to move.
    pub fn value(&self, side: usize, index: u64) -> Result<Value, TableError> {
        let key = side as u64 * self.info.size + index;
        let corrupt = |reason: String| TableError::corrupt(self.reader.path(), reason);
        let block = self
            .reader
            .block_for(key)
            .ok_or_else(|| corrupt(format!("no block holds key {key}")))?;
        let data = self.cached_block(block)?;
        let entry = &self.reader.index()[block];
        let offset = (key - entry.first_key) as usize;
        let records = entry.records as usize;
        let (Some(&low), Some(&high)) = (data.get(offset), data.get(records + offset)) else {
            return Err(corrupt(format!("block {block} is too short for key {key}")));
        };
        Value::from_code(u16::from_le_bytes([low, high]))
            .ok_or_else(|| corrupt(format!("invalid value code at key {key}")))
    }

    fn cached_block(&self, i: usize) -> Result<std::sync::Arc<[u8]>, TableError> {
        cached_block(&self.reader, i)
    }

    /// Every value code, by side to move (for verification and for
    /// generating the tables that capture into this one).
    pub fn all_values(&self) -> Result<[Vec<u16>; 2], TableError> {
        let mut all = Vec::with_capacity(2 * self.info.size as usize);
        self.visit_codes(|_, code| all.push(code))?;
        let second = all.split_off(self.info.size as usize);
        Ok([all, second])
    }

    /// Calls `visit` with every record's value code in order (record:
    /// `side * size + index`), a block at a time, without holding them all.
    pub fn visit_codes(&self, mut visit: impl FnMut(u64, u16)) -> Result<(), TableError> {
        let mut record = 0;
        for (i, entry) in self.reader.index().iter().enumerate() {
            let data = self.reader.block(i)?;
            let (low, high) = data.split_at(entry.records as usize);
            for (&l, &h) in low.iter().zip(high) {
                visit(record, u16::from_le_bytes([l, h]));
                record += 1;
            }
        }
        Ok(())
    }

    /// Checks every block's checksum (probes check a block when they first
    /// read it; this checks them all at once, without decompressing).
    pub fn check_blocks(&self) -> Result<(), TableError> {
        Ok(self.reader.check_blocks()?)
    }

    /// File size in bytes.
    pub fn file_len(&self) -> u64 {
        self.reader.header().file_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_round_trips_and_damage_is_refused() {
        let material: Material = "KRK".parse().unwrap();
        let size = Indexer::new(material).size() as usize;
        let values = [0, 1].map(|side| {
            (0..size)
                .map(|i| match (i + side) % 7 {
                    0 => INVALID,
                    1 => Value::Win(3).to_code(),
                    2 => Value::Loss(2).to_code(),
                    // A code whose high byte is not zero.
                    3 => Value::Loss(1200).to_code(),
                    _ => 0,
                })
                .collect::<Vec<u16>>()
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KRK.xqtb");
        let info = TableInfo::of_values(material, RULES_PERPETUAL_CHECK, &values);
        write_table(&path, &info, &values, 3).unwrap();
        let t = TableFile::open(&path).unwrap();
        assert_eq!(t.info(), &info);
        for (side, side_values) in values.iter().enumerate() {
            for (i, &b) in side_values.iter().enumerate() {
                if b != INVALID {
                    assert_eq!(t.value(side, i as u64).unwrap().to_code(), b);
                }
            }
        }
        // A flipped byte in the last block is caught by its checksum.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 200;
        bytes[at] ^= 0x40;
        let bad = dir.path().join("bad.xqtb");
        std::fs::write(&bad, &bytes).unwrap();
        let err = TableFile::open(&bad)
            .and_then(|t| t.all_values().map(|_| ()))
            .unwrap_err();
        assert!(err.to_string().contains("bad.xqtb"), "{err}");
        // A truncated file is refused on open.
        std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
        assert!(TableFile::open(&bad).is_err());
    }

    #[test]
    fn tables_of_older_repetition_rules_are_refused_where_values_may_differ() {
        let write = |name: &str, rules: u8| {
            let material: Material = name.parse().unwrap();
            let size = Indexer::new(material).size() as usize;
            let values = [vec![0u16; size], vec![0u16; size]];
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("{name}.xqtb"));
            write_table(
                &path,
                &TableInfo::of_values(material, rules, &values),
                &values,
                3,
            )
            .unwrap();
            (dir, path)
        };
        // Only one side gives check: rule set 2 has the values of rule set 4.
        assert_eq!(rules_for("KRK".parse().unwrap()), RULES_PERPETUAL_CHECK);
        let (_dir, path) = write("KRK", RULES_PERPETUAL_CHECK);
        assert!(TableFile::open(&path).is_ok());
        // Both sides do: only rule set 4 is read.
        assert_eq!(rules_for("KPKP".parse().unwrap()), RULES_AS_GAMES);
        for old in [RULES_PERPETUAL_CHECK, RULES_CHECK_AND_CHASE] {
            let (_dir, path) = write("KPKP", old);
            let err = TableFile::open(&path).err().expect("refused").to_string();
            assert!(
                err.contains("KPKP.xqtb") && err.contains(&format!("rule set {old}")),
                "{err}"
            );
        }
        let (_dir, path) = write("KPKP", RULES_AS_GAMES);
        assert!(TableFile::open(&path).is_ok());
    }
}
