//! The fitted BLS: node maps and output weights, without training data or
//! solver.

use linalg_core::ridge::Strategy;
use linalg_core::sparse::Samples;
use ndarray::{Array2, ArrayView1, ArrayView2, Axis};
use serde::{Deserialize, Serialize};

use super::incremental::{build_initial, build_initial_of, build_weighted};
use super::nodes::Expansion;
use super::params::BlsValidParams;
use crate::error::{ModelError, Result};
use crate::readout::ReadoutSolver;
use crate::traits::{Dataset, Fit, Predict};
use crate::validate;

/// A fitted Broad Learning System: `ŷ(x) = a(x)ᵀ W`, with `a(x)` the
/// expanded input (feature and enhancement nodes, [`Expansion`]) and `W`
/// (nodes×M) the output weights (the BLS paper's eq. (13)). It keeps λ and
/// the [`Strategy`] the weights were computed with.
///
/// Made by [`Fit`] on [`BlsValidParams`] (the initial network only), by
/// [`IncrementalBls::to_bls`](super::IncrementalBls::to_bls) /
/// [`into_bls`](super::IncrementalBls::into_bls) after increments, or by
/// [`Persist::load`](crate::Persist::load).
///
/// ```
/// use models::bls::BlsParams;
/// use models::prelude::*;
/// use ndarray::{Array2, Axis};
/// let x = Array2::from_shape_fn((200, 3), |(i, j)| ((i * 13 + j * 7) % 29) as f64 / 14.0 - 1.0);
/// let y = x.map_axis(Axis(1), |r| (2.0 * r[0]).sin() + r[1] * r[2]).insert_axis(Axis(1));
/// let bls = BlsParams::new(2, 4, 60).with_lambda(1e-6).fit(&Dataset::new(x.view(), y.view()))?;
/// let mse = (&bls.predict(x.view())? - &y).mapv(|e| e * e).mean().unwrap_or(f64::NAN);
/// assert!(mse < 1e-2, "{mse}");
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "BlsData")]
pub struct Bls {
    expansion: Expansion,
    output_weights: Array2<f64>,
    lambda: f64,
    strategy: Strategy,
}

impl Bls {
    /// A model from its parts: node maps and output weights (nodes×M);
    /// `lambda` and `strategy` are recorded as how the weights were obtained.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if the weights do not have one row per node or no
    /// column, [`linalg_core::Error::NonFinite`] if they are not finite.
    pub fn from_parts(
        expansion: Expansion,
        output_weights: Array2<f64>,
        lambda: f64,
        strategy: Strategy,
    ) -> Result<Self> {
        let bls = Self::from_raw(expansion, output_weights, lambda, strategy);
        bls.check()?;
        Ok(bls)
    }

    /// Replace the output weights by others of the same shape (the online
    /// updates of [`OnlineFit`](crate::OnlineFit), which check them).
    pub(crate) fn replace_output_weights(&mut self, weights: Array2<f64>) {
        self.output_weights = weights;
    }

    /// A model from parts known to be consistent (no check).
    pub(crate) fn from_raw(expansion: Expansion, output_weights: Array2<f64>, lambda: f64, strategy: Strategy) -> Self {
        Self {
            expansion,
            output_weights,
            lambda,
            strategy,
        }
    }

    /// Predictions `A(x) W` (K×M) for samples `x` (K×d, dense or a sparse
    /// [`Csr`](linalg_core::sparse::Csr)), accumulated block by block
    /// (eq. (13)).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`], [`linalg_core::Error::Empty`] or
    /// [`linalg_core::Error::NonFinite`] for unusable samples.
    pub fn predict<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        self.expansion.predict(x.into(), self.output_weights.view())
    }

    /// The expanded input matrix `A` (K×nodes) of samples `x` (K×d, dense
    /// or sparse).
    ///
    /// # Errors
    /// As [`predict`](Self::predict).
    pub fn hidden_outputs<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        self.expansion.hidden_outputs(x)
    }

    /// The node maps.
    pub fn expansion(&self) -> &Expansion {
        &self.expansion
    }

    /// Output weights `W` (nodes×M).
    pub fn output_weights(&self) -> ArrayView2<'_, f64> {
        self.output_weights.view()
    }

    /// The ridge parameter the weights were computed with.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The strategy the weights were computed with.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The readout solver the weights were computed with (the strategy).
    pub fn solver(&self) -> ReadoutSolver {
        ReadoutSolver::Strategy(self.strategy)
    }

    /// Total nodes.
    pub fn nodes(&self) -> usize {
        self.expansion.nodes()
    }

    /// Feature nodes.
    pub fn feature_nodes(&self) -> usize {
        self.expansion.feature_nodes()
    }

    /// Enhancement nodes.
    pub fn enhancement_nodes(&self) -> usize {
        self.expansion.enhancement_nodes()
    }

    /// Number of inputs `d`.
    pub fn n_inputs(&self) -> usize {
        self.expansion.n_inputs()
    }

    /// Number of outputs `M`.
    pub fn n_outputs(&self) -> usize {
        self.output_weights.ncols()
    }

    /// The invariants a decoded model must satisfy: consistent maps, one row
    /// of finite output weights per node, at least one output.
    pub(crate) fn check(&self) -> Result<()> {
        self.expansion.check()?;
        let (rows, cols) = self.output_weights.dim();
        if rows != self.expansion.nodes() || cols == 0 {
            return Err(linalg_core::Error::Shape {
                what: "output weights",
                expected: format!("{} rows (one per node) and at least one column", self.expansion.nodes()),
                found: format!("{rows}×{cols}"),
            }
            .into());
        }
        validate::finite("output weights", self.output_weights.view())
    }
}

/// The serialized form of a [`Bls`], checked by [`Bls::from_parts`] when
/// deserialized.
#[derive(Deserialize)]
struct BlsData {
    expansion: Expansion,
    output_weights: Array2<f64>,
    lambda: f64,
    strategy: Strategy,
}

impl TryFrom<BlsData> for Bls {
    type Error = ModelError;
    fn try_from(d: BlsData) -> Result<Self> {
        Bls::from_parts(d.expansion, d.output_weights, d.lambda, d.strategy)
    }
}

impl Fit for BlsValidParams {
    type Model = Bls;

    /// Fit the initial network of these parameters to `data`: exactly
    /// [`IncrementalBls::start`](super::IncrementalBls::start) without
    /// increments, keeping only the maps and the weights (the strategy
    /// recorded is the one the readout grows by: D-Rdg for ridge).
    fn fit(&self, data: &Dataset<'_>) -> Result<Bls> {
        let (expansion, solver, _, _) = build_initial(self, data, false)?;
        let output_weights = solver.weights().as_standard_layout().into_owned();
        Ok(Bls::from_raw(
            expansion,
            output_weights,
            self.lambda(),
            solver.strategy(),
        ))
    }
}

impl BlsValidParams {
    /// Fit with a weight `w_k ≥ 0` per sample (scikit-learn's
    /// `sample_weight`): the rows of weight 0 leave, the sparse
    /// autoencoder's normal equations weight the rest (`A₁ᵀDA₁`, `A₁ᵀDX̃`),
    /// the feature scaling's extremes and the enhancement scale's maximum
    /// run over them, and the output weights are the weighted ridge
    /// solution `W = (AᵀDA + λI)⁻¹AᵀDY` (the unweighted problem on the
    /// rows of `A` and `Y` scaled by `√w_k`). So integer weights fit what
    /// repeating each row `w_k` times fits, up to rounding.
    ///
    /// # Errors
    /// As [`Fit::fit`], and [`ModelError::InvalidParameter`] for weights
    /// that are not one per sample, finite and ≥ 0, or are all 0.
    pub fn fit_weighted(&self, data: &Dataset<'_>, weights: ArrayView1<'_, f64>) -> Result<Bls> {
        data.check()?;
        self.fit_checked(data.features().into(), data.targets(), Some(weights))
    }

    /// Fit to samples `x` given as a sparse [`Csr`](linalg_core::sparse::Csr)
    /// matrix (or dense: any [`Samples`]) and targets `y` (K×M), each
    /// sample weighted by `weights` when given: the fit of [`Fit::fit`]
    /// and [`fit_weighted`](Self::fit_weighted) on the same values. Sparse
    /// samples enter the feature groups only through the products `X̃W_e`,
    /// `X̃β` and the autoencoder's `A1ᵀX`, computed from their stored
    /// entries; every later column (the feature outputs, the enhancement
    /// nodes) is dense.
    ///
    /// ```
    /// use models::{BlsParams, Csr, ParamGuard};
    /// use ndarray::Array2;
    /// let dense = Array2::from_shape_fn((60, 6), |(i, j)| if (i + 2 * j) % 3 == 0 { (i % 7) as f64 / 7.0 } else { 0.0 });
    /// let y = dense.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1));
    /// let x = Csr::from_dense(dense.view())?;
    /// let bls = BlsParams::new(2, 4, 20).with_lambda(1e-3).check()?.fit_samples((&x).into(), y.view(), None)?;
    /// assert_eq!(bls.predict(&x)?.dim(), (60, 1));
    /// # Ok::<(), models::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fit::fit`] and [`fit_weighted`](Self::fit_weighted).
    pub fn fit_samples(
        &self,
        x: Samples<'_>,
        y: ArrayView2<'_, f64>,
        weights: Option<ArrayView1<'_, f64>>,
    ) -> Result<Bls> {
        x.check("samples X")?;
        validate::matrix("targets Y", y)?;
        validate::rows("targets Y", y, x.nrows())?;
        self.fit_checked(x, y, weights)
    }

    /// The fit of checked samples and targets.
    fn fit_checked(&self, x: Samples<'_>, y: ArrayView2<'_, f64>, weights: Option<ArrayView1<'_, f64>>) -> Result<Bls> {
        let Some(weights) = weights else {
            let (expansion, solver, _, _) = build_initial_of(self, x, y, false)?;
            let output_weights = solver.weights().as_standard_layout().into_owned();
            return Ok(Bls::from_raw(
                expansion,
                output_weights,
                self.lambda(),
                solver.strategy(),
            ));
        };
        validate::sample_weights(weights, x.nrows())?;
        let kept: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] > 0.0).collect();
        let (x, y, w) = (
            x.select_rows(&kept)?,
            y.select(Axis(0), &kept),
            weights.select(Axis(0), &kept),
        );
        let (expansion, output_weights, strategy) = build_weighted(self, x.view(), y.view(), w.view())?;
        Ok(Bls::from_raw(expansion, output_weights, self.lambda(), strategy))
    }
}

impl Predict for Bls {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Bls::predict(self, x)
    }

    fn n_inputs(&self) -> usize {
        Bls::n_inputs(self)
    }

    fn n_outputs(&self) -> usize {
        Bls::n_outputs(self)
    }
}
