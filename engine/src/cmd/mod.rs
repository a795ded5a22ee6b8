//! The `xqengine` commands besides the protocol loop, one module each.

use xqcli::Failure;
use xqcore::Position;
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
    engine.set_default_data(
        xqcli::data::default_book().into_iter().collect(),
        xqcli::data::default_egtb_dir().into_iter().collect(),
    );
    engine
}

/// The position of `--fen`, or the start (`perft`, `judge`).
///
/// # Errors
///
/// A FEN that does not read (exit status 2).
pub fn start(fen: Option<&str>) -> xqcli::Result<Position> {
    match fen {
        None => Ok(Position::start()),
        Some(fen) => Position::from_fen(fen).map_err(|e| Failure::usage(format!("bad --fen: {e}"))),
    }
}
