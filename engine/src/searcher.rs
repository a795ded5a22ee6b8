//! [`Searcher`]: the search as one reusable value, for every program that
//! searches: the engine's `go`, the server's analyses, self-play and
//! `bench`. It owns what a search keeps from one to the next (the hash
//! table and each thread's move-ordering tables and working memory), so a
//! caller hands it a position and [`Limits`] and gets a [`SearchResult`].

use xqcore::{Move, Position};

use crate::search::{self, Reporter, SearchConfig, SearchResult, ThreadMemory};
use crate::time::{Budget, Limits, SearchControl};
use crate::tt::TranspositionTable;

/// A search with its settings and the memory it keeps between searches.
pub struct Searcher {
    config: SearchConfig,
    tt: TranspositionTable,
    /// The size the table was made for, in MB.
    hash_mb: usize,
    /// Each search thread's memory, kept for the searcher's life.
    memory: Vec<ThreadMemory>,
}

impl Searcher {
    /// A searcher with `config` and a hash table of `hash_mb` MB, its
    /// threads' memory made now (more is made should `config` later ask
    /// for more threads).
    pub fn new(config: SearchConfig, hash_mb: usize) -> Searcher {
        let memory = std::iter::repeat_with(ThreadMemory::default)
            .take(config.threads.max(1))
            .collect();
        Searcher {
            config,
            tt: TranspositionTable::new(hash_mb),
            hash_mb,
            memory,
        }
    }

    /// The hash table's size as asked, in MB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// The settings searches run with.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the settings of the searches to come.
    pub fn set_config(&mut self, config: SearchConfig) {
        self.config = config;
    }

    /// Makes the hash table `mb` MB, when it is another size (its
    /// contents are lost then).
    pub fn set_hash_mb(&mut self, mb: usize) {
        if mb != self.hash_mb {
            self.tt = TranspositionTable::new(mb);
            self.hash_mb = mb;
        }
    }

    /// Empties the hash table.
    pub fn clear_hash(&self) {
        self.tt.clear();
    }

    /// Forgets everything learnt from earlier searches: the hash table and
    /// the move-ordering tables (a new game). The memory stays where it is
    /// (zeroed in place, not freed and made again).
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.memory.iter_mut().for_each(ThreadMemory::clear);
    }

    /// Searches `pos` (with the game history it carries) among its legal
    /// moves, or those of `limits.search_moves` that are legal, until
    /// `limits` say stop; progress goes to `reporter`.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        let root_moves: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| limits.search_moves.is_empty() || limits.search_moves.contains(m))
            .collect();
        let control = SearchControl::new(limits.ponder);
        self.search_among(pos, &root_moves, limits, &control, reporter)
    }

    /// Searches `pos` among `root_moves` (legal in `pos`), under `control`,
    /// which another thread may stop or tell of a `ponderhit`.
    pub fn search_among(
        &mut self,
        pos: &Position,
        root_moves: &[Move],
        limits: &Limits,
        control: &SearchControl,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        self.search_within(pos, root_moves, &limits.budget(), control, reporter)
    }

    /// Searches `pos` among `root_moves` within `budget`, worked out from
    /// the limits of a `go` once.
    pub(crate) fn search_within(
        &mut self,
        pos: &Position,
        root_moves: &[Move],
        budget: &Budget,
        control: &SearchControl,
        reporter: &dyn Reporter,
    ) -> SearchResult {
        search::search(
            pos,
            root_moves,
            &self.config,
            budget,
            &self.tt,
            control,
            reporter,
            &mut self.memory,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{SearchParams, Silent};

    #[test]
    fn the_search_reads_its_parameters() {
        let nodes = |params: SearchParams| {
            let config = SearchConfig {
                params,
                ..SearchConfig::default()
            };
            let mut searcher = Searcher::new(config, 1);
            searcher
                .search(&Position::start(), &Limits::depth(8), &Silent)
                .nodes
        };
        let wider = SearchParams {
            futility_base: 300,
            rfp_depth: 200,
            ..SearchParams::default()
        };
        assert_ne!(nodes(SearchParams::default()), nodes(wider));
    }
}
