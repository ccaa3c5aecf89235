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
//! `C⁺` is computed as MATLAB's `pinv` computes it (the original BLS code
//! calls `pinv(C)`): singular values at or below
//! `tol = max(K, q)·eps(σ₁)` are dropped, `eps(x)` being the spacing of the
//! doubles at `x` (MATLAB's `eps(norm(C))`). The singular values and right
//! singular vectors come from a QR factorization of `C` streamed over row
//! blocks and the SVD of its triangle ([`kernels::tall_svd`]), which resolves
//! singular values down to `O(ε·σ₁)` as MATLAB's SVD of `C` does; then
//! `(C⁺)ᵀ = C·V_r·Σ_r⁻²·V_rᵀ`. (Until 2026-11-24 the cut was made on the
//! eigenvalues of `CᵀC` at `max(K, q)·ε·μ_max`, i.e. near `√(Kε)·σ₁` on the
//! singular values: it dropped directions MATLAB keeps.) `C = 0` is
//! decided by `‖C‖_F ≤ K·ε·‖H‖_F`.
//!
//! The weights tend to the minimum-norm least-squares solution, not the ridge
//! one: the BLS paper shows its test accuracy degrading as nodes grow.

use super::problem::Problem;
use super::r_inv::{commit_pinv_update, residual_of_projection, solve_right_cholesky};
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, MatRef, Op, Owned, Tri};
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
        // B_new = (C⁺)ᵀ = C V_r Σ_r⁻² V_rᵀ with C = U Σ Vᵀ.
        let pinv_gram = pinv_gram_matlab(&mut fl, c.as_ref())?;
        // In place in C, by row panels: no second K×q matrix.
        let mut b_new = c;
        kernels::gemm_right_in_place(&mut fl, b_new.as_mut(), pinv_gram.as_ref());
        b_new
    };
    commit_pinv_update(&mut fl, p, b, w, d, b_new, h)
}

/// MATLAB's `pinv` tolerance for a `K × q` matrix of largest singular value
/// `sigma_max`: `max(K, q)·eps(σ₁)`, `eps(x)` the distance from `x` to the
/// next larger double.
pub(super) fn matlab_pinv_tolerance(k: usize, q: usize, sigma_max: f64) -> f64 {
    let spacing = if sigma_max > 0.0 && sigma_max.is_finite() {
        f64::from_bits(sigma_max.to_bits() + 1) - sigma_max
    } else {
        0.0
    };
    k.max(q) as f64 * spacing
}

/// `V_r·Σ_r⁻²·V_rᵀ` (q × q) for the `K × q` matrix `c`, keeping the singular
/// values above [`matlab_pinv_tolerance`]: `c` times it is `(C⁺)ᵀ`.
pub(super) fn pinv_gram_matlab(fl: &mut Flops, c: MatRef<'_>) -> Result<Owned> {
    let (k, q) = (c.rows(), c.cols());
    let svd = kernels::tall_svd(fl, c).map_err(|info| Error::Lapack {
        routine: "dtpqrt/dgesdd",
        info,
    })?;
    let tol = matlab_pinv_tolerance(k, q, svd.sigma.first().copied().unwrap_or(0.0));
    let r = svd.sigma.iter().take_while(|&&s| s > tol).count();
    // W = Σ_r⁻² V_rᵀ (r × q), then V_r W = (V_rᵀ)ᵀ W.
    let vt_r = svd.vt.as_ref().sub(0, 0, r, q);
    let mut scaled = Owned::from_ref(vt_r);
    for (i, &s) in svd.sigma[..r].iter().enumerate() {
        let inv = 1.0 / (s * s);
        for j in 0..q {
            scaled.set(i, j, scaled.at(i, j) * inv);
        }
    }
    fl.add(r * q);
    let mut gram = Owned::zeros(q, q);
    kernels::matmul(fl, vt_r, Op::T, scaled.as_ref(), Op::N, gram.as_mut());
    Ok(gram)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use ndarray_linalg::SVD;
    use test_support::TestRng;

    /// `eps(x)` as MATLAB defines it: 2⁻⁵² at 1, 2⁻⁵¹ at 2 and just below 4.
    #[test]
    fn tolerance_uses_the_spacing_at_sigma_max() {
        assert_eq!(matlab_pinv_tolerance(10, 3, 1.0), 10.0 * f64::EPSILON);
        assert_eq!(matlab_pinv_tolerance(3, 10, 2.0), 20.0 * f64::EPSILON);
        assert_eq!(matlab_pinv_tolerance(1, 1, 3.999), 2.0 * f64::EPSILON);
        assert_eq!(matlab_pinv_tolerance(5, 5, 0.0), 0.0);
    }

    /// `K × q` matrix `U·diag(s)·Vᵀ` with random orthonormal `U`, `V`.
    fn with_singular_values(rng: &mut TestRng, k: usize, s: &[f64]) -> Array2<f64> {
        let q = s.len();
        let orth = |rng: &mut TestRng, n: usize, m: usize| {
            let g = Array2::from_shape_fn((n, m), |_| rng.normal());
            let (u, _, _) = g.svd(true, false).expect("svd");
            u.expect("u").slice(ndarray::s![.., ..m]).to_owned()
        };
        let u = orth(rng, k, q);
        let v = orth(rng, q, q);
        let d = Array2::from_diag(&ndarray::Array1::from(s.to_vec()));
        u.dot(&d).dot(&v.t())
    }

    /// Reference `(C⁺)ᵀ` by ndarray-linalg's SVD of `C` itself, cut at the
    /// same tolerance (MATLAB's `pinv` is `V Σ_r⁻¹ Uᵀ`).
    fn pinv_t_by_svd(c: &Array2<f64>) -> Array2<f64> {
        let (u, s, vt) = c.svd(true, true).expect("svd");
        let (u, vt) = (u.expect("u"), vt.expect("vt"));
        let tol = matlab_pinv_tolerance(c.nrows(), c.ncols(), s[0]);
        let mut out = Array2::zeros(c.dim());
        for (j, &sj) in s.iter().enumerate().filter(|(_, &sj)| sj > tol) {
            let uj = u.column(j);
            let vj = vt.row(j);
            for r in 0..c.nrows() {
                for col in 0..c.ncols() {
                    out[[r, col]] += uj[r] * vj[col] / sj;
                }
            }
        }
        out
    }

    /// On rank-deficient inputs — singular values spanning 1 … 1e-9 that the
    /// eigenvalues of CᵀC cannot resolve, and exact zeros — `C·pinv_gram` is
    /// the SVD pseudo-inverse with MATLAB's cut, to within `4√q·ε·κ_r` relative
    /// (κ_r = σ₁/σ_r of the kept spectrum: the pseudo-inverse's own
    /// condition), and it keeps the singular values the old eigenvalue cut
    /// (`√(max(K,q)·ε)·σ₁` ≈ 1e-6 here) dropped.
    #[test]
    fn pinv_matches_an_svd_pseudo_inverse_on_rank_deficient_inputs() {
        let mut rng = TestRng::new(41);
        // K spans several of tall_svd's row blocks (2048 rows each).
        let cases: [(usize, Vec<f64>); 3] = [
            (5000, vec![1.0, 0.5, 1e-3, 1e-7, 1e-9, 0.0, 0.0]),
            (300, vec![3.0, 1e-4, 1e-8, 1e-12, 0.0]),
            (2049, vec![2.0; 6].into_iter().chain([1e-10, 0.0]).collect()),
        ];
        for (k, s) in cases {
            let c = with_singular_values(&mut rng, k, &s);
            let c_owned = Owned::from_array(c.clone());
            let mut fl = Flops::default();
            let g = pinv_gram_matlab(&mut fl, c_owned.as_ref()).expect("pinv");
            let ours = c.dot(&g.into_array());
            let reference = pinv_t_by_svd(&c);
            let tol = matlab_pinv_tolerance(k, s.len(), s[0]);
            let kept: Vec<f64> = s.iter().copied().filter(|&x| x > tol).collect();
            let kappa = s[0] / kept.last().copied().unwrap_or(1.0);
            let scale = 1.0 / kept.last().copied().unwrap_or(1.0);
            let err = (&ours - &reference).iter().fold(0.0f64, |m, v| m.max(v.abs()));
            // Both sides are backward stable: each is the exact pseudo-inverse
            // of some C + ΔC with ‖ΔC‖ ≲ 2√q·ε·σ₁, and at a fixed rank
            // ‖Δ(C⁺)‖ ≲ ‖C⁺‖²‖ΔC‖ = κ_r·ε·2√q / σ_r. (Measured: 0.2–1.2 × ε·κ_r/σ_r.)
            let bound = 2.0 * 2.0 * (s.len() as f64).sqrt() * f64::EPSILON * kappa * scale;
            assert!(err <= bound, "K = {k}, s = {s:?}: error {err:e} > {bound:e}");
            // The rank kept is MATLAB's: every nonzero singular value here is
            // above max(K,q)·eps(σ₁); the old eigenvalue cut dropped those below ~√(Kε)·σ₁.
            let svd = kernels::tall_svd(&mut fl, c_owned.as_ref()).expect("svd");
            let r = svd.sigma.iter().filter(|&&x| x > tol).count();
            assert_eq!(r, kept.len(), "K = {k}, s = {s:?}: rank {r}, σ = {:?}", svd.sigma);
            for (got, want) in svd.sigma.iter().zip(&s) {
                assert!(
                    (got - want).abs() <= 10.0 * k as f64 * f64::EPSILON * s[0],
                    "σ {got:e} vs {want:e}"
                );
            }
        }
    }
}
