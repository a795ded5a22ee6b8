//! The xqengine library: everything behind the `xqengine` binary: the
//! search and evaluation, the transposition table, the engine facade, and
//! the UCCI/UCI protocol that drives it; `bench`, the search's signature.
//!
//! The tools around the engine live elsewhere: the match runner in
//! `xqmatch`, self-play data and tuning in `xqtrain`.

pub mod bench;
pub mod book;
pub mod egtb;
pub mod engine;
pub mod eval;
pub mod huge;
pub mod options;
pub mod protocol;
pub mod search;
pub mod session;
pub mod time;
pub mod tt;
