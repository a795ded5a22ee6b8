//! Zeroed arrays for the search's large tables (the hash table, the
//! continuation histories), backed by huge pages where the system allows.
//!
//! The search reads these tables all over, a few bytes at a time: with 4 KB
//! pages nearly every read also misses the TLB and waits for a page walk.
//! On Linux a 2 MB-aligned anonymous map advised `MADV_HUGEPAGE` is backed
//! by 2 MB pages, which the TLB covers hundreds of times better. Elsewhere
//! the map is an ordinary zeroed allocation.
//!
//! The engine's `unsafe` for memory is here (the other is a prefetch hint in
//! `tt`). What may live in such an array is bytemuck's [`Zeroable`]: a type
//! for which all-zero bytes are a valid value, which is what a fresh map
//! holds.
#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use bytemuck::Zeroable;

/// The size of a huge page on x86-64 Linux.
pub const HUGE_PAGE: usize = 2 << 20;

/// `len` values of `T`, all zero at first, in their own memory map. `T`
/// is aligned to at most a page (checked when one is made); its drop, if
/// it had one, would never run.
pub struct HugeArray<T: Zeroable> {
    map: memmap2::MmapMut,
    /// Where the first value starts in `map`: a huge-page boundary when the
    /// array is large enough to use huge pages.
    offset: usize,
    len: usize,
    values: PhantomData<T>,
}

impl<T: Zeroable> HugeArray<T> {
    /// `len` zeroed values, every page of them already supplied by the
    /// system (so a search does not wait for that).
    pub fn new(len: usize) -> std::io::Result<HugeArray<T>> {
        const { assert!(std::mem::align_of::<T>() <= 4096) };
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(std::io::ErrorKind::OutOfMemory)?;
        // Room to move the start to a huge-page boundary, for arrays that
        // can use a huge page at all.
        let slack = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 0 };
        let mut map = memmap2::MmapMut::map_anon((bytes + slack).max(1))?;
        let offset = map.as_ptr().align_offset(HUGE_PAGE).min(slack);
        #[cfg(target_os = "linux")]
        if slack > 0 {
            // Only a hint: where refused, the array works on small pages.
            let _ = map.advise_range(memmap2::Advice::HugePage, offset, bytes);
        }
        // The map reads as zeros, its pages supplied on first write: write
        // one byte of each page now.
        for page in map[offset..offset + bytes].chunks_mut(4096) {
            page[0] = 0;
        }
        Ok(HugeArray {
            map,
            offset,
            len,
            values: PhantomData,
        })
    }
}

impl<T: Zeroable> Deref for HugeArray<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: the map holds `offset + len` values' bytes and lives as
        // long as `self`; it starts on a page boundary and `offset` is a
        // multiple of the page size, so the pointer is aligned for `T`
        // (`new` asserts at most a page). The bytes were zero, which
        // `Zeroable` promises is a valid `T`, and change only through
        // `T`'s own operations. `as_ptr` is the map's own pointer, valid
        // for the writes `T`'s atomics may make.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(self.offset).cast::<T>(), self.len)
        }
    }
}

impl<T: Zeroable> DerefMut for HugeArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, with `&mut self` giving the only access.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.map.as_mut_ptr().add(self.offset).cast::<T>(),
                self.len,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_array_starts_on_a_huge_page_and_reads_zero() {
        let mut a = HugeArray::<i16>::new(3 * HUGE_PAGE / 2 + 7).unwrap();
        assert_eq!(a.as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(a.len(), 3 * HUGE_PAGE / 2 + 7);
        assert!(a.iter().all(|&v| v == 0));
        let last = a.len() - 1;
        a[last] = -5;
        a[0] = 7;
        assert_eq!((a[0], a[last]), (7, -5));
    }

    #[test]
    fn small_and_empty_arrays() {
        let a = HugeArray::<i16>::new(10).unwrap();
        assert_eq!(a.len(), 10);
        assert!(a.iter().all(|&v| v == 0));
        assert!(HugeArray::<i16>::new(0).unwrap().is_empty());
    }
}
