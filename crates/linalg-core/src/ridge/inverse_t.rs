//! The state of the four strategies that keep a transposed (generalized)
//! inverse `B` (K×n): R-Inv, Orig. (Greville), Li et al. and Zhu–Wei Alg. 1.
//! They start alike (`B = A(AᵀA + λI)⁻¹`, `W = BᵀY`) and differ only in the
//! update, which the problem's strategy selects.

use super::problem::{append_columns, Problem};
use super::solver::Update;
use super::{greville, li_et_al, r_inv, zhu_wei_alg1, Factors, Strategy};
use crate::error::Result;
use crate::kernels::Owned;
use crate::store::GrowMat;

/// `B = (A⁺_λ)ᵀ` (R-Inv, Li et al., Alg. 1) or `(A⁺)ᵀ` (Orig.).
#[derive(Clone, Debug)]
pub(crate) struct InverseT {
    b: GrowMat,
}

impl Update for InverseT {
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)> {
        let (b, w) = p.start_ridge_inverse_t()?;
        Ok((Self { b }, w))
    }

    fn append(&mut self, p: &mut Problem, w: &mut GrowMat, h: Owned) -> Result<()> {
        let b = &mut self.b;
        match p.strategy {
            Strategy::RInv => r_inv::append(p, b, w, h),
            Strategy::Orig => greville::append(p, b, w, h),
            Strategy::LiEtAl => append_columns(p, h, |p, fl, col| li_et_al::append_column(p, b, w, fl, col)),
            // Alg. 1: `Strategy::build` sends only these four strategies here.
            _ => append_columns(p, h, |p, fl, col| zhu_wei_alg1::append_column(p, b, w, fl, col)),
        }
    }

    fn bytes(&self) -> usize {
        self.b.bytes()
    }

    fn reserve(&mut self, n: usize, _m: usize) {
        self.b.reserve_cols(n.saturating_sub(self.b.cols()));
    }

    fn factors(&self) -> Factors<'_> {
        Factors::TransposedInverse(self.b.view())
    }
}
