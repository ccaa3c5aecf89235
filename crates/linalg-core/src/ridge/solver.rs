//! The one implementation of [`IncrementalRidge`]: the state every strategy
//! shares (a validated [`Problem`] and the weights `W`) carried together with
//! a strategy's own factor state and update ([`Update`]).

use ndarray::{Array2, ArrayView2, CowArray, Ix2};

use super::problem::Problem;
use super::{Factors, IncrementalRidge, Strategy};
use crate::error::Result;
use crate::hidden_store::Precision;
use crate::kernels::Owned;
use crate::store::GrowMat;

/// What a strategy keeps beside `A`, `Y` and `W`, and how it updates it.
///
/// Implementations set `p.last_flops` (the flops of the start or of the
/// append, counted by the papers' rule) and push the new columns onto `p.a`
/// when an append succeeds.
pub(crate) trait Update: Clone + std::fmt::Debug + Send + Sized + 'static {
    /// Start from a validated problem (its strategy says which update):
    /// the factor state and the weights `W` (n×M).
    fn start(p: &mut Problem) -> Result<(Self, GrowMat)>;
    /// Append a validated block `H` (K×q, column-major, in `A`'s precision).
    fn append(&mut self, p: &mut Problem, w: &mut GrowMat, h: Owned) -> Result<()>;
    /// Bytes of the factor state (capacity included).
    fn bytes(&self) -> usize;
    /// Make room for `n` nodes in total (`m` outputs).
    fn reserve(&mut self, n: usize, m: usize);
    /// The factor state, for inspection.
    fn factors(&self) -> Factors<'_>;
}

/// A strategy's solver: the shared problem, the weights and the update `U`.
#[derive(Clone, Debug)]
pub(crate) struct Solver<U> {
    p: Problem,
    w: GrowMat,
    u: U,
}

impl<U: Update> Solver<U> {
    /// Start the update `U` on a validated problem.
    pub(crate) fn start(mut p: Problem) -> Result<Box<dyn IncrementalRidge>> {
        let (u, w) = U::start(&mut p)?;
        Ok(Box::new(Self { p, w, u }))
    }
}

impl<U: Update> IncrementalRidge for Solver<U> {
    fn strategy(&self) -> Strategy {
        self.p.strategy
    }
    fn append(&mut self, h: ArrayView2<'_, f64>) -> Result<()> {
        let h = self.p.check_new_columns(h)?;
        self.u.append(&mut self.p, &mut self.w, h)
    }
    fn append_owned(&mut self, h: Array2<f64>) -> Result<()> {
        let h = self.p.check_new_columns_owned(h)?;
        self.u.append(&mut self.p, &mut self.w, h)
    }
    fn weights(&self) -> ArrayView2<'_, f64> {
        self.w.view()
    }
    fn hidden(&self) -> CowArray<'_, f64, Ix2> {
        self.p.a.view()
    }
    fn precision(&self) -> Precision {
        self.p.a.precision()
    }
    fn nodes(&self) -> usize {
        self.p.n()
    }
    fn lambda(&self) -> f64 {
        self.p.lambda
    }
    fn last_flops(&self) -> u64 {
        self.p.last_flops
    }
    fn reserve(&mut self, additional: usize) {
        self.p.a.reserve_cols(additional);
        let (n, m) = (self.p.n() + additional, self.p.m());
        self.w.reserve(n, m);
        self.u.reserve(n, m);
    }
    fn memory_bytes(&self) -> usize {
        self.p.bytes() + self.w.bytes() + self.u.bytes()
    }
    fn factors(&self) -> Factors<'_> {
        self.u.factors()
    }
    fn clone_box(&self) -> Box<dyn IncrementalRidge> {
        Box::new(self.clone())
    }
}
