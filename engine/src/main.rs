//! `xqengine`: with no arguments, the UCCI protocol loop (UCI when the first
//! command is `uci`); `perft` checks move generation; `bench` the search.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "xqengine",
    version,
    about = "Xiangqi engine: speaks UCCI on stdin/stdout (UCI when the first command is `uci`)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree: one line per root move, then `nodes N`.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Start from this FEN instead of the initial position.
        #[arg(long)]
        fen: Option<String>,
    },
    /// Play engine against engine over UCCI and report the first engine's score.
    Match {
        /// Command starting the first engine (run by `sh -c`).
        #[arg(long)]
        engine1: String,
        /// Command starting the second engine.
        #[arg(long)]
        engine2: String,
        /// `setoption` lines for the first engine, e.g. `--option1 "hashsize 64"`.
        #[arg(long)]
        option1: Vec<String>,
        /// `setoption` lines for the second engine.
        #[arg(long)]
        option2: Vec<String>,
        /// Number of games (colours alternate on each opening).
        #[arg(long, default_value_t = 2)]
        games: usize,
        /// Time control: base seconds + increment seconds.
        #[arg(long, default_value = "10+0.1")]
        tc: String,
        /// Opening lines, one per line in ICCS.
        #[arg(long, default_value = "data/openings.txt")]
        openings: std::path::PathBuf,
        /// Milliseconds a move may run over the clock before it is forfeited.
        #[arg(long, default_value_t = 200)]
        tolerance: u64,
    },
    /// Search the fixed bench positions; the last line is `N nodes K nps`.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = xqengine::bench::BENCH_DEPTH)]
        depth: i32,
    },
}

fn perft(depth: u32, fen: Option<&str>) -> ExitCode {
    match xqengine::perft_cmd::run(fen, depth) {
        Ok(report) => {
            let mut out = std::io::stdout().lock();
            if xqengine::perft_cmd::print(&report, &mut out).is_err() {
                return ExitCode::FAILURE;
            }
            let secs = report.elapsed.as_secs_f64();
            eprintln!(
                "time {:.3} s, {:.0} nodes/s",
                secs,
                report.nodes as f64 / secs.max(1e-9)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqengine perft: bad --fen: {e}");
            ExitCode::from(2)
        }
    }
}

fn bench(depth: i32) -> ExitCode {
    let r = xqengine::bench::run(depth, |fen, nodes| println!("{nodes:>12} {fen}"));
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    println!("time {:.3} s", secs);
    println!("{} nodes {} nps", r.nodes, (r.nodes as f64 / secs) as u64);
    ExitCode::SUCCESS
}

fn parse_tc(tc: &str) -> Option<(Duration, Duration)> {
    let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
    let secs = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(Duration::from_secs_f64)
    };
    Some((secs(base)?, secs(inc)?))
}

#[allow(clippy::too_many_arguments)]
fn play_match(
    engine1: &str,
    engine2: &str,
    option1: &[String],
    option2: &[String],
    games: usize,
    tc: &str,
    openings: &std::path::Path,
    tolerance: u64,
) -> ExitCode {
    use xqengine::arena::{read_openings, run_match, MatchConfig};
    let Some((base, increment)) = parse_tc(tc) else {
        eprintln!("xqengine match: --tc '{tc}' is not BASE+INC in seconds");
        return ExitCode::from(2);
    };
    let lines = match std::fs::read_to_string(openings)
        .map_err(|e| e.to_string())
        .and_then(|t| read_openings(&t))
    {
        Ok(l) if !l.is_empty() => l,
        Ok(_) => vec![Vec::new()],
        Err(e) => {
            eprintln!("xqengine match: {}: {e}", openings.display());
            return ExitCode::from(2);
        }
    };
    let cfg = MatchConfig {
        base,
        increment,
        tolerance: Duration::from_millis(tolerance),
        draw_plies: 120,
        max_plies: 400,
    };
    let result = run_match(
        (engine1, option1),
        (engine2, option2),
        &lines,
        games,
        &cfg,
        |g, rec, tally| {
            println!(
            "game {:>3}: {} - {}: {:?} by {:?} after {} plies (worst clock overrun {} ms); engine1 +{} ={} -{} ({:.1} %)",
            g + 1, rec.red, rec.black, rec.result, rec.termination, rec.opening.len() + rec.moves.len(),
            rec.worst_overrun_ms, tally.wins, tally.draws, tally.losses, tally.percent()
        );
        },
    );
    match result {
        Ok(t) => {
            println!(
                "engine1 +{} ={} -{} score {:.1} %",
                t.wins,
                t.draws,
                t.losses,
                t.percent()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqengine match: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Some(Command::Perft { depth, fen }) => perft(depth, fen.as_deref()),
        Some(Command::Bench { depth }) => bench(depth),
        Some(Command::Match {
            engine1,
            engine2,
            option1,
            option2,
            games,
            tc,
            openings,
            tolerance,
        }) => play_match(
            &engine1, &engine2, &option1, &option2, games, &tc, &openings, tolerance,
        ),
        None => {
            xqengine::session::run_stdio();
            ExitCode::SUCCESS
        }
    }
}
