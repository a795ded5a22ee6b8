//! `xqmatch`: plays two xiangqi engines against each other over UCCI or UCI
//! and reports the first engine's score.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use xqcli::out;
use xqmatch::{
    load_openings, pgn, report, run_match, DrawRule, EngineOption, EngineSpec, FinishedGame,
    MatchConfig, MatchSpec, MoveLimit, Protocol, ResignRule, ScoreAdjudication, Sprt,
};

/// Play engine against engine and report the first engine's score.
///
/// Each engine is a command line run by `sh -c`, spoken to in UCCI or UCI
/// (found out at the handshake unless `--proto1`/`--proto2` say). Colours
/// alternate on each opening; games end by the rules (no legal move loses,
/// perpetual check or perpetual chase loses at the third repetition, other repetitions draw,
/// 120 plies without capture draw), at 400 plies (draw), by an illegal
/// move, a resignation, a flag fall or an engine failure (loss), or, when
/// asked, by the engines' scores (`--resign`, `--draw`).
#[derive(Parser)]
#[command(name = "xqmatch", version)]
struct Args {
    /// Command starting the first engine (run by `sh -c`).
    #[arg(long)]
    engine1: String,
    /// Command starting the second engine.
    #[arg(long)]
    engine2: String,
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
    /// Number of games (colours alternate on each opening).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Games played at once, each with its own two engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Time control: base seconds + increment seconds.
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
    /// Opening lines, one a line: ICCS moves from the start, or `fen FEN
    /// [moves ...]` [default: the 60 bundled lines of data/openings.txt].
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Milliseconds a move may run over the clock before it is forfeited.
    #[arg(long, default_value_t = 200)]
    tolerance: u64,
    /// Append every finished game to this file as PGN.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Sequential probability ratio test of H0 "Elo = ELO0" against H1
    /// "Elo = ELO1" (alpha = beta = 0.05); no new game starts once it decides.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt)]
    sprt: Option<Sprt>,
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
    /// Keep each pair of engine processes for all the games it plays (a new
    /// game announced between games) instead of fresh ones every game: an
    /// endurance test. Each game line then ends with both engines' memory.
    #[arg(long)]
    keep_engines: bool,
}

/// `--proto1`, `--proto2`.
#[derive(Clone, Copy, ValueEnum)]
enum ProtocolArg {
    Auto,
    Ucci,
    Uci,
}

impl ProtocolArg {
    fn protocol(self) -> Option<Protocol> {
        match self {
            ProtocolArg::Auto => None,
            ProtocolArg::Ucci => Some(Protocol::Ucci),
            ProtocolArg::Uci => Some(Protocol::Uci),
        }
    }
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

fn parse_tc(tc: &str) -> Option<(Duration, Duration)> {
    let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
    let secs = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e9)
            .map(Duration::from_secs_f64)
    };
    Some((secs(base)?, secs(inc)?))
}

fn move_limit(args: &Args) -> Result<MoveLimit, String> {
    if let Some(depth) = args.depth {
        return Ok(MoveLimit::Depth(depth));
    }
    if let Some(nodes) = args.nodes {
        return Ok(MoveLimit::Nodes(nodes));
    }
    let (base, increment) = parse_tc(&args.tc)
        .ok_or_else(|| format!("--tc '{}' is not BASE+INC in seconds", args.tc))?;
    Ok(MoveLimit::Clock {
        base,
        increment,
        tolerance: Duration::from_millis(args.tolerance),
    })
}

fn match_spec(args: &Args) -> Result<MatchSpec, String> {
    let engine = |command: &str, protocol, options: &[EngineOption]| EngineSpec {
        command: command.to_string(),
        protocol,
        options: options.to_vec(),
    };
    Ok(MatchSpec {
        engines: [
            engine(&args.engine1, args.proto1.protocol(), &args.option1),
            engine(&args.engine2, args.proto2.protocol(), &args.option2),
        ],
        openings: load_openings(args.openings.as_deref()).map_err(|e| e.to_string())?,
        games: args.games,
        concurrency: args.concurrency as usize,
        config: MatchConfig {
            score_adjudication: ScoreAdjudication {
                resign: args.resign,
                draw: args.draw,
            },
            ..MatchConfig::new(move_limit(args)?)
        },
        sprt: args.sprt,
        keep_engines: args.keep_engines,
    })
}

fn open_pgn(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("--pgn {}: {e}", path.display()))
}

fn write_pgn(
    file: &mut File,
    path: &Path,
    game: &FinishedGame,
    time_control: &str,
) -> Result<(), String> {
    let date = pgn::pgn_date_today();
    let tags = pgn::PgnTags {
        event: "xqmatch",
        date: &date,
        round: game.number,
        time_control,
    };
    pgn::append_game(file, &pgn::format_game(&game.record, &tags))
        .map_err(|e| format!("--pgn {}: {e}", path.display()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let setup = match_spec(&args).and_then(|spec| {
        let pgn_out = args
            .pgn
            .as_deref()
            .map(|path| open_pgn(path).map(|file| (file, path)))
            .transpose()?;
        Ok((spec, pgn_out))
    });
    let (spec, mut pgn_out) = match setup {
        Ok(setup) => setup,
        Err(e) => {
            eprintln!("xqmatch: {e}");
            return ExitCode::from(2);
        }
    };
    let time_control = spec.config.limit.to_string();
    let report = run_match(&spec, |game, tally| {
        out!("{}", report::game_line(game, tally));
        match pgn_out.as_mut() {
            Some((file, path)) => write_pgn(file, path, game, &time_control).map_err(Into::into),
            None => Ok(()),
        }
    });
    out!("{}", report::summary_line(&report.tally));
    if report.tally.games() > 0 {
        out!("{}", report::endings_line(&report));
    }
    if let Some(sprt) = &spec.sprt {
        out!("{}", report::sprt_line(sprt, &report));
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
    use clap::CommandFactory;

    #[test]
    fn help_describes_every_command_and_option() {
        xqcli::help::assert_described(&super::Args::command());
    }
}
