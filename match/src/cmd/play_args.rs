//! The command line of a match or tournament: the engines, their time
//! controls and options, the openings, the pairings, the adjudication and
//! the files written. [`super::setup`] turns it into a tournament and
//! [`super::play`] plays it.

use std::path::PathBuf;

use clap::{ArgAction, ValueEnum};
use xqmatch::{EngineOption, Pentanomial, Sprt};

use super::{AdjudicationArgs, ProtocolArg};

/// The arguments of a match or tournament (the program's own, without a
/// subcommand).
#[derive(clap::Args)]
pub struct PlayArgs {
    /// An engine of a tournament: `key=value` words, `cmd=COMMAND` (run by
    /// `sh -c`), `name=NAME`, `proto=ucci|uci`, a time control (`tc=40/60`,
    /// `tc=10+0.1`, `st=SECONDS` a move, `depth=N`, `nodes=N`) and options
    /// (`option.Hash=64`, `option.NAME` for a button). Repeat for each engine.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE",
          conflicts_with_all = ["engine1", "engine2", "option1", "option2", "proto1", "proto2"])]
    pub engine: Vec<String>,
    /// The words of each `--engine`, grouped (clap gives them flat).
    #[arg(skip)]
    pub engine_groups: Vec<Vec<String>>,
    /// Settings every `--engine` shares (the same words); an engine's own
    /// override them, its options come after these.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Command starting the first engine of a two-engine match (run by `sh -c`).
    #[arg(long, requires = "engine2")]
    pub engine1: Option<String>,
    /// Command starting the second engine.
    #[arg(long, requires = "engine1")]
    pub engine2: Option<String>,
    /// Protocol of the first engine (auto: ucci first, then uci).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    pub proto1: ProtocolArg,
    /// Protocol of the second engine.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    pub proto2: ProtocolArg,
    /// An option of the first engine, `NAME=VALUE` (`NAME` alone for a
    /// button), sent as the engine's protocol writes it: `--option1
    /// Hash=64` is `setoption name Hash value 64` in UCI, `--option1
    /// hashsize=64` is `setoption hashsize 64` in UCCI. Repeat for more.
    #[arg(long, value_name = "NAME=VALUE")]
    pub option1: Vec<EngineOption>,
    /// An option of the second engine.
    #[arg(long, value_name = "NAME=VALUE")]
    pub option2: Vec<EngineOption>,
    /// Who meets whom: every engine every other, the first engine each other one, or each
    /// engine the next one (a ladder of levels, listed weakest first).
    #[arg(long, value_enum, default_value_t = FormatArg::RoundRobin)]
    pub format: FormatArg,
    /// Times every encounter is played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Games of each encounter in each round (colours alternate on each
    /// opening); the number of games of a two-engine match.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Games played at once, each with its own engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    /// Time control of every engine without its own: [MOVES/]BASE[+INC]
    /// in seconds (`10+0.1`, `40/60`).
    #[arg(long, default_value = "10+0.1", conflicts_with_all = ["depth", "nodes"])]
    pub tc: String,
    /// Search every move to this depth (`go depth D`) instead of using a clock;
    /// a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "nodes")]
    pub depth: Option<u32>,
    /// Search every move this many nodes (`go nodes N`) instead of using a
    /// clock; a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Where games start, told by the extension: `.pgn` or `.xqf` game
    /// records (each game's start and moves), `.epd` positions, or else one
    /// opening a line, ICCS moves from the start or `fen FEN [moves ...]`
    /// [default: the 60 bundled lines of data/openings.txt].
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// The order openings are taken in: the file's, or shuffled by `--seed`.
    #[arg(long, value_enum, default_value_t = OrderArg::Sequential)]
    pub openings_order: OrderArg,
    /// Seed of the shuffled opening order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Cut every opening to its first PLIES moves.
    #[arg(long, value_name = "PLIES")]
    pub openings_plies: Option<usize>,
    /// Milliseconds a timed move may run over its clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    pub tolerance: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    /// Append every finished game to this file as PGN.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Go on with the tournament whose games `--pgn` holds: its games are
    /// counted, not played again (the same command line must be given).
    #[arg(long, requires = "pgn")]
    pub resume: bool,
    /// Append every finished game's result to this file as a line of JSON
    /// (number, engines, result, reason, plies, opening).
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Sequential probability ratio test of H0 "Elo = ELO0" against H1
    /// "Elo = ELO1" (alpha = beta = 0.05) on the pairs of games of a
    /// two-engine match; no new game starts once it decides.
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<Sprt>,
    /// Go on with an SPRT whose games are lost: the pairs it had counted,
    /// as `docs` record them (LL/LD/DD/WD/WW, e.g. 63/146/228/156/60), count
    /// in its LLR as if played in this run. The engines, the time control
    /// and the bounds must be the earlier run's; take another `--seed` so
    /// that the openings are new.
    #[arg(long, value_name = "PAIRS", requires = "sprt")]
    pub sprt_earlier: Option<Pentanomial>,
    #[command(flatten)]
    pub adjudication: AdjudicationArgs,
    /// Adjudicate by the endgame tables in this directory (repeat for more):
    /// a position they hold ends the game, drawn at once, won when the mate
    /// comes within the natural-move limit.
    #[arg(long, value_name = "DIR")]
    pub tables: Vec<PathBuf>,
    /// Print the standings and the crosstable after every N games (with
    /// more than two engines; 0: at the end only).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub report_every: usize,
    /// Keep each pair of engine processes for all the games it plays (a new
    /// game announced between games) instead of fresh ones every game: an
    /// endurance test. Each game line then ends with both engines' memory.
    #[arg(long)]
    pub keep_engines: bool,
}

/// `--format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    RoundRobin,
    Gauntlet,
    Ladder,
}

/// `--openings-order`.
#[derive(Clone, Copy, ValueEnum)]
pub enum OrderArg {
    Sequential,
    Random,
}
