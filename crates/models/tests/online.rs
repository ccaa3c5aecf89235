//! Rows added to and forgotten from a fitted ELM or BLS ([`OnlineFit`])
//! against an independent computation: the ridge solution of the model's
//! own hidden outputs on the rows kept, by Gaussian elimination on the
//! normal equations (plain loops), within forward-error bounds derived from
//! κ; on well- and ill-conditioned hidden layers (node counts close to and
//! above the rank the inputs allow). Errors named, nothing changed on error.

mod common;

use common::{at_b, bls_data, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum, U};
use models::prelude::*;
use models::{Activation, BlsParams, ElmParams, LinearReadout, ModelError, OnlineFit, ReadoutSolver};
use ndarray::{concatenate, s, Array2, ArrayView2, Axis};
use proptest::prelude::*;

/// The ridge weights of `model`'s hidden outputs on `x`, `y`: Gaussian
/// elimination on `(AᵀA + λI) W = AᵀY`.
fn direct<M: LinearReadout>(model: &M, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> (Array2<f64>, Array2<f64>) {
    let a = model.hidden_outputs(x).expect("hidden outputs");
    let mut g = at_b(a.view(), a.view());
    g.diag_mut().mapv_inplace(|v| v + model.lambda());
    (gauss_solve(g.view(), at_b(a.view(), y).view()), a)
}

/// The bound after forgetting: the sums were formed over all rows
/// (`a_full`, `y_full`) and the forgotten rows' products subtracted, an
/// absolute error `2γ‖A_full‖²` in `AᵀA` and `2γ‖A_full‖‖Y_full‖` in `AᵀY`;
/// the perturbation `‖ΔW‖ ≤ ‖R'⁻¹‖(‖ΔR‖‖W‖ + ‖ΔB‖)` with `R'` the matrix of
/// the rows kept (`a_kept`). `steps` eliminations (the updates and the
/// reference) add, `c = 2` as in [`ridge_tolerance`].
fn forget_tolerance(
    a_full: ArrayView2<'_, f64>,
    y_full: ArrayView2<'_, f64>,
    a_kept: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    lambda: f64,
    steps: usize,
) -> f64 {
    let (k, n) = a_full.dim();
    let full = spectrum(a_full);
    let kept = spectrum(a_kept);
    let norm_rinv = 1.0 / (kept.sigma_min * kept.sigma_min + lambda);
    let gamma = (k + n) as f64 * U;
    2.0 * 2.0 * steps as f64 * gamma * norm_rinv * (full.norm_a * full.norm_a * fro(w) + full.norm_a * fro(y_full))
}

/// Fit on rows `..k0`, add the rest in blocks at `cuts`, check; forget rows
/// `f0..f1`, check.
fn check_online<M: LinearReadout>(
    first: M,
    x: &Array2<f64>,
    y: &Array2<f64>,
    k0: usize,
    cuts: &[f64],
    (f0, f1): (usize, usize),
) -> Result<(), TestCaseError> {
    let k = x.nrows();
    let mut online = OnlineFit::new(
        first,
        [Ok((x.slice(s![..k0, ..]).to_owned(), y.slice(s![..k0, ..]).to_owned()))],
    )
    .expect("start");
    let mut bounds: Vec<usize> = cuts.iter().map(|c| k0 + (c * (k - k0) as f64) as usize).collect();
    bounds.extend([k0, k]);
    bounds.sort_unstable();
    for w in bounds.windows(2) {
        online
            .partial_fit(x.slice(s![w[0]..w[1], ..]), y.slice(s![w[0]..w[1], ..]))
            .expect("partial_fit");
    }
    prop_assert_eq!(online.rows(), k);
    let (w_ref, a) = direct(online.model(), x.view(), y.view());
    let lambda = online.model().lambda();
    let tol = ridge_tolerance(a.view(), y.view(), w_ref.view(), lambda, bounds.len() + 1, 1);
    let err = fro_diff(online_weights(&online).view(), w_ref.view());
    prop_assert!(err <= tol, "added: ‖W − W*‖ = {err:.3e} > {tol:.3e}");

    let kept_x = concatenate![Axis(0), x.slice(s![..f0, ..]), x.slice(s![f1.., ..])];
    let kept_y = concatenate![Axis(0), y.slice(s![..f0, ..]), y.slice(s![f1.., ..])];
    match online.forget(x.slice(s![f0..f1, ..]), y.slice(s![f0..f1, ..])) {
        Ok(()) => {
            prop_assert_eq!(online.rows(), k - (f1 - f0));
            let (w_ref, a_kept) = direct(online.model(), kept_x.view(), kept_y.view());
            let tol = forget_tolerance(
                a.view(),
                y.view(),
                a_kept.view(),
                w_ref.view(),
                lambda,
                bounds.len() + 2,
            );
            let err = fro_diff(online_weights(&online).view(), w_ref.view());
            prop_assert!(err <= tol, "forgot rows {f0}..{f1}: ‖W − W*‖ = {err:.3e} > {tol:.3e}");
        }
        Err(ModelError::Linalg(linalg_core::Error::ForgetNotPositiveDefinite { .. })) => {
            // Allowed only when λ is lost in the cancellation.
            let kept = spectrum(direct(online.model(), kept_x.view(), kept_y.view()).1.view());
            let full = spectrum(a.view());
            let rounding = (a.nrows() + a.ncols()) as f64 * f64::EPSILON * full.norm_a * full.norm_a;
            prop_assert!(
                kept.sigma_min * kept.sigma_min + lambda <= 4.0 * rounding,
                "refused a definite downdate"
            );
        }
        Err(e) => prop_assert!(false, "forget: {e}"),
    }
    Ok(())
}

/// The weights an [`OnlineFit`] of either model holds.
fn online_weights<M: LinearReadout>(online: &OnlineFit<M>) -> Array2<f64> {
    online.model().output_weights().to_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn elm_rows_added_and_forgotten_equal_a_direct_solve_on_the_rows_kept(
        seed in any::<u64>(),
        k in 30usize..120,
        d in 1usize..5,
        nodes in 2usize..40,
        log_lambda in -8.0f64..0.0,
        first in 0.1f64..0.9,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..4),
        forget_at in 0.0f64..1.0,
        forget_len in 0.0f64..0.4,
    ) {
        let mut r = rng(seed);
        let x = r.uniform_matrix(k, d, -2.0, 3.0);
        let y = r.gaussian(k, 2);
        let lambda = 10f64.powf(log_lambda);
        let k0 = ((first * k as f64) as usize).max(1);
        let p = ElmParams::new(nodes, Activation::Sigmoid).with_lambda(lambda).with_seed(seed).check().expect("valid");
        let model = p.fit(&Dataset::new(x.slice(s![..k0, ..]), y.slice(s![..k0, ..]))).expect("fit");
        let f0 = ((forget_at * k as f64) as usize).min(k - 1);
        let f1 = (f0 + 1 + (forget_len * k as f64) as usize).min(k);
        check_online(model, &x, &y, k0, &cuts, (f0, f1))?;
    }

    #[test]
    fn bls_rows_added_and_forgotten_equal_a_direct_solve_on_the_rows_kept(
        seed in any::<u64>(),
        k in 40usize..120,
        log_lambda in -8.0f64..-2.0,
        enhancement in 2usize..30,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..4),
        forget_at in 0.0f64..1.0,
    ) {
        let (x, y) = bls_data(seed, k, 3);
        let lambda = 10f64.powf(log_lambda);
        let k0 = k / 2;
        let model = BlsParams::new(2, 3, enhancement).with_lambda(lambda).with_seed(seed)
            .fit(&Dataset::new(x.slice(s![..k0, ..]), y.slice(s![..k0, ..]))).expect("fit");
        let f0 = ((forget_at * k as f64) as usize).min(k - 5);
        check_online(model, &x, &y, k0, &cuts, (f0, f0 + 5))?;
    }
}

/// The model's weights are the solve of the sums it keeps (bit for bit), a
/// saved and loaded fit continues where it was, and the errors are named
/// with nothing changed.
#[test]
fn weights_saving_and_errors() -> Result<(), Box<dyn std::error::Error>> {
    let mut r = rng(3);
    let x = r.uniform_matrix(80, 3, -1.0, 1.0);
    let y = r.gaussian(80, 1);
    let p = ElmParams::new(12, Activation::Tanh).with_lambda(1e-4).check()?;
    let model = p.fit(&Dataset::new(x.slice(s![..40, ..]), y.slice(s![..40, ..])))?;
    let mut online = OnlineFit::new(
        model,
        [Ok((x.slice(s![..40, ..]).to_owned(), y.slice(s![..40, ..]).to_owned()))],
    )?;
    // Started from sums, the model's weights are their solve, bit for bit.
    let again = linalg_core::ridge::OnlineRidge::from_accumulator(&online.sums(), 1e-4)?.weights()?;
    assert_eq!(online.model().output_weights(), again.view());
    online.partial_fit(x.slice(s![40..60, ..]), y.slice(s![40..60, ..]))?;
    // An empty block changes nothing.
    online.partial_fit(x.slice(s![..0, ..]), y.slice(s![..0, ..]))?;
    assert_eq!(online.rows(), 60);

    let bytes = bincode::serde::encode_to_vec(&online, bincode::config::standard())?;
    let (mut loaded, _): (OnlineFit<models::Elm>, usize) =
        bincode::serde::decode_from_slice(&bytes, bincode::config::standard())?;
    assert_eq!(loaded.rows(), 60);
    for o in [&mut online, &mut loaded] {
        o.partial_fit(x.slice(s![60.., ..]), y.slice(s![60.., ..]))?;
    }
    let d = fro_diff(online.model().output_weights(), loaded.model().output_weights());
    assert!(d <= 1e-12 * fro(online.model().output_weights()), "{d:e}");

    // Rows never added, 50× larger: the downdate is indefinite.
    let before = online.model().output_weights().to_owned();
    let big = x.slice(s![..4, ..]).mapv(|v| 50.0 * v);
    let e = online.forget(big.view(), y.slice(s![..4, ..])).expect_err("indefinite");
    assert!(e.to_string().contains("forgetting 4 row(s)"), "{e}");
    assert_eq!(online.model().output_weights(), before.view());
    assert_eq!(online.rows(), 80);
    // Shapes and NaN: named, nothing changed.
    assert!(online.partial_fit(x.slice(s![.., ..2]), y.view()).is_err());
    let mut nan = x.slice(s![..2, ..]).to_owned();
    nan[[1, 1]] = f64::NAN;
    assert!(online.partial_fit(nan.view(), y.slice(s![..2, ..])).is_err());
    assert_eq!((online.rows(), online.model().output_weights()), (80, before.view()));
    // A minimum-norm least-squares model has no ridge system.
    let lstsq = ElmParams::new(12, Activation::Tanh)
        .with_solver(ReadoutSolver::Lstsq)
        .check()?;
    let m = lstsq.fit(&Dataset::new(x.view(), y.view()))?;
    let e = OnlineFit::new(m, [Ok((x.to_owned(), y.to_owned()))]).expect_err("lstsq");
    assert!(matches!(e, ModelError::InvalidParameter { name: "lambda", .. }), "{e}");
    Ok(())
}

/// Rows added with weights (`new_weighted`, `partial_fit_weighted`) give
/// the weighted ridge solution of all rows: the ridge solution of the
/// model's hidden outputs scaled by `√w` (elimination on the normal
/// equations, within `ridge_tolerance` of the scaled problem, one
/// elimination per update plus the reference); forgetting a batch with its
/// weights leaves the solution of the rest; a batch of zero weights
/// changes nothing, and bad weights are refused with nothing changed.
#[test]
fn weighted_rows_are_added_and_forgotten() {
    let mut r = rng(17);
    let x = r.uniform_matrix(240, 3, -1.0, 1.0);
    let y = Array2::from_shape_fn((240, 2), |(i, c)| {
        (x[[i, 0]] * (c as f64 + 1.0)).sin() + x[[i, 1]] * x[[i, 2]]
    });
    let w = ndarray::Array1::from_shape_fn(240, |i| [0.0, 0.5, 1.0, 2.5][i % 4]);
    let lambda = 1e-3;
    let elm = ElmParams::new(30, Activation::Sigmoid)
        .with_lambda(lambda)
        .check()
        .expect("valid")
        .fit_weighted(
            &Dataset::new(x.slice(s![..100, ..]), y.slice(s![..100, ..])),
            w.slice(s![..100]),
        )
        .expect("fit");
    let mut online = OnlineFit::new_weighted(elm, x.slice(s![..100, ..]), y.slice(s![..100, ..]), w.slice(s![..100]))
        .expect("start");
    online
        .partial_fit_weighted(
            x.slice(s![100..170, ..]),
            y.slice(s![100..170, ..]),
            w.slice(s![100..170]),
        )
        .expect("add");
    online
        .partial_fit_weighted(x.slice(s![170.., ..]), y.slice(s![170.., ..]), w.slice(s![170..]))
        .expect("add");
    let scaled = |model: &models::Elm, rows: std::ops::Range<usize>| {
        let root = w.slice(s![rows.clone()]).mapv(f64::sqrt).insert_axis(Axis(1));
        let a = model.hidden_outputs(x.slice(s![rows.clone(), ..])).expect("hidden") * &root;
        (a, &y.slice(s![rows, ..]) * &root)
    };
    let check = |online: &OnlineFit<models::Elm>, rows: std::ops::Range<usize>, steps: usize| {
        let (a, ys) = scaled(online.model(), rows.clone());
        let mut g = at_b(a.view(), a.view());
        g.diag_mut().mapv_inplace(|v| v + lambda);
        let reference = gauss_solve(g.view(), at_b(a.view(), ys.view()).view());
        let tol = ridge_tolerance(a.view(), ys.view(), reference.view(), lambda, steps, 1);
        let err = fro_diff(online.model().output_weights(), reference.view());
        assert!(err <= tol, "‖W − W*‖ = {err:.3e} > {tol:.3e}");
        // The weights matter: the unweighted solution is elsewhere.
        let (w_plain, _) = direct(online.model(), x.slice(s![rows.clone(), ..]), y.slice(s![rows, ..]));
        assert!(fro_diff(online.model().output_weights(), w_plain.view()) > 1e3 * tol);
    };
    check(&online, 0..240, 4);
    online
        .forget_weighted(x.slice(s![170.., ..]), y.slice(s![170.., ..]), w.slice(s![170..]))
        .expect("forget");
    let (a_full, y_full) = scaled(online.model(), 0..240);
    let (a_kept, y_kept) = scaled(online.model(), 0..170);
    let mut g = at_b(a_kept.view(), a_kept.view());
    g.diag_mut().mapv_inplace(|v| v + lambda);
    let reference = gauss_solve(g.view(), at_b(a_kept.view(), y_kept.view()).view());
    let tol = forget_tolerance(a_full.view(), y_full.view(), a_kept.view(), reference.view(), lambda, 5);
    let err = fro_diff(online.model().output_weights(), reference.view());
    assert!(err <= tol, "after forgetting: {err:.3e} > {tol:.3e}");

    let before = online.model().output_weights().to_owned();
    online
        .partial_fit_weighted(
            x.slice(s![..5, ..]),
            y.slice(s![..5, ..]),
            ndarray::Array1::zeros(5).view(),
        )
        .expect("zero weights");
    assert_eq!(online.model().output_weights(), before);
    for bad in [ndarray::Array1::from_elem(5, -1.0), ndarray::Array1::from_elem(4, 1.0)] {
        let e = online
            .partial_fit_weighted(x.slice(s![..5, ..]), y.slice(s![..5, ..]), bad.view())
            .expect_err("bad weights");
        assert!(
            matches!(
                e,
                ModelError::InvalidParameter {
                    name: "sample_weight",
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(online.model().output_weights(), before);
    }
}
