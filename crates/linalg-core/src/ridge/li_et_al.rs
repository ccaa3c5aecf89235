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

use super::problem::Problem;
use crate::error::Result;
use crate::kernels::{self, Flops, Op};
use crate::store::GrowMat;

/// Add one column `h` (length K) to Li et al.'s state `B = (A⁺_λ)ᵀ` and the
/// weights `w`, adding its flops to `fl`.
pub(super) fn append_column(
    pr: &mut Problem,
    b: &mut GrowMat,
    w: &mut GrowMat,
    fl: &mut Flops,
    h: &[f64],
) -> Result<()> {
    let (k, n, m) = (pr.k(), pr.n(), pr.m());
    // c = hᵀh + λ, p = Aᵀh (21);  u = B p;  s = hᵀBp;  v = Bᵀh (= (hᵀB)ᵀ).
    let (c, p) = pr.column_products(fl, h);
    let mut u = vec![0.0; k];
    kernels::gemv(fl, 1.0, b.as_ref(), Op::N, &p, 0.0, &mut u);
    let s = kernels::dot(fl, h, &u);
    let mut v = vec![0.0; n];
    kernels::gemv(fl, 1.0, b.as_ref(), Op::T, h, 0.0, &mut v);
    let denom = c * (c - s);
    if !(c - s > 0.0 && denom.is_finite()) {
        return Err(pr.not_pd("c − hᵀBp (eq. (15) denominator)", 1, n, n + 1));
    }
    // First term of (15): x vᵀ with x = (c u − h s) / (c (c − s)).
    let x: Vec<f64> = u.iter().zip(h).map(|(ui, hi)| (c * ui - hi * s) / denom).collect();
    fl.add(4 * k);
    // Second term of (15): (cI − hhᵀ)B/c = B − h vᵀ/c.
    kernels::ger(fl, 1.0, &x, &v, b.as_mut());
    kernels::ger(fl, -1.0 / c, h, &v, b.as_mut());
    // (16): b̄ = (h − B̃ p)/c.
    let mut b_bar = h.to_vec();
    kernels::gemv(fl, -1.0, b.as_ref(), Op::N, &p, 1.0, &mut b_bar);
    b_bar.iter_mut().for_each(|v| *v /= c);
    fl.add(k);
    pr.check_finite(&b_bar, n, n + 1, "non-finite b̄")?;
    // (14), then (13): W = Bᵀ Y.
    b.push_cols(crate::kernels::MatRef::new(&b_bar, k, 1, k));
    pr.a.push_cols(crate::kernels::MatRef::new(h, k, 1, k));
    w.resize(n + 1, m);
    kernels::matmul(fl, b.as_ref(), Op::T, pr.y.as_ref(), Op::N, w.as_mut());
    Ok(())
}
