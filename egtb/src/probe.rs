//! Probing a set of table files: tables are registered by name from their
//! directories and opened on first probe, then shared by all threads.
//! A material may have a file of each metric ([`Metric`]): the table file
//! (distance to mate), the win/draw/loss file and the distance-to-conversion
//! file, each probed on its own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use xqcore::Position;

use crate::file::{TableError, TableFile};
use crate::index::{Indexer, Placement};
use crate::material::Material;
use crate::metric::{Dtc, Metric, MetricFile};
use crate::orient::{placement_of, side_of, table_of};
use crate::value::{Value, Wdl};

/// A registered file, opened on first use. A file that fails to open
/// keeps its error, so every probe of it reports the same reason.
struct Lazy<T> {
    path: PathBuf,
    file: OnceLock<Result<T, Arc<TableError>>>,
}

impl<T> Lazy<T> {
    fn new(path: PathBuf) -> Lazy<T> {
        Lazy {
            path,
            file: OnceLock::new(),
        }
    }

    fn get(&self, open: impl FnOnce(&Path) -> Result<T, TableError>) -> Result<&T, ProbeError> {
        let opened = self.file.get_or_init(|| open(&self.path).map_err(Arc::new));
        opened.as_ref().map_err(Arc::clone)
    }
}

/// A material's registered files.
struct Slot {
    material: Material,
    indexer: OnceLock<Indexer>,
    dtm: Option<Lazy<TableFile>>,
    wdl: Option<Lazy<MetricFile>>,
    dtc: Option<Lazy<MetricFile>>,
}

impl Slot {
    fn indexer(&self) -> &Indexer {
        self.indexer.get_or_init(|| Indexer::new(self.material))
    }

    fn dtm(&self) -> Option<Result<&TableFile, ProbeError>> {
        let material = self.material;
        let lazy = self.dtm.as_ref()?;
        Some(lazy.get(|path| {
            let table = TableFile::open(path)?;
            holds(path, table.info().material, material)?;
            Ok(table)
        }))
    }

    fn metric(&self, metric: Metric) -> Option<Result<&MetricFile, ProbeError>> {
        let material = self.material;
        let lazy = match metric {
            Metric::Wdl => self.wdl.as_ref(),
            Metric::Dtc => self.dtc.as_ref(),
            Metric::Dtm => None,
        }?;
        Some(lazy.get(|path| {
            let file = MetricFile::open(path, metric)?;
            holds(path, file.info().material, material)?;
            Ok(file)
        }))
    }
}

/// Refuses a file that holds another material than its name says (a file
/// renamed or copied over another): its indexes would be read as this
/// material's and give wrong values.
fn holds(path: &Path, holds: Material, material: Material) -> Result<(), TableError> {
    if holds == material {
        return Ok(());
    }
    Err(TableError::Corrupt {
        path: path.to_path_buf(),
        reason: format!("the file holds {holds}, its name says {material}"),
    })
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

/// Where a position stands in the tables.
enum Located<'a> {
    /// Neither side can mate: a draw without a table.
    DeadDraw,
    /// No table of its material is registered.
    Missing,
    At {
        slot: &'a Slot,
        side: usize,
        index: u64,
    },
}

impl Tablebase {
    /// An empty set of tables.
    pub fn new() -> Tablebase {
        Tablebase::default()
    }

    /// Registers every table file in `dir` whose name is a table name and
    /// a metric's extension (`KRKAABB.xqtb`, `KRKAABB.xqwdl`,
    /// `KRKAABB.xqdtc`); nothing is read yet. A material's file of a metric
    /// already registered (from a directory added before) is kept.
    /// Returns how many materials were added.
    pub fn add_dir(&mut self, dir: &Path) -> std::io::Result<usize> {
        let mut added = 0;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let Some(metric) = path
                .extension()
                .and_then(|e| e.to_str())
                .and_then(Metric::of_extension)
            else {
                continue;
            };
            let Some(material) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok())
                .filter(|m| m.canonical().0 == *m)
            else {
                continue;
            };
            self.max_pieces = self.max_pieces.max(material.piece_count());
            let slot = self.tables.entry(material).or_insert_with(|| {
                added += 1;
                Slot {
                    material,
                    indexer: OnceLock::new(),
                    dtm: None,
                    wdl: None,
                    dtc: None,
                }
            });
            match metric {
                Metric::Dtm => slot.dtm = slot.dtm.take().or(Some(Lazy::new(path))),
                Metric::Wdl => slot.wdl = slot.wdl.take().or(Some(Lazy::new(path))),
                Metric::Dtc => slot.dtc = slot.dtc.take().or(Some(Lazy::new(path))),
            }
        }
        Ok(added)
    }

    /// Number of registered tables (materials).
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

    /// Opens every registered file now instead of on its first probe,
    /// checking each file's header and block index (not its blocks, which
    /// a probe checks as it reads them): the errors of the files that
    /// cannot be used, each naming its file, in no particular order. A
    /// program that serves many positions calls it at start, to name a
    /// damaged table before any probe needs it; probes of such a table
    /// keep failing with the same error.
    pub fn open_all(&self) -> Vec<ProbeError> {
        let mut errors = Vec::new();
        for slot in self.tables.values() {
            errors.extend(slot.dtm().and_then(Result::err));
            for metric in [Metric::Wdl, Metric::Dtc] {
                errors.extend(slot.metric(metric).and_then(Result::err));
            }
        }
        errors
    }

    /// Where `pos` stands in the tables.
    fn locate(&self, pos: &Position) -> Located<'_> {
        let board = pos.board();
        let (material, swapped) = table_of(board);
        if material.is_dead_draw() {
            return Located::DeadDraw;
        }
        if material.piece_count() > self.max_pieces {
            return Located::Missing;
        }
        let Some(slot) = self.tables.get(&material) else {
            return Located::Missing;
        };
        let mut placement = Placement::new();
        placement_of(slot.indexer(), board, swapped, &mut placement);
        let Some(index) = slot.indexer().index(&placement) else {
            return Located::Missing;
        };
        Located::At {
            slot,
            side: side_of(pos.turn(), swapped),
            index,
        }
    }

    /// The value of `pos` for the side to move, with its distance to mate
    /// (from the table file): `Ok(None)` when its material has no table
    /// file. Positions where neither side can mate are draws without a
    /// table. The history of `pos` is not looked at: a repetition or the
    /// move limit can still end the game earlier.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read, naming it.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, ProbeError> {
        match self.locate(pos) {
            Located::DeadDraw => Ok(Some(Value::Draw)),
            Located::Missing => Ok(None),
            Located::At { slot, side, index } => match slot.dtm() {
                None => Ok(None),
                Some(table) => Ok(Some(table?.value(side, index)?)),
            },
        }
    }

    /// Win, draw or loss for the side to move under the Asian rules (the
    /// repetition rules' results count), from the win/draw/loss file, or
    /// else the table file: `Ok(None)` when its material has neither.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read, naming it.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Option<Wdl>, ProbeError> {
        match self.locate(pos) {
            Located::DeadDraw => Ok(Some(Wdl::Draw)),
            Located::Missing => Ok(None),
            Located::At { slot, side, index } => {
                if let Some(file) = slot.metric(Metric::Wdl) {
                    return Ok(Some(file?.wdl(side, index)?));
                }
                match slot.dtm() {
                    None => Ok(None),
                    Some(table) => Ok(Some(table?.value(side, index)?.wdl())),
                }
            }
        }
    }

    /// The distance to conversion of `pos` for the side to move, from the
    /// distance-to-conversion file: `Ok(None)` when its material has none.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read, naming it.
    pub fn probe_dtc(&self, pos: &Position) -> Result<Option<Dtc>, ProbeError> {
        match self.locate(pos) {
            Located::DeadDraw => Ok(Some(Dtc::DRAW)),
            Located::Missing => Ok(None),
            Located::At { slot, side, index } => match slot.metric(Metric::Dtc) {
                None => Ok(None),
                Some(file) => match file?.dtc(side, index)? {
                    Some(dtc) => Ok(Some(dtc)),
                    None => self.dtc_one_ply_on(pos),
                },
            },
        }
    }

    /// The distance to conversion of a position of the side its file does
    /// not store, from its moves ([`Dtc::one_ply_on`]): its verdict, its
    /// captures' verdicts, its quiet moves' distances (of the stored side).
    fn dtc_one_ply_on(&self, pos: &Position) -> Result<Option<Dtc>, ProbeError> {
        let Some(wdl) = self.probe_wdl(pos)? else {
            return Ok(None);
        };
        if wdl == Wdl::Draw {
            return Ok(Some(Dtc::DRAW));
        }
        let mut child = pos.clone();
        let (mut converts, mut quiet) = (false, Vec::new());
        for &mv in pos.legal_moves().iter() {
            let capture = pos.board().piece_at(mv.to()).is_some();
            child.make_move(mv);
            if capture {
                converts |= self.probe_wdl(&child)? == Some(Wdl::Loss);
            } else {
                let Some(after) = self.stored_dtc(&child)? else {
                    return Ok(None);
                };
                quiet.push(after);
            }
            child.unmake_move();
        }
        Ok(Some(Dtc::one_ply_on(wdl, converts, quiet)))
    }

    /// The distance to conversion the file holds for `pos` (a position of
    /// the side it stores).
    fn stored_dtc(&self, pos: &Position) -> Result<Option<Dtc>, ProbeError> {
        match self.locate(pos) {
            Located::At { slot, side, index } => match slot.metric(Metric::Dtc) {
                Some(file) => Ok(file?.dtc(side, index)?),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }
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
