//! **Alg. 1** of Zhu & Wei (inverse-free ELM): the more efficient update of
//! the regularized pseudo-inverse `B = A(AᵀA + λI)⁻¹` (their eqs. (21),
//! (25)–(29), transposed to this crate's notation; algorithms.md §3).
//!
//! For a new column `h` (`p = Aᵀh`, `c = hᵀh + λ`):
//!
//! ```text
//! v = Bᵀh (= Qp),   τ = 1/(c − vᵀp),   b̄ = τ (h − B p)
//! B' = [B − b̄ vᵀ   b̄],     w_new = b̄ᵀY,     W' = [W − v w_new; w_new]
//! ```
//!
//! Flops per node: `2Kn (p) + 2Kn (v) + 2Kn (Bp) + 2Kn (rank one) + 2KM +
//! 2nM` `= 8Kn + 2KM`; the paper's Table I gives `6lK + 2MK` (it does not
//! count `p = Hh̄`, which it shares with the other algorithms). q > 1
//! columns are added one at a time.

use ndarray::{ArrayView2, CowArray, Ix2};

use super::impl_incremental_ridge;
use super::problem::{ColumnByColumn, Problem};
use super::Strategy;
use crate::error::Result;
use crate::hidden_store::Precision;
use crate::kernels::{self, Flops, MatRef, Op, Owned};
use crate::store::GrowMat;

/// Zhu–Wei Alg. 1: regularized pseudo-inverse update.
///
/// ```
/// use linalg_core::ridge::{IncrementalRidge, ZhuWeiAlg1};
/// use ndarray::array;
/// let mut s = ZhuWeiAlg1::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
/// s.append(array![[1.0], [-1.0]].view())?;
/// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-14);
/// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-14);
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ZhuWeiAlg1 {
    p: Problem,
    b: GrowMat,
    w: GrowMat,
}

impl ZhuWeiAlg1 {
    /// Start from `a` (K×n₀), `y` (K×M), λ = k₀² > 0.
    pub fn new(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambda: f64) -> Result<Self> {
        Self::with_precision(a, y, lambda, Precision::F64)
    }

    /// As [`Self::new`], with `A` stored in `precision` (see
    /// [`crate::hidden_store`]). `a` is a view (copied once) or an owned
    /// `Array2`; an owned column-major contiguous `a` (e.g. made with
    /// `Array2::zeros((k, n).f())`) becomes the f64 store without a copy.
    pub fn with_precision<'a>(
        a: impl Into<CowArray<'a, f64, Ix2>>,
        y: ArrayView2<'_, f64>,
        lambda: f64,
        precision: Precision,
    ) -> Result<Self> {
        let (p, b, w) = Problem::with_ridge_inverse_t(Strategy::Alg1, a.into(), y, lambda, precision)?;
        Ok(Self { p, b, w })
    }

    fn append_impl(&mut self, h: Owned) -> Result<()> {
        self.append_columns(h)
    }

    fn factor_bytes(&self) -> usize {
        self.b.bytes()
    }

    fn reserve_factors(&mut self, n: usize) {
        self.b.reserve_cols(n.saturating_sub(self.b.cols()));
    }
}

impl ColumnByColumn for ZhuWeiAlg1 {
    fn problem_mut(&mut self) -> &mut Problem {
        &mut self.p
    }

    fn append_column(&mut self, fl: &mut Flops, h: &[f64]) -> Result<()> {
        let (k, n, m) = (self.p.k(), self.p.n(), self.p.m());
        let c = kernels::dot(fl, h, h) + self.p.lambda;
        let mut p = vec![0.0; n];
        self.p.a.t_times_vec(fl, h, &mut p);
        let mut v = vec![0.0; n];
        kernels::gemv(fl, 1.0, self.b.as_ref(), Op::T, h, 0.0, &mut v);
        let delta = c - kernels::dot(fl, &v, &p);
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(self.p.not_pd("c − pᵀQp", 1, n, n + 1));
        }
        let tau = 1.0 / delta;
        // b̄ = τ (h − B p).
        let mut b_bar = h.to_vec();
        kernels::gemv(fl, -tau, self.b.as_ref(), Op::N, &p, tau, &mut b_bar);
        // w_new = b̄ᵀ Y  (1×M).
        let mut w_new = vec![0.0; m];
        kernels::gemv(fl, 1.0, self.p.y.as_ref(), Op::T, &b_bar, 0.0, &mut w_new);
        if w_new.iter().chain(&b_bar).any(|x| !x.is_finite()) {
            return Err(crate::Error::Breakdown {
                strategy: Strategy::Alg1,
                first_node: n,
                end_node: n + 1,
                detail: "non-finite b̄",
            });
        }
        // B̃ = B − b̄ vᵀ;  W_top −= v w_newᵀ.
        kernels::ger(fl, -1.0, &b_bar, &v, self.b.as_mut());
        kernels::ger(fl, -1.0, &v, &w_new, self.w.as_mut());
        self.b.push_cols(MatRef::new(&b_bar, k, 1, k));
        self.p.a.push_cols(MatRef::new(h, k, 1, k));
        self.w.resize(n + 1, m);
        for (j, x) in w_new.iter().enumerate() {
            self.w.set(n, j, *x);
        }
        Ok(())
    }
}

impl_incremental_ridge!(ZhuWeiAlg1, Strategy::Alg1);
