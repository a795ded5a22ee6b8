//! Sparse lists for the repetition rules' games: candidate positions in
//! index order with their moves that matter, and what a pass found for the
//! next pass of the same side.

use bytemuck::Pod;
use rayon::prelude::*;

use super::scratch::{List, ListRoom};
use super::{Bits, State, CHUNK};
use xqegtb::Placement;

/// Where a move's position stands among the other kind of candidates, when
/// it is none.
pub(super) const NOWHERE: u32 = u32::MAX;

/// Candidate positions in index order and their moves that matter, all in
/// one list: candidate `i`'s run from `ends[i]` to `ends[i + 1]`. Few
/// positions, but many of them: no allocation each, and four bytes an end.
/// Under a memory bound the lists go on in scratch files past the room the
/// bound leaves them.
pub(super) struct Candidates<E: Pod> {
    pub indexes: List<u64>,
    ends: List<u32>,
    pub edges: List<E>,
}

impl<E: Pod> Candidates<E> {
    /// Empty lists, in memory, within `room` when given.
    pub fn new(room: Option<&ListRoom>) -> Candidates<E> {
        let mut ends = List::new(room);
        ends.push(0);
        Candidates {
            indexes: List::new(room),
            ends,
            edges: List::new(room),
        }
    }

    /// Adds a candidate after the last, with its moves (possibly none).
    pub fn push(&mut self, index: u64, edges: &[E]) {
        self.indexes.push(index);
        self.edges.extend_from_slice(edges);
        self.ends.push(end(self.edges.len()));
    }

    /// Adds moves in order of the index they leave, from the last
    /// candidate's on.
    pub fn extend(&mut self, moves: impl IntoIterator<Item = (u64, E)>) {
        for (index, edge) in moves {
            if self.indexes.last() != Some(&index) {
                self.push(index, &[]);
            }
            self.edges.push(edge);
            *self.ends.last_mut().expect("one end more than candidates") = end(self.edges.len());
        }
    }

    /// Adds the candidates of `part`, whose indexes all come after these.
    pub fn append(&mut self, part: &Candidates<E>) {
        let before = end(self.edges.len());
        self.indexes.extend_from_slice(&part.indexes);
        for &end in &part.ends[1..] {
            self.ends.push(before + end);
        }
        self.edges.extend_from_slice(&part.edges);
    }

    /// Lets go of the room the lists grew into and did not fill.
    pub fn shrink_to_fit(&mut self) {
        self.indexes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.edges.shrink_to_fit();
    }

    /// Bytes the lists hold in memory (their room, filled or not).
    pub fn bytes(&self) -> u64 {
        self.indexes.held_bytes() + self.ends.held_bytes() + self.edges.held_bytes()
    }

    pub fn len(&self) -> usize {
        self.indexes.len()
    }

    pub fn edges(&self, i: usize) -> &[E] {
        &self.edges[self.ends[i] as usize..self.ends[i + 1] as usize]
    }

    /// Where the position at `index` stands, if it is a candidate.
    pub fn find(&self, index: u64) -> u32 {
        self.indexes
            .binary_search(&index)
            .map_or(NOWHERE, |i| i as u32)
    }
}

/// The end of a candidate's run of moves: lists of more than `u32::MAX`
/// moves would take tens of gigabytes, far past any table they serve.
fn end(edges: usize) -> u32 {
    u32::try_from(edges).expect("fewer than 2^32 moves in a candidate list")
}

/// What a pass of a repetition rule found, for its next pass with the
/// same side to move.
pub(super) struct RuleScan {
    /// The distance its losses were settled at: every position settled
    /// since has a distance from it up.
    pub base: u16,
    /// Its trapped candidates (before the game), ascending.
    pub candidates: List<u64>,
}

impl State<'_> {
    /// The memory the rules' lists may take, past which they go to
    /// scratch files: for a table solved under a memory bound.
    pub(super) fn lists_room(&self) -> Option<&ListRoom> {
        self.lists_room.as_ref()
    }

    /// Notes that a rule's pass holds `bytes` of lists now.
    pub(super) fn note_lists(&self, bytes: u64) {
        self.lists_peak
            .fetch_max(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The holding candidates of a game: the open positions with `mover`
    /// to move and a quiet move into one of the `trapped` indexes, each with
    /// the moves `moves` finds for it (a position without any is left
    /// out), in index order.
    pub(super) fn gather_holding<E: Pod + Send>(
        &self,
        trapped: &[u64],
        mover: usize,
        moves: impl Fn(u64) -> Vec<E> + Sync,
    ) -> Candidates<E> {
        // A bit an index, not a list: a trapped position has many parents,
        // and the bits fit where the rounds' frontiers were.
        let parents = Bits::new(self.indexer.size());
        trapped.par_chunks(CHUNK as usize).for_each(|chunk| {
            let (mut placement, mut found) = (Placement::new(), Vec::new());
            for &index in chunk {
                self.parents_into(index, mover, &mut placement, &mut found);
                for &parent in found.iter().filter(|&&p| self.is_open(mover, p)) {
                    parents.set(parent);
                }
            }
        });
        // A slice of indexes at a time, so that their moves are held twice
        // (found, then in the list) only a slice at a time, straight into
        // one growing list: lists made a slice at a time and joined at the
        // end held the parts and the whole at once.
        let mut list = Candidates::new(self.lists_room());
        for slice in self.chunks().chunks(SLICE_CHUNKS) {
            let found: Vec<(u64, E)> = slice
                .par_iter()
                .flat_map_iter(|&(start, end)| {
                    parents
                        .ones(start, end)
                        .flat_map(|index| moves(index).into_iter().map(move |e| (index, e)))
                })
                .collect();
            list.extend(found);
        }
        list.shrink_to_fit();
        list
    }

    /// The table's indexes in chunks of [`CHUNK`], as ranges.
    fn chunks(&self) -> Vec<(u64, u64)> {
        let size = self.indexer.size();
        (0..size.div_ceil(CHUNK))
            .map(|c| (c * CHUNK, ((c + 1) * CHUNK).min(size)))
            .collect()
    }

    /// What `find` makes of the indexes a pass for `mover` looks at, a
    /// chunk at a time in parallel, each to `take` in index order: after
    /// an `earlier` pass, only those [`State::rescan`] names; otherwise
    /// every index. A slice of chunks at a time, so that what is found is
    /// held twice (found, then where `take` keeps it) only a slice at a
    /// time.
    pub(super) fn find_candidates<F: IntoIterator<Item: Send>>(
        &self,
        mover: usize,
        earlier: Option<RuleScan>,
        find: impl Fn(&mut dyn Iterator<Item = u64>) -> F + Sync,
        mut take: impl FnMut(F::Item),
    ) {
        let look = earlier.map(|earlier| self.rescan(mover, earlier));
        for slice in self.chunks().chunks(SLICE_CHUNKS) {
            let found: Vec<F::Item> = slice
                .par_iter()
                .flat_map_iter(|&(start, end)| match &look {
                    Some(look) => find(&mut look.ones(start, end)),
                    None => find(&mut (start..end)),
                })
                .collect();
            found.into_iter().for_each(&mut take);
        }
    }

    /// The indexes a later pass for `mover` need look at, a bit each: the
    /// candidates of its pass before, and the positions with a move into
    /// one the other side has won since. Every position settled since that
    /// pass has a distance from its base up, and a position becomes a
    /// candidate only when a move of it starts to lose.
    fn rescan(&self, mover: usize, earlier: RuleScan) -> Bits {
        let other = 1 - mover;
        let won_since: Vec<bool> = (0..=u16::MAX as u32)
            .map(|cell| {
                self.codes
                    .dtm_of(cell)
                    .is_some_and(|d| d >= earlier.base && d % 2 == 1)
            })
            .collect();
        let look = Bits::new(self.indexer.size());
        self.chunks().into_par_iter().for_each(|(start, end)| {
            let (mut placement, mut parents) = (Placement::new(), Vec::new());
            for index in start..end {
                if won_since[self.cell(other, index).get() as usize] {
                    self.parents_into(index, mover, &mut placement, &mut parents);
                    for &parent in &parents {
                        look.set(parent);
                    }
                }
            }
        });
        for &index in earlier.candidates.iter() {
            look.set(index);
        }
        look
    }
}

/// Chunks of indexes whose holding candidates are found at once.
const SLICE_CHUNKS: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_keep_their_moves_in_runs_and_are_found_by_index() {
        let mut list = Candidates::<u32>::new(None);
        list.push(3, &[30, 31]);
        list.push(5, &[]);
        let mut more = Candidates::new(None);
        more.extend([(8, 80), (8, 81), (9, 90)]);
        list.append(&Candidates::new(None));
        list.append(&more);
        assert_eq!(list.len(), 4);
        assert_eq!(list.edges(0), &[30, 31]);
        assert!(list.edges(1).is_empty());
        assert_eq!(list.edges(2), &[80, 81]);
        assert_eq!(list.edges(3), &[90]);
        assert_eq!((list.find(8), list.find(9)), (2, 3));
        assert_eq!(list.find(4), NOWHERE);
    }

    #[test]
    fn candidates_in_scratch_files_read_as_in_memory_and_hold_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let room = ListRoom::new(dir.path(), 0);
        let (mut kept, mut mapped) = (Candidates::<u64>::new(None), Candidates::new(Some(&room)));
        // Past the first scratch file's room, so that it grows.
        for index in 0..100_000u64 {
            let edges: Vec<u64> = (0..index % 4).map(|k| index * 10 + k).collect();
            kept.push(index * 3, &edges);
            mapped.push(index * 3, &edges);
        }
        assert!(kept.bytes() > 2_000_000);
        assert_eq!(mapped.bytes(), 0);
        assert_eq!(&kept.indexes[..], &mapped.indexes[..]);
        assert_eq!(&kept.edges[..], &mapped.edges[..]);
        assert_eq!(mapped.edges(99_999), &[999_990, 999_991, 999_992]);
        assert_eq!(mapped.find(3 * 77_777), 77_777);
        // The files are gone from the directory already.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
