//! `xqmatch`: plays xiangqi engines against each other over UCCI or UCI,
//! two in a match or many in a tournament, and reports their scores.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum};
use xqcli::out;
use xqmatch::pgn::{self, read_played_games};
use xqmatch::{
    read_any_openings, report, run_tournament, DrawRule, EngineOption, EngineSettings,
    FinishedGame, Format, MatchConfig, MoveLimit, OpeningOrder, Pairings, Pentanomial, PlayedGame,
    Player, ResignRule, Results, ScoreAdjudication, Sprt, TournamentReport, TournamentSpec,
};
use xqmatch::{read_params, run_spsa, Schedule, Spsa, SpsaGames};

/// Play engines against each other and report their scores.
///
/// Two engines (`--engine1`, `--engine2`) play a match; any number
/// (`--engine` repeated) a round robin or a gauntlet. Each engine is a
/// command line run by `sh -c`, spoken to in UCCI or UCI (found out at the
/// handshake unless told). Each opening is played twice in an encounter,
/// once with each colour. Games end by the rules (no legal move loses,
/// perpetual check or perpetual chase loses at the third repetition, other
/// repetitions draw, 120 plies without capture draw), at the length cap
/// (draw), by an illegal move, a resignation, a flag fall or an engine
/// failure (loss), or, when asked, by the engines' scores (`--resign`,
/// `--draw`) or the endgame tables (`--tables`). An engine that crashes,
/// hangs or answers garbage loses that game and is started afresh.
/// Ctrl-C stops the tournament (a second one at once): no finished game is
/// lost, and `--resume` goes on from the PGN.
#[derive(Parser)]
#[command(name = "xqmatch", version, args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Subcommand>,
    /// An engine of a tournament: `key=value` words, `cmd=COMMAND` (run by
    /// `sh -c`), `name=NAME`, `proto=ucci|uci`, a time control (`tc=40/60`,
    /// `tc=10+0.1`, `st=SECONDS` a move, `depth=N`, `nodes=N`) and options
    /// (`option.Hash=64`, `option.NAME` for a button). Repeat for each engine.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE",
          conflicts_with_all = ["engine1", "engine2", "option1", "option2", "proto1", "proto2"])]
    engine: Vec<String>,
    /// The words of each `--engine`, grouped (clap gives them flat).
    #[arg(skip)]
    engine_groups: Vec<Vec<String>>,
    /// Settings every `--engine` shares (the same words); an engine's own
    /// override them, its options come after these.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    each: Vec<String>,
    /// Command starting the first engine of a two-engine match (run by `sh -c`).
    #[arg(long, requires = "engine2")]
    engine1: Option<String>,
    /// Command starting the second engine.
    #[arg(long, requires = "engine1")]
    engine2: Option<String>,
    /// Protocol of the first engine (auto: ucci first, then uci).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    proto1: ProtocolArg,
    /// Protocol of the second engine.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    proto2: ProtocolArg,
    /// An option of the first engine, `NAME=VALUE` (`NAME` alone for a
    /// button), sent as the engine's protocol writes it: `--option1
    /// Hash=64` is `setoption name Hash value 64` in UCI, `--option1
    /// hashsize=64` is `setoption hashsize 64` in UCCI. Repeat for more.
    #[arg(long, value_name = "NAME=VALUE")]
    option1: Vec<EngineOption>,
    /// An option of the second engine.
    #[arg(long, value_name = "NAME=VALUE")]
    option2: Vec<EngineOption>,
    /// Who meets whom: every engine every other, or the first engine each other one.
    #[arg(long, value_enum, default_value_t = FormatArg::RoundRobin)]
    format: FormatArg,
    /// Times every encounter is played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// Games of each encounter in each round (colours alternate on each
    /// opening); the number of games of a two-engine match.
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Games played at once, each with its own engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Time control of every engine without its own: [MOVES/]BASE[+INC]
    /// in seconds (`10+0.1`, `40/60`).
    #[arg(long, default_value = "10+0.1", conflicts_with_all = ["depth", "nodes"])]
    tc: String,
    /// Search every move to this depth (`go depth D`) instead of using a clock;
    /// a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "nodes")]
    depth: Option<u32>,
    /// Search every move this many nodes (`go nodes N`) instead of using a
    /// clock; a move that takes over 60 s loses by engine failure.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Where games start, told by the extension: `.pgn` or `.xqf` game
    /// records (each game's start and moves), `.epd` positions, or else one
    /// opening a line, ICCS moves from the start or `fen FEN [moves ...]`
    /// [default: the 60 bundled lines of data/openings.txt].
    #[arg(long)]
    openings: Option<PathBuf>,
    /// The order openings are taken in: the file's, or shuffled by `--seed`.
    #[arg(long, value_enum, default_value_t = OrderArg::Sequential)]
    openings_order: OrderArg,
    /// Seed of the shuffled opening order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cut every opening to its first PLIES moves.
    #[arg(long, value_name = "PLIES")]
    openings_plies: Option<usize>,
    /// Milliseconds a timed move may run over its clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    tolerance: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: u32,
    /// Append every finished game to this file as PGN.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Go on with the tournament whose games `--pgn` holds: its games are
    /// counted, not played again (the same command line must be given).
    #[arg(long, requires = "pgn")]
    resume: bool,
    /// Append every finished game's result to this file as a line of JSON
    /// (number, engines, result, reason, plies, opening).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Sequential probability ratio test of H0 "Elo = ELO0" against H1
    /// "Elo = ELO1" (alpha = beta = 0.05) on the pairs of games of a
    /// two-engine match; no new game starts once it decides.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt)]
    sprt: Option<Sprt>,
    /// Go on with an SPRT whose games are lost: the pairs it had counted,
    /// as `docs` record them (LL/LD/DD/WD/WW, e.g. 63/146/228/156/60), count
    /// in its LLR as if played in this run. The engines, the time control
    /// and the bounds must be the earlier run's; take another `--seed` so
    /// that the openings are new.
    #[arg(long, value_name = "PAIRS", requires = "sprt", value_parser = parse_pairs)]
    sprt_earlier: Option<Pentanomial>,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    /// Adjudicate by the endgame tables in this directory (repeat for more):
    /// a position they hold ends the game, drawn at once, won when the mate
    /// comes within the natural-move limit.
    #[arg(long, value_name = "DIR")]
    tables: Vec<PathBuf>,
    /// Print the standings and the crosstable after every N games (with
    /// more than two engines; 0: at the end only).
    #[arg(long, default_value_t = 10, value_name = "N")]
    report_every: usize,
    /// Keep each pair of engine processes for all the games it plays (a new
    /// game announced between games) instead of fresh ones every game: an
    /// endurance test. Each game line then ends with both engines' memory.
    #[arg(long)]
    keep_engines: bool,
}

#[derive(clap::Subcommand)]
enum Subcommand {
    Spsa(SpsaArgs),
}

/// Tune an engine's parameters by SPSA: two copies of the engine, every
/// parameter moved up in one and down in the other by a random sign, play
/// a pair of games (one opening, each colour once); the parameters move
/// towards the copy that scored more. The engine must take each parameter
/// as an option (`xqengine` built with `--features tune`; `xqengine
/// params` prints its parameter file). The state is saved after every
/// batch of pairs; run the same command again to go on. Ctrl-C stops after
/// saving.
#[derive(clap::Args)]
struct SpsaArgs {
    /// Command starting the engine (run by `sh -c`).
    #[arg(long)]
    engine: String,
    /// Protocol of the engine (auto: ucci first, then uci).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    proto: ProtocolArg,
    /// An option both copies get before the tuned ones, `NAME=VALUE`. Repeat for more.
    #[arg(long, value_name = "NAME=VALUE")]
    option: Vec<EngineOption>,
    /// The parameters to tune, one a line: `name value min max step` (the
    /// step is the probe size at the end). Read when the state file does
    /// not exist yet.
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// The tuner's state: read and continued when it exists, written after
    /// every batch; its parameter lines are the current values.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Planned iterations (game pairs) of a new run: the gains shrink over them.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Play at most this many pairs in this run [default: to the end].
    #[arg(long)]
    pairs: Option<u32>,
    /// Learning rate at the end, relative to each step squared (new runs).
    #[arg(long, default_value_t = 0.002)]
    r_end: f64,
    /// Time control: [MOVES/]BASE[+INC] in seconds.
    #[arg(long, default_value = "2+0.02", conflicts_with = "nodes")]
    tc: String,
    /// Search every move this many nodes instead of using a clock.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Milliseconds a timed move may run over its clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    tolerance: u64,
    /// Where games start, as for a match [default: the 60 bundled lines].
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Cut every opening to its first PLIES moves.
    #[arg(long, value_name = "PLIES")]
    openings_plies: Option<usize>,
    /// Pairs played at once (two engine processes each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Seed of the perturbations and the openings (new runs).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: u32,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
}

/// `--resign` and `--draw`, of a match and of `spsa`.
#[derive(clap::Args)]
struct AdjudicationArgs {
    /// Adjudicate a win once both engines have scored it at least SCORE cp
    /// for the same side on each of their last MOVES moves (cutechess-cli's
    /// `-resign`, but both engines must agree), e.g. `movecount=3,score=600`.
    #[arg(long, value_name = "movecount=MOVES,score=SCORE", value_parser = parse_resign)]
    resign: Option<ResignRule>,
    /// Adjudicate a draw once, from move NUMBER on, both engines have scored
    /// the game within SCORE cp of zero on each of their last MOVES moves
    /// (cutechess-cli's `-draw`), e.g. `movenumber=30,movecount=8,score=10`.
    #[arg(
        long,
        value_name = "movenumber=NUMBER,movecount=MOVES,score=SCORE",
        value_parser = parse_draw
    )]
    draw: Option<DrawRule>,
}

impl AdjudicationArgs {
    fn rules(&self) -> ScoreAdjudication {
        ScoreAdjudication {
            resign: self.resign,
            draw: self.draw,
        }
    }
}

/// The tuner of `args`: its saved state, or a new one from `--params`.
fn spsa_state(args: &SpsaArgs) -> Result<Spsa, String> {
    let state = &args.state;
    match std::fs::read_to_string(state) {
        Ok(text) => {
            return Spsa::from_text(&text).map_err(|e| format!("--state {}: {e}", state.display()))
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("--state {}: {e}", state.display()))
        }
        Err(_) => {}
    }
    let path = args.params.as_ref().ok_or_else(|| {
        format!(
            "--state {} does not exist yet: give --params FILE to start",
            state.display()
        )
    })?;
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--params {}: {e}", path.display()))?;
    let params = read_params(&text).map_err(|e| format!("--params {}: {e}", path.display()))?;
    let mut schedule = Schedule::new(args.iterations);
    schedule.r_end = args.r_end;
    Ok(Spsa::new(params, schedule, args.seed))
}

/// The openings of `--openings` (or the bundled ones), cut to `plies`.
fn openings_of(path: Option<&Path>, plies: Option<usize>) -> Result<Vec<xqmatch::Opening>, String> {
    let mut openings = match path {
        Some(path) => {
            let read = read_any_openings(path).map_err(|e| e.to_string())?;
            if let Some(first) = read.skipped.first() {
                eprintln!(
                    "xqmatch: {}: {} games skipped (the first: {first})",
                    path.display(),
                    read.skipped.len()
                );
            }
            read.openings
        }
        None => xqmatch::bundled_openings(),
    };
    if let Some(plies) = plies {
        openings = openings.into_iter().map(|o| o.truncated(plies)).collect();
    }
    Ok(openings)
}

/// `xqmatch spsa`.
fn spsa(args: &SpsaArgs) -> ExitCode {
    let setup = || -> Result<_, String> {
        let spsa = spsa_state(args)?;
        let openings = openings_of(args.openings.as_deref(), args.openings_plies)?;
        if openings.is_empty() {
            return Err("no opening to play".into());
        }
        let tolerance = Duration::from_millis(args.tolerance);
        let limit = match args.nodes {
            Some(n) => MoveLimit::Nodes(n),
            None => {
                MoveLimit::parse_clock(&args.tc, tolerance).map_err(|e| format!("--tc: {e}"))?
            }
        };
        Ok((spsa, openings, limit))
    };
    let (mut state, openings, limit) = match setup() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("xqmatch spsa: {e}");
            return ExitCode::from(2);
        }
    };
    let engine = xqmatch::EngineSpec {
        command: args.engine.clone(),
        protocol: args.proto.protocol(),
        options: args.option.clone(),
    };
    let config = MatchConfig {
        score_adjudication: args.adjudication.rules(),
        max_plies: args.max_plies as usize,
        ..MatchConfig::default()
    };
    let games = SpsaGames {
        engine: &engine,
        openings: &openings,
        limit,
        config: &config,
        concurrency: args.concurrency as usize,
    };
    let stop = stop_on_interrupt();
    let n = state.schedule.iterations;
    out!(
        "spsa: {} parameters, pair {} of {n}",
        state.params.len(),
        state.iteration
    );
    let ran = run_spsa(
        &mut state,
        &games,
        args.pairs.unwrap_or(u32::MAX),
        stop,
        |spsa, batch| {
            for o in batch {
                out!(
                    "pair {} of {n}: {:+} (plus as Red {}, as Black {})",
                    o.probe.iteration + 1,
                    o.result,
                    o.results[0],
                    o.results[1]
                );
            }
            let values: Vec<String> = spsa
                .params
                .iter()
                .map(|p| format!("{}={:.1}", p.name, p.value))
                .collect();
            out!("after {}: {}", spsa.iteration, values.join(" "));
            spsa.save(&args.state)
                .map_err(|e| format!("--state {}: {e}", args.state.display()))
        },
    );
    if let Err(e) = ran {
        eprintln!("xqmatch spsa: {e}");
        return ExitCode::FAILURE;
    }
    if !state.finished() {
        eprintln!(
            "xqmatch spsa: stopped after pair {} of {n}; run the same command to go on",
            state.iteration
        );
    }
    ExitCode::SUCCESS
}

/// `--proto1`, `--proto2`.
#[derive(Clone, Copy, ValueEnum)]
enum ProtocolArg {
    Auto,
    Ucci,
    Uci,
}

impl ProtocolArg {
    fn protocol(self) -> Option<xqmatch::Protocol> {
        match self {
            ProtocolArg::Auto => None,
            ProtocolArg::Ucci => Some(xqmatch::Protocol::Ucci),
            ProtocolArg::Uci => Some(xqmatch::Protocol::Uci),
        }
    }
}

/// `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    RoundRobin,
    Gauntlet,
}

/// `--openings-order`.
#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Sequential,
    Random,
}

fn parse_pairs(text: &str) -> Result<Pentanomial, String> {
    let counts: Option<Vec<u32>> = text.split('/').map(|n| n.trim().parse().ok()).collect();
    counts
        .and_then(|counts| counts.try_into().ok())
        .map(|counts| Pentanomial { counts })
        .ok_or_else(|| format!("'{text}' is not five counts of pairs LL/LD/DD/WD/WW"))
}

fn parse_sprt(text: &str) -> Result<Sprt, String> {
    let bounds = text
        .split_once(',')
        .and_then(|(elo0, elo1)| Some((elo0.trim().parse().ok()?, elo1.trim().parse().ok()?)));
    bounds
        .and_then(|(elo0, elo1)| Sprt::new(elo0, elo1))
        .ok_or_else(|| format!("'{text}' is not ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,5)"))
}

/// `key=value,key=value` pairs with exactly the keys `keys`, in any order:
/// their values in the order of `keys`.
fn parse_settings<const N: usize>(text: &str, keys: [&str; N]) -> Result<[i64; N], String> {
    let mut values = [None; N];
    for pair in text.split(',') {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("'{pair}' is not key=value"))?;
        let slot = keys
            .iter()
            .position(|k| *k == key.trim())
            .ok_or_else(|| format!("unknown key '{}' (keys: {})", key.trim(), keys.join(", ")))?;
        let number = value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|v| (0..=1_000_000).contains(v))
            .ok_or_else(|| format!("{key}: '{value}' is not a number from 0 to 1000000"))?;
        values[slot] = Some(number);
    }
    let mut all = [0; N];
    for (i, value) in values.iter().enumerate() {
        all[i] = value.ok_or_else(|| format!("{} is missing", keys[i]))?;
    }
    Ok(all)
}

fn parse_resign(text: &str) -> Result<ResignRule, String> {
    let [moves, score] = parse_settings(text, ["movecount", "score"])?;
    if moves == 0 {
        return Err("movecount must be at least 1".into());
    }
    Ok(ResignRule {
        score_cp: score as i32,
        moves: moves as usize,
    })
}

fn parse_draw(text: &str) -> Result<DrawRule, String> {
    let [after_move, moves, score] = parse_settings(text, ["movenumber", "movecount", "score"])?;
    if moves == 0 {
        return Err("movecount must be at least 1".into());
    }
    Ok(DrawRule {
        after_move: after_move as usize,
        score_cp: score as i32,
        moves: moves as usize,
    })
}

/// The time control of engines that set none.
fn default_limit(args: &Args) -> Result<MoveLimit, String> {
    if let Some(depth) = args.depth {
        return Ok(MoveLimit::Depth(depth));
    }
    if let Some(nodes) = args.nodes {
        return Ok(MoveLimit::Nodes(nodes));
    }
    MoveLimit::parse_clock(&args.tc, Duration::from_millis(args.tolerance))
        .map_err(|e| format!("--tc: {e}"))
}

/// The engines: from `--engine` (with `--each`), or the two of `--engine1`
/// and `--engine2`.
fn players(args: &Args) -> Result<Vec<Player>, String> {
    let limit = default_limit(args)?;
    let tolerance = Duration::from_millis(args.tolerance);
    let each = EngineSettings::parse(&args.each).map_err(|e| format!("--each: {e}"))?;
    if let (Some(first), Some(second)) = (&args.engine1, &args.engine2) {
        let settings =
            |command: &String, protocol: ProtocolArg, options: &[EngineOption]| EngineSettings {
                command: Some(command.clone()),
                protocol: protocol.protocol(),
                options: options.to_vec(),
                ..EngineSettings::default()
            };
        let two = [
            settings(first, args.proto1, &args.option1),
            settings(second, args.proto2, &args.option2),
        ];
        return two
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.player(i + 1, &each, limit, tolerance)
                    .map_err(|e| e.to_string())
            })
            .collect();
    }
    if args.engine_groups.len() < 2 {
        return Err(
            "give two engines or more (--engine cmd=... twice, or --engine1 and --engine2)".into(),
        );
    }
    args.engine_groups
        .iter()
        .enumerate()
        .map(|(i, words)| {
            let own =
                EngineSettings::parse(words).map_err(|e| format!("--engine {}: {e}", i + 1))?;
            own.player(i + 1, &each, limit, tolerance)
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn tournament_spec(args: &Args) -> Result<TournamentSpec, String> {
    let players = players(args)?;
    let openings = openings_of(args.openings.as_deref(), args.openings_plies)?;
    let pairings = Pairings {
        format: match args.format {
            FormatArg::RoundRobin => Format::RoundRobin,
            FormatArg::Gauntlet => Format::Gauntlet,
        },
        rounds: args.rounds as usize,
        games: args.games,
        order: match args.openings_order {
            OrderArg::Sequential => OpeningOrder::Sequential,
            OrderArg::Random => OpeningOrder::Random(args.seed),
        },
    };
    Ok(TournamentSpec {
        schedule: pairings.schedule(players.len(), openings.len()),
        players,
        openings,
        concurrency: args.concurrency as usize,
        config: MatchConfig {
            score_adjudication: args.adjudication.rules(),
            max_plies: args.max_plies as usize,
            tables: tables(&args.tables)?,
            ..MatchConfig::default()
        },
        sprt: args
            .sprt
            .map(|sprt| sprt.with_earlier(args.sprt_earlier.unwrap_or_default())),
        keep_engines: args.keep_engines,
    })
}

/// The endgame tables of `dirs`, if any.
fn tables(dirs: &[PathBuf]) -> Result<Option<Arc<xqegtb::Tablebase>>, String> {
    if dirs.is_empty() {
        return Ok(None);
    }
    let mut tables = xqegtb::Tablebase::new();
    for dir in dirs {
        tables
            .add_dir(dir)
            .map_err(|e| format!("--tables {}: {e}", dir.display()))?;
    }
    Ok(Some(Arc::new(tables)))
}

/// A file finished games are appended to.
struct Appended {
    file: File,
    path: PathBuf,
}

impl Appended {
    fn open(path: &Path, flag: &str) -> Result<Appended, String> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(|file| Appended {
                file,
                path: path.to_path_buf(),
            })
            .map_err(|e| format!("{flag} {}: {e}", path.display()))
    }

    fn append(&mut self, text: &str) -> Result<(), String> {
        pgn::append_game(&mut self.file, text).map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// The games a `--resume` counts: those of the PGN, whose cut-off last
/// game (the runner killed as it wrote it) is removed first.
fn games_played_before(path: &Path) -> Result<Vec<PlayedGame>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("--pgn {}: {e}", path.display())),
    };
    let played =
        read_played_games(&text).map_err(|e| format!("--resume {}: {e}", path.display()))?;
    if played.complete_len < text.len() {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(played.complete_len as u64));
        file.map_err(|e| format!("--pgn {}: {e}", path.display()))?;
        eprintln!(
            "xqmatch: {}: removed a game cut off as it was written",
            path.display()
        );
    }
    Ok(played.games)
}

/// A finished game as PGN, with its engines' time controls.
fn pgn_text(spec: &TournamentSpec, game: &FinishedGame) -> String {
    let date = pgn::pgn_date_today();
    let limits = [game.red, game.black].map(|i| spec.players[i].limit.to_string());
    let tags = pgn::PgnTags {
        event: "xqmatch",
        date: &date,
        round: game.number,
        time_controls: [&limits[0], &limits[1]],
    };
    pgn::format_game(&game.record, &tags)
}

/// One line of JSON for `--results`.
fn result_json(game: &FinishedGame) -> String {
    let record = &game.record;
    let line = serde_json::json!({
        "number": game.number,
        "red": record.red,
        "black": record.black,
        "result": record.result.to_string(),
        "termination": record.termination.to_string(),
        "kind": record.termination.kind(),
        "plies": record.plies(),
        "opening": record.opening.moves_text(),
        "fen": record.opening.fen,
    });
    format!("{line}\n")
}

/// What `xqmatch` does once the tournament is set up.
struct Run {
    spec: TournamentSpec,
    played: Vec<PlayedGame>,
    pgn: Option<Appended>,
    results: Option<Appended>,
}

fn setup(args: &Args) -> Result<Run, String> {
    let spec = tournament_spec(args)?;
    let played = match (&args.pgn, args.resume) {
        (Some(path), true) => games_played_before(path)?,
        _ => Vec::new(),
    };
    let pgn = args
        .pgn
        .as_deref()
        .map(|p| Appended::open(p, "--pgn"))
        .transpose()?;
    let results = args
        .results
        .as_deref()
        .map(|p| Appended::open(p, "--results"))
        .transpose()?;
    Ok(Run {
        spec,
        played,
        pgn,
        results,
    })
}

/// The first Ctrl-C (or SIGTERM) stops new games and abandons the running
/// ones at their next move; a second ends the program at once.
fn stop_on_interrupt() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("xqmatch: interrupted again: stopping at once");
            std::process::exit(130);
        }
        eprintln!(
            "xqmatch: interrupted: abandoning the games in progress (Ctrl-C again to quit at once)"
        );
    });
    &STOP
}

/// Prints the end of a tournament: for two engines the score, the game
/// pairs and the SPRT; for more the standings and the crosstable; then the
/// kinds of end.
fn print_summary(spec: &TournamentSpec, report: &TournamentReport) {
    let results = &report.results;
    if spec.players.len() == 2 {
        out!("{}", report::summary_line(&results.first_engine()));
        out!("{}", report::pairs_line(&results.pairs_of(0, 1)));
    } else {
        print_standings(results);
    }
    if results.table.games() > 0 {
        out!("{}", report::endings_line(results));
    }
    if let Some(sprt) = &spec.sprt {
        out!("{}", report::sprt_line(sprt, report));
    }
}

fn print_standings(results: &Results) {
    out!("{}", report::standings(results).trim_end());
    out!("{}", report::crosstable(results).trim_end());
}

/// The command line, with the words of each `--engine` grouped.
fn parse_args() -> Args {
    let matches = Args::command().get_matches();
    let mut args = Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    args.engine_groups = matches
        .get_occurrences::<String>("engine")
        .map(|groups| groups.map(|words| words.cloned().collect()).collect())
        .unwrap_or_default();
    args
}

fn main() -> ExitCode {
    let args = parse_args();
    if let Some(Subcommand::Spsa(spsa_args)) = &args.command {
        return spsa(spsa_args);
    }
    let mut run = match setup(&args) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("xqmatch: {e}");
            return ExitCode::from(2);
        }
    };
    let stop = stop_on_interrupt();
    let many = run.spec.players.len() > 2;
    let report = run_tournament(&run.spec, &run.played, stop, |game, results| {
        out!(
            "{}",
            report::game_line(game, results, run.spec.sprt.as_ref())
        );
        if let Some(pgn_out) = run.pgn.as_mut() {
            pgn_out.append(&pgn_text(&run.spec, game))?;
        }
        if let Some(results_out) = run.results.as_mut() {
            results_out.append(&result_json(game))?;
        }
        let games = results.table.games() as usize;
        if many && args.report_every > 0 && games.is_multiple_of(args.report_every) {
            print_standings(results);
        }
        Ok(())
    });
    print_summary(&run.spec, &report);
    if report.interrupted {
        eprintln!(
            "xqmatch: stopped after {} games; run the same command with --resume to go on",
            report.results.table.games()
        );
        return ExitCode::from(130);
    }
    match report.failure {
        Some(e) => {
            eprintln!("xqmatch: {e}");
            ExitCode::FAILURE
        }
        None => ExitCode::SUCCESS,
    }
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Args);
}
