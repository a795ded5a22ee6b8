//! Engine-against-engine matches and tournaments for xiangqi, the library
//! behind `xqmatch`.
//!
//! - The text of UCCI and UCI as a match runner speaks it: [`Protocol`],
//!   [`EngineOption`], and the readers of engine output, [`read_info`] and
//!   [`read_answer`].
//! - Engine processes, the protocol told or found out at the handshake,
//!   their options checked: [`EngineSpec`], [`EngineProcess`].
//! - One game ([`play_game`]) with each engine's time control
//!   ([`MoveLimit`]), ended by the rules ([`xqcore::Position::outcome`]),
//!   by the referee ([`Termination`]), by the engines' agreeing scores
//!   ([`ScoreAdjudication`]) or by the endgame tables
//!   ([`adjudicate_by_tables`]). Games start from openings
//!   ([`xqrecords::Opening`], read by [`xqrecords::load_openings`]).
//! - Who plays whom, with which colour and opening: [`Pairings`] (round
//!   robin or gauntlet, rounds, game pairs), and the engines as a command
//!   line gives them ([`EngineSettings`]).
//! - A whole tournament, games on several threads, counted as they finish,
//!   resumed from earlier results, stopped by an SPRT or an interrupt:
//!   [`run_tournament`].
//! - Tuning an engine's parameters by games of two perturbed copies:
//!   [`Spsa`], [`run_spsa`].
//! - Scores with their Elo intervals, game pairs and the SPRT ([`Tally`],
//!   [`Pentanomial`], [`Sprt`]); ratings fitted on all games
//!   ([`fit_ratings`]).
//! - Two namespaces of their own: [`report`], the lines the command
//!   prints, and [`pgn`], the games as PGN, written and read back.

mod adjudication;
mod engine;
mod game;
pub mod pgn;
mod protocol;
mod rating;
mod record;
pub mod report;
mod run;
mod settings;
mod spsa;
mod stats;
mod time_control;
mod tournament;

pub use adjudication::{
    adjudicate, adjudicate_by_tables, BadRule, DrawRule, ResignRule, ScoreAdjudication,
};
pub use engine::{EngineError, EngineProcess, EngineSpec, Memory, Thought};
pub use game::{play_game, MatchConfig};
pub use protocol::{
    read_answer, read_info, Answer, ClockReading, EngineOption, EngineScore, InfoLine,
    NamelessOption, Protocol, UnknownProtocol,
};
pub use rating::{fit_ratings, Crosstable, Rating};
pub use record::{GameRecord, MoveStats, Termination};
pub use run::{
    run_tournament, CallbackError, FinishedGame, MatchError, PlayedGame, Player, Results,
    SprtDecision, TournamentReport, TournamentSpec,
};
pub use settings::{EngineSettings, SettingsError};
pub use spsa::{
    read_params, run_spsa, PairOutcome, Param, Probe, Schedule, Spsa, SpsaError, SpsaFileError,
    SpsaGames,
};
pub use stats::{
    BadBounds, BadPairs, Elo, EloEstimate, GameScore, Pentanomial, Sprt, SprtVerdict, Tally,
};
pub use time_control::{BadTimeControl, MoveLimit};
pub use tournament::{Format, OpeningOrder, Pairings, ScheduledGame};
