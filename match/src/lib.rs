//! Engine-against-engine matches for xiangqi, the library behind `xqmatch`.
//!
//! - [`protocol`]: the text of UCCI and UCI as a match runner speaks it.
//! - [`engine`]: engine processes, the protocol told or found out at the
//!   handshake ([`EngineSpec`], [`EngineProcess`]).
//! - [`game`]: one game with its clock, ended by the rules
//!   ([`xqcore::Position::outcome`]), by the referee ([`Termination`]) or
//!   by the engines' agreeing scores ([`ScoreAdjudication`]).
//! - [`Opening`]: where games start, read from openings files by
//!   [`xqrecords::openings`] (re-exported here).
//! - [`run`]: a whole match, games on several threads, counted as they
//!   finish, stopped by an SPRT ([`run_match`]).
//! - [`stats`], [`report`], [`pgn`]: the score with its Elo interval, the
//!   lines the command prints, and the games as PGN.

pub mod engine;
pub mod game;
pub mod pgn;
pub mod protocol;
pub mod report;
pub mod run;
pub mod stats;

pub use engine::{EngineError, EngineProcess, EngineSpec, Memory};
pub use game::{
    adjudicate, play_game, DrawRule, GameRecord, MatchConfig, MoveLimit, MoveStats, ResignRule,
    ScoreAdjudication, Termination,
};
pub use protocol::{
    read_answer, read_info, Answer, EngineOption, EngineScore, InfoLine, NamelessOption, Protocol,
    UnknownProtocol,
};
pub use run::{
    run_match, CallbackError, FinishedGame, MatchError, MatchReport, MatchSpec, SprtDecision,
};
pub use stats::{GameScore, Sprt, SprtVerdict, Tally};
pub use xqrecords::openings::{
    bundled_openings, load_openings, read_openings, read_openings_file, Opening, BUNDLED_OPENINGS,
};
