//! Seeded random streams for random hidden layers.
//!
//! A random layer must be reproducible from its seed and **independent of how
//! it was grown**: node `j`'s parameters depend only on `(seed, j)`, so a
//! layer drawn with 500 nodes at once equals one grown from 2 nodes one node
//! at a time. Each node therefore gets its own [`SplitMix64`] stream, seeded
//! by [`node_stream`]. SplitMix64 (Steele, Lea & Flood 2014) is the generator
//! Java's `SplittableRandom` uses and the one recommended to seed xoshiro; it
//! is written out here (not taken from `rand`) so the stream of a seed can
//! never change with a dependency's version — saved experiments stay
//! reproducible.
//!
//! It still speaks `rand`'s language: [`SplitMix64`] implements
//! [`rand_core::TryRng`] (hence [`rand_core::Rng`]) and
//! [`rand_core::SeedableRng`], so any of `rand`'s distributions can draw from
//! a node's stream. The traits add no second stream: `Rng::next_u64` is
//! [`SplitMix64::next_u64`], and `SeedableRng::seed_from_u64(s)` is
//! [`SplitMix64::new`]`(s)` (not `rand_core`'s default PCG32 expansion of the
//! seed, whose values `rand_core` may change).

/// The SplitMix64 generator: a 64-bit counter advanced by the golden-ratio
/// increment and passed through a bijective 64-bit mixer.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 finalizer (a bijection of `u64`, Stafford's "mix 13").
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// A generator whose first output is `mix64(seed + γ)`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }

    /// Uniform on `[0, 1)`: the top 53 bits as a fraction (every value is a
    /// multiple of `2⁻⁵³`).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on `[−1, 1)`: `2u − 1` (MATLAB ELM's `rand*2-1`); exact in
    /// floating point since `u` is a multiple of `2⁻⁵³`.
    #[inline]
    pub fn symmetric(&mut self) -> f64 {
        2.0 * self.uniform() - 1.0
    }
}

impl rand_core::TryRng for SplitMix64 {
    type Error = core::convert::Infallible;

    /// The upper 32 bits of the next 64 (SplitMix64's best-mixed bits).
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((SplitMix64::next_u64(self) >> 32) as u32)
    }

    /// [`SplitMix64::next_u64`].
    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(SplitMix64::next_u64(self))
    }

    /// Successive outputs of [`SplitMix64::next_u64`] as little-endian bytes;
    /// the last output's unused bytes are dropped.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        rand_core::utils::fill_bytes_via_next_word(dst, || Ok(SplitMix64::next_u64(self)))
    }
}

impl rand_core::SeedableRng for SplitMix64 {
    /// The state, little-endian.
    type Seed = [u8; 8];

    /// The generator whose state is `seed` read as a little-endian `u64`.
    fn from_seed(seed: Self::Seed) -> Self {
        Self::new(u64::from_le_bytes(seed))
    }

    /// [`SplitMix64::new`]`(state)`: the same stream as the project's own
    /// constructor, fixed whatever `rand_core`'s default expansion becomes.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state)
    }
}

/// The stream of node `index` of a layer drawn from `seed`: a generator seeded
/// by mixing the seed and the index, so that streams of different nodes (and
/// of different seeds) do not overlap in any practical sense.
pub fn node_stream(seed: u64, index: u64) -> SplitMix64 {
    SplitMix64::new(mix64(seed ^ mix64(index.wrapping_add(GOLDEN))))
}

/// `0..n` in an order determined by `seed` alone: a Fisher–Yates shuffle driven by the
/// project's [`SplitMix64`] seeded with `seed`, so the order is fixed across dependency
/// upgrades (`rand`'s `StdRng` does not promise its stream across releases).
pub fn shuffled_indices(n: usize, seed: u64) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = below(&mut rng, i as u64 + 1) as usize;
        indices.swap(i, j);
    }
    indices
}

/// A uniform integer in `0..bound` (`bound ≥ 1`): Lemire's multiply-shift with rejection, so
/// no value is favoured.
pub fn below(rng: &mut SplitMix64, bound: u64) -> u64 {
    // 2^64 mod bound: low products below it would over-represent some results.
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(bound);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, SeedableRng};

    /// The reference implementation's outputs for seed 1234567 (Vigna's
    /// `splitmix64.c`, the test vector its ports check against).
    const REFERENCE: [u64; 5] = [
        6_457_827_717_110_365_317,
        3_203_168_211_198_807_973,
        9_817_491_932_198_370_423,
        4_593_380_528_125_082_431,
        16_408_922_859_458_223_821,
    ];

    #[test]
    fn the_stream_is_the_reference_splitmix64() {
        let mut rng = SplitMix64::new(1_234_567);
        for want in REFERENCE {
            assert_eq!(SplitMix64::next_u64(&mut rng), want);
        }
    }

    #[test]
    fn rand_core_traits_give_the_same_stream() {
        let mut own = SplitMix64::new(1_234_567);
        let mut by_u64 = SplitMix64::seed_from_u64(1_234_567);
        let mut by_seed = SplitMix64::from_seed(1_234_567u64.to_le_bytes());
        for want in REFERENCE {
            assert_eq!(Rng::next_u64(&mut by_u64), want);
            assert_eq!(Rng::next_u64(&mut by_seed), want);
            assert_eq!(own.next_u64(), want);
        }
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(Rng::next_u32(&mut r), (REFERENCE[0] >> 32) as u32);
        // 13 bytes: the first output whole, then the second's low 5 bytes.
        let mut bytes = [0u8; 13];
        SplitMix64::new(1_234_567).fill_bytes(&mut bytes);
        assert_eq!(bytes[..8], REFERENCE[0].to_le_bytes());
        assert_eq!(bytes[8..], REFERENCE[1].to_le_bytes()[..5]);
    }

    #[test]
    fn rand_distributions_draw_from_a_node_stream() {
        use rand::RngExt;
        let mut a = node_stream(7, 3);
        let mut b = node_stream(7, 3);
        let x: f64 = a.random();
        // rand's f64 is the top 53 bits of `next_u64` scaled by 2⁻⁵³, as
        // `uniform` is: one stream, read the same way by both.
        assert_eq!(x, b.uniform());
    }
}
