//! The endgame-table generator behind `egtbgen`: everything that writes or
//! checks tables, kept apart from the probing library (`xqegtb`), so that
//! the engine and the server link no generator code.
//!
//! - [`generate`]: solves one material by retrograde analysis, with the
//!   repetition rules, in memory or under a memory bound.
//! - [`build`]: builds a set of tables into a directory, each from the
//!   tables its captures lead into.
//! - [`verify`]: checks a table against its successors (the minimax rule).
//! - [`jobs`]: a table set as jobs for `make` or Slurm, with what each
//!   table is estimated to cost.
//! - [`cluster`]: what a set costs as a Slurm run on a cluster, its
//!   submission played out with measured job rates.

pub mod build;
pub mod cluster;
pub mod generate;
pub mod jobs;
pub mod verify;
