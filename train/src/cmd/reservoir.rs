//! `xqtrain reservoir`: offers games to a reservoir, a uniform random
//! sample of every game ever offered, small enough to commit.

use std::path::PathBuf;

use clap::Args;
use xqcli::{out, Failure};
use xqlearn::Reservoir;

/// Games a new reservoir keeps: at about 120 plies a game, 4.8 MB before
/// compression.
const RESERVOIR_GAMES: u32 = 10_000;

/// Arguments of `xqtrain reservoir`.
#[derive(Args)]
pub struct ReservoirArgs {
    /// The reservoir file (created when missing).
    reservoir: PathBuf,
    /// Games files (from `datagen`) whose games are offered; a file cut
    /// short by a killed run offers the games before the damage.
    #[arg(long, num_args = 1..)]
    add: Vec<PathBuf>,
    /// Most games kept [default: the reservoir's own, 10,000 for a new
    /// one]; a smaller one drops games at random.
    #[arg(long)]
    keep: Option<u32>,
    /// Seed of the random choices (with the count offered before).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Offers the games of `--add` to the reservoir and writes it.
///
/// # Errors
///
/// A reservoir or games file that cannot be read, or a reservoir that
/// cannot be written (exit status 2).
pub fn run(args: &ReservoirArgs) -> xqcli::Result {
    let mut reservoir = if args.reservoir.exists() {
        Reservoir::load(&args.reservoir).map_err(Failure::usage)?
    } else {
        Reservoir::new(args.keep.unwrap_or(RESERVOIR_GAMES))
    };
    if let Some(keep) = args.keep {
        reservoir.set_capacity(keep, args.seed ^ reservoir.offered);
    }
    let mut offered = 0;
    let mut kept = 0;
    for path in &args.add {
        let (games, damage) = xqlearn::read_games_file(path).map_err(Failure::usage)?;
        if let Some(d) = damage {
            eprintln!("xqtrain reservoir: {d}");
        }
        offered += games.len();
        kept += reservoir.offer(games, args.seed);
    }
    reservoir
        .save(&args.reservoir)
        .map_err(|e| Failure::usage(e).context(args.reservoir.display()))?;
    let bytes = std::fs::metadata(&args.reservoir).map_or(0, |m| m.len());
    out!(
        "{}: {offered} games offered, {kept} kept; {} games of {} ever offered, {bytes} bytes",
        args.reservoir.display(),
        reservoir.games.len(),
        reservoir.offered
    );
    Ok(())
}
