//! A quantised net and its file format.
//!
//! Layout, little-endian (version 2):
//!
//! ```text
//! header  36 bytes
//!   magic "XQNNUE\0\0", u16 format version (2), u16 feature set id
//!   (0 piece-square, 1 king-square), u16 inputs (1,260 or 11,340),
//!   u16 hidden (256 for the shipped net), u16 buckets (8), u16 QA (255),
//!   u16 QB (256), u16 scale (400), u16 accumulator shift (2), u16 zero,
//!   u32 payload length, u32 CRC-32 of the payload
//! payload
//!   i16 input weights [inputs][hidden], i16 input biases [hidden]
//!       (scaled by QA << shift),
//!   i16 output weights [buckets][2 x hidden] (side to move's half first),
//!   i32 output biases [buckets]
//! ```
//!
//! Version 1 files (the same without the feature set id and the zero, a
//! 32-byte header) are piece-square nets and still read; nets are written
//! as version 2. The feature set id names the input layout and bucket
//! scheme ([`crate::FeatureSet`]) as much as the bytes do: a net is read
//! only by code that computes its inputs the same way.

use std::path::Path;

use crate::features::{FeatureSet, BUCKETS};
use crate::simd::AlignedVec;
use crate::{ACC_SHIFT, MAX_HIDDEN, QA, QB, SCALE};

/// The first bytes of a net file.
pub const MAGIC: [u8; 8] = *b"XQNNUE\0\0";
/// The format version written.
pub const FORMAT_VERSION: u16 = 2;
/// Bytes of the header written.
pub(crate) const HEADER_LEN: usize = 36;
/// Bytes of a version 1 header.
const V1_HEADER_LEN: usize = 32;

/// The net shipped inside the engine.
static EMBEDDED: &[u8] = include_bytes!("../nets/default.xqnn");

/// Why a net file was refused.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a net file (no XQNNUE header)")]
    NotANet,
    #[error("net format version {0}: this program reads versions 1 and {FORMAT_VERSION}")]
    Version(u16),
    #[error("net architecture {0}: this program reads piece-square and king-square nets of 32 to {MAX_HIDDEN} hidden neurons (a multiple of 32) with {BUCKETS} buckets, QA {QA}, QB {QB}, scale {SCALE}, shift {ACC_SHIFT}")]
    Architecture(String),
    #[error("truncated: {have} bytes, the header says {want}")]
    Truncated { have: usize, want: usize },
    #[error("checksum mismatch (the file is damaged)")]
    Checksum,
    #[error("output weight {0} is outside -128..=127")]
    WeightRange(i16),
}

/// The shape of a net: the inputs it reads and the width of its hidden
/// layer (one perspective's). Everything else is fixed by this program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Architecture {
    features: FeatureSet,
    hidden: usize,
}

impl Architecture {
    /// The shipped net's shape: piece-square inputs, 256 hidden.
    pub const DEFAULT: Architecture = Architecture {
        features: FeatureSet::PieceSquare,
        hidden: 256,
    };

    /// A shape this program can evaluate.
    ///
    /// # Errors
    /// [`NetError::Architecture`] unless `hidden` is a multiple of 32 from
    /// 32 to [`MAX_HIDDEN`] (the kernels work in blocks of 32 or more and the
    /// trainer's neurons come in mirror pairs).
    pub fn new(features: FeatureSet, hidden: usize) -> Result<Architecture, NetError> {
        if hidden == 0 || hidden > MAX_HIDDEN || !hidden.is_multiple_of(32) {
            return Err(NetError::Architecture(format!(
                "{features} with {hidden} hidden"
            )));
        }
        Ok(Architecture { features, hidden })
    }

    /// What the net reads.
    pub fn features(self) -> FeatureSet {
        self.features
    }

    /// Inputs of one perspective.
    pub fn inputs(self) -> usize {
        self.features.inputs()
    }

    /// Width of one perspective's hidden layer.
    pub fn hidden(self) -> usize {
        self.hidden
    }

    /// Bytes of a net file's payload.
    pub fn payload_len(self) -> usize {
        let h = self.hidden;
        2 * (self.inputs() * h + h + BUCKETS * 2 * h) + 4 * BUCKETS
    }
}

impl std::fmt::Display for Architecture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}->{}x2->1x{BUCKETS}",
            self.features,
            self.inputs(),
            self.hidden
        )
    }
}

/// A quantised net: input weights and biases scaled by [`crate::QI`],
/// output weights by [`QB`], output biases by `QA x QB`.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    arch: Architecture,
    /// `[inputs][hidden]`: the column of each input. The tensors are
    /// aligned for the kernels' aligned loads.
    input_weights: AlignedVec,
    /// `[hidden]`.
    input_biases: AlignedVec,
    /// `[BUCKETS][2 * hidden]`.
    output_weights: AlignedVec,
    /// `[BUCKETS]`.
    output_biases: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({}, checksum {:08x})",
            self.arch,
            self.checksum()
        )
    }
}

impl Network {
    /// A net of shape `arch` from its quantised tensors, laid out as in
    /// the file.
    ///
    /// # Errors
    /// [`NetError::Architecture`] if a tensor's length does not fit `arch`,
    /// [`NetError::WeightRange`] if an output weight is outside ±128.
    pub fn new(
        arch: Architecture,
        input_weights: Vec<i16>,
        input_biases: Vec<i16>,
        output_weights: Vec<i16>,
        output_biases: Vec<i32>,
    ) -> Result<Network, NetError> {
        let h = arch.hidden();
        let lengths = [
            input_weights.len(),
            input_biases.len(),
            output_weights.len(),
            output_biases.len(),
        ];
        if lengths != [arch.inputs() * h, h, BUCKETS * 2 * h, BUCKETS] {
            return Err(NetError::Architecture(format!(
                "{arch} given tensors of {lengths:?} values"
            )));
        }
        let net = Network {
            arch,
            input_weights: input_weights.into(),
            input_biases: input_biases.into(),
            output_weights: output_weights.into(),
            output_biases,
        };
        net.check_range()?;
        Ok(net)
    }

    /// The net built into the program.
    pub fn embedded() -> &'static Network {
        static NET: std::sync::OnceLock<Network> = std::sync::OnceLock::new();
        NET.get_or_init(|| {
            Network::from_bytes(EMBEDDED).expect("the embedded net is checked by the tests")
        })
    }

    /// Reads a net file.
    ///
    /// # Errors
    /// As [`Network::from_bytes`], and [`NetError::Io`].
    pub fn load(path: &Path) -> Result<Network, NetError> {
        Network::from_bytes(&std::fs::read(path)?)
    }

    /// Parses a net file's bytes (version 1 or 2), checking header, size
    /// and checksum.
    ///
    /// # Errors
    /// A [`NetError`] naming what is wrong: not a net, another version, a
    /// shape this program cannot evaluate, truncated, damaged.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < V1_HEADER_LEN || bytes[..8] != MAGIC {
            return Err(NetError::NotANet);
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        // Version 2 has the feature set id and a zero word that version 1
        // lacks; the rest is the same.
        let (features, shape_at, header_len) = match u16_at(8) {
            1 => (0, 10, V1_HEADER_LEN),
            2 if bytes.len() >= HEADER_LEN => (u16_at(10), 12, HEADER_LEN),
            2 => return Err(NetError::NotANet),
            v => return Err(NetError::Version(v)),
        };
        let shape: [u16; 7] = std::array::from_fn(|i| u16_at(shape_at + 2 * i));
        let [inputs, hidden, buckets, qa, qb, scale, shift] = shape.map(usize::from);
        let described = || {
            format!(
                "feature set {features}, {inputs}->{hidden}x2->1 with {buckets} buckets, \
                 QA {qa}, QB {qb}, scale {scale}, shift {shift}"
            )
        };
        let fixed = [
            BUCKETS,
            QA as usize,
            QB as usize,
            SCALE as usize,
            ACC_SHIFT as usize,
        ];
        let arch = match FeatureSet::from_id(features) {
            Some(set) if [buckets, qa, qb, scale, shift] == fixed && inputs == set.inputs() => {
                Architecture::new(set, hidden).map_err(|_| NetError::Architecture(described()))?
            }
            _ => return Err(NetError::Architecture(described())),
        };
        if header_len == HEADER_LEN && u16_at(26) != 0 {
            return Err(NetError::Architecture(described()));
        }
        let want = u32_at(header_len - 8) as usize;
        if want != arch.payload_len() {
            return Err(NetError::Architecture(format!(
                "{arch} in a payload of {want} bytes"
            )));
        }
        let payload = &bytes[header_len..];
        if payload.len() < want {
            return Err(NetError::Truncated {
                have: bytes.len(),
                want: header_len + want,
            });
        }
        if payload.len() > want || crc32fast::hash(payload) != u32_at(header_len - 4) {
            return Err(NetError::Checksum);
        }
        let mut words = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| words.by_ref().take(n).collect::<Vec<i16>>();
        let h = arch.hidden();
        let input_weights = take(arch.inputs() * h);
        let input_biases = take(h);
        let output_weights = take(BUCKETS * 2 * h);
        let output_biases = payload[payload.len() - 4 * BUCKETS..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Network::new(
            arch,
            input_weights,
            input_biases,
            output_weights,
            output_biases,
        )
    }

    /// The output weights must stay where the kernels' 16-bit products
    /// cannot overflow.
    fn check_range(&self) -> Result<(), NetError> {
        match self
            .output_weights
            .iter()
            .find(|&&w| !(-128..=127).contains(&w))
        {
            Some(&w) => Err(NetError::WeightRange(w)),
            None => Ok(()),
        }
    }

    /// The net's shape.
    pub fn architecture(&self) -> Architecture {
        self.arch
    }

    /// Width of one perspective's hidden layer.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.arch.hidden
    }

    /// The input weights, `[inputs][hidden]` (scaled by [`crate::QI`]).
    pub fn input_weights(&self) -> &[i16] {
        &self.input_weights
    }

    /// The input biases, `[hidden]` (scaled by [`crate::QI`]).
    pub fn input_biases(&self) -> &[i16] {
        &self.input_biases
    }

    /// The output weights, `[BUCKETS][2 * hidden]`, the side to move's half
    /// first (scaled by [`QB`]).
    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    /// The output biases, `[BUCKETS]` (scaled by `QA x QB`).
    pub fn output_biases(&self) -> &[i32] {
        &self.output_biases
    }

    /// The payload's bytes.
    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.arch.payload_len());
        for w in self
            .input_weights
            .iter()
            .chain(self.input_biases.iter())
            .chain(self.output_weights.iter())
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_biases {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// CRC-32 of the payload: identifies a net (printed by the engine).
    pub fn checksum(&self) -> u32 {
        crc32fast::hash(&self.payload())
    }

    /// The net as a file's bytes (format version 2).
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        for v in [
            FORMAT_VERSION,
            self.arch.features.id(),
            self.arch.inputs() as u16,
            self.arch.hidden as u16,
            BUCKETS as u16,
            QA as u16,
            QB as u16,
            SCALE as u16,
            ACC_SHIFT as u16,
            0,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// The weights of input `feature`.
    #[inline]
    pub(crate) fn column(&self, feature: usize) -> &[i16] {
        let h = self.hidden();
        &self.input_weights[feature * h..(feature + 1) * h]
    }

    /// The input biases.
    #[inline]
    pub(crate) fn biases(&self) -> &[i16] {
        &self.input_biases
    }

    /// The output bias of `bucket`.
    #[inline]
    pub(crate) fn output_bias(&self, bucket: usize) -> i32 {
        self.output_biases[bucket]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version 1 file of `net` (a piece-square net).
    fn version_1_bytes(net: &Network) -> Vec<u8> {
        let v2 = net.to_bytes();
        let mut out = v2[..8].to_vec();
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&v2[12..26]);
        out.extend_from_slice(&v2[28..]);
        out
    }

    #[test]
    fn the_embedded_net_reads_and_round_trips() {
        let net = Network::embedded();
        assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), *net);
        assert_eq!(net.to_bytes(), EMBEDDED);
        assert_eq!(net.architecture(), Architecture::DEFAULT);
    }

    #[test]
    fn version_1_files_still_read() {
        let net = Network::embedded();
        let v1 = version_1_bytes(net);
        assert_eq!(v1.len() + 4, net.to_bytes().len());
        assert_eq!(Network::from_bytes(&v1).unwrap(), *net);
    }

    #[test]
    fn other_shapes_round_trip() {
        for (set, hidden) in [
            (FeatureSet::PieceSquare, 32),
            (FeatureSet::PieceSquare, 512),
            (FeatureSet::KingSquare, 64),
        ] {
            let net = crate::model_for_tests::random_net_of(set, hidden, 9);
            assert_eq!(net.architecture(), Architecture::new(set, hidden).unwrap());
            assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
        }
    }

    #[test]
    fn shapes_the_kernels_cannot_take_are_refused() {
        for hidden in [0, 48, 100, MAX_HIDDEN + 32] {
            assert!(matches!(
                Architecture::new(FeatureSet::PieceSquare, hidden),
                Err(NetError::Architecture(_))
            ));
        }
        let arch = Architecture::DEFAULT;
        assert!(matches!(
            Network::new(arch, vec![0; 5], vec![0; 256], vec![0; 4096], vec![0; 8]),
            Err(NetError::Architecture(_))
        ));
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let good = Network::embedded().to_bytes();
        assert!(matches!(
            Network::from_bytes(b"hello"),
            Err(NetError::NotANet)
        ));
        assert!(matches!(
            Network::from_bytes(&good[..good.len() - 1]),
            Err(NetError::Truncated { .. })
        ));
        let mut flipped = good.clone();
        flipped[HEADER_LEN + 1000] ^= 1;
        assert!(matches!(
            Network::from_bytes(&flipped),
            Err(NetError::Checksum)
        ));
        let mut longer = good.clone();
        longer.push(0);
        assert!(matches!(
            Network::from_bytes(&longer),
            Err(NetError::Checksum)
        ));
        let mut version = good.clone();
        version[8] = 9;
        assert!(matches!(
            Network::from_bytes(&version),
            Err(NetError::Version(9))
        ));
        let mut wide = good.clone();
        wide[15] = 2; // hidden 256 -> 512, the payload still 256 wide
        assert!(matches!(
            Network::from_bytes(&wide),
            Err(NetError::Architecture(_))
        ));
        let mut odd = good.clone();
        odd[14] = 8; // hidden 264: not a multiple of 32
        assert!(matches!(
            Network::from_bytes(&odd),
            Err(NetError::Architecture(_))
        ));
        let mut foreign = good.clone();
        foreign[10] = 5; // an unknown feature set
        assert!(matches!(
            Network::from_bytes(&foreign),
            Err(NetError::Architecture(_))
        ));
        assert!(matches!(
            Network::load(Path::new("/nonexistent/net.xqnn")),
            Err(NetError::Io(_))
        ));
    }
}
