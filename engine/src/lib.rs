//! The xqengine library: everything behind the `xqengine` binary.
//!
//! For now it holds the perft driver; the search, the engine facade and the
//! UCCI/UCI front ends join it as they are built.

pub mod perft_cmd;
