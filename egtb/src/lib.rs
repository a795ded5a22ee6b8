//! Xiangqi endgame tables.
//!
//! Probing, for the engine, the tools and the server:
//!
//! - [`Material`]: which pieces each side has, named `KRKAABB` (stronger
//!   side first, kings included); [`MaterialClass`] selects many.
//! - [`Value`]: win, draw or loss with the distance to mate in plies
//!   ([`Wdl`] without it); results by the repetition rules count from
//!   [`RULE_DTM`] and [`CHASE_DTM`] up, and read as draws under rules that
//!   do not score them ([`Repetitions`]).
//! - [`Tablebase`]: table files found in directories, opened on first
//!   probe (or all at once, [`Tablebase::open_all`]); [`Answers`]
//!   ([`Tablebase::under`]): what they say under the repetition rules a
//!   game is played by: values, ranked moves, the best move, the line to
//!   the end.
//!
//! The table file and its index, for the generator and for tools that
//! read a table whole:
//!
//! - [`TableFile`]: one table file, checked on opening; [`TableInfo`] its
//!   parameters and counts; [`write_table`] and [`write_table_with`] write
//!   one (rule set [`rules_for`] a material).
//! - [`Indexer`]: numbers a material's positions (index scheme
//!   [`INDEX_SCHEME`]), mirror images folded, as [`Placement`]s of its
//!   pieces; [`table_of`], [`placement_of`], [`side_of`] and [`board_of`]
//!   go between boards and placements in a table's orientation.
//!
//! The retrograde generator that writes the tables is `egtbgen`'s
//! library: nothing here solves a table.

mod answer;
mod file;
mod index;
mod material;
mod metric;
mod orient;
mod probe;
mod value;

pub use answer::{Answers, NoPreference, Preference};
pub use file::{
    rules_for, write_table, write_table_with, EncodeBatch, EncodedBlock, SideStats, TableCodes,
    TableError, TableFile, TableInfo, BLOCK_RECORDS, EXTENSION, RULES_AS_GAMES,
    RULES_CHECK_AND_CHASE, RULES_PERPETUAL_CHECK, TABLE_KIND,
};
pub use index::{mirror_square, Indexer, Placement, SlotPiece, INDEX_SCHEME, MAX_PIECES};
pub use material::{
    color_of_side, table_piece, Defenders, Material, MaterialClass, MaterialError, WRITING_ORDER,
};
pub use metric::{
    dtc_side_to_store, write_dtc, write_wdl, Dtc, Metric, MetricFile, MetricInfo, MetricStats,
    BOTH_SIDES, DTC_BLOCK_RECORDS, DTC_KIND, MAX_DTC, MAX_ORDER, WDL_BLOCK_RECORDS, WDL_KIND,
};
pub use orient::{board_of, placement_of, side_of, table_of};
pub use probe::{ProbeError, Tablebase};
pub use value::{Repetitions, Value, Wdl, CHASE_DTM, INVALID, MAX_DTM, RULE_DTM};
