//! The fitted ELM: a random hidden layer and its output weights.

use linalg_core::sparse::Samples;
use ndarray::{Array2, ArrayView1, ArrayView2, Axis};
use serde::{Deserialize, Serialize};

use super::hidden::HiddenLayer;
use super::params::ElmValidParams;
use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::readout::ReadoutSolver;
use crate::traits::{Dataset, Fit, Predict};
use crate::validate;

/// A fitted extreme learning machine: `ŷ(x) = h(x)ᵀ W` with `h` a
/// [`HiddenLayer`] and `W` (l×M) the output weights (Zhu & Wei's eqs. (1)–(2),
/// transposed: samples are rows here).
///
/// ```
/// use models::prelude::*;
/// use models::{Activation, ElmParams};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((40, 1), |(i, _)| i as f64 / 20.0 - 1.0);
/// let y = x.mapv(|v| v * v);
/// let elm = ElmParams::new(20, Activation::Sigmoid).with_lambda(1e-6).fit(&Dataset::new(x.view(), y.view()))?;
/// let pred = elm.predict(x.view())?;
/// let mse = (&pred - &y).mapv(|e| e * e).mean().unwrap_or(f64::NAN);
/// assert!(mse < 1e-3);
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ElmData")]
pub struct Elm {
    hidden: HiddenLayer,
    output_weights: Array2<f64>,
    lambda: f64,
    solver: ReadoutSolver,
}

impl Elm {
    /// An ELM from its parts: a hidden layer of `l` nodes and output weights
    /// (l×M). `lambda` and `solver` are recorded as how the weights were
    /// obtained.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if the weights do not have `l` rows,
    /// [`linalg_core::Error::NonFinite`] if they are not finite.
    pub fn from_parts(
        hidden: HiddenLayer,
        output_weights: Array2<f64>,
        lambda: f64,
        solver: ReadoutSolver,
    ) -> Result<Self> {
        let elm = Self {
            hidden,
            output_weights,
            lambda,
            solver,
        };
        elm.check()?;
        Ok(elm)
    }

    /// Replace the output weights by others of the same shape (the online
    /// updates of [`OnlineFit`](crate::OnlineFit), which check them).
    pub(crate) fn replace_output_weights(&mut self, weights: Array2<f64>) {
        self.output_weights = weights;
    }

    /// An ELM from parts known to be consistent (no check).
    pub(crate) fn from_raw(
        hidden: HiddenLayer,
        output_weights: Array2<f64>,
        lambda: f64,
        solver: ReadoutSolver,
    ) -> Self {
        Self {
            hidden,
            output_weights,
            lambda,
            solver,
        }
    }

    /// Predictions `h(X)ᵀW` (K×M) for samples `x` (K×N), dense or a sparse
    /// [`Csr`](linalg_core::sparse::Csr).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns,
    /// [`linalg_core::Error::NonFinite`] if it holds NaN or ±∞.
    pub fn predict<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        let x = x.into();
        validate::sample_cols("samples X", x, self.n_inputs())?;
        if let Samples::Dense(x) = x {
            validate::finite("samples X", x)?;
        }
        Ok(self.hidden.outputs(x)?.dot(&self.output_weights))
    }

    /// Hidden-layer outputs `A` (K×l) for samples `x` (K×N), dense or sparse.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns.
    pub fn hidden_outputs<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        self.hidden.outputs(x)
    }

    /// The hidden layer.
    pub fn hidden(&self) -> &HiddenLayer {
        &self.hidden
    }

    /// Output weights `W` (l×M).
    pub fn output_weights(&self) -> ArrayView2<'_, f64> {
        self.output_weights.view()
    }

    /// The ridge parameter of the fit (0 for [`ReadoutSolver::Lstsq`]).
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// How the output weights were solved for.
    pub fn solver(&self) -> ReadoutSolver {
        self.solver
    }

    /// The hidden nodes' activation.
    pub fn activation(&self) -> Activation {
        self.hidden.activation()
    }

    /// Number of hidden nodes `l`.
    pub fn nodes(&self) -> usize {
        self.hidden.nodes()
    }

    /// Number of inputs `N`.
    pub fn n_inputs(&self) -> usize {
        self.hidden.n_inputs()
    }

    /// Number of outputs `M`.
    pub fn n_outputs(&self) -> usize {
        self.output_weights.ncols()
    }

    /// The invariants a decoded model must satisfy: a consistent hidden layer,
    /// `l` rows of finite output weights.
    pub(crate) fn check(&self) -> Result<()> {
        self.hidden.check()?;
        if self.output_weights.nrows() != self.hidden.nodes() {
            return Err(linalg_core::Error::Shape {
                what: "output weights",
                expected: format!("{} rows (one per hidden node)", self.hidden.nodes()),
                found: format!("{}×{}", self.output_weights.nrows(), self.output_weights.ncols()),
            }
            .into());
        }
        validate::finite("output weights", self.output_weights.view())
    }
}

/// The serialized form of an [`Elm`], checked by [`Elm::from_parts`] when
/// deserialized (a decoded model always has consistent shapes).
#[derive(Deserialize)]
struct ElmData {
    hidden: HiddenLayer,
    output_weights: Array2<f64>,
    lambda: f64,
    solver: ReadoutSolver,
}

impl TryFrom<ElmData> for Elm {
    type Error = ModelError;
    fn try_from(d: ElmData) -> Result<Self> {
        Elm::from_parts(d.hidden, d.output_weights, d.lambda, d.solver)
    }
}

impl Fit for ElmValidParams {
    type Model = Elm;

    /// Fit an ELM to the samples (K×N, one row per sample) and targets (K×M,
    /// e.g. one-hot class indicators) of `data`: draw the hidden layer
    /// ([`HiddenLayer::random_scaled`] with the seed and the input scale of
    /// `N` inputs), compute the hidden outputs
    /// `A` (K×l) and solve for the output weights with the
    /// [`Readout`](crate::Readout).
    fn fit(&self, data: &Dataset<'_>) -> Result<Elm> {
        data.check()?;
        self.fit_with(data.features().into(), data.targets(), None)
    }
}

impl ElmValidParams {
    /// Fit with a weight `w_k ≥ 0` per sample (scikit-learn's
    /// `sample_weight`): the output weights minimize
    /// `Σ_k w_k ‖y_k − h(x_k)ᵀW‖² + λ‖W‖²`, i.e. the ridge solution
    /// `W = (AᵀDA + λI)⁻¹ AᵀDY` with `D = diag(w)`, got by solving the
    /// unweighted problem on the rows of `A` and `Y` scaled by `√w_k`
    /// (the same [`Readout`](crate::Readout); with the least-squares solver
    /// the minimum-norm weighted least squares). The input scale of the
    /// hidden layer is the weighted one ([`InputScale::factor_weighted`](super::InputScale::factor_weighted)). So integer weights fit
    /// what repeating each row `w_k` times fits, and a weight of 0 what
    /// leaving the row out fits, up to rounding; all weights equal fit what
    /// [`Fit::fit`] does.
    ///
    /// # Errors
    /// As [`Fit::fit`], and [`ModelError::InvalidParameter`] for weights that
    /// are not one per sample, finite and ≥ 0, or are all 0.
    pub fn fit_weighted(&self, data: &Dataset<'_>, weights: ArrayView1<'_, f64>) -> Result<Elm> {
        data.check()?;
        self.fit_with(data.features().into(), data.targets(), Some(weights))
    }

    /// Fit to samples `x` given as a sparse [`Csr`](linalg_core::sparse::Csr)
    /// matrix (or dense: any [`Samples`]) and targets `y` (K×M), each
    /// sample weighted by `weights` when given: the fit of
    /// [`Fit::fit`] and [`fit_weighted`](Self::fit_weighted) on the same
    /// values, with the hidden layer's product `X·W` computed from the
    /// stored entries only (`2·nnz·l` flops instead of `2·K·N·l`). The
    /// input scale's row norms read the stored entries as well.
    ///
    /// ```
    /// use models::{Activation, Csr, ElmParams, ParamGuard};
    /// use ndarray::Array2;
    /// let dense = Array2::from_shape_fn((30, 8), |(i, j)| if (i + j) % 4 == 0 { (i as f64 + 1.0) / 30.0 } else { 0.0 });
    /// let y = dense.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1));
    /// let x = Csr::from_dense(dense.view())?;
    /// let params = ElmParams::new(20, Activation::Sigmoid).with_lambda(1e-3).check()?;
    /// let elm = params.fit_samples((&x).into(), y.view(), None)?;
    /// let (sparse, dense) = (elm.predict(&x)?, elm.predict(dense.view())?);
    /// assert!((&sparse - &dense).iter().all(|d| d.abs() < 1e-9));
    /// # Ok::<(), models::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fit::fit`] and [`fit_weighted`](Self::fit_weighted):
    /// empty or non-finite samples or targets, a target row count other
    /// than `K`, inadmissible weights.
    pub fn fit_samples(
        &self,
        x: Samples<'_>,
        y: ArrayView2<'_, f64>,
        weights: Option<ArrayView1<'_, f64>>,
    ) -> Result<Elm> {
        x.check("samples X")?;
        validate::matrix("targets Y", y)?;
        validate::rows("targets Y", y, x.nrows())?;
        self.fit_with(x, y, weights)
    }

    /// The fit of checked samples `x` and targets `y`.
    fn fit_with(&self, x: Samples<'_>, y: ArrayView2<'_, f64>, weights: Option<ArrayView1<'_, f64>>) -> Result<Elm> {
        if let Some(w) = weights {
            validate::sample_weights(w, x.nrows())?;
        }
        let scale = self.input_scale().factor_of(x, weights);
        let hidden = HiddenLayer::random_scaled(x.ncols(), self.nodes(), self.activation(), self.seed(), scale);
        let mut a = hidden.outputs(x)?;
        let readout = self.readout();
        let output_weights = match weights {
            None => readout.solve(a, y)?,
            Some(w) => {
                let root = w.mapv(f64::sqrt);
                let root = root.view().insert_axis(Axis(1));
                a *= &root;
                let y = &y * &root;
                readout.solve(a, y.view())?
            }
        };
        Ok(Elm::from_raw(
            hidden,
            output_weights,
            readout.fitted_lambda(),
            readout.solver(),
        ))
    }
}

impl Predict for Elm {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Elm::predict(self, x)
    }

    fn n_inputs(&self) -> usize {
        Elm::n_inputs(self)
    }

    fn n_outputs(&self) -> usize {
        Elm::n_outputs(self)
    }
}
