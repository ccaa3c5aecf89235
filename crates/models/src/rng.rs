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
