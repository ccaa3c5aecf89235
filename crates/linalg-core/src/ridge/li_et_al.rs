//! **Li et al.** — the existing inverse-free ELM (Li et al. 2016), the
//! baseline of Zhu & Wei's comparison (their Sec. III, eqs. (12)–(16)).
//!
//! Keeps the regularized pseudo-inverse `B = A(AᵀA + λI)⁻¹` (K×n; the
//! paper's `B = Hᵀ(HHᵀ + k₀²I)⁻¹` in its transposed notation) and, for each
//! new column `h` (`c = hᵀh + λ`, `p = Aᵀh`), evaluates eq. (15) and (16) as
//! written, term by term, with matrix–vector products (never a K×K matrix):
//!
//! ```text
//! B̃ = (cI − hhᵀ) B p hᵀB / (c (c − hᵀBp))  +  (cI − hhᵀ) B / c     (15)
//! b̄ = (h − B̃ p) / c                                                  (16)
//! B' = [B̃ b̄]  (14),     W = Bᵀ Y  (13, recomputed in full)
//! ```
//!
//! Flops per node: `2Kn (p) + 2Kn (Bp) + 2Kn (hᵀB) + 2·2Kn (the two rank-one
//! terms of (15)) + 2Kn (B̃p) + 2KnM (W)` `= 12Kn + 2KnM` plus `O(K)`; the
//! paper's Table I counts `16lK + 2MlK` for its evaluation order.
//! q > 1 columns are added one at a time.

use ndarray::{ArrayView2, CowArray, Ix2};

use super::impl_incremental_ridge;
use super::problem::{ColumnByColumn, Problem};
use super::Strategy;
use crate::error::Result;
use crate::hidden_store::Precision;
use crate::kernels::{self, Flops, Op, Owned};
use crate::store::GrowMat;

/// Li et al.: the existing inverse-free ELM update of `B`, eqs. (14)–(16).
///
/// ```
/// use linalg_core::ridge::{IncrementalRidge, LiEtAl};
/// use ndarray::array;
/// let mut s = LiEtAl::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
/// s.append(array![[1.0], [-1.0]].view())?;
/// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-14);
/// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-14);
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LiEtAl {
    p: Problem,
    b: GrowMat,
    w: GrowMat,
}

impl LiEtAl {
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
        let (p, b, w) = Problem::with_ridge_inverse_t(Strategy::LiEtAl, a.into(), y, lambda, precision)?;
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

impl ColumnByColumn for LiEtAl {
    fn problem_mut(&mut self) -> &mut Problem {
        &mut self.p
    }

    fn append_column(&mut self, fl: &mut Flops, h: &[f64]) -> Result<()> {
        let (k, n, m) = (self.p.k(), self.p.n(), self.p.m());
        let c = kernels::dot(fl, h, h) + self.p.lambda;
        // p = Aᵀh (21);  u = B p;  s = hᵀBp;  v = Bᵀh (= (hᵀB)ᵀ).
        let mut p = vec![0.0; n];
        self.p.a.t_times_vec(fl, h, &mut p);
        let mut u = vec![0.0; k];
        kernels::gemv(fl, 1.0, self.b.as_ref(), Op::N, &p, 0.0, &mut u);
        let s = kernels::dot(fl, h, &u);
        let mut v = vec![0.0; n];
        kernels::gemv(fl, 1.0, self.b.as_ref(), Op::T, h, 0.0, &mut v);
        let denom = c * (c - s);
        if !(c - s > 0.0 && denom.is_finite()) {
            return Err(self.p.not_pd("c − hᵀBp (eq. (15) denominator)", 1, n, n + 1));
        }
        // First term of (15): x vᵀ with x = (c u − h s) / (c (c − s)).
        let x: Vec<f64> = u.iter().zip(h).map(|(ui, hi)| (c * ui - hi * s) / denom).collect();
        fl.add(4 * k);
        // Second term of (15): (cI − hhᵀ)B/c = B − h vᵀ/c.
        kernels::ger(fl, 1.0, &x, &v, self.b.as_mut());
        kernels::ger(fl, -1.0 / c, h, &v, self.b.as_mut());
        // (16): b̄ = (h − B̃ p)/c.
        let mut b_bar = h.to_vec();
        kernels::gemv(fl, -1.0, self.b.as_ref(), Op::N, &p, 1.0, &mut b_bar);
        b_bar.iter_mut().for_each(|v| *v /= c);
        fl.add(k);
        if b_bar.iter().any(|v| !v.is_finite()) {
            return Err(crate::Error::Breakdown {
                strategy: Strategy::LiEtAl,
                first_node: n,
                end_node: n + 1,
                detail: "non-finite b̄",
            });
        }
        // (14), then (13): W = Bᵀ Y.
        self.b.push_cols(crate::kernels::MatRef::new(&b_bar, k, 1, k));
        self.p.a.push_cols(crate::kernels::MatRef::new(h, k, 1, k));
        self.w.resize(n + 1, m);
        kernels::gemm(
            fl,
            1.0,
            self.b.as_ref(),
            Op::T,
            self.p.y.as_ref(),
            Op::N,
            0.0,
            self.w.as_mut(),
        );
        Ok(())
    }
}

impl_incremental_ridge!(LiEtAl, Strategy::LiEtAl);
