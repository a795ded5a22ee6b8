//! Xiangqi endgame tables.
//!
//! - [`Material`]: which pieces each side has, named `KRKAABB` (stronger
//!   side first, kings included).
//! - [`Indexer`]: numbers a material's positions (index scheme
//!   [`INDEX_SCHEME`]), mirror images folded.
//! - [`Value`]: win, draw or loss with the distance to mate in plies.
//! - [`Tablebase`]: table files found in directories, opened on first
//!   probe; [`Answers`] ([`Tablebase::under`]): what they say under the
//!   repetition rules a game is played by: values, ranked moves, the best
//!   move, the line to the end.
//!
//! The retrograde generator that writes the tables is `egtbgen`'s
//! library: nothing here solves a table.

mod answer;
pub mod file;
pub mod index;
pub mod material;
pub mod orient;
pub mod probe;
pub mod value;

pub use answer::{Answers, NoPreference, Preference};
pub use file::{TableError, TableFile, TableInfo};
pub use index::{Indexer, Placement, INDEX_SCHEME, MAX_PIECES};
pub use material::{Defenders, Material, MaterialClass, MaterialError};
pub use probe::{ProbeError, Tablebase};
pub use value::{Repetitions, Value, Wdl};
