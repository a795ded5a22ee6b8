//! Memory the solver may keep on disk: scratch files mapped into memory,
//! which the kernel pages in and out as the passes go through them, for
//! tables whose cells do not fit the memory bound, and for the repetition
//! rules' candidate lists of such tables. The module holds the generator's
//! `unsafe`.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use bytemuck::Pod;

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
        let file = scratch_file(dir, len)?;
        Ok(ScratchMap {
            map: map_file(&file)?,
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

/// A zeroed scratch file of `len` bytes (at least one) in `dir`, already
/// removed from the directory: it lives as long as a handle to it or a map
/// of it does.
fn scratch_file(dir: &Path, len: usize) -> std::io::Result<File> {
    let path = dir.join(format!(".scratch-{}-{}", std::process::id(), next_id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    let sized = file.set_len(len.max(1) as u64);
    std::fs::remove_file(&path)?;
    sized.map(|()| file)
}

/// `file` mapped into memory, the whole of it.
fn map_file(file: &File) -> std::io::Result<memmap2::MmapMut> {
    // SAFETY: `file` comes from `scratch_file`: created by this process
    // under a name no other process uses and removed from its directory at
    // once, so nothing else can change or truncate it while it is mapped.
    unsafe { memmap2::MmapMut::map_mut(file) }
}

/// A list of plain values that grows at its end: in memory, or in a
/// scratch file that doubles as it fills (the candidate lists of a table
/// solved under a memory bound). Should a scratch file fail to grow, the
/// list goes on in memory: past the bound, but whole.
pub(super) struct List<T> {
    store: Store<T>,
    /// Where it may grow into scratch files, until one fails.
    dir: Option<PathBuf>,
}

enum Store<T> {
    Heap(Vec<T>),
    Mapped {
        file: File,
        map: memmap2::MmapMut,
        len: usize,
    },
}

/// Bytes a list's first scratch file takes: smaller lists would each be a
/// file, and the chunks' own lists are many.
const FIRST_MAPPED_BYTES: usize = 1 << 20;

impl<T: Pod> List<T> {
    /// An empty list, kept in memory, or in scratch files in `dir` once it
    /// grows.
    pub fn new(dir: Option<&Path>) -> List<T> {
        List {
            store: Store::Heap(Vec::new()),
            dir: dir.map(Path::to_path_buf),
        }
    }

    /// `len` zeroes, in memory, or in a scratch file in `dir`.
    pub fn zeroed(len: usize, dir: Option<&Path>) -> List<T> {
        let mut list = List::new(dir);
        list.reserve(len);
        if let Store::Heap(values) = &mut list.store {
            values.resize(len, T::zeroed());
        } else if let Store::Mapped { len: filled, .. } = &mut list.store {
            // A new scratch file reads as zeroes.
            *filled = len;
        }
        list
    }

    /// Values of `values`, in memory or in scratch files in `dir`.
    pub fn from_slice(values: &[T], dir: Option<&Path>) -> List<T> {
        let mut list = List::new(dir);
        list.extend_from_slice(values);
        list
    }

    pub fn push(&mut self, value: T) {
        self.extend_from_slice(std::slice::from_ref(&value));
    }

    pub fn extend_from_slice(&mut self, values: &[T]) {
        self.reserve(values.len());
        match &mut self.store {
            Store::Heap(heap) => heap.extend_from_slice(values),
            Store::Mapped { map, len, .. } => {
                let start = *len * size_of::<T>();
                let bytes: &[u8] = bytemuck::cast_slice(values);
                map[start..start + bytes.len()].copy_from_slice(bytes);
                *len += values.len();
            }
        }
    }

    /// Room for `more` values past the end: a scratch file grows to at
    /// least twice its size.
    fn reserve(&mut self, more: usize) {
        let (len, capacity) = match &self.store {
            Store::Heap(heap) => (heap.len(), heap.capacity()),
            Store::Mapped { map, len, .. } => (*len, map.len() / size_of::<T>()),
        };
        if len + more <= capacity {
            return;
        }
        let Some(dir) = self.dir.clone() else {
            if let Store::Heap(heap) = &mut self.store {
                heap.reserve(more);
            }
            return;
        };
        let wanted = (2 * capacity)
            .max(len + more)
            .max(FIRST_MAPPED_BYTES / size_of::<T>());
        if self.grow_mapped(&dir, wanted).is_err() {
            // In memory from here on.
            self.dir = None;
            let mut heap = Vec::with_capacity(len + more);
            heap.extend_from_slice(self);
            self.store = Store::Heap(heap);
        }
    }

    /// Makes room for `capacity` values in a scratch file: the list's own,
    /// grown, or a new one in `dir` its values move to. On failure the
    /// list is as it was.
    fn grow_mapped(&mut self, dir: &Path, capacity: usize) -> std::io::Result<()> {
        let bytes = capacity * size_of::<T>();
        match &mut self.store {
            Store::Mapped { file, map, .. } => {
                file.set_len(bytes as u64)?;
                // The old map goes once the new one is made.
                *map = map_file(file)?;
            }
            Store::Heap(heap) => {
                let file = scratch_file(dir, bytes)?;
                let mut map = map_file(&file)?;
                let len = heap.len();
                map[..len * size_of::<T>()].copy_from_slice(bytemuck::cast_slice(heap));
                self.store = Store::Mapped { file, map, len };
            }
        }
        Ok(())
    }

    /// Lets go of the room in memory it grew into and did not fill.
    pub fn shrink_to_fit(&mut self) {
        if let Store::Heap(heap) = &mut self.store {
            heap.shrink_to_fit();
        }
    }

    /// Bytes it holds in memory (its room, filled or not); none in a
    /// scratch file.
    pub fn held_bytes(&self) -> u64 {
        match &self.store {
            Store::Heap(heap) => (heap.capacity() * size_of::<T>()) as u64,
            Store::Mapped { .. } => 0,
        }
    }
}

impl<T: Pod> std::ops::Deref for List<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.store {
            Store::Heap(heap) => heap,
            // The map is page-aligned, so aligned for any `T`.
            Store::Mapped { map, len, .. } => bytemuck::cast_slice(&map[..len * size_of::<T>()]),
        }
    }
}

impl<T: Pod> std::ops::DerefMut for List<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.store {
            Store::Heap(heap) => heap,
            Store::Mapped { map, len, .. } => {
                bytemuck::cast_slice_mut(&mut map[..*len * size_of::<T>()])
            }
        }
    }
}

/// A number that keeps the scratch names of one process apart.
fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_grows_through_its_scratch_file_and_reads_back_what_was_put() {
        let dir = tempfile::tempdir().unwrap();
        let mut list = List::<u32>::zeroed(3, Some(dir.path()));
        assert_eq!(&list[..], &[0, 0, 0]);
        list[1] = 7;
        // Past the first file's room, twice over.
        let more: Vec<u32> = (0..600_000).collect();
        list.extend_from_slice(&more);
        assert_eq!(list.len(), 600_003);
        assert_eq!((list[1], list[3], list[600_002]), (7, 0, 599_999));
        assert_eq!(list.held_bytes(), 0);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_list_whose_scratch_file_cannot_be_made_goes_on_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("not-there");
        let mut list = List::<u64>::from_slice(&[1, 2], Some(&gone));
        list.push(3);
        assert_eq!(&list[..], &[1, 2, 3]);
        assert!(list.held_bytes() >= 24);
    }
}
