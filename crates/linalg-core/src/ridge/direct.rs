//! **D-Rdg** — the direct ridge solution, the reference every update is
//! compared with (BLS paper, Sec. V; algorithms.md §1).
//!
//! Keeps the Gram matrix `AᵀA` and `AᵀY`, extended on each append by the new
//! blocks `AᵀH`, `HᵀH`, `HᵀY` (`2Knq + Kq² + 2KqM` flops), then solves
//! `(AᵀA + λI) W = AᵀY` **from scratch** by a Cholesky factorization and two
//! triangular solves (`n³/3 + 2n²M` flops): no information is carried over in
//! factored form, so rounding does not accumulate across appends.

use super::problem::{push_rows, Problem};
use super::solver::Update;
use super::Factors;
use crate::error::Result;
use crate::kernels::{self, Diag, Flops, Op, Owned, Side, Tri};
use crate::store::GrowMat;

/// D-Rdg's state: `AᵀA` (upper triangle kept) and `AᵀY`.
#[derive(Clone, Debug)]
pub(crate) struct DirectRidge {
    gram: GrowMat,
    aty: GrowMat,
}

impl Update for DirectRidge {
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)> {
        let mut fl = Flops::default();
        let n = p.n();
        let mut gram = GrowMat::square(n, n);
        p.a.syrk_t(&mut fl, 1.0, 0.0, gram.as_mut());
        let mut aty = GrowMat::with_row_capacity(n, p.m(), 2 * n);
        p.a.gemm_t(&mut fl, 1.0, p.y.as_ref(), 0.0, aty.as_mut());
        let w = solve(p, &mut fl, &gram, &aty, 0, n)?;
        p.last_flops = fl.0;
        Ok((Self { gram, aty }, GrowMat::from_ref(w.as_ref(), 2 * n)))
    }

    fn append(&mut self, p: &mut Problem, weights: &mut GrowMat, h: Owned) -> Result<()> {
        let (n, q, m) = (p.n(), h.cols(), p.m());
        let mut fl = Flops::default();
        let mut ath = Owned::zeros(n, q);
        p.a.gemm_t(&mut fl, 1.0, h.as_ref(), 0.0, ath.as_mut());
        let mut hth = Owned::zeros(q, q);
        kernels::syrk(&mut fl, 1.0, h.as_ref(), Op::T, 0.0, hth.as_mut());
        let mut hty = Owned::zeros(q, m);
        kernels::matmul(&mut fl, h.as_ref(), Op::T, p.y.as_ref(), Op::N, hty.as_mut());
        // Write the new blocks in place; the leading n×n block never changes,
        // so on failure shrinking back restores the state exactly.
        self.gram.grow_square(n + q);
        self.gram.as_mut().sub(0, n, n, q).copy_from(ath.as_ref());
        self.gram.as_mut().sub(n, n, q, q).copy_from(hth.as_ref());
        push_rows(&mut self.aty, &hty);
        let w = match solve(p, &mut fl, &self.gram, &self.aty, n, n + q) {
            Ok(w) => w,
            Err(e) => {
                self.gram.truncate(n, n);
                self.aty.truncate(n, m);
                return Err(e);
            }
        };
        weights.resize(n + q, m);
        weights.as_mut().copy_from(w.as_ref());
        p.a.push_cols(h.as_ref());
        p.last_flops = fl.0;
        Ok(())
    }

    fn bytes(&self) -> usize {
        self.gram.bytes() + self.aty.bytes()
    }

    fn reserve(&mut self, n: usize, m: usize) {
        self.gram.reserve_square(n);
        self.aty.reserve(n, m);
    }

    fn factors(&self) -> Factors<'_> {
        Factors::Gram {
            gram: self.gram.view(),
            aty: self.aty.view(),
        }
    }
}

/// `W = (G + λI)⁻¹ AᵀY` by `dpotrf` (upper: `R = UᵀU`) and two `dtrsm`.
fn solve(p: &Problem, fl: &mut Flops, gram: &GrowMat, aty: &GrowMat, first: usize, end: usize) -> Result<Owned> {
    let n = gram.rows();
    let mut r = Owned::from_ref(gram.as_ref());
    for i in 0..n {
        r.set(i, i, r.at(i, i) + p.lambda);
    }
    fl.add(n);
    kernels::potrf(fl, Tri::Upper, r.as_mut()).map_err(|pivot| p.not_pd("AᵀA + λI", pivot, first, end))?;
    let mut w = Owned::from_ref(aty.as_ref());
    kernels::trsm(
        fl,
        Side::Left,
        Tri::Upper,
        Op::T,
        Diag::NonUnit,
        1.0,
        r.as_ref(),
        w.as_mut(),
    );
    kernels::trsm(
        fl,
        Side::Left,
        Tri::Upper,
        Op::N,
        Diag::NonUnit,
        1.0,
        r.as_ref(),
        w.as_mut(),
    );
    p.check_finite_result(&w, first, end, "non-finite weights")?;
    Ok(w)
}
