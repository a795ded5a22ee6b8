//! The CPU trainer of the engine's learned evaluation ([`xqnnue`]).
//!
//! - [`games`]: self-play games as a compact binary record, the data.
//! - [`data`]: training samples drawn from those games (quiet positions
//!   with a search score), with the game result and a held-out split.
//! - [`model`]: the float model, its sparse forward and backward passes,
//!   and its quantisation into an [`xqnnue::Network`].
//! - [`trainer`]: AdamW over batches spread across the cores, validation,
//!   and resumable checkpoints.
//! - [`reservoir`]: a uniform sample of every game ever played for
//!   training, small enough to commit, so data outlives a machine.
//!
//! No GPU and no framework: the net is small (1,260 sparse inputs, about
//! 26 active per perspective), so a forward pass is a few dozen column
//! sums, and a backward pass touches only the active columns.

pub mod data;
pub mod games;
pub mod model;
pub mod reservoir;
pub mod trainer;
