//! **Orig.** — Greville's method for the generalized inverse of a
//! partitioned matrix, as used by the original Broad Learning System (Chen &
//! Liu 2018; BLS paper Sec. II, eq. (21), Algorithm 3; algorithms.md §2).
//!
//! The initial `A⁺` is the ridge approximation `(AᵀA + λI)⁻¹Aᵀ` with the
//! given (tiny) λ, as the original BLS does; afterwards λ plays no part:
//!
//! ```text
//! D = A⁺H,   C = H − A D
//! Bᵀ = C⁺                              if C ≠ 0
//! Bᵀ = (I + DᵀD)⁻¹ Dᵀ A⁺               if C = 0
//! A'⁺ = [A⁺ − D Bᵀ; Bᵀ],   W' = [W − D (BᵀY); BᵀY]
//! ```
//!
//! `C⁺` is computed as `pinv` is: from the eigen-decomposition of `CᵀC`
//! (`dsyevd`), keeping eigenvalues above `max(K, q)·ε·μ_max` — on the squared
//! scale, where anything smaller is rounding noise (MATLAB's `pinv` uses the
//! SVD of `C` with `max(K, q)·ε·σ_max`; the eigen route is cheaper for tall
//! `C` and resolves the same numerical rank up to that squaring). `C = 0` is
//! decided by `‖C‖_F ≤ K·ε·‖H‖_F`.
//!
//! The weights tend to the minimum-norm least-squares solution, not the ridge
//! one: the BLS paper shows its test accuracy degrading as nodes grow.

use super::problem::Problem;
use super::r_inv::{commit_pinv_update, residual_of_projection, solve_right_cholesky};
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, Op, Owned, Tri};
use crate::store::GrowMat;

/// Append `H` to Orig.'s state `B = (A⁺)ᵀ` and the weights `w`.
pub(super) fn append(p: &mut Problem, b: &mut GrowMat, w: &mut GrowMat, h: Owned) -> Result<()> {
    let (n, q, k) = (p.n(), h.cols(), p.k());
    let mut fl = Flops::default();
    let (d, c) = residual_of_projection(&mut fl, p, b, &h);
    let norm = |m: &Owned| m.data().iter().map(|v| v * v).sum::<f64>().sqrt();
    let b_new = if norm(&c) <= k as f64 * f64::EPSILON * norm(&h) {
        // C = 0: Bᵀ = (I + DᵀD)⁻¹ Dᵀ A⁺, i.e. B_new = B D (I + DᵀD)⁻¹.
        let mut s = Owned::scaled_identity(q, 1.0);
        kernels::syrk(&mut fl, 1.0, d.as_ref(), Op::T, 1.0, s.as_mut());
        kernels::potrf(&mut fl, Tri::Upper, s.as_mut()).map_err(|pivot| p.not_pd("I + DᵀD", pivot, n, n + q))?;
        let mut b_new = Owned::zeros(k, q);
        kernels::matmul(&mut fl, b.as_ref(), Op::N, d.as_ref(), Op::N, b_new.as_mut());
        solve_right_cholesky(&mut fl, &s, &mut b_new);
        b_new
    } else {
        // B_new = (C⁺)ᵀ = C V Λ⁺ Vᵀ with CᵀC = V Λ Vᵀ.
        let mut e = Owned::zeros(q, q);
        kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 0.0, e.as_mut());
        let mu = kernels::syevd(&mut fl, e.as_mut()).map_err(|info| Error::Lapack {
            routine: "dsyevd",
            info,
        })?;
        let mu_max = mu.iter().copied().fold(0.0, f64::max);
        let tol = k.max(q) as f64 * f64::EPSILON * mu_max;
        // V Λ⁺ Vᵀ, dropping eigenvalues at or below tol.
        let mut v_scaled = e.clone();
        for (j, &m) in mu.iter().enumerate() {
            let inv = if m > tol { 1.0 / m } else { 0.0 };
            for i in 0..q {
                v_scaled.set(i, j, v_scaled.at(i, j) * inv);
            }
        }
        fl.add(q * q);
        let mut pinv_gram = Owned::zeros(q, q);
        kernels::matmul(&mut fl, v_scaled.as_ref(), Op::N, e.as_ref(), Op::T, pinv_gram.as_mut());
        // In place in C, by row panels: no second K×q matrix.
        let mut b_new = c;
        kernels::gemm_right_in_place(&mut fl, b_new.as_mut(), pinv_gram.as_ref());
        b_new
    };
    commit_pinv_update(&mut fl, p, b, w, d, b_new, h)
}
