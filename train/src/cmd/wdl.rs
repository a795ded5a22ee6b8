//! `xqtrain wdl`: the engine's win-draw-loss model fitted on self-play
//! games, with how well it fits, and the model as Rust source.

use std::path::PathBuf;

use clap::Args;
use xqcli::{out, Failure};
use xqtrain::wdl::{fit, samples};

/// Arguments of `xqtrain wdl`.
#[derive(Args)]
pub struct WdlArgs {
    /// Games files (from `datagen`): every scored position, with its
    /// game's result.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Positions a material count needs to be fitted on its own.
    #[arg(long, default_value_t = 2_000)]
    min_group: usize,
}

/// Reads the games, fits the model and prints it, with its log loss
/// against the overall shares and a calibration table by score.
///
/// # Errors
///
/// A games file cannot be read (exit status 2), or no material count has
/// `--min-group` positions.
pub fn run(args: &WdlArgs) -> xqcli::Result {
    let mut games = Vec::new();
    for path in &args.data {
        let mut file = std::fs::File::open(path)
            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        let (read, damage) = xqlearn::read_games_until_damage(&mut file)
            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        if let Some(e) = damage {
            eprintln!(
                "xqtrain wdl: {}: {e}; the games before it are used",
                path.display()
            );
        }
        games.extend(read);
    }
    let positions = samples(&games);
    let found = fit(&positions, args.min_group);
    if found.groups.is_empty() {
        return Err(Failure::new(format!(
            "{} positions of {} games: no material count has {} (--min-group)",
            positions.len(),
            games.len(),
            args.min_group
        )));
    }
    out!(
        "{} games, {} positions, {} material counts fitted",
        games.len(),
        found.positions,
        found.groups.len()
    );
    out!(
        "mean log loss {:.4} (the overall shares alone: {:.4})",
        found.log_loss,
        found.baseline_log_loss
    );
    out!("score bin      positions  observed W/D/L %     predicted W/D/L %");
    for c in &found.calibration {
        let pct = |p: [f64; 3]| {
            format!(
                "{:4.1} {:4.1} {:4.1}",
                p[0] * 100.0,
                p[1] * 100.0,
                p[2] * 100.0
            )
        };
        out!(
            "{:>5}..{:<5}  {:>9}  {}     {}",
            c.low,
            c.high,
            c.positions,
            pct(c.observed),
            pct(c.predicted)
        );
    }
    let coefficients = |c: [f64; 4]| {
        c.iter()
            .map(|v| format!("{v:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out!("pub const WDL_MODEL: WdlModel = WdlModel {{");
    out!("    a: [{}],", coefficients(found.model.a));
    out!("    b: [{}],", coefficients(found.model.b));
    out!("}};");
    Ok(())
}
