//! The bordering update of an upper triangular factor `T` of `R⁻¹` — the
//! inverse Cholesky factor `F` (`F Fᵀ = R⁻¹`) or the unit `L` of the inverse
//! LDLᵀ factors (`L D Lᵀ = R⁻¹`) — when `R` gains a block column
//! (algorithms.md §1, §3; BLS paper Sec. III, Appendix D; Zhu & Wei eqs.
//! (31)–(36)). One implementation for the standalone factors
//! ([`InverseCholesky`](crate::InverseCholesky),
//! [`InverseLdl`](crate::InverseLdl)) and the strategies that keep one
//! (Chol-1, Chol-2, Exg-E, Alg. 3):
//!
//! ```text
//! P   = Tᵀ R12            (upper_t_times)
//! X   = T (D) P = R⁻¹R12  (upper_times, with D for LDLᵀ)
//! S   = R22 − R12ᵀX       (each caller forms its Schur complement)
//! T22 = factor of S⁻¹     (factor.rs)
//! T12 = −X T22,  T' = [T T12; 0 T22]   (border)
//! ```

use crate::kernels::{self, Diag, Flops, MatMut, MatRef, Op, Owned, Side, Tri};
use crate::store::GrowMat;

/// `X ← Tᵀ X` for an upper triangular `T` (`dtrmm`, left side).
pub(crate) fn upper_t_times(fl: &mut Flops, diag: Diag, t: MatRef<'_>, x: MatMut<'_>) {
    kernels::trmm(fl, Side::Left, Tri::Upper, Op::T, diag, 1.0, t, x);
}

/// `X ← T X` for an upper triangular `T` (`dtrmm`, left side).
pub(crate) fn upper_times(fl: &mut Flops, diag: Diag, t: MatRef<'_>, x: MatMut<'_>) {
    kernels::trmm(fl, Side::Left, Tri::Upper, Op::N, diag, 1.0, t, x);
}

/// Border the n×n factor `t` with the new block: `x` (n×q, `X = R⁻¹R12`
/// on entry) becomes `T12 = −X T22`, and `t` becomes `[T T12; 0 T22]`.
pub(crate) fn border(fl: &mut Flops, t: &mut GrowMat, diag: Diag, x: &mut Owned, t22: &Owned) {
    kernels::trmm(fl, Side::Right, Tri::Upper, Op::N, diag, -1.0, t22.as_ref(), x.as_mut());
    grow(t, x, t22);
}

/// `t ← [T T12; 0 T22]` with `T12` = `t12` (n×q) and `T22` = `t22` (q×q).
pub(crate) fn grow(t: &mut GrowMat, t12: &Owned, t22: &Owned) {
    let (n, q) = (t.rows(), t22.rows());
    t.grow_square(n + q);
    t.as_mut().sub(0, n, n, q).copy_from(t12.as_ref());
    t.as_mut().sub(n, n, q, q).copy_from(t22.as_ref());
}
