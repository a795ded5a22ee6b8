//! Memory the solver may keep on disk: scratch files mapped into memory,
//! which the kernel pages in and out as the passes go through them, for
//! tables whose cells do not fit the memory bound, and for the repetition
//! rules' candidate lists past what the bound leaves them. The module holds
//! the generator's `unsafe`.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

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

/// Memory the lists of a solve under a bound may take, shared by them all,
/// and the directory they go on in past it.
#[derive(Clone)]
pub(super) struct ListRoom(Arc<Room>);

struct Room {
    dir: PathBuf,
    /// Bytes left: each list in memory takes its room from it as it grows
    /// and gives it back when it shrinks or goes.
    left: AtomicU64,
}

impl ListRoom {
    /// `bytes` of memory, then scratch files in `dir`.
    pub fn new(dir: &Path, bytes: u64) -> ListRoom {
        ListRoom(Arc::new(Room {
            dir: dir.to_path_buf(),
            left: AtomicU64::new(bytes),
        }))
    }

    /// Takes `bytes` if that many are left.
    fn take(&self, bytes: usize) -> bool {
        let bytes = bytes as u64;
        self.0
            .left
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(bytes))
            .is_ok()
    }

    fn give(&self, bytes: usize) {
        self.0.left.fetch_add(bytes as u64, Relaxed);
    }
}

/// A list of plain values that grows at its end: in memory, or, when it
/// has a [`ListRoom`] and would pass it, in a scratch file that doubles as
/// it fills (the candidate lists of a table solved under a memory bound).
/// Should a scratch file fail to grow, the list goes on in memory: past the
/// bound, but whole.
pub(super) struct List<T: Pod> {
    store: Store<T>,
    /// The room it grows in, until it is in a scratch file or one fails.
    room: Option<ListRoom>,
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
/// file.
const FIRST_MAPPED_BYTES: usize = 1 << 20;

impl<T: Pod> List<T> {
    /// An empty list, in memory, within `room` when given.
    pub fn new(room: Option<&ListRoom>) -> List<T> {
        List {
            store: Store::Heap(Vec::new()),
            room: room.cloned(),
        }
    }

    /// `len` zeroes, in memory, within `room` when given.
    pub fn zeroed(len: usize, room: Option<&ListRoom>) -> List<T> {
        let mut list = List::new(room);
        list.reserve(len);
        if let Store::Heap(values) = &mut list.store {
            values.resize(len, T::zeroed());
        } else if let Store::Mapped { len: filled, .. } = &mut list.store {
            // A new scratch file reads as zeroes.
            *filled = len;
        }
        list
    }

    /// Values of `values`, in memory, within `room` when given.
    pub fn from_slice(values: &[T], room: Option<&ListRoom>) -> List<T> {
        let mut list = List::new(room);
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

    /// Room for `more` values past the end: in memory while the room
    /// allows (doubling, as a `Vec` does), else in a scratch file that
    /// grows to at least twice its size.
    fn reserve(&mut self, more: usize) {
        let (len, capacity) = match &self.store {
            Store::Heap(heap) => (heap.len(), heap.capacity()),
            Store::Mapped { map, len, .. } => (*len, map.len() / size_of::<T>()),
        };
        if len + more <= capacity {
            return;
        }
        let wanted = (2 * capacity).max(len + more);
        let Some(room) = self.room.clone() else {
            if let Store::Heap(heap) = &mut self.store {
                heap.reserve(more);
            }
            return;
        };
        if let Store::Heap(heap) = &mut self.store {
            if room.take((wanted - capacity) * size_of::<T>()) {
                heap.reserve_exact(wanted - len);
                debug_assert_eq!(heap.capacity(), wanted, "the room taken is the room held");
                return;
            }
        }
        let wanted = wanted.max(FIRST_MAPPED_BYTES / size_of::<T>());
        if self.grow_mapped(&room.0.dir, wanted).is_err() {
            // In memory from here on, past the room.
            self.give_back();
            self.room = None;
            let mut heap = Vec::with_capacity(len + more);
            heap.extend_from_slice(self);
            self.store = Store::Heap(heap);
        }
    }

    /// Makes room for `capacity` values in a scratch file: the list's own,
    /// grown, or a new one its values move to (their memory given back to
    /// the room). On failure the list is as it was.
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
                self.give_back();
                self.store = Store::Mapped { file, map, len };
            }
        }
        Ok(())
    }

    /// Gives the room of its memory back.
    fn give_back(&mut self) {
        if let (Store::Heap(heap), Some(room)) = (&self.store, &self.room) {
            room.give(heap.capacity() * size_of::<T>());
        }
    }

    /// Lets go of the room in memory it grew into and did not fill.
    pub fn shrink_to_fit(&mut self) {
        if let Store::Heap(heap) = &mut self.store {
            let before = heap.capacity();
            heap.shrink_to_fit();
            if let Some(room) = &self.room {
                room.give((before - heap.capacity()) * size_of::<T>());
            }
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

impl<T: Pod> Drop for List<T> {
    fn drop(&mut self) {
        self.give_back();
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
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_grows_through_its_scratch_file_and_reads_back_what_was_put() {
        let dir = tempfile::tempdir().unwrap();
        let room = ListRoom::new(dir.path(), 0);
        let mut list = List::<u32>::zeroed(3, Some(&room));
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
    fn lists_share_their_room_in_memory_and_go_to_scratch_files_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let room = ListRoom::new(dir.path(), 1000);
        let mut first = List::<u64>::from_slice(&[1; 100], Some(&room));
        assert_eq!(first.held_bytes(), 800);
        // 200 bytes left: a second list of 50 values does not fit.
        let second = List::<u64>::from_slice(&[2; 50], Some(&room));
        assert_eq!(second.held_bytes(), 0);
        assert_eq!(&second[..], &[2; 50]);
        // Nor does the first list, doubling: it moves to a scratch file
        // and gives its memory back.
        first.extend_from_slice(&[3; 100]);
        assert_eq!((first.held_bytes(), first.len(), first[150]), (0, 200, 3));
        let third = List::<u64>::from_slice(&[4; 120], Some(&room));
        assert_eq!(third.held_bytes(), 960);
        drop(third);
        let fourth = List::<u64>::zeroed(125, Some(&room));
        assert_eq!(fourth.held_bytes(), 1000);
    }

    #[test]
    fn a_list_whose_scratch_file_cannot_be_made_goes_on_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let room = ListRoom::new(&dir.path().join("not-there"), 0);
        let mut list = List::<u64>::from_slice(&[1, 2], Some(&room));
        list.push(3);
        assert_eq!(&list[..], &[1, 2, 3]);
        assert!(list.held_bytes() >= 24);
    }
}
