//! The Broad Learning System's sparse autoencoder: the lasso by ADMM
//! (`models::bls::lasso_admm`) against its optimality conditions, least
//! squares, and Chen's `sparse_bls.m` recurrence written out with plain loops.

mod common;

use common::{a_b, at_b, bls_data as data, fro, fro_diff, gauss_solve, rng, sym_eigenvalues, U};
use models::bls::{lasso_admm, soft_threshold, BlsParams, BIAS_INPUT};
use models::ModelError;
use ndarray::{concatenate, Array2, ArrayView2, Axis};

/// The largest violation of the lasso's optimality conditions at `o`, for
/// `min ½‖A B − X̃‖² + μ‖B‖₁` with gradient `G = Aᵀ(A o − X̃)` (plain loops):
/// `G = −μ sign(o)` where `o ≠ 0`, `|G| ≤ μ` where `o = 0`.
fn kkt_violation(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>, o: ArrayView2<'_, f64>, mu: f64) -> f64 {
    let r = &a_b(a, o) - &b;
    let g = at_b(a, r.view());
    g.iter()
        .zip(o.iter())
        .map(|(&g, &o)| {
            if o != 0.0 {
                (g + mu * o.signum()).abs()
            } else {
                (g.abs() - mu).max(0.0)
            }
        })
        .fold(0.0, f64::max)
}

/// Chen's `sparse_bls.m` written out with plain loops and Gaussian
/// elimination (no BLAS, no Cholesky): the reference for the ADMM recurrence.
/// Returns the result and a bound on how far another evaluation of the same
/// recurrence can be from it: forming `L1 = (AᵀA + I)⁻¹` and `L2 = L1AᵀX̃`
/// another backward-stable way perturbs them by `γκ‖L1‖₂`, `γκ‖L2‖` with
/// `γ = 2Nu`, `κ = κ₂(AᵀA + I)`; each iteration then adds at most
/// `γκ(‖L1‖₂‖o_t − u_t‖ + ‖L2‖)` to the error, and the ADMM map is
/// nonexpansive, so the errors of the iterations add.
fn chen_sparse_bls(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>, lam: f64, itrs: usize) -> (Array2<f64>, f64) {
    let n = a.ncols();
    let mut aa = at_b(a, a);
    for i in 0..n {
        aa[[i, i]] += 1.0;
    }
    let ev = sym_eigenvalues(aa.view());
    let (kappa, norm_l1) = (ev[n - 1] / ev[0], 1.0 / ev[0]);
    let l1 = gauss_solve(aa.view(), Array2::eye(n).view());
    let l2 = a_b(l1.view(), at_b(a, b).view());
    let mut ok = Array2::<f64>::zeros(l2.raw_dim());
    let mut uk = ok.clone();
    let mut bound = 0.0;
    let gamma = 2.0 * n as f64 * U;
    for _ in 0..itrs {
        let tempc = &ok - &uk;
        bound += gamma * kappa * (norm_l1 * fro(tempc.view()) + fro(l2.view()));
        let ck = &l2 + &a_b(l1.view(), tempc.view());
        let shrink = |x: f64| (x - lam).max(0.0) - (-x - lam).max(0.0);
        ok = (&ck + &uk).mapv(shrink);
        uk = &uk + &(&ck - &ok);
    }
    (ok, bound)
}

/// The ADMM iterates converge to a lasso solution: after 2000 iterations the
/// optimality conditions hold to 1e-9 (relative to ‖AᵀX̃‖), far tighter than
/// after 50, for a small μ (Chen's 1e-3, few zeros) and a large one (many
/// zeros, both branches of the conditions exercised). `A` is a min–max
/// scaled random map of `X̃ = [X, 0.1]` as in a feature group.
#[test]
fn lasso_admm_converges_to_the_lasso_optimality_conditions() {
    let (x, _) = data(1, 80, 6);
    let xt = concatenate![Axis(1), x, Array2::from_elem((80, 1), BIAS_INPUT)];
    let mut rng = rng(2);
    let mut a = xt.dot(&rng.uniform_matrix(7, 5, -1.0, 1.0));
    for mut c in a.columns_mut() {
        let (lo, hi) = c
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        c.mapv_inplace(|v| (v - lo) * (2.0 / (hi - lo)) - 1.0);
    }
    let scale = at_b(a.view(), xt.view()).iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for mu in [1e-3, 0.3 * scale] {
        let early = lasso_admm(a.view(), xt.view(), mu, 50).expect("valid lasso");
        let o = lasso_admm(a.view(), xt.view(), mu, 2000).expect("valid lasso");
        let v_early = kkt_violation(a.view(), xt.view(), early.view(), mu);
        let v = kkt_violation(a.view(), xt.view(), o.view(), mu);
        assert!(v <= 1e-9 * scale, "μ = {mu}: KKT violation {v:e} (scale {scale:e})");
        assert!(v < 1e-3 * v_early, "μ = {mu}: {v:e} after 2000 vs {v_early:e} after 50");
        let zeros = o.iter().filter(|&&v| v == 0.0).count();
        if mu > 1.0 {
            assert!(zeros > 0 && zeros < o.len(), "μ = {mu}: {zeros} zeros of {}", o.len());
        }
    }
}

/// With μ = 0 the lasso is least squares: the iterates converge to the
/// normal-equations solution.
#[test]
fn lasso_admm_without_penalty_is_least_squares() {
    let mut rng = rng(3);
    let a = rng.uniform_matrix(40, 5, -1.0, 1.0);
    let b = rng.uniform_matrix(40, 3, -1.0, 1.0);
    let o = lasso_admm(a.view(), b.view(), 0.0, 3000).expect("valid lasso");
    let ls = gauss_solve(at_b(a.view(), a.view()).view(), at_b(a.view(), b.view()).view());
    assert!(fro_diff(o.view(), ls.view()) <= 1e-10 * fro(ls.view()));
}

/// The default (μ = 1e-3, 50 iterations) reproduces Chen's recurrence: the
/// same iterates up to the rounding of forming `(AᵀA + I)⁻¹` another way
/// (the bound of [`chen_sparse_bls`]; κ(AᵀA + I) ≈ 3e2 here). Also a large μ
/// and a few iterations.
#[test]
fn lasso_admm_matches_chens_recurrence() {
    let (x, _) = data(4, 120, 5);
    let xt = concatenate![Axis(1), x, Array2::from_elem((120, 1), BIAS_INPUT)];
    let mut rng = rng(5);
    let a = xt.dot(&rng.uniform_matrix(6, 8, -1.0, 1.0));
    for (mu, iterations) in [
        (BlsParams::DEFAULT_SPARSE_MU, BlsParams::DEFAULT_ADMM_ITERATIONS),
        (0.5, 7),
    ] {
        let ours = lasso_admm(a.view(), xt.view(), mu, iterations).expect("valid lasso");
        let (chen, tol) = chen_sparse_bls(a.view(), xt.view(), mu, iterations);
        let err = fro_diff(ours.view(), chen.view());
        assert!(err <= tol, "μ = {mu}: differs by {err:e} > {tol:e}");
        assert!(tol <= 1e-9 * fro(chen.view()), "μ = {mu}: bound {tol:e} too loose");
    }
    assert_eq!(soft_threshold(0.5, 0.2), 0.5 - 0.2);
    assert_eq!(soft_threshold(-0.5, 0.2), -0.5 + 0.2);
    assert_eq!(soft_threshold(0.1, 0.2), 0.0);
}

#[test]
fn lasso_admm_refuses_invalid_inputs() {
    let a = Array2::<f64>::ones((4, 2));
    let b = Array2::<f64>::ones((3, 2));
    assert!(matches!(
        lasso_admm(a.view(), b.view(), 0.1, 5),
        Err(ModelError::Linalg(linalg_core::Error::Shape { .. }))
    ));
    assert!(matches!(
        lasso_admm(a.view(), a.view(), -1.0, 5),
        Err(ModelError::InvalidParameter { name: "sparse_mu", .. })
    ));
    let mut nan = a.clone();
    nan[[1, 1]] = f64::NAN;
    assert!(matches!(
        lasso_admm(nan.view(), a.view(), 0.1, 5),
        Err(ModelError::Linalg(linalg_core::Error::NonFinite { .. }))
    ));
}
