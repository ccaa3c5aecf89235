//! State every strategy shares: `A`, `Y`, λ, and input checks.

use ndarray::{ArrayView2, CowArray, Ix2};

use super::Strategy;
use crate::error::{Error, Result};
use crate::hidden_store::{HiddenStore, Precision};
use crate::kernels::{self, Flops, Op, Owned, Tri};
use crate::store::GrowMat;
use crate::validate;

/// `A` (K×n, growing), `Y` (K×M), λ, and the flops of the last operation.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub strategy: Strategy,
    pub a: HiddenStore,
    pub y: Owned,
    pub lambda: f64,
    pub last_flops: u64,
}

impl Problem {
    /// Validate `a` (K×n₀), `y` (K×M) and λ; take them in, `A` stored in
    /// `precision`. A borrowed `a` is copied once; an owned column-major
    /// contiguous `a` becomes the store without a copy (in f64).
    pub fn new(
        strategy: Strategy,
        a: CowArray<'_, f64, Ix2>,
        y: ArrayView2<'_, f64>,
        lambda: f64,
        precision: Precision,
    ) -> Result<Self> {
        let view = a.view();
        validate::non_empty("A (initial hidden-layer matrix)", &view)?;
        validate::non_empty("Y (targets)", &y)?;
        validate::rows("Y (targets)", &y, view.nrows())?;
        validate::lambda(strategy, lambda)?;
        validate::finite("A (initial hidden-layer matrix)", &view)?;
        validate::finite("Y (targets)", &y)?;
        // At most one copy of A, handed to the store without another.
        let a = if a.is_view() {
            Owned::from_view(view)
        } else {
            Owned::from_array(a.into_owned())
        };
        let store = HiddenStore::new(a, precision);
        Ok(Self {
            strategy,
            a: store,
            y: Owned::from_view(y),
            lambda,
            last_flops: 0,
        })
    }

    /// Samples K.
    pub fn k(&self) -> usize {
        self.y.rows()
    }

    /// Outputs M.
    pub fn m(&self) -> usize {
        self.y.cols()
    }

    /// Nodes n.
    pub fn n(&self) -> usize {
        self.a.cols()
    }

    /// Validate new columns `H` (K×q, q ≥ 1, finite) and copy them column-major.
    pub fn check_new_columns(&self, h: ArrayView2<'_, f64>) -> Result<Owned> {
        self.validate_new_columns(&h)?;
        let mut h = Owned::from_view(h);
        self.a.conform(&mut h);
        Ok(h)
    }

    /// As [`Self::check_new_columns`], taking `h` by value: no copy when it
    /// is column-major contiguous.
    pub fn check_new_columns_owned(&self, h: ndarray::Array2<f64>) -> Result<Owned> {
        self.validate_new_columns(&h.view())?;
        let mut h = Owned::from_array(h);
        self.a.conform(&mut h);
        Ok(h)
    }

    fn validate_new_columns(&self, h: &ArrayView2<'_, f64>) -> Result<()> {
        validate::non_empty("H (new columns)", h)?;
        validate::rows("H (new columns)", h, self.k())?;
        validate::finite("H (new columns)", h)
    }

    /// `R = AᵀA + λI` (upper triangle; `Kn(n+1) + n` flops).
    pub fn regularized_gram(&self, fl: &mut Flops) -> Owned {
        let n = self.n();
        let mut r = Owned::scaled_identity(n, self.lambda);
        self.a.syrk_t(fl, 1.0, 1.0, r.as_mut());
        r
    }

    /// The upper inverse Cholesky factor of `R = AᵀA + λI` (`F = U⁻¹`).
    pub fn initial_inverse_cholesky(&self, fl: &mut Flops) -> Result<Owned> {
        let mut r = self.regularized_gram(fl);
        crate::inverse_cholesky::inverse_cholesky_in_place(fl, &mut r)
            .map_err(|pivot| self.not_pd("AᵀA + λI", pivot, 0, self.n()))?;
        Ok(r)
    }

    /// `B = A R⁻¹ = A F Fᵀ` (K×n, the transposed ridge inverse `(A⁺_λ)ᵀ`).
    pub fn initial_ridge_inverse_t(&self, fl: &mut Flops, f: &Owned) -> GrowMat {
        let mut b = self.a.to_grow_f64();
        let n = self.n();
        // B ← A·F, then B ← B·Fᵀ.
        for op in [Op::N, Op::T] {
            kernels::trmm(
                fl,
                kernels::Side::Right,
                Tri::Upper,
                op,
                kernels::Diag::NonUnit,
                1.0,
                f.as_ref(),
                b.as_mut(),
            );
        }
        debug_assert_eq!(b.cols(), n);
        b
    }

    /// `W = Bᵀ Y` into a weight matrix with room to grow.
    pub fn weights_from_ridge_inverse_t(&self, fl: &mut Flops, b: &GrowMat) -> GrowMat {
        let n = self.n();
        let mut w = GrowMat::with_row_capacity(n, self.m(), 2 * n);
        kernels::matmul(fl, b.as_ref(), Op::T, self.y.as_ref(), Op::N, w.as_mut());
        w
    }

    /// Start a strategy that keeps `B = (A⁺_λ)ᵀ = A(AᵀA + λI)⁻¹` (K×n):
    /// returns `B` and `W = BᵀY` (Li et al., Alg. 1, R-Inv and, as its
    /// initial ridge approximation of `A⁺`, Orig.).
    pub fn start_ridge_inverse_t(&mut self) -> Result<(GrowMat, GrowMat)> {
        let mut fl = Flops::default();
        let f = self.initial_inverse_cholesky(&mut fl)?;
        let b = self.initial_ridge_inverse_t(&mut fl, &f);
        let w = self.weights_from_ridge_inverse_t(&mut fl, &b);
        self.last_flops = fl.0;
        Ok((b, w))
    }

    /// The typed loss-of-definiteness error for this strategy.
    pub fn not_pd(&self, matrix: &'static str, pivot: usize, first_node: usize, end_node: usize) -> Error {
        let suggestion = match self.strategy {
            Strategy::Chol1 => "Chol-1 forms the Schur complement HᵀH + λI − PᵀP by subtraction, which cancels for tiny λ on nearly collinear columns: use Chol-2 or R-Inv (stable), or a larger λ",
            Strategy::ExgE => "Exg-E drops λ in its updates, so (nearly) collinear new columns make CᵀC singular: use Chol-2 or R-Inv (ridge solutions), or a larger λ",
            Strategy::Alg2 | Strategy::Alg3 | Strategy::LiEtAl | Strategy::Alg1 => "the Schur complement c − pᵀQp lost positivity to rounding: use a larger λ, or Chol-2 / R-Inv",
            Strategy::DRdg | Strategy::Chol2 | Strategy::RInv | Strategy::Orig => "use a larger λ, or Chol-2 / R-Inv",
        };
        Error::NotPositiveDefinite {
            strategy: self.strategy,
            matrix,
            pivot,
            first_node,
            end_node,
            suggestion,
        }
    }

    /// Error if any entry of `m` is not finite (an overflow in an update).
    pub fn check_finite_result(
        &self,
        m: &Owned,
        first_node: usize,
        end_node: usize,
        detail: &'static str,
    ) -> Result<()> {
        self.check_finite(m.data(), first_node, end_node, detail)
    }

    /// Error if any of `values` is not finite (an overflow in the update
    /// adding nodes `first_node..end_node`).
    pub fn check_finite(&self, values: &[f64], first_node: usize, end_node: usize, detail: &'static str) -> Result<()> {
        if values.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(Error::Breakdown {
                strategy: self.strategy,
                first_node,
                end_node,
                detail,
            })
        }
    }

    /// What every column update starts from (Zhu & Wei eq. (21)): for a new
    /// column `h`, `c = hᵀh + λ` and `p = Aᵀh` (`2K + 2Kn` flops).
    pub fn column_products(&self, fl: &mut Flops, h: &[f64]) -> (f64, Vec<f64>) {
        let c = kernels::dot(fl, h, h) + self.lambda;
        let mut p = vec![0.0; self.n()];
        self.a.t_times_vec(fl, h, &mut p);
        (c, p)
    }

    /// Bytes of `A` and `Y`.
    pub fn bytes(&self) -> usize {
        self.a.bytes() + self.y.data().len() * 8
    }
}

/// Append the rows of `rows` (q×M) below a weight-like matrix (n×M).
pub(crate) fn push_rows(w: &mut GrowMat, rows: &Owned) {
    let (n, m) = (w.rows(), w.cols());
    w.resize(n + rows.rows(), m);
    w.as_mut().sub(n, 0, rows.rows(), m).copy_from(rows.as_ref());
}

/// The loop of the strategies that add a block one column at a time (Li
/// et al., Alg. 1, Alg. 2): `column` adds one column (length K), adding its
/// flops to the counter; the flops of the whole block become `last_flops`.
/// On error the columns before the failing one stay added.
pub(crate) fn append_columns(
    p: &mut Problem,
    h: Owned,
    mut column: impl FnMut(&mut Problem, &mut Flops, &[f64]) -> Result<()>,
) -> Result<()> {
    let mut fl = Flops::default();
    let result = (0..h.cols()).try_for_each(|j| column(p, &mut fl, h.col(j)));
    p.last_flops = fl.0;
    result
}
