//! Tools that train the engine's evaluation, kept out of the engine: the
//! engine crate knows nothing of them, and its default build has none of
//! their code.
//!
//! - [`datagen`]: self-play games searched in-process, recorded move by
//!   move with the search scores in the games files of [`xqlearn`] (the
//!   NNUE trainer, which reads them).
//! - [`tune`]: Texel tuning of the evaluation weights against such data
//!   and game records.
//! - [`wdl`]: the engine's win-draw-loss model fitted on such games.
//!
//! Each is a namespace of its own (`tune::tune`, `datagen::generate`),
//! used qualified.

pub mod datagen;
pub mod tune;
pub mod wdl;
