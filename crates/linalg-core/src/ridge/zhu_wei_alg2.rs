//! **Alg. 2** of Zhu & Wei: update the inverse `Q = (AᵀA + λI)⁻¹` by the
//! block matrix inverse lemma and the output weights directly from it (their
//! eqs. (21)–(24), (28), (30); algorithms.md §3).
//!
//! For a new column `h` (`p = Aᵀh`, `c = hᵀh + λ`):
//!
//! ```text
//! τ = 1/(c − pᵀQp),   t = −τ Qp,   Q' = [Q + τ(Qp)(Qp)ᵀ  t; tᵀ  τ]
//! w_new = τ (hᵀY − pᵀW),   W' = [W − (Qp) w_new; w_new]
//! ```
//!
//! Flops per node: `2Kn (p) + 2KM (hᵀY) + 2n² (Qp) + n² (rank one, upper
//! triangle) + 4nM` — the paper's `2lK + 2MK` plus the `O(n²)` terms it
//! drops. Cheapest, but the recursion on `Q` drifts after very many updates
//! (their Table II: weight error up to 3e-6 after 498 nodes). q > 1 columns
//! are added one at a time.

use ndarray::{ArrayView2, CowArray, Ix2};

use super::impl_incremental_ridge;
use super::problem::{ColumnByColumn, Problem};
use super::Strategy;
use crate::error::Result;
use crate::hidden_store::Precision;
use crate::kernels::{self, Flops, MatRef, Op, Owned};
use crate::store::GrowMat;

/// Zhu–Wei Alg. 2: recursive inverse update.
///
/// ```
/// use linalg_core::ridge::{IncrementalRidge, ZhuWeiAlg2};
/// use ndarray::array;
/// let mut s = ZhuWeiAlg2::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
/// s.append(array![[1.0], [-1.0]].view())?;
/// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-14);
/// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-14);
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ZhuWeiAlg2 {
    p: Problem,
    /// `Q = R⁻¹`, upper triangle kept.
    q: GrowMat,
    w: GrowMat,
}

impl ZhuWeiAlg2 {
    /// Start from `a` (K×n₀), `y` (K×M), λ = k₀² > 0: `Q = F Fᵀ`.
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
        let mut p = Problem::new(Strategy::Alg2, a.into(), y, lambda, precision)?;
        let mut fl = Flops::default();
        let f = p.initial_inverse_cholesky(&mut fl)?;
        let n = p.n();
        let mut q = GrowMat::square(n, n);
        kernels::syrk(&mut fl, 1.0, f.as_ref(), Op::N, 0.0, q.as_mut());
        // W = Q AᵀY.
        let mut aty = Owned::zeros(n, p.m());
        p.a.gemm_t(&mut fl, 1.0, p.y.as_ref(), 0.0, aty.as_mut());
        let mut w = GrowMat::with_row_capacity(n, p.m(), 2 * n);
        let mut full_q = Owned::from_ref(q.as_ref());
        kernels::symmetrize_upper(&mut full_q.as_mut());
        kernels::gemm(
            &mut fl,
            1.0,
            full_q.as_ref(),
            Op::N,
            aty.as_ref(),
            Op::N,
            0.0,
            w.as_mut(),
        );
        p.last_flops = fl.0;
        Ok(Self { p, q, w })
    }

    /// The inverse `Q = (AᵀA + λI)⁻¹` (only its upper triangle is kept up to
    /// date; the returned array is symmetrized).
    pub fn inverse(&self) -> ndarray::Array2<f64> {
        let mut q = Owned::from_ref(self.q.as_ref());
        kernels::symmetrize_upper(&mut q.as_mut());
        q.into_array()
    }

    fn append_impl(&mut self, h: Owned) -> Result<()> {
        self.append_columns(h)
    }

    fn factor_bytes(&self) -> usize {
        self.q.bytes()
    }

    fn reserve_factors(&mut self, n: usize) {
        self.q.reserve_square(n);
    }
}

impl ColumnByColumn for ZhuWeiAlg2 {
    fn problem_mut(&mut self) -> &mut Problem {
        &mut self.p
    }

    fn append_column(&mut self, fl: &mut Flops, h: &[f64]) -> Result<()> {
        let (k, n, m) = (self.p.k(), self.p.n(), self.p.m());
        let c = kernels::dot(fl, h, h) + self.p.lambda;
        let mut p = vec![0.0; n];
        self.p.a.t_times_vec(fl, h, &mut p);
        let mut qp = vec![0.0; n];
        kernels::symv(fl, 1.0, self.q.as_ref(), &p, 0.0, &mut qp);
        let delta = c - kernels::dot(fl, &p, &qp);
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(self.p.not_pd("c − pᵀQp", 1, n, n + 1));
        }
        let tau = 1.0 / delta;
        // w_new = τ (hᵀY − pᵀW).
        let mut w_new = vec![0.0; m];
        kernels::gemv(fl, tau, self.p.y.as_ref(), Op::T, h, 0.0, &mut w_new);
        kernels::gemv(fl, -tau, self.w.as_ref(), Op::T, &p, 1.0, &mut w_new);
        if w_new.iter().any(|x| !x.is_finite()) {
            return Err(crate::Error::Breakdown {
                strategy: Strategy::Alg2,
                first_node: n,
                end_node: n + 1,
                detail: "non-finite weights",
            });
        }
        // W_top −= (Qp) w_newᵀ;  Q += τ (Qp)(Qp)ᵀ;  new column t = −τ Qp, τ.
        kernels::ger(fl, -1.0, &qp, &w_new, self.w.as_mut());
        kernels::syr(fl, tau, &qp, self.q.as_mut());
        self.q.grow_square(n + 1);
        {
            let mut qm = self.q.as_mut();
            let col = qm.col_mut(n);
            for (dst, v) in col[..n].iter_mut().zip(&qp) {
                *dst = -tau * v;
            }
            col[n] = tau;
        }
        fl.add(n);
        self.p.a.push_cols(MatRef::new(h, k, 1, k));
        self.w.resize(n + 1, m);
        for (j, x) in w_new.iter().enumerate() {
            self.w.set(n, j, *x);
        }
        Ok(())
    }
}

impl_incremental_ridge!(ZhuWeiAlg2, Strategy::Alg2);
