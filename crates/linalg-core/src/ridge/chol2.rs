//! **Chol-2** — the numerically stable implementation of the inverse
//! Cholesky ridge solution (BLS paper Sec. III, Algorithm 5; algorithms.md
//! §1).
//!
//! Forms the residual `C = H − A D` (`D = R⁻¹AᵀH`) and the Schur complement
//! as `S = CᵀC + λ(I + DᵀD)` — exactly `HᵀH + λI − PᵀP`, but a sum of a PSD
//! and a PD matrix, so it stays positive definite under rounding. Costs one
//! more `K×n×q` product (`2Knq` flops) than Chol-1.

use super::inverse_cholesky_ridge::{inverse_cholesky_strategy, Schur};
use super::Strategy;

inverse_cholesky_strategy!(
    /// Chol-2: inverse Cholesky update with `S = CᵀC + λ(I + DᵀD)`.
    ///
    /// ```
    /// use linalg_core::ridge::{Chol2, IncrementalRidge};
    /// use ndarray::array;
    /// let mut s = Chol2::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
    /// s.append(array![[1.0], [-1.0]].view())?;
    /// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-15);
    /// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-15);
    /// # Ok::<(), linalg_core::Error>(())
    /// ```
    Chol2,
    Schur::Residual,
    Strategy::Chol2
);
