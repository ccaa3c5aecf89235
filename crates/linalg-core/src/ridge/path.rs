//! Ridge solutions for a whole grid of λ from one eigendecomposition, and
//! their leave-one-out errors (PRESS) at the cost of about one more product.
//!
//! With `AᵀA = V S² Vᵀ` (a symmetric eigendecomposition, `V` orthogonal,
//! `S² = diag(s₁², …, sₙ²)`) and `Z = Vᵀ AᵀY`, every ridge solution is
//!
//! ```text
//! W(λ) = V (S² + λI)⁻¹ Z                         (n² M flops per λ)
//! ```
//!
//! and, with `Q = A V` (K×n, formed a panel of rows at a time and never
//! stored whole), the fitted values and the leverages — the
//! diagonal of the hat matrix `A (AᵀA + λI)⁻¹ Aᵀ` — are
//!
//! ```text
//! Ŷ(λ) = Q (S² + λI)⁻¹ Z,      hᵢᵢ(λ) = Σⱼ Qᵢⱼ² / (sⱼ² + λ).
//! ```
//!
//! The leave-one-out residual of sample `i` — its error under the ridge
//! solution fitted on the other `K − 1` samples — is `eᵢ / (1 − hᵢᵢ)`,
//! `eᵢ = yᵢ − ŷᵢ` (the PRESS identity, from the Sherman–Morrison formula for
//! removing one row). So one syrk (`AᵀA`), one n×n eigendecomposition and
//! one K×n×n product (`Q`) serve every λ of a grid, each λ then costing
//! `O(K·n·M)` for its fitted values and `O(K·n)` for its leverages — instead
//! of K refits per λ.

use ndarray::{Array2, ArrayView2};

use super::batch::with_stored;
use super::gram::GramAccumulator;
use super::Strategy;
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, Op, Owned};
use crate::validate;

/// The eigendecomposition `AᵀA = V S² Vᵀ` and `Z = Vᵀ AᵀY`: the ridge
/// weights for any λ by a diagonal scaling and one product.
///
/// ```
/// use linalg_core::ridge::{ridge_solve, RidgePath};
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0]];
/// let y = array![[1.0], [2.0], [0.5], [1.5]];
/// let path = RidgePath::new(a.view(), y.view())?;
/// for lambda in [1e-3, 1.0, 10.0] {
///     let direct = ridge_solve(a.view(), y.view(), lambda)?.weights;
///     let w = path.weights(lambda)?;
///     assert!(w.iter().zip(&direct).all(|(u, v)| (u - v).abs() < 1e-13));
/// }
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RidgePath {
    /// `V` (n×n), eigenvectors as columns.
    vectors: Owned,
    /// `s₁² ≤ … ≤ sₙ²`, ascending (the eigenvalues of `AᵀA` as computed:
    /// the smallest may be slightly negative on rank-deficient `A`).
    values: Vec<f64>,
    /// `Z = Vᵀ AᵀY` (n×M).
    projected: Owned,
    /// A shifted value `sⱼ² + λ` at or below this is rounding, not
    /// information: λ is refused.
    floor: f64,
    /// How the decomposition was computed.
    decomposition: Decomposition,
    flops: u64,
}

/// How a [`RidgePath`] (and [`leave_one_out`]) decomposes the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decomposition {
    /// The eigendecomposition of `AᵀA` (one syrk, `Kn²` flops, and
    /// `dsyevd`): its small eigenvalues are exact only to `n·ε·‖AᵀA‖`, so
    /// λ at or below that is refused.
    Gram,
    /// A QR factorization of `[A | Y]` (streamed Householder blocks,
    /// `2K(n+M)²` flops) and the SVD of its triangle `R = U_R Σ V_Rᵀ`:
    /// `sⱼ = σⱼ` exact to `ε·‖A‖` (the square of `Gram`'s accuracy on
    /// `σⱼ²`), `V = V_R`, `Z = Σ U_Rᵀ (QᵀY)`; λ is refused only at or below
    /// `n⁴ε²·‖A‖²`, where the rounding of `Q = AV` (`n·ε·‖aᵢ‖` per entry)
    /// reaches the leverages. About a third more work than `Gram`.
    Qr,
}

impl RidgePath {
    /// The path of `a` (K×n) and `y` (K×M): one syrk, one product `AᵀY`,
    /// one eigendecomposition (`dsyevd`) and `VᵀAᵀY`, reading `a` in place.
    ///
    /// # Errors
    /// [`Error::Empty`], [`Error::Shape`] or [`Error::NonFinite`] for
    /// unusable inputs; [`Error::Lapack`] if the eigendecomposition does not
    /// converge.
    pub fn new(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<Self> {
        check_inputs(a, y)?;
        let mut sums = GramAccumulator::new(a.ncols(), y.ncols());
        sums.add(a, y)?;
        Self::from_accumulator(&sums)
    }

    /// The path of rows given by their sums `AᵀA`, `AᵀY` (e.g. a streamed
    /// or all-reduced [`GramAccumulator`], or the sums of k − 1 folds).
    ///
    /// # Errors
    /// [`Error::Empty`] if no row was added; [`Error::Lapack`] if the
    /// eigendecomposition does not converge.
    pub fn from_accumulator(sums: &GramAccumulator) -> Result<Self> {
        sums.check_not_empty()?;
        let (gram, rhs, _) = sums.sums();
        let mut fl = Flops::default();
        let mut vectors = gram.clone();
        let values = kernels::syevd(&mut fl, vectors.as_mut()).map_err(|info| Error::Lapack {
            routine: "dsyevd",
            info,
        })?;
        let mut projected = Owned::zeros(sums.n(), sums.m());
        kernels::matmul(
            &mut fl,
            vectors.as_ref(),
            Op::T,
            rhs.as_ref(),
            Op::N,
            projected.as_mut(),
        );
        let top = values.last().copied().unwrap_or(0.0).max(0.0);
        Ok(Self {
            floor: values.len() as f64 * f64::EPSILON * top,
            vectors,
            values,
            projected,
            decomposition: Decomposition::Gram,
            flops: sums.flops() + fl.0,
        })
    }

    /// The path of `a` (K×n) and `y` (K×M) by [`Decomposition::Qr`]:
    /// Householder QR of `[A | Y]` in blocks of rows (DTPQRT), then the SVD
    /// of the leading triangle `R` (DGESDD).
    ///
    /// # Errors
    /// As [`new`](Self::new); [`Error::Lapack`] if the QR or the SVD fails.
    pub fn from_qr(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<Self> {
        check_inputs(a, y)?;
        let ((k, n), m) = (a.dim(), y.ncols());
        let q = n + m;
        let mut fl = Flops::default();
        let lapack = |routine: &'static str| move |info: i32| Error::Lapack { routine, info };
        // R_aug = [R, QᵀY; 0, T] from the rows of [A | Y], a block at a time.
        let mut r_aug = Owned::zeros(q, q);
        let rows = QR_BLOCK_ROWS.max(q).min(k);
        let mut block = Owned::zeros(rows, q);
        for r0 in (0..k).step_by(rows) {
            let b = rows.min(k - r0);
            let mut view = block.as_mut().sub(0, 0, b, q);
            for j in 0..n {
                let col = view.col_mut(j);
                for (i, v) in col.iter_mut().enumerate() {
                    *v = a[[r0 + i, j]];
                }
            }
            for c in 0..m {
                let col = view.col_mut(n + c);
                for (i, v) in col.iter_mut().enumerate() {
                    *v = y[[r0 + i, c]];
                }
            }
            kernels::triangle_qr_update(&mut fl, r_aug.as_mut(), view).map_err(lapack("dtpqrt"))?;
        }
        drop(block);
        let mut r = Owned::zeros(n, n);
        for j in 0..n {
            for i in 0..=j {
                r.set(i, j, r_aug.at(i, j));
            }
        }
        let (sigma, u, vt) = kernels::svd_square(&mut fl, r).map_err(lapack("dgesdd"))?;
        // σ descending → ascending, with V's columns and Z's rows alike.
        let order: Vec<usize> = (0..n).rev().collect();
        let vectors = Owned::from_fn(n, n, |i, j| vt.at(order[j], i));
        let values: Vec<f64> = order.iter().map(|&j| sigma[j] * sigma[j]).collect();
        // Z = Σ U_Rᵀ (QᵀY), QᵀY the top-right block of R_aug.
        let qty = Owned::from_fn(n, m, |i, c| r_aug.at(i, n + c));
        let mut utq = Owned::zeros(n, m);
        kernels::matmul(&mut fl, u.as_ref(), Op::T, qty.as_ref(), Op::N, utq.as_mut());
        let projected = Owned::from_fn(n, m, |j, c| sigma[order[j]] * utq.at(order[j], c));
        let top = values.last().copied().unwrap_or(0.0);
        let nf = n as f64;
        Ok(Self {
            floor: nf.powi(4) * f64::EPSILON * f64::EPSILON * top,
            vectors,
            values,
            projected,
            decomposition: Decomposition::Qr,
            flops: fl.0,
        })
    }

    /// The path of `a`, `y` by `decomposition` ([`new`](Self::new) or
    /// [`from_qr`](Self::from_qr)).
    ///
    /// # Errors
    /// As those.
    pub fn with(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, decomposition: Decomposition) -> Result<Self> {
        match decomposition {
            Decomposition::Gram => Self::new(a, y),
            Decomposition::Qr => Self::from_qr(a, y),
        }
    }

    /// How the path was computed.
    pub fn decomposition(&self) -> Decomposition {
        self.decomposition
    }

    /// Columns `n` of `A`.
    pub fn n(&self) -> usize {
        self.values.len()
    }

    /// Targets `M`.
    pub fn m(&self) -> usize {
        self.projected.cols()
    }

    /// The eigenvalues `sⱼ²` of `AᵀA`, ascending.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.values
    }

    /// `κ₂(AᵀA + λI) = (s²_max + λ)/(s²_min + λ)` (∞ when the denominator
    /// is not positive).
    pub fn condition(&self, lambda: f64) -> f64 {
        let (lo, hi) = self.extremes();
        let den = lo + lambda;
        if den > 0.0 {
            (hi + lambda) / den
        } else {
            f64::INFINITY
        }
    }

    /// Flops spent so far (the sums, the eigendecomposition, `Z`).
    pub fn flops(&self) -> u64 {
        self.flops
    }

    /// `W(λ) = V (S² + λI)⁻¹ Z` (n×M).
    ///
    /// # Errors
    /// [`Error::InvalidLambda`] unless λ > 0 is finite;
    /// [`Error::NotPositiveDefinite`] if `s²_min + λ` is not positive beyond
    /// the rounding of the eigenvalues (`n·ε·s²_max`): λ below the rounding
    /// of `AᵀA` on (nearly) collinear columns.
    pub fn weights(&self, lambda: f64) -> Result<Array2<f64>> {
        let scale = self.inverse_shifted(lambda)?;
        let mut scaled = self.projected.clone();
        for (j, &d) in scale.iter().enumerate() {
            for c in 0..self.m() {
                scaled.set(j, c, scaled.at(j, c) * d);
            }
        }
        let mut w = Owned::zeros(self.n(), self.m());
        let mut fl = Flops::default();
        kernels::matmul(
            &mut fl,
            self.vectors.as_ref(),
            Op::N,
            scaled.as_ref(),
            Op::N,
            w.as_mut(),
        );
        Ok(w.into_array())
    }

    /// `1/(sⱼ² + λ)` for every j, refusing λ that leaves `S² + λI` not
    /// numerically positive definite.
    fn inverse_shifted(&self, lambda: f64) -> Result<Vec<f64>> {
        validate::lambda(Strategy::DRdg, lambda)?;
        let (lo, _) = self.extremes();
        // Gram: the eigenvalues are exact for AᵀA + E, ‖E‖ ≲ n·ε·‖AᵀA‖, so a
        // shifted eigenvalue below that is rounding, not information; Qr:
        // see `Decomposition::Qr`.
        if lo + lambda <= self.floor {
            return Err(Error::NotPositiveDefinite {
                strategy: Strategy::DRdg,
                matrix: "AᵀA + λI",
                pivot: 0,
                first_node: 0,
                end_node: self.n(),
                suggestion: "λ is below the rounding of the decomposition: use a larger λ (or Decomposition::Qr)",
            });
        }
        Ok(self.values.iter().map(|s| 1.0 / (s + lambda)).collect())
    }

    fn extremes(&self) -> (f64, f64) {
        (
            self.values.first().copied().unwrap_or(0.0),
            self.values.last().copied().unwrap_or(0.0),
        )
    }
}

/// The leave-one-out scores of one λ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LooScore {
    /// The ridge parameter.
    pub lambda: f64,
    /// Mean over samples and targets of the squared leave-one-out residual
    /// `(eᵢ/(1 − hᵢᵢ))²`; NaN when λ is refused ([`RidgePath::weights`]'s
    /// errors), ∞ when a leverage rounds to 1.
    pub mse: f64,
    /// Fraction of samples whose leave-one-out prediction
    /// `yᵢ − eᵢ/(1 − hᵢᵢ)` has its largest entry in another column than the
    /// target's largest (meaningful for one-hot targets); NaN when λ is
    /// refused.
    pub class_error: f64,
    /// The largest leverage `maxᵢ hᵢᵢ(λ)`.
    pub max_leverage: f64,
}

/// Leave-one-out scores of the ridge solutions of `a`, `y` for every λ of
/// a grid, and the path that gives their weights.
#[derive(Clone, Debug)]
pub struct LeaveOneOut {
    /// One entry per λ, in the grid's order.
    pub scores: Vec<LooScore>,
    /// The eigendecomposition: [`RidgePath::weights`] at the chosen λ gives
    /// the fit on all samples without another pass over `A`.
    pub path: RidgePath,
    /// Flops of the whole computation (the sums, the eigendecomposition,
    /// `Q = AV`, the fitted values and leverages of every λ).
    pub flops: u64,
}

/// The leave-one-out (PRESS) scores of the ridge solutions of `a` (K×n) and
/// `y` (K×M) for every λ of `lambdas`: one eigendecomposition of `AᵀA`
/// ([`RidgePath`]) and `Q = AV`, formed by row panels, serve the whole
/// grid; sample i's residual is `eᵢ/(1 − hᵢᵢ)` with the leverage
/// `hᵢᵢ = Σⱼ Qᵢⱼ²/(sⱼ² + λ)`.
///
/// When a λ of the grid lies under the floor of the Gram path (`n·ε·‖AᵀA‖`
/// above the smallest eigenvalue, known once `AᵀA` is decomposed), the
/// whole grid is scored by [`Decomposition::Qr`] instead (about a third more
/// work; see [`leave_one_out_with`] to choose). A λ that the path still
/// refuses gets NaN scores instead of an error, so that one too small λ of
/// a grid does not hide the others.
///
/// ```
/// use linalg_core::ridge::{leave_one_out, ridge_solve};
/// use ndarray::{array, Axis};
/// let a = array![[1.0, 2.0], [0.0, 1.0], [3.0, -1.0], [2.0, 2.0], [1.0, 0.5]];
/// let y = array![[1.0], [2.0], [0.5], [1.5], [0.0]];
/// let loo = leave_one_out(a.view(), y.view(), &[0.1])?;
/// // Brute force: refit without each row, predict it.
/// let mut sum = 0.0;
/// for i in 0..5 {
///     let keep: Vec<usize> = (0..5).filter(|&r| r != i).collect();
///     let w = ridge_solve(a.select(Axis(0), &keep).view(), y.select(Axis(0), &keep).view(), 0.1)?.weights;
///     let e = y[[i, 0]] - a.row(i).dot(&w.column(0));
///     sum += e * e;
/// }
/// assert!((loo.scores[0].mse - sum / 5.0).abs() < 1e-12);
/// # Ok::<(), linalg_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Empty`], [`Error::Shape`] or [`Error::NonFinite`] for unusable
/// inputs; [`Error::InvalidLambda`] for a λ of the grid that is not finite
/// and positive; [`Error::Lapack`] if the eigendecomposition fails.
pub fn leave_one_out(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambdas: &[f64]) -> Result<LeaveOneOut> {
    check_lambdas(lambdas)?;
    let gram = RidgePath::new(a, y)?;
    // A λ under the Gram path's floor: the QR path, before the costly Q = AV.
    let path = if lambdas.iter().any(|&l| gram.inverse_shifted(l).is_err()) {
        RidgePath::from_qr(a, y)?
    } else {
        gram
    };
    scores_of(a, y, lambdas, path)
}

/// [`leave_one_out`] by the given [`Decomposition`].
///
/// # Errors
/// As [`leave_one_out`].
pub fn leave_one_out_with(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    lambdas: &[f64],
    decomposition: Decomposition,
) -> Result<LeaveOneOut> {
    check_lambdas(lambdas)?;
    scores_of(a, y, lambdas, RidgePath::with(a, y, decomposition)?)
}

/// The scores of every λ on `path` (of `a`, `y`).
fn scores_of(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, lambdas: &[f64], path: RidgePath) -> Result<LeaveOneOut> {
    let mut scores = Vec::with_capacity(lambdas.len());
    let (path, flops) = loo_residuals(a, y, lambdas, path, |lambda, residuals| {
        scores.push(match residuals {
            Some((r, h)) => summarize(lambda, y, r, h),
            None => LooScore {
                lambda,
                mse: f64::NAN,
                class_error: f64::NAN,
                max_leverage: f64::NAN,
            },
        });
    })?;
    Ok(LeaveOneOut { scores, path, flops })
}

/// Every λ finite and > 0.
fn check_lambdas(lambdas: &[f64]) -> Result<()> {
    lambdas.iter().try_for_each(|&l| validate::lambda(Strategy::DRdg, l))
}

/// The leave-one-out residuals `eᵢ/(1 − hᵢᵢ)` (K×M) and leverages `hᵢᵢ`
/// (K) of the ridge solution of `a`, `y` at one λ by `decomposition` —
/// what [`leave_one_out`] summarizes, sample by sample.
///
/// # Errors
/// As [`leave_one_out`], and as [`RidgePath::weights`] for λ.
pub fn loo_residuals_at(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    lambda: f64,
    decomposition: Decomposition,
) -> Result<(Array2<f64>, Vec<f64>)> {
    check_lambdas(&[lambda])?;
    let mut out = None;
    let path = RidgePath::with(a, y, decomposition)?;
    let (path, _) = loo_residuals(a, y, &[lambda], path, |_, residuals| {
        out = residuals.map(|(r, h)| (r.to_owned(), h.to_vec()));
    })?;
    match out {
        Some(found) => Ok(found),
        // Refused: the same error as the weights give.
        None => path.weights(lambda).map(|_| (Array2::zeros((0, 0)), Vec::new())),
    }
}

/// Rows per block of [`RidgePath::from_qr`]'s streamed QR (as
/// `kernels::tall_svd`'s).
const QR_BLOCK_ROWS: usize = 2048;

/// Rows of `A` per panel of the leave-one-out products: `Q_P = A_P·V` is
/// `LOO_PANEL_ROWS × n` (16 MB at n = 2000), large enough for DGEMM's full
/// rate and small enough to stay out of the way of `A` itself.
const LOO_PANEL_ROWS: usize = 1024;

/// The core of [`leave_one_out`]: for each λ (in order) calls `visit` with
/// the K×M leave-one-out residuals and the K leverages, or `None` if λ is
/// refused.
fn loo_residuals(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    lambdas: &[f64],
    path: RidgePath,
    mut visit: impl FnMut(f64, Option<(ArrayView2<'_, f64>, &[f64])>),
) -> Result<(RidgePath, u64)> {
    let (k, n, m) = (a.nrows(), path.n(), path.m());
    let mut fl = Flops::default();
    // The λ the path accepts, and 1/(s² + λ) for each.
    let accepted: Vec<(usize, Vec<f64>)> = lambdas
        .iter()
        .enumerate()
        .filter_map(|(i, &l)| path.inverse_shifted(l).ok().map(|d| (i, d)))
        .collect();
    let l = accepted.len();
    // C = [D₁Z, …, D_LZ] (n×LM) and W = [1/(s² + λ)] (n×L).
    let mut scaled = Owned::zeros(n, l * m);
    for (slot, (_, d)) in accepted.iter().enumerate() {
        for c in 0..m {
            for (j, &dj) in d.iter().enumerate() {
                scaled.set(j, slot * m + c, path.projected.at(j, c) * dj);
            }
        }
    }
    let weights = Owned::from_fn(n, l, |j, slot| accepted[slot].1[j]);
    // By row panels of A (no K×n matrix is ever formed): Q_P = A_P·V, the
    // fitted values Ŷ_P = Q_P·C and the leverages H_P = (Q_P∘Q_P)·W.
    let mut fitted = Owned::zeros(k, l * m);
    let mut leverage = Owned::zeros(k, l);
    if l > 0 {
        let panel = LOO_PANEL_ROWS.min(k);
        let mut q = Owned::zeros(panel, n);
        with_stored(a, |a_ref, at_op| {
            for r0 in (0..k).step_by(panel) {
                let rows = panel.min(k - r0);
                // A_P: rows r0.. of A, as stored (Aᵀ column-major, or A).
                let (a_p, op) = match at_op {
                    Op::N => (a_ref.sub(0, r0, n, rows), Op::T),
                    Op::T => (a_ref.sub(r0, 0, rows, n), Op::N),
                };
                let mut q_p = q.as_mut().sub(0, 0, rows, n);
                kernels::matmul(&mut fl, a_p, op, path.vectors.as_ref(), Op::N, q_p.rb_mut());
                kernels::matmul(
                    &mut fl,
                    q_p.rb(),
                    Op::N,
                    scaled.as_ref(),
                    Op::N,
                    fitted.as_mut().sub(r0, 0, rows, l * m),
                );
                for j in 0..n {
                    for v in &mut q_p.col_mut(j)[..rows] {
                        *v *= *v;
                    }
                }
                kernels::matmul(
                    &mut fl,
                    q_p.rb(),
                    Op::N,
                    weights.as_ref(),
                    Op::N,
                    leverage.as_mut().sub(r0, 0, rows, l),
                );
            }
        });
        fl.add(k * n);
    }
    let mut residuals = Array2::zeros((k, m));
    let mut slots = accepted.iter().enumerate().peekable();
    for (index, &lambda) in lambdas.iter().enumerate() {
        match slots.peek() {
            Some(&(slot, &(i, _))) if i == index => {
                slots.next();
                let h = leverage.col(slot);
                for row in 0..k {
                    let denominator = 1.0 - h[row];
                    for c in 0..m {
                        residuals[[row, c]] = (y[[row, c]] - fitted.at(row, slot * m + c)) / denominator;
                    }
                }
                fl.add(3 * k * m);
                visit(lambda, Some((residuals.view(), h)));
            }
            _ => visit(lambda, None),
        }
    }
    let flops = path.flops() + fl.0;
    Ok((path, flops))
}

/// The scores of one λ from its residuals and leverages.
fn summarize(lambda: f64, y: ArrayView2<'_, f64>, residuals: ArrayView2<'_, f64>, leverage: &[f64]) -> LooScore {
    let (k, m) = residuals.dim();
    let mse = residuals.iter().map(|r| r * r).sum::<f64>() / (k * m) as f64;
    let wrong = (0..k)
        .filter(|&i| {
            let target = argmax((0..m).map(|c| y[[i, c]]));
            let predicted = argmax((0..m).map(|c| y[[i, c]] - residuals[[i, c]]));
            target != predicted
        })
        .count();
    LooScore {
        lambda,
        mse,
        class_error: wrong as f64 / k as f64,
        max_leverage: leverage.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

use crate::argmax;

/// `A` and `Y` non-empty and finite with as many rows.
fn check_inputs(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
    validate::non_empty("hidden matrix A", &a)?;
    validate::non_empty("targets Y", &y)?;
    validate::rows("targets Y", &y, a.nrows())?;
    validate::finite("hidden matrix A", &a)?;
    validate::finite("targets Y", &y)
}
