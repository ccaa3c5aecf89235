//! The ELM and the BLS fitted on sparse samples (`fit_samples` with a
//! `Csr`, issue 41, item 4) against the same fits on the dense matrix.
//!
//! What may differ, and by how much:
//! - **The hidden layer** is drawn identically: its input scale reads the
//!   rows' values in the same order, the dense rows' zeros adding exactly
//!   nothing to a maximum or a sum, so the layers are equal.
//! - **The hidden outputs** `max(0, XW + 1bᵀ)` (ReLU: exact and 1-Lipschitz)
//!   differ only by how `XW + b` is summed: a DGEMM over all `N` columns
//!   against the stored entries in storage order. Each is a sum of `N + 1`
//!   terms, within `γ_{N+1}·(|X||W| + |b|)` of the exact value (Higham, eq.
//!   (3.5)), so the two differ by at most twice that, entry by entry.
//! - **The output weights** `W = (AᵀA + λI)⁻¹AᵀY` then differ by the
//!   first-order perturbation of the ridge solution in `A`,
//!   `ΔW = R⁻¹ΔAᵀ(Y − AW) − R⁻¹AᵀΔA·W`, so `‖ΔW‖ ≤ ‖ΔA‖(‖R⁻¹‖‖Y − AW‖ +
//!   ‖W‖/(2√λ))` (`‖R⁻¹Aᵀ‖ ≤ max σ/(σ² + λ) ≤ 1/(2√λ)`), plus the rounding
//!   of the two solves, each within `ridge_tolerance` of the exact solution.
//! - **The BLS** reads `X` only through `X̃W_e`, `A1ᵀX` and `X̃β`; with one
//!   stored entry per row and per column every entry of these products is a
//!   single product, rounded once by either kernel, and every later step is
//!   the same code on the same numbers: the two fits are equal.

mod common;

use common::{fro, fro_diff, ridge_tolerance, rng, spectrum, U};
use models::bls::BlsParams;
use models::prelude::*;
use models::{Activation, Csr, ElmParams};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use proptest::prelude::*;

fn gamma(n: usize) -> f64 {
    let nu = n as f64 * U;
    nu / (1.0 - nu)
}

/// `k×n` samples, about `density` of them nonzero, column `j` scaled by
/// `10^e_j` (`e_j` on `[−spread, spread]`), and two smooth targets.
fn data(seed: u64, k: usize, n: usize, density: f64, spread: f64) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let scales: Vec<f64> = (0..n).map(|_| 10f64.powf(r.range(-spread, spread))).collect();
    let x = Array2::from_shape_fn((k, n), |(_, j)| {
        if r.uniform() < density {
            r.range(-1.0, 1.0) * scales[j]
        } else {
            0.0
        }
    });
    let y = Array2::from_shape_fn((k, 2), |(i, c)| {
        let row = x.row(i);
        let s: f64 = row
            .iter()
            .enumerate()
            .map(|(j, v)| {
                if c == 0 || j % 2 == 0 {
                    v / scales[j]
                } else {
                    -v / scales[j]
                }
            })
            .sum();
        s.tanh()
    });
    (x, y)
}

/// The entrywise bound `2γ_{N+1}(|X||W| + |b|)` on the difference of two
/// computed `max(0, XW + 1bᵀ)`.
fn hidden_bound(x: ArrayView2<'_, f64>, elm: &models::Elm) -> Array2<f64> {
    let (w, b) = (elm.hidden().weights(), elm.hidden().biases());
    let mut s = x.mapv(f64::abs).dot(&w.mapv(f64::abs));
    s += &b.mapv(f64::abs).insert_axis(Axis(0));
    s * (2.0 * gamma(x.ncols() + 1))
}

/// The bound on the difference of two computed ridge solutions, one on `a`
/// (targets `y`, solution `w`) and one on a matrix within `da` (Frobenius)
/// of it.
fn weights_bound(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>, da: f64, lambda: f64) -> f64 {
    let sp = spectrum(a);
    let residual = fro_diff(y, a.dot(&w).view());
    let perturbation = da * (residual / (sp.sigma_min * sp.sigma_min + lambda) + fro(w) / (2.0 * lambda.sqrt()));
    perturbation + 2.0 * ridge_tolerance(a, y, w, lambda, 1, 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_sparse_elm_fit_is_the_dense_fit_within_rounding(
        seed in any::<u64>(),
        density in 0.05f64..0.9,
        spread in 0.0f64..3.0,
        lambda_exp in -4i32..1,
        weighted in any::<bool>(),
    ) {
        let (k, n, l) = (80, 30, 25);
        let lambda = 10f64.powi(lambda_exp);
        let (x, y) = data(seed, k, n, density, spread);
        let xs = Csr::from_dense(x.view()).expect("finite");
        let params = ElmParams::new(l, Activation::Relu).with_lambda(lambda).with_seed(seed).check().expect("valid");
        let w = Array1::from_shape_fn(k, |i| if weighted { [0.0, 0.5, 1.0, 3.0][i % 4] } else { 1.0 });
        let data = Dataset::new(x.view(), y.view());
        let (dense, sparse) = if weighted {
            (
                params.fit_weighted(&data, w.view()).expect("dense fit"),
                params.fit_samples((&xs).into(), y.view(), Some(w.view())).expect("sparse fit"),
            )
        } else {
            (params.fit(&data).expect("dense fit"), params.fit_samples((&xs).into(), y.view(), None).expect("sparse fit"))
        };
        prop_assert_eq!(sparse.hidden(), dense.hidden());

        let (ad, as_) = (dense.hidden_outputs(x.view()).expect("dense"), sparse.hidden_outputs(&xs).expect("sparse"));
        let bound = hidden_bound(x.view(), &dense);
        for ((p, q), b) in ad.iter().zip(as_.iter()).zip(bound.iter()) {
            prop_assert!((p - q).abs() <= *b, "hidden output {p} vs {q}, bound {b}");
        }

        // The readout solved the problem scaled by √w (rows of weight 0 are zero rows).
        let root = w.mapv(f64::sqrt).insert_axis(Axis(1));
        let (a, ys) = (&ad * &root, &y * &root);
        let da = fro((&bound * &root).view());
        let tol = weights_bound(a.view(), ys.view(), dense.output_weights(), da, lambda);
        let diff = fro_diff(sparse.output_weights(), dense.output_weights());
        prop_assert!(diff <= tol, "‖ΔW‖ = {diff:e} > {tol:e}");

        // Predicting sparse samples is predicting the dense ones, within the
        // hidden outputs' bound carried through |W|.
        let (pd, ps) = (dense.predict(x.view()).expect("dense"), dense.predict(&xs).expect("sparse"));
        let carried = bound.dot(&dense.output_weights().mapv(f64::abs));
        let rounding = ad.mapv(f64::abs).dot(&dense.output_weights().mapv(f64::abs)) * (2.0 * gamma(l));
        for ((p, q), b) in pd.iter().zip(ps.iter()).zip((&carried + &rounding).iter()) {
            prop_assert!((p - q).abs() <= *b, "prediction {p} vs {q}, bound {b}");
        }
    }
}

/// With one stored entry per row and per column every product the BLS
/// forms from `X` is a single rounded multiplication, whichever kernel
/// computes it: the sparse and the dense fits are the same network, and
/// predict the same numbers (unweighted and weighted, zero weights
/// included).
#[test]
fn the_sparse_bls_fit_is_the_dense_fit_when_every_sum_has_one_term() {
    let (k, d) = (60, 90);
    let mut r = rng(5);
    let mut x = Array2::<f64>::zeros((k, d));
    for i in 0..k {
        // 37 is prime to 90: distinct rows get distinct columns.
        x[[i, (37 * i + 11) % d]] = r.range(-2.0, 2.0);
    }
    let y = Array2::from_shape_fn((k, 2), |(i, c)| (x.row(i).sum() * (c as f64 + 1.0)).sin());
    let xs = Csr::from_dense(x.view()).expect("finite");
    let params = BlsParams::new(3, 5, 20)
        .with_lambda(1e-3)
        .with_seed(3)
        .check()
        .expect("valid");
    let w = Array1::from_shape_fn(k, |i| [1.0, 0.0, 2.0][i % 3]);
    let data = Dataset::new(x.view(), y.view());
    for weights in [None, Some(w.view())] {
        let dense = match weights {
            None => params.fit(&data).expect("dense fit"),
            Some(w) => params.fit_weighted(&data, w).expect("dense fit"),
        };
        let sparse = params.fit_samples((&xs).into(), y.view(), weights).expect("sparse fit");
        assert_eq!(sparse.expansion(), dense.expansion());
        assert_eq!(sparse.output_weights(), dense.output_weights());
        assert_eq!(
            sparse.predict(&xs).expect("sparse"),
            dense.predict(x.view()).expect("dense")
        );
        assert_eq!(
            sparse.hidden_outputs(&xs).expect("sparse"),
            dense.hidden_outputs(x.view()).expect("dense")
        );
    }
}

/// Sparse samples are checked like dense ones: the wrong width, no rows,
/// targets of another length and bad weights are errors naming them.
#[test]
fn sparse_samples_are_checked() {
    let (x, y) = data(1, 20, 6, 0.5, 0.0);
    let xs = Csr::from_dense(x.view()).expect("finite");
    let elm = ElmParams::new(5, Activation::Sigmoid).check().expect("valid");
    let fitted = elm.fit_samples((&xs).into(), y.view(), None).expect("fit");
    let narrow = Csr::from_dense(x.slice(ndarray::s![.., ..5])).expect("finite");
    assert!(fitted
        .predict(&narrow)
        .expect_err("width")
        .to_string()
        .contains("samples X"));
    let empty = Csr::try_new(0, 6, vec![0], vec![], vec![]).expect("valid");
    assert!(elm
        .fit_samples((&empty).into(), y.slice(ndarray::s![..0, ..]), None)
        .is_err());
    let short = y.slice(ndarray::s![..19, ..]);
    assert!(elm
        .fit_samples((&xs).into(), short, None)
        .expect_err("rows")
        .to_string()
        .contains("targets Y"));
    let zeros = Array1::zeros(20);
    assert!(elm
        .fit_samples((&xs).into(), y.view(), Some(zeros.view()))
        .expect_err("weights")
        .to_string()
        .contains("sample_weight"));
    let bls = BlsParams::new(2, 3, 5).check().expect("valid");
    let fitted = bls.fit_samples((&xs).into(), y.view(), None).expect("fit");
    assert!(fitted
        .predict(&narrow)
        .expect_err("width")
        .to_string()
        .contains("samples X"));
    assert!(bls.fit_samples((&xs).into(), short, None).is_err());
}
