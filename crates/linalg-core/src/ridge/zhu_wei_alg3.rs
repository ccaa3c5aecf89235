//! **Alg. 3** of Zhu & Wei: keep the inverse LDLᵀ factors of
//! `R = AᵀA + λI` (`L D Lᵀ = R⁻¹`, `L` unit upper) instead of `Q` (their
//! eqs. (31)–(36), (30b), (28); algorithms.md §3). Numerically it behaves as
//! the inverse Cholesky factor without square roots: no drift like Alg. 2.
//!
//! One column (`p = Aᵀh`, `c = hᵀh + λ`), square-root free:
//!
//! ```text
//! t̃ = −L D Lᵀ p,  τ = 1/(c + pᵀt̃),  L' = [L t̃; 0 1],  D' = diag(D, τ)
//! w_new = τ (hᵀY − pᵀW),   W' = [W + t̃ w_new; w_new]
//! ```
//!
//! A block of `q` columns is one BLAS-3 step: `P = AᵀH`, `X = D LᵀP`,
//! `QP = L X`, `S = HᵀH + λI − (LᵀP)ᵀX`; `L22, D22` = inverse LDLᵀ factors
//! of `S` (through its inverse Cholesky factor when `q > 1`),
//! `L12 = −QP L22`, `w = L22 D22 L22ᵀ (HᵀY − PᵀW)`, `W' = [W − QP w; w]`.
//!
//! Flops per node (q = 1): `2Kn + 2KM + 2n² + O(n + nM)` — the paper's
//! `2lK + 2MK`.

use ndarray::ArrayView1;

use super::problem::{push_rows, Problem};
use super::solver::Update;
use super::Factors;
use crate::error::Result;
use crate::inverse_cholesky::update::{border, upper_t_times, upper_times};
use crate::inverse_ldl::{inverse_ldl_in_place, ldl_from_inverse_cholesky, scale_rows};
use crate::kernels::{self, Diag, Flops, Op, Owned};
use crate::store::GrowMat;

/// Alg. 3's state: the inverse LDLᵀ factors `L` (unit upper) and `D`.
#[derive(Clone, Debug)]
pub(crate) struct ZhuWeiAlg3 {
    l: GrowMat,
    d: Vec<f64>,
}

impl ZhuWeiAlg3 {
    /// `(X0, D X0, L D X0)` with `X0 = LᵀP`: for one column in one sweep
    /// over `L` ([`kernels::ldlt_times_unit_upper`]), for a block by two
    /// triangular products (BLAS-3).
    fn ldl_products(&self, fl: &mut Flops, p: Owned) -> (Owned, Owned, Owned) {
        let (n, q) = (p.rows(), p.cols());
        if q == 1 {
            let (x0, qp) = kernels::ldlt_times_unit_upper(fl, self.l.as_ref(), &self.d, p.col(0));
            let dx0: Vec<f64> = x0.iter().zip(&self.d).map(|(x, d)| x * d).collect();
            let col = |v: Vec<f64>| Owned::from_fn(n, 1, |i, _| v[i]);
            return (col(x0), col(dx0), col(qp));
        }
        let lr = self.l.as_ref();
        let mut x0 = p;
        upper_t_times(fl, Diag::Unit, lr, x0.as_mut());
        let mut dx0 = x0.clone();
        scale_rows(fl, &mut dx0, &self.d);
        let mut qp = dx0.clone();
        upper_times(fl, Diag::Unit, lr, qp.as_mut());
        (x0, dx0, qp)
    }
}

impl Update for ZhuWeiAlg3 {
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)> {
        let mut fl = Flops::default();
        let mut f = p.initial_inverse_cholesky(&mut fl)?;
        let n = p.n();
        // W = F Fᵀ AᵀY, then F → (L, D).
        let mut w = GrowMat::with_row_capacity(n, p.m(), 2 * n);
        p.a.gemm_t(&mut fl, 1.0, p.y.as_ref(), 0.0, w.as_mut());
        upper_t_times(&mut fl, Diag::NonUnit, f.as_ref(), w.as_mut());
        upper_times(&mut fl, Diag::NonUnit, f.as_ref(), w.as_mut());
        let d = ldl_from_inverse_cholesky(&mut fl, &mut f);
        p.last_flops = fl.0;
        Ok((
            Self {
                l: GrowMat::from_ref(f.as_ref(), n),
                d,
            },
            w,
        ))
    }

    fn append(&mut self, pr: &mut Problem, weights: &mut GrowMat, h: Owned) -> Result<()> {
        let (n, q, m) = (pr.n(), h.cols(), pr.m());
        let mut fl = Flops::default();
        // P = AᵀH;  X0 = LᵀP;  X = D X0;  QP = L X.
        let mut p = Owned::zeros(n, q);
        pr.a.gemm_t(&mut fl, 1.0, h.as_ref(), 0.0, p.as_mut());
        let (x0, dx0, mut qp) = self.ldl_products(&mut fl, p.clone());
        // S = HᵀH + λI − X0ᵀ (D X0)  (upper triangle used).
        let mut s = Owned::scaled_identity(q, pr.lambda);
        kernels::syrk(&mut fl, 1.0, h.as_ref(), Op::T, 1.0, s.as_mut());
        kernels::gemm(&mut fl, -1.0, x0.as_ref(), Op::T, dx0.as_ref(), Op::N, 1.0, s.as_mut());
        // (L22, D22): inverse LDLᵀ factors of S.
        let (l22, d22) = if q == 1 {
            let delta = s.at(0, 0);
            if !(delta > 0.0 && delta.is_finite()) {
                return Err(pr.not_pd("c − pᵀQp", 1, n, n + 1));
            }
            (Owned::scaled_identity(1, 1.0), vec![1.0 / delta])
        } else {
            let mut f22 = s;
            let d22 = inverse_ldl_in_place(&mut fl, &mut f22)
                .map_err(|pivot| pr.not_pd("the Schur complement S of the new block", pivot, n, n + q))?;
            (f22, d22)
        };
        // w = L22 D22 L22ᵀ (HᵀY − PᵀW).
        let mut w = Owned::zeros(q, m);
        kernels::matmul(&mut fl, h.as_ref(), Op::T, pr.y.as_ref(), Op::N, w.as_mut());
        kernels::gemm(
            &mut fl,
            -1.0,
            p.as_ref(),
            Op::T,
            weights.as_ref(),
            Op::N,
            1.0,
            w.as_mut(),
        );
        upper_t_times(&mut fl, Diag::Unit, l22.as_ref(), w.as_mut());
        scale_rows(&mut fl, &mut w, &d22);
        upper_times(&mut fl, Diag::Unit, l22.as_ref(), w.as_mut());
        pr.check_finite_result(&w, n, n + q, "non-finite new weights")?;
        // W_top −= QP w.
        let mut w_top = Owned::from_ref(weights.as_ref());
        kernels::gemm(
            &mut fl,
            -1.0,
            qp.as_ref(),
            Op::N,
            w.as_ref(),
            Op::N,
            1.0,
            w_top.as_mut(),
        );
        pr.check_finite_result(&w_top, n, n + q, "non-finite updated weights")?;
        // Commit.
        weights.as_mut().copy_from(w_top.as_ref());
        push_rows(weights, &w);
        // L12 = −QP L22.
        border(&mut fl, &mut self.l, Diag::Unit, &mut qp, &l22);
        self.d.extend(d22);
        pr.a.push_cols(h.as_ref());
        pr.last_flops = fl.0;
        Ok(())
    }

    fn bytes(&self) -> usize {
        self.l.bytes() + self.d.len() * 8
    }

    fn reserve(&mut self, n: usize, _m: usize) {
        self.l.reserve_square(n);
        self.d.reserve(n.saturating_sub(self.d.len()));
    }

    fn factors(&self) -> Factors<'_> {
        Factors::InverseLdl {
            l: self.l.view(),
            d: ArrayView1::from(&self.d[..]),
        }
    }
}
