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
//! As `λ → 0` this is Greville's method (Orig., `greville.rs`).

use super::problem::{push_rows, Problem};
use crate::error::Result;
use crate::kernels::{self, Diag, Flops, Op, Owned, Side, Tri};
use crate::store::GrowMat;

/// Append `H` to R-Inv's state `B = (A⁺_λ)ᵀ` and the weights `w`.
pub(super) fn append(p: &mut Problem, b: &mut GrowMat, w: &mut GrowMat, h: Owned) -> Result<()> {
    let (n, q) = (p.n(), h.cols());
    let mut fl = Flops::default();
    let (d, c) = residual_of_projection(&mut fl, p, b, &h);
    // S = CᵀC + λ(I + DᵀD) = UᵀU.
    let lambda = p.lambda;
    let mut s = Owned::scaled_identity(q, lambda);
    kernels::syrk(&mut fl, lambda, d.as_ref(), Op::T, 1.0, s.as_mut());
    kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 1.0, s.as_mut());
    kernels::potrf(&mut fl, Tri::Upper, s.as_mut()).map_err(|pivot| p.not_pd("CᵀC + λ(I + DᵀD)", pivot, n, n + q))?;
    // B_new = C S⁻¹ = C U⁻¹ U⁻ᵀ (K×q).
    let mut b_new = c;
    solve_right_cholesky(&mut fl, &s, &mut b_new);
    commit_pinv_update(&mut fl, p, b, w, d, b_new, h)
}

/// `X ← X S⁻¹ = X U⁻¹ U⁻ᵀ` for `S = UᵀU` with `U` (upper) in `u`: two
/// `dtrsm` from the right.
pub(crate) fn solve_right_cholesky(fl: &mut Flops, u: &Owned, x: &mut Owned) {
    for op in [Op::N, Op::T] {
        kernels::trsm(
            fl,
            Side::Right,
            Tri::Upper,
            op,
            Diag::NonUnit,
            1.0,
            u.as_ref(),
            x.as_mut(),
        );
    }
}

/// `D = BᵀH` (n×q) and `C = H − A D` (K×q) — Greville's `d` and `c`.
pub(crate) fn residual_of_projection(fl: &mut Flops, p: &Problem, b: &GrowMat, h: &Owned) -> (Owned, Owned) {
    let mut d = Owned::zeros(p.n(), h.cols());
    kernels::matmul(fl, b.as_ref(), Op::T, h.as_ref(), Op::N, d.as_mut());
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
    kernels::matmul(fl, b_new.as_ref(), Op::T, p.y.as_ref(), Op::N, w_new.as_mut());
    kernels::gemm(fl, -1.0, d.as_ref(), Op::N, w_new.as_ref(), Op::N, 1.0, w.as_mut());
    // B_top −= B_new Dᵀ (the transposed form of A⁺ − D Bᵀ_new).
    kernels::gemm(fl, -1.0, b_new.as_ref(), Op::N, d.as_ref(), Op::T, 1.0, b.as_mut());
    b.push_cols(b_new.as_ref());
    push_rows(w, &w_new);
    p.a.push_cols(h.as_ref());
    p.last_flops = fl.0;
    Ok(())
}
