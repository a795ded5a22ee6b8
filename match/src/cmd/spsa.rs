//! `xqmatch spsa`: tunes an engine's parameters by games of two
//! perturbed copies ([`xqmatch::run_spsa`]), the state saved after every
//! batch of pairs so that the same command goes on.

use std::path::{Path, PathBuf};
use std::time::Duration;

use xqcli::{out, Failure};
use xqmatch::{
    read_params, run_spsa, EngineOption, EngineSpec, MatchConfig, MoveLimit, PairOutcome, Schedule,
    Spsa, SpsaGames,
};

use super::{openings_of, stop_on_interrupt, AdjudicationArgs, ProtocolArg};

/// Tune an engine's parameters by SPSA: two copies of the engine, every
/// parameter moved up in one and down in the other by a random sign, play
/// a pair of games (one opening, each colour once); the parameters move
/// towards the copy that scored more. The engine must take each parameter
/// as an option (`xqengine` built with `--features tune`; `xqengine
/// params` prints its parameter file). The state is saved after every
/// batch of pairs; run the same command again to go on. Ctrl-C stops after
/// saving.
#[derive(clap::Args)]
pub struct SpsaArgs {
    /// Command starting the engine (run by `sh -c`).
    #[arg(long)]
    pub engine: String,
    /// Protocol of the engine (auto: ucci first, then uci).
    #[arg(long, value_enum, default_value_t = ProtocolArg::Auto)]
    pub proto: ProtocolArg,
    /// An option both copies get before the tuned ones, `NAME=VALUE`. Repeat for more.
    #[arg(long, value_name = "NAME=VALUE")]
    pub option: Vec<EngineOption>,
    /// The parameters to tune, one a line: `name value min max step` (the
    /// step is the probe size at the end). Read when the state file does
    /// not exist yet.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// The tuner's state: read and continued when it exists, written after
    /// every batch; its parameter lines are the current values.
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,
    /// Planned iterations (game pairs) of a new run: the gains shrink over them.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,
    /// Play at most this many pairs in this run [default: to the end].
    #[arg(long)]
    pub pairs: Option<u32>,
    /// Learning rate at the end, relative to each step squared (new runs).
    #[arg(long, default_value_t = 0.002)]
    pub r_end: f64,
    /// Time control: [MOVES/]BASE[+INC] in seconds.
    #[arg(long, default_value = "2+0.02", conflicts_with = "nodes")]
    pub tc: String,
    /// Search every move this many nodes instead of using a clock.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Milliseconds a timed move may run over its clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    pub tolerance: u64,
    /// Where games start, as for a match [default: the 60 bundled lines].
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Cut every opening to its first PLIES moves.
    #[arg(long, value_name = "PLIES")]
    pub openings_plies: Option<usize>,
    /// Pairs played at once (two engine processes each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    /// Seed of the perturbations and the openings (new runs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    #[command(flatten)]
    pub adjudication: AdjudicationArgs,
}

/// The tuner of `args`: its saved state, or a new one from `--params`.
fn spsa_state(args: &SpsaArgs) -> xqcli::Result<Spsa> {
    let state = &args.state;
    let refused = |flag: &str, path: &Path, e: &dyn std::fmt::Display| {
        Failure::usage(format!("{flag} {}: {e}", path.display()))
    };
    match std::fs::read_to_string(state) {
        Ok(text) => return Spsa::from_text(&text).map_err(|e| refused("--state", state, &e)),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(refused("--state", state, &e))
        }
        Err(_) => {}
    }
    let path = args.params.as_ref().ok_or_else(|| {
        Failure::usage(format!(
            "--state {} does not exist yet: give --params FILE to start",
            state.display()
        ))
    })?;
    let text = std::fs::read_to_string(path).map_err(|e| refused("--params", path, &e))?;
    let params = read_params(&text).map_err(|e| refused("--params", path, &e))?;
    let mut schedule = Schedule::new(args.iterations);
    schedule.r_end = args.r_end;
    Ok(Spsa::new(params, schedule, args.seed))
}

/// The time control of `args`: `--nodes`, or the clock of `--tc`.
fn move_limit(args: &SpsaArgs) -> xqcli::Result<MoveLimit> {
    match args.nodes {
        Some(n) => Ok(MoveLimit::Nodes(n)),
        None => MoveLimit::parse_clock(&args.tc, Duration::from_millis(args.tolerance))
            .map_err(|e| Failure::usage(e).context("--tc")),
    }
}

/// `xqmatch spsa`: plays pairs until the schedule or `--pairs` is done,
/// or Ctrl-C, printing each pair and the values after each batch, and
/// saving the state after each batch.
///
/// # Errors
///
/// The state, the parameters, the openings or the time control cannot be
/// used (exit status 2); the engine cannot be started or does not take
/// every parameter, or the state cannot be saved (exit status 1).
pub fn run(args: &SpsaArgs) -> xqcli::Result {
    let mut state = spsa_state(args)?;
    let openings = openings_of(args.openings.as_deref(), args.openings_plies)?;
    if openings.is_empty() {
        return Err(Failure::usage("no opening to play"));
    }
    let limit = move_limit(args)?;
    let engine = EngineSpec {
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
    run_spsa(
        &mut state,
        &games,
        args.pairs.unwrap_or(u32::MAX),
        stop,
        |spsa, batch| {
            for o in batch {
                out!("{}", pair_line(o, n));
            }
            out!("after {}: {}", spsa.iteration, values_text(spsa));
            spsa.save(&args.state)
                .map_err(|e| format!("--state {}: {e}", args.state.display()))
        },
    )?;
    if !state.finished() {
        eprintln!(
            "xqmatch spsa: stopped after pair {} of {n}; run the same command to go on",
            state.iteration
        );
    }
    Ok(())
}

/// `pair K of N: +R (plus as Red A, as Black B)`.
fn pair_line(outcome: &PairOutcome, iterations: u32) -> String {
    format!(
        "pair {} of {iterations}: {:+} (plus as Red {}, as Black {})",
        outcome.probe.iteration + 1,
        outcome.result,
        outcome.results[0],
        outcome.results[1]
    )
}

/// The parameters' values: `name=value` with a decimal, space-separated.
fn values_text(spsa: &Spsa) -> String {
    let values: Vec<String> = spsa
        .params
        .iter()
        .map(|p| format!("{}={:.1}", p.name, p.value))
        .collect();
    values.join(" ")
}
