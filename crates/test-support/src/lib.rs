//! Helpers for the workspace's tests that share no code with the crates
//! under test, so that a bug there cannot hide itself in the test data or in
//! the measure of an error: a seeded SplitMix64 generator ([`TestRng`]) and
//! Frobenius norms ([`fro`], [`fro_diff`]).
//!
//! The generator is written out here rather than taken from `rand` (whose
//! streams may change between versions) or from `models::rng` (the code
//! under test): a seed gives the same test data on every machine and in
//! every release.
//!
//! [`run_on_threads`] runs a closure on threads joined by a
//! [`Collective`](linalg_core::collective::Collective) of shared buffers and
//! barriers: the multi-process logic of sharded fits, tested without MPI.

pub mod files;
mod threads_world;

pub use threads_world::run_on_threads;

use ndarray::{Array2, ArrayView2};

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny seeded generator.
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    /// The generator of `seed`.
    pub fn new(seed: u64) -> Self {
        Self::salted(seed, 0x9E37_79B9_7F4A_7C15)
    }

    /// The generator of `seed` in the family `salt`: the initial state is
    /// `seed ^ salt`, so test suites with different salts draw different
    /// data from the same seeds (`models`' tests keep the salt they were
    /// written with, and so their data).
    pub fn salted(seed: u64, salt: u64) -> Self {
        TestRng(seed ^ salt)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on [0, 1) (53 random bits).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform on [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform().max(1e-300);
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// A `rows × cols` matrix of independent uniforms on [lo, hi).
    pub fn uniform_matrix(&mut self, rows: usize, cols: usize, lo: f64, hi: f64) -> Array2<f64> {
        Array2::from_shape_fn((rows, cols), |_| self.range(lo, hi))
    }

    /// A `rows × cols` matrix of independent standard normals.
    pub fn gaussian(&mut self, rows: usize, cols: usize) -> Array2<f64> {
        Array2::from_shape_fn((rows, cols), |_| self.normal())
    }
}

/// The Frobenius norm `‖m‖_F`.
pub fn fro(m: ArrayView2<'_, f64>) -> f64 {
    m.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// `‖a − b‖_F` for matrices of the same shape.
///
/// # Panics
/// If the shapes differ (a bug in the test).
pub fn fro_diff(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> f64 {
    assert_eq!(a.dim(), b.dim(), "fro_diff: shapes differ");
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Panics, naming every one that is missing, unless `text` (`what`: a
/// report, a help text) contains each of `needles`.
pub fn assert_contains_all(what: &str, text: &str, needles: &[&str]) {
    let missing: Vec<&str> = needles.iter().copied().filter(|n| !text.contains(n)).collect();
    assert!(missing.is_empty(), "{what} lacks {missing:?}:\n{text}");
}

/// Panics, naming every one that is missing, unless each of `names` is a
/// file in `dir`.
pub fn assert_files(dir: &std::path::Path, names: &[&str]) {
    let missing: Vec<&str> = names.iter().copied().filter(|f| !dir.join(f).is_file()).collect();
    assert!(missing.is_empty(), "{} lacks the files {missing:?}", dir.display());
}

/// What loading every single-byte change of a saved file gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FlipCounts {
    /// Changed files tried: 255 per byte.
    pub changes: usize,
    /// Refused by the loader.
    pub refused: usize,
    /// Loaded, with the intact file's predictions.
    pub same_predictions: usize,
    /// Loaded, with other predictions (or none): a corruption let through.
    pub different_predictions: usize,
}

/// Replace each byte of `bytes` by each of the 255 other values and count
/// what `load_and_predict` made of the changed file: refused (`Err`), or
/// loaded with the intact file's predictions or others.
///
/// # Panics
/// If the intact file does not load and predict (a bug in the test).
pub fn flip_every_byte<P: PartialEq, E>(
    bytes: &[u8],
    load_and_predict: impl Fn(&[u8]) -> Result<Option<P>, E>,
) -> FlipCounts {
    let reference = load_and_predict(bytes).ok().flatten();
    assert!(reference.is_some(), "the intact file loads and predicts");
    let mut counts = FlipCounts::default();
    let mut changed = bytes.to_vec();
    for i in 0..bytes.len() {
        for delta in 1..=255u8 {
            changed[i] = bytes[i] ^ delta;
            counts.changes += 1;
            match load_and_predict(&changed) {
                Err(_) => counts.refused += 1,
                Ok(p) if p == reference => counts.same_predictions += 1,
                Ok(_) => counts.different_predictions += 1,
            }
        }
        changed[i] = bytes[i];
    }
    counts
}

/// A file's bytes mutated as the fuzz tests do: overwrite bytes at
/// `writes`, insert a run of bytes (`insert`), then cut up to a quarter of
/// the end (`cut`). Indices are proptest's, scaled to the current length.
pub fn mutate(
    bytes: &mut Vec<u8>,
    writes: Vec<(proptest::sample::Index, u8)>,
    insert: Option<(proptest::sample::Index, Vec<u8>)>,
    cut: proptest::sample::Index,
) {
    for (at, value) in writes {
        let i = at.index(bytes.len());
        bytes[i] = value;
    }
    if let Some((at, extra)) = insert {
        let i = at.index(bytes.len());
        bytes.splice(i..i, extra);
    }
    let keep = bytes.len() - cut.index(bytes.len() / 4 + 1);
    bytes.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of SplitMix64 from state 0 after one increment, as
    /// published with the algorithm (Vigna's reference `splitmix64.c`,
    /// seed 0): a wrong constant or shift would change them.
    #[test]
    fn splitmix_matches_the_reference_stream() {
        let mut rng = TestRng(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn uniforms_lie_in_the_unit_interval_and_fill_it() {
        let mut rng = TestRng::new(1);
        let xs: Vec<f64> = (0..10_000).map(|_| rng.uniform()).collect();
        assert!(xs.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        // Standard error of the mean of U[0,1): 1/√(12·10⁴) ≈ 0.0029.
        assert!((mean - 0.5).abs() < 0.015, "{mean}");
    }

    #[test]
    fn contains_all_names_what_is_missing() {
        assert_contains_all("text", "a b c", &["a", "c"]);
        let missing = std::panic::catch_unwind(|| assert_contains_all("text", "a b", &["a", "z", "y"]));
        let message = missing.err().and_then(|e| e.downcast::<String>().ok()).map(|s| *s);
        assert!(message.is_some_and(|m| m.contains(r#"["z", "y"]"#)));
    }

    /// A "file" that is its one byte: every change loads with other
    /// predictions, except the 127 that a loader refusing odd bytes refuses.
    #[test]
    fn flips_are_counted_by_outcome() {
        let counts = flip_every_byte(&[2u8], |b| if b[0] % 2 == 1 { Err(()) } else { Ok(Some(b[0])) });
        assert_eq!(
            counts,
            FlipCounts {
                changes: 255,
                refused: 128,
                same_predictions: 0,
                different_predictions: 127,
            }
        );
    }

    #[test]
    fn fro_of_a_known_matrix() {
        let m = ndarray::array![[3.0, 0.0], [0.0, 4.0]];
        assert_eq!(fro(m.view()), 5.0);
        assert_eq!(fro_diff(m.view(), m.view()), 0.0);
    }
}
