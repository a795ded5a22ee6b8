//! Sparse lists for the repetition rules' games: candidate positions in
//! index order with their moves that matter, and what a pass found for the
//! next pass of the same side.

use rayon::prelude::*;

use super::{Bits, State, CHUNK};
use crate::index::Placement;

/// Where a move's position stands among the other kind of candidates, when
/// it is none.
pub(super) const NOWHERE: u32 = u32::MAX;

/// Candidate positions in index order and their moves that matter, all in
/// one list: candidate `i`'s run from `ends[i]` to `ends[i + 1]`. Few
/// positions, but many of them: no allocation each, and four bytes an end.
pub(super) struct Candidates<E> {
    pub indexes: Vec<u64>,
    ends: Vec<u32>,
    pub edges: Vec<E>,
}

impl<E> Candidates<E> {
    pub fn new() -> Candidates<E> {
        Candidates::with_capacity(0, 0)
    }

    /// Empty lists with room for `candidates` and their `edges`.
    fn with_capacity(candidates: usize, edges: usize) -> Candidates<E> {
        let mut ends = Vec::with_capacity(candidates + 1);
        ends.push(0);
        Candidates {
            indexes: Vec::with_capacity(candidates),
            ends,
            edges: Vec::with_capacity(edges),
        }
    }

    /// Adds a candidate after the last, with its moves (possibly none).
    pub fn push(&mut self, index: u64, edges: impl IntoIterator<Item = E>) {
        self.indexes.push(index);
        self.edges.extend(edges);
        self.ends.push(end(self.edges.len()));
    }

    /// Adds moves in order of the index they leave, from the last
    /// candidate's on.
    pub fn extend(&mut self, moves: impl IntoIterator<Item = (u64, E)>) {
        for (index, edge) in moves {
            if self.indexes.last() != Some(&index) {
                self.push(index, None);
            }
            self.edges.push(edge);
            *self.ends.last_mut().expect("one end more than candidates") = end(self.edges.len());
        }
    }

    /// The lists of `parts` one after the other (each part's indexes past
    /// the one's before), each part let go once moved.
    pub fn concat(parts: Vec<Candidates<E>>) -> Candidates<E> {
        let candidates = parts.iter().map(Candidates::len).sum::<usize>();
        let edges = parts.iter().map(|p| p.edges.len()).sum();
        let mut all = Candidates::with_capacity(candidates, edges);
        for part in parts {
            let before = end(all.edges.len());
            all.indexes.extend(part.indexes);
            all.ends
                .extend(part.ends[1..].iter().map(|end| before + end));
            all.edges.extend(part.edges);
        }
        all
    }

    /// Lets go of the room the lists grew into and did not fill.
    pub fn shrink_to_fit(&mut self) {
        self.indexes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.edges.shrink_to_fit();
    }

    /// Bytes the lists take (their capacity).
    pub fn bytes(&self) -> u64 {
        let ends = 4 * self.ends.capacity();
        (8 * self.indexes.capacity() + ends + self.edges.capacity() * std::mem::size_of::<E>())
            as u64
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
    pub candidates: Vec<u64>,
}

impl State<'_> {
    /// Notes that a rule's pass holds `bytes` of lists now.
    pub(super) fn note_lists(&self, bytes: u64) {
        self.lists_peak
            .fetch_max(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The holding candidates of a game: the open positions with `mover`
    /// to move and a quiet move into one of the `trapped` indexes, each with
    /// the moves `moves` finds for it (a position without any is left
    /// out), in index order.
    pub(super) fn gather_holding<E: Send>(
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
        let mut list = Candidates::new();
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
    /// chunk at a time in parallel, in index order: after an `earlier`
    /// pass, only those [`State::rescan`] names; otherwise every index.
    pub(super) fn find_candidates<F: IntoIterator<Item: Send>>(
        &self,
        mover: usize,
        earlier: Option<RuleScan>,
        find: impl Fn(&mut dyn Iterator<Item = u64>) -> F + Sync,
    ) -> Vec<F::Item> {
        let look = earlier.map(|earlier| self.rescan(mover, earlier));
        self.chunks()
            .into_par_iter()
            .flat_map_iter(|(start, end)| match &look {
                Some(look) => find(&mut look.ones(start, end)),
                None => find(&mut (start..end)),
            })
            .collect()
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
        for &index in &earlier.candidates {
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
        let mut list = Candidates::new();
        list.push(3, [30, 31]);
        list.push(5, []);
        let mut more = Candidates::new();
        more.extend([(8, 80), (8, 81), (9, 90)]);
        let list = Candidates::concat(vec![list, Candidates::new(), more]);
        assert_eq!(list.len(), 4);
        assert_eq!(list.edges(0), &[30, 31]);
        assert!(list.edges(1).is_empty());
        assert_eq!(list.edges(2), &[80, 81]);
        assert_eq!(list.edges(3), &[90]);
        assert_eq!((list.find(8), list.find(9)), (2, 3));
        assert_eq!(list.find(4), NOWHERE);
    }
}
