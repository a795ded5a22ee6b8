//! AdamW over shuffled batches, spread across threads, with validation
//! and resumable checkpoints.
//!
//! Each thread runs the forward and backward passes of its share of a
//! batch into a gradient buffer of its own; the buffers are summed and one
//! AdamW step updates every parameter (the batch touches nearly every
//! input column, so a dense step costs little next to the passes).

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use xqcore::SplitMix64;

use crate::data::Sample;
use xqnnue::{Architecture, FeatureSet, Network};

use crate::model::{
    backward, can_grow, clamp_params, forward, grow_params, initial_params, initial_weight,
    loss_of, mean_loss, quantise, ActivationSums, Activations, Layout, LossConfig,
};

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub loss: LossConfig,
    /// Epochs in all (a resumed run goes on to this many).
    pub epochs: u32,
    pub batch_size: usize,
    pub learning_rate: f32,
    /// The learning rate is multiplied by `lr_gamma` every this many epochs.
    pub lr_step: u32,
    pub lr_gamma: f32,
    /// Decoupled weight decay (AdamW), per unit of learning rate.
    pub weight_decay: f32,
    pub threads: usize,
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            loss: LossConfig::default(),
            epochs: 20,
            batch_size: 16_384,
            learning_rate: 0.001,
            lr_step: 8,
            lr_gamma: 0.3,
            weight_decay: 0.01,
            threads: 2,
            seed: 1,
        }
    }
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// The trainable state: parameters, AdamW's moments, and where training
/// stands. Saved whole as a checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    /// The shape of the net being trained, and where its tensors lie.
    pub layout: Layout,
    pub params: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    /// Optimiser steps taken.
    pub step: u64,
    /// Epochs completed.
    pub epoch: u32,
    /// Per output bucket, the mean over training positions of what each
    /// output weight multiplies, measured after each epoch: quantisation
    /// folds the output weights' rounding into the biases with them
    /// ([`quantise`]). All zero until measured (no correction).
    pub mean_activations: Vec<f32>,
}

/// What an epoch measured.
#[derive(Clone, Copy, Debug)]
pub struct EpochReport {
    pub epoch: u32,
    pub train_loss: f64,
    pub validation_loss: Option<f64>,
    pub samples_per_second: f64,
    pub learning_rate: f32,
}

/// Why a checkpoint could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a checkpoint of this trainer (magic, version or size)")]
    Foreign,
    #[error("a checkpoint of a net this program cannot train: {0}")]
    Architecture(#[from] xqnnue::NetError),
    #[error("checksum mismatch (the file is damaged)")]
    Checksum,
}

/// Why a net cannot grow into another shape ([`Trainer::grown`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a net of {from} cannot grow into {to}: a grown net is as wide or wider, over the same inputs or king-square ones where it had piece-square")]
pub struct GrowError {
    pub from: Architecture,
    pub to: Architecture,
}

/// The first bytes of a checkpoint.
const CHECKPOINT_MAGIC: [u8; 8] = *b"XQCKPT\0\0";
/// Checkpoint version written. Version 3 adds the mean activations after
/// the moments; version 2's header names the feature set and the hidden
/// width; version 1 was the 256-wide piece-square net. Versions 1 and 2
/// still read, their means unmeasured.
const CHECKPOINT_VERSION: u16 = 3;
/// Training positions whose activations are measured (evenly spread).
const MEASURED_SAMPLES: usize = 1 << 17;
/// Bytes of the header written: magic, version, feature set, hidden,
/// zero, parameter count, step, epoch.
const CHECKPOINT_HEAD: usize = 32;

impl Trainer {
    /// A fresh model of shape `arch`.
    pub fn new(arch: Architecture, seed: u64) -> Trainer {
        let layout = Layout::new(arch);
        Trainer {
            layout,
            params: initial_params(&layout, seed),
            m: vec![0.0; layout.params],
            v: vec![0.0; layout.params],
            step: 0,
            epoch: 0,
            mean_activations: vec![0.0; layout.outputs()],
        }
    }

    /// The quantised net of the current parameters, the output weights'
    /// rounding folded into the biases as far as the activations have
    /// been measured.
    pub fn net(&self) -> Network {
        quantise(&self.layout, &self.params, Some(&self.mean_activations))
    }

    /// Whether the mean activations have been measured.
    pub fn activations_measured(&self) -> bool {
        self.mean_activations.iter().any(|&m| m != 0.0)
    }

    /// Measures the mean activations over up to 131,072 of `samples`,
    /// evenly spread (in the same order whatever the threads, so the net
    /// quantises the same).
    pub fn measure_activations(&mut self, samples: &[Sample]) {
        let stride = samples.len().div_ceil(MEASURED_SAMPLES).max(1);
        let picked: Vec<&Sample> = samples.iter().step_by(stride).collect();
        let layout = self.layout;
        let parts: Vec<ActivationSums> = picked
            .par_chunks(4096)
            .map(|part| {
                let mut act = Activations::new(&layout);
                let mut sums = ActivationSums::new(&layout);
                for sample in part {
                    forward(&layout, &self.params, sample, false, &mut act);
                    sums.add(&act);
                }
                sums
            })
            .collect();
        let total = parts
            .iter()
            .fold(ActivationSums::new(&layout), |all, part| all.merge(part));
        self.mean_activations = total.means();
    }

    /// The same net and optimiser state at the start of a new round of
    /// epochs (on new data, with its own schedule).
    pub fn new_round(self) -> Trainer {
        Trainer { epoch: 0, ..self }
    }

    /// The same net in the larger shape `arch` (wider, or over king-square
    /// inputs where it had piece-square ones), computing the same
    /// evaluation until it is trained: `grow_params`. AdamW's moments
    /// keep their places and start at zero for the new parameters; the
    /// step count restarts so that the bias correction is right for those
    /// (the old parameters then move more cautiously for a few hundred
    /// steps). Epochs count from 0, as in [`Trainer::new_round`].
    ///
    /// # Errors
    /// [`GrowError`] when `arch` is narrower or over other inputs.
    pub fn grown(self, arch: Architecture, seed: u64) -> Result<Trainer, GrowError> {
        let to = Layout::new(arch);
        let from = self.layout;
        if !can_grow(&from, &to) {
            return Err(GrowError {
                from: from.arch,
                to: arch,
            });
        }
        let mut rng = SplitMix64::new(seed);
        let mut params = grow_params(&from, &self.params, &to, || initial_weight(&mut rng));
        clamp_params(&to, &mut params);
        Ok(Trainer {
            layout: to,
            params,
            m: grow_params(&from, &self.m, &to, || 0.0),
            v: grow_params(&from, &self.v, &to, || 0.0),
            step: 0,
            epoch: 0,
            mean_activations: vec![0.0; to.outputs()],
        })
    }

    /// The learning rate of the current epoch.
    pub fn learning_rate(&self, cfg: &TrainConfig) -> f32 {
        cfg.learning_rate * cfg.lr_gamma.powi((self.epoch / cfg.lr_step.max(1)) as i32)
    }

    /// One AdamW step with the summed gradient of `n` samples.
    fn apply(&mut self, grad: &[f32], n: usize, lr: f32, cfg: &TrainConfig) {
        self.step += 1;
        let t = self.step as i32;
        let (c1, c2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let scale = 1.0 / n as f32;
        let decay = 1.0 - lr * cfg.weight_decay;
        self.params
            .par_chunks_mut(4096)
            .zip(self.m.par_chunks_mut(4096))
            .zip(self.v.par_chunks_mut(4096))
            .zip(grad.par_chunks(4096))
            .for_each(|(((p, m), v), g)| {
                for i in 0..p.len() {
                    let g = g[i] * scale;
                    m[i] = BETA1 * m[i] + (1.0 - BETA1) * g;
                    v[i] = BETA2 * v[i] + (1.0 - BETA2) * g * g;
                    p[i] = p[i] * decay - lr * (m[i] / c1) / ((v[i] / c2).sqrt() + EPSILON);
                }
            });
        clamp_params(&self.layout, &mut self.params);
    }

    /// Trains one epoch over `train` (shuffled), then measures `validation`.
    pub fn epoch(
        &mut self,
        train: &[Sample],
        validation: &[Sample],
        cfg: &TrainConfig,
    ) -> EpochReport {
        let started = std::time::Instant::now();
        let lr = self.learning_rate(cfg);
        let mut rng =
            SplitMix64::new(cfg.seed ^ u64::from(self.epoch).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        let threads = cfg.threads.max(1);
        let layout = self.layout;
        let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0; layout.params]).collect();
        let mut total = 0.0f64;
        for batch in order.chunks(cfg.batch_size.max(1)) {
            let share = batch.len().div_ceil(threads);
            let params = &self.params;
            let loss: f64 = grads
                .par_iter_mut()
                .zip(batch.par_chunks(share))
                .map(|(grad, part)| {
                    grad.fill(0.0);
                    let mut act = Activations::new(&layout);
                    let mut sum = 0.0f64;
                    for &i in part {
                        // The model is mirror-symmetric: no need to mirror.
                        let sample = &train[i as usize];
                        forward(&layout, params, sample, false, &mut act);
                        let loss = backward(&layout, params, sample, &mut act, &cfg.loss, grad);
                        sum += f64::from(loss);
                    }
                    sum
                })
                .sum();
            total += loss;
            let (first, rest) = grads.split_at_mut(1);
            for other in rest.iter().take(batch.len().div_ceil(share) - 1) {
                first[0]
                    .par_chunks_mut(4096)
                    .zip(other.par_chunks(4096))
                    .for_each(|(a, b)| {
                        for (x, y) in a.iter_mut().zip(b) {
                            *x += y;
                        }
                    });
            }
            self.apply(&first[0], batch.len(), lr, cfg);
        }
        let elapsed = started.elapsed().as_secs_f64();
        self.epoch += 1;
        self.measure_activations(train);
        EpochReport {
            epoch: self.epoch,
            train_loss: total / train.len().max(1) as f64,
            validation_loss: (!validation.is_empty()).then(|| self.loss(validation, &cfg.loss)),
            samples_per_second: train.len() as f64 / elapsed,
            learning_rate: lr,
        }
    }

    /// Mean loss over `samples` (not mirrored).
    pub fn loss(&self, samples: &[Sample], loss: &LossConfig) -> f64 {
        mean_loss(
            samples,
            || Activations::new(&self.layout),
            |act, s| loss_of(&self.layout, &self.params, s, false, loss, act),
        )
    }

    /// The checkpoint's bytes: header, parameters, moments and mean
    /// activations, checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let arch = self.layout.arch;
        let floats = 3 * self.layout.params + self.layout.outputs();
        let mut out = Vec::with_capacity(CHECKPOINT_HEAD + 4 * floats + 4);
        out.extend_from_slice(&CHECKPOINT_MAGIC);
        for word in [
            CHECKPOINT_VERSION,
            arch.features().id(),
            arch.hidden() as u16,
            0,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&(self.layout.params as u32).to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.epoch.to_le_bytes());
        let moments = self.m.iter().chain(&self.v);
        for x in self
            .params
            .iter()
            .chain(moments)
            .chain(&self.mean_activations)
        {
            out.extend_from_slice(&x.to_le_bytes());
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a checkpoint's bytes (version 1, 2 or 3).
    ///
    /// # Errors
    /// [`CheckpointError::Foreign`] for another file or a size that does not
    /// fit the header, [`CheckpointError::Architecture`] for a net shape
    /// this program cannot train, [`CheckpointError::Checksum`] for a
    /// damaged file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Trainer, CheckpointError> {
        if bytes.len() < CHECKPOINT_HEAD + 4 || bytes[..8] != CHECKPOINT_MAGIC {
            return Err(CheckpointError::Foreign);
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        // Version 1 had a zero word where version 2 has the feature set,
        // hidden width and another zero; the rest follows 4 bytes earlier.
        let version = u16_at(8);
        let (arch, at) = match version {
            1 => (Architecture::DEFAULT, 12),
            2 | 3 => {
                let features = FeatureSet::from_id(u16_at(10)).ok_or_else(|| {
                    xqnnue::NetError::Architecture(format!("feature set {}", u16_at(10)))
                })?;
                (Architecture::new(features, usize::from(u16_at(12)))?, 16)
            }
            _ => return Err(CheckpointError::Foreign),
        };
        let layout = Layout::new(arch);
        let head = at + 16;
        let means = if version == 3 { layout.outputs() } else { 0 };
        let size = head + 4 * (3 * layout.params + means) + 4;
        if u32_at(at) as usize != layout.params || bytes.len() != size {
            return Err(CheckpointError::Foreign);
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body).to_le_bytes() != crc {
            return Err(CheckpointError::Checksum);
        }
        let step = u64::from_le_bytes(body[at + 4..at + 12].try_into().expect("8 bytes"));
        let epoch = u32_at(at + 12);
        let floats: Vec<f32> = body[head..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let n = layout.params;
        let mut mean_activations = floats[3 * n..].to_vec();
        mean_activations.resize(layout.outputs(), 0.0);
        Ok(Trainer {
            layout,
            params: floats[..n].to_vec(),
            m: floats[n..2 * n].to_vec(),
            v: floats[2 * n..3 * n].to_vec(),
            step,
            epoch,
            mean_activations,
        })
    }

    /// Reads a checkpoint file.
    pub fn load(path: &Path) -> Result<Trainer, CheckpointError> {
        Trainer::from_bytes(&std::fs::read(path)?)
    }

    /// Writes a checkpoint file whole or not at all (beside, then renamed).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.to_bytes())
    }
}

/// Writes `bytes` to `path` whole or not at all: an interrupted write
/// leaves the old file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    xqstore::write_whole(path, |_, file| file.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{game_samples, Filter};
    use crate::games::{GameRecord, NO_SCORE};
    use xqcore::{GameResult, Position};

    /// Samples of pseudo-random games whose scores say who is ahead.
    fn samples() -> Vec<Sample> {
        let mut out = Vec::new();
        let mut state = 11u64;
        for g in 0..60 {
            let mut pos = Position::start();
            let mut moves = Vec::new();
            for ply in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = legal[(state >> 33) as usize % legal.len()];
                let score = if ply < 4 {
                    NO_SCORE
                } else {
                    ((state >> 20) % 200) as i16 - 100
                };
                pos.make_move(m);
                moves.push((m, score));
            }
            let result = [GameResult::RedWins, GameResult::Draw, GameResult::BlackWins][g % 3];
            let game = GameRecord {
                start: None,
                moves,
                result,
            };
            out.extend(game_samples(&game, &Filter::default()));
        }
        out
    }

    #[test]
    fn training_lowers_the_loss_and_checkpoints_round_trip() {
        let data = samples();
        let cfg = TrainConfig {
            batch_size: 256,
            epochs: 5,
            threads: 2,
            ..TrainConfig::default()
        };
        let mut trainer = Trainer::new(Architecture::DEFAULT, 1);
        let before = trainer.loss(&data, &cfg.loss);
        for _ in 0..5 {
            trainer.epoch(&data, &[], &cfg);
        }
        let after = trainer.loss(&data, &cfg.loss);
        assert!(after < before * 0.9, "loss {before} -> {after}");
        let bytes = trainer.to_bytes();
        let back = Trainer::from_bytes(&bytes).unwrap();
        assert_eq!(back, trainer);
        // Resuming goes on exactly as an uninterrupted run.
        let mut a = trainer.clone();
        let mut b = back;
        a.epoch(&data, &[], &cfg);
        b.epoch(&data, &[], &cfg);
        assert_eq!(a, b);
        let mut damaged = bytes.clone();
        damaged[100] ^= 1;
        assert!(matches!(
            Trainer::from_bytes(&damaged),
            Err(CheckpointError::Checksum)
        ));
        assert!(matches!(
            Trainer::from_bytes(&bytes[..50]),
            Err(CheckpointError::Foreign)
        ));
    }

    #[test]
    fn a_grown_trainer_starts_at_the_old_loss_trains_and_checkpoints() {
        let data = samples();
        let cfg = TrainConfig {
            batch_size: 256,
            ..TrainConfig::default()
        };
        let narrow = Architecture::new(FeatureSet::PieceSquare, 64).unwrap();
        let mut trainer = Trainer::new(narrow, 4);
        trainer.epoch(&data, &[], &cfg);
        let before = trainer.loss(&data, &cfg.loss);
        let kings = Architecture::new(FeatureSet::KingSquare, 96).unwrap();
        let mut grown = trainer.clone().grown(kings, 9).unwrap();
        assert_eq!((grown.layout.arch, grown.step, grown.epoch), (kings, 0, 0));
        let start = grown.loss(&data, &cfg.loss);
        assert!((start - before).abs() < 1e-6, "{before} -> {start}");
        grown.epoch(&data, &[], &cfg);
        assert!(grown.loss(&data, &cfg.loss) < start);
        assert_eq!(Trainer::from_bytes(&grown.to_bytes()).unwrap(), grown);
        assert_eq!(
            grown.clone().grown(narrow, 9),
            Err(GrowError {
                from: kings,
                to: narrow
            })
        );
    }

    /// `trainer`'s checkpoint in version 1's layout (a 256-wide net) or
    /// version 2's: without the mean activations.
    fn old_bytes(trainer: &Trainer, version: u16) -> Vec<u8> {
        let v3 = trainer.to_bytes();
        let end = v3.len() - 4 - 4 * trainer.layout.outputs();
        let mut out = v3[..8].to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        match version {
            1 => out.extend_from_slice(&0u16.to_le_bytes()),
            _ => out.extend_from_slice(&v3[10..16]),
        }
        out.extend_from_slice(&v3[16..end]);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    #[test]
    fn checkpoints_name_their_net_and_versions_1_and_2_still_read() {
        let default = Trainer::new(Architecture::DEFAULT, 2);
        assert_eq!(
            Trainer::from_bytes(&old_bytes(&default, 1)).unwrap(),
            default
        );
        let narrow = Architecture::new(FeatureSet::PieceSquare, 64).unwrap();
        let mut trainer = Trainer::new(narrow, 3);
        let cfg = TrainConfig {
            batch_size: 256,
            ..TrainConfig::default()
        };
        trainer.epoch(&samples(), &[], &cfg);
        let back = Trainer::from_bytes(&trainer.to_bytes()).unwrap();
        assert_eq!(back, trainer);
        assert_eq!(back.net().architecture(), narrow);
        // Version 2 had no mean activations: the same net, unmeasured.
        assert!(trainer.activations_measured());
        let v2 = Trainer::from_bytes(&old_bytes(&trainer, 2)).unwrap();
        assert!(!v2.activations_measured());
        assert_eq!(v2.params, trainer.params);
        assert_eq!(v2.net().output_weights(), trainer.net().output_weights());
        assert_ne!(v2.net().output_biases(), trainer.net().output_biases());
        let mut odd = trainer.to_bytes();
        odd[12] = 48; // a width the kernels cannot take
        assert!(matches!(
            Trainer::from_bytes(&odd),
            Err(CheckpointError::Architecture(_))
        ));
    }
}
