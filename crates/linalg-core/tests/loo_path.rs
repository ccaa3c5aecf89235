//! [`RidgePath`] and [`leave_one_out`] against brute force: the ridge
//! solution of every λ against the independent SVD reference, and every
//! leave-one-out residual against K refits (each through the SVD of `A`
//! without that row), on well- and ill-conditioned data, with tolerances
//! derived from the condition numbers.

mod common;

use common::*;
use linalg_core::ridge::{
    leave_one_out, leave_one_out_with, loo_residuals_at, Decomposition, GramAccumulator, RidgePath,
};
use linalg_core::Error;
use ndarray::{concatenate, Array2, ArrayView2, Axis};
use ndarray_linalg::QR;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

/// The leverage `hᵢᵢ = aᵢᵀ(AᵀA + λI)⁻¹aᵢ` of every row from the Householder
/// QR of the augmented `[A; √λ·I] = Q̃R̃`: `R̃ᵀR̃ = AᵀA + λI`, so `hᵢᵢ` is the
/// squared norm of row i of `Q̃` (its first K rows are `A R̃⁻¹`). (A first
/// version read `hᵢᵢ = Σⱼ Uᵢⱼ²σⱼ²/(σⱼ² + λ)` off the full `U` of
/// `dgesdd`: its rows were off by up to 1.4e-13 relative where this and
/// the fast path agree to 1e-15.) The entries of the computed `Q̃` are off
/// by `γ` absolutely (its columns have norm 1), so `hᵢᵢ` by
/// `2γ Σⱼ|Q̃ᵢⱼ| ≤ 2γ√(n·hᵢᵢ)`: relative to a small leverage, more than the
/// fast path's error (5.8e-14 relative at hᵢᵢ = 1.5e-6, n = 1).
fn qr_leverages(a: ArrayView2<'_, f64>, lambda: f64) -> Vec<f64> {
    let n = a.ncols();
    let aug = concatenate![Axis(0), a, Array2::<f64>::eye(n) * lambda.sqrt()];
    let (q, _) = aug.qr().expect("QR of [A; √λI]");
    (0..a.nrows()).map(|i| q.row(i).dot(&q.row(i))).collect()
}

/// One sample's brute-force leave-one-out residual row, its leverage and
/// the tolerance of the comparison.
///
/// Errors of the fast path, first order. The computed eigendecomposition,
/// `Z` and `Q = AV` are exact for `AᵀA + E`, `AᵀY + F`, `A + G` with
/// `‖E‖ ≤ γ‖A‖²`, `‖F‖ ≤ γ‖A‖‖Y‖`, `‖G‖ ≤ γ‖A‖`, `γ = (K + n)u` (the
/// sums over K rows, the O(nu) backward error of `dsyevd` and the loss of
/// orthogonality of `V`). Then
/// - the fitted value `ŷᵢ = aᵢᵀW` is off by at most `‖aᵢ‖‖ΔW‖` with the
///   ridge bound `‖ΔW‖ ≤ γ(κ‖W‖ + ‖R⁻¹‖‖A‖‖Y‖)` (`R = AᵀA + λI`);
/// - the leverage `hᵢᵢ = aᵢᵀR⁻¹aᵢ` by at most
///   `‖aᵢ‖²‖R⁻¹‖²‖E‖ + 2√n·γ‖aᵢ‖²‖R⁻¹‖` (the perturbed inverse, and the
///   errors `γ‖aᵢ‖` of each `Qᵢⱼ` in the sum `Σ Qᵢⱼ²/(sⱼ² + λ)`:
///   `Σⱼ 2|Qᵢⱼ|γ‖aᵢ‖/(sⱼ² + λ) ≤ 2√n·γ‖aᵢ‖²‖R⁻¹‖` by Cauchy–Schwarz; a
///   first version without the `2√n` failed by 20%);
/// - so `rᵢ = eᵢ/(1 − hᵢᵢ)` by `(|Δeᵢ| + |rᵢ||Δhᵢᵢ|)/(1 − hᵢᵢ)`.
///
/// The reference refits on `A₋ᵢ` through its SVD (and takes the leverage
/// from a QR, [`qr_leverages`]): its prediction of row i
/// is off by `‖aᵢ‖` times the same ridge bound for `A₋ᵢ` (whose
/// `‖R₋ᵢ⁻¹‖ ≥ ‖R⁻¹‖`, used for both leverage terms). The two differ by at
/// most the sum; factor 2 for the small integer constants of the γ's (as
/// in `ridge_tolerance`). Found necessary: the final subtraction and
/// division, which dominate when κ = 1 (4.4e-16 against 2.0e-16 without
/// them).
struct Brute {
    residual: Vec<f64>,
    leverage: f64,
    tolerance: f64,
    leverage_tolerance: f64,
}

fn brute(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64, i: usize, full: &Reference) -> Brute {
    let (k, n) = a.dim();
    let keep: Vec<usize> = (0..k).filter(|&r| r != i).collect();
    let (a_rest, y_rest) = (a.select(Axis(0), &keep), y.select(Axis(0), &keep));
    let rest = reference(a_rest.view(), y_rest.view(), lambda);
    let ai = a.row(i);
    let residual: Vec<f64> = (0..y.ncols())
        .map(|c| y[[i, c]] - ai.dot(&rest.w_ridge.column(c)))
        .collect();
    let leverage = qr_leverages(a, lambda)[i];
    let gamma = (k + n) as f64 * U;
    let norm_ai = ai.dot(&ai).sqrt();
    let ridge = |r: &Reference, a_norm: f64, y_norm: f64| {
        gamma * (r.kappa_r * fro(r.w_ridge.view()) + r.norm_rinv * a_norm * y_norm)
    };
    let de = norm_ai * (ridge(full, full.norm_a, fro(y)) + ridge(&rest, rest.norm_a, fro(y_rest.view())));
    let dh = gamma
        * norm_ai
        * norm_ai
        * rest.norm_rinv
        * (2.0 * (n as f64).sqrt() + rest.norm_rinv * full.norm_a * full.norm_a);
    let r_max = residual.iter().fold(0.0f64, |m, r| m.max(r.abs()));
    // The last operations of both sides, `yᵢ − ŷᵢ` (and the division), add a
    // rounding of `u(|yᵢ| + |ŷᵢ|)` each, ŷᵢ ≤ ‖aᵢ‖‖W₋ᵢ‖ (and `u|rᵢ|`).
    let y_max = (0..y.ncols()).fold(0.0f64, |m, c| m.max(y[[i, c]].abs()));
    let last = U * (y_max + norm_ai * fro(rest.w_ridge.view()));
    let tolerance = 2.0 * 2.0 * (de + last + r_max * dh) / (1.0 - leverage) + 2.0 * U * r_max;
    Brute {
        residual,
        leverage,
        tolerance,
        leverage_tolerance: 2.0 * 2.0 * dh + 2.0 * 2.0 * gamma * (n as f64 * leverage).sqrt(),
    }
}

fn problem(k: usize, n: usize, m: usize, decades: f64, seed: u64) -> (Array2<f64>, Array2<f64>) {
    let mut rng = SplitMix::new(seed);
    let a = conditioned(&mut rng, k, n, decades);
    let y = rng.gaussian(k, m);
    (a, y)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Every leave-one-out residual and leverage equals the brute-force one
    /// (K refits through the SVD) within the derived bound, for λ from
    /// `‖A‖²` down to `10⁻⁸‖A‖²` on A with κ(A) up to 10⁶; the path's
    /// weights equal the SVD ridge solution within the ridge bound; the
    /// grid's summary equals the mean of the residuals.
    #[test]
    fn loo_residuals_equal_brute_force(
        k in 6usize..30,
        n_frac in 0.1f64..1.3,
        m in 1usize..4,
        decades in prop::sample::select(vec![0.0, 3.0, 6.0]),
        lambda_exp in 0.0f64..8.0,
        seed in any::<u64>(),
    ) {
        let n = ((k as f64 * n_frac) as usize).clamp(1, k + 3);
        let (a, y) = problem(k, n, m, decades, seed);
        let full_norm = reference(a.view(), y.view(), 1.0).norm_a;
        let lambda = full_norm * full_norm * 10f64.powf(-lambda_exp);
        let full = reference(a.view(), y.view(), lambda);
        let path = RidgePath::new(a.view(), y.view())?;
        let w = path.weights(lambda)?;
        let dw = fro_diff(w.view(), full.w_ridge.view());
        let bound = ridge_tolerance(&full, y.view(), k, n, 1);
        prop_assert!(dw <= bound, "weights off by {dw:e} > {bound:e} (κ {:e})", full.kappa_r);

        let (residuals, leverages) = loo_residuals_at(a.view(), y.view(), lambda, Decomposition::Gram)?;
        let mut mse_ref = 0.0;
        let mut mse_slack = 0.0;
        let mut h_slack = 0.0f64;
        for i in 0..k {
            let b = brute(a.view(), y.view(), lambda, i, &full);
            let dh = (leverages[i] - b.leverage).abs();
            let h_bound = b.leverage_tolerance;
            prop_assert!(dh <= h_bound, "row {i}: leverage {} vs {}", leverages[i], b.leverage);
            h_slack = h_slack.max(2.0 * h_bound);
            for c in 0..m {
                let d = (residuals[[i, c]] - b.residual[c]).abs();
                prop_assert!(
                    d <= b.tolerance,
                    "row {i} col {c}: LOO residual {} vs brute force {} (diff {d:e} > {:e}; h = {}, κ = {:e})",
                    residuals[[i, c]], b.residual[c], b.tolerance, b.leverage, full.kappa_r
                );
                mse_ref += b.residual[c] * b.residual[c];
                mse_slack += 2.0 * b.residual[c].abs() * b.tolerance + b.tolerance * b.tolerance;
            }
        }
        let loo = leave_one_out_with(a.view(), y.view(), &[lambda * 10.0, lambda], Decomposition::Gram)?;
        let total = (k * m) as f64;
        let mse = loo.scores[1].mse;
        prop_assert!((mse - mse_ref / total).abs() <= mse_slack / total, "mse {mse} vs {}", mse_ref / total);
        // The leverages of the grid's λ within the leverage bound of the
        // single-λ run (a gemm over more columns rounds differently).
        let h_max = leverages.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!((loo.scores[1].max_leverage - h_max).abs() <= h_slack, "max leverage {} vs {h_max}", loo.scores[1].max_leverage);
    }

    /// Solutions of the leading columns from one factorization equal
    /// separate solves of those columns; subtracting a part's sums gives
    /// the sums of the rest.
    #[test]
    fn prefixes_and_subtraction(
        k in 10usize..40,
        n in 2usize..10,
        decades in prop::sample::select(vec![0.0, 4.0]),
        cut in 0.2f64..0.8,
        seed in any::<u64>(),
    ) {
        let (a, y) = problem(k, n, 2, decades, seed);
        let lambda = 1e-3;
        let split = ((k as f64 * cut) as usize).clamp(1, k - 1);
        let mut total = GramAccumulator::new(n, 2);
        total.add(a.view(), y.view())?;
        let mut part = GramAccumulator::new(n, 2);
        part.add(a.slice_axis(Axis(0), (..split).into()), y.slice_axis(Axis(0), (..split).into()))?;
        total.subtract(&part)?;
        let (a_rest, y_rest) = (a.slice_axis(Axis(0), (split..).into()), y.slice_axis(Axis(0), (split..).into()));
        prop_assert_eq!(total.rows(), k - split);
        let sizes: Vec<usize> = (1..=n).collect();
        let prefixes = total.solve_prefixes(lambda, &sizes)?;
        let full = reference(a.view(), y.view(), lambda);
        for (s, w) in sizes.iter().zip(&prefixes) {
            let (ac, yc) = (a_rest.slice_axis(Axis(1), (..*s).into()), y_rest);
            let rf = reference(ac, yc, lambda);
            // The sums of the rest are formed from all K rows (a subtraction):
            // the forget bound of online_ridge.rs, ‖R'⁻¹‖‖A_full‖² in place of κ.
            let gamma = (k + n) as f64 * U;
            let bound = 2.0 * 2.0 * 2.0 * gamma
                * (rf.norm_rinv * full.norm_a * full.norm_a * fro(rf.w_ridge.view())
                    + rf.norm_rinv * full.norm_a * fro(y.view()));
            let d = fro_diff(w.view(), rf.w_ridge.view());
            prop_assert!(d <= bound, "size {s}: {d:e} > {bound:e}");
        }
    }
}

/// Refused inputs: λ ≤ 0 in a grid is an error, a λ below the rounding of
/// the eigenvalues of a rank-deficient `AᵀA` gets NaN scores (and an error
/// from `weights`), and the others of the grid are still scored.
#[test]
fn refused_lambdas() -> Result<(), Error> {
    let (a, y) = problem(12, 4, 1, 0.0, 5);
    assert!(matches!(
        leave_one_out(a.view(), y.view(), &[1.0, 0.0]),
        Err(Error::InvalidLambda { .. })
    ));
    // Two equal columns: AᵀA is singular; λ = 1e-300 is below its rounding.
    let mut twin = a.clone();
    let first = twin.column(0).to_owned();
    twin.column_mut(1).assign(&first);
    let loo = leave_one_out(twin.view(), y.view(), &[1e-300, 1e-2])?;
    assert!(loo.scores[0].mse.is_nan() && loo.scores[0].class_error.is_nan());
    assert!(loo.scores[1].mse.is_finite() && loo.scores[1].mse > 0.0);
    assert!(matches!(
        loo.path.weights(1e-300),
        Err(Error::NotPositiveDefinite { .. })
    ));
    assert!(matches!(
        loo_residuals_at(twin.view(), y.view(), 1e-300, Decomposition::Gram),
        Err(Error::NotPositiveDefinite { .. })
    ));
    assert!(matches!(
        leave_one_out(a.view(), y.slice_axis(Axis(0), (..5).into()), &[1.0]),
        Err(Error::Shape { .. })
    ));
    let mut nan = a.clone();
    nan[[3, 2]] = f64::NAN;
    assert!(matches!(
        leave_one_out(nan.view(), y.view(), &[1.0]),
        Err(Error::NonFinite { .. })
    ));
    Ok(())
}

/// The classification error counts samples whose leave-one-out prediction
/// `yᵢ − rᵢ` has its argmax elsewhere than the one-hot target, checked
/// against the brute-force predictions on a three-class problem.
#[test]
fn loo_class_error_matches_brute_force() -> Result<(), Error> {
    let mut rng = SplitMix::new(17);
    let (k, n) = (40, 8);
    let a = conditioned(&mut rng, k, n, 1.0);
    let noise = rng.gaussian(k, 3);
    let y = Array2::from_shape_fn((k, 3), |(i, c)| {
        let class = (i * 7 + (a[[i, 0]] > 0.0) as usize) % 3;
        f64::from(class == c) + 0.0 * noise[[i, c]]
    });
    let lambda = 1e-2;
    let loo = leave_one_out(a.view(), y.view(), &[lambda])?;
    let full = reference(a.view(), y.view(), lambda);
    let mut wrong = 0;
    for i in 0..k {
        let b = brute(a.view(), y.view(), lambda, i, &full);
        let pred: Vec<f64> = (0..3).map(|c| y[[i, c]] - b.residual[c]).collect();
        let arg = (0..3).fold(0, |best, c| if pred[c] > pred[best] { c } else { best });
        let target = (0..3).fold(0, |best, c| if y[[i, c]] > y[[i, best]] { c } else { best });
        let mut sorted = pred.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(
            sorted[2] - sorted[1] > 2.0 * b.tolerance,
            "row {i} is a near tie; pick another seed"
        );
        wrong += usize::from(arg != target);
    }
    assert_eq!(loo.scores[0].class_error, wrong as f64 / k as f64);
    assert!(
        wrong > 0 && wrong < k,
        "a test that can fail both ways: {wrong} of {k} wrong"
    );
    Ok(())
}

/// More rows than one panel of the leave-one-out products (1024 rows), in
/// row-major and column-major storage: the rows at the panel boundaries
/// against brute force, and both layouts agree.
#[test]
fn rows_across_panels_and_layouts() -> Result<(), Error> {
    let (k, n) = (2500, 6);
    let (a, y) = problem(k, n, 2, 2.0, 23);
    let lambda = 1e-3;
    let full = reference(a.view(), y.view(), lambda);
    let (r_row, h_row) = loo_residuals_at(a.view(), y.view(), lambda, Decomposition::Gram)?;
    let fortran = a.t().as_standard_layout().into_owned().reversed_axes();
    assert!(fortran.t().is_standard_layout());
    let (r_col, h_col) = loo_residuals_at(fortran.view(), y.view(), lambda, Decomposition::Gram)?;
    for i in [0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 2499] {
        let b = brute(a.view(), y.view(), lambda, i, &full);
        for (r, h) in [(&r_row, &h_row), (&r_col, &h_col)] {
            assert!(
                (h[i] - b.leverage).abs() <= b.leverage_tolerance,
                "row {i}: {} vs {}",
                h[i],
                b.leverage
            );
            for c in 0..2 {
                let d = (r[[i, c]] - b.residual[c]).abs();
                assert!(
                    d <= b.tolerance,
                    "row {i} col {c}: {} vs {} ({d:e})",
                    r[[i, c]],
                    b.residual[c]
                );
            }
        }
    }
    Ok(())
}

/// The bound on the distance between a leave-one-out residual computed
/// from a decomposition that is backward stable in `A` itself (the QR path;
/// the SVD reference) and the exact one, for λ far below `ε‖A‖²`.
///
/// A perturbation `E` of `A` with `‖E‖ ≤ γ‖A‖` (`γ = (K + n)u`) moves the
/// ridge weights by `dW = M Eᵀ(Y − AW) − M AᵀE W` (`M = (AᵀA + λI)⁻¹`),
/// and `‖M‖ ≤ 1/λ`, `‖M Aᵀ‖ ≤ maxσ σ/(σ² + λ) ≤ 1/(2√λ)`: so
/// `‖dW‖ ≤ γ‖A‖(‖Y − AW‖/λ + ‖W‖/(2√λ))` — one power of `1/√λ` where the
/// normal equations pay `‖A‖²/λ`. The leverage `hᵢᵢ = aᵢᵀMaᵢ` moves by
/// `2eᵢᵀMaᵢ − aᵢᵀM(EᵀA + AᵀE)Maᵢ`, and `‖Maᵢ‖ ≤ √(hᵢᵢ/λ)`, `‖AMaᵢ‖ ≤ √hᵢᵢ`:
/// `|dhᵢᵢ| ≤ 2γ(‖aᵢ‖ + ‖A‖√hᵢᵢ)√(hᵢᵢ/λ)`. The residual `eᵢ/(1 − hᵢᵢ)` then
/// moves by `(‖aᵢ‖‖dW‖ + |rᵢ||dhᵢᵢ|)/(1 − hᵢᵢ)`; the brute-force refit on
/// `A₋ᵢ` (through its SVD, backward stable in `A₋ᵢ`) by `‖aᵢ‖‖dW₋ᵢ‖`.
/// Factor 2 for the constants, as in [`brute`].
fn qr_tolerance(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64, i: usize, b: &Brute) -> f64 {
    let (k, n) = a.dim();
    let gamma = (k + n) as f64 * U;
    let keep: Vec<usize> = (0..k).filter(|&r| r != i).collect();
    let (a_rest, y_rest) = (a.select(Axis(0), &keep), y.select(Axis(0), &keep));
    let dw = |a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>| {
        let rf = reference(a, y, lambda);
        let residual = &y - &a.dot(&rf.w_ridge);
        gamma * rf.norm_a * (fro(residual.view()) / lambda + fro(rf.w_ridge.view()) / (2.0 * lambda.sqrt()))
    };
    let ai = a.row(i);
    let norm_ai = ai.dot(&ai).sqrt();
    let norm_a = reference(a, y, lambda).norm_a;
    let h = b.leverage.max(0.0);
    let dh = 2.0 * gamma * (norm_ai + norm_a * h.sqrt()) * (h / lambda).sqrt();
    let r_max = b.residual.iter().fold(0.0f64, |m, r| m.max(r.abs()));
    let y_max = (0..y.ncols()).fold(0.0f64, |m, c| m.max(y[[i, c]].abs()));
    let last = U * (y_max + norm_ai * fro(reference(a_rest.view(), y_rest.view(), lambda).w_ridge.view()));
    2.0 * 2.0 * (norm_ai * (dw(a, y) + dw(a_rest.view(), y_rest.view())) + last + r_max * dh) / (1.0 - h)
        + 2.0 * U * r_max
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The QR path scores λ from 10⁻¹⁰‖A‖² down to 10⁻¹⁴‖A‖² — at and below
    /// the Gram path's floor (`n·ε·‖A‖²`) — on A with κ(A) up to 10⁶: every
    /// leave-one-out residual equals the brute-force one within
    /// [`qr_tolerance`]; above the floor it also meets the Gram path's bound.
    #[test]
    fn qr_path_equals_brute_force_below_the_gram_floor(
        k in 6usize..30,
        n_frac in 0.1f64..0.9,
        m in 1usize..3,
        decades in prop::sample::select(vec![0.0, 3.0, 6.0]),
        lambda_exp in 0.0f64..14.0,
        seed in any::<u64>(),
    ) {
        let n = ((k as f64 * n_frac) as usize).clamp(1, k - 1);
        let (a, y) = problem(k, n, m, decades, seed);
        let full_norm = reference(a.view(), y.view(), 1.0).norm_a;
        let lambda = full_norm * full_norm * 10f64.powf(-lambda_exp);
        let full = reference(a.view(), y.view(), lambda);
        let (residuals, leverages) = loo_residuals_at(a.view(), y.view(), lambda, Decomposition::Qr)?;
        for i in 0..k {
            let b = brute(a.view(), y.view(), lambda, i, &full);
            let tol = qr_tolerance(a.view(), y.view(), lambda, i, &b);
            let h = b.leverage.max(0.0);
            let gamma = (k + n) as f64 * U;
            let norm_ai = a.row(i).dot(&a.row(i)).sqrt();
            let dh = 2.0 * 2.0 * 2.0 * gamma * (norm_ai + full.norm_a * h.sqrt()) * (h / lambda).sqrt()
                + 2.0 * 2.0 * gamma * (n as f64 * h).sqrt();
            prop_assert!((leverages[i] - b.leverage).abs() <= dh, "row {i}: leverage {} vs {} (bound {dh:e}, λ = {lambda:e})", leverages[i], b.leverage);
            for c in 0..m {
                let d = (residuals[[i, c]] - b.residual[c]).abs();
                prop_assert!(
                    d <= tol,
                    "row {i} col {c}: QR LOO residual {} vs brute force {} (diff {d:e} > {tol:e}; h = {}, λ = {lambda:e})",
                    residuals[[i, c]], b.residual[c], b.leverage
                );
            }
        }
    }
}

/// Where the Gram path must refuse (λ below `n·ε·‖A‖²`), the automatic
/// choice of [`leave_one_out`] takes the QR path and scores every λ.
#[test]
fn automatic_choice_scores_below_the_gram_floor() -> Result<(), Error> {
    // κ(A) = 1e14: the smallest eigenvalues of AᵀA (1e-28‖A‖²) are rounding.
    let (a, y) = problem(40, 10, 2, 14.0, 3);
    let norm2 = reference(a.view(), y.view(), 1.0).norm_a.powi(2);
    let grid = [1e-15 * norm2, 1e-12 * norm2, 1e-3 * norm2];
    let gram = leave_one_out_with(a.view(), y.view(), &grid, Decomposition::Gram)?;
    assert!(gram.scores[0].mse.is_nan(), "the Gram path refuses 1e-15‖A‖²");
    let auto = leave_one_out(a.view(), y.view(), &grid)?;
    assert_eq!(auto.path.decomposition(), Decomposition::Qr);
    assert!(auto.scores.iter().all(|s| s.mse.is_finite()), "{:?}", auto.scores);
    let high = leave_one_out(a.view(), y.view(), &grid[2..])?;
    assert_eq!(high.path.decomposition(), Decomposition::Gram);
    Ok(())
}
