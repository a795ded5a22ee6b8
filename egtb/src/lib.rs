//! Xiangqi endgame tables.
//!
//! - [`Material`]: which pieces each side has, named `KRKAABB` (stronger
//!   side first, kings included).
//! - [`Indexer`]: numbers a material's positions (index scheme
//!   [`INDEX_SCHEME`]), mirror images folded.
//! - [`Value`]: win, draw or loss with the distance to mate in plies.
//! - With the `generate` feature, [`generate`] solves a material by
//!   retrograde analysis.

mod answer;
pub mod file;
pub mod index;
pub mod material;
pub mod orient;
pub mod probe;
pub mod value;

#[cfg(feature = "generate")]
pub mod build;
#[cfg(feature = "generate")]
pub mod generate;
#[cfg(feature = "generate")]
pub mod jobs;
#[cfg(feature = "generate")]
pub mod verify;

pub use answer::{Answers, NoPreference, Preference};
pub use file::{TableError, TableFile, TableInfo};
pub use index::{Indexer, Placement, INDEX_SCHEME, MAX_PIECES};
pub use material::{Defenders, Material, MaterialClass, MaterialError};
pub use probe::{ProbeError, Tablebase};
pub use value::{Repetitions, Value, Wdl};
