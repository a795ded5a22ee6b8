//! From a match's command line to its tournament: the engines with their
//! settings and time controls, the openings, the pairings and the tables.
//! Everything here is refused (exit status 2) before any engine starts.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use xqcli::Failure;
use xqmatch::{
    EngineOption, EngineSettings, Format, MatchConfig, MoveLimit, OpeningOrder, Pairings, Player,
    TournamentSpec,
};

use super::play_args::{FormatArg, OrderArg, PlayArgs};
use super::{openings_of, ProtocolArg};

/// The tournament `args` ask for.
///
/// # Errors
///
/// A time control, an engine's settings, the openings or the tables that
/// cannot be used.
pub fn tournament_spec(args: &PlayArgs) -> xqcli::Result<TournamentSpec> {
    let players = players(args)?;
    let openings = openings_of(args.openings.as_deref(), args.openings_plies)?;
    let pairings = Pairings {
        format: match args.format {
            FormatArg::RoundRobin => Format::RoundRobin,
            FormatArg::Gauntlet => Format::Gauntlet,
            FormatArg::Ladder => Format::Ladder,
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

/// The time control of engines that set none: `--depth`, `--nodes` or
/// `--tc`.
fn default_limit(args: &PlayArgs) -> xqcli::Result<MoveLimit> {
    if let Some(depth) = args.depth {
        return Ok(MoveLimit::Depth(depth));
    }
    if let Some(nodes) = args.nodes {
        return Ok(MoveLimit::Nodes(nodes));
    }
    MoveLimit::parse_clock(&args.tc, Duration::from_millis(args.tolerance))
        .map_err(|e| Failure::usage(e).context("--tc"))
}

/// The engines: from `--engine` (with `--each`), or the two of `--engine1`
/// and `--engine2`.
fn players(args: &PlayArgs) -> xqcli::Result<Vec<Player>> {
    let limit = default_limit(args)?;
    let tolerance = Duration::from_millis(args.tolerance);
    let each =
        EngineSettings::parse(&args.each).map_err(|e| Failure::usage(e).context("--each"))?;
    let player = |number: usize, settings: &EngineSettings| {
        settings
            .player(number, &each, limit, tolerance)
            .map_err(Failure::usage)
    };
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
            .map(|(i, s)| player(i + 1, s))
            .collect();
    }
    if args.engine_groups.len() < 2 {
        return Err(Failure::usage(
            "give two engines or more (--engine cmd=... twice, or --engine1 and --engine2)",
        ));
    }
    args.engine_groups
        .iter()
        .enumerate()
        .map(|(i, words)| {
            let own = EngineSettings::parse(words)
                .map_err(|e| Failure::usage(e).context(format!("--engine {}", i + 1)))?;
            player(i + 1, &own)
        })
        .collect()
}

/// The endgame tables of `dirs`, if any.
fn tables(dirs: &[PathBuf]) -> xqcli::Result<Option<Arc<xqegtb::Tablebase>>> {
    if dirs.is_empty() {
        return Ok(None);
    }
    let mut tables = xqegtb::Tablebase::new();
    for dir in dirs {
        tables
            .add_dir(dir)
            .map_err(|e| Failure::usage(e).context(format!("--tables {}", dir.display())))?;
    }
    Ok(Some(Arc::new(tables)))
}
