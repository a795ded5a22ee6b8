//! The `xqengine` commands besides the protocol loop, one module each.

use xqengine::Engine;

pub mod bench;
pub mod judge;
pub mod listing;
pub mod perft;
pub mod solve;
pub mod xqmatch;

/// An engine that plays from the shipped data when no option names other
/// files: data/book.xqb and data/egtb, found under the working directory
/// or beside the executable ([`xqcli::data`]).
pub fn engine_with_shipped_data() -> Engine {
    let mut engine = Engine::new();
    engine.options.default_book_files = xqcli::data::default_book().into_iter().collect();
    engine.options.default_egtb_dirs = xqcli::data::default_egtb_dir().into_iter().collect();
    engine
}
