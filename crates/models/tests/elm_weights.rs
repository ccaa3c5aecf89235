//! The ELM with a weight per sample (`ElmValidParams::fit_weighted`, issue
//! 41, item 4): against the weighted normal equations solved in the test,
//! against repeating the rows, and its refusals.

mod common;

use common::{at_b, elm_data as data, fro, fro_diff, gauss_solve, ridge_tolerance, rng, U};
use models::prelude::*;
use models::{Activation, ElmParams, ElmValidParams, HiddenLayer, InputScale, ModelError};
use ndarray::{Array1, Array2, ArrayView1, Axis};
use proptest::prelude::*;

fn params(nodes: usize, lambda: f64, scale: InputScale) -> ElmValidParams {
    ElmParams::new(nodes, Activation::Sigmoid)
        .with_lambda(lambda)
        .with_seed(5)
        .with_input_scale(scale)
        .check()
        .expect("valid parameters")
}

/// `diag(√w) M`.
fn rows_scaled(m: &Array2<f64>, w: ArrayView1<'_, f64>) -> Array2<f64> {
    m * &w.mapv(f64::sqrt).insert_axis(Axis(1))
}

/// The weighted fit against `(AᵀDA + λI)⁻¹AᵀDY` formed by plain loops with
/// `D = diag(w)` (the weights themselves, not their roots) and solved by the
/// test's Gaussian elimination. Both solve the normal equations of the
/// scaled problem `B = √D A`, `Ỹ = √D Y` stably, so each is within
/// `common::ridge_tolerance(B, Ỹ, …)` of the exact solution and their
/// difference within twice that; forming `AᵀDA` from `w` instead of `√w`
/// perturbs it by `(K + n)u‖B‖²` at most, which that bound's `γ` term holds.
fn check_against_normal_equations(seed: u64, k: usize, nodes: usize, lambda: f64, w: &Array1<f64>) {
    let (x, y) = data(seed, k);
    let p = params(nodes, lambda, InputScale::Fixed(1.0));
    let elm = p
        .fit_weighted(&Dataset::new(x.view(), y.view()), w.view())
        .expect("a valid weighted problem");
    let a = HiddenLayer::random_scaled(4, nodes, Activation::Sigmoid, 5, 1.0)
        .outputs(x.view())
        .expect("shapes");
    let da = &a * &w.view().insert_axis(Axis(1));
    let mut r = at_b(da.view(), a.view());
    for i in 0..nodes {
        r[[i, i]] += lambda;
    }
    let expected = gauss_solve(r.view(), at_b(da.view(), y.view()).view());
    let (b, yb) = (rows_scaled(&a, w.view()), rows_scaled(&y, w.view()));
    let tol = 2.0 * ridge_tolerance(b.view(), yb.view(), expected.view(), lambda, 1, 1);
    let err = fro_diff(elm.output_weights(), expected.view());
    assert!(
        err <= tol,
        "K = {k}, l = {nodes}, λ = {lambda:e}: ‖W − W*‖ = {err:.3e} > {tol:.3e}"
    );
}

#[test]
fn weighted_fit_solves_the_weighted_normal_equations() {
    let k = 120;
    let mut g = rng(77);
    // Weights spread over three decades, a tenth of them 0.
    let w = Array1::from_shape_fn(k, |i| {
        if i % 10 == 3 {
            0.0
        } else {
            10f64.powf(g.range(-1.5, 1.5))
        }
    });
    for lambda in [1.0, 1e-3, 1e-7] {
        check_against_normal_equations(3, k, 30, lambda, &w);
    }
    // The unweighted answer is a different one: the test can see the weights.
    let (x, y) = data(3, k);
    let p = params(30, 1e-3, InputScale::Fixed(1.0));
    let plain = p.fit(&Dataset::new(x.view(), y.view())).expect("fit");
    let weighted = p
        .fit_weighted(&Dataset::new(x.view(), y.view()), w.view())
        .expect("fit");
    assert!(fro_diff(plain.output_weights(), weighted.output_weights()) > 1e-3 * fro(plain.output_weights()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random problems, well and ill conditioned (λ down to 1e-9, up to 60
    /// nodes on 80 samples), random weights with zeros.
    #[test]
    fn weighted_fit_matches_the_normal_equations(
        seed in 0u64..1_000,
        nodes in 5usize..60,
        log_lambda in -9.0f64..0.0,
        zero_every in 2usize..20,
    ) {
        let k = 80;
        let mut g = rng(seed ^ 0xA5A5);
        let w = Array1::from_shape_fn(k, |i| if i % zero_every == 1 { 0.0 } else { g.range(0.0, 4.0) });
        check_against_normal_equations(seed, k, nodes, 10f64.powf(log_lambda), &w);
    }
}

/// Integer weights fit what repeating the rows fits. The hidden layer's
/// scale is fixed here (the weighted scale has its own test below), so both
/// fits solve normal equations equal in exact arithmetic: `Σ_k w_k a_k a_kᵀ`
/// and the same sum over the repeated rows; each solve is within
/// `ridge_tolerance` of that one solution.
#[test]
fn integer_weights_fit_the_repeated_rows() {
    let k = 90;
    let (x, y) = data(11, k);
    let counts: Vec<usize> = (0..k).map(|i| (i * 7 + 3) % 4).collect(); // 0, 1, 2, 3
    let w = Array1::from_iter(counts.iter().map(|&c| c as f64));
    let rows: Vec<usize> = (0..k).flat_map(|i| std::iter::repeat_n(i, counts[i])).collect();
    let (xr, yr) = (x.select(Axis(0), &rows), y.select(Axis(0), &rows));
    for lambda in [1e-1, 1e-5] {
        let p = params(25, lambda, InputScale::Fixed(0.5));
        let weighted = p
            .fit_weighted(&Dataset::new(x.view(), y.view()), w.view())
            .expect("fit");
        let repeated = p.fit(&Dataset::new(xr.view(), yr.view())).expect("fit");
        let a = repeated.hidden_outputs(xr.view()).expect("shapes");
        let tol = 2.0 * ridge_tolerance(a.view(), yr.view(), repeated.output_weights(), lambda, 1, 1);
        let err = fro_diff(weighted.output_weights(), repeated.output_weights());
        assert!(err <= tol, "λ = {lambda:e}: {err:.3e} > {tol:.3e}");
        assert!(
            tol < 1e-6 * fro(repeated.output_weights()),
            "the bound {tol:e} must be a real test"
        );
    }
}

/// The unit-variance scale of weighted rows is the scale of the repeated
/// rows: both are `√(3/mean‖x/m‖²)/m` with the mean a sum of K·N positive
/// terms, each sum within `γ_{KN} = KN·u` relative of the exact one.
#[test]
fn the_weighted_input_scale_is_that_of_the_repeated_rows() {
    let k = 70;
    let (x, _) = data(12, k);
    let counts: Vec<usize> = (0..k).map(|i| (i * 5 + 1) % 3).collect();
    let w = Array1::from_iter(counts.iter().map(|&c| c as f64));
    let rows: Vec<usize> = (0..k).flat_map(|i| std::iter::repeat_n(i, counts[i])).collect();
    let xr = x.select(Axis(0), &rows);
    let weighted = InputScale::UnitVariance.factor_weighted(x.view(), Some(w.view()));
    let repeated = InputScale::UnitVariance.factor(xr.view());
    let bound = 4.0 * (rows.len() * 4) as f64 * U;
    assert!(
        ((weighted - repeated) / repeated).abs() <= bound,
        "{weighted} vs {repeated} (relative bound {bound:e})"
    );
    // Not the unweighted scale: the zero weights drop rows.
    let plain = InputScale::UnitVariance.factor(x.view());
    assert!(((plain - repeated) / repeated).abs() > 1e3 * bound);
}

#[test]
fn weights_must_be_one_per_sample_finite_nonnegative_and_not_all_zero() {
    let (x, y) = data(1, 20);
    let p = params(5, 0.1, InputScale::UnitVariance);
    let data = Dataset::new(x.view(), y.view());
    let cases: [(Array1<f64>, &str); 5] = [
        (Array1::ones(19), "19 weights"),
        (
            Array1::from_shape_fn(20, |i| if i == 7 { -1.0 } else { 1.0 }),
            "-1 (sample 7)",
        ),
        (
            Array1::from_shape_fn(20, |i| if i == 2 { f64::NAN } else { 1.0 }),
            "NaN (sample 2)",
        ),
        (
            Array1::from_shape_fn(20, |i| if i == 0 { f64::INFINITY } else { 1.0 }),
            "inf (sample 0)",
        ),
        (Array1::zeros(20), "all 0"),
    ];
    for (w, shown) in cases {
        match p.fit_weighted(&data, w.view()) {
            Err(ModelError::InvalidParameter { name, value, .. }) => {
                assert_eq!(name, "sample_weight");
                assert_eq!(value, shown);
            }
            other => panic!("{shown}: expected InvalidParameter, got {other:?}"),
        }
    }
}
