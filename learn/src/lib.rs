//! The CPU trainer of the engine's learned evaluation ([`xqnnue`]).
//!
//! - Games, the data: self-play games as a compact binary record
//!   ([`GameRecord`]; [`write_header`] and [`write_game`] write a games
//!   file, [`read_games`] and [`read_games_until_damage`] read one, every
//!   move checked).
//! - Samples: quiet positions of those games with a search score and the
//!   game's result ([`Sample`]), gathered into a [`Dataset`] with a
//!   held-out split ([`Filter`]) from games files and reservoirs
//!   ([`read_games_file`]) and from game records.
//! - The model: its shape ([`Layout`]), the loss it is trained on
//!   ([`LossConfig`]), the float evaluation ([`evaluate`]) and its
//!   quantisation into an [`xqnnue::Network`] ([`quantise`],
//!   [`quantised_loss`]).
//! - Training: [`Trainer`], AdamW over batches spread across the cores
//!   ([`TrainConfig`]), validation, and resumable checkpoints, each file
//!   written whole or not at all ([`write_atomically`]).
//! - [`Reservoir`]: a uniform sample of every game ever played for
//!   training, small enough to commit, so data outlives a machine.
//!
//! No GPU and no framework: the net is small (1,260 sparse inputs, about
//! 26 active per perspective), so a forward pass is a few dozen column
//! sums, and a backward pass touches only the active columns.

mod data;
mod games;
mod model;
mod reservoir;
mod trainer;

pub use data::{
    game_samples, read_games_file, DamagedGamesFile, Dataset, Filter, GamesFileDamage,
    GamesFileError, Sample, MAX_PIECES,
};
pub use games::{
    check_header, read_games, read_games_until_damage, write_game, write_header, GameDamage,
    GameRecord, GamesError, NO_SCORE,
};
pub use model::{evaluate, quantise, quantised_loss, Layout, LossConfig};
pub use reservoir::{is_reservoir, Reservoir, ReservoirDamage, ReservoirError};
pub use trainer::{
    write_atomically, CheckpointError, EpochReport, GrowError, TrainConfig, Trainer,
};
