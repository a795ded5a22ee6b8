//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two atomic words: `key ^ data` and `data`. A reader accepts an
//! entry only if the XOR of the two words gives back its key, so a torn write
//! by another thread reads as a miss instead of a wrong move or score. Four
//! entries make a 64-byte bucket, one cache line.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use bytemuck::Zeroable;
use xqcore::Move;

use crate::huge::HugeArray;
#[cfg(test)]
use crate::huge::HUGE_PAGE;

/// What a stored score means relative to the true value. The order of
/// declaration is the stored code less one ([`pack`], [`unpack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the score (a beta cutoff).
    Lower,
    /// The true value is at most the score (no move raised alpha).
    Upper,
    /// The true value.
    Exact,
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mv: Option<Move>,
    pub score: i32,
    /// The static evaluation of the position, if it was computed.
    pub eval: Option<i32>,
    pub depth: i32,
    pub bound: Bound,
}

/// Stored in place of a static evaluation that was not computed (in check).
const NO_EVAL: i16 = i16::MIN;

/// An empty slot is all zeros: no bound (see [`unpack`]).
#[derive(Zeroable)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const SLOTS_PER_BUCKET: usize = 4;

#[repr(align(64))]
#[derive(Zeroable)]
struct Bucket([Slot; SLOTS_PER_BUCKET]);

/// A table of `2^k` buckets of four entries.
pub struct TranspositionTable {
    buckets: HugeArray<Bucket>,
    mask: usize,
    generation: AtomicU8,
}

fn clamp16(v: i32) -> u64 {
    (v.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16 as u16) as u64
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6
fn pack(e: &Entry, generation: u8) -> u64 {
    let mv = e.mv.map_or(0, |m| m.to_u16()) as u64;
    let eval = e.eval.map_or(NO_EVAL as u16 as u64, clamp16);
    let depth = (e.depth.clamp(-100, 127) as i8 as u8) as u64;
    // 1, 2, 3 by declaration order; 0 marks an empty slot.
    let bound = e.bound as u64 + 1;
    mv | clamp16(e.score) << 16
        | eval << 32
        | depth << 48
        | bound << 56
        | ((generation & 63) as u64) << 58
}

fn unpack(d: u64) -> Option<Entry> {
    // A table read rather than a match, which compiled to a jump table.
    const BOUNDS: [Bound; 4] = [Bound::Lower, Bound::Lower, Bound::Upper, Bound::Exact];
    let code = (d >> 56) & 3;
    if code == 0 {
        return None;
    }
    let bound = BOUNDS[code as usize];
    // Only `pack` writes entries (a torn write fails the key check): the
    // move is a valid one or none.
    let mv = Some(Move::from_u16_unchecked(d as u16)).filter(|&m| m != Move::NULL);
    let eval = (d >> 32) as u16 as i16;
    Some(Entry {
        mv,
        score: (d >> 16) as u16 as i16 as i32,
        eval: (eval != NO_EVAL).then_some(eval as i32),
        depth: (d >> 48) as u8 as i8 as i32,
        bound,
    })
}

/// The depth of an entry for replacement, an empty slot (no bound) lowest.
#[inline]
fn depth_of(d: u64) -> i32 {
    if (d >> 56) & 3 == 0 {
        -1_000
    } else {
        (d >> 48) as u8 as i8 as i32
    }
}

fn generation_of(d: u64) -> u8 {
    ((d >> 58) & 63) as u8
}

impl TranspositionTable {
    /// A table of at most `mb` megabytes (at least one): the largest power
    /// of two buckets that fits, so 16 gives exactly 16 MB and 100 gives 64.
    /// When the system cannot supply that much, half as much, and so on.
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let fit = bytes / std::mem::size_of::<Bucket>();
        // The largest power of two not above `fit` (at least one bucket).
        let mut count = 1usize << (usize::BITS - 1 - fit.max(1).leading_zeros());
        let buckets = loop {
            match HugeArray::new(count) {
                Ok(b) => break b,
                Err(_) if count > 1 => count /= 2,
                Err(e) => panic!("no memory for a one-bucket hash table: {e}"),
            }
        };
        TranspositionTable {
            buckets,
            mask: count - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// Size in bytes.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot] {
        let b = (key as usize) & self.mask;
        &self.buckets[b].0
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Empties the table.
    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| b.0.iter()) {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }

    /// Asks the CPU to start loading the bucket of `key` into the cache, so
    /// the probe a moment later does not wait on memory.
    #[inline]
    #[allow(unsafe_code)] // a cache hint; the engine's other unsafe is in `huge`
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket = &self.buckets[(key as usize) & self.mask];
            // SAFETY: a prefetch is only a hint: it never faults and reads
            // nothing into the program; the pointer is a valid reference anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((bucket as *const Bucket).cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in self.bucket(key) {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    /// Stores an entry, replacing the same key, else the shallowest or oldest.
    /// An entry for the same key is kept when it is deeper and the new one is
    /// not exact, so shallow re-searches do not wash out deep results.
    pub fn store(&self, key: u64, entry: Entry) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket[0];
        let mut worst = i32::MAX;
        for s in bucket {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key {
                let old = unpack(data);
                let mut entry = entry;
                if let Some(old) = old {
                    if entry.bound != Bound::Exact
                        && old.depth > entry.depth + 3
                        && generation_of(data) == generation & 63
                    {
                        return;
                    }
                    // Keep a known best move and evaluation when the new entry has none.
                    entry.mv = entry.mv.or(old.mv);
                    entry.eval = entry.eval.or(old.eval);
                }
                let d = pack(&entry, generation);
                s.check.store(key ^ d, Ordering::Relaxed);
                s.data.store(d, Ordering::Relaxed);
                return;
            }
            let age = generation.wrapping_sub(generation_of(data)) & 63;
            // Empty slots go first, then the shallowest, older entries counting as shallower.
            let value = depth_of(data) - 8 * age as i32;
            if value < worst {
                worst = value;
                victim = s;
            }
        }
        let d = pack(&entry, generation);
        victim.check.store(key ^ d, Ordering::Relaxed);
        victim.data.store(d, Ordering::Relaxed);
    }

    /// Permille of the first thousand slots used in the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed) & 63;
        let n = (self.buckets.len() * SLOTS_PER_BUCKET).min(1000);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| b.0.iter())
            .take(n)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && generation_of(d) == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Square;

    #[test]
    fn stores_and_probes_entries() {
        let tt = TranspositionTable::new(1);
        let mv = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
        let e = Entry {
            mv: Some(mv),
            score: -1234,
            eval: Some(-77),
            depth: 7,
            bound: Bound::Lower,
        };
        tt.store(0xdead_beef_1234, e);
        assert_eq!(tt.probe(0xdead_beef_1234), Some(e));
        assert_eq!(tt.probe(0xdead_beef_1235), None);
        // A much shallower bound does not replace a deep result...
        let shallow = Entry {
            mv: None,
            score: 5,
            eval: None,
            depth: 2,
            bound: Bound::Upper,
        };
        tt.store(0xdead_beef_1234, shallow);
        assert_eq!(tt.probe(0xdead_beef_1234), Some(e));
        // ...an exact one does, keeping the move and evaluation it lacks.
        let exact = Entry {
            bound: Bound::Exact,
            ..shallow
        };
        tt.store(0xdead_beef_1234, exact);
        assert_eq!(
            tt.probe(0xdead_beef_1234),
            Some(Entry {
                mv: Some(mv),
                eval: Some(-77),
                ..exact
            })
        );
        tt.clear();
        assert_eq!(tt.probe(0xdead_beef_1234), None);
    }

    #[test]
    fn size_follows_the_option() {
        // A power of two is taken as it is; other sizes round down to one.
        assert_eq!(TranspositionTable::new(1).bytes(), 1 << 20);
        assert_eq!(TranspositionTable::new(16).bytes(), 16 << 20);
        assert_eq!(TranspositionTable::new(100).bytes(), 64 << 20);
        assert_eq!(TranspositionTable::new(0).bytes(), 1 << 20);
    }

    #[test]
    fn a_table_of_huge_pages_starts_on_one() {
        let tt = TranspositionTable::new(4);
        assert_eq!(tt.buckets.as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(tt.buckets.len(), (4 << 20) / 64);
        // Every bucket reads empty, the last one included.
        let last = &tt.buckets[tt.buckets.len() - 1].0;
        assert!(last.iter().all(|s| s.data.load(Ordering::Relaxed) == 0));
        assert_eq!(tt.probe(0x1234_5678), None);
    }
}
