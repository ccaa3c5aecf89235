//! The ridge problem's sufficient statistics, accumulated over chunks of
//! rows: `G = AᵀA`, `B = AᵀY` and the row count. Everything a batch ridge
//! fit needs from the data adds up over rows, so a fit can read its data
//! in chunks (memory `O(n² + n·M)` plus one chunk, whatever the number of
//! rows), take rows from several sources, or combine the partial sums of
//! several processes (an allreduce is [`GramAccumulator::merge`]).
//!
//! ```
//! use linalg_core::ridge::{ridge_solve, GramAccumulator};
//! use ndarray::{array, s};
//! let a = array![[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0], [1.0, 0.5]];
//! let y = array![[1.0], [2.0], [0.5], [1.5], [0.0]];
//! let mut acc = GramAccumulator::new(2, 1);
//! acc.add(a.slice(s![..2, ..]), y.slice(s![..2, ..]))?;
//! acc.add(a.slice(s![2.., ..]), y.slice(s![2.., ..]))?;
//! assert_eq!(acc.rows(), 5);
//! let w = acc.solve(1e-3)?.weights;
//! let w1 = ridge_solve(a.view(), y.view(), 1e-3)?.weights;
//! assert!(w.iter().zip(&w1).all(|(p, q)| (p - q).abs() < 1e-12));
//! # Ok::<(), linalg_core::Error>(())
//! ```

use ndarray::{Array2, ArrayView2};

use super::batch::{cholesky_solve, with_stored};
use super::{RidgeSolution, Strategy};
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, Op, Owned, Tri};
use crate::validate;

/// `AᵀA` (upper triangle) and `AᵀY` summed over the chunks of rows added.
#[derive(Clone, Debug)]
pub struct GramAccumulator {
    gram: Owned,
    rhs: Owned,
    rows: usize,
    flops: u64,
}

impl GramAccumulator {
    /// Empty sums for `n` columns of `A` and `m` targets.
    pub fn new(n: usize, m: usize) -> Self {
        Self {
            gram: Owned::zeros(n, n),
            rhs: Owned::zeros(n, m),
            rows: 0,
            flops: 0,
        }
    }

    /// Sums given as matrices — `gram` = `AᵀA` (n×n; its upper triangle is
    /// read), `rhs` = `AᵀY` (n×M) — over `rows` rows: a saved state restored
    /// ([`gram`](Self::gram), [`rhs`](Self::rhs) and [`rows`](Self::rows)
    /// save it).
    ///
    /// # Errors
    /// [`Error::Shape`] unless `gram` is square with as many rows as `rhs`;
    /// [`Error::NonFinite`] for NaN or ±∞.
    pub fn from_sums(gram: ArrayView2<'_, f64>, rhs: ArrayView2<'_, f64>, rows: usize) -> Result<Self> {
        validate::cols("Gram matrix AᵀA", &gram, gram.nrows())?;
        validate::rows("AᵀY", &rhs, gram.nrows())?;
        validate::finite("Gram matrix AᵀA", &gram)?;
        validate::finite("AᵀY", &rhs)?;
        Ok(Self::from_owned(Owned::from_view(gram), Owned::from_view(rhs), rows))
    }

    /// The accumulator of the sums given (shapes already agreeing).
    pub(super) fn from_owned(gram: Owned, rhs: Owned, rows: usize) -> Self {
        Self {
            gram,
            rhs,
            rows,
            flops: 0,
        }
    }

    /// [`Error::Empty`] unless rows were added (and `A`, `Y` have columns).
    pub(super) fn check_not_empty(&self) -> Result<()> {
        if self.rows == 0 || self.n() == 0 || self.m() == 0 {
            return Err(Error::Empty {
                what: "accumulated rows of A",
                rows: self.rows,
                cols: self.n(),
            });
        }
        Ok(())
    }

    /// The sums: `AᵀA` (upper triangle), `AᵀY`, rows.
    pub(super) fn sums(&self) -> (&Owned, &Owned, usize) {
        (&self.gram, &self.rhs, self.rows)
    }

    /// Columns of `A`.
    pub fn n(&self) -> usize {
        self.gram.rows()
    }

    /// Targets (columns of `Y`).
    pub fn m(&self) -> usize {
        self.rhs.cols()
    }

    /// Rows added so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Flops of the additions so far (`K·n(n+1)` for the Gram product and
    /// `2·K·n·M` for `AᵀY`, the papers' rule).
    pub fn flops(&self) -> u64 {
        self.flops
    }

    /// Add a chunk: `G += AᵀA` (one DSYRK reading `a` in place when it is
    /// row- or column-major), `B += AᵀY`. A chunk with no rows adds nothing.
    ///
    /// # Errors
    /// [`Error::Shape`] unless `a` has [`n`](Self::n) columns and `y` has
    /// [`m`](Self::m) columns and as many rows as `a`;
    /// [`Error::NonFinite`] for NaN or ±∞ in either. On error nothing is
    /// added.
    pub fn add(&mut self, a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        validate::cols("chunk of A", &a, self.n())?;
        validate::cols("chunk of Y", &y, self.m())?;
        validate::rows("chunk of Y", &y, a.nrows())?;
        validate::finite("chunk of A", &a)?;
        validate::finite("chunk of Y", &y)?;
        if a.nrows() == 0 {
            return Ok(());
        }
        let mut fl = Flops::default();
        let (gram, rhs) = (&mut self.gram, &mut self.rhs);
        with_stored(a, |a_ref, at_op| {
            kernels::syrk(&mut fl, 1.0, a_ref, at_op, 1.0, gram.as_mut());
            let y_owned = Owned::from_view(y);
            kernels::gemm(&mut fl, 1.0, a_ref, at_op, y_owned.as_ref(), Op::N, 1.0, rhs.as_mut());
        });
        self.rows += a.nrows();
        self.flops += fl.0;
        Ok(())
    }

    /// Add another accumulator's sums (the reduction of partial sums over
    /// shards of rows, e.g. one per process).
    ///
    /// # Errors
    /// [`Error::Shape`] if the two were made for different `n` or `m`.
    pub fn merge(&mut self, other: &GramAccumulator) -> Result<()> {
        if (other.n(), other.m()) != (self.n(), self.m()) {
            return Err(Error::Shape {
                what: "accumulator to merge",
                expected: format!("{} columns of A and {} targets", self.n(), self.m()),
                found: format!("{} and {}", other.n(), other.m()),
            });
        }
        // Upper triangles only: the lower ones are never written.
        for (s, o) in self.gram.data_mut().iter_mut().zip(other.gram.data()) {
            *s += o;
        }
        for (s, o) in self.rhs.data_mut().iter_mut().zip(other.rhs.data()) {
            *s += o;
        }
        self.rows += other.rows;
        self.flops += other.flops;
        Ok(())
    }

    /// Remove another accumulator's sums: what is left are the sums of the
    /// rows not in `part` (in k-fold cross-validation, the training sums of
    /// a fold are the total minus the fold's). Exact up to the rounding of
    /// one subtraction per entry (`ε·(‖G‖ + ‖G_part‖)`).
    ///
    /// # Errors
    /// [`Error::Shape`] if the two were made for different `n` or `m`, or
    /// `part` counts more rows than `self`.
    pub fn subtract(&mut self, part: &GramAccumulator) -> Result<()> {
        if (part.n(), part.m()) != (self.n(), self.m()) || part.rows > self.rows {
            return Err(Error::Shape {
                what: "accumulator to subtract",
                expected: format!(
                    "{} columns of A, {} targets, at most {} rows",
                    self.n(),
                    self.m(),
                    self.rows
                ),
                found: format!("{}, {} and {} rows", part.n(), part.m(), part.rows),
            });
        }
        for (s, o) in self.gram.data_mut().iter_mut().zip(part.gram.data()) {
            *s -= o;
        }
        for (s, o) in self.rhs.data_mut().iter_mut().zip(part.rhs.data()) {
            *s -= o;
        }
        self.rows -= part.rows;
        Ok(())
    }

    /// The ridge solutions of the first `n` columns of `A`, for every `n`
    /// of `sizes`, from one Cholesky factorization: the factor of the
    /// leading `n×n` block of `AᵀA + λI` is the leading block of the
    /// factor, so each size costs only its two triangular solves
    /// (`2n²M` flops). Entry `i` is the `sizes[i]×M` weights.
    ///
    /// # Errors
    /// [`Error::Empty`] if no row was added; [`Error::Shape`] for a size of
    /// 0 or above [`n`](Self::n); [`Error::InvalidLambda`] unless λ > 0 is
    /// finite; [`Error::NotPositiveDefinite`] as [`solve`](Self::solve).
    pub fn solve_prefixes(&self, lambda: f64, sizes: &[usize]) -> Result<Vec<Array2<f64>>> {
        validate::lambda(Strategy::DRdg, lambda)?;
        self.check_not_empty()?;
        if let Some(&bad) = sizes.iter().find(|&&s| s == 0 || s > self.n()) {
            return Err(Error::Shape {
                what: "prefix size",
                expected: format!("1 to {} columns", self.n()),
                found: bad.to_string(),
            });
        }
        let mut fl = Flops::default();
        let mut r = self.gram.clone();
        for i in 0..self.n() {
            r.set(i, i, r.at(i, i) + lambda);
        }
        kernels::potrf(&mut fl, Tri::Upper, r.as_mut()).map_err(|pivot| Error::NotPositiveDefinite {
            strategy: Strategy::DRdg,
            matrix: "AᵀA + λI",
            pivot,
            first_node: 0,
            end_node: self.n(),
            suggestion: "λ is below the rounding of AᵀA on (nearly) collinear columns: use a larger λ",
        })?;
        sizes
            .iter()
            .map(|&size| {
                let mut w = Owned::from_ref(self.rhs.as_ref().sub(0, 0, size, self.m()));
                kernels::potrs_upper(&mut fl, r.as_ref().sub(0, 0, size, size), w.as_mut());
                if !w.data().iter().all(|v| v.is_finite()) {
                    return Err(Error::Breakdown {
                        strategy: Strategy::DRdg,
                        first_node: 0,
                        end_node: size,
                        detail: "non-finite weights",
                    });
                }
                Ok(w.into_array())
            })
            .collect()
    }

    /// Sum the accumulators of every process of `world` (one all-reduce of
    /// `n² + n·M + 1` doubles: the Gram matrix, `AᵀY` and the row count);
    /// afterwards every process holds the sums over all shards and
    /// [`solve`](Self::solve) gives the same weights everywhere. With
    /// [`Local`](crate::collective::Local) nothing changes.
    ///
    /// # Errors
    /// [`Error::Collective`] if the communication failed (the sums are then
    /// unchanged).
    pub fn allreduce(&mut self, world: &dyn crate::collective::Collective) -> Result<()> {
        if world.size() == 1 {
            return Ok(());
        }
        let (g, r) = (self.gram.data().len(), self.rhs.data().len());
        let mut buffer = Vec::with_capacity(g + r + 1);
        buffer.extend_from_slice(self.gram.data());
        buffer.extend_from_slice(self.rhs.data());
        // Row counts are exact in a double up to 2⁵³.
        buffer.push(self.rows as f64);
        world.sum(&mut buffer)?;
        self.gram.data_mut().copy_from_slice(&buffer[..g]);
        self.rhs.data_mut().copy_from_slice(&buffer[g..g + r]);
        self.rows = buffer[g + r] as usize;
        Ok(())
    }

    /// `AᵀA` over all rows added, both triangles.
    pub fn gram(&self) -> Array2<f64> {
        let mut g = self.gram.clone();
        kernels::symmetrize_upper(&mut g.as_mut());
        g.into_array()
    }

    /// `AᵀY` over all rows added.
    pub fn rhs(&self) -> Array2<f64> {
        self.rhs.clone().into_array()
    }

    /// The ridge solution `(AᵀA + λI)⁻¹AᵀY` of all rows added: what
    /// [`ridge_solve`](super::ridge_solve) gives on the stacked chunks (up
    /// to the order of the sums).
    ///
    /// # Errors
    /// [`Error::Empty`] if no row was added, [`Error::InvalidLambda`]
    /// unless λ > 0 is finite, [`Error::NotPositiveDefinite`] as
    /// [`ridge_solve`](super::ridge_solve).
    pub fn solve(&self, lambda: f64) -> Result<RidgeSolution> {
        validate::lambda(Strategy::DRdg, lambda)?;
        self.check_not_empty()?;
        let mut r = self.gram.clone();
        for i in 0..self.n() {
            r.set(i, i, r.at(i, i) + lambda);
        }
        cholesky_solve(Flops::default(), r, self.rhs.clone(), "AᵀA + λI")
    }
}
