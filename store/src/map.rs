//! The crate's one `unsafe`: mapping a file into memory.
#![allow(unsafe_code)]

use std::fs::File;
use std::ops::Deref;

/// A read-only memory map of a whole file.
pub(crate) struct Map(memmap2::Mmap);

impl Map {
    /// Maps `file`.
    pub(crate) fn new(file: &File) -> std::io::Result<Map> {
        // SAFETY: a map is undefined behaviour if the file changes under it.
        // Our writers never modify a finished file: they write a temporary
        // file and rename it over the old one, which leaves an open map of
        // the old file intact. A user editing the file in place while the
        // engine runs is outside what we can guard against, as for every
        // memory-mapped reader; checksums catch most such damage anyway.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Map(map))
    }
}

impl Deref for Map {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}
