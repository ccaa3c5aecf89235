//! **Chol-1** — the efficient ridge solution of the BLS paper (Zhu et al.,
//! "Two ridge solutions for the incremental BLS on added nodes", Sec. III,
//! Algorithm 4; algorithms.md §1).
//!
//! The inverse Cholesky factor is updated with the Schur complement formed by
//! subtraction, `S = HᵀH + λI − PᵀP`, `P = Fᵀ AᵀH`. Cheapest of the ridge
//! solutions (`2Knq + 2n²q + Kq² + nq² + O(q³)` flops for the factor).
//!
//! **Numerical caveat:** for tiny λ on (nearly) collinear new columns the
//! subtraction cancels and `S` stops being positive definite in floating
//! point; the paper reports "NA" on MNIST at small λ. Here that is
//! [`Error::NotPositiveDefinite`](crate::Error::NotPositiveDefinite), naming
//! Chol-1 and suggesting Chol-2 or a larger λ.

use super::inverse_cholesky_ridge::{inverse_cholesky_strategy, Schur};
use super::Strategy;

inverse_cholesky_strategy!(
    /// Chol-1: inverse Cholesky update with `S = HᵀH + λI − PᵀP`.
    ///
    /// ```
    /// use linalg_core::ridge::{Chol1, IncrementalRidge};
    /// use ndarray::array;
    /// let mut s = Chol1::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
    /// // A = [1 1]ᵀ: W = (2 + 1)⁻¹ · 6 = 2.
    /// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-15);
    /// s.append(array![[1.0], [-1.0]].view())?;
    /// // Orthogonal new column: w₂ = (2 + 1)⁻¹ · (2 − 4) = −2/3.
    /// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-15);
    /// # Ok::<(), linalg_core::Error>(())
    /// ```
    Chol1,
    Schur::Subtract,
    Strategy::Chol1
);
