//! `egtbgen bench`: how long a probe takes, with its block in the cache,
//! as the first probe into a block, and as the first opening the file.

use std::path::Path;
use std::time::Instant;

use xqcli::{out, Failure};
use xqcore::{Color, Position, Setup};
use xqegtb::{board_of, Indexer, Material, Metric, Placement, Tablebase};

/// Times the tables are opened afresh for first probes.
const COLD_PROBES: usize = 200;

/// Arguments of `egtbgen bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Directories holding tables, separated by ';'.
    #[arg(long, default_value = "data/egtb")]
    path: String,
    /// The table whose positions are probed.
    material: String,
    /// Positions to probe.
    #[arg(long, default_value_t = 2000)]
    positions: usize,
    /// The metric probed: `dtm` (the table file), `wdl` (the win/draw/loss
    /// file) or `dtc` (the distance-to-conversion file).
    #[arg(long, default_value = "dtm")]
    metric: Metric,
}

/// Times probes into the table of `--material` and prints the medians.
///
/// # Errors
///
/// A bad material name, no such table in the directories, or a table that
/// cannot be read.
pub fn run(args: &BenchArgs) -> xqcli::Result {
    let material = args.material.parse::<Material>()?.canonical().0;
    let metric = args.metric;
    super::directories(&args.path)
        .map(|d| egtbgen::metric_path(Path::new(d), material, metric))
        .find(|p| p.is_file())
        .ok_or_else(|| Failure::new(format!("no {material} {metric} file in {}", args.path)))?;
    let positions = spread_positions(&Indexer::new(material), args.positions);
    let open = || super::tables_in(&args.path);
    let time = |tb: &Tablebase, pos: &Position| -> xqcli::Result<f64> {
        let started = Instant::now();
        let found = match metric {
            Metric::Dtm => tb.probe(pos)?.is_some(),
            Metric::Wdl => tb.probe_wdl(pos)?.is_some(),
            Metric::Dtc => tb.probe_dtc(pos)?.is_some(),
        };
        let ns = started.elapsed().as_nanos() as f64;
        if !found {
            return Err(Failure::new(format!(
                "{material}: no value for {}",
                pos.fen()
            )));
        }
        Ok(ns)
    };
    // First probes into a block: each in tables opened afresh (closing
    // them frees their cached blocks), after a probe that opens the file.
    let mut opened = Vec::new();
    let mut cold = Vec::new();
    for pos in positions.iter().skip(1).take(COLD_PROBES) {
        let tb = open()?;
        opened.push(time(&tb, &positions[0])?);
        cold.push(time(&tb, pos)?);
    }
    // The same position again: its block is in the cache.
    let tb = open()?;
    let mut cached = Vec::with_capacity(positions.len());
    for pos in &positions {
        time(&tb, pos)?;
        cached.push(time(&tb, pos)?);
    }
    out!(
        "{material} ({metric}): {} positions; median probe {:.2} us with the block cached, \
         {:.2} us for a first probe into a block, {:.1} us for a first probe opening the file \
         ({} openings)",
        positions.len(),
        median_us(&mut cached),
        median_us(&mut cold),
        median_us(&mut opened),
        opened.len()
    );
    Ok(())
}

/// `count` legal positions spread over the whole table, in a shuffled
/// order so that consecutive probes rarely share a block.
fn spread_positions(ix: &Indexer, count: usize) -> Vec<Position> {
    let mut positions = Vec::new();
    let mut placement = Placement::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while positions.len() < count {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let index = (state >> 11) % ix.size();
        ix.placement(index, &mut placement);
        if !ix.is_canonical(index, &placement) {
            continue;
        }
        let board = board_of(ix, &placement);
        let turn = if state >> 63 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let setup = Setup {
            board,
            turn,
            plies_since_capture: 0,
            fullmoves: 1,
        };
        if let Ok(pos) = Position::from_setup(setup) {
            positions.push(pos);
        }
    }
    positions
}

/// The median of times in nanoseconds, in microseconds (NaN for none).
fn median_us(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times
        .get(times.len() / 2)
        .map_or(f64::NAN, |ns| ns / 1000.0)
}
