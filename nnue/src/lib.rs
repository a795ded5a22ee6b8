//! The engine's learned evaluation (NNUE): an efficiently updatable neural
//! network over piece-square inputs ([`FeatureSet`]).
//!
//! Architecture (version 2 of the net file names the feature set and the
//! width):
//!
//! ```text
//! inputs   1,260 per perspective: 14 pieces (own 7, enemy 7) x 90 squares,
//!          the board seen from that side (Black's view rotated); or, for
//!          the king-square feature set, those once for each palace square
//!          of the perspective's own king (11,340)
//! hidden   H per perspective (the accumulator; 256 in the shipped net, a
//!          multiple of 32 up to 1,024), shared weights, the side to
//!          move's half first: 2H values
//! act      SCReLU: clamp(x, 0, 1)^2
//! output   1 of 8 buckets chosen by the attacking material left
//! ```
//!
//! - [`FeatureSet`], [`feature`], [`bucket`]: the input and bucket layout,
//!   shared with the trainer.
//! - [`Network`]: a quantised net, read from its file format or embedded.
//! - [`Accumulator`]: the hidden layer of a position, built from scratch or
//!   updated move by move ([`AccumulatorStack`] along a search's line);
//!   [`Network::evaluate`] finishes it to centipawns.
//!
//! The modules are private: everything a user needs is named here, at the
//! root.
//!
//! The integer kernels live in one private module with the crate's only
//! `unsafe`: AVX2 chosen at run time, portable code otherwise.

mod accumulator;
mod features;
mod network;
mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use features::{bucket, feature, king_home, FeatureSet, BUCKETS, INPUTS, PALACE};
pub use network::{Architecture, NetError, Network, FORMAT_VERSION, MAGIC};

/// The widest hidden layer (one perspective's) this program evaluates: it
/// sizes the accumulators.
pub const MAX_HIDDEN: usize = 1024;
/// Quantisation of the activations: 1.0 is 255, the top of SCReLU's range.
pub const QA: i32 = 255;
/// The accumulator keeps this many bits below the activations' steps: input
/// weights and biases are scaled by `QA << ACC_SHIFT` (1,020), so the sum of
/// some 30 of them is rounded once, to 1/255, when it is activated, instead
/// of carrying 30 roundings of 1/255.
pub const ACC_SHIFT: u32 = 2;
/// Scale of the input weights, biases and accumulators.
pub const QI: i32 = QA << ACC_SHIFT;
/// Quantisation of the output weights: steps of 1/256, so that the small
/// weights a 512-input output layer learns (around 0.08) keep 5 % or finer
/// resolution; the int16 product of an activation (at most 255) and a
/// weight bounds the weights to ±127/256.
pub const QB: i32 = 256;
/// Centipawns of one unit of the net's output.
pub const SCALE: i32 = 400;

/// Random nets for the tests, mirror-paired as the trainer makes them.
#[cfg(test)]
pub(crate) mod model_for_tests {
    use crate::{Architecture, FeatureSet, Network, BUCKETS};

    /// A random net of the shipped net's shape.
    pub fn random_net(seed: u64) -> Network {
        random_net_of(
            FeatureSet::PieceSquare,
            Architecture::DEFAULT.hidden(),
            seed,
        )
    }

    /// A random net over `set` of `hidden` neurons a perspective, which come
    /// in mirror pairs, in the ranges the trainer keeps (input weights
    /// within ±505, output within ±127).
    pub fn random_net_of(set: FeatureSet, hidden: usize, seed: u64) -> Network {
        let arch = Architecture::new(set, hidden).expect("a valid width");
        let inputs = set.inputs();
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut rand = move |range: i32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 20) % (2 * range as u64 + 1)) as i32 - range
        };
        let free = hidden / 2;
        let own: Vec<i16> = (0..inputs * free).map(|_| rand(120) as i16).collect();
        let mut input_weights = vec![0i16; inputs * hidden];
        for f in 0..inputs {
            for j in 0..free {
                input_weights[f * hidden + j] = own[f * free + j];
                input_weights[f * hidden + free + j] = own[set.mirrored(f) * free + j];
            }
        }
        let biases: Vec<i16> = (0..free).map(|_| rand(200) as i16).collect();
        let mut output_weights = Vec::new();
        for _ in 0..2 * BUCKETS {
            let half: Vec<i16> = (0..free).map(|_| rand(127) as i16).collect();
            output_weights.extend_from_slice(&half);
            output_weights.extend_from_slice(&half);
        }
        Network::new(
            arch,
            input_weights,
            biases.iter().chain(&biases).copied().collect(),
            output_weights,
            (0..BUCKETS).map(|_| rand(100_000)).collect(),
        )
        .expect("tensors of the architecture's sizes")
    }
}
