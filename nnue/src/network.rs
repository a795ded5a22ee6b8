//! A quantised net and its file format.
//!
//! Layout, little-endian:
//!
//! ```text
//! header  32 bytes
//!   magic "XQNNUE\0\0", u16 format version (1),
//!   u16 inputs (1,260), u16 hidden (256), u16 buckets (8),
//!   u16 QA (255), u16 QB (256), u16 scale (400), u16 accumulator shift (2),
//!   u32 payload length, u32 CRC-32 of the payload
//! payload
//!   i16 input weights [inputs][hidden], i16 input biases [hidden]
//!       (scaled by QA << shift),
//!   i16 output weights [buckets][2 x hidden] (side to move's half first),
//!   i32 output biases [buckets]
//! ```
//!
//! The version names the feature layout and bucket scheme
//! ([`crate::features`]) as much as the byte layout: a net is read only by
//! code that computes its inputs the same way.

use std::path::Path;

use crate::{features::BUCKETS, features::INPUTS, ACC_SHIFT, HIDDEN, QA, QB, SCALE};

/// The first bytes of a net file.
pub const MAGIC: [u8; 8] = *b"XQNNUE\0\0";
/// The format version written and read.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes of the header.
pub const HEADER_LEN: usize = 32;
/// Bytes of the payload.
pub const PAYLOAD_LEN: usize = 2 * (INPUTS * HIDDEN + HIDDEN + BUCKETS * 2 * HIDDEN) + 4 * BUCKETS;

/// The net shipped inside the engine.
static EMBEDDED: &[u8] = include_bytes!("../nets/default.xqnn");

/// Why a net file was refused.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a net file (no XQNNUE header)")]
    NotANet,
    #[error("net format version {0}: this program reads version {FORMAT_VERSION}")]
    Version(u16),
    #[error("net architecture {0}: this program reads {INPUTS}->{HIDDEN}x2->1 with {BUCKETS} buckets, QA {QA}, QB {QB}, scale {SCALE}, shift {ACC_SHIFT}")]
    Architecture(String),
    #[error("truncated: {have} bytes, the header says {want}")]
    Truncated { have: usize, want: usize },
    #[error("checksum mismatch (the file is damaged)")]
    Checksum,
    #[error("output weight {0} is outside -128..=127")]
    WeightRange(i16),
}

/// A quantised net: input weights and biases scaled by [`crate::QI`],
/// output weights by [`QB`], output biases by `QA x QB`.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// `[INPUTS][HIDDEN]`: the column of each input.
    pub input_weights: Vec<i16>,
    pub input_biases: Vec<i16>,
    /// `[BUCKETS][2 * HIDDEN]`.
    pub output_weights: Vec<i16>,
    pub output_biases: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}->{HIDDEN}x2->1x{BUCKETS}, checksum {:08x})",
            self.checksum()
        )
    }
}

impl Network {
    /// The net built into the program.
    pub fn embedded() -> &'static Network {
        static NET: std::sync::OnceLock<Network> = std::sync::OnceLock::new();
        NET.get_or_init(|| {
            Network::from_bytes(EMBEDDED).expect("the embedded net is checked by the tests")
        })
    }

    /// Reads a net file.
    pub fn load(path: &Path) -> Result<Network, NetError> {
        Network::from_bytes(&std::fs::read(path)?)
    }

    /// Parses a net file's bytes, checking header, size and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
            return Err(NetError::NotANet);
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = u16_at(8);
        if version != FORMAT_VERSION {
            return Err(NetError::Version(version));
        }
        let shape = [
            u16_at(10),
            u16_at(12),
            u16_at(14),
            u16_at(16),
            u16_at(18),
            u16_at(20),
            u16_at(22),
        ];
        let ours = [
            INPUTS,
            HIDDEN,
            BUCKETS,
            QA as usize,
            QB as usize,
            SCALE as usize,
            ACC_SHIFT as usize,
        ]
        .map(|v| v as u16);
        if shape != ours {
            let [i, h, b, qa, qb, s, shift] = shape;
            return Err(NetError::Architecture(format!(
                "{i}->{h}x2->1 with {b} buckets, QA {qa}, QB {qb}, scale {s}, shift {shift}"
            )));
        }
        let want = u32_at(24) as usize;
        if want != PAYLOAD_LEN {
            return Err(NetError::Architecture(format!("payload of {want} bytes")));
        }
        let payload = &bytes[HEADER_LEN..];
        if payload.len() < want {
            return Err(NetError::Truncated {
                have: bytes.len(),
                want: HEADER_LEN + want,
            });
        }
        if payload.len() > want || crc32fast::hash(payload) != u32_at(28) {
            return Err(NetError::Checksum);
        }
        let mut words = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| words.by_ref().take(n).collect::<Vec<i16>>();
        let input_weights = take(INPUTS * HIDDEN);
        let input_biases = take(HIDDEN);
        let output_weights = take(BUCKETS * 2 * HIDDEN);
        let biases_at = payload.len() - 4 * BUCKETS;
        let output_biases = payload[biases_at..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let net = Network {
            input_weights,
            input_biases,
            output_weights,
            output_biases,
        };
        net.check_range()?;
        Ok(net)
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

    /// The payload's bytes.
    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PAYLOAD_LEN);
        for w in self
            .input_weights
            .iter()
            .chain(&self.input_biases)
            .chain(&self.output_weights)
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

    /// The net as a file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        for v in [
            FORMAT_VERSION,
            INPUTS as u16,
            HIDDEN as u16,
            BUCKETS as u16,
            QA as u16,
            QB as u16,
            SCALE as u16,
            ACC_SHIFT as u16,
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
        &self.input_weights[feature * HIDDEN..(feature + 1) * HIDDEN]
    }

    /// The output weights of `bucket`.
    #[inline]
    pub(crate) fn output(&self, bucket: usize) -> &[i16] {
        &self.output_weights[bucket * 2 * HIDDEN..(bucket + 1) * 2 * HIDDEN]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_net_reads_and_round_trips() {
        let net = Network::embedded();
        assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), *net);
        assert_eq!(net.to_bytes(), EMBEDDED);
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
        wide[13] = 2; // hidden 256 -> 512
        assert!(matches!(
            Network::from_bytes(&wide),
            Err(NetError::Architecture(_))
        ));
        assert!(matches!(
            Network::load(Path::new("/nonexistent/net.xqnn")),
            Err(NetError::Io(_))
        ));
    }
}
