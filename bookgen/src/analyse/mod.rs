//! `bookgen analyse`: every book position and every position a book move
//! leads to searched by the engine at a fixed budget, on all cores; the
//! book grown where the search's best move is not in it; the scores backed
//! up through the book ([`xqbook::back_up`]) and written beside it
//! ([`xqbook::Analysis`]).
//!
//! Each search's result is appended to a journal as soon as it is known,
//! so a run killed at any moment resumes where it stopped, losing only the
//! searches under way (the journal module says how). The searches are
//! deterministic (one thread, a cleared hash table, a node or depth
//! budget), and growing depends only on their results, so a resumed run
//! grows the book exactly as an unbroken one.
//!
//! The parts: [`AnalyseConfig`] says how to analyse; the searches
//! (`searches`: the settings they share, [`Searches`], and each search to
//! make) are what the work planner (`work`) asks for, keeping the book as a
//! graph and deciding what to search next; the search pool (`pool`) makes
//! a round of searches on every thread, each with a worker (`worker`: our
//! engine, another program, or the endgame tables); sharding ([`Shard`])
//! splits the searching between machines and the job scripts (`jobs`:
//! [`makefile`], [`slurm`]) run the shards and the merge.

mod config;
mod jobs;
mod pool;
mod searches;
mod shard;
mod work;
mod worker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use xqbook::{
    analysis_path, back_up, write_analysis, AnalysisHeader, Book, BookId, PositionAnalysis,
};

pub use crate::budget::Budget;
pub use crate::error::AnalyseError;
pub use crate::journal::JournalError;
pub use config::{engine_name, net_name, AnalyseConfig, Refine, Together, TOGETHER_WINDOW};
pub use jobs::{makefile, slurm};
pub(crate) use pool::search_all;
pub use searches::Searches;
pub(crate) use searches::{company_key, Job};
pub use shard::Shard;
pub use worker::TABLES_DEPTH;

use crate::journal::Journal;
use shard::merge_shards;
use work::Work;

/// Where the work stands, for a progress bar.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Positions searched of those known so far to need a search.
    pub searched: usize,
    pub to_search: usize,
    /// Moves the analysis added so far.
    pub grown: usize,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct AnalyseSummary {
    /// Book positions analysed (with moves), the added ones included.
    pub positions: usize,
    /// Their moves, and of those the moves the analysis added.
    pub moves: usize,
    pub grown: usize,
    /// Positions searched in all, and of those by this run.
    pub searched: usize,
    pub searched_now: usize,
    /// Nodes this run searched.
    pub nodes: u64,
    /// The analysis file and its bytes.
    pub output: PathBuf,
    pub bytes: u64,
}

/// The journal of an analysis written to `output`.
pub fn journal_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// Analyses `book`, writing the analysis to `output` (default: beside the
/// book, [`analysis_path`]) and its journal beside that. `stop` ends the
/// run early (the journal keeps what was done); `progress` sees the work
/// after every search.
///
/// # Errors
///
/// The journal (or a shard's) holds another engine's or net's searches,
/// or cannot be read or written; the analysis cannot be written; the run
/// was stopped.
pub fn analyse(
    book: &Book,
    output: Option<&Path>,
    cfg: &AnalyseConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<AnalyseSummary, AnalyseError> {
    let output = output.map_or_else(|| analysis_path(book.path()), Path::to_path_buf);
    let settings = cfg.search_settings();
    let journal_at = match cfg.shard {
        Some(shard) => shard.journal(&output),
        None => journal_path(&output),
    };
    let (mut journal, done) = Journal::open(&journal_at, &settings)?;
    let mut work = Work::of_book(book);
    for (start, moves) in &cfg.grow_from {
        work.add_line(start, moves, cfg.grow_plies);
    }
    let mut done = done;
    if cfg.shard.is_none() {
        merge_shards(&output, &settings, &mut journal, &mut done)?;
    }
    for (key, searched, budget) in done {
        work.known(key, searched, budget);
    }
    let mut summary = AnalyseSummary::default();
    let mut report = Progress::default();
    // Searching and growing until the book stops growing, then searching
    // and refining until the engine's lines settle: growing first, on the
    // results at each ply's own budget, grows the same book however much
    // refining a resumed run already knows.
    let mut refining = false;
    let mut together = Vec::new();
    loop {
        let mut todo = work.take_known_or_list(cfg);
        todo.append(&mut together);
        if let Some(shard) = cfg.shard {
            todo.retain(|job| shard.holds(job.key));
        }
        report.to_search = todo.len() + report.searched;
        report.grown = work.grown;
        progress(report);
        let (count, nodes) = search_all(
            &todo,
            &cfg.searches(),
            stop,
            &mut |key, searched, budget| {
                journal.append(key, searched, budget)?;
                work.found(key, searched, budget);
                report.searched += 1;
                progress(report);
                Ok(())
            },
        )?;
        summary.searched_now += count;
        summary.nodes += nodes;
        if stop.load(Ordering::Relaxed) {
            return Err(AnalyseError::Stopped);
        }
        // A shard searches its part of the book's own positions; growing
        // needs every result, so the merging run grows.
        if cfg.shard.is_some() {
            break;
        }
        if !refining {
            let budget = cfg.grow.saturating_sub(work.grown);
            if work.grow(cfg, budget) > 0 {
                continue;
            }
            refining = true;
        }
        // Every tier on the same analysis, again until none asks for more:
        // a deeper tier's results move the lines a shallower one follows.
        let changes: usize = cfg.refine.iter().map(|&r| work.refine(r)).sum();
        if changes > 0 {
            continue;
        }
        // Then the refined lines' moves scored together, again until that
        // changes nothing (refining again on the way).
        let Some(t) = cfg.together else { break };
        let changes;
        (together, changes) = work.together(t);
        if together.is_empty() && changes == 0 {
            break;
        }
    }
    summary.searched = work.graph.searched.len();
    if cfg.shard.is_some() {
        summary.output = journal_at;
        return Ok(summary);
    }
    write_backed_up(book, cfg, &work, output, summary)
}

/// Backs the scores up through the book as the analysis grew it and
/// writes them to `output`, with what `summary` says of them.
fn write_backed_up(
    book: &Book,
    cfg: &AnalyseConfig,
    work: &Work,
    output: PathBuf,
    mut summary: AnalyseSummary,
) -> Result<AnalyseSummary, AnalyseError> {
    let analysis = back_up(&work.graph, &work.roots);
    summary.positions = analysis.len();
    summary.moves = analysis.values().map(|a| a.moves.len()).sum();
    summary.grown = count_grown(&analysis);
    let header = AnalysisHeader {
        book: BookId::of(book),
        engine: engine_name(),
        net: cfg.net_name(),
        budget: cfg.budget_text(),
        searched: summary.searched as u64,
    };
    summary.bytes = write_analysis(&output, &header, &analysis)?;
    summary.output = output;
    Ok(summary)
}

/// The moves of an analysis that the analysis added to the book.
fn count_grown(analysis: &HashMap<u64, PositionAnalysis>) -> usize {
    analysis
        .values()
        .flat_map(|a| &a.moves)
        .filter(|m| !m.in_book)
        .count()
}
