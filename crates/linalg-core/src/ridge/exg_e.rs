//! **Exg-E** — the earlier efficient BLS (generalized-inverse solution by
//! the inverse Cholesky factor; BLS paper Sec. II; algorithms.md §1).
//!
//! Same structure as Chol-2 but assumes `λ → 0` in the update: `F22` is the
//! inverse Cholesky factor of `CᵀC` only. λ enters only the initial solution
//! (the ridge approximation of `A⁺`), so the weights tend to the
//! minimum-norm least-squares solution, not the ridge one: the paper finds
//! its test accuracy peaks and then degrades as nodes grow at small λ.
//!
//! **Breakdown as in the paper:** the update fails only when the Cholesky
//! factorization of `CᵀC` itself breaks down (a non-positive pivot, e.g. a new
//! column exactly in the span of the others), with
//! [`Error::NotPositiveDefinite`](crate::Error::NotPositiveDefinite) naming
//! Exg-E — as MATLAB's `chol` in the paper's implementation would. Nearly
//! collinear new columns (a tiny but positive pivot) are factored, and give
//! the large weights of the least-squares solution of a nearly
//! rank-deficient problem; that is the method's own behaviour, which the BLS
//! paper's degrading Exg-E accuracies reflect. (An earlier version refused
//! pivots below `K·ε·‖h_j‖²`; on the paper's MNIST schedule that stopped
//! Exg-E at its first update, where the paper reports accuracies.)

use super::inverse_cholesky_ridge::{inverse_cholesky_strategy, Schur};
use super::Strategy;

inverse_cholesky_strategy!(
    /// Exg-E: generalized-inverse update with `S = CᵀC`.
    ///
    /// ```
    /// use linalg_core::ridge::{ExgE, IncrementalRidge};
    /// use ndarray::array;
    /// let mut s = ExgE::new(array![[1.0], [1.0], [0.0]].view(), array![[2.0], [4.0], [1.0]].view(), 1e-12)?;
    /// s.append(array![[0.0], [0.0], [2.0]].view())?;
    /// // Least squares: w₁ = 3, w₂ = 1/2.
    /// assert!((s.weights()[[0, 0]] - 3.0).abs() < 1e-10);
    /// assert!((s.weights()[[1, 0]] - 0.5).abs() < 1e-10);
    /// # Ok::<(), linalg_core::Error>(())
    /// ```
    ExgE,
    Schur::ResidualNoRidge,
    Strategy::ExgE
);
