//! Ridge regression on rows that arrive and leave (online sequential
//! learning: OS-ELM's added samples, the BLS's "added inputs", scikit-elm's
//! `partial_fit` and `forget`), updated exactly:
//!
//! ```text
//! W = (AᵀA + λI)⁻¹ AᵀY,    R = AᵀA + λI = UᵀU
//! ```
//!
//! over whatever rows have been added and not forgotten. What is kept is the
//! upper Cholesky factor `U` of `R`, the Gram matrix `G = AᵀA` (upper
//! triangle) and `B = AᵀY`: `O(n² + n·M)` memory whatever the number of rows.
//!
//! * **Adding** a block `H` (k×n) of rows with targets `Y_H`: `U` is updated
//!   by orthogonal transformations — the QR factorization of `[U; H]`
//!   (LAPACK DTPQRT), whose triangle `U'` has `U'ᵀU' = UᵀU + HᵀH` —, so the
//!   factor is never formed from a subtraction and keeps the backward
//!   stability of a QR factorization; `G += HᵀH` (DSYRK), `B += HᵀY_H`
//!   (DGEMM). About `2kn² + kn² + 2knM` flops: linear in k, not the `n³/3`
//!   of a refactorization. For blocks of more than `n/6` rows the update
//!   would cost more than factoring anew, so the sums are updated and
//!   `G + λI` refactored instead (`kn² + n³/3`).
//! * **Forgetting** a block: `G −= HᵀH`, `B −= HᵀY_H`, and `U` is the
//!   Cholesky factor of the new `G + λI` (`kn² + n³/3` flops). When that
//!   matrix is not positive definite in floating point — the rows were not
//!   all added, or they carried nearly all of some direction of `A` so that
//!   `λ` is lost in the cancellation — nothing changes and the error
//!   [`Error::ForgetNotPositiveDefinite`] says so.
//! * The weights are two triangular solves with `U` (`2n²M` flops).
//!
//! ```
//! use linalg_core::ridge::{ridge_solve, OnlineRidge};
//! use ndarray::{array, s};
//! let a = array![[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0], [1.0, 0.5]];
//! let y = array![[1.0], [2.0], [0.5], [1.5], [0.0]];
//! let mut online = OnlineRidge::new(2, 1, 1e-3)?;
//! online.add(a.slice(s![..3, ..]), y.slice(s![..3, ..]))?;
//! online.add(a.slice(s![3.., ..]), y.slice(s![3.., ..]))?;
//! let all = ridge_solve(a.view(), y.view(), 1e-3)?.weights;
//! assert!(online.weights()?.iter().zip(&all).all(|(p, q)| (p - q).abs() < 1e-12));
//! online.forget(a.slice(s![..1, ..]), y.slice(s![..1, ..]))?;
//! let rest = ridge_solve(a.slice(s![1.., ..]), y.slice(s![1.., ..]), 1e-3)?.weights;
//! assert!(online.weights()?.iter().zip(&rest).all(|(p, q)| (p - q).abs() < 1e-12));
//! # Ok::<(), linalg_core::Error>(())
//! ```

use ndarray::{Array2, ArrayView2};

use super::gram::GramAccumulator;
use super::Strategy;
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, MatMut, Op, Owned, Tri};
use crate::validate;

/// Rows are copied into column-major blocks of at most this many rows for
/// the factor update (DTPQRT destroys its input): `O(block·n)` scratch.
const BLOCK_ROWS: usize = 2048;

/// The ridge problem's factor and sums over the rows added and not
/// forgotten: the upper Cholesky factor `U` of `AᵀA + λI`, `AᵀA` and `AᵀY`.
/// Rows are added by a rank-k QR update of `U` (DTPQRT on `[U; H]`) when
/// that is cheaper than updating the sums and refactoring, and forgotten by
/// a downdate of the sums and a refactorization, refused with
/// [`Error::ForgetNotPositiveDefinite`] (nothing changed) when the rest is
/// not positive definite.
#[derive(Clone, Debug)]
pub struct OnlineRidge {
    /// `U`, upper triangular, `UᵀU = G + λI` (strict lower triangle unused).
    factor: Owned,
    /// `G = AᵀA`, upper triangle.
    gram: Owned,
    /// `B = AᵀY`.
    rhs: Owned,
    rows: usize,
    lambda: f64,
    last_flops: u64,
}

impl OnlineRidge {
    /// No rows yet, for `n` columns of `A`, `m` targets and ridge parameter
    /// λ: `U = √λ·I`, `G = 0`, `B = 0` (the weights are 0).
    ///
    /// # Errors
    /// [`Error::InvalidLambda`] unless λ > 0 is finite.
    pub fn new(n: usize, m: usize, lambda: f64) -> Result<Self> {
        validate::lambda(Strategy::DRdg, lambda)?;
        Ok(Self {
            factor: Owned::scaled_identity(n, lambda.sqrt()),
            gram: Owned::zeros(n, n),
            rhs: Owned::zeros(n, m),
            rows: 0,
            lambda,
            last_flops: 0,
        })
    }

    /// Start from the sums of a [`GramAccumulator`] (a batch or streamed
    /// fit, or a saved state): one Cholesky factorization of `G + λI`.
    ///
    /// # Errors
    /// [`Error::InvalidLambda`] unless λ > 0 is finite;
    /// [`Error::NotPositiveDefinite`] if `G + λI` is not positive definite
    /// in floating point.
    pub fn from_accumulator(acc: &GramAccumulator, lambda: f64) -> Result<Self> {
        validate::lambda(Strategy::DRdg, lambda)?;
        let (gram, rhs, rows) = acc.sums();
        let mut fl = Flops::default();
        let factor = factor_of(&mut fl, gram, lambda).map_err(|pivot| Error::NotPositiveDefinite {
            strategy: Strategy::DRdg,
            matrix: "AᵀA + λI",
            pivot,
            first_node: 0,
            end_node: gram.rows(),
            suggestion: "λ is below the rounding of AᵀA on (nearly) collinear columns: use a larger λ",
        })?;
        Ok(Self {
            factor,
            gram: gram.clone(),
            rhs: rhs.clone(),
            rows,
            lambda,
            last_flops: fl.0,
        })
    }

    /// Columns of `A`.
    pub fn n(&self) -> usize {
        self.gram.rows()
    }

    /// Targets (columns of `Y`).
    pub fn m(&self) -> usize {
        self.rhs.cols()
    }

    /// Rows added and not forgotten.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The ridge parameter λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Flops of the last [`add`](Self::add), [`forget`](Self::forget) or
    /// construction (the papers' counting rule).
    pub fn last_flops(&self) -> u64 {
        self.last_flops
    }

    /// The sums kept (`G`, `B`, rows) as a [`GramAccumulator`], e.g. to
    /// save them ([`GramAccumulator::from_sums`] and
    /// [`from_accumulator`](Self::from_accumulator) restore them).
    pub fn accumulator(&self) -> GramAccumulator {
        GramAccumulator::from_owned(self.gram.clone(), self.rhs.clone(), self.rows)
    }

    /// Add the rows `a` (k×n) with targets `y` (k×M): a rank-k update of the
    /// factor by orthogonal transformations, in blocks of at most 2048 rows
    /// — or, when that costs more than factoring anew (`2kn² > n³/3`, i.e.
    /// `6k > n`), the sums updated and `AᵀA + λI` factored from them.
    ///
    /// # Errors
    /// [`Error::Shape`] unless `a` has [`n`](Self::n) columns and `y` has
    /// [`m`](Self::m) columns and as many rows; [`Error::NonFinite`] for NaN
    /// or ±∞; [`Error::NotPositiveDefinite`] if a refactorization finds
    /// `AᵀA + λI` not positive definite in floating point (λ below the
    /// rounding of `AᵀA`). On error nothing changes.
    pub fn add(&mut self, a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        self.check(a, y)?;
        let mut fl = Flops::default();
        let (k, n) = a.dim();
        if 6 * k > n {
            let mut sums = GramAccumulator::new(n, self.m());
            sums.add(a, y)?;
            let (gram_h, rhs_h, _) = sums.sums();
            let mut gram = self.gram.clone();
            let mut rhs = self.rhs.clone();
            for (g, h) in gram.data_mut().iter_mut().zip(gram_h.data()) {
                *g += h;
            }
            for (b, h) in rhs.data_mut().iter_mut().zip(rhs_h.data()) {
                *b += h;
            }
            let factor = factor_of(&mut fl, &gram, self.lambda).map_err(|pivot| Error::NotPositiveDefinite {
                strategy: Strategy::DRdg,
                matrix: "AᵀA + λI",
                pivot,
                first_node: 0,
                end_node: n,
                suggestion: "λ is below the rounding of AᵀA on (nearly) collinear columns: use a larger λ",
            })?;
            (self.factor, self.gram, self.rhs) = (factor, gram, rhs);
            self.rows += k;
            self.last_flops = fl.0 + sums.flops() + (n * (n + self.m())) as u64;
            return Ok(());
        }
        let mut r0 = 0;
        while r0 < k {
            let r1 = (r0 + BLOCK_ROWS).min(k);
            let rows = ndarray::Slice::from(r0..r1);
            let block_y = Owned::from_view(y.slice_axis(ndarray::Axis(0), rows));
            // Column-major m×n copy: DSYRK, DGEMM and DTPQRT read it in place.
            let mut block = Owned::from_view(a.slice_axis(ndarray::Axis(0), rows));
            kernels::syrk(&mut fl, 1.0, block.as_ref(), Op::T, 1.0, self.gram.as_mut());
            kernels::gemm(
                &mut fl,
                1.0,
                block.as_ref(),
                Op::T,
                block_y.as_ref(),
                Op::N,
                1.0,
                self.rhs.as_mut(),
            );
            if n > 0 {
                let m_rows = r1 - r0;
                let b = MatMut::new(block.data_mut(), m_rows, n, m_rows);
                kernels::triangle_qr_update(&mut fl, self.factor.as_mut(), b).map_err(|info| Error::Lapack {
                    routine: "dtpqrt",
                    info,
                })?;
            }
            r0 = r1;
        }
        self.rows += k;
        self.last_flops = fl.0;
        Ok(())
    }

    /// Forget the rows `a` (k×n) with targets `y` (k×M), which must have
    /// been added before: `G −= aᵀa`, `B −= aᵀy`, and the factor of the new
    /// `G + λI` ([`forget_sums`](Self::forget_sums) of their sums).
    ///
    /// # Errors
    /// [`Error::Shape`] and [`Error::NonFinite`] as [`add`](Self::add), and
    /// as [`forget_sums`](Self::forget_sums). On error nothing changes.
    pub fn forget(&mut self, a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        self.check(a, y)?;
        let mut sums = GramAccumulator::new(self.n(), self.m());
        sums.add(a, y)?;
        self.forget_sums(&sums)
    }

    /// Forget rows given by their sums (`Σ aᵀa`, `Σ aᵀy` and their count,
    /// accumulated in chunks by a [`GramAccumulator`]): one downdate and one
    /// refactorization for all of them, however many chunks they came in.
    ///
    /// # Errors
    /// [`Error::Shape`] if the sums are for another `n` or `M`, or count
    /// more rows than are left; [`Error::ForgetNotPositiveDefinite`] when
    /// the remaining `AᵀA + λI` is not positive definite in floating point,
    /// or the remaining `AᵀA` is not positive semidefinite beyond the
    /// rounding of the sums (the rows were not all added: a check made when
    /// that rounding is below λ, one more factorization). On error nothing
    /// changes.
    pub fn forget_sums(&mut self, sums: &GramAccumulator) -> Result<()> {
        let (gram_h, rhs_h, k) = sums.sums();
        if (sums.n(), sums.m()) != (self.n(), self.m()) {
            return Err(Error::Shape {
                what: "sums of the rows to forget",
                expected: format!("{} columns of A and {} targets", self.n(), self.m()),
                found: format!("{} and {}", sums.n(), sums.m()),
            });
        }
        if k > self.rows {
            return Err(Error::Shape {
                what: "rows to forget",
                expected: format!("at most the {} rows added and not forgotten", self.rows),
                found: format!("{k} rows"),
            });
        }
        let mut fl = Flops::default();
        let mut gram = self.gram.clone();
        let mut rhs = self.rhs.clone();
        // Upper triangles only (the lower ones are never written).
        for (g, h) in gram.data_mut().iter_mut().zip(gram_h.data()) {
            *g -= h;
        }
        for (b, h) in rhs.data_mut().iter_mut().zip(rhs_h.data()) {
            *b -= h;
        }
        fl.add(self.n() * (self.n() + self.m()));
        let tau = psd_shift(self.n(), (self.rows, trace(&self.gram)), (k, trace(gram_h)));
        if tau > 0.0 && tau < self.lambda {
            // The rows left have a Gram matrix: positive semidefinite up to
            // the rounding of the sums (`tau`). Rows never added leave a
            // negative eigenvalue that λ may hide from the factorization
            // below, and weights of any size (issue 36: predictions of
            // −1e300 after forgetting rows that were not in the fit).
            factor_of(&mut fl, &gram, tau).map_err(|pivot| Error::ForgetNotPositiveDefinite { rows: k, pivot })?;
        }
        let factor = factor_of(&mut fl, &gram, self.lambda)
            .map_err(|pivot| Error::ForgetNotPositiveDefinite { rows: k, pivot })?;
        (self.factor, self.gram, self.rhs) = (factor, gram, rhs);
        self.rows -= k;
        self.last_flops = fl.0 + sums.flops();
        Ok(())
    }

    /// The ridge weights `W = (G + λI)⁻¹B` (n×M) of the rows kept: two
    /// triangular solves with the factor.
    ///
    /// # Errors
    /// [`Error::Breakdown`] if they overflow.
    pub fn weights(&self) -> Result<Array2<f64>> {
        let mut w = self.rhs.clone();
        let mut fl = Flops::default();
        kernels::potrs_upper(&mut fl, self.factor.as_ref(), w.as_mut());
        if !w.data().iter().all(|v| v.is_finite()) {
            return Err(Error::Breakdown {
                strategy: Strategy::DRdg,
                first_node: 0,
                end_node: self.n(),
                detail: "non-finite output weights",
            });
        }
        Ok(w.into_array())
    }

    /// The checks of a block of rows: shapes and finite values.
    fn check(&self, a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        validate::cols("rows of A", &a, self.n())?;
        validate::cols("rows of Y", &y, self.m())?;
        validate::rows("rows of Y", &y, a.nrows())?;
        validate::finite("rows of A", &a)?;
        validate::finite("rows of Y", &y)
    }
}

/// The upper Cholesky factor of `G + λI` (`G` upper triangle), or the
/// 1-based pivot where it is not positive definite.
/// The trace of a Gram matrix `Σ aᵢ²` (its diagonal).
fn trace(gram: &Owned) -> f64 {
    (0..gram.rows()).map(|i| gram.at(i, i)).sum()
}

/// The shift `τ` that makes `G' + τI` positive definite in floating point
/// whenever `G' = G − F` is the computed Gram matrix of rows that were all
/// added: `G` summed over `added` rows of trace `tr G`, `F` over the
/// `forgotten` ones of trace `tr F` (`n` columns).
///
/// Each sum over K rows has an error of at most `γ_K·|A|ᵀ|A|` entrywise,
/// whose 2-norm is at most its trace `tr G` (`|A|ᵀ|A|` is a Gram matrix
/// with `G`'s diagonal), so `λ_min(G') ≥ −(γ_K·tr G + γ_k·tr F)` (the
/// subtraction's rounding is within the same terms). The Cholesky
/// factorization of `M = G' + τI` succeeds when `λ_min(M) > n·γ_{n+1}·tr M`
/// (Demmel's sufficient condition on the unit-diagonal scaling of `M`,
/// Higham, *Accuracy and Stability of Numerical Algorithms*, §10.1,
/// weakened by `max Mᵢᵢ ≤ tr M`). Twice the sum of both keeps the test
/// clear of its own rounding. A zero shift (all rows zero) checks nothing.
fn psd_shift(n: usize, (added, tr_g): (usize, f64), (forgotten, tr_f): (usize, f64)) -> f64 {
    let u = f64::EPSILON / 2.0;
    let gamma = |k: usize| {
        let ku = k as f64 * u;
        ku / (1.0 - ku)
    };
    2.0 * (gamma(added) * tr_g + gamma(forgotten) * tr_f + n as f64 * gamma(n + 1) * tr_g)
}

fn factor_of(fl: &mut Flops, gram: &Owned, lambda: f64) -> std::result::Result<Owned, usize> {
    let mut r = gram.clone();
    for i in 0..r.rows() {
        r.set(i, i, r.at(i, i) + lambda);
    }
    kernels::potrf(fl, Tri::Upper, r.as_mut())?;
    // DPOTRF leaves the strict lower triangle as it was: clear it, so the
    // factor is a clean triangle for DTPQRT and for saving.
    let n = r.rows();
    for j in 0..n {
        for i in j + 1..n {
            r.set(i, j, 0.0);
        }
    }
    Ok(r)
}
