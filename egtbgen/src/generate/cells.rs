//! The solver's working memory: one two-byte cell per index and side to
//! move. (A byte would halve it, but a table whose captures reach results
//! of the repetition rules has more distances than a byte holds codes.)
//!
//! A cell holds one of:
//!
//! - `1..=open_max`: an unsettled position, and how many of its distinct
//!   successors in the table are not yet known to be won for the opponent
//!   (plus one when a capture draws, which keeps it from ever losing);
//! - `0`: a position known to be lost, waiting for the round of its
//!   distance (a capture into a smaller table lasts longer than its moves
//!   in the table); outside the rounds, a count the rule passes keep;
//! - `open_max + 1..MAX`: a settled distance to mate, through [`Codes`];
//! - `MAX`: no position.
//!
//! Values, move counters and capture losses no longer have arrays of
//! their own (the solver once kept nine bytes a position): a position's
//! capture loss is only needed once, when it is found lost.

use std::sync::atomic::{AtomicBool, AtomicU16, Ordering::Relaxed};
use std::sync::Mutex;

use xqegtb::MAX_DTM;

/// An atomic cell of the solver (transparent: scratch files map them).
#[repr(transparent)]
pub(super) struct Cell(AtomicU16);

impl Cell {
    /// The cell of a position that does not exist; every code is below it.
    pub(super) const MAX: u32 = u16::MAX as u32;

    pub(super) fn new(v: u32) -> Cell {
        Cell(AtomicU16::new(v as u16))
    }

    pub(super) fn get(&self) -> u32 {
        self.0.load(Relaxed) as u32
    }

    pub(super) fn set(&self, v: u32) {
        self.0.store(v as u16, Relaxed)
    }

    /// Replaces `current` with `new`; whether the cell still held `current`.
    pub(super) fn replace(&self, current: u32, new: u32) -> bool {
        self.0
            .compare_exchange(current as u16, new as u16, Relaxed, Relaxed)
            .is_ok()
    }

    /// Reads the cell for nothing but to bring it into the cache: loads
    /// issued together wait for memory together, where each atomic update
    /// would wait alone.
    #[inline]
    pub(super) fn prefetch(&self) {
        std::hint::black_box(self.0.load(Relaxed));
    }

    pub(super) fn into_inner(self) -> u16 {
        self.0.into_inner()
    }
}

/// The cell codes of settled distances, handed out as distances first
/// occur (a table uses a few hundred distances of the 65,000 a value may
/// have).
pub(super) struct Codes {
    /// The largest move counter: codes start above it.
    open_max: u32,
    /// The cell of no position; codes stop below it.
    max: u32,
    /// By distance: its code, or 0 while it has none.
    by_dtm: Vec<AtomicU16>,
    /// By code (less `open_max + 1`): its distance.
    dtms: Vec<AtomicU16>,
    /// Codes handed out, under the lock (readers use the arrays).
    given: Mutex<u32>,
    /// The longest distance with a code.
    longest: AtomicU16,
    /// Set when a distance found no free code: the cells are too narrow.
    exhausted: AtomicBool,
}

impl Codes {
    pub(super) fn new(open_max: u32, max: u32) -> Codes {
        Codes {
            open_max,
            max,
            by_dtm: (0..=MAX_DTM as usize + 1)
                .map(|_| AtomicU16::new(0))
                .collect(),
            dtms: (open_max + 1..max).map(|_| AtomicU16::new(0)).collect(),
            given: Mutex::new(0),
            longest: AtomicU16::new(0),
            exhausted: AtomicBool::new(false),
        }
    }

    /// Whether `cell` is an unsettled position (or a count of the rule
    /// passes): a counter, or 0.
    pub(super) fn is_open(&self, cell: u32) -> bool {
        cell <= self.open_max
    }

    /// The largest move counter a cell can hold.
    pub(super) fn open_max(&self) -> u32 {
        self.open_max
    }

    /// The distance a settled cell holds; `None` for an open or no position.
    pub(super) fn dtm_of(&self, cell: u32) -> Option<u16> {
        (cell > self.open_max && cell < self.max)
            .then(|| self.dtms[(cell - self.open_max - 1) as usize].load(Relaxed))
    }

    /// The code of distance `dtm`, without handing one out.
    pub(super) fn existing(&self, dtm: u16) -> Option<u32> {
        match self.by_dtm[dtm as usize].load(Relaxed) {
            0 => None,
            c => Some(c as u32),
        }
    }

    /// The code of distance `dtm`, handed out on first use. When no code is
    /// left (never, in practice, with two-byte cells), [`Codes::exhausted`]
    /// is set and an unusable code returned: the solve then stops.
    pub(super) fn code(&self, dtm: u16) -> u32 {
        if let Some(code) = self.existing(dtm) {
            return code;
        }
        let mut given = self.given.lock().expect("no thread panics holding it");
        if let Some(code) = self.existing(dtm) {
            return code;
        }
        let code = self.open_max + 1 + *given;
        if code >= self.max {
            self.exhausted.store(true, Relaxed);
            return self.max;
        }
        *given += 1;
        self.dtms[(code - self.open_max - 1) as usize].store(dtm, Relaxed);
        self.by_dtm[dtm as usize].store(code as u16, Relaxed);
        self.longest.fetch_max(dtm, Relaxed);
        code
    }

    /// The longest distance with a code.
    pub(super) fn longest(&self) -> u16 {
        self.longest.load(Relaxed)
    }

    /// Whether a distance went without a code.
    pub(super) fn exhausted(&self) -> bool {
        self.exhausted.load(Relaxed)
    }

    /// The table code ([`xqegtb::Value::to_code`]) of every cell value: a
    /// draw for open cells, [`xqegtb::INVALID`] for no position.
    pub(super) fn decode_table(&self) -> Vec<u16> {
        use xqegtb::{Value, INVALID};
        (0..=self.max)
            .map(|cell| match self.dtm_of(cell) {
                _ if cell == self.max => INVALID,
                None => Value::Draw.to_code(),
                Some(d) if d % 2 == 1 => Value::Win(d).to_code(),
                Some(d) => Value::Loss(d).to_code(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_handed_out_once_per_distance_until_none_is_left() {
        let codes = Codes::new(250, 255);
        let a = codes.code(7);
        assert_eq!(a, 251);
        assert_eq!(codes.code(7), a);
        assert_eq!(codes.dtm_of(a), Some(7));
        assert!(codes.is_open(250) && !codes.is_open(a));
        for d in [1, 2, 3] {
            codes.code(d);
        }
        assert!(!codes.exhausted());
        assert_eq!(codes.code(9), 255);
        assert!(codes.exhausted());
        assert_eq!(codes.longest(), 7);
        let table = codes.decode_table();
        assert_eq!(table[a as usize], xqegtb::Value::Win(7).to_code());
        assert_eq!(table[3], xqegtb::Value::Draw.to_code());
        assert_eq!(table[255], xqegtb::INVALID);
    }
}
