//! The BLS with a weight per sample (`BlsValidParams::fit_weighted`, issue
//! 41, item 4): the readout against the weighted normal equations, the
//! whole fit against the repeated rows, zero weights against the rows left
//! out, and the refusals.

mod common;

use common::{at_b, bls_data as data, fro, fro_diff, gauss_solve, ridge_tolerance};
use models::bls::{BlsParams, BlsValidParams};
use models::prelude::*;
use models::{LinearReadout, ModelError};
use ndarray::{Array1, Array2, Axis};

fn params(lambda: f64) -> BlsValidParams {
    BlsParams::new(2, 4, 20)
        .with_lambda(lambda)
        .with_seed(13)
        .check()
        .expect("valid parameters")
}

fn repeated(m: &Array2<f64>, counts: &[usize]) -> Array2<f64> {
    let rows: Vec<usize> = (0..counts.len())
        .flat_map(|i| std::iter::repeat_n(i, counts[i]))
        .collect();
    m.select(Axis(0), &rows)
}

/// The output weights against `(AᵀDA + λI)⁻¹AᵀDY` on the fitted network's own
/// hidden outputs, formed by loops with `D = diag(w)` and solved by the
/// test's elimination: both stable solves of the scaled problem
/// `B = √D A`, within twice `ridge_tolerance(B, √D Y, …)` of each other.
#[test]
fn the_readout_solves_the_weighted_normal_equations() {
    let (x, y) = data(4, 160, 5);
    let w = Array1::from_shape_fn(160, |i| if i % 9 == 2 { 0.0 } else { 0.2 + (i % 5) as f64 });
    for lambda in [1e-2, 1e-6] {
        let bls = params(lambda)
            .fit_weighted(&Dataset::new(x.view(), y.view()), w.view())
            .expect("fit");
        let a = LinearReadout::hidden_outputs(&bls, x.view()).expect("shapes");
        let da = &a * &w.view().insert_axis(Axis(1));
        let mut r = at_b(da.view(), a.view());
        for i in 0..a.ncols() {
            r[[i, i]] += lambda;
        }
        let expected = gauss_solve(r.view(), at_b(da.view(), y.view()).view());
        let root = w.mapv(f64::sqrt).insert_axis(Axis(1));
        let (b, yb) = (&a * &root, &y * &root);
        let tol = 2.0 * ridge_tolerance(b.view(), yb.view(), expected.view(), lambda, 1, 1);
        let err = fro_diff(bls.output_weights(), expected.view());
        assert!(err <= tol, "λ = {lambda:e}: {err:.3e} > {tol:.3e}");
        assert!(
            tol < 1e-4 * fro(expected.view()),
            "the bound {tol:e} must be a real test"
        );
    }
}

/// Integer weights fit what the repeated rows fit: the autoencoder's sums,
/// the extremes and the readout's normal equations are those of the
/// repeated rows up to rounding, which the lasso's fixed iterations and
/// the solve carry through; the fit lands a millionth of the way from the
/// repeated rows' that it is from the unweighted fit.
#[test]
fn integer_weights_fit_the_repeated_rows_and_zero_weights_leave_rows_out() {
    let (x, y) = data(5, 150, 4);
    let counts: Vec<usize> = (0..150).map(|i| (i * 5 + 1) % 4).collect();
    let w = Array1::from_iter(counts.iter().map(|&c| c as f64));
    let p = params(1e-4);
    let weighted = p
        .fit_weighted(&Dataset::new(x.view(), y.view()), w.view())
        .expect("fit");
    let (xr, yr) = (repeated(&x, &counts), repeated(&y, &counts));
    let rep = p.fit(&Dataset::new(xr.view(), yr.view())).expect("fit");
    let plain = p.fit(&Dataset::new(x.view(), y.view())).expect("fit");
    let (pw, pr, pp) = (
        weighted.predict(x.view()).expect("predict"),
        rep.predict(x.view()).expect("predict"),
        plain.predict(x.view()).expect("predict"),
    );
    let (to_rep, to_plain) = (fro_diff(pw.view(), pr.view()), fro_diff(pw.view(), pp.view()));
    assert!(to_plain > 1e-3 * fro(pp.view()), "the weights must move the fit");
    assert!(
        to_rep <= 1e-6 * to_plain,
        "weighted vs repeated {to_rep:e}, vs unweighted {to_plain:e}"
    );
    // Zero weights: the rows left out (the others weighted 1).
    let ones: Vec<usize> = counts.iter().map(|&c| usize::from(c > 0)).collect();
    let w01 = Array1::from_iter(ones.iter().map(|&c| c as f64));
    let dropped = p
        .fit_weighted(&Dataset::new(x.view(), y.view()), w01.view())
        .expect("fit");
    let (xk, yk) = (repeated(&x, &ones), repeated(&y, &ones));
    let kept = p.fit(&Dataset::new(xk.view(), yk.view())).expect("fit");
    let pd = dropped.predict(x.view()).expect("predict");
    let d = fro_diff(pd.view(), kept.predict(x.view()).expect("predict").view());
    let moved = fro_diff(pd.view(), pp.view());
    assert!(
        d <= 1e-6 * moved,
        "zero weights vs rows left out: {d:e} (vs all rows: {moved:e})"
    );
    eprintln!("repeated {to_rep:e} / {to_plain:e}; left out {d:e} / {moved:e}");
}

#[test]
fn bad_weights_are_refused() {
    let (x, y) = data(1, 30, 3);
    let p = params(1e-3);
    for (w, shown) in [
        (Array1::ones(29), "29 weights"),
        (Array1::from_elem(30, -0.5), "-0.5 (sample 0)"),
        (Array1::zeros(30), "all 0"),
    ] {
        match p.fit_weighted(&Dataset::new(x.view(), y.view()), w.view()) {
            Err(ModelError::InvalidParameter {
                name: "sample_weight",
                value,
                ..
            }) => assert_eq!(value, shown),
            other => panic!("{shown}: {other:?}"),
        }
    }
}
