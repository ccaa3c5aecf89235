//! The engine shared by Chol-1, Chol-2 and Exg-E: the ridge solution kept
//! through the upper inverse Cholesky factor `F` of `R = AᵀA + λI`
//! (algorithms.md §1; BLS paper Sec. III, Algorithms 4–6).
//!
//! State: `F` (n×n), `G = FᵀAᵀY` (n×M) and `W = F G` (n×M). Appending `H`
//! (K×q):
//!
//! ```text
//! P   = Fᵀ(AᵀH)          D = F P = R⁻¹AᵀH
//! S   = Schur complement  (the three strategies differ only here)
//! F22 = inverse Cholesky factor of S,   F12 = −D F22
//! g   = F22ᵀ (HᵀY − PᵀG),  w = F22 g,   W' = [W − D w; w],  G' = [G; g]
//! ```
//!
//! - **Chol-1** (Algorithm 4): `S = HᵀH + λI − PᵀP`, the Schur complement
//!   by subtraction. Cheapest of the ridge solutions. For tiny λ on (nearly)
//!   collinear new columns the subtraction cancels and `S` stops being
//!   positive definite in floating point; the paper reports "NA" on MNIST at
//!   small λ. Here that is
//!   [`Error::NotPositiveDefinite`](crate::Error::NotPositiveDefinite), naming
//!   Chol-1 and suggesting Chol-2 or a larger λ.
//! - **Chol-2** (Algorithm 5): the residual `C = H − A D` and
//!   `S = CᵀC + λ(I + DᵀD)` — exactly `HᵀH + λI − PᵀP`, but a sum of a PSD
//!   and a PD matrix, so it stays positive definite under rounding. One more
//!   `K×n×q` product (`2Knq` flops) than Chol-1.
//! - **Exg-E** (the earlier efficient BLS, Sec. II): as Chol-2 but with
//!   `λ → 0` in the update, `S = CᵀC`. λ enters only the initial solution
//!   (the ridge approximation of `A⁺`), so the weights tend to the
//!   minimum-norm least-squares solution, not the ridge one: the paper finds
//!   its test accuracy peaks and then degrades as nodes grow at small λ.
//!   **Breakdown as in the paper:** the update fails only when the Cholesky
//!   factorization of `CᵀC` itself breaks down (a non-positive pivot, e.g. a
//!   new column exactly in the span of the others), naming Exg-E — as
//!   MATLAB's `chol` in the paper's implementation would. Nearly collinear
//!   new columns (a tiny but positive pivot) are factored, and give the large
//!   weights of the least-squares solution of a nearly rank-deficient
//!   problem; that is the method's own behaviour, which the BLS paper's
//!   degrading Exg-E accuracies reflect. (An earlier version refused pivots
//!   below `K·ε·‖h_j‖²`; on the paper's MNIST schedule that stopped Exg-E at
//!   its first update, where the paper reports accuracies.)
//!
//! Flops per append: `2Knq (AᵀH) + 2n²q (P, D) + Kq(q+1) (HᵀH or CᵀC)
//! + nq(q+1) (PᵀP or DᵀD) + [2Knq (C, Chol-2/Exg-E)] + 2q³/3 + 2KqM + 2nqM
//! + 2q²M + nq² + 2nqM`.

use super::problem::{push_rows, Problem};
use super::solver::Update;
use super::{Factors, Strategy};
use crate::error::Result;
use crate::inverse_cholesky::update::{border, upper_t_times, upper_times};
use crate::kernels::{self, Diag, Flops, Op, Owned};
use crate::store::GrowMat;

/// How the Schur complement `S` of the appended block is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schur {
    /// Chol-1: `S = HᵀH + λI − PᵀP` (cheapest; cancels for tiny λ).
    Subtract,
    /// Chol-2: `S = CᵀC + λ(I + DᵀD)`, `C = H − A D` (PD under rounding).
    Residual,
    /// Exg-E: `S = CᵀC` (generalized inverse: λ dropped in the update).
    ResidualNoRidge,
}

/// State of the inverse-Cholesky strategies: `F` and `G = FᵀAᵀY`.
#[derive(Clone, Debug)]
pub(crate) struct InvCholRidge {
    f: GrowMat,
    g: GrowMat,
}

impl Schur {
    /// The form a strategy uses (only Chol-1, Chol-2 and Exg-E come here).
    fn of(strategy: Strategy) -> Self {
        match strategy {
            Strategy::Chol1 => Schur::Subtract,
            Strategy::ExgE => Schur::ResidualNoRidge,
            _ => Schur::Residual,
        }
    }
}

impl Update for InvCholRidge {
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)> {
        let mut fl = Flops::default();
        let f = p.initial_inverse_cholesky(&mut fl)?;
        let n = p.n();
        // G = Fᵀ AᵀY, W = F G.
        let mut g = GrowMat::with_row_capacity(n, p.m(), 2 * n);
        p.a.gemm_t(&mut fl, 1.0, p.y.as_ref(), 0.0, g.as_mut());
        upper_t_times(&mut fl, Diag::NonUnit, f.as_ref(), g.as_mut());
        let mut w = g.clone();
        upper_times(&mut fl, Diag::NonUnit, f.as_ref(), w.as_mut());
        p.last_flops = fl.0;
        Ok((
            Self {
                f: GrowMat::from_ref(f.as_ref(), n),
                g,
            },
            w,
        ))
    }

    fn append(&mut self, pr: &mut Problem, weights: &mut GrowMat, h: Owned) -> Result<()> {
        let (n, q) = (pr.n(), h.cols());
        let mut fl = Flops::default();
        let fr = self.f.as_ref();
        // P = Fᵀ (AᵀH);  D = F P.
        let mut p = Owned::zeros(n, q);
        pr.a.gemm_t(&mut fl, 1.0, h.as_ref(), 0.0, p.as_mut());
        upper_t_times(&mut fl, Diag::NonUnit, fr, p.as_mut());
        let mut d = p.clone();
        upper_times(&mut fl, Diag::NonUnit, fr, d.as_mut());
        // S (upper triangle).
        let lambda = pr.lambda;
        let schur = Schur::of(pr.strategy);
        let mut s = match schur {
            Schur::Subtract => {
                let mut s = Owned::scaled_identity(q, lambda);
                kernels::syrk(&mut fl, 1.0, h.as_ref(), Op::T, 1.0, s.as_mut());
                kernels::syrk(&mut fl, -1.0, p.as_ref(), Op::T, 1.0, s.as_mut());
                s
            }
            Schur::Residual | Schur::ResidualNoRidge => {
                let mut c = h.clone();
                pr.a.gemm_n(&mut fl, -1.0, d.as_ref(), 1.0, c.as_mut());
                if schur == Schur::Residual {
                    let mut s = Owned::scaled_identity(q, lambda);
                    kernels::syrk(&mut fl, lambda, d.as_ref(), Op::T, 1.0, s.as_mut());
                    kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 1.0, s.as_mut());
                    s
                } else {
                    let mut s = Owned::zeros(q, q);
                    kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 0.0, s.as_mut());
                    s
                }
            }
        };
        crate::inverse_cholesky::inverse_cholesky_in_place(&mut fl, &mut s)
            .map_err(|pivot| pr.not_pd("the Schur complement S of the new block", pivot, n, n + q))?;
        // g = F22ᵀ (HᵀY − PᵀG);  w = F22 g.
        let mut g = Owned::zeros(q, pr.m());
        kernels::matmul(&mut fl, h.as_ref(), Op::T, pr.y.as_ref(), Op::N, g.as_mut());
        kernels::gemm(
            &mut fl,
            -1.0,
            p.as_ref(),
            Op::T,
            self.g.as_ref(),
            Op::N,
            1.0,
            g.as_mut(),
        );
        upper_t_times(&mut fl, Diag::NonUnit, s.as_ref(), g.as_mut());
        let mut w = g.clone();
        upper_times(&mut fl, Diag::NonUnit, s.as_ref(), w.as_mut());
        pr.check_finite_result(&w, n, n + q, "non-finite new weights")?;
        // W_top −= D w (before D is overwritten by F12).
        let mut w_top = Owned::from_ref(weights.as_ref());
        kernels::gemm(&mut fl, -1.0, d.as_ref(), Op::N, w.as_ref(), Op::N, 1.0, w_top.as_mut());
        pr.check_finite_result(&w_top, n, n + q, "non-finite updated weights")?;
        // Commit.
        weights.as_mut().copy_from(w_top.as_ref());
        push_rows(weights, &w);
        push_rows(&mut self.g, &g);
        // F12 = −D F22.
        border(&mut fl, &mut self.f, Diag::NonUnit, &mut d, &s);
        pr.a.push_cols(h.as_ref());
        fl.add(n * pr.m()); // the copy-back sum W_top
        pr.last_flops = fl.0;
        Ok(())
    }

    fn bytes(&self) -> usize {
        self.f.bytes() + self.g.bytes()
    }

    fn reserve(&mut self, n: usize, m: usize) {
        self.f.reserve_square(n);
        self.g.reserve(n, m);
    }

    fn factors(&self) -> Factors<'_> {
        Factors::InverseCholesky {
            f: self.f.view(),
            g: self.g.view(),
        }
    }
}
