//! What `nnue` trains on and `loss` scores: the positions of games files
//! and of game records, and the target a net is trained towards.

use std::path::{Path, PathBuf};

use clap::Args;
use xqcli::Failure;
use xqlearn::{Dataset, Filter, LossConfig};

/// What a net is trained towards, and on which positions: shared by
/// `nnue` and `loss`, so that `loss` measures what a round minimised.
#[derive(Args)]
pub struct TargetArgs {
    /// Weight of the game result in the target (the rest: the search score).
    /// 0.2 trained the shipped net; rounds before it used 0.5.
    #[arg(long, default_value_t = LossConfig::default().result_weight)]
    result_weight: f32,
    /// Centipawns of one unit of the logistic mapping scores to results.
    #[arg(long, default_value_t = LossConfig::default().k)]
    k: f32,
    /// Positions scored beyond this many centipawns are left out.
    #[arg(long, default_value_t = 3_000)]
    pub max_score: i16,
}

impl TargetArgs {
    /// The loss these arguments ask for, its figures brought into range.
    pub fn loss(&self) -> LossConfig {
        LossConfig {
            result_weight: self.result_weight.clamp(0.0, 1.0),
            k: self.k.max(1.0),
        }
    }
}

/// The games of `files` as samples, split as `filter` says; damage that
/// cut a file short is said as a warning of `command`.
///
/// # Errors
///
/// A file that cannot be read, or is neither a games file nor a
/// reservoir (exit status 2).
pub fn read_games(command: &str, files: &[PathBuf], filter: &Filter) -> xqcli::Result<Dataset> {
    let mut data = Dataset::default();
    for path in files {
        if let Some(warning) = data.add_file(path, filter).map_err(Failure::usage)? {
            eprintln!("xqtrain {command}: {warning}");
        }
    }
    Ok(data)
}

/// Adds the quiet positions of the game records in `path` (those with a
/// result) to `data`'s training positions, saying how many.
///
/// # Errors
///
/// The file cannot be read as game records (exit status 2).
pub fn add_records(path: &Path, data: &mut Dataset) -> xqcli::Result {
    let records = xqrecords::read_file(path, &xqrecords::ReadOptions::default(), &|_| {})
        .map_err(Failure::usage)?;
    let (mut used, mut positions) = (0, 0);
    for g in records
        .games
        .iter()
        .filter(|g| g.result != xqcore::GameResult::Unknown)
    {
        positions += data.add_record(&g.start, &g.moves, g.result);
        used += 1;
    }
    let skipped = records.games.len() - used + records.errors.len();
    eprintln!(
        "{}: {used} games, {positions} positions; {skipped} skipped (unreadable or no result)",
        path.display()
    );
    Ok(())
}

/// Says how many games were read twice (and used once), if any.
pub fn duplicates_note(data: &Dataset) -> String {
    match data.duplicates {
        0 => String::new(),
        n => format!(" ({n} read again and left out)"),
    }
}
