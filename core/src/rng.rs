//! SplitMix64, the one small deterministic random number generator of the
//! toolkit: the Zobrist keys are drawn from it at compile time, and the
//! engine's book choices, self-play's random plies and the trainer's
//! initial weights and shuffles at run time. Not for anything that must be
//! unpredictable.

/// SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit state, a fixed
/// increment and a mixing function; every seed gives a full-period stream.
///
/// [`SplitMix64::next_u64`] is a `const fn`, so tables can be filled from
/// the stream at compile time ([`crate::zobrist`] does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The step added to the state before each output: the odd integer
    /// nearest 2^64 over the golden ratio.
    const INCREMENT: u64 = 0x9E37_79B9_7F4A_7C15;

    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub const fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::INCREMENT);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0); the modulo bias is below
    /// 2^-40 for the small `n` it is used with.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A uniform value in `0.0..1.0`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Stirs `entropy` into the state, so that the stream goes elsewhere.
    pub fn mix(&mut self, entropy: u64) {
        self.0 ^= entropy;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_splitmix64() {
        // The reference implementation's first outputs for seed 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut rng = SplitMix64::new(7);
        for _ in 0..1000 {
            assert!(rng.below(6) < 6);
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn the_stream_can_be_drawn_at_compile_time() {
        const FIRST_TWO: [u64; 2] = {
            let mut rng = SplitMix64::new(0);
            [rng.next_u64(), rng.next_u64()]
        };
        let mut rng = SplitMix64::new(0);
        assert_eq!(FIRST_TWO, [rng.next_u64(), rng.next_u64()]);
    }

    #[test]
    fn mixing_moves_the_stream_elsewhere() {
        let (mut a, mut b) = (SplitMix64::new(3), SplitMix64::new(3));
        b.mix(0x55);
        assert_ne!(a.next_u64(), b.next_u64());
    }
}
