//! The endgame-table generator behind `egtbgen`: everything that writes or
//! checks tables, kept apart from the probing library (`xqegtb`), so that
//! the engine and the server link no generator code.
//!
//! - Solving: [`solve`] solves one material by retrograde analysis, with
//!   the repetition rules, in memory ([`Solution`]), given the values of
//!   the tables its captures lead into ([`Lookup`], [`Solutions`]);
//!   [`solve_in`] under a memory bound, its large arrays in [`Scratch`]
//!   files.
//! - Building: [`plan`] puts a set of tables in dependency order,
//!   [`build`] and [`build_bounded`] write them into a directory
//!   ([`table_path`]), each from the tables its captures lead into,
//!   reporting [`Event`]s as they go.
//! - Checking: [`verify`] checks a table against its successors (the
//!   minimax rule), read with [`load_with_captures`].
//! - [`jobs`]: a table set as jobs for `make` or Slurm, with what each
//!   table is estimated to cost.
//! - [`cluster`]: what a set costs as a Slurm run on a cluster, its
//!   submission played out with measured job rates.

mod build;
pub mod cluster;
mod generate;
pub mod jobs;
mod verify;

pub use build::{
    build, build_bounded, build_metrics, metric_path, plan, table_path, BuildError, Event,
    MemoryBound, Summary, DEFAULT_METRICS,
};
pub use generate::{
    solve, solve_in, solve_metrics, working_bytes, DtcCells, DtcCodes, Lookup, Progress, Scratch,
    Solution, Solutions, SolveError, Solved, Table, MAX_VICTIMS,
};
pub use verify::{
    load_with_captures, verify, verify_dtc, verify_wdl, LoadError, MetricMismatch, MetricReport,
    Mismatch, VerifyReport,
};
