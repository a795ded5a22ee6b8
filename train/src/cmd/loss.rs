//! `xqtrain loss`: checkpoints' and nets' loss on the same positions, so
//! that nets trained in rounds on different data compare.

use std::path::PathBuf;

use clap::Args;
use xqcli::{out, Failure};
use xqlearn::{quantised_loss, Dataset, Filter};
use xqnnue::Network;

use super::nnue::read_checkpoint;
use super::positions::{add_records, duplicates_note, read_games, TargetArgs};

/// Arguments of `xqtrain loss`.
#[derive(Args)]
pub struct LossArgs {
    /// Games files (from `datagen`) whose positions are scored.
    #[arg(required_unless_present = "pgn")]
    data: Vec<PathBuf>,
    /// Game records (PGN in any notation, or XQF) whose quiet positions are
    /// scored too, judged by their game's result alone: ground that no
    /// self-play net played.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Checkpoints (from `nnue`) to measure: the float model trained.
    #[arg(long, num_args = 1.., required_unless_present = "net")]
    checkpoint: Vec<PathBuf>,
    /// Nets (`.xqnn`, from `nnue --out`) to measure: the integer net the
    /// engine plays with, quantisation included.
    #[arg(long, num_args = 1..)]
    net: Vec<PathBuf>,
    /// Only every this many games, counted over the files in order: the
    /// games `nnue --validation-every N` holds out of the same files, so
    /// that a round's epoch-0 figure is reproduced for any other net.
    #[arg(long, default_value_t = 1)]
    held_out_every: usize,
    #[command(flatten)]
    target: TargetArgs,
}

/// Prints each checkpoint's and each net's loss on the positions.
///
/// # Errors
///
/// Data, records, a checkpoint or a net that cannot be read, or no
/// positions to score (exit status 2).
pub fn run(args: &LossArgs) -> xqcli::Result {
    let filter = Filter {
        max_score: args.target.max_score,
        validation_every: args.held_out_every.max(1),
    };
    // Every game the filter holds out is scored: all of them by default.
    let mut data = read_games("loss", &args.data, &filter)?;
    if !args.data.is_empty() {
        eprintln!(
            "{} positions of {} games{}",
            data.validation.len(),
            data.games.div_ceil(filter.validation_every),
            duplicates_note(&data)
        );
    }
    // Only the games held out are scored, and every position of the
    // records: they are read apart, as training positions of their own.
    let mut records = Dataset::default();
    for path in &args.pgn {
        add_records(path, &mut records)?;
    }
    data.validation.append(&mut records.train);
    if data.validation.is_empty() {
        return Err(Failure::usage("no positions to score in the games"));
    }
    if !args.pgn.is_empty() {
        eprintln!("{} positions scored in all", data.validation.len());
    }
    let config = args.target.loss();
    for path in &args.checkpoint {
        let trainer = read_checkpoint(path)?;
        out!(
            "{}: loss {:.6} (net {:08x}, after epoch {})",
            path.display(),
            trainer.loss(&data.validation, &config),
            trainer.net().checksum(),
            trainer.epoch
        );
    }
    for path in &args.net {
        let net = Network::load(path).map_err(|e| Failure::usage(e).context(path.display()))?;
        out!(
            "{}: loss {:.6} (net {:08x}, quantised)",
            path.display(),
            quantised_loss(&net, &data.validation, &config),
            net.checksum()
        );
    }
    Ok(())
}
