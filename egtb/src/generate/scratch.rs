//! Memory the solver may keep on disk: scratch files mapped into memory,
//! which the kernel pages in and out as the passes go through them, for
//! tables whose cells do not fit the memory bound. The module holds the
//! generator's one `unsafe`.
#![allow(unsafe_code)]

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use super::cells::Cell;

/// A zeroed scratch file of `len` bytes mapped into memory. The file is
/// removed from its directory as soon as it is mapped, so nothing is left
/// behind however the solver stops.
pub(super) struct ScratchMap {
    map: memmap2::MmapMut,
    dir: PathBuf,
}

impl ScratchMap {
    pub(super) fn new(dir: &Path, len: usize) -> std::io::Result<ScratchMap> {
        let path = dir.join(format!(".scratch-{}-{}", std::process::id(), next_id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        let mapped = file.set_len(len.max(1) as u64).and_then(|()| {
            // SAFETY: the file was just created by this process under a
            // name no other process uses, and is removed below: nothing
            // else can change or truncate it while it is mapped.
            unsafe { memmap2::MmapMut::map_mut(&file) }
        });
        std::fs::remove_file(&path)?;
        Ok(ScratchMap {
            map: mapped?,
            dir: dir.to_path_buf(),
        })
    }

    /// The directory its file was made in (for more of the same kind).
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }
}

impl std::ops::Deref for ScratchMap {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl std::ops::DerefMut for ScratchMap {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

/// One side to move's cells, one per index: in memory, or in a scratch
/// file.
pub(super) enum CellArray {
    Heap(Vec<Cell>),
    Mapped { map: ScratchMap, len: usize },
}

impl CellArray {
    /// `len` cells holding 0, in memory, or in a scratch file in `dir`.
    pub(super) fn new(len: usize, dir: Option<&Path>) -> std::io::Result<CellArray> {
        Ok(match dir {
            None => CellArray::Heap((0..len).map(|_| Cell::new(0)).collect()),
            Some(dir) => CellArray::Mapped {
                map: ScratchMap::new(dir, 2 * len)?,
                len,
            },
        })
    }

    /// The scratch directory of cells kept on disk.
    pub(super) fn scratch_dir(&self) -> Option<&Path> {
        match self {
            CellArray::Heap(_) => None,
            CellArray::Mapped { map, .. } => Some(map.dir()),
        }
    }

    /// The cells' values, in memory.
    pub(super) fn into_values(self) -> Vec<u16> {
        match self {
            CellArray::Heap(cells) => cells.into_iter().map(Cell::into_inner).collect(),
            mapped => mapped.iter().map(|c| c.get() as u16).collect(),
        }
    }
}

impl std::ops::Deref for CellArray {
    type Target = [Cell];

    fn deref(&self) -> &[Cell] {
        match self {
            CellArray::Heap(cells) => cells,
            // SAFETY: the map is page-aligned and `2 * len` bytes long;
            // `Cell` is a transparent `AtomicU16`, with the size and
            // alignment of a `u16`, for which any bytes are a value; the
            // slice borrows the map, which lives as long as `self`, and
            // every access through it is atomic.
            CellArray::Mapped { map, len } => unsafe {
                std::slice::from_raw_parts(map.as_ptr().cast::<Cell>(), *len)
            },
        }
    }
}

/// A number that keeps the scratch names of one process apart.
fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Relaxed)
}
