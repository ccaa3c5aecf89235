//! The training error of Grippo, Manno & Sciandrone, eq. (5), and its
//! gradients (9)–(11), with batched (BLAS-3) products.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, Slice};

use crate::error::Result;
use crate::validate;

/// The data and regularization of the error function
///
/// ```text
/// E(λ, w) = ½ Σ_p ‖φ(x_p; λ, w) − y_p‖² + τ_λ/2 ‖λ‖² + τ_w/2 ‖w‖²        (5)
/// ```
///
/// on `P` samples `X` (P×n) with targets `Y` (P×M); `w` includes the
/// thresholds (the weights of the constant input `−1`).
#[derive(Clone, Copy, Debug)]
pub struct ErrorFunction<'a> {
    x: ArrayView2<'a, f64>,
    y: ArrayView2<'a, f64>,
    tau_lambda: f64,
    tau_w: f64,
}

impl<'a> ErrorFunction<'a> {
    /// The error on samples `x` (P×n) and targets `y` (P×M) with
    /// regularization `τ_λ, τ_w ≥ 0`.
    ///
    /// # Errors
    /// The [`Dataset`](crate::Dataset) checks (non-empty, finite, one target
    /// row per sample) and [`crate::ModelError::InvalidParameter`] for a
    /// negative or non-finite `τ`.
    pub fn new(x: ArrayView2<'a, f64>, y: ArrayView2<'a, f64>, tau_lambda: f64, tau_w: f64) -> Result<Self> {
        validate::matrix("samples X", x)?;
        validate::matrix("targets Y", y)?;
        validate::rows("targets Y", y, x.nrows())?;
        validate::finite_scalar("tau_lambda", tau_lambda, false, "τ_λ must be finite and ≥ 0")?;
        validate::finite_scalar("tau_w", tau_w, false, "τ_w must be finite and ≥ 0")?;
        Ok(Self {
            x,
            y,
            tau_lambda,
            tau_w,
        })
    }

    /// The samples `X` (P×n).
    pub fn x(&self) -> ArrayView2<'a, f64> {
        self.x
    }

    /// The targets `Y` (P×M).
    pub fn y(&self) -> ArrayView2<'a, f64> {
        self.y
    }

    /// `τ_λ`.
    pub fn tau_lambda(&self) -> f64 {
        self.tau_lambda
    }

    /// `τ_w`.
    pub fn tau_w(&self) -> f64 {
        self.tau_w
    }

    /// `E(λ, w)` for input weights `w` (N×(n+1)) and output weights `λ`
    /// (N×M).
    pub fn value(&self, w: ArrayView2<'_, f64>, lambda: ArrayView2<'_, f64>) -> f64 {
        let mut work = Work::new(self.x.nrows(), w.nrows(), self.y.ncols());
        self.evaluate(w, lambda, None, &mut work)
    }

    /// `E(λ, w)`, with `∇_w E` (N×(n+1), eqs. (10)–(11)) written into `gw`
    /// and `∇_λ E` (N×M, eq. (9)) into `glambda`.
    pub fn value_and_gradients(
        &self,
        w: ArrayView2<'_, f64>,
        lambda: ArrayView2<'_, f64>,
        gw: ArrayViewMut2<'_, f64>,
        glambda: ArrayViewMut2<'_, f64>,
    ) -> f64 {
        let mut work = Work::new(self.x.nrows(), w.nrows(), self.y.ncols());
        self.evaluate(w, lambda, Some((gw, glambda)), &mut work)
    }

    /// The error with optional gradients, on preallocated buffers:
    /// `H = g(X̃wᵀ)`, `R = HΛ − Y`; `∇_λE = HᵀR + τ_λΛ`;
    /// `D = (RΛᵀ) ∘ H ∘ (1 − H)`, `∇_wE = DᵀX̃ + τ_w w`.
    pub(crate) fn evaluate(
        &self,
        w: ArrayView2<'_, f64>,
        lambda: ArrayView2<'_, f64>,
        grads: Option<(ArrayViewMut2<'_, f64>, ArrayViewMut2<'_, f64>)>,
        work: &mut Work,
    ) -> f64 {
        let n = self.x.ncols();
        let wx = w.slice_axis(Axis(1), Slice::from(..n));
        let theta = w.column(n);
        // H = g(X W_xᵀ − 1θᵀ).
        general_mat_mul(1.0, &self.x, &wx.t(), 0.0, &mut work.h);
        for mut row in work.h.rows_mut() {
            for (v, t) in row.iter_mut().zip(theta) {
                *v = crate::activation::sigmoid(*v - t);
            }
        }
        // R = HΛ − Y.
        work.r.assign(&self.y);
        general_mat_mul(1.0, &work.h, &lambda, -1.0, &mut work.r);
        let sq = |a: ArrayView2<'_, f64>| a.iter().map(|v| v * v).sum::<f64>();
        let value = 0.5 * sq(work.r.view()) + 0.5 * self.tau_lambda * sq(lambda) + 0.5 * self.tau_w * sq(w);
        if let Some((mut gw, mut glambda)) = grads {
            // (9): HᵀR + τ_λ Λ.
            glambda.assign(&lambda);
            general_mat_mul(1.0, &work.h.t(), &work.r, self.tau_lambda, &mut glambda);
            // (10)–(11): D = (RΛᵀ) ∘ g'(·), g' = g(1 − g).
            general_mat_mul(1.0, &work.r, &lambda.t(), 0.0, &mut work.d);
            ndarray::Zip::from(&mut work.d)
                .and(&work.h)
                .for_each(|d, &h| *d *= h * (1.0 - h));
            gw.assign(&w);
            {
                let mut gx = gw.slice_axis_mut(Axis(1), Slice::from(..n));
                general_mat_mul(1.0, &work.d.t(), &self.x, self.tau_w, &mut gx);
            }
            // The threshold's input is −1: −Σ_p D_pj.
            let colsum = work.d.sum_axis(Axis(0));
            let mut gt = gw.column_mut(n);
            for (g, s) in gt.iter_mut().zip(&colsum) {
                *g = self.tau_w * *g - s;
            }
        }
        value
    }
}

/// Buffers of one evaluation: `H` (P×N), `R` (P×M), `D` (P×N).
#[derive(Clone, Debug)]
pub(crate) struct Work {
    h: Array2<f64>,
    r: Array2<f64>,
    d: Array2<f64>,
}

impl Work {
    pub(crate) fn new(p: usize, hidden: usize, m: usize) -> Self {
        Self {
            h: Array2::zeros((p, hidden)),
            r: Array2::zeros((p, m)),
            d: Array2::zeros((p, hidden)),
        }
    }
}

/// The error (5) as an [`optim::Objective`] in all variables
/// `z = (λ, w)` — `Λ` (N×M) then `W` (N×(n+1)), both row-major — for the
/// paper's baseline, L-BFGS on all weights.
#[derive(Clone, Debug)]
pub struct FullObjective<'a> {
    error: ErrorFunction<'a>,
    hidden: usize,
    work: Work,
}

impl<'a> FullObjective<'a> {
    /// The objective of `error` for `hidden` units.
    pub fn new(error: ErrorFunction<'a>, hidden: usize) -> Self {
        let work = Work::new(error.x.nrows(), hidden, error.y.ncols());
        Self { error, hidden, work }
    }

    /// `(N·M, N·(n+1))`: the lengths of the `λ` and `w` parts of `z`.
    pub fn split(&self) -> (usize, usize) {
        (
            self.hidden * self.error.y.ncols(),
            self.hidden * (self.error.x.ncols() + 1),
        )
    }

    fn views<'z>(&self, z: &'z [f64]) -> (ArrayView2<'z, f64>, ArrayView2<'z, f64>) {
        let (nl, _) = self.split();
        let (m, n1) = (self.error.y.ncols(), self.error.x.ncols() + 1);
        let lambda = ArrayView2::from_shape((self.hidden, m), &z[..nl]).expect("split matches the shapes");
        let w = ArrayView2::from_shape((self.hidden, n1), &z[nl..]).expect("split matches the shapes");
        (lambda, w)
    }
}

impl optim::Objective for FullObjective<'_> {
    fn dim(&self) -> usize {
        let (a, b) = self.split();
        a + b
    }
    fn value(&mut self, z: &[f64]) -> f64 {
        let (lambda, w) = self.views(z);
        let error = self.error;
        error.evaluate(w, lambda, None, &mut self.work)
    }
    fn gradient(&mut self, z: &[f64], g: &mut [f64]) {
        self.value_and_gradient(z, g);
    }
    fn value_and_gradient(&mut self, z: &[f64], g: &mut [f64]) -> f64 {
        let (nl, _) = self.split();
        let (m, n1) = (self.error.y.ncols(), self.error.x.ncols() + 1);
        let (lambda, w) = self.views(z);
        let (gl, gw) = g.split_at_mut(nl);
        let glambda = ArrayViewMut2::from_shape((self.hidden, m), gl).expect("split matches the shapes");
        let gw = ArrayViewMut2::from_shape((self.hidden, n1), gw).expect("split matches the shapes");
        let error = self.error;
        error.evaluate(w, lambda, Some((gw, glambda)), &mut self.work)
    }
}
