//! Solved tables held in memory: one byte a position where the table's
//! distances fit (nearly always), decoded through a small table.

use xqcore::{Board, Color};

use std::path::Path;

use super::scratch::{CellArray, ScratchMap};
use super::Lookup;
use xqegtb::{
    placement_of, Indexer, Material, Placement, TableCodes, TableError, TableFile, Value, INVALID,
};

/// One side to move's cells.
enum Cells {
    Narrow(Bytes),
    Wide(Vec<u16>),
    /// Two bytes a position in a scratch file (a table solved under a
    /// memory bound whose values take more than 256 codes).
    WideMapped(CellArray),
}

impl Cells {
    fn get(&self, index: u64) -> usize {
        match self {
            Cells::Narrow(v) => v[index as usize] as usize,
            Cells::Wide(v) => v[index as usize] as usize,
            Cells::WideMapped(v) => v[index as usize].get() as usize,
        }
    }

    /// Bytes held in memory (not in scratch files).
    fn bytes(&self) -> u64 {
        match self {
            Cells::Narrow(Bytes::Heap(v)) => v.len() as u64,
            Cells::Narrow(Bytes::Mapped(_)) | Cells::WideMapped(_) => 0,
            Cells::Wide(v) => 2 * v.len() as u64,
        }
    }
}

/// Narrow cells, in memory or in a scratch file (a table solved under a
/// memory bound).
enum Bytes {
    Heap(Vec<u8>),
    Mapped(ScratchMap),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
}

/// A solved material: for each side to move (0: the side written first)
/// one cell per index, and the value code ([`Value::to_code`], [`INVALID`]
/// for positions that cannot occur) of every cell. A side no later table
/// reads may be dropped ([`Solution::keep_sides`]).
pub struct Solution {
    pub indexer: Indexer,
    sides: [Option<Cells>; 2],
    /// By cell: its value code.
    decode: Vec<u16>,
}

/// A solved material with one value code per index and side to move,
/// where each can be read and changed (for checking and for tests).
pub struct Solved {
    pub indexer: Indexer,
    /// By side to move (0: the side written first), then by index.
    pub values: [Vec<u16>; 2],
}

impl Solved {
    /// The value of the position at `index` with `side` to move; `None`
    /// for one that cannot occur.
    pub fn value(&self, side: usize, index: u64) -> Option<Value> {
        Value::from_code(self.values[side][index as usize])
    }
}

/// A solved table, however it is held: what [`crate::verify::verify`]
/// checks.
pub trait Table: TableCodes {
    fn indexer(&self) -> &Indexer;

    /// The value of the position at `index` with `side` to move; `None`
    /// for one that cannot occur.
    fn value_at(&self, side: usize, index: u64) -> Option<Value> {
        Value::from_code(self.code(side, index))
    }
}

impl TableCodes for Solved {
    fn size(&self) -> u64 {
        self.values.size()
    }

    fn code(&self, side: usize, index: u64) -> u16 {
        self.values.code(side, index)
    }
}

impl Table for Solved {
    fn indexer(&self) -> &Indexer {
        &self.indexer
    }
}

impl Table for Solution {
    fn indexer(&self) -> &Indexer {
        &self.indexer
    }
}

impl TableCodes for Solution {
    fn size(&self) -> u64 {
        self.indexer.size()
    }

    /// # Panics
    /// If `side` was dropped.
    fn code(&self, side: usize, index: u64) -> u16 {
        let cells = self.sides[side].as_ref().expect("a side kept");
        self.decode[cells.get(index)]
    }
}

impl Solution {
    /// A solution from the solver's cells and the value code of each.
    pub(super) fn from_cells(
        indexer: Indexer,
        cells: [CellArray; 2],
        decode: Vec<u16>,
    ) -> std::io::Result<Self> {
        if let Some(dir) = cells[0].scratch_dir().map(Path::to_path_buf) {
            if let Some(solution) = Self::narrow_to_scratch(&indexer, &cells, &decode, &dir)? {
                return Ok(solution);
            }
            // Too many codes for a byte: the cells stay where they are.
            return Ok(Solution {
                indexer,
                sides: cells.map(|side| Some(Cells::WideMapped(side))),
                decode,
            });
        }
        // In place: the cells are two bytes, as the values are.
        let sides = cells.map(|side| Some(Cells::Wide(side.into_values())));
        Ok(Solution {
            indexer,
            sides,
            decode,
        })
    }

    /// Cells kept on disk, narrowed into scratch files of a byte a
    /// position (`None` when the table's values take more than 256 codes).
    fn narrow_to_scratch(
        indexer: &Indexer,
        cells: &[CellArray; 2],
        decode: &[u16],
        dir: &Path,
    ) -> std::io::Result<Option<Solution>> {
        let Some((codes, narrow_of)) = byte_codes(decode.iter().copied()) else {
            return Ok(None);
        };
        let mut sides = [None, None];
        for (side, cells) in cells.iter().enumerate() {
            let mut bytes = ScratchMap::new(dir, cells.len())?;
            for (b, c) in bytes.iter_mut().zip(cells.iter()) {
                *b = narrow_of[decode[c.get() as usize] as usize];
            }
            sides[side] = Some(Cells::Narrow(Bytes::Mapped(bytes)));
        }
        Ok(Some(Solution {
            indexer: indexer.clone(),
            sides,
            decode: codes,
        }))
    }

    /// A table file's values for the sides to move `keep` asks for, read
    /// a block at a time (a byte a position, or two where its values take
    /// more than 256 codes): into scratch files in `scratch`, or into
    /// memory without one. With no side kept, only the blocks' checksums
    /// are checked and nothing is read.
    pub fn from_file(
        table: &TableFile,
        keep: [bool; 2],
        scratch: Option<&Path>,
    ) -> Result<Solution, TableError> {
        let indexer = Indexer::new(table.info().material);
        if keep == [false, false] {
            table.check_blocks()?;
            return Ok(Solution {
                indexer,
                sides: [None, None],
                decode: Vec::new(),
            });
        }
        let size = indexer.size() as usize;
        let scratch_error = |source| TableError::Scratch {
            table: table.path().to_path_buf(),
            dir: scratch.map(Path::to_path_buf).unwrap_or_default(),
            source,
        };
        let mut bytes: [Option<Bytes>; 2] = [None, None];
        for side in (0..2).filter(|&side| keep[side]) {
            bytes[side] = Some(match scratch {
                Some(dir) => Bytes::Mapped(ScratchMap::new(dir, size).map_err(scratch_error)?),
                None => Bytes::Heap(vec![0; size]),
            });
        }
        let mut decode: Vec<u16> = Vec::new();
        let mut narrow_of = vec![None::<u8>; u16::MAX as usize + 1];
        let mut too_many = false;
        table.visit_codes(|record, code| {
            let side = record as usize / size;
            let Some(out) = bytes[side].as_mut() else {
                return;
            };
            let narrow = *narrow_of[code as usize].get_or_insert_with(|| {
                decode.push(code);
                too_many |= decode.len() > 256;
                (decode.len() - 1) as u8
            });
            out[record as usize % size] = narrow;
        })?;
        if !too_many {
            return Ok(Solution {
                indexer,
                sides: bytes.map(|b| b.map(Cells::Narrow)),
                decode,
            });
        }
        // Two bytes a position, the codes as they are.
        drop(bytes);
        let mut wide: [Option<Cells>; 2] = [None, None];
        for side in (0..2).filter(|&side| keep[side]) {
            wide[side] = Some(match scratch {
                Some(dir) => {
                    Cells::WideMapped(CellArray::new(size, Some(dir)).map_err(scratch_error)?)
                }
                None => Cells::Wide(vec![0; size]),
            });
        }
        table.visit_codes(|record, code| match &mut wide[record as usize / size] {
            Some(Cells::WideMapped(cells)) => cells[record as usize % size].set(u32::from(code)),
            Some(Cells::Wide(cells)) => cells[record as usize % size] = code,
            _ => {}
        })?;
        Ok(Solution {
            indexer,
            sides: wide,
            decode: (0..=u16::MAX).collect(),
        })
    }

    /// A solution of `material` that holds no side to move: a table the
    /// build has no later use for.
    pub fn empty(material: Material) -> Solution {
        Solution {
            indexer: Indexer::new(material),
            sides: [None, None],
            decode: Vec::new(),
        }
    }

    /// A solution holding `values` (value codes by side to move), in one
    /// byte a position when they take at most 256 codes.
    pub fn from_values(indexer: Indexer, values: [Vec<u16>; 2]) -> Solution {
        let Some((decode, cell_of)) = byte_codes(values.iter().flatten().copied()) else {
            return Solution {
                indexer,
                sides: values.map(|v| Some(Cells::Wide(v))),
                decode: (0..=u16::MAX).collect(),
            };
        };
        let sides = values.map(|v| {
            Some(Cells::Narrow(Bytes::Heap(
                v.into_iter().map(|c| cell_of[c as usize]).collect(),
            )))
        });
        Solution {
            indexer,
            sides,
            decode,
        }
    }

    /// The value of the position at `index` with `side` to move; `None`
    /// for one that cannot occur.
    ///
    /// # Panics
    /// If `side` was dropped.
    pub fn value(&self, side: usize, index: u64) -> Option<Value> {
        Value::from_code(self.code(side, index))
    }

    /// Drops the sides to move not kept (`keep[side]`).
    pub fn keep_sides(&mut self, keep: [bool; 2]) {
        for (side, keep) in keep.into_iter().enumerate() {
            if !keep {
                self.sides[side] = None;
            }
        }
    }

    /// Holds the cells in one byte each when the values they decode to
    /// take at most 256 codes (a solver's cells are two bytes: move
    /// counters besides distances).
    pub fn narrow(&mut self) {
        // Only cells held wide in memory are narrowed (the decode table
        // is shared by both sides).
        if !self
            .sides
            .iter()
            .flatten()
            .all(|c| matches!(c, Cells::Wide(_)))
        {
            return;
        }
        let Some((codes, narrow_of)) = byte_codes(self.decode.iter().copied()) else {
            return;
        };
        let decode = &self.decode;
        for side in self.sides.iter_mut().flatten() {
            if let Cells::Wide(cells) = side {
                let narrow = cells
                    .iter()
                    .map(|&c| narrow_of[decode[c as usize] as usize])
                    .collect();
                *side = Cells::Narrow(Bytes::Heap(narrow));
            }
        }
        self.decode = codes;
    }

    /// The values in full, one code per index and side to move.
    ///
    /// # Panics
    /// If a side was dropped.
    pub fn to_solved(&self) -> Solved {
        let size = self.indexer.size();
        Solved {
            indexer: self.indexer.clone(),
            values: [0, 1].map(|side| (0..size).map(|i| self.code(side, i)).collect()),
        }
    }

    /// Bytes of cells held in memory.
    pub fn bytes(&self) -> u64 {
        self.sides.iter().flatten().map(Cells::bytes).sum()
    }

    /// Moves the cells held in memory into scratch files in `dir`.
    pub fn spill(&mut self, dir: &Path) -> std::io::Result<()> {
        for cells in self.sides.iter_mut().flatten() {
            match cells {
                Cells::Narrow(Bytes::Heap(v)) => {
                    let mut map = ScratchMap::new(dir, v.len())?;
                    map.copy_from_slice(v);
                    *cells = Cells::Narrow(Bytes::Mapped(map));
                }
                Cells::Wide(v) => {
                    let mapped = CellArray::new(v.len(), Some(dir))?;
                    for (m, &c) in mapped.iter().zip(v.iter()) {
                        m.set(u32::from(c));
                    }
                    *cells = Cells::WideMapped(mapped);
                }
                Cells::Narrow(Bytes::Mapped(_)) | Cells::WideMapped(_) => {}
            }
        }
        Ok(())
    }
}

/// The distinct codes among `codes`, ascending, and the byte each is held
/// in; `None` when there are more than a byte holds.
fn byte_codes(codes: impl IntoIterator<Item = u16>) -> Option<(Vec<u16>, Vec<u8>)> {
    let mut seen = vec![false; u16::MAX as usize + 1];
    for code in codes {
        seen[code as usize] = true;
    }
    let distinct: Vec<u16> = (0..=u16::MAX).filter(|&c| seen[c as usize]).collect();
    if distinct.len() > 256 {
        return None;
    }
    let mut byte_of = vec![0u8; u16::MAX as usize + 1];
    for (byte, &code) in distinct.iter().enumerate() {
        byte_of[code as usize] = byte as u8;
    }
    Some((distinct, byte_of))
}

impl From<Solved> for Solution {
    fn from(solved: Solved) -> Solution {
        Solution::from_values(solved.indexer, solved.values)
    }
}

/// Solved tables held in memory, looked up by material: what a material's
/// captures need while a set of tables is generated, each after its captures.
#[derive(Default)]
pub struct Solutions {
    tables: std::collections::HashMap<Material, Solution>,
}

impl Solutions {
    /// Adds a solved table.
    pub fn insert(&mut self, solution: impl Into<Solution>) {
        let solution = solution.into();
        self.tables.insert(solution.indexer.material(), solution);
    }

    /// The solved table of a canonical material.
    pub fn get(&self, material: &Material) -> Option<&Solution> {
        self.tables.get(material)
    }

    /// Keeps of each table only the sides to move `keep` asks for (none:
    /// the table is dropped).
    pub fn retain(&mut self, mut keep: impl FnMut(&Material) -> [bool; 2]) {
        self.tables.retain(|m, table| {
            let sides = keep(m);
            table.keep_sides(sides);
            table.narrow();
            sides.iter().any(|&k| k)
        });
    }

    /// Bytes of cells held in memory.
    pub fn bytes(&self) -> u64 {
        self.tables.values().map(Solution::bytes).sum()
    }

    /// Moves the tables holding more than `limit` bytes in memory into
    /// scratch files in `dir`.
    pub fn spill_larger_than(&mut self, limit: u64, dir: &Path) -> std::io::Result<()> {
        for table in self.tables.values_mut() {
            if table.bytes() > limit {
                table.spill(dir)?;
            }
        }
        Ok(())
    }
}

impl Lookup for Solutions {
    fn solution(&self, material: &Material) -> Option<&Solution> {
        self.tables.get(material)
    }

    /// # Panics
    /// If the position's table was not solved before (dead draws need
    /// none), or its side to move was dropped.
    fn value(&self, board: &Board, turn: Color) -> Value {
        let (material, swapped) = xqegtb::table_of(board);
        if material.is_dead_draw() {
            return Value::Draw;
        }
        let table = self.tables.get(&material).unwrap_or_else(|| {
            panic!("{material} is solved before the tables that capture into it")
        });
        let mut placement = Placement::new();
        placement_of(&table.indexer, board, swapped, &mut placement);
        let index = table
            .indexer
            .index(&placement)
            .expect("a legal position has an index");
        let code = table.code(xqegtb::side_of(turn, swapped), index);
        assert_ne!(code, INVALID, "a legal position is valid");
        Value::from_code(code).expect("valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells 0..1000 in turn, in memory or in scratch files in `dir`,
    /// with a decode table of `codes` value codes.
    fn cells_of(size: usize, dir: Option<&Path>, codes: u16) -> ([CellArray; 2], Vec<u16>) {
        let decode: Vec<u16> = (0..=u16::MAX).map(|c| 100 + c % codes).collect();
        let cells = [0, 1].map(|side| {
            let cells = CellArray::new(size, dir).unwrap();
            for (i, cell) in cells.iter().enumerate() {
                cell.set(((i * 7 + side) % 1000) as u32);
            }
            cells
        });
        (cells, decode)
    }

    fn cells(size: usize, dir: Option<&Path>) -> ([CellArray; 2], Vec<u16>) {
        cells_of(size, dir, 37)
    }

    #[test]
    fn narrowing_keeps_every_value() {
        let indexer = Indexer::new("KRK".parse().unwrap());
        let size = indexer.size() as usize;
        let (cells, decode) = cells(size, None);
        let mut solution = Solution::from_cells(indexer, cells, decode).unwrap();
        let before: Vec<u16> = (0..size as u64).map(|i| solution.code(1, i)).collect();
        solution.keep_sides([false, true]);
        let wide = solution.bytes();
        solution.narrow();
        assert_eq!(2 * solution.bytes(), wide);
        let after: Vec<u16> = (0..size as u64).map(|i| solution.code(1, i)).collect();
        assert_eq!(before, after);
    }

    #[test]
    fn cells_in_scratch_files_give_the_same_values_and_leave_no_file() {
        let indexer = Indexer::new("KRK".parse().unwrap());
        let size = indexer.size() as usize;
        let dir = tempfile::tempdir().unwrap();
        let (heap, decode) = cells(size, None);
        let (mapped, _) = cells(size, Some(dir.path()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let in_memory = Solution::from_cells(indexer.clone(), heap, decode.clone()).unwrap();
        let on_disk = Solution::from_cells(indexer, mapped, decode).unwrap();
        assert_eq!(on_disk.bytes(), 0, "nothing held in memory");
        for side in 0..2 {
            for i in 0..size as u64 {
                assert_eq!(on_disk.code(side, i), in_memory.code(side, i));
            }
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn wide_cells_stay_in_scratch_and_spilled_tables_keep_their_values() {
        let indexer = Indexer::new("KRK".parse().unwrap());
        let size = indexer.size() as usize;
        let dir = tempfile::tempdir().unwrap();
        // 900 codes: more than a byte holds.
        let (heap, decode) = cells_of(size, None, 900);
        let (mapped, _) = cells_of(size, Some(dir.path()), 900);
        let mut in_memory = Solution::from_cells(indexer.clone(), heap, decode.clone()).unwrap();
        let on_disk = Solution::from_cells(indexer, mapped, decode).unwrap();
        assert_eq!(on_disk.bytes(), 0);
        let before: Vec<u16> = (0..size as u64).map(|i| in_memory.code(0, i)).collect();
        assert!(in_memory.bytes() > 0);
        in_memory.spill(dir.path()).unwrap();
        assert_eq!(in_memory.bytes(), 0);
        for i in 0..size as u64 {
            assert_eq!(on_disk.code(0, i), before[i as usize]);
            assert_eq!(in_memory.code(0, i), before[i as usize]);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn tables_read_from_files_keep_their_values_narrow_or_wide_in_memory_or_scratch() {
        use xqegtb::Value;
        use xqegtb::{rules_for, write_table, TableInfo};
        let material: Material = "KRK".parse().unwrap();
        let indexer = Indexer::new(material);
        let size = indexer.size() as usize;
        let dir = tempfile::tempdir().unwrap();
        for distances in [30, 600] {
            let values = [0, 1].map(|side| {
                (0..size)
                    .map(|i| match (i + side) % 3 {
                        0 => Value::Draw.to_code(),
                        _ => Value::Win((2 * (i % distances) + 1) as u16).to_code(),
                    })
                    .collect::<Vec<u16>>()
            });
            let solved = Solved {
                indexer: indexer.clone(),
                values,
            };
            let path = dir.path().join(format!("KRK-{distances}.xqtb"));
            let info = TableInfo::of_values(material, rules_for(material), &solved);
            write_table(&path, &info, &solved, 1).unwrap();
            let table = TableFile::open(&path).unwrap();
            let mapped = Solution::from_file(&table, [false, true], Some(dir.path())).unwrap();
            assert_eq!(mapped.bytes(), 0);
            let in_memory = Solution::from_file(&table, [false, true], None).unwrap();
            let cell = if distances > 128 { 2 } else { 1 };
            assert_eq!(in_memory.bytes(), cell * size as u64, "{distances}");
            for i in 0..size as u64 {
                let value = solved.values[1][i as usize];
                assert_eq!(mapped.code(1, i), value, "{distances}");
                assert_eq!(in_memory.code(1, i), value, "{distances}");
            }
            let none = Solution::from_file(&table, [false, false], None).unwrap();
            assert_eq!(none.bytes(), 0);
        }
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "only the two tables");
    }
}
