//! **R-Inv** — the ridge inverse of a partitioned matrix (BLS paper Sec. IV,
//! eqs. (68)–(69), Algorithm 10; algorithms.md §2).
//!
//! Keeps the ridge inverse `A⁺_λ = R⁻¹Aᵀ` (stored transposed, `B = (A⁺_λ)ᵀ`,
//! K×n, so appending its new rows is a column append). On appending `H`:
//!
//! ```text
//! D  = A⁺_λ H                         C = H − A D
//! Bᵀ_new = (CᵀC + λ(I + DᵀD))⁻¹ Cᵀ    (eq. (68); PD under rounding)
//! A'⁺_λ = [A⁺_λ − D Bᵀ_new; Bᵀ_new],  W' = [W − D (Bᵀ_new Y); Bᵀ_new Y]
//! ```
//!
//! Flops: `2Knq (D) + 2Knq (C) + Kq² + nq² (S) + q³/3 + 2Kq² (solve)
//! + 2KqM + 2nqM + 2Knq (B update)`. Stores two K×n matrices (`A`, `B`).
//! As `λ → 0` this is Greville's method ([`super::Greville`]).

use ndarray::{ArrayView2, CowArray, Ix2};

use super::impl_incremental_ridge;
use super::problem::{push_rows, Problem};
use super::Strategy;
use crate::error::Result;
use crate::hidden_store::Precision;
use crate::kernels::{self, Diag, Flops, Op, Owned, Side, Tri};
use crate::store::GrowMat;

/// R-Inv: ridge-inverse update.
///
/// ```
/// use linalg_core::ridge::{IncrementalRidge, RidgeInverse};
/// use ndarray::array;
/// let mut s = RidgeInverse::new(array![[1.0], [1.0]].view(), array![[2.0], [4.0]].view(), 1.0)?;
/// s.append(array![[1.0], [-1.0]].view())?;
/// assert!((s.weights()[[0, 0]] - 2.0).abs() < 1e-15);
/// assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RidgeInverse {
    p: Problem,
    /// `B = (A⁺_λ)ᵀ` (K×n).
    b: GrowMat,
    w: GrowMat,
}

impl RidgeInverse {
    /// Start from `a` (K×n₀), `y` (K×M), λ > 0: `A⁺_λ` from the inverse
    /// Cholesky factor of `AᵀA + λI`.
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
        let (p, b, w) = Problem::with_ridge_inverse_t(Strategy::RInv, a.into(), y, lambda, precision)?;
        Ok(Self { p, b, w })
    }

    /// The stored ridge inverse, transposed: `(A⁺_λ)ᵀ = A (AᵀA + λI)⁻¹` (K×n).
    pub fn ridge_inverse_t(&self) -> ArrayView2<'_, f64> {
        self.b.view()
    }

    fn append_impl(&mut self, h: Owned) -> Result<()> {
        let (n, q) = (self.p.n(), h.cols());
        let mut fl = Flops::default();
        let (d, c) = residual_of_projection(&mut fl, &self.p, &self.b, &h);
        // S = CᵀC + λ(I + DᵀD) = UᵀU.
        let lambda = self.p.lambda;
        let mut s = Owned::scaled_identity(q, lambda);
        kernels::syrk(&mut fl, lambda, d.as_ref(), Op::T, 1.0, s.as_mut());
        kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 1.0, s.as_mut());
        kernels::potrf(&mut fl, Tri::Upper, s.as_mut())
            .map_err(|pivot| self.p.not_pd("CᵀC + λ(I + DᵀD)", pivot, n, n + q))?;
        // B_new = C S⁻¹ = C U⁻¹ U⁻ᵀ (K×q).
        let mut b_new = c;
        kernels::trsm(
            &mut fl,
            Side::Right,
            Tri::Upper,
            Op::N,
            Diag::NonUnit,
            1.0,
            s.as_ref(),
            b_new.as_mut(),
        );
        kernels::trsm(
            &mut fl,
            Side::Right,
            Tri::Upper,
            Op::T,
            Diag::NonUnit,
            1.0,
            s.as_ref(),
            b_new.as_mut(),
        );
        commit_pinv_update(&mut fl, &mut self.p, &mut self.b, &mut self.w, d, b_new, h)
    }

    fn factor_bytes(&self) -> usize {
        self.b.bytes()
    }

    fn reserve_factors(&mut self, n: usize) {
        self.b.reserve_cols(n.saturating_sub(self.b.cols()));
    }
}

/// `D = BᵀH` (n×q) and `C = H − A D` (K×q) — Greville's `d` and `c`.
pub(crate) fn residual_of_projection(fl: &mut Flops, p: &Problem, b: &GrowMat, h: &Owned) -> (Owned, Owned) {
    let mut d = Owned::zeros(p.n(), h.cols());
    kernels::gemm(fl, 1.0, b.as_ref(), Op::T, h.as_ref(), Op::N, 0.0, d.as_mut());
    let mut c = h.clone();
    p.a.gemm_n(fl, -1.0, d.as_ref(), 1.0, c.as_mut());
    (d, c)
}

/// Shared tail of R-Inv and Greville: given `D` and `B_new = (Bᵀ_new)ᵀ`
/// (K×q), update `W` and `B` and append `H`.
pub(crate) fn commit_pinv_update(
    fl: &mut Flops,
    p: &mut Problem,
    b: &mut GrowMat,
    w: &mut GrowMat,
    d: Owned,
    b_new: Owned,
    h: Owned,
) -> Result<()> {
    let (n, q, m) = (p.n(), h.cols(), p.m());
    p.check_finite_result(&b_new, n, n + q, "non-finite pseudo-inverse rows")?;
    // w_new = Bᵀ_new Y;  W_top −= D w_new.
    let mut w_new = Owned::zeros(q, m);
    kernels::gemm(fl, 1.0, b_new.as_ref(), Op::T, p.y.as_ref(), Op::N, 0.0, w_new.as_mut());
    kernels::gemm(fl, -1.0, d.as_ref(), Op::N, w_new.as_ref(), Op::N, 1.0, w.as_mut());
    // B_top −= B_new Dᵀ (the transposed form of A⁺ − D Bᵀ_new).
    kernels::gemm(fl, -1.0, b_new.as_ref(), Op::N, d.as_ref(), Op::T, 1.0, b.as_mut());
    b.push_cols(b_new.as_ref());
    push_rows(w, &w_new);
    p.a.push_cols(h.as_ref());
    p.last_flops = fl.0;
    Ok(())
}

impl_incremental_ridge!(RidgeInverse, Strategy::RInv);
