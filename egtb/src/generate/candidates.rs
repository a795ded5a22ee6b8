//! Sparse lists for the repetition rules' games: candidate positions in
//! index order with their moves that matter, and what a pass found for the
//! next pass of the same side.

use rayon::prelude::*;

use super::{State, CHUNK};

/// Where a move's position stands among the other kind of candidates, when
/// it is none.
pub(super) const NOWHERE: u32 = u32::MAX;

/// Candidate positions in index order and their moves that matter, all in
/// one list: candidate `i`'s run from `ends[i]` to `ends[i + 1]`. Few
/// positions, but many of them: no allocation each.
pub(super) struct Candidates<E> {
    pub indexes: Vec<u64>,
    ends: Vec<usize>,
    pub edges: Vec<E>,
}

impl<E> Candidates<E> {
    pub fn new() -> Candidates<E> {
        Candidates {
            indexes: Vec::new(),
            ends: vec![0],
            edges: Vec::new(),
        }
    }

    /// Adds a candidate after the last, with its moves (possibly none).
    pub fn push(&mut self, index: u64, edges: impl IntoIterator<Item = E>) {
        self.indexes.push(index);
        self.edges.extend(edges);
        self.ends.push(self.edges.len());
    }

    /// Adds moves in order of the index they leave, from the last
    /// candidate's on.
    pub fn extend(&mut self, moves: impl IntoIterator<Item = (u64, E)>) {
        for (index, edge) in moves {
            if self.indexes.last() != Some(&index) {
                self.push(index, None);
            }
            self.edges.push(edge);
            *self.ends.last_mut().expect("one end more than candidates") = self.edges.len();
        }
    }

    pub fn len(&self) -> usize {
        self.indexes.len()
    }

    pub fn edges(&self, i: usize) -> &[E] {
        &self.edges[self.ends[i]..self.ends[i + 1]]
    }

    /// Where the position at `index` stands, if it is a candidate.
    pub fn find(&self, index: u64) -> u32 {
        self.indexes
            .binary_search(&index)
            .map_or(NOWHERE, |i| i as u32)
    }
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
        let mut parents: Vec<u64> = trapped
            .par_iter()
            .flat_map_iter(|&t| self.parents(t, mover))
            .collect();
        parents.par_sort_unstable();
        parents.dedup();
        // A slice of parents at a time, so that their moves are held twice
        // (found, then in the list) only a slice at a time.
        let mut holding = Candidates::new();
        for slice in parents.chunks(1 << 16) {
            let found: Vec<(u64, E)> = slice
                .par_iter()
                .filter(|&&index| self.is_open(mover, index))
                .flat_map_iter(|&index| moves(index).into_iter().map(move |e| (index, e)))
                .collect();
            holding.extend(found);
        }
        holding
    }

    /// What `find` makes of the indexes a pass for `mover` looks at, a
    /// chunk at a time in parallel, in index order: after an `earlier`
    /// pass, only those [`State::rescan`] names; otherwise every index.
    pub(super) fn find_candidates<T: Send>(
        &self,
        mover: usize,
        earlier: Option<RuleScan>,
        find: impl Fn(&mut dyn Iterator<Item = u64>) -> Vec<T> + Sync,
    ) -> Vec<T> {
        match earlier {
            Some(earlier) => self
                .rescan(mover, earlier)
                .par_chunks(CHUNK as usize)
                .flat_map_iter(|c| find(&mut c.iter().copied()))
                .collect(),
            None => {
                let size = self.indexer.size();
                (0..size.div_ceil(CHUNK))
                    .into_par_iter()
                    .flat_map_iter(|c| find(&mut (c * CHUNK..((c + 1) * CHUNK).min(size))))
                    .collect()
            }
        }
    }

    /// The indexes a later pass for `mover` need look at (ascending): the
    /// candidates of its pass before, and the positions with a move into
    /// one the other side has won since. Every position settled since that
    /// pass has a distance from its base up, and a position becomes a
    /// candidate only when a move of it starts to lose.
    fn rescan(&self, mover: usize, earlier: RuleScan) -> Vec<u64> {
        let size = self.indexer.size();
        let other = 1 - mover;
        let won_since: Vec<bool> = (0..=u16::MAX as u32)
            .map(|cell| {
                self.codes
                    .dtm_of(cell)
                    .is_some_and(|d| d >= earlier.base && d % 2 == 1)
            })
            .collect();
        let mut look: Vec<u64> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| {
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(size));
                let won: Vec<u64> = (start..end)
                    .filter(|&i| won_since[self.cell(other, i).get() as usize])
                    .collect();
                won.into_iter().flat_map(|i| self.parents(i, mover))
            })
            .collect();
        look.extend(earlier.candidates);
        look.par_sort_unstable();
        look.dedup();
        look
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_keep_their_moves_in_runs_and_are_found_by_index() {
        let mut list = Candidates::new();
        list.push(3, [30, 31]);
        list.push(5, []);
        list.extend([(8, 80), (8, 81), (9, 90)]);
        assert_eq!(list.len(), 4);
        assert_eq!(list.edges(0), &[30, 31]);
        assert!(list.edges(1).is_empty());
        assert_eq!(list.edges(2), &[80, 81]);
        assert_eq!(list.edges(3), &[90]);
        assert_eq!((list.find(8), list.find(9)), (2, 3));
        assert_eq!(list.find(4), NOWHERE);
    }
}
