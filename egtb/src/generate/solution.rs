//! Solved tables held in memory: one byte a position where the table's
//! distances fit (nearly always), decoded through a small table.

use xqcore::{Board, Color};

use super::cells::Cell;
use super::Lookup;
use crate::file::TableCodes;
use crate::index::{Indexer, Placement};
use crate::material::Material;
use crate::orient::placement_of;
use crate::value::{Value, INVALID};

/// One side to move's cells.
enum Cells {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

impl Cells {
    fn get(&self, index: u64) -> usize {
        match self {
            Cells::Narrow(v) => v[index as usize] as usize,
            Cells::Wide(v) => v[index as usize] as usize,
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Cells::Narrow(v) => v.len() as u64,
            Cells::Wide(v) => 2 * v.len() as u64,
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
    pub(super) fn from_cells(indexer: Indexer, cells: [Vec<Cell>; 2], decode: Vec<u16>) -> Self {
        // In place: the cells are two bytes, as the values are.
        let sides = cells.map(|side| {
            Some(Cells::Wide(
                side.into_iter().map(Cell::into_inner).collect(),
            ))
        });
        Solution {
            indexer,
            sides,
            decode,
        }
    }

    /// A solution holding `values` (value codes by side to move), in one
    /// byte a position when they take at most 256 codes.
    pub fn from_values(indexer: Indexer, values: [Vec<u16>; 2]) -> Solution {
        let mut decode: Vec<u16> = values.iter().flatten().copied().collect();
        decode.sort_unstable();
        decode.dedup();
        if decode.len() > 256 {
            return Solution {
                indexer,
                sides: values.map(|v| Some(Cells::Wide(v))),
                decode: (0..=u16::MAX).collect(),
            };
        }
        let mut cell_of = vec![0u8; u16::MAX as usize + 1];
        for (cell, &code) in decode.iter().enumerate() {
            cell_of[code as usize] = cell as u8;
        }
        let sides = values.map(|v| {
            Some(Cells::Narrow(
                v.into_iter().map(|c| cell_of[c as usize]).collect(),
            ))
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
        if self
            .sides
            .iter()
            .flatten()
            .all(|c| matches!(c, Cells::Narrow(_)))
        {
            return;
        }
        let mut codes = self.decode.clone();
        codes.sort_unstable();
        codes.dedup();
        if codes.len() > 256 {
            return;
        }
        let mut narrow_of = vec![0u8; u16::MAX as usize + 1];
        for (narrow, &code) in codes.iter().enumerate() {
            narrow_of[code as usize] = narrow as u8;
        }
        let decode = &self.decode;
        for side in self.sides.iter_mut().flatten() {
            if let Cells::Wide(cells) = side {
                let narrow = cells
                    .iter()
                    .map(|&c| narrow_of[decode[c as usize] as usize])
                    .collect();
                *side = Cells::Narrow(narrow);
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

    /// Bytes of cells held.
    pub fn bytes(&self) -> u64 {
        self.sides.iter().flatten().map(Cells::bytes).sum()
    }
}

impl From<Solved> for Solution {
    fn from(solved: Solved) -> Solution {
        Solution::from_values(solved.indexer, solved.values)
    }
}

/// Solved tables held in memory, looked up by material: what a material's
/// captures need while a set of tables is generated smallest first.
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

    /// Bytes of cells held.
    pub fn bytes(&self) -> u64 {
        self.tables.values().map(Solution::bytes).sum()
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
        let (material, swapped) = crate::orient::table_of(board);
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
        let code = table.code(crate::orient::side_of(turn, swapped), index);
        assert_ne!(code, INVALID, "a legal position is valid");
        Value::from_code(code).expect("valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_keeps_every_value() {
        let indexer = Indexer::new("KRK".parse().unwrap());
        let size = indexer.size() as usize;
        // Cells 0..1000 in turn, decoding to 37 value codes.
        let decode: Vec<u16> = (0..=u16::MAX).map(|c| 100 + c % 37).collect();
        let cells = [0, 1].map(|side| {
            (0..size)
                .map(|i| Cell::new(((i * 7 + side) % 1000) as u32))
                .collect()
        });
        let mut solution = Solution::from_cells(indexer, cells, decode);
        let before: Vec<u16> = (0..size as u64).map(|i| solution.code(1, i)).collect();
        solution.keep_sides([false, true]);
        let wide = solution.bytes();
        solution.narrow();
        assert_eq!(2 * solution.bytes(), wide);
        let after: Vec<u16> = (0..size as u64).map(|i| solution.code(1, i)).collect();
        assert_eq!(before, after);
    }
}
