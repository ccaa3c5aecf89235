//! How the random weights `W_h` of an enhancement group are drawn: i.i.d.
//! uniform on [−1, 1] as the BLS paper states, or that draw orthonormalized
//! as Chen & Liu's reference code does (`bls_train.m`):
//!
//! ```matlab
//! if N1*N2 >= N3
//!     weightOfEnhanceLayer = orth(2*rand(N2*N1+1, N3) - 1);
//! else
//!     weightOfEnhanceLayer = orth(2*rand(N2*N1+1, N3)' - 1)';
//! end
//! ```
//!
//! i.e. orthonormal columns when the group has at least as many feature
//! inputs `|F|` as nodes `p`, orthonormal rows otherwise. MATLAB's
//! `orth(A)` is the matrix `U` of the economy SVD `A = UΣVᵀ` (the columns
//! of `U` above its rank tolerance `max(m, n)·eps(σ₁)`).

use linalg_core::kernels::{self, Flops, Owned};
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

use super::nodes::draw_uniform;
use crate::rng::SplitMix64;

/// How the random weights `W_h` of an enhancement group are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EnhancementWeights {
    /// I.i.d. uniform on [−1, 1] (the BLS paper's text; the default).
    #[default]
    Uniform,
    /// The uniform draw orthonormalized by MATLAB's `orth`, as Chen & Liu's
    /// reference code does: orthonormal columns of `W_h` ((|F|+1)×p) when
    /// `|F| ≥ p`, orthonormal rows otherwise.
    Orthonormal,
}

/// `W_h` ((rows)×(cols), rows = |F|+1) for an enhancement group, drawn from
/// `rng` as `kind` says. Both kinds consume the same draws, so a group's
/// orthonormal weights span the rows or columns of its uniform weights.
pub(crate) fn enhancement_weights(
    rows: usize,
    cols: usize,
    rng: &mut SplitMix64,
    kind: EnhancementWeights,
) -> Array2<f64> {
    let w = draw_uniform(rows, cols, rng);
    match kind {
        EnhancementWeights::Uniform => w,
        // Chen's test `N1*N2 >= N3` is |F| ≥ p, i.e. rows > cols.
        EnhancementWeights::Orthonormal if rows > cols => orth(w.view()).unwrap_or(w),
        EnhancementWeights::Orthonormal => orth(w.t())
            .map(|u| u.reversed_axes().as_standard_layout().into_owned())
            .unwrap_or(w),
    }
}

/// MATLAB's `orth` of a tall `a` (m×n, m ≥ n) of full numerical rank: the
/// left singular vectors `U = A·V·Σ⁻¹` (m×n, orthonormal columns), with `V`
/// and `Σ` from the SVD of the triangle of `A`'s QR factorization
/// ([`kernels::tall_svd`]), so `UᵀU = I` to within about `κ(A)·n·ε`.
///
/// `None` when `a` is not tall, has a singular value at or below MATLAB's
/// rank tolerance `max(m, n)·eps(σ₁)` (a random draw is of full rank with
/// probability one; the caller then keeps the draw), or the SVD fails.
pub(crate) fn orth(a: ArrayView2<'_, f64>) -> Option<Array2<f64>> {
    let (m, n) = a.dim();
    if m < n || n == 0 {
        return None;
    }
    let mut fl = Flops::default();
    let c = Owned::from_view(a);
    let svd = kernels::tall_svd(&mut fl, c.as_ref()).ok()?;
    let s1 = *svd.sigma.first()?;
    let tol = m.max(n) as f64 * matlab_eps(s1);
    if !(s1.is_finite() && svd.sigma.iter().all(|&s| s > tol)) {
        return None;
    }
    // V Σ⁻¹ (n×n): column j is row j of Vᵀ divided by σⱼ.
    let vt = svd.vt.into_array();
    let mut v_over_s = vt.reversed_axes();
    for (mut col, &s) in v_over_s.columns_mut().into_iter().zip(&svd.sigma) {
        col.mapv_inplace(|x| x / s);
    }
    Some(a.dot(&v_over_s))
}

/// MATLAB's `eps(x)`: the spacing of the doubles at `|x|` (`2^(e − 52)` for
/// `2^e ≤ |x| < 2^(e+1)`), for a positive normal `x`.
fn matlab_eps(x: f64) -> f64 {
    let e = x.abs().log2().floor();
    2f64.powf(e - 52.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use proptest::prelude::*;

    /// ‖MᵀM − I‖_max.
    fn orthogonality_error(m: ArrayView2<'_, f64>) -> f64 {
        let g = m.t().dot(&m);
        let mut worst = 0.0f64;
        for ((i, j), v) in g.indexed_iter() {
            let target = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((v - target).abs());
        }
        worst
    }

    /// The largest entry of `A − U UᵀA`: how far the columns of `a` lie
    /// outside the span of the (orthonormal) columns of `u`.
    fn residual_outside(a: ArrayView2<'_, f64>, u: ArrayView2<'_, f64>) -> f64 {
        let r = &a - &u.dot(&u.t().dot(&a));
        r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
    }

    #[test]
    fn matlab_eps_is_the_spacing_at_x() {
        assert_eq!(matlab_eps(1.0), f64::EPSILON);
        assert_eq!(matlab_eps(1.5), f64::EPSILON);
        assert_eq!(matlab_eps(2.0), 2.0 * f64::EPSILON);
        assert_eq!(matlab_eps(0.75), f64::EPSILON / 2.0);
    }

    #[test]
    fn chen_orientation_columns_when_inputs_at_least_nodes() {
        // |F| = 10 feature inputs (11 rows) and p = 10 nodes: |F| ≥ p, so
        // orthonormal columns.
        let w = enhancement_weights(11, 10, &mut SplitMix64::new(3), EnhancementWeights::Orthonormal);
        assert_eq!(w.dim(), (11, 10));
        assert!(
            orthogonality_error(w.view()) < 1e-13,
            "{}",
            orthogonality_error(w.view())
        );
        // |F| = 10 (11 rows), p = 11 nodes: |F| < p, so orthonormal rows.
        let w = enhancement_weights(11, 11, &mut SplitMix64::new(3), EnhancementWeights::Orthonormal);
        assert!(orthogonality_error(w.t()) < 1e-13);
        // |F| = 10 (11 rows), p = 500 nodes: orthonormal rows, so each row
        // has unit norm and the columns do not.
        let w = enhancement_weights(11, 500, &mut SplitMix64::new(3), EnhancementWeights::Orthonormal);
        assert_eq!(w.dim(), (11, 500));
        assert!(orthogonality_error(w.t()) < 1e-13);
        let col_norm2: f64 = w.column(0).iter().map(|v| v * v).sum();
        assert!(
            col_norm2 < 0.5,
            "a column of an 11×500 matrix with orthonormal rows has norm² near 11/500, got {col_norm2}"
        );
    }

    #[test]
    fn orthonormal_weights_span_the_uniform_draw() {
        // The same stream gives the uniform draw; the orthonormal rows span
        // its rows (Chen: orth(W')' has the row space of W).
        let u = enhancement_weights(11, 300, &mut SplitMix64::new(9), EnhancementWeights::Uniform);
        let q = enhancement_weights(11, 300, &mut SplitMix64::new(9), EnhancementWeights::Orthonormal);
        assert_ne!(u, q);
        let r = residual_outside(u.t(), q.t());
        assert!(r < 1e-12, "uniform rows outside the orthonormal rows' span by {r}");
    }

    #[test]
    fn a_rank_deficient_draw_is_refused() {
        let mut a = Array2::<f64>::zeros((6, 3));
        for i in 0..6 {
            a[[i, 0]] = i as f64 + 1.0;
            a[[i, 1]] = 2.0 * (i as f64 + 1.0);
            a[[i, 2]] = (i * i) as f64;
        }
        assert!(orth(a.view()).is_none());
        assert!(orth(a.t()).is_none(), "a wide matrix is not orth's input");
    }

    proptest! {
        /// Orthonormal columns spanning `A`, to within bounds derived from
        /// κ(A): `UᵀU − I` is `A V Σ⁻¹`'s rounding, about `κ·n·ε` (the QR
        /// and SVD are backward stable, the product then amplifies `ε‖A‖`
        /// by `1/σ_n`); `A − UUᵀA` is `ε‖A‖` times a modest factor.
        /// Ill-conditioned inputs scale one column by `10^-e`.
        #[test]
        fn orth_matches_the_direct_definition(
            m in 2usize..40, n_frac in 0.1f64..1.0, seed in any::<u64>(), e in 0i32..9
        ) {
            let n = ((m as f64 * n_frac).ceil() as usize).clamp(1, m);
            let mut rng = SplitMix64::new(seed);
            let mut a = draw_uniform(m, n, &mut rng);
            a.column_mut(0).mapv_inplace(|v| v * 10f64.powi(-e));
            let s = {
                let mut fl = Flops::default();
                kernels::tall_svd(&mut fl, Owned::from_view(a.view()).as_ref()).unwrap().sigma
            };
            let kappa = s[0] / s[n - 1];
            let u = orth(a.view());
            prop_assume!(u.is_some()); // a numerically rank-deficient draw
            let u = u.unwrap();
            prop_assert_eq!(u.dim(), (m, n));
            let eps = f64::EPSILON;
            let bound = 8.0 * kappa * (m * n) as f64 * eps;
            let err = orthogonality_error(u.view());
            prop_assert!(err <= bound, "‖UᵀU − I‖ = {err:e} > {bound:e} (κ = {kappa:e})");
            let norm = a.iter().fold(0.0f64, |x, v| x.max(v.abs()));
            let r = residual_outside(a.view(), u.view());
            let rb = 8.0 * kappa * (m * n) as f64 * eps * norm;
            prop_assert!(r <= rb, "A outside span(U) by {r:e} > {rb:e}");
        }
    }
}
