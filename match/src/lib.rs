//! Engine-against-engine matches and tournaments for xiangqi, the library
//! behind `xqmatch`.
//!
//! - [`protocol`]: the text of UCCI and UCI as a match runner speaks it.
//! - [`engine`]: engine processes, the protocol told or found out at the
//!   handshake ([`EngineSpec`], [`EngineProcess`]).
//! - [`game`]: one game with each engine's time control ([`MoveLimit`]),
//!   ended by the rules ([`xqcore::Position::outcome`]), by the referee
//!   ([`Termination`]), by the engines' agreeing scores
//!   ([`ScoreAdjudication`]) or by the endgame tables.
//! - [`Opening`]: where games start, read from openings files, EPD files
//!   and game records by [`xqrecords::openings`] (re-exported here).
//! - [`tournament`]: who plays whom, with which colour and opening
//!   ([`Pairings`]: round robin or gauntlet, rounds, game pairs).
//! - [`run`]: a whole tournament, games on several threads, counted as
//!   they finish, resumed from earlier results, stopped by an SPRT or an
//!   interrupt ([`run_tournament`]).
//! - [`spsa`]: tuning an engine's parameters by games of two perturbed
//!   copies ([`Spsa`], [`run_spsa`]).
//! - [`stats`], [`rating`], [`report`], [`pgn`]: scores with their Elo
//!   intervals, game pairs and the SPRT; ratings fitted on all games; the
//!   lines the command prints; the games as PGN, written and read back.

pub mod engine;
pub mod game;
pub mod pgn;
pub mod protocol;
pub mod rating;
pub mod report;
pub mod run;
pub mod settings;
pub mod spsa;
pub mod stats;
pub mod tournament;

pub use engine::{EngineError, EngineProcess, EngineSpec, Memory};
pub use game::{
    adjudicate, adjudicate_by_tables, play_game, BadTimeControl, DrawRule, GameRecord, MatchConfig,
    MoveLimit, MoveStats, ResignRule, ScoreAdjudication, Termination,
};
pub use protocol::{
    read_answer, read_info, Answer, ClockReading, EngineOption, EngineScore, InfoLine,
    NamelessOption, Protocol, UnknownProtocol,
};
pub use rating::{fit_ratings, Crosstable, Rating};
pub use run::{
    run_tournament, CallbackError, FinishedGame, MatchError, PlayedGame, Player, Results,
    SprtDecision, TournamentReport, TournamentSpec,
};
pub use settings::{EngineSettings, SettingsError};
pub use spsa::{
    read_params, run_spsa, PairOutcome, Param, Schedule, Spsa, SpsaError, SpsaFileError, SpsaGames,
};
pub use stats::{GameScore, Pentanomial, Sprt, SprtVerdict, Tally};
pub use tournament::{Format, OpeningOrder, Pairings, ScheduledGame};
pub use xqrecords::openings::{
    bundled_openings, load_openings, read_any_openings, read_openings, read_openings_file, Opening,
    OpeningsRead, BUNDLED_OPENINGS,
};
