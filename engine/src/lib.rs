//! The xqengine library: everything behind the `xqengine` binary: the
//! search and evaluation, the engine facade, the UCCI/UCI session, the match
//! runner, and the tools that tune the evaluation (self-play data, Texel
//! tuning), perft and bench.

pub mod arena;
pub mod bench;
pub mod book;
pub mod datagen;
pub mod egtb;
pub mod engine;
pub mod eval;
pub mod huge;
pub mod perft_cmd;
pub mod protocol;
pub mod search;
pub mod session;
pub mod tt;
pub mod tune;
