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

use super::problem::{append_columns, Problem};
use super::solver::Update;
use super::Factors;
use crate::error::Result;
use crate::kernels::{self, Flops, MatRef, Op, Owned};
use crate::store::GrowMat;

/// Alg. 2's state: `Q = R⁻¹`, upper triangle kept, as the stored matrix
/// plus a pending rank-one term: `Q = q + τ·v·vᵀ` (on q's leading
/// `v.len()` block) when `pending = Some((τ, v))`. The last node's update
/// `Q + τ(Qp)(Qp)ᵀ` is applied during the next node's `Q·p`, in the same
/// sweep over `Q` ([`kernels::syr_then_symv`]): one pass over `Q` per node
/// instead of two.
#[derive(Clone, Debug)]
pub(crate) struct ZhuWeiAlg2 {
    q: GrowMat,
    pending: Option<(f64, Vec<f64>)>,
}

impl Update for ZhuWeiAlg2 {
    /// `Q = F Fᵀ`, `W = Q AᵀY`.
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)> {
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
        kernels::matmul(&mut fl, full_q.as_ref(), Op::N, aty.as_ref(), Op::N, w.as_mut());
        p.last_flops = fl.0;
        Ok((Self { q, pending: None }, w))
    }

    fn append(&mut self, p: &mut Problem, w: &mut GrowMat, h: Owned) -> Result<()> {
        append_columns(p, h, |p, fl, col| self.append_column(p, w, fl, col))
    }

    fn bytes(&self) -> usize {
        self.q.bytes() + self.pending.as_ref().map_or(0, |(_, v)| v.len() * 8)
    }

    fn reserve(&mut self, n: usize, _m: usize) {
        self.q.reserve_square(n);
    }

    /// `Q`, with the pending rank-one term applied, symmetrized (only its
    /// upper triangle is kept up to date).
    fn factors(&self) -> Factors<'_> {
        let mut q = Owned::from_ref(self.q.as_ref());
        if let Some((tau, v)) = &self.pending {
            let k = v.len();
            kernels::syr(&mut Flops::default(), *tau, v, q.as_mut().sub(0, 0, k, k));
        }
        kernels::symmetrize_upper(&mut q.as_mut());
        Factors::Inverse(q.into_array())
    }
}

impl ZhuWeiAlg2 {
    /// Add one column `h` (length K), adding its flops to `fl`.
    fn append_column(&mut self, pr: &mut Problem, w: &mut GrowMat, fl: &mut Flops, h: &[f64]) -> Result<()> {
        let (k, n, m) = (pr.k(), pr.n(), pr.m());
        let (c, p) = pr.column_products(fl, h);
        // Qp, applying the last node's pending rank-one term on the way
        // (after this, q is Q: on an error below the state is unchanged).
        let mut qp = vec![0.0; n];
        match self.pending.take() {
            Some((tau, v)) => kernels::syr_then_symv(fl, tau, &v, self.q.as_mut(), &p, &mut qp),
            None => kernels::symv(fl, 1.0, self.q.as_ref(), &p, 0.0, &mut qp),
        }
        let delta = c - kernels::dot(fl, &p, &qp);
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(pr.not_pd("c − pᵀQp", 1, n, n + 1));
        }
        let tau = 1.0 / delta;
        // w_new = τ (hᵀY − pᵀW).
        let mut w_new = vec![0.0; m];
        kernels::gemv(fl, tau, pr.y.as_ref(), Op::T, h, 0.0, &mut w_new);
        kernels::gemv(fl, -tau, w.as_ref(), Op::T, &p, 1.0, &mut w_new);
        pr.check_finite(&w_new, n, n + 1, "non-finite weights")?;
        // W_top −= (Qp) w_newᵀ;  Q += τ (Qp)(Qp)ᵀ (pending, applied with the
        // next node's Qp);  new column t = −τ Qp, τ.
        kernels::ger(fl, -1.0, &qp, &w_new, w.as_mut());
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
        self.pending = Some((tau, qp));
        pr.a.push_cols(MatRef::new(h, k, 1, k));
        w.resize(n + 1, m);
        for (j, x) in w_new.iter().enumerate() {
            w.set(n, j, *x);
        }
        Ok(())
    }
}
