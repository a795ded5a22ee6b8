//! `xqtrain nnue`: trains the learned evaluation on games files and game
//! records, resuming from its checkpoint or starting a new round from
//! another's, and writes the checkpoint and the quantised net where it is
//! told after every epoch.

use std::path::{Path, PathBuf};

use clap::Args;
use xqcli::{out, Failure};
use xqlearn::{Filter, TrainConfig, Trainer};
use xqnnue::{Architecture, FeatureSet};

use super::positions::{add_records, duplicates_note, read_games, TargetArgs};

/// Arguments of `xqtrain nnue`.
#[derive(Args)]
pub struct NnueArgs {
    /// Games files (from `datagen`).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Game records (PGN in any notation, or XQF) whose quiet positions
    /// join the training positions, judged by their game's result alone.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Checkpoint: training resumes from it when it exists and is
    /// rewritten after every epoch. The committed one is
    /// nnue/train/checkpoint.xqck: a round starts from it with
    /// --init-from, and rewrites it only when named here.
    #[arg(long)]
    checkpoint: PathBuf,
    /// Start afresh even if the checkpoint exists (it is overwritten).
    #[arg(long)]
    fresh: bool,
    /// Start a new round of training from this checkpoint's net (its
    /// parameters and optimiser state; epochs count from 0 again), e.g.
    /// the committed one on a session's new games. Used when --checkpoint
    /// (which must be another file) does not exist yet, or with --fresh;
    /// otherwise the round resumes from --checkpoint.
    #[arg(long, value_name = "CHECKPOINT")]
    init_from: Option<PathBuf>,
    /// Where the quantised net is written after every epoch. The engine
    /// embeds nnue/nets/default.xqnn, rewritten only when named here.
    #[arg(long)]
    out: PathBuf,
    /// Hidden neurons a perspective of a new net (a multiple of 32 up to
    /// 1,024) [default: 256]. With --init-from, a wider net than the
    /// checkpoint's grows it (new neurons that add nothing until trained);
    /// a resumed net keeps its own width, and giving another is an error.
    #[arg(long)]
    hidden: Option<usize>,
    /// Inputs of a new net: piece-square, or king-square (the piece-square
    /// inputs once for each square of the side's own king) [default:
    /// piece-square]. With --init-from, king-square grows a piece-square
    /// checkpoint's net (its columns become the factor every king square
    /// adds); a resumed net keeps its own.
    #[arg(long)]
    features: Option<FeatureSet>,
    /// Epochs in all (a resumed run goes on up to this many).
    #[arg(long, default_value_t = 20)]
    epochs: u32,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16_384)]
    batch_size: usize,
    /// AdamW learning rate.
    #[arg(long, default_value_t = 0.001)]
    learning_rate: f32,
    /// Multiply the learning rate by --lr-gamma every this many epochs.
    #[arg(long, default_value_t = 8)]
    lr_step: u32,
    /// Factor the learning rate is multiplied by every --lr-step epochs.
    #[arg(long, default_value_t = 0.3)]
    lr_gamma: f32,
    #[command(flatten)]
    target: TargetArgs,
    /// Decoupled weight decay.
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f32,
    /// One game in this many is held out for validation (0: none).
    #[arg(long, default_value_t = 20)]
    validation_every: usize,
    /// Threads each batch is spread across.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the initial weights, the shuffles and the mirroring.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Trains up to `--epochs`, saying each epoch's losses, and writes the
/// checkpoint and the net after each.
///
/// # Errors
///
/// Data, records or a checkpoint that cannot be used, no training
/// positions, or a round asked to start from its own checkpoint (exit
/// status 2); a checkpoint or net that cannot be written.
pub fn run(args: &NnueArgs) -> xqcli::Result {
    let filter = Filter {
        max_score: args.target.max_score,
        validation_every: args.validation_every,
    };
    let mut data = read_games("nnue", &args.data, &filter)?;
    for path in &args.pgn {
        add_records(path, &mut data)?;
    }
    if data.train.is_empty() {
        return Err(Failure::usage("no training positions in the games"));
    }
    eprintln!(
        "{} games{}: {} training positions, {} held out",
        data.games,
        duplicates_note(&data),
        data.train.len(),
        data.validation.len()
    );
    let cfg = TrainConfig {
        loss: args.target.loss(),
        epochs: args.epochs,
        batch_size: args.batch_size.max(1),
        learning_rate: args.learning_rate,
        lr_step: args.lr_step.max(1),
        lr_gamma: args.lr_gamma,
        weight_decay: args.weight_decay,
        threads: args.threads.max(1),
        seed: args.seed,
    };
    if args.init_from.as_ref() == Some(&args.checkpoint) {
        return Err(Failure::usage(format!(
            "--init-from {} is the round's own --checkpoint: give the round another",
            args.checkpoint.display()
        )));
    }
    let mut trainer = starting_trainer(args)?;
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build_global()
    {
        eprintln!("xqtrain nnue: threads: {e}");
    }
    // A round starts from a trained net: its loss is the mark each epoch
    // must beat to be worth a match.
    if trainer.epoch == 0 && args.init_from.is_some() && !data.validation.is_empty() {
        let before = trainer.loss(&data.validation, &cfg.loss);
        eprintln!(
            "epoch 0/{}: validation {before:.6} (the starting net)",
            cfg.epochs
        );
    }
    while trainer.epoch < cfg.epochs {
        let r = trainer.epoch(&data.train, &data.validation, &cfg);
        let validation = r
            .validation_loss
            .map_or(String::new(), |v| format!(", validation {v:.6}"));
        eprintln!(
            "epoch {}/{}: train {:.6}{validation}, {:.0} samples/s, lr {}",
            r.epoch, cfg.epochs, r.train_loss, r.samples_per_second, r.learning_rate
        );
        save(&trainer, &args.checkpoint, &args.out)?;
    }
    // The net again, for a run that had no epoch left: a checkpoint is
    // exported as it is; one written before the activations were measured
    // (version 2) is measured on these games first.
    if !trainer.activations_measured() && !data.train.is_empty() {
        trainer.measure_activations(&data.train);
        eprintln!("activations measured (the output weights' rounding folded into the biases)");
    }
    save(&trainer, &args.checkpoint, &args.out)?;
    let net = trainer.net();
    out!(
        "net {} ({}, checksum {:08x}) after {} epochs",
        args.out.display(),
        net.architecture(),
        net.checksum(),
        trainer.epoch
    );
    Ok(())
}

/// The trainer `nnue` starts from: its own checkpoint resumed; or, when
/// there is none or `--fresh`, a new round from `--init-from` (grown into
/// the shape `--hidden` and `--features` ask for, when that is another) or
/// a new net of `--hidden` neurons.
fn starting_trainer(args: &NnueArgs) -> xqcli::Result<Trainer> {
    if !args.fresh && args.checkpoint.exists() {
        let t = resumed_checkpoint(&args.checkpoint, args)?;
        eprintln!(
            "resuming from {} after epoch {}",
            args.checkpoint.display(),
            t.epoch
        );
        return Ok(t);
    }
    let Some(from) = &args.init_from else {
        let hidden = args.hidden.unwrap_or(Architecture::DEFAULT.hidden());
        let features = args.features.unwrap_or(Architecture::DEFAULT.features());
        let arch = Architecture::new(features, hidden)
            .map_err(|e| Failure::usage(e).context(format_args!("--hidden {hidden}")))?;
        return Ok(Trainer::new(arch, args.seed));
    };
    let t = read_checkpoint(from)?;
    eprintln!(
        "a new round from {} (after its epoch {}, step {})",
        from.display(),
        t.epoch,
        t.step
    );
    // A shape asked for that is not the checkpoint's grows its net.
    let arch = t.layout.arch;
    let grown = match Architecture::new(
        args.features.unwrap_or(arch.features()),
        args.hidden.unwrap_or(arch.hidden()),
    ) {
        Ok(asked) if asked == arch => return Ok(t.new_round()),
        Ok(asked) => t.grown(asked, args.seed).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let t = grown
        .map_err(|e| Failure::usage(e).context(format_args!("--init-from {}", from.display())))?;
    eprintln!("grown from {arch} into {}", t.layout.arch);
    Ok(t)
}

/// A checkpoint.
///
/// # Errors
///
/// It cannot be read, named (exit status 2).
pub fn read_checkpoint(path: &Path) -> xqcli::Result<Trainer> {
    Trainer::load(path).map_err(|e| Failure::usage(e).context(path.display()))
}

/// The checkpoint to resume, of the shape `--hidden` and `--features` ask
/// for when given.
fn resumed_checkpoint(path: &Path, args: &NnueArgs) -> xqcli::Result<Trainer> {
    let t = read_checkpoint(path)?;
    let arch = t.layout.arch;
    let other = match (args.hidden, args.features) {
        (Some(h), _) if h != arch.hidden() => Some(format!("--hidden {h}")),
        (_, Some(f)) if f != arch.features() => Some(format!("--features {f}")),
        _ => None,
    };
    match other {
        Some(asked) => Err(Failure::usage(format!(
            "{} holds a net of {} hidden over {} inputs, not {asked}",
            path.display(),
            arch.hidden(),
            arch.features()
        ))),
        None => Ok(t),
    }
}

/// Writes the checkpoint and the quantised net, each whole or not at all
/// (their directories made when missing).
fn save(trainer: &Trainer, checkpoint: &Path, net: &Path) -> xqcli::Result {
    let bytes = trainer.net().to_bytes();
    for (path, bytes) in [(checkpoint, trainer.to_bytes()), (net, bytes)] {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        xqlearn::write_atomically(path, &bytes)
            .map_err(|e| Failure::new(e).context(path.display()))?;
    }
    Ok(())
}
