//! The sparse autoencoder that fine-tunes each feature group: a lasso solved
//! by ADMM exactly as Chen's `sparse_bls.m` (Chen & Liu 2018, Sec. II-A; the
//! "linear inverse problem" of the BLS paper after its eq. (9)).
//!
//! ```text
//! min_B ½‖A B − X̃‖²_F + μ‖B‖₁                A: K×N, X̃: K×m, B: N×m
//!
//! L1 = (AᵀA + I)⁻¹,  L2 = L1 Aᵀ X̃,  o = u = 0
//! repeat: c = L2 + L1 (o − u);  o = shrink(c + u, μ);  u = u + (c − o)
//! B = o
//! ```
//!
//! — ADMM with penalty ρ = 1 on the splitting `B = O`, where
//! `shrink(x, κ) = max(x − κ, 0) − max(−x − κ, 0)` is the soft threshold.
//! The result is the `o` iterate (sparse), as in Chen's code.

use linalg_core::sparse::Samples;
use linalg_core::InverseCholesky;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView1, ArrayView2, ArrayViewMut2, Axis, Slice, Zip};

use super::columns::{Extremes, A1_TARGET};
use super::nodes::BIAS_INPUT;

use crate::error::Result;
use crate::validate;

/// Soft threshold `max(x − κ, 0) − max(−x − κ, 0)` (Chen's `shrinkage`),
/// evaluated literally as in the MATLAB code.
#[inline]
pub fn soft_threshold(x: f64, kappa: f64) -> f64 {
    (x - kappa).max(0.0) - (-x - kappa).max(0.0)
}

/// Solve the lasso `min_B ½‖A B − X̃‖²_F + μ‖B‖₁` (`A` K×N, `X̃` K×m, `B`
/// N×m) by `iterations` steps of Chen's ADMM recurrence (module docs): the
/// sparse autoencoder of a BLS feature group, with `A` the group's scaled
/// random map `A1` and `X̃ = [X, 0.1·1]`. Returns the `o` iterate (N×m).
///
/// `L1 = (AᵀA + I)⁻¹` is formed as `F Fᵀ` from the inverse Cholesky factor
/// of `AᵀA + I` (SPD for every `A`).
///
/// ```
/// use models::bls::lasso_admm;
/// use ndarray::array;
/// let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
/// let b = array![[1.0], [2.0], [3.0]];
/// // μ = 0: the ADMM iterates converge to least squares, B = [1, 2]ᵀ.
/// let sol = lasso_admm(a.view(), b.view(), 0.0, 500)?;
/// assert!((sol[[0, 0]] - 1.0).abs() < 1e-10 && (sol[[1, 0]] - 2.0).abs() < 1e-10);
/// # Ok::<(), models::ModelError>(())
/// ```
///
/// # Errors
/// [`linalg_core::Error::Empty`], [`linalg_core::Error::NonFinite`] or [`linalg_core::Error::Shape`]
/// for unusable matrices, [`ModelError::InvalidParameter`](crate::ModelError::InvalidParameter) for μ < 0 or not
/// finite.
pub fn lasso_admm(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>, mu: f64, iterations: usize) -> Result<Array2<f64>> {
    validate::matrix("lasso matrix A", a)?;
    validate::matrix("lasso right-hand side X̃", b)?;
    validate::rows("lasso right-hand side X̃", b, a.nrows())?;
    super::params::sparse_mu(mu)?;
    let gram = a.t().dot(&a);
    let atb = a.t().dot(&b);
    lasso_admm_gram(gram, atb.view(), mu, iterations)
}

/// [`lasso_admm`] from `G = AᵀA` (N×N) and `AᵀX̃` (N×m): the feature groups
/// form these without materializing `X̃ = [X, 0.1·1]`.
pub(crate) fn lasso_admm_gram(
    mut gram: Array2<f64>,
    atb: ArrayView2<'_, f64>,
    mu: f64,
    iterations: usize,
) -> Result<Array2<f64>> {
    let n = gram.nrows();
    if gram.ncols() != n || atb.nrows() != n {
        return Err(linalg_core::Error::Shape {
            what: "lasso normal equations",
            expected: format!("{n}×{n} Gram matrix and {n} rows of AᵀX̃"),
            found: format!("{}×{} and {}×{}", gram.nrows(), gram.ncols(), atb.nrows(), atb.ncols()),
        }
        .into());
    }
    gram.diag_mut().mapv_inplace(|v| v + 1.0);
    let f = InverseCholesky::from_spd(gram.view())?;
    let f = f.factor();
    let l1 = f.dot(&f.t());
    let l2 = l1.dot(&atb);
    let mut o = Array2::<f64>::zeros(l2.raw_dim());
    let mut u = Array2::<f64>::zeros(l2.raw_dim());
    let mut diff = Array2::<f64>::zeros(l2.raw_dim());
    for _ in 0..iterations {
        // c = L2 + L1 (o − u)
        Zip::from(&mut diff).and(&o).and(&u).for_each(|t, &o, &u| *t = o - u);
        let mut c = l1.dot(&diff);
        Zip::from(&mut c).and(&l2).for_each(|c, &l2| *c += l2);
        // o = shrink(c + u, μ); u = u + (c − o)
        Zip::from(&mut o).and(&mut u).and(&c).for_each(|o, u, &c| {
            *o = soft_threshold(c + *u, mu);
            *u += c - *o;
        });
    }
    Ok(o)
}

/// The sparse autoencoder's sums over the rows `x` (K×d) whose random map
/// `X̃W_e` is in `a1` (K×N): `a1` is scaled onto [−1, 1] by the extremes
/// `range` of all the training rows, then the normal equations of the lasso,
/// `A1ᵀA1` (N×N) and `A1ᵀX̃ = [A1ᵀX, 0.1·A1ᵀ1]` (N×(d+1)), are formed. Both
/// are sums over rows: a fit from chunks adds those of its chunks. With
/// `weights` (one per row, ≥ 0) each row's terms count `w` times. Sparse
/// samples give `A1ᵀX` as `(XᵀA1)ᵀ` from their stored entries
/// ([`Csr::transpose_matmul`](linalg_core::sparse::Csr::transpose_matmul)).
pub(crate) fn autoencoder_sums(
    mut a1: ArrayViewMut2<'_, f64>,
    range: &Extremes,
    x: Samples<'_>,
    weights: Option<ArrayView1<'_, f64>>,
) -> (Array2<f64>, Array2<f64>) {
    let (n, d) = (a1.ncols(), x.ncols());
    range.apply(a1.view_mut(), A1_TARGET);
    // With sample weights the sums are A₁ᵀ D A₁ and A₁ᵀ D X̃: the left factor
    // is D A₁ (a copy; the rows repeated as often as integer weights say).
    let weighted = weights.map(|w| &a1 * &w.insert_axis(Axis(1)));
    let left = weighted.as_ref().map_or(a1.view(), |m| m.view());
    let gram = left.t().dot(&a1);
    let mut atb = Array2::<f64>::zeros((n, d + 1));
    let mut top = atb.slice_axis_mut(Axis(1), Slice::from(..d));
    match x {
        Samples::Dense(x) => general_mat_mul(1.0, &left.t(), &x, 0.0, &mut top),
        Samples::Sparse(x) => top.assign(&x.transpose_matmul(left).expect("A1 has a row per sample").t()),
    }
    atb.column_mut(d)
        .assign(&left.sum_axis(Axis(0)).mapv(|v| BIAS_INPUT * v));
    (gram, atb)
}
