//! The commands of `xqtrain`, one module each, with the arguments each
//! takes: `main` parses the command line and hands it to one of them.

pub mod datagen;
pub mod loss;
pub mod nnue;
mod positions;
pub mod reservoir;
pub mod tune;
pub mod wdl;
