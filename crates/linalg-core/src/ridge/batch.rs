//! The batch ridge solution `W = (AᵀA + λI)⁻¹ AᵀY` in one pass, without
//! copying `A` (the standard ELM fit, Zhu & Wei eq. (10) transposed; the
//! BLS paper's D-Rdg on a whole matrix).
//!
//! The incremental strategies own a copy of `A` because later appends need
//! it. A one-shot fit does not: this reads `A` where it lies, in either
//! layout. A row-major K×n matrix is, byte for byte, the column-major n×K
//! matrix `Aᵀ`, so `AᵀA` is one `dsyrk` on that view with no transpose
//! copy; the same holds for `AᵀY`. The total is `Kn² + 2KnM + n³/3 + 2n²M`
//! flops: the symmetric Gram product, `AᵀY`, the Cholesky factorization and
//! two triangular solves.

use ndarray::{Array2, ArrayView2};

use super::Strategy;
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, MatRef, Op, Owned, Tri};
use crate::validate;

/// A batch ridge solution and what it cost.
#[derive(Clone, Debug)]
pub struct RidgeSolution {
    /// Output weights `W` (n×M).
    pub weights: Array2<f64>,
    /// Flops of the solve, counted by the papers' rule.
    pub flops: u64,
}

/// `A` (K×n) as a column-major descriptor and the operation that turns it
/// into `A`: column-major storage is used as is (`Op::N`), row-major storage
/// is read as the column-major `Aᵀ` (`Op::T`). `None` for other layouts.
fn as_column_major<'a>(a: ArrayView2<'a, f64>) -> Option<(MatRef<'a>, Op)> {
    let (k, n) = a.dim();
    if let Some(s) = a.reversed_axes().to_slice() {
        // Column-major contiguous.
        return Some((MatRef::new(s, k, n, k.max(1)), Op::N));
    }
    a.to_slice().map(|s| (MatRef::new(s, n, k, n.max(1)), Op::T))
}

/// Solve `(AᵀA + λI) W = AᵀY` for `a` (K×n), `y` (K×M), λ > 0, reading `a`
/// in place (row- or column-major; other layouts are copied once).
///
/// ```
/// use linalg_core::ridge::ridge_solve;
/// use ndarray::array;
/// // A = I₂, λ = 1: W = Y/2.
/// let s = ridge_solve(array![[1.0, 0.0], [0.0, 1.0]].view(), array![[4.0], [6.0]].view(), 1.0)?;
/// assert!((s.weights[[0, 0]] - 2.0).abs() < 1e-15 && (s.weights[[1, 0]] - 3.0).abs() < 1e-15);
/// # Ok::<(), linalg_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Empty`], [`Error::Shape`] or [`Error::NonFinite`] for unusable
/// inputs, [`Error::InvalidLambda`] unless λ > 0 is finite,
/// [`Error::NotPositiveDefinite`] if `AᵀA + λI` is not numerically positive
/// definite (λ far below the rounding of `AᵀA`).
pub fn ridge_solve(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64) -> Result<RidgeSolution> {
    check_inputs(a, y, lambda)?;
    let n = a.ncols();
    let mut fl = Flops::default();
    let (r, w) = with_stored(a, |a_ref, at_op| {
        // R = AᵀA + λI (upper triangle).
        let mut r = Owned::scaled_identity(n, lambda);
        kernels::syrk(&mut fl, 1.0, a_ref, at_op, 1.0, r.as_mut());
        // AᵀY.
        let y_owned = Owned::from_view(y);
        let mut w = Owned::zeros(n, y.ncols());
        kernels::matmul(&mut fl, a_ref, at_op, y_owned.as_ref(), Op::N, w.as_mut());
        (r, w)
    });
    cholesky_solve(fl, r, w, "AᵀA + λI")
}

/// The checks shared by the batch solves: λ > 0 finite, `A` and `Y`
/// non-empty and finite with as many rows.
fn check_inputs(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64) -> Result<()> {
    validate::lambda(Strategy::DRdg, lambda)?;
    validate::non_empty("hidden matrix A", &a)?;
    validate::non_empty("targets Y", &y)?;
    validate::rows("targets Y", &y, a.nrows())?;
    validate::finite("hidden matrix A", &a)?;
    validate::finite("targets Y", &y)
}

/// Call `f` with `A` as stored (in place when row- or column-major,
/// otherwise copied once) and the operation that maps the stored matrix to
/// `Aᵀ`.
pub(super) fn with_stored<T>(a: ArrayView2<'_, f64>, f: impl FnOnce(MatRef<'_>, Op) -> T) -> T {
    match as_column_major(a) {
        // `op` maps the stored matrix to A; its transpose maps it to Aᵀ.
        Some((a_ref, Op::N)) => f(a_ref, Op::T),
        Some((a_ref, Op::T)) => f(a_ref, Op::N),
        None => {
            let copied = Owned::from_view(a);
            f(copied.as_ref(), Op::T)
        }
    }
}

/// Solve `R W = B` in place of `b` by the Cholesky factorization of the
/// symmetric `r` (upper triangle), refusing a matrix that is not
/// numerically positive definite and non-finite weights.
pub(super) fn cholesky_solve(mut fl: Flops, mut r: Owned, mut w: Owned, matrix: &'static str) -> Result<RidgeSolution> {
    let n = r.rows();
    kernels::potrf(&mut fl, Tri::Upper, r.as_mut()).map_err(|pivot| Error::NotPositiveDefinite {
        strategy: Strategy::DRdg,
        matrix,
        pivot,
        first_node: 0,
        end_node: n,
        suggestion: "λ is below the rounding of AᵀA on (nearly) collinear columns: use a larger λ, or minimum-norm least squares",
    })?;
    kernels::potrs_upper(&mut fl, r.as_ref(), w.as_mut());
    if !w.data().iter().all(|v| v.is_finite()) {
        return Err(Error::Breakdown {
            strategy: Strategy::DRdg,
            first_node: 0,
            end_node: n,
            detail: "non-finite weights",
        });
    }
    Ok(RidgeSolution {
        weights: w.into_array(),
        flops: fl.0,
    })
}

/// The ridge solution for `[A, 1]` (the samples with a constant column
/// appended: a bias) without forming `[A, 1]`: `W` ((n+1)×M, the bias in
/// the last row) solving `([A, 1]ᵀ[A, 1] + λI) W = [A, 1]ᵀY`, exactly the
/// system [`ridge_solve`] would solve on `[A, 1]` (λ on the bias too).
///
/// The Gram matrix is assembled from `AᵀA` (one `dsyrk` reading `A` in
/// place), `Aᵀ1` (one `dgemv`) and `K`; the right-hand side from `AᵀY` and
/// `1ᵀY`. For a wide data set this saves copying all of `A` into a matrix
/// one column wider (on MNIST's 60000×784 pixels a 377 MB copy, about a
/// third of the Gram product's time).
///
/// ```
/// use linalg_core::ridge::{ridge_solve, ridge_solve_with_intercept};
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0]];
/// let y = array![[1.0], [2.0], [0.5], [1.5]];
/// let ones = array![[1.0, 2.0, 1.0], [0.0, 1.0, 1.0], [3.0, -1.0, 1.0], [2.0, 2.0, 1.0]];
/// let w = ridge_solve_with_intercept(a.view(), y.view(), 1e-3)?.weights;
/// let w1 = ridge_solve(ones.view(), y.view(), 1e-3)?.weights;
/// assert!(w.iter().zip(&w1).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok::<(), linalg_core::Error>(())
/// ```
///
/// # Errors
/// As [`ridge_solve`].
pub fn ridge_solve_with_intercept(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    lambda: f64,
) -> Result<RidgeSolution> {
    check_inputs(a, y, lambda)?;
    let (k, n, m) = (a.nrows(), a.ncols(), y.ncols());
    let mut fl = Flops::default();
    let (r, w) = with_stored(a, |a_ref, at_op| {
        // R = [A, 1]ᵀ[A, 1] + λI (upper triangle): AᵀA + λI, Aᵀ1, K + λ.
        let mut r = Owned::scaled_identity(n + 1, lambda);
        kernels::syrk(&mut fl, 1.0, a_ref, at_op, 1.0, r.as_mut().sub(0, 0, n, n));
        let ones = vec![1.0; k];
        let mut col_sums = vec![0.0; n];
        kernels::gemv(&mut fl, 1.0, a_ref, at_op, &ones, 0.0, &mut col_sums);
        for (i, s) in col_sums.into_iter().enumerate() {
            r.set(i, n, s);
        }
        r.set(n, n, k as f64 + lambda);
        // [A, 1]ᵀY: AᵀY, then 1ᵀY.
        let y_owned = Owned::from_view(y);
        let mut w = Owned::zeros(n + 1, m);
        kernels::matmul(
            &mut fl,
            a_ref,
            at_op,
            y_owned.as_ref(),
            Op::N,
            w.as_mut().sub(0, 0, n, m),
        );
        for j in 0..m {
            let s: f64 = y_owned.col(j).iter().sum();
            w.set(n, j, s);
        }
        (r, w)
    });
    cholesky_solve(fl, r, w, "[A, 1]ᵀ[A, 1] + λI")
}
