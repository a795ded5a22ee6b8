//! Tables of one metric each, beside a material's table file: win, draw or
//! loss alone (`KRKAABB.xqwdl`), and the distance to conversion
//! (`KRKAABB.xqdtc`). The table file (`KRKAABB.xqtb`, [`crate::TableFile`])
//! holds the distance to mate, with win, draw or loss.
//!
//! A program that needs only the verdict reads the small win/draw/loss
//! file: two bits a position, a fifth of the table file or less.
//!
//! **Win/draw/loss file** (an [`xqstore`] container of kind [`WDL_KIND`]):
//! records keyed `side * size + index` as in the table file, four to a
//! byte, lowest bits first: 0 draw, 1 loss, 2 win for the side to move,
//! under the Asian rules (results of the repetition rules count: the
//! table file tells which they are). Positions that cannot occur take the
//! code before them. Blocks of [`WDL_BLOCK_RECORDS`].
//!
//! **Distance-to-conversion file** (kind [`DTC_KIND`]): a code (u16) a
//! record, blocks of [`DTC_BLOCK_RECORDS`] holding their low bytes then their
//! high bytes, as the table file's: 0 a draw (or no position), otherwise
//! bits 0-9 the plies plus one, bit 10 set for a win, bits 11-15 the
//! [`Dtc::order`]. It holds one side to move's distances
//! ([`MetricInfo::stored_side`]); the other side's follow one ply on
//! ([`Dtc::one_ply_on`]), but where a repetition rule's result begins,
//! which it holds too.
//!
//! Metadata of both, little-endian:
//!
//! ```text
//! u8        length of the material name, then its ASCII bytes
//! u8        rule set, as the table file's
//! u64       indexes per side to move
//! per side to move (2x):
//!   u64 x3  wins, draws, losses
//!   u16     longest distance (0 in a win/draw/loss file)
//!   u64     an index that attains it
//!   u8      highest order (0 in a win/draw/loss file)
//! u8        (distance-to-conversion file) the stored side to move: 0, 1, 2 both
//! ```

use std::path::Path;

use xqstore::{Kind, Reader, Writer};

use crate::file::{
    cached_block, decode_head, encode_head, ByteReader, EncodeBatch, TableCodes, TableError,
};
use crate::index::{Indexer, INDEX_SCHEME};
use crate::material::Material;
use crate::value::{Value, Wdl, INVALID};

/// What a win/draw/loss file is, for the container's header.
pub const WDL_KIND: Kind = Kind {
    magic: *b"XQWDL\0\0\0",
    name: "xqegtb win/draw/loss table",
    format_version: 1,
    key_scheme: INDEX_SCHEME,
};

/// What a distance-to-conversion file is, for the container's header.
pub const DTC_KIND: Kind = Kind {
    magic: *b"XQDTC\0\0\0",
    name: "xqegtb distance-to-conversion table",
    format_version: 2,
    key_scheme: INDEX_SCHEME,
};

/// Records in a block of a win/draw/loss file (a quarter of a byte each):
/// large blocks compress the verdicts' long runs best.
pub const WDL_BLOCK_RECORDS: u64 = 1 << 20;

/// Records in a block of a distance-to-conversion file (two bytes each).
pub const DTC_BLOCK_RECORDS: u64 = 64 * 1024;

/// What a table's file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Win, draw or loss alone.
    Wdl,
    /// Win, draw or loss with the distance to mate (the table file).
    Dtm,
    /// Win, draw or loss with the distance to conversion.
    Dtc,
}

impl Metric {
    /// Every metric, in the order they are listed.
    pub const ALL: [Metric; 3] = [Metric::Wdl, Metric::Dtm, Metric::Dtc];

    /// The file name extension of its files.
    pub fn extension(self) -> &'static str {
        match self {
            Metric::Wdl => "xqwdl",
            Metric::Dtm => crate::file::EXTENSION,
            Metric::Dtc => "xqdtc",
        }
    }

    /// The metric a file name extension names.
    pub fn of_extension(extension: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.extension() == extension)
    }

    /// Its name on the command line and in the server's queries.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Wdl => "wdl",
            Metric::Dtm => "dtm",
            Metric::Dtc => "dtc",
        }
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Metric {
    type Err = String;

    fn from_str(s: &str) -> Result<Metric, String> {
        Metric::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("{s}: a metric is wdl, dtm or dtc"))
    }
}

/// A position's distance to conversion for the side to move: the plies to
/// the next capture that keeps the result, or to mate, whichever comes
/// first, the winner hastening it and the loser putting it off (as chessdb's
/// generator counts it). Only captures into a smaller table's win for the
/// capturer convert; a side whose only moves are captures that lose, or
/// that has none, has lost at 0.
///
/// Results of the repetition rules count from the positions a rule finds
/// lost: those are lost at 0 in their [`Dtc::order`], the rule's pass that
/// found them (1 the first); results decided without the rules are of order
/// 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dtc {
    pub wdl: Wdl,
    /// Plies to the conversion (0 for a draw).
    pub plies: u16,
    /// 0 without the repetition rules, else the rule's pass.
    pub order: u8,
}

/// Longest distance a distance-to-conversion file holds, in plies.
pub const MAX_DTC: u16 = 1022;

/// Highest order a distance-to-conversion file holds.
pub const MAX_ORDER: u8 = 31;

impl Dtc {
    /// A draw.
    pub const DRAW: Dtc = Dtc {
        wdl: Wdl::Draw,
        plies: 0,
        order: 0,
    };

    /// The file code ([`INVALID`] never: a position that cannot occur
    /// takes 0).
    ///
    /// # Panics
    /// If `plies` passes [`MAX_DTC`] or `order` [`MAX_ORDER`].
    pub fn to_code(self) -> u16 {
        assert!(self.plies <= MAX_DTC && self.order <= MAX_ORDER);
        match self.wdl {
            Wdl::Draw => 0,
            wdl => {
                u16::from(self.order) << 11 | u16::from(wdl == Wdl::Win) << 10 | (self.plies + 1)
            }
        }
    }

    /// Reads a file code.
    pub fn from_code(code: u16) -> Dtc {
        if code & 0x3ff == 0 {
            return Dtc::DRAW;
        }
        Dtc {
            wdl: if code & 1 << 10 != 0 {
                Wdl::Win
            } else {
                Wdl::Loss
            },
            plies: (code & 0x3ff) - 1,
            order: (code >> 11) as u8,
        }
    }
}

impl Dtc {
    /// Whether a repetition rule's result begins here: lost at 0 in an
    /// order of the rules (no move leads to it; the file stores it for
    /// both sides to move).
    pub fn is_rule_start(self) -> bool {
        self.wdl == Wdl::Loss && self.plies == 0 && self.order > 0
    }

    /// The distance to conversion of a position that is `wdl` for its
    /// side to move, from its moves: `converts`, whether a capture reaches
    /// a smaller table's loss for the other side; `quiet`, the distances of
    /// the positions its quiet moves reach. A win is one ply more than its
    /// quickest conversion or lost successor, lowest order first; a loss
    /// one more than its longest quiet successor, highest order first, or
    /// 0 without quiet moves. (A rule's start cannot be told this way.)
    pub fn one_ply_on(wdl: Wdl, converts: bool, quiet: impl IntoIterator<Item = Dtc>) -> Dtc {
        let key = |d: Dtc| (d.order, d.plies + 1);
        let best = match wdl {
            Wdl::Draw => return Dtc::DRAW,
            Wdl::Win => {
                let lost = quiet.into_iter().filter(|d| d.wdl == Wdl::Loss).map(key);
                lost.chain(converts.then_some((0, 1))).min()
            }
            Wdl::Loss => quiet.into_iter().map(key).max(),
        };
        let (order, plies) = best.unwrap_or((0, 0));
        Dtc { wdl, plies, order }
    }
}

impl std::fmt::Display for Dtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.wdl {
            Wdl::Draw => f.write_str("draw"),
            wdl => {
                write!(f, "{wdl} dtc {}", self.plies)?;
                if self.order > 0 {
                    write!(f, " (repetition rules, order {})", self.order)?;
                }
                Ok(())
            }
        }
    }
}

/// Counts of one side to move's values in a metric file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetricStats {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest distance (0 in a win/draw/loss file).
    pub longest: u16,
    /// An index whose value has that distance.
    pub longest_index: u64,
    /// The highest order (0 in a win/draw/loss file).
    pub orders: u8,
}

/// A metric file's parameters, as stored in its metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricInfo {
    pub metric: Metric,
    pub material: Material,
    pub rules: u8,
    pub size: u64,
    pub stats: [MetricStats; 2],
    /// In a distance-to-conversion file, the side to move whose distances
    /// it holds ([`BOTH_SIDES`] in a win/draw/loss file): the other
    /// side's follow from them, one ply on ([`Dtc::one_ply_on`]).
    pub stored_side: u8,
}

/// [`MetricInfo::stored_side`] of a file that holds both sides to move.
pub const BOTH_SIDES: u8 = 2;

impl MetricInfo {
    /// The statistics of a win/draw/loss file written from table `values`.
    pub fn of_values(material: Material, rules: u8, values: &impl TableCodes) -> MetricInfo {
        let stats = [0, 1].map(|side| {
            let mut s = MetricStats::default();
            for i in 0..values.size() {
                match Value::from_code(values.code(side, i)).map(Value::wdl) {
                    Some(Wdl::Win) => s.wins += 1,
                    Some(Wdl::Draw) => s.draws += 1,
                    Some(Wdl::Loss) => s.losses += 1,
                    None => {}
                }
            }
            s
        });
        MetricInfo {
            metric: Metric::Wdl,
            material,
            rules,
            size: values.size(),
            stats,
            stored_side: BOTH_SIDES,
        }
    }

    /// The statistics of a distance-to-conversion file of `codes`
    /// ([`Dtc::to_code`], [`INVALID`] where no position is), holding the
    /// distances of `stored_side` to move ([`BOTH_SIDES`]: of both).
    pub fn of_dtc(
        material: Material,
        rules: u8,
        codes: &impl TableCodes,
        stored_side: u8,
    ) -> MetricInfo {
        let stats = [0, 1].map(|side| {
            let mut s = MetricStats::default();
            for i in 0..codes.size() {
                let code = codes.code(side, i);
                if code == INVALID {
                    continue;
                }
                let dtc = Dtc::from_code(code);
                match dtc.wdl {
                    Wdl::Win => s.wins += 1,
                    Wdl::Draw => s.draws += 1,
                    Wdl::Loss => s.losses += 1,
                }
                if dtc.plies > s.longest {
                    s.longest = dtc.plies;
                    s.longest_index = i;
                }
                s.orders = s.orders.max(dtc.order);
            }
            s
        });
        MetricInfo {
            metric: Metric::Dtc,
            material,
            rules,
            size: codes.size(),
            stats,
            stored_side,
        }
    }

    fn kind(metric: Metric) -> Kind {
        match metric {
            Metric::Dtc => DTC_KIND,
            _ => WDL_KIND,
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
            b.push(s.orders);
        }
        if self.metric == Metric::Dtc {
            b.push(self.stored_side);
        }
        b
    }

    fn decode(metric: Metric, path: &Path, b: &[u8]) -> Result<MetricInfo, TableError> {
        let cut = || TableError::corrupt(path, "metadata: cut short");
        let mut r = ByteReader { b, at: 0 };
        let (material, rules, size) = decode_head(path, &mut r)?;
        let mut stats = [MetricStats::default(); 2];
        for s in &mut stats {
            s.wins = r.u64().ok_or_else(cut)?;
            s.draws = r.u64().ok_or_else(cut)?;
            s.losses = r.u64().ok_or_else(cut)?;
            s.longest = r.u16().ok_or_else(cut)?;
            s.longest_index = r.u64().ok_or_else(cut)?;
            s.orders = r.u8().ok_or_else(cut)?;
        }
        let stored_side = match metric {
            Metric::Dtc => r.u8().ok_or_else(cut)?,
            _ => BOTH_SIDES,
        };
        if stored_side > BOTH_SIDES {
            return Err(TableError::corrupt(
                path,
                format!("metadata: stored side {stored_side}"),
            ));
        }
        Ok(MetricInfo {
            metric,
            material,
            rules,
            size,
            stats,
            stored_side,
        })
    }
}

/// The two bits of a win/draw/loss file for a value code.
fn wdl_bits(code: u16) -> Option<u8> {
    Value::from_code(code).map(|v| match v.wdl() {
        Wdl::Draw => 0,
        Wdl::Loss => 1,
        Wdl::Win => 2,
    })
}

/// Writes the win/draw/loss file of table `values` (value codes) at `path`,
/// its blocks compressed at zstd `level` a batch at a time by `batch` (see
/// [`crate::write_table_with`]). Returns the file's length.
///
/// # Errors
///
/// The file cannot be written.
pub fn write_wdl(
    path: &Path,
    info: &MetricInfo,
    values: &impl TableCodes,
    level: i32,
    batch: &EncodeBatch,
) -> Result<u64, TableError> {
    let records = 2 * values.size();
    let code = |r: u64| values.code((r / values.size()) as usize, r % values.size());
    let encode = |k: u64| {
        let (start, end) = (
            k * WDL_BLOCK_RECORDS,
            ((k + 1) * WDL_BLOCK_RECORDS).min(records),
        );
        // A position that cannot occur repeats the verdict before it.
        let mut last = (start..end).find_map(|r| wdl_bits(code(r))).unwrap_or(0);
        let mut packed = vec![0u8; (end - start).div_ceil(4) as usize];
        for (i, r) in (start..end).enumerate() {
            last = wdl_bits(code(r)).unwrap_or(last);
            packed[i / 4] |= last << (2 * (i % 4));
        }
        crate::file::EncodedBlock::new(xqstore::compress_block(&packed, level), end - start)
    };
    write_blocks(
        path,
        info,
        (records, WDL_BLOCK_RECORDS),
        level,
        &encode,
        batch,
    )
}

/// The side to move a distance-to-conversion file of `codes` stores: the
/// one whose distances compress smaller, judged on every eighth block
/// (the other side's follow from them one ply on).
pub fn dtc_side_to_store(codes: &impl TableCodes, level: i32) -> u8 {
    let size = codes.size();
    let sampled = |side: usize| -> usize {
        (0..size.div_ceil(DTC_BLOCK_RECORDS))
            .step_by(8)
            .map(|k| {
                let (start, end) = (
                    k * DTC_BLOCK_RECORDS,
                    ((k + 1) * DTC_BLOCK_RECORDS).min(size),
                );
                let n = (end - start) as usize;
                let mut planes = vec![0u8; 2 * n];
                let mut last = 0;
                for (i, index) in (start..end).enumerate() {
                    let c = codes.code(side, index);
                    last = if c == INVALID { last } else { c };
                    planes[i] = last as u8;
                    planes[n + i] = (last >> 8) as u8;
                }
                xqstore::compress_block(&planes, level).len()
            })
            .sum()
    };
    u8::from(sampled(1) < sampled(0))
}

/// Writes the distance-to-conversion file of `codes` ([`Dtc::to_code`],
/// [`INVALID`] where no position is) at `path`, as [`write_wdl`] does.
/// Of the side to move `info` does not store, only the positions where a
/// repetition rule's result begins (lost at 0 in an order of the rules)
/// are written; the others read 0, and follow one ply on.
///
/// # Errors
///
/// The file cannot be written.
pub fn write_dtc(
    path: &Path,
    info: &MetricInfo,
    codes: &impl TableCodes,
    level: i32,
    batch: &EncodeBatch,
) -> Result<u64, TableError> {
    let records = 2 * codes.size();
    let stored = usize::from(info.stored_side);
    let code = |r: u64| {
        let (side, index) = ((r / codes.size()) as usize, r % codes.size());
        let code = codes.code(side, index);
        if stored == usize::from(BOTH_SIDES) || side == stored || code == INVALID {
            return code;
        }
        if Dtc::from_code(code).is_rule_start() {
            code
        } else {
            0
        }
    };
    let encode = |k: u64| {
        let (start, end) = (
            k * DTC_BLOCK_RECORDS,
            ((k + 1) * DTC_BLOCK_RECORDS).min(records),
        );
        let n = (end - start) as usize;
        let mut last = (start..end).map(code).find(|&c| c != INVALID).unwrap_or(0);
        let mut planes = vec![0u8; 2 * n];
        for (i, r) in (start..end).enumerate() {
            let c = code(r);
            last = if c == INVALID { last } else { c };
            planes[i] = last as u8;
            planes[n + i] = (last >> 8) as u8;
        }
        crate::file::EncodedBlock::new(xqstore::compress_block(&planes, level), end - start)
    };
    write_blocks(
        path,
        info,
        (records, DTC_BLOCK_RECORDS),
        level,
        &encode,
        batch,
    )
}

/// Writes the blocks of `records` records, `per_block` a block, each
/// encoded by `encode`, a batch at a time by `batch`.
fn write_blocks(
    path: &Path,
    info: &MetricInfo,
    (records, per_block): (u64, u64),
    level: i32,
    encode: &(dyn Fn(u64) -> crate::file::EncodedBlock + Sync),
    batch: &EncodeBatch,
) -> Result<u64, TableError> {
    const BATCH: u64 = 64;
    let kind = MetricInfo::kind(info.metric);
    let mut writer = Writer::create(path, kind, &info.encode(), level)?;
    let blocks = records.div_ceil(per_block);
    for first in (0..blocks).step_by(BATCH as usize) {
        let encoded = batch(first..(first + BATCH).min(blocks), encode);
        for (k, block) in (first..).zip(encoded) {
            block.add_to(&mut writer, k * per_block)?;
        }
    }
    Ok(writer.finish()?)
}

/// An open win/draw/loss or distance-to-conversion file.
pub struct MetricFile {
    reader: Reader,
    info: MetricInfo,
}

impl MetricFile {
    /// Opens and checks a file of `metric` ([`Metric::Wdl`] or
    /// [`Metric::Dtc`]): the container's header, index and checksums, then
    /// that its metadata, size and blocks fit its material.
    ///
    /// # Errors
    ///
    /// The file cannot be read, is of another kind, or does not fit its
    /// material.
    pub fn open(path: &Path, metric: Metric) -> Result<MetricFile, TableError> {
        assert!(
            metric != Metric::Dtm,
            "the table file holds distances to mate"
        );
        let reader = Reader::open(path, MetricInfo::kind(metric))?;
        let info = MetricInfo::decode(metric, path, reader.meta())?;
        let size = Indexer::new(info.material).size();
        let corrupt = |reason: String| TableError::corrupt(path, reason);
        if info.size != size {
            return Err(corrupt(format!(
                "{} has {size} indexes per side, the file says {}",
                info.material, info.size
            )));
        }
        if reader.header().record_count != 2 * size {
            return Err(corrupt(format!(
                "{} records, expected {}",
                reader.header().record_count,
                2 * size
            )));
        }
        let raw_len = |records: u64| match metric {
            Metric::Wdl => records.div_ceil(4),
            _ => 2 * records,
        };
        let mut next = 0u64;
        for (i, e) in reader.index().iter().enumerate() {
            if e.first_key != next || raw_len(e.records.into()) != u64::from(e.raw_len) {
                return Err(corrupt(format!(
                    "block {i} does not follow on from the one before"
                )));
            }
            next += u64::from(e.records);
        }
        Ok(MetricFile { reader, info })
    }

    /// The file's parameters and statistics.
    pub fn info(&self) -> &MetricInfo {
        &self.info
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.reader.path()
    }

    /// File size in bytes.
    pub fn file_len(&self) -> u64 {
        self.reader.header().file_len
    }

    /// Checks every block's checksum.
    ///
    /// # Errors
    ///
    /// A block whose checksum is wrong, naming the file.
    pub fn check_blocks(&self) -> Result<(), TableError> {
        Ok(self.reader.check_blocks()?)
    }

    /// The record of `side` to move at `index`: its block's bytes and its
    /// offset in the block.
    fn record(
        &self,
        side: usize,
        index: u64,
    ) -> Result<(std::sync::Arc<[u8]>, usize, usize), TableError> {
        let key = side as u64 * self.info.size + index;
        let corrupt = |reason: String| TableError::corrupt(self.reader.path(), reason);
        let block = self
            .reader
            .block_for(key)
            .ok_or_else(|| corrupt(format!("no block holds key {key}")))?;
        let data = cached_block(&self.reader, block)?;
        let entry = &self.reader.index()[block];
        Ok((
            data,
            (key - entry.first_key) as usize,
            entry.records as usize,
        ))
    }

    /// Win, draw or loss at `index` with table side `side` to move, under
    /// the Asian rules (in a win/draw/loss file).
    ///
    /// # Errors
    ///
    /// A damaged block, naming the file.
    pub fn wdl(&self, side: usize, index: u64) -> Result<Wdl, TableError> {
        let (data, offset, _) = self.record(side, index)?;
        let byte = data.get(offset / 4).ok_or_else(|| {
            TableError::corrupt(
                self.reader.path(),
                format!("block too short for index {index}"),
            )
        })?;
        match byte >> (2 * (offset % 4)) & 3 {
            0 => Ok(Wdl::Draw),
            1 => Ok(Wdl::Loss),
            2 => Ok(Wdl::Win),
            _ => Err(TableError::corrupt(
                self.reader.path(),
                format!("invalid verdict at index {index}"),
            )),
        }
    }

    /// Calls `visit` with every record's code in order (record: `side *
    /// size + index`; a win/draw/loss file's codes are 0 draw, 1 loss, 2
    /// win), a block at a time.
    ///
    /// # Errors
    ///
    /// A damaged block, naming the file.
    pub fn visit_codes(&self, mut visit: impl FnMut(u64, u16)) -> Result<(), TableError> {
        let mut record = 0;
        for (i, entry) in self.reader.index().iter().enumerate() {
            let data = self.reader.block(i)?;
            let records = entry.records as usize;
            for r in 0..records {
                let code = match self.info.metric {
                    Metric::Wdl => u16::from(data[r / 4] >> (2 * (r % 4)) & 3),
                    _ => u16::from_le_bytes([data[r], data[records + r]]),
                };
                visit(record, code);
                record += 1;
            }
        }
        Ok(())
    }

    /// Every record's code by side to move (see [`MetricFile::visit_codes`]).
    ///
    /// # Errors
    ///
    /// A damaged block, naming the file.
    pub fn all_codes(&self) -> Result<[Vec<u16>; 2], TableError> {
        let mut all = Vec::with_capacity(2 * self.info.size as usize);
        self.visit_codes(|_, code| all.push(code))?;
        let second = all.split_off(self.info.size as usize);
        Ok([all, second])
    }

    /// The distance to conversion at `index` with table side `side` to
    /// move (in a distance-to-conversion file), where the file holds it:
    /// `None` for a position of the side it does not store whose distance
    /// follows one ply on ([`Dtc::one_ply_on`]).
    ///
    /// # Errors
    ///
    /// A damaged block, naming the file.
    pub fn dtc(&self, side: usize, index: u64) -> Result<Option<Dtc>, TableError> {
        let (data, offset, records) = self.record(side, index)?;
        let (Some(&low), Some(&high)) = (data.get(offset), data.get(records + offset)) else {
            return Err(TableError::corrupt(
                self.reader.path(),
                format!("block too short for index {index}"),
            ));
        };
        let dtc = Dtc::from_code(u16::from_le_bytes([low, high]));
        Ok(self.holds(side, dtc).then_some(dtc))
    }

    /// Whether the file holds `dtc`, read for `side` to move (not a
    /// position of the side it does not store that follows one ply on).
    pub fn holds(&self, side: usize, dtc: Dtc) -> bool {
        let stored = self.info.stored_side;
        stored == BOTH_SIDES || usize::from(stored) == side || dtc.is_rule_start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtc_codes_round_trip() {
        for dtc in [
            Dtc::DRAW,
            Dtc {
                wdl: Wdl::Loss,
                plies: 0,
                order: 0,
            },
            Dtc {
                wdl: Wdl::Win,
                plies: 1,
                order: 0,
            },
            Dtc {
                wdl: Wdl::Loss,
                plies: MAX_DTC,
                order: MAX_ORDER,
            },
        ] {
            assert_eq!(Dtc::from_code(dtc.to_code()), dtc);
        }
        assert_eq!("DTC".parse::<Metric>(), Ok(Metric::Dtc));
        assert!("dtz".parse::<Metric>().is_err());
    }

    #[test]
    fn a_distance_follows_one_ply_on() {
        let dtc = |wdl, plies, order| Dtc { wdl, plies, order };
        // A win takes its quickest conversion, lowest order first.
        let quiet = [
            dtc(Wdl::Loss, 4, 0),
            dtc(Wdl::Loss, 0, 1),
            dtc(Wdl::Win, 1, 0),
        ];
        assert_eq!(Dtc::one_ply_on(Wdl::Win, false, quiet), dtc(Wdl::Win, 5, 0));
        assert_eq!(Dtc::one_ply_on(Wdl::Win, true, quiet), dtc(Wdl::Win, 1, 0));
        // A loss puts it off: the longest of the highest order.
        let replies = [
            dtc(Wdl::Win, 9, 0),
            dtc(Wdl::Win, 1, 2),
            dtc(Wdl::Win, 3, 2),
        ];
        assert_eq!(
            Dtc::one_ply_on(Wdl::Loss, false, replies),
            dtc(Wdl::Loss, 4, 2)
        );
        // Mated, or left only captures that lose: lost at 0.
        assert_eq!(Dtc::one_ply_on(Wdl::Loss, true, []), dtc(Wdl::Loss, 0, 0));
        assert_eq!(Dtc::one_ply_on(Wdl::Draw, true, replies), Dtc::DRAW);
        assert!(dtc(Wdl::Loss, 0, 1).is_rule_start() && !dtc(Wdl::Loss, 0, 0).is_rule_start());
    }

    #[test]
    fn a_wdl_file_round_trips_and_damage_is_refused() {
        let material: Material = "KRK".parse().unwrap();
        let size = Indexer::new(material).size() as usize;
        let values = [0, 1].map(|side| {
            (0..size)
                .map(|i| match (i * 7 + side) % 5 {
                    0 => INVALID,
                    1 => Value::Win(3).to_code(),
                    2 => Value::Loss(1002).to_code(),
                    _ => 0,
                })
                .collect::<Vec<u16>>()
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KRK.xqwdl");
        let info = MetricInfo::of_values(material, crate::RULES_PERPETUAL_CHECK, &values);
        assert_eq!(info.stored_side, BOTH_SIDES);
        let one_thread: &EncodeBatch = &|blocks, encode| blocks.map(encode).collect();
        write_wdl(&path, &info, &values, 3, one_thread).unwrap();
        let file = MetricFile::open(&path, Metric::Wdl).unwrap();
        assert_eq!(file.info(), &info);
        for (side, side_values) in values.iter().enumerate() {
            for (i, &code) in side_values.iter().enumerate() {
                if let Some(v) = Value::from_code(code) {
                    assert_eq!(file.wdl(side, i as u64).unwrap(), v.wdl());
                }
            }
        }
        // The table file's kind is not a win/draw/loss file's.
        assert!(MetricFile::open(&path, Metric::Dtc).is_err());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        let err = MetricFile::open(&path, Metric::Wdl).err().expect("refused");
        assert!(err.to_string().contains("KRK.xqwdl"), "{err}");
    }
}
