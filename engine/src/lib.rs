//! The xqengine library: a xiangqi engine without its binary. Most
//! programs want one of two doors:
//!
//! - [`Engine`]: the whole engine as a GUI drives it: a position with its
//!   history, options, the book and the endgame tables at the root, and
//!   one search at a time on its own thread. The UCCI/UCI [`Session`] and
//!   the `xqengine` binary are text around it. The library plays from the
//!   book files and table directories it is given
//!   ([`Engine::set_default_data`], `bookfiles`, `egtbpaths`); where the
//!   shipped data lies is the binary's business.
//! - [`Searcher`]: the search alone, reusable from search to search: a
//!   position and [`Limits`] in, a [`SearchResult`] (best move, score,
//!   line) out, with progress through a [`Reporter`]. The analysis server
//!   and self-play use it.
//!
//! [`bench`](mod@bench) is the search's signature; [`puzzles`] test
//! positions with a known answer; [`hce`] the hand-crafted
//! evaluation's terms, for tuning them. The match runner is `xqmatch`;
//! self-play data and training are `xqtrain`'s.

mod answer;
pub mod bench;
mod book;
mod egtb;
mod engine;
mod eval;
mod huge;
mod options;
mod output;
mod protocol;
pub mod puzzles;
mod score;
mod search;
mod searcher;
mod session;
mod settings;
pub mod strength;
mod time;
mod tt;
pub mod wdl;
mod xboard;

pub use answer::BestMove;
pub use book::{BookCandidate, BookChoice, BookVariety};
pub use egtb::EvalPreference;
pub use engine::Engine;
pub use eval::{Evaluation, Knowledge};
pub use options::{
    all as all_options, find as find_option, BadValue, Clamped, OptionKind, OptionSpec,
    OptionValue, Setting, OPTIONS,
};
pub use output::Output;
pub use protocol::{parse as parse_command, Command, Dialect, GoContext, ProtocolError};
pub use score::{Score, MATE, MATE_BOUND};
pub use search::{
    Pruning, RepetitionRule, Reporter, SearchConfig, SearchInfo, SearchParams, SearchResult,
    Silent, Tunable, TUNABLES,
};
pub use searcher::Searcher;
pub use session::{run_stdio, Session};
pub use settings::EngineOptions;
pub use time::{Clock, Limits, SearchControl};

/// The hand-crafted evaluation's terms, for tuning their weights: an
/// evaluation is linear in them ([`hce::trace`]).
pub mod hce {
    pub use crate::eval::weights::WEIGHTS;
    pub use crate::eval::{evaluate, feature, trace, Trace, MAX_PHASE, S};
}
