//! Probing a set of table files: tables are registered by name from their
//! directories and opened on first probe, then shared by all threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use xqcore::Position;

use crate::file::{TableError, TableFile, EXTENSION};
use crate::index::Placement;
use crate::material::Material;
use crate::orient::{placement_of, side_of, table_of};
use crate::value::Value;

/// A registered table: its file, opened on first use. A file that fails to
/// open keeps its error, so every probe of it reports the same reason.
struct Slot {
    path: PathBuf,
    table: OnceLock<Result<TableFile, Arc<TableError>>>,
}

/// The tables found in some directories.
#[derive(Default)]
pub struct Tablebase {
    tables: HashMap<Material, Slot>,
    max_pieces: usize,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("tables", &self.tables.len())
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

/// A probe that could not be answered because a table file is broken.
pub type ProbeError = Arc<TableError>;

impl Tablebase {
    /// An empty set of tables.
    pub fn new() -> Tablebase {
        Tablebase::default()
    }

    /// Registers every `*.xqtb` file in `dir` whose name is a table name
    /// (`KRKAABB.xqtb`); nothing is read yet. Returns how many were added.
    pub fn add_dir(&mut self, dir: &Path) -> std::io::Result<usize> {
        let mut added = 0;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
                continue;
            }
            let Some(material) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok())
                .filter(|m| m.canonical().0 == *m)
            else {
                continue;
            };
            self.max_pieces = self.max_pieces.max(material.piece_count());
            self.tables.entry(material).or_insert_with(|| {
                added += 1;
                Slot {
                    path,
                    table: OnceLock::new(),
                }
            });
        }
        Ok(added)
    }

    /// Number of registered tables.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether no table is registered.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The most pieces (kings included) of any registered table.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// Opens every registered table now instead of on its first probe,
    /// checking each file's header and block index (not its blocks, which
    /// a probe checks as it reads them): the errors of the files that
    /// cannot be used, each naming its file, in no particular order. A
    /// program that serves many positions calls it at start, to name a
    /// damaged table before any probe needs it; probes of such a table
    /// keep failing with the same error.
    pub fn open_all(&self) -> Vec<ProbeError> {
        self.tables
            .keys()
            .filter_map(|material| self.table(material)?.err())
            .collect()
    }

    /// The table of a canonical material, opened on first use; `None` when
    /// none is registered.
    fn table(&self, material: &Material) -> Option<Result<&TableFile, ProbeError>> {
        let slot = self.tables.get(material)?;
        let opened = slot
            .table
            .get_or_init(|| open_as(&slot.path, *material).map_err(Arc::new));
        Some(opened.as_ref().map_err(Arc::clone))
    }

    /// The value of `pos` for the side to move: `Ok(None)` when its
    /// material has no table. Positions where neither side can mate are
    /// draws without a table. The history of `pos` is not looked at: a
    /// repetition or the move limit can still end the game earlier.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, ProbeError> {
        let board = pos.board();
        let (material, swapped) = table_of(board);
        if material.is_dead_draw() {
            return Ok(Some(Value::Draw));
        }
        if material.piece_count() > self.max_pieces {
            return Ok(None);
        }
        let Some(table) = self.table(&material) else {
            return Ok(None);
        };
        let table = table?;
        let mut placement = Placement::new();
        placement_of(table.indexer(), board, swapped, &mut placement);
        let Some(index) = table.indexer().index(&placement) else {
            return Ok(None);
        };
        Ok(Some(table.value(side_of(pos.turn(), swapped), index)?))
    }
}

/// Opens the table file registered for `material`, refusing one that holds
/// another material (a file renamed or copied over another): its indexes
/// would be read as this material's and give wrong values.
fn open_as(path: &Path, material: Material) -> Result<TableFile, TableError> {
    let table = TableFile::open(path)?;
    let holds = table.info().material;
    if holds != material {
        return Err(TableError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("the file holds {holds}, its name says {material}"),
        });
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_without_attackers_are_draws_without_tables() {
        let tb = Tablebase::new();
        let pos = Position::from_fen("4k4/4a4/9/9/9/9/9/9/4A4/3K5 w").unwrap();
        assert_eq!(tb.probe(&pos).unwrap(), Some(Value::Draw));
        let rook = Position::from_fen("4k4/9/9/9/9/9/9/9/R8/3K5 w").unwrap();
        assert_eq!(tb.probe(&rook).unwrap(), None);
    }
}
