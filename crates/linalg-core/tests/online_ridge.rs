//! [`OnlineRidge`]: rows added in blocks (a rank-k QR update of the
//! Cholesky factor) and forgotten (a downdate of the Gram sums and a
//! refactorization), against the independent SVD reference on the rows
//! kept, on well- and ill-conditioned data.

mod common;

use common::*;
use linalg_core::ridge::{GramAccumulator, OnlineRidge};
use linalg_core::Error;
use ndarray::{s, Array2, ArrayView2};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

/// Cut points of `k` rows into blocks at the fractions `cuts`.
fn bounds(cuts: &[f64], k: usize) -> Vec<usize> {
    let mut b: Vec<usize> = cuts.iter().map(|c| (c * k as f64) as usize).collect();
    b.extend([0, k]);
    b.sort_unstable();
    b
}

/// The bound on `‖W − W*‖` after forgetting rows, `W*` the SVD reference on
/// the rows kept (`rest`), the sums having been formed over all the rows
/// (`full`, `‖A_full‖`, `‖Y_full‖`) in `steps` updates.
///
/// `G' = G_full − HᵀH` is computed with an absolute error of at most
/// `γ(‖A_full‖² + ‖H‖²) ≤ 2γ‖A_full‖²` (γ ≈ (K + n)u: the sums over K rows
/// and the subtraction), and `B'` with at most `2γ‖A_full‖‖Y_full‖`; the
/// Cholesky factorization and the solves add the `O(nu)` backward error of
/// `R'`. First-order perturbation of `R'W = B'` gives
/// `‖ΔW‖ ≤ ‖R'⁻¹‖(‖ΔR‖‖W‖ + ‖ΔB‖)`: the ridge bound of
/// [`ridge_tolerance`] with `‖A‖` replaced by `‖A_full‖` — the condition
/// that matters is `‖R'⁻¹‖·‖A_full‖²`, which grows when the forgotten rows
/// carried most of a direction. Factor 2 for `2γ`, `steps + 1` as in
/// [`ridge_tolerance`] (every update and the reference).
fn forget_tolerance(
    rest: &Reference,
    full: &Reference,
    y_full: ArrayView2<'_, f64>,
    k: usize,
    n: usize,
    steps: usize,
) -> f64 {
    let gamma = (k + n) as f64 * f64::EPSILON / 2.0;
    let computations = steps as f64 + 1.0;
    2.0 * 2.0
        * computations
        * gamma
        * (rest.norm_rinv * (full.norm_a * full.norm_a) * fro(rest.w_ridge.view())
            + rest.norm_rinv * full.norm_a * fro(y_full))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    /// Rows added in random blocks (from nothing, or after a start from a
    /// Gram accumulator) give the SVD reference's ridge solution on all
    /// rows within the κ-derived bound; forgetting a random block gives the
    /// reference on the rows left, within the downdate's bound.
    #[test]
    fn added_and_forgotten_rows_equal_the_svd_reference_on_the_rows_kept(
        seed in any::<u64>(),
        n in 1usize..30,
        m in 1usize..4,
        extra in 1usize..60,
        log_lambda in -8.0f64..1.0,
        decades in 0.0f64..6.0,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..5),
        forget_from in 0.0f64..1.0,
        forget_len in 0.0f64..0.5,
        start_from_gram in any::<bool>(),
    ) {
        let mut rng = SplitMix::new(seed);
        let k = n + extra;
        let a = conditioned(&mut rng, k, n, decades);
        let y = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let full = reference(a.view(), y.view(), lambda);
        let b = bounds(&cuts, k);
        let steps = b.len() - 1;
        let mut online = if start_from_gram {
            // The first block through the batch sums, the rest as updates.
            let mut acc = GramAccumulator::new(n, m);
            acc.add(a.slice(s![..b[1], ..]), y.slice(s![..b[1], ..])).expect("acc");
            OnlineRidge::from_accumulator(&acc, lambda).expect("start")
        } else {
            OnlineRidge::new(n, m, lambda).expect("new")
        };
        for (c, w) in b.windows(2).enumerate() {
            if start_from_gram && c == 0 {
                continue;
            }
            online.add(a.slice(s![w[0]..w[1], ..]), y.slice(s![w[0]..w[1], ..])).expect("add");
        }
        prop_assert_eq!(online.rows(), k);
        let tol = ridge_tolerance(&full, y.view(), k, n, steps);
        let err = fro_diff(online.weights().expect("weights").view(), full.w_ridge.view());
        prop_assert!(err <= tol, "added: ‖W − W*‖ = {err:.3e} > {tol:.3e} (κ(R) = {:.2e})", full.kappa_r);

        // Forget rows f0..f1 (at least one row kept).
        let f0 = ((forget_from * k as f64) as usize).min(k - 1);
        let f1 = (f0 + 1 + (forget_len * k as f64) as usize).min(k);
        let kept_a = ndarray::concatenate![ndarray::Axis(0), a.slice(s![..f0, ..]), a.slice(s![f1.., ..])];
        let kept_y = ndarray::concatenate![ndarray::Axis(0), y.slice(s![..f0, ..]), y.slice(s![f1.., ..])];
        let rest = reference(kept_a.view(), kept_y.view(), lambda);
        match online.forget(a.slice(s![f0..f1, ..]), y.slice(s![f0..f1, ..])) {
            Ok(()) => {
                prop_assert_eq!(online.rows(), k - (f1 - f0));
                let tol = forget_tolerance(&rest, &full, y.view(), k, n, steps + 1);
                let err = fro_diff(online.weights().expect("weights").view(), rest.w_ridge.view());
                prop_assert!(err <= tol, "forgot {}: ‖W − W*‖ = {err:.3e} > {tol:.3e} (‖R'⁻¹‖‖A‖² = {:.2e})",
                    f1 - f0, rest.norm_rinv * full.norm_a * full.norm_a);
            }
            Err(Error::ForgetNotPositiveDefinite { .. }) => {
                // Only allowed when the cancellation can eat λ: the rounding
                // of G_full reaches the smallest eigenvalue of R'.
                let rounding = (k + n) as f64 * f64::EPSILON * full.norm_a * full.norm_a;
                prop_assert!(1.0 / rest.norm_rinv <= 4.0 * rounding,
                    "refused although λ_min(R') = {:.3e} ≫ rounding {rounding:.3e}", 1.0 / rest.norm_rinv);
                // And then nothing changed.
                let err = fro_diff(online.weights().expect("weights").view(), full.w_ridge.view());
                prop_assert!(err <= ridge_tolerance(&full, y.view(), k, n, steps));
            }
            Err(e) => prop_assert!(false, "forget failed: {e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    /// Rows added one or a few at a time (blocks of at most n/6 rows: the
    /// QR update of the factor, not a refactorization) give the SVD
    /// reference within the bound of as many steps as blocks.
    #[test]
    fn small_blocks_update_the_factor_by_qr(
        seed in any::<u64>(),
        n in 6usize..40,
        m in 1usize..3,
        extra in 1usize..40,
        log_lambda in -8.0f64..1.0,
        decades in 0.0f64..6.0,
    ) {
        let mut rng = SplitMix::new(seed);
        let k = n + extra;
        let a = conditioned(&mut rng, k, n, decades);
        let y = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let full = reference(a.view(), y.view(), lambda);
        let block = (n / 6).max(1);
        let mut online = OnlineRidge::new(n, m, lambda).expect("new");
        let mut steps = 0;
        let mut r0 = 0;
        while r0 < k {
            let r1 = (r0 + block).min(k);
            online.add(a.slice(s![r0..r1, ..]), y.slice(s![r0..r1, ..])).expect("add");
            // The QR update's flops: 2·rows·n² (DTPQRT) + rows·n(n+1) (DSYRK) + 2·rows·n·m (DGEMM).
            let rows = r1 - r0;
            prop_assert_eq!(online.last_flops(), (2 * rows * n * n + rows * n * (n + 1) + 2 * rows * n * m) as u64);
            steps += 1;
            r0 = r1;
        }
        let tol = ridge_tolerance(&full, y.view(), k, n, steps);
        let err = fro_diff(online.weights().expect("weights").view(), full.w_ridge.view());
        prop_assert!(err <= tol, "‖W − W*‖ = {err:.3e} > {tol:.3e} after {steps} updates (κ(R) = {:.2e})", full.kappa_r);
    }
}

/// Forgetting every row from a well-conditioned start returns the weights
/// of no rows (0); forgetting rows never added that make `G + λI`
/// indefinite is refused with the typed error, leaving everything as it was.
#[test]
fn forgetting_rows_never_added_is_refused_and_changes_nothing() {
    let mut rng = SplitMix::new(7);
    let (k, n, m) = (50, 6, 2);
    let a = conditioned(&mut rng, k, n, 0.0);
    let y = rng.gaussian(k, m);
    let mut online = OnlineRidge::new(n, m, 1e-6).expect("new");
    online.add(a.view(), y.view()).expect("add");
    let before = online.weights().expect("weights");
    // Rows 100× larger than any added: G − HᵀH is indefinite.
    let big = a.slice(s![..3, ..]).mapv(|v| 100.0 * v);
    let e = online.forget(big.view(), y.slice(s![..3, ..])).expect_err("indefinite");
    assert!(matches!(e, Error::ForgetNotPositiveDefinite { rows: 3, .. }), "{e}");
    assert!(e.to_string().contains("forgetting 3 row(s)"), "{e}");
    assert_eq!(online.rows(), k);
    assert_eq!(online.weights().expect("weights"), before);
    // More rows than are kept: a shape error, nothing changed.
    let twice = ndarray::concatenate![ndarray::Axis(0), a.view(), a.view()];
    let y2 = ndarray::concatenate![ndarray::Axis(0), y.view(), y.view()];
    assert!(matches!(
        online.forget(twice.view(), y2.view()),
        Err(Error::Shape {
            what: "rows to forget",
            ..
        })
    ));
    // Forget everything: back to no rows, weights 0 up to rounding.
    online.forget(a.view(), y.view()).expect("forget all");
    assert_eq!(online.rows(), 0);
    let w = online.weights().expect("weights");
    let scale = fro(a.view()) * fro(a.view()) * fro(y.view());
    assert!(
        fro(w.view()) <= 1e3 * k as f64 * f64::EPSILON * scale / 1e-6,
        "{}",
        fro(w.view())
    );
}

#[test]
fn bad_rows_are_refused_and_change_nothing() {
    let mut online = OnlineRidge::new(3, 1, 1e-3).expect("new");
    let good = Array2::from_shape_fn((4, 3), |(i, j)| (i + j) as f64);
    let y = Array2::ones((4, 1));
    online.add(good.view(), y.view()).expect("add");
    let w = online.weights().expect("weights");
    let mut nan = good.clone();
    nan[[2, 1]] = f64::NAN;
    assert!(matches!(online.add(nan.view(), y.view()), Err(Error::NonFinite { .. })));
    assert!(matches!(
        online.add(good.slice(s![.., ..2]), y.view()),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        online.forget(good.view(), y.slice(s![..3, ..])),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(OnlineRidge::new(3, 1, 0.0), Err(Error::InvalidLambda { .. })));
    assert_eq!(online.rows(), 4);
    assert_eq!(online.weights().expect("weights"), w);
}

/// Rows never added can leave `G' = G − HᵀH` indefinite by less than λ:
/// `G' + λI` still factors, and the weights would be of any size (issue 36:
/// predictions of −1e300 after `nn update --forget` of rows not in the
/// fit). `G = diag(4, 9)`; forgetting `[√4.5, 0]` leaves `diag(−0.5, 9)`,
/// whose shift by λ = 1 is positive definite: refused, nothing changed.
/// Forgetting the row `[2, 0]` that was added leaves `diag(0, 9)`, positive
/// semidefinite exactly: accepted.
#[test]
fn forgetting_rows_never_added_is_refused_even_where_lambda_hides_it() -> Result<(), Error> {
    let a = ndarray::array![[2.0, 0.0], [0.0, 3.0]];
    let y = ndarray::array![[1.0], [2.0]];
    let mut online = OnlineRidge::new(2, 1, 1.0)?;
    online.add(a.view(), y.view())?;
    let before = online.weights()?;
    let never = ndarray::array![[4.5f64.sqrt(), 0.0]];
    let e = online
        .forget(never.view(), ndarray::array![[1.0]].view())
        .expect_err("not a Gram matrix");
    assert!(
        matches!(e, Error::ForgetNotPositiveDefinite { rows: 1, pivot: 1 }),
        "{e}"
    );
    assert!(e.to_string().contains("the rows were not all added before"), "{e}");
    assert_eq!((online.rows(), online.weights()?), (2, before));
    online.forget(a.slice(s![..1, ..]), y.slice(s![..1, ..]))?;
    assert_eq!(online.rows(), 1);
    // The ridge solution of the row left, [0, 3] → 2 with λ = 1: w = (0, 6/10).
    let w = online.weights()?;
    assert!(
        w[[0, 0]].abs() <= 1e-15 && (w[[1, 0]] - 0.6).abs() <= 4.0 * f64::EPSILON,
        "{w}"
    );
    Ok(())
}
