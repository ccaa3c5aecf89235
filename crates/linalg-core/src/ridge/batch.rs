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
    validate::lambda(Strategy::DRdg, lambda)?;
    validate::non_empty("hidden matrix A", &a)?;
    validate::non_empty("targets Y", &y)?;
    validate::rows("targets Y", &y, a.nrows())?;
    validate::finite("hidden matrix A", &a)?;
    validate::finite("targets Y", &y)?;
    let copied;
    let (a_ref, op) = match as_column_major(a) {
        Some(v) => v,
        None => {
            copied = Owned::from_view(a);
            (copied.as_ref(), Op::N)
        }
    };
    // `op` maps the stored matrix to A; its transpose maps it to Aᵀ.
    let at_op = match op {
        Op::N => Op::T,
        Op::T => Op::N,
    };
    let (n, m) = (a.ncols(), y.ncols());
    let mut fl = Flops::default();
    // R = AᵀA + λI (upper triangle).
    let mut r = Owned::scaled_identity(n, lambda);
    kernels::syrk(&mut fl, 1.0, a_ref, at_op, 1.0, r.as_mut());
    // AᵀY.
    let y_owned = Owned::from_view(y);
    let mut w = Owned::zeros(n, m);
    kernels::matmul(&mut fl, a_ref, at_op, y_owned.as_ref(), Op::N, w.as_mut());
    kernels::potrf(&mut fl, Tri::Upper, r.as_mut()).map_err(|pivot| Error::NotPositiveDefinite {
        strategy: Strategy::DRdg,
        matrix: "AᵀA + λI",
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
