//! The xqengine library: everything behind the `xqengine` binary.
//!
//! For now it holds the perft driver; the search, the engine facade and the
//! UCCI/UCI front ends join it as they are built.

pub mod arena;
pub mod bench;
pub mod engine;
pub mod eval;
pub mod perft_cmd;
pub mod protocol;
pub mod search;
pub mod session;
pub mod tt;
