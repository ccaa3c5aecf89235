//! Test helpers: seeded random matrices with prescribed conditioning, and an
//! independent reference solution through the SVD (ndarray-linalg / LAPACK
//! `dgesdd`), which shares no code path with the Cholesky-based strategies.

#![allow(dead_code)]

use ndarray::{s, Array1, Array2, ArrayView2, Axis};
use ndarray_linalg::{QR, SVD};

#[allow(unused_imports)] // each test binary uses its own subset
pub use test_support::{fro, fro_diff, TestRng as SplitMix};

/// A K×n matrix with singular values log-spaced from 1 down to `10^-decades`
/// (random orthonormal singular vectors). `decades = 0` gives a Gaussian
/// matrix scaled to unit norm-ish.
pub fn conditioned(rng: &mut SplitMix, k: usize, n: usize, decades: f64) -> Array2<f64> {
    let g = rng.gaussian(k, n);
    if decades == 0.0 {
        return g / (k as f64).sqrt();
    }
    let r = k.min(n);
    let (u, _) = rng.gaussian(k, r).qr().expect("QR of a Gaussian matrix");
    let (v, _) = rng.gaussian(n, r).qr().expect("QR of a Gaussian matrix");
    let sig = Array1::from_shape_fn(r, |i| 10f64.powf(-decades * i as f64 / (r.max(2) - 1) as f64));
    (&u * &sig).dot(&v.t())
}

/// Facts about the final problem from the SVD of `A` (K×n).
pub struct Reference {
    /// Ridge solution `(AᵀA + λI)⁻¹AᵀY`.
    pub w_ridge: Array2<f64>,
    /// Minimum-norm least-squares solution `A⁺Y`.
    pub w_ls: Array2<f64>,
    /// `κ₂(AᵀA + λI)`.
    pub kappa_r: f64,
    /// `‖(AᵀA + λI)⁻¹‖₂`.
    pub norm_rinv: f64,
    /// `‖A‖₂`.
    pub norm_a: f64,
    /// Smallest singular value of `A` (0 if K < n).
    pub sigma_min: f64,
}

pub fn reference(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64) -> Reference {
    let (k, n) = a.dim();
    let (u, sv, vt) = a.to_owned().svd(true, true).expect("SVD");
    let u = u.expect("U");
    let vt = vt.expect("Vt");
    let r = k.min(n);
    let uy = u.slice(s![.., ..r]).t().dot(&y);
    let smax = sv[0];
    let smin = if k >= n { sv[r - 1] } else { 0.0 };
    let ridge_scale = sv.mapv(|s| s / (s * s + lambda));
    let w_ridge = vt
        .slice(s![..r, ..])
        .t()
        .dot(&(&uy * &ridge_scale.view().insert_axis(Axis(1))));
    let tol = k.max(n) as f64 * f64::EPSILON * smax;
    let ls_scale = sv.mapv(|s| if s > tol { 1.0 / s } else { 0.0 });
    let w_ls = vt
        .slice(s![..r, ..])
        .t()
        .dot(&(&uy * &ls_scale.view().insert_axis(Axis(1))));
    Reference {
        w_ridge,
        w_ls,
        kappa_r: (smax * smax + lambda) / (smin * smin + lambda),
        norm_rinv: 1.0 / (smin * smin + lambda),
        norm_a: smax,
        sigma_min: smin,
    }
}

/// Split `n` columns into an initial block and appended blocks of the sizes
/// given (the last block takes what is left).
pub fn blocks(n0: usize, qs: &[usize], n: usize) -> Vec<(usize, usize)> {
    let mut out = vec![(0, n0)];
    let mut at = n0;
    for &q in qs {
        if at >= n {
            break;
        }
        let end = (at + q).min(n);
        out.push((at, end));
        at = end;
    }
    if at < n {
        out.push((at, n));
    }
    out
}

pub const U: f64 = f64::EPSILON / 2.0;

/// The forward-error bound for a ridge solution computed through the normal
/// equations by `steps` successive backward-stable block eliminations:
///
/// Forming `AᵀA` and `AᵀY` in floating point perturbs them by at most
/// `γ‖A‖²` and `γ‖A‖‖Y‖` with `γ ≈ (K + n)u` (inner products of length K,
/// plus the O(n u) backward error of the triangular factorizations and
/// solves). First-order perturbation of `R W = AᵀY` gives
/// `‖ΔW‖ ≤ ‖R⁻¹‖(‖ΔR‖‖W‖ + ‖Δb‖) ≤ γ(κ(R)‖W‖ + ‖R⁻¹‖‖A‖‖Y‖)`.
/// Each of the `steps` updates is one more such elimination acting on the
/// previous (already perturbed) solution, so the errors add: factor `steps`.
/// `c` absorbs the small integer constants of the γ's (2: the bound counts
/// the product and the factorization separately).
///
/// The reference `W*` is itself computed in floating point: the SVD is
/// backward stable (`A + E` with `‖E‖ ≤ γ‖A‖`) and the products with `Uᵀ`,
/// `V` and `Y` add `γ` relative errors, so `W*` is off from the exact
/// solution by a bound of the same form. The two computed solutions differ
/// by at most the sum of their errors: one more `step` in the factor. (A
/// well-conditioned case with `κ(R) = 1.6`, where the strategy's error is
/// as small as the reference's, found this: 7.8e-15 against a one-sided
/// bound of 6.7e-15; `ridge_properties.proptest-regressions`.)
pub fn ridge_tolerance(rf: &Reference, y: ArrayView2<'_, f64>, k: usize, n: usize, steps: usize) -> f64 {
    let c = 2.0;
    let gamma = (k + n) as f64 * U;
    let computations = steps as f64 + 1.0; // the strategy's steps and the reference
    c * computations * gamma * (rf.kappa_r * fro(rf.w_ridge.view()) + rf.norm_rinv * rf.norm_a * fro(y))
}
