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

use super::problem::Problem;
use crate::error::Result;
use crate::kernels::{self, Flops, MatRef, Op};
use crate::store::GrowMat;

/// Add one column `h` (length K) to Alg. 1's state `B = (A⁺_λ)ᵀ` and the
/// weights `w`, adding its flops to `fl`.
pub(super) fn append_column(
    pr: &mut Problem,
    b: &mut GrowMat,
    w: &mut GrowMat,
    fl: &mut Flops,
    h: &[f64],
) -> Result<()> {
    let (k, n, m) = (pr.k(), pr.n(), pr.m());
    let (c, p) = pr.column_products(fl, h);
    let mut v = vec![0.0; n];
    kernels::gemv(fl, 1.0, b.as_ref(), Op::T, h, 0.0, &mut v);
    let delta = c - kernels::dot(fl, &v, &p);
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(pr.not_pd("c − pᵀQp", 1, n, n + 1));
    }
    let tau = 1.0 / delta;
    // b̄ = τ (h − B p).
    let mut b_bar = h.to_vec();
    kernels::gemv(fl, -tau, b.as_ref(), Op::N, &p, tau, &mut b_bar);
    // w_new = b̄ᵀ Y  (1×M).
    let mut w_new = vec![0.0; m];
    kernels::gemv(fl, 1.0, pr.y.as_ref(), Op::T, &b_bar, 0.0, &mut w_new);
    pr.check_finite(&w_new, n, n + 1, "non-finite b̄")?;
    pr.check_finite(&b_bar, n, n + 1, "non-finite b̄")?;
    // B̃ = B − b̄ vᵀ;  W_top −= v w_newᵀ.
    kernels::ger(fl, -1.0, &b_bar, &v, b.as_mut());
    kernels::ger(fl, -1.0, &v, &w_new, w.as_mut());
    b.push_cols(MatRef::new(&b_bar, k, 1, k));
    pr.a.push_cols(MatRef::new(h, k, 1, k));
    w.resize(n + 1, m);
    for (j, x) in w_new.iter().enumerate() {
        w.set(n, j, *x);
    }
    Ok(())
}
