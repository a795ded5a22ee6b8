//! The float model: parameters, the sparse forward and backward passes of
//! one sample, and quantisation into the engine's integer net.
//!
//! ```text
//! acc_p = b1 + Σ W1[f]  over the active inputs f of perspective p
//! a_p   = clamp(acc_p, 0, 1)²                       (SCReLU)
//! out   = w2[bucket] · [a_us, a_them] + b2[bucket]
//! eval  = out x SCALE centipawns
//! ```
//!
//! The hidden neurons come in mirror pairs: neuron `j + hidden/2` is
//! neuron `j` looking at the board in a left-right mirror (its input
//! weights are those of the mirrored squares; its bias and output weight
//! are the same). Mirroring a position swaps each pair and leaves the
//! output unchanged, so the net is exactly mirror-symmetric, and every
//! sample teaches both orientations: the mirror doubles the data without
//! a second pass. Only the first neuron of each pair is a parameter.
//!
//! The loss of a sample is the squared distance between the predicted
//! win probability sigmoid(eval / K) and a target mixing the game result
//! with the search score's probability, sigmoid(score / K).

use rayon::prelude::*;
use xqcore::SplitMix64;
use xqnnue::{Architecture, FeatureSet, Network, BUCKETS, INPUTS, QA, QB, QI, SCALE};

use crate::data::{Sample, MAX_PIECES};
use crate::games::NO_SCORE;

/// Where each tensor of a net of one shape lies in the flat parameter
/// vector: input weights `[inputs][free]`, input biases `[free]`, output
/// weights `[BUCKETS][2][free]` (side to move's, other's), output biases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub arch: Architecture,
    /// Free neurons of a perspective: the first of each mirror pair.
    pub free: usize,
    pub input_biases: usize,
    pub output_weights: usize,
    pub output_biases: usize,
    /// King-square nets only: the piece-square columns `[INPUTS][free]`
    /// that every king square's column adds (a factoriser: what a piece
    /// on a square is worth whatever the king's square is learns from all
    /// the positions, not from those with the king on one square). They
    /// are summed into the net's columns when it is quantised.
    pub factor: Option<usize>,
    /// Number of parameters.
    pub params: usize,
}

/// The input weights start the vector.
pub const INPUT_WEIGHTS: usize = 0;

impl Layout {
    /// The layout of a net of shape `arch` (the sample features are
    /// piece-square: [`Sample::features`]).
    pub fn new(arch: Architecture) -> Layout {
        let free = arch.hidden() / 2;
        let input_biases = INPUT_WEIGHTS + arch.inputs() * free;
        let output_weights = input_biases + free;
        let output_biases = output_weights + BUCKETS * 2 * free;
        let end = output_biases + BUCKETS;
        let factor = arch.features().king_relative().then_some(end);
        Layout {
            arch,
            free,
            input_biases,
            output_weights,
            output_biases,
            factor,
            params: end + factor.map_or(0, |_| INPUTS * free),
        }
    }

    /// Where the columns input `f` adds start: its own, and its factor's.
    #[inline(always)]
    fn columns(&self, f: usize) -> [Option<usize>; 2] {
        [
            Some(INPUT_WEIGHTS + f * self.free),
            self.factor.map(|at| at + (f % INPUTS) * self.free),
        ]
    }

    /// Width of one perspective's hidden layer.
    pub fn hidden(&self) -> usize {
        2 * self.free
    }

    /// Number of output weights: `[BUCKETS][2][free]`.
    pub fn outputs(&self) -> usize {
        self.output_biases - self.output_weights
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout::new(Architecture::DEFAULT)
    }
}

/// Largest input weight or bias: a bias and 32 pieces' worth stay inside
/// the int16 accumulator once scaled by QI (33 x 0.96 x 1,020 = 32,314).
pub const INPUT_LIMIT: f32 = 0.96;
/// Largest output weight: scaled by QB it stays within -128..=127.
pub const OUTPUT_LIMIT: f32 = 127.0 / QB as f32;

/// How a sample's prediction is scored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossConfig {
    /// Weight of the game result in the target (the rest: the score).
    pub result_weight: f32,
    /// Centipawns of one unit of the logistic: sigmoid(cp / K).
    pub k: f32,
}

impl Default for LossConfig {
    fn default() -> Self {
        LossConfig {
            // The shipped net's round. 0.5 trained the nets before it; from
            // the same games it gave a net even with the one before, where
            // 0.2 gave one 45 Elo above it (docs/nnue.md).
            result_weight: 0.2,
            k: 400.0,
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Clamps `x` to SCReLU's linear range.
#[inline(always)]
fn unit(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// The mirror of every input of `set` (see [`FeatureSet::mirrored`]).
fn mirror_table(set: FeatureSet) -> &'static [u16] {
    use std::sync::LazyLock;
    fn table(set: FeatureSet) -> Vec<u16> {
        (0..set.inputs()).map(|f| set.mirrored(f) as u16).collect()
    }
    static PIECE_SQUARE: LazyLock<Vec<u16>> = LazyLock::new(|| table(FeatureSet::PieceSquare));
    static KING_SQUARE: LazyLock<Vec<u16>> = LazyLock::new(|| table(FeatureSet::KingSquare));
    match set {
        FeatureSet::KingSquare => &KING_SQUARE,
        _ => &PIECE_SQUARE,
    }
}

/// Adds input `f` to `acc`: its column to the first neurons of the pairs,
/// its mirror's column to the second.
#[inline(always)]
fn add_input(layout: &Layout, params: &[f32], mirrors: &[u16], f: usize, acc: &mut [f32]) {
    let free = layout.free;
    let (first, second) = acc.split_at_mut(free);
    for (half, input) in [(first, f), (second, mirrors[f] as usize)] {
        for at in layout.columns(input).into_iter().flatten() {
            for (a, w) in half.iter_mut().zip(&params[at..][..free]) {
                *a += w;
            }
        }
    }
}

/// One sample's activations, and room for its backward pass.
pub struct Activations {
    /// Hidden layer before SCReLU: the side to move's, then the other's.
    pub acc: [Vec<f32>; 2],
    /// The loss's gradient at `acc` (filled by [`backward`]).
    d_acc: [Vec<f32>; 2],
    pub features: [[u16; MAX_PIECES]; 2],
    pub count: usize,
    pub bucket: usize,
    /// The output, in units of [`SCALE`] centipawns.
    pub out: f32,
}

impl Activations {
    /// Room for the activations of a net laid out as `layout`.
    pub fn new(layout: &Layout) -> Activations {
        let hidden = || vec![0.0; layout.hidden()];
        Activations {
            acc: [hidden(), hidden()],
            d_acc: [hidden(), hidden()],
            features: [[0; MAX_PIECES]; 2],
            count: 0,
            bucket: 0,
            out: 0.0,
        }
    }
}

/// Forward pass of `sample` (mirrored or not) into `act`.
pub fn forward(
    layout: &Layout,
    params: &[f32],
    sample: &Sample,
    mirror: bool,
    act: &mut Activations,
) {
    let free = layout.free;
    let [us, them] = &mut act.features;
    let set = layout.arch.features();
    act.count = sample.features(set, mirror, us, them);
    let mirrors = mirror_table(set);
    act.bucket = sample.bucket as usize;
    let biases = &params[layout.input_biases..][..free];
    for p in 0..2 {
        act.acc[p][..free].copy_from_slice(biases);
        act.acc[p][free..].copy_from_slice(biases);
        for &f in &act.features[p][..act.count] {
            add_input(layout, params, mirrors, f as usize, &mut act.acc[p]);
        }
    }
    let w = &params[layout.output_weights + act.bucket * 2 * free..][..2 * free];
    let mut out = params[layout.output_biases + act.bucket];
    for p in 0..2 {
        let wp = &w[p * free..][..free];
        let (first, second) = act.acc[p].split_at(free);
        out += first
            .iter()
            .zip(second)
            .zip(wp)
            .map(|((&a, &b), &w)| (unit(a) * unit(a) + unit(b) * unit(b)) * w)
            .sum::<f32>();
    }
    act.out = out;
}

/// The target and prediction of a forward pass, as probabilities.
/// A position without a search score (from a game record) is judged by
/// its game's result alone.
pub fn target_and_prediction(sample: &Sample, out: f32, loss: &LossConfig) -> (f32, f32) {
    let target = if sample.score == NO_SCORE {
        sample.result_score()
    } else {
        let score = sigmoid(f32::from(sample.score) / loss.k);
        loss.result_weight * sample.result_score() + (1.0 - loss.result_weight) * score
    };
    (target, sigmoid(out * SCALE as f32 / loss.k))
}

/// Loss of `sample`, whose forward pass is in `act`; its gradient is added
/// into `grad`.
pub fn backward(
    layout: &Layout,
    params: &[f32],
    sample: &Sample,
    act: &mut Activations,
    loss: &LossConfig,
    grad: &mut [f32],
) -> f32 {
    let (free, hidden) = (layout.free, layout.hidden());
    let (target, pred) = target_and_prediction(sample, act.out, loss);
    let error = pred - target;
    // d(error²)/d(out) through the logistic.
    let g = 2.0 * error * pred * (1.0 - pred) * SCALE as f32 / loss.k;
    let b = act.bucket;
    grad[layout.output_biases + b] += g;
    let w = &params[layout.output_weights + b * 2 * free..][..2 * free];
    let d_acc = &mut act.d_acc;
    {
        let gw = &mut grad[layout.output_weights + b * 2 * free..][..2 * free];
        for p in 0..2 {
            let (acc, d) = (&act.acc[p][..hidden], &mut d_acc[p][..hidden]);
            let (wp, gwp) = (&w[p * free..][..free], &mut gw[p * free..][..free]);
            for i in 0..hidden {
                let a = unit(acc[i]);
                gwp[i % free] += g * a * a;
                // SCReLU's slope is 2a inside (0, 1), zero outside.
                let inside = f32::from(u8::from(acc[i] > 0.0 && acc[i] < 1.0));
                d[i] = g * wp[i % free] * 2.0 * a * inside;
            }
        }
    }
    let mirrors = mirror_table(layout.arch.features());
    let gb = &mut grad[layout.input_biases..][..free];
    for i in 0..free {
        gb[i] += d_acc[0][i] + d_acc[0][free + i] + d_acc[1][i] + d_acc[1][free + i];
    }
    for (d, features) in d_acc.iter().zip(&act.features) {
        let (first, second) = d.split_at(free);
        for &f in &features[..act.count] {
            let f = f as usize;
            for (half, input) in [(first, f), (second, mirrors[f] as usize)] {
                for at in layout.columns(input).into_iter().flatten() {
                    for (c, d) in grad[at..][..free].iter_mut().zip(half) {
                        *c += d;
                    }
                }
            }
        }
    }
    error * error
}

/// The loss of `sample` alone (no gradient).
pub fn loss_of(
    layout: &Layout,
    params: &[f32],
    sample: &Sample,
    mirror: bool,
    loss: &LossConfig,
    act: &mut Activations,
) -> f32 {
    forward(layout, params, sample, mirror, act);
    let (target, pred) = target_and_prediction(sample, act.out, loss);
    (pred - target) * (pred - target)
}

/// Fresh parameters: small random input weights (uniform, scaled to the
/// fan-in of ~26 active inputs), random output weights, zero biases.
pub fn initial_params(layout: &Layout, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed);
    let mut params = vec![0.0f32; layout.params];
    for p in &mut params[INPUT_WEIGHTS..layout.input_biases] {
        *p = initial_weight(&mut rng);
    }
    for p in &mut params[layout.output_weights..layout.output_biases] {
        *p = initial_weight(&mut rng);
    }
    params
}

/// A fresh weight: uniform in ±0.1.
pub fn initial_weight(rng: &mut SplitMix64) -> f32 {
    ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * 0.1
}

/// Whether a net of `from`'s shape can be grown into `to`'s
/// ([`grow_params`]): as wide or wider, over the same inputs or from
/// piece-square to king-square inputs.
pub fn can_grow(from: &Layout, to: &Layout) -> bool {
    let (a, b) = (from.arch.features(), to.arch.features());
    to.free >= from.free && (a == b || (!a.king_relative() && b.king_relative()))
}

/// A tensor of `from`'s layout (parameters, or one of AdamW's moments)
/// laid out as `to` (see [`can_grow`]), so that the grown parameters
/// compute the same evaluation: every old value keeps its place, a
/// piece-square column becomes the factor of its nine king-square
/// columns (whose own weights start at 0), and a new neuron gets input
/// weights from `fresh` in the columns every position reaches but a zero
/// bias and zero output weights, so it adds nothing until training finds
/// a use for it (its activation already gives its output weights a
/// gradient).
///
/// # Panics
/// If `from` cannot grow into `to`, or `tensor` is not of `from`'s size.
pub fn grow_params(
    from: &Layout,
    tensor: &[f32],
    to: &Layout,
    mut fresh: impl FnMut() -> f32,
) -> Vec<f32> {
    assert!(
        can_grow(from, to),
        "cannot grow {} into {}",
        from.arch,
        to.arch
    );
    assert_eq!(tensor.len(), from.params);
    let (old, new) = (from.free, to.free);
    let mut out = vec![0.0f32; to.params];
    let mut copy_rows = |src: usize, dst: usize, rows: usize| {
        for r in 0..rows {
            out[dst + r * new..][..old].copy_from_slice(&tensor[src + r * old..][..old]);
        }
    };
    // A piece-square net's columns are the factor of a king-square one's.
    let old_columns = from.arch.inputs();
    match (from.factor, to.factor) {
        (None, Some(factor)) => copy_rows(INPUT_WEIGHTS, factor, old_columns),
        (Some(from_factor), Some(factor)) => {
            copy_rows(INPUT_WEIGHTS, INPUT_WEIGHTS, old_columns);
            copy_rows(from_factor, factor, INPUTS);
        }
        _ => copy_rows(INPUT_WEIGHTS, INPUT_WEIGHTS, old_columns),
    }
    copy_rows(from.input_biases, to.input_biases, 1);
    copy_rows(from.output_weights, to.output_weights, BUCKETS * 2);
    out[to.output_biases..][..BUCKETS].copy_from_slice(&tensor[from.output_biases..][..BUCKETS]);
    let shared = to.factor.unwrap_or(INPUT_WEIGHTS);
    for f in 0..INPUTS {
        for w in &mut out[shared + f * new..][old..new] {
            *w = fresh();
        }
    }
    out
}

/// Keeps the parameters where quantisation cannot overflow.
pub fn clamp_params(layout: &Layout, params: &mut [f32]) {
    for p in &mut params[INPUT_WEIGHTS..layout.output_weights] {
        *p = p.clamp(-INPUT_LIMIT, INPUT_LIMIT);
    }
    for p in &mut params[layout.output_weights..layout.output_biases] {
        *p = p.clamp(-OUTPUT_LIMIT, OUTPUT_LIMIT);
    }
    if let Some(at) = layout.factor {
        for p in &mut params[at..] {
            *p = p.clamp(-INPUT_LIMIT, INPUT_LIMIT);
        }
    }
}

/// The weight input `f` gives neuron `j` (of the first of each pair): its
/// own, plus its factor's in a king-square net, kept within the limit
/// that bounds the accumulator.
fn input_weight(layout: &Layout, params: &[f32], f: usize, j: usize) -> f32 {
    let sum: f32 = layout
        .columns(f)
        .into_iter()
        .flatten()
        .map(|at| params[at + j])
        .sum();
    sum.clamp(-INPUT_LIMIT, INPUT_LIMIT)
}

/// What each output weight multiplies (the SCReLU activations of its
/// mirror pair), summed per bucket over forward passes: the statistics
/// with which [`quantise`] folds the output weights' rounding into the
/// biases.
#[derive(Clone, Debug)]
pub struct ActivationSums {
    /// Laid out as the output weights, `[BUCKETS][2][free]`.
    sums: Vec<f64>,
    counts: [u64; BUCKETS],
}

impl ActivationSums {
    /// No forward pass yet, for a net laid out as `layout`.
    pub fn new(layout: &Layout) -> ActivationSums {
        ActivationSums {
            sums: vec![0.0; layout.outputs()],
            counts: [0; BUCKETS],
        }
    }

    /// Adds the forward pass in `act`.
    pub fn add(&mut self, act: &Activations) {
        let free = act.acc[0].len() / 2;
        let sums = &mut self.sums[act.bucket * 2 * free..][..2 * free];
        for (p, acc) in act.acc.iter().enumerate() {
            let (first, second) = acc.split_at(free);
            for ((s, &a), &b) in sums[p * free..][..free].iter_mut().zip(first).zip(second) {
                *s += f64::from(unit(a) * unit(a) + unit(b) * unit(b));
            }
        }
        self.counts[act.bucket] += 1;
    }

    /// The passes of both.
    pub fn merge(mut self, other: &ActivationSums) -> ActivationSums {
        for (a, b) in self.sums.iter_mut().zip(&other.sums) {
            *a += b;
        }
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self
    }

    /// The mean of each, laid out as the output weights; zero in a bucket
    /// no pass reached.
    pub fn means(&self) -> Vec<f32> {
        let per_bucket = self.sums.len() / BUCKETS;
        self.sums
            .iter()
            .enumerate()
            .map(|(i, &s)| (s / self.counts[i / per_bucket].max(1) as f64) as f32)
            .collect()
    }
}

/// An output weight in the integer net's steps of 1/[`QB`].
fn output_step(w: f32) -> i16 {
    (w * QB as f32).round().clamp(-128.0, 127.0) as i16
}

/// How much rounding its output weights moves bucket `b`'s output on
/// average, given the mean of what each multiplies (laid out as the
/// output weights): what the integer net must add back to compute the
/// float model's evaluation on average.
fn rounding_offset(layout: &Layout, params: &[f32], means: &[f32], b: usize) -> f32 {
    let n = 2 * layout.free;
    let weights = &params[layout.output_weights + b * n..][..n];
    weights
        .iter()
        .zip(&means[b * n..][..n])
        .map(|(&w, &m)| (w - f32::from(output_step(w)) / QB as f32) * m)
        .sum()
}

/// The engine's integer net of `params`, every mirror pair written out.
///
/// Rounding the output weights to steps of 1/[`QB`] moves each bucket's
/// output by a constant on average (up to 15 cp in a trained net); with
/// `means` (`ActivationSums::means` over training positions) that
/// constant is added back through the bucket's bias.
///
/// # Panics
/// If `means` is not laid out as the output weights.
pub fn quantise(layout: &Layout, params: &[f32], means: Option<&[f32]>) -> Network {
    let (free, hidden) = (layout.free, layout.hidden());
    if let Some(means) = means {
        assert_eq!(means.len(), layout.outputs(), "one mean per output weight");
    }
    let q16 = |x: f32, s: i32| (x * s as f32).round().clamp(-32_767.0, 32_767.0) as i16;
    let inputs = layout.arch.inputs();
    let mut input_weights = vec![0i16; inputs * hidden];
    for f in 0..inputs {
        let mirror = layout.arch.features().mirrored(f);
        let column = &mut input_weights[f * hidden..][..hidden];
        for j in 0..free {
            column[j] = q16(input_weight(layout, params, f, j), QI);
            column[free + j] = q16(input_weight(layout, params, mirror, j), QI);
        }
    }
    let output_weights = params[layout.output_weights..layout.output_biases]
        .chunks(free)
        .flat_map(|half| half.iter().chain(half.iter()))
        .map(|&w| output_step(w))
        .collect();
    let output_biases = params[layout.output_biases..][..BUCKETS]
        .iter()
        .enumerate()
        .map(|(b, &bias)| {
            let offset = means.map_or(0.0, |m| rounding_offset(layout, params, m, b));
            ((bias + offset) * (QA * QB) as f32).round() as i32
        })
        .collect();
    let biases = &params[layout.input_biases..layout.output_weights];
    Network::new(
        layout.arch,
        input_weights,
        biases.iter().chain(biases).map(|&w| q16(w, QI)).collect(),
        output_weights,
        output_biases,
    )
    .expect("the layout's tensors fit its architecture, the output weights are clamped")
}

/// The float model's evaluation of `sample` in centipawns, side to move.
pub fn evaluate(layout: &Layout, params: &[f32], sample: &Sample) -> f32 {
    let mut act = Activations::new(layout);
    forward(layout, params, sample, false, &mut act);
    act.out * SCALE as f32
}

/// Mean loss over `samples` of the engine's integer net: what a round's
/// float loss becomes once quantised, so that nets compare as they play.
pub fn quantised_loss(net: &Network, samples: &[Sample], loss: &LossConfig) -> f64 {
    mean_loss(
        samples,
        || (),
        |(), s| {
            let cp = net.evaluate_board(&s.board(), s.turn);
            let (target, pred) = target_and_prediction(s, cp as f32 / SCALE as f32, loss);
            (pred - target) * (pred - target)
        },
    )
}

/// Mean of `loss_of_one` over `samples`, spread over the threads; each
/// chunk of samples gets its own scratch from `scratch`, so that buffers
/// are made once a chunk, not once a sample.
pub(crate) fn mean_loss<S>(
    samples: &[Sample],
    scratch: impl Fn() -> S + Sync,
    loss_of_one: impl Fn(&mut S, &Sample) -> f32 + Sync,
) -> f64 {
    let total: f64 = samples
        .par_chunks(4096)
        .map(|part| {
            let mut scratch = scratch();
            part.iter()
                .map(|s| f64::from(loss_of_one(&mut scratch, s)))
                .sum::<f64>()
        })
        .sum();
    total / samples.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::{GameResult, Position};

    /// Positions from a fixed pseudo-random game.
    fn positions(n: usize) -> Vec<Position> {
        let mut pos = Position::start();
        let mut out = Vec::new();
        let mut state = 7u64;
        while out.len() < n {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::start();
                continue;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pos.make_move(moves[(state >> 33) as usize % moves.len()]);
            out.push(pos.clone());
        }
        out
    }

    /// Parameters with a spread that puts many neurons inside (0, 1).
    fn lively_params(layout: &Layout, seed: u64) -> Vec<f32> {
        let mut params = initial_params(layout, seed);
        for p in &mut params[INPUT_WEIGHTS..layout.input_biases] {
            *p *= 0.5;
        }
        for p in &mut params[layout.input_biases..layout.output_weights] {
            *p = 0.3;
        }
        for p in &mut params[layout.output_weights..layout.output_biases] {
            *p *= 4.0;
        }
        if let Some(at) = layout.factor {
            let mut rng = SplitMix64::new(seed ^ 5);
            for p in &mut params[at..] {
                *p = ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1;
            }
        }
        params
    }

    /// The default layout, a narrower one, and one over king squares.
    fn layouts() -> [Layout; 3] {
        let narrow = Architecture::new(FeatureSet::PieceSquare, 96).unwrap();
        let kings = Architecture::new(FeatureSet::KingSquare, 64).unwrap();
        [Layout::default(), Layout::new(narrow), Layout::new(kings)]
    }

    #[test]
    fn gradients_match_finite_differences() {
        for layout in layouts() {
            gradients_match_finite_differences_in(&layout);
        }
    }

    fn gradients_match_finite_differences_in(layout: &Layout) {
        let loss = LossConfig {
            result_weight: 0.3,
            k: 400.0,
        };
        let (free, set) = (layout.free, layout.arch.features());
        let mut checked = 0;
        for (n, pos) in positions(30).iter().enumerate().skip(10).step_by(5) {
            let sample = Sample::new(pos, (n as i16 - 15) * 20, GameResult::RedWins);
            let mut params = lively_params(layout, n as u64);
            let mut act = Activations::new(layout);
            forward(layout, &params, &sample, false, &mut act);
            let mut grad = vec![0.0f32; layout.params];
            backward(layout, &params, &sample, &mut act, &loss, &mut grad);
            // Parameters the sample reaches: columns of its inputs and their
            // mirrors, the biases, its bucket's output weights and bias.
            let f = act.features[0][3] as usize;
            let mut picks = vec![
                INPUT_WEIGHTS + f * free + 5,
                INPUT_WEIGHTS + set.mirrored(act.features[1][2] as usize) * free + 17,
                layout.input_biases + 9,
                layout.output_weights + act.bucket * 2 * free + 40,
                layout.output_weights + act.bucket * 2 * free + free + 3,
                layout.output_biases + act.bucket,
            ];
            // The factor's column of the first input and its mirror's.
            if let Some(at) = layout.factor {
                let m = set.mirrored(act.features[1][2] as usize);
                picks.push(at + (f % INPUTS) * free + 7);
                picks.push(at + (m % INPUTS) * free + 11);
            }
            for &i in &picks {
                let h = 1e-3f32;
                let at = |params: &[f32], act: &mut Activations| {
                    f64::from(loss_of(layout, params, &sample, false, &loss, act))
                };
                let saved = params[i];
                params[i] = saved + h;
                let up = at(&params, &mut act);
                params[i] = saved - h;
                let down = at(&params, &mut act);
                params[i] = saved;
                let numeric = (up - down) / (2.0 * f64::from(h));
                let analytic = f64::from(grad[i]);
                let tolerance = 1e-4 + 0.05 * numeric.abs().max(analytic.abs());
                assert!(
                    (numeric - analytic).abs() <= tolerance,
                    "parameter {i}: numeric {numeric:.6e}, analytic {analytic:.6e}"
                );
                checked += usize::from(analytic.abs() > 1e-6);
            }
        }
        assert!(checked >= 10, "only {checked} non-zero gradients checked");
    }

    #[test]
    fn quantised_net_matches_the_float_model() {
        for layout in layouts() {
            quantised_net_matches_the_float_model_in(&layout);
        }
    }

    /// Parameters on the quantisation grid: the integer net must then
    /// agree with the float model up to its truncating divisions, so a slip
    /// in the layout or the scales shows at once. (Rounding off the grid is
    /// measured on the trained net: docs/nnue.md.)
    fn on_grid_params(layout: &Layout, seed: u64) -> Vec<f32> {
        let mut params = lively_params(layout, seed);
        let on_grid = |x: &mut f32, scale: i32| *x = (*x * scale as f32).round() / scale as f32;
        params[INPUT_WEIGHTS..layout.output_weights]
            .iter_mut()
            .for_each(|x| on_grid(x, QA));
        if let Some(at) = layout.factor {
            params[at..].iter_mut().for_each(|x| on_grid(x, QA));
        }
        // (Multiples of 1/255 are multiples of 4/1,020: the activations'
        // rounding is exact too.)
        params[layout.output_weights..layout.output_biases]
            .iter_mut()
            .for_each(|x| on_grid(x, QB));
        params[layout.output_biases..layout.output_biases + BUCKETS]
            .iter_mut()
            .for_each(|x| on_grid(x, QA * QB));
        params
    }

    fn quantised_net_matches_the_float_model_in(layout: &Layout) {
        let params = on_grid_params(layout, 42);
        let net = quantise(layout, &params, None);
        assert_eq!(net.architecture(), layout.arch);
        let mut worst = 0.0f32;
        for pos in positions(300) {
            let sample = Sample::new(&pos, 0, GameResult::Draw);
            let float = evaluate(layout, &params, &sample);
            let int = net.evaluate_board(pos.board(), pos.turn()) as f32;
            worst = worst.max((float - int).abs());
            assert!(
                (float - int).abs() <= 1.5 + 1e-4 * float.abs(),
                "{}: float {float:.1}, quantised {int}",
                pos.fen()
            );
        }
    }

    #[test]
    fn the_quantised_loss_is_the_float_loss_of_the_integer_net() {
        let loss = LossConfig::default();
        for layout in layouts() {
            let params = on_grid_params(&layout, 42);
            let samples: Vec<Sample> = positions(300)
                .iter()
                .enumerate()
                .map(|(n, pos)| Sample::new(pos, (n as i16 % 40 - 20) * 15, GameResult::RedWins))
                .collect();
            let mut act = Activations::new(&layout);
            let float = samples
                .iter()
                .map(|s| f64::from(loss_of(&layout, &params, s, false, &loss, &mut act)))
                .sum::<f64>()
                / samples.len() as f64;
            let net = quantise(&layout, &params, None);
            let quantised = quantised_loss(&net, &samples, &loss);
            // Within the integer net's truncation, not another net's loss.
            assert!(
                (quantised - float).abs() < 1e-4,
                "{quantised} against {float}"
            );
            // Every evaluation a whole SCALE higher: a clearly worse fit.
            let mut shifted = params.clone();
            for bias in &mut shifted[layout.output_biases..][..BUCKETS] {
                *bias += 1.0;
            }
            let other = quantise(&layout, &shifted, None);
            let elsewhere = quantised_loss(&other, &samples, &loss);
            assert!(
                (elsewhere - float).abs() > 1e-3,
                "{elsewhere} against {float}"
            );
        }
    }

    #[test]
    fn the_output_weights_rounding_is_folded_into_the_biases() {
        for layout in layouts() {
            // Only the output weights off the quantisation grid.
            let mut params = lively_params(&layout, 8);
            let on_grid = |x: &mut f32| *x = (*x * QA as f32).round() / QA as f32;
            params[INPUT_WEIGHTS..layout.output_weights]
                .iter_mut()
                .for_each(on_grid);
            if let Some(at) = layout.factor {
                params[at..].iter_mut().for_each(on_grid);
            }
            let positions = positions(400);
            let mut sums = ActivationSums::new(&layout);
            let mut act = Activations::new(&layout);
            for pos in &positions {
                forward(
                    &layout,
                    &params,
                    &Sample::new(pos, 0, GameResult::Draw),
                    false,
                    &mut act,
                );
                sums.add(&act);
            }
            let means = sums.means();
            // The mean gap between the float model and the integer net, per
            // bucket, without and with the correction.
            let gaps = |net: &Network| {
                let mut gap = [(0.0f64, 0u32); BUCKETS];
                for pos in &positions {
                    let sample = Sample::new(pos, 0, GameResult::Draw);
                    let float = evaluate(&layout, &params, &sample);
                    let int = net.evaluate_board(pos.board(), pos.turn()) as f32;
                    let g = &mut gap[sample.bucket as usize];
                    *g = (g.0 + f64::from(float - int), g.1 + 1);
                }
                gap.map(|(sum, n)| (n > 0).then(|| sum / f64::from(n)))
            };
            let plain = gaps(&quantise(&layout, &params, None));
            let folded = gaps(&quantise(&layout, &params, Some(&means)));
            let worst = |gaps: [Option<f64>; BUCKETS]| {
                gaps.iter().flatten().map(|g| g.abs()).fold(0.0, f64::max)
            };
            eprintln!("{}: {plain:?} -> {folded:?}", layout.arch);
            // What is left is the activations' rounding and the integer
            // divisions' truncation.
            assert!(worst(folded) <= 1.5, "{}: {folded:?}", layout.arch);
            assert!(
                worst(plain) > 2.0 * worst(folded),
                "{}: {plain:?}",
                layout.arch
            );
        }
    }

    #[test]
    fn a_grown_net_evaluates_as_before_and_its_new_neurons_learn() {
        let shape = |set, hidden| Layout::new(Architecture::new(set, hidden).unwrap());
        let (ps, ks) = (FeatureSet::PieceSquare, FeatureSet::KingSquare);
        for (from, to) in [
            (shape(ps, 64), shape(ps, 96)),
            (shape(ps, 64), shape(ks, 64)),
            (shape(ps, 64), shape(ks, 128)),
            (shape(ks, 64), shape(ks, 96)),
        ] {
            let params = lively_params(&from, 11);
            let mut rng = SplitMix64::new(5);
            let grown = grow_params(&from, &params, &to, || initial_weight(&mut rng));
            let (old_net, new_net) = (quantise(&from, &params, None), quantise(&to, &grown, None));
            assert_eq!(new_net.architecture(), to.arch);
            let loss = LossConfig::default();
            let mut learns = false;
            for (n, pos) in positions(200).iter().enumerate() {
                let sample = Sample::new(pos, 40, GameResult::RedWins);
                let (a, b) = (
                    evaluate(&from, &params, &sample),
                    evaluate(&to, &grown, &sample),
                );
                assert!(
                    (a - b).abs() <= 1e-3,
                    "{} into {}: {a} vs {b}",
                    from.arch,
                    to.arch
                );
                assert_eq!(
                    old_net.evaluate_board(pos.board(), pos.turn()),
                    new_net.evaluate_board(pos.board(), pos.turn()),
                    "{} into {} at {}",
                    from.arch,
                    to.arch,
                    pos.fen()
                );
                // The new neurons' output weights get a gradient.
                if to.free > from.free && n % 20 == 0 {
                    let mut act = Activations::new(&to);
                    forward(&to, &grown, &sample, false, &mut act);
                    let mut grad = vec![0.0f32; to.params];
                    backward(&to, &grown, &sample, &mut act, &loss, &mut grad);
                    let bucket = to.output_weights + act.bucket * 2 * to.free;
                    learns |= grad[bucket + from.free..bucket + to.free]
                        .iter()
                        .any(|g| g.abs() > 1e-7);
                }
            }
            assert!(
                learns || to.free == from.free,
                "{} into {}",
                from.arch,
                to.arch
            );
        }
        // Narrower, or from king squares back to piece-square: refused.
        assert!(!can_grow(&shape(ps, 96), &shape(ps, 64)));
        assert!(!can_grow(&shape(ks, 64), &shape(ps, 64)));
        assert!(!can_grow(&shape(ks, 64), &shape(ps, 128)));
    }

    #[test]
    fn the_model_is_mirror_symmetric() {
        for layout in layouts() {
            mirror_symmetric(&layout);
        }
    }

    fn mirror_symmetric(layout: &Layout) {
        let layout = *layout;
        let params = lively_params(&layout, 3);
        for pos in positions(100) {
            let a = evaluate(&layout, &params, &Sample::new(&pos, 0, GameResult::Draw));
            let b = evaluate(
                &layout,
                &params,
                &Sample::new(&pos.mirror(), 0, GameResult::Draw),
            );
            assert!(
                (a - b).abs() < 1e-3 * a.abs().max(1.0),
                "{a} vs {b} at {}",
                pos.fen()
            );
        }
    }
}
