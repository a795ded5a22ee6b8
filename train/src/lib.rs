//! Tools that train the engine's evaluation, kept out of the engine: the
//! engine crate knows nothing of them, and its default build has none of
//! their code.
//!
//! - [`datagen`]: self-play games searched in-process, recorded move by
//!   move with the search scores.
//! - [`games`] (from [`xqlearn`], the NNUE trainer): self-play games as a
//!   compact binary record (start, moves with scores, result; four bytes a
//!   ply), checked on reading.
//! - [`tune`]: Texel tuning of the evaluation weights against such data
//!   and game records.

pub mod datagen;
pub use xqlearn::games;
pub mod tune;
