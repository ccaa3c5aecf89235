//! Samples added and forgotten after a fit (online sequential learning,
//! issue 21 part 2): the ELM's and the BLS's output weights are a ridge
//! readout of fixed hidden outputs, so rows can be added to the fit
//! (OS-ELM's sequential phase, the BLS paper's "increment of input data",
//! scikit-elm's `partial_fit`) or removed from it (scikit-elm's `forget`)
//! **exactly**: the weights afterwards are those of a batch ridge fit on
//! the rows kept, with the same hidden layer.
//!
//! [`OnlineFit`] holds the model and [`OnlineRidge`] — the Cholesky factor
//! of `AᵀA + λI` and the sums `AᵀA`, `AᵀY`, `O(l² + l·M)` memory whatever
//! the number of rows. Adding k rows costs their hidden outputs and a rank-k
//! QR update of the factor (`≈ 3kl² + 2klM` flops); forgetting them a
//! downdate of the sums and a refactorization (`kl² + l³/3`), refused with
//! [`linalg_core::Error::ForgetNotPositiveDefinite`] (nothing changed) when
//! what remains is not positive definite.
//!
//! The hidden layer stays as it was fitted — its input scale and, for the
//! BLS, the node maps' statistics come from the first fit's rows; only the
//! readout follows the rows.
//!
//! ```
//! use models::prelude::*;
//! use models::{Activation, ElmParams, OnlineFit};
//! use ndarray::{s, Array2, Axis};
//! let x = Array2::from_shape_fn((300, 2), |(i, j)| ((i * 7 + j * 3) % 17) as f64 / 17.0);
//! let y = x.map_axis(Axis(1), |r| r[0] * r[1]).insert_axis(Axis(1));
//! let p = ElmParams::new(10, Activation::Sigmoid).with_lambda(1e-2).check()?;
//! // Fit on the first 200 rows, then add the last 100.
//! let first = p.fit(&Dataset::new(x.slice(s![..200, ..]), y.slice(s![..200, ..])))?;
//! let mut online = OnlineFit::new(first, [Ok((x.slice(s![..200, ..]).to_owned(), y.slice(s![..200, ..]).to_owned()))])?;
//! online.partial_fit(x.slice(s![200.., ..]), y.slice(s![200.., ..]))?;
//! // The same weights as a ridge fit of that hidden layer on all 300 rows.
//! let a = online.model().hidden_outputs(x.view())?;
//! let w = linalg_core::ridge::ridge_solve(a.view(), y.view(), 1e-2)?.weights;
//! // κ(AᵀA + λI) ≤ (‖A‖² + λ)/λ ≈ 3·10⁴ here: the two solves agree to ~10⁻¹¹.
//! assert!(online.model().output_weights().iter().zip(&w).all(|(p, q)| (p - q).abs() < 1e-8));
//! # Ok::<(), models::ModelError>(())
//! ```

use linalg_core::ridge::{GramAccumulator, OnlineRidge};
use ndarray::{Array2, ArrayView1, ArrayView2, Axis};
use serde::{Deserialize, Serialize};

use crate::bls::Bls;
use crate::elm::Elm;
use crate::error::{ModelError, Result};
use crate::traits::Chunk;
use crate::validate;

/// A model whose outputs are a ridge readout `ŷ = h(x)ᵀW` of fixed hidden
/// outputs `h(x)`: what [`OnlineFit`] updates.
pub trait LinearReadout: Clone {
    /// The hidden outputs `h(X)` (K×l) of samples `x` (K×N).
    ///
    /// # Errors
    /// For unusable samples (shape, non-finite values).
    fn hidden_outputs(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>>;

    /// Hidden nodes `l` (rows of `W`).
    fn nodes(&self) -> usize;

    /// Outputs `M` (columns of `W`).
    fn n_outputs(&self) -> usize;

    /// The ridge parameter the weights were fitted with (0 for minimum-norm
    /// least squares).
    fn lambda(&self) -> f64;

    /// The output weights `W` (l×M).
    fn output_weights(&self) -> ArrayView2<'_, f64>;

    /// Replace the output weights (l×M, checked finite by the caller).
    fn set_output_weights(&mut self, weights: Array2<f64>);
}

impl LinearReadout for Elm {
    fn hidden_outputs(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Elm::hidden_outputs(self, x)
    }

    fn nodes(&self) -> usize {
        Elm::nodes(self)
    }

    fn n_outputs(&self) -> usize {
        Elm::n_outputs(self)
    }

    fn lambda(&self) -> f64 {
        Elm::lambda(self)
    }

    fn output_weights(&self) -> ArrayView2<'_, f64> {
        Elm::output_weights(self)
    }

    fn set_output_weights(&mut self, weights: Array2<f64>) {
        self.replace_output_weights(weights);
    }
}

impl LinearReadout for Bls {
    fn hidden_outputs(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Bls::hidden_outputs(self, x)
    }

    fn nodes(&self) -> usize {
        Bls::nodes(self)
    }

    fn n_outputs(&self) -> usize {
        Bls::n_outputs(self)
    }

    fn lambda(&self) -> f64 {
        Bls::lambda(self)
    }

    fn output_weights(&self) -> ArrayView2<'_, f64> {
        Bls::output_weights(self)
    }

    fn set_output_weights(&mut self, weights: Array2<f64>) {
        self.replace_output_weights(weights);
    }
}

/// A fitted model and the ridge system of the rows it is fitted on, to
/// which rows can be added ([`partial_fit`](Self::partial_fit)) and from
/// which they can be removed ([`forget`](Self::forget)); see the
/// [module documentation](self).
#[derive(Clone, Debug)]
pub struct OnlineFit<M> {
    model: M,
    ridge: OnlineRidge,
}

impl<M: LinearReadout> OnlineFit<M> {
    /// The model and the rows it was fitted on (in chunks of samples and
    /// targets, read once): the sums `AᵀA`, `AᵀY` of their hidden outputs
    /// are accumulated and the weights re-solved from them (the ridge
    /// solution of those rows with the model's λ: for a model fitted by a
    /// ridge solve on the same rows, the same weights up to rounding).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `lambda` if the model was not
    /// fitted by a ridge solve (λ = 0); the first error a chunk yields;
    /// shape and non-finite errors of the chunks; the solve's errors.
    pub fn new(model: M, chunks: impl IntoIterator<Item = Result<Chunk>>) -> Result<Self> {
        let mut acc = GramAccumulator::new(model.nodes(), model.n_outputs());
        for chunk in chunks {
            let (x, y) = chunk?;
            let a = model.hidden_outputs(x.view())?;
            acc.add(a.view(), y.view())?;
        }
        Self::from_sums(model, &acc)
    }

    /// The model and the sums of its rows' hidden outputs (e.g. saved, or
    /// accumulated by a streamed fit); the weights are re-solved from them.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`linalg_core::Error::Shape`] if the sums
    /// are not for `l` nodes and `M` outputs.
    pub fn from_sums(mut model: M, sums: &GramAccumulator) -> Result<Self> {
        let lambda = model.lambda();
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Err(ModelError::InvalidParameter {
                name: "lambda",
                value: lambda.to_string(),
                reason: "rows can be added to or removed from a ridge fit only (λ > 0); refit with a ridge solver",
            });
        }
        if (sums.n(), sums.m()) != (model.nodes(), model.n_outputs()) {
            return Err(linalg_core::Error::Shape {
                what: "sums of the hidden outputs",
                expected: format!("{} nodes and {} outputs", model.nodes(), model.n_outputs()),
                found: format!("{} and {}", sums.n(), sums.m()),
            }
            .into());
        }
        let ridge = OnlineRidge::from_accumulator(sums, lambda)?;
        model.set_output_weights(ridge.weights()?);
        Ok(Self { model, ridge })
    }

    /// Add the samples `x` (k×N) with targets `y` (k×M) to the fit: their
    /// hidden outputs update the factor (a rank-k update), then the weights
    /// are solved. No rows (k = 0) change nothing.
    ///
    /// # Errors
    /// Shape and non-finite errors of `x` or `y` (nothing changes);
    /// [`linalg_core::Error::Breakdown`] if the new weights overflow (the
    /// rows are then removed again).
    pub fn partial_fit(&mut self, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        if x.nrows() == 0 && y.nrows() == 0 {
            return Ok(());
        }
        let a = self.model.hidden_outputs(x)?;
        self.add_rows(a, y)
    }

    /// [`new`](Self::new) on the rows `x`, `y` with a weight `w_k ≥ 0` per
    /// row (scikit-learn's `sample_weight`): the sums are those of the rows
    /// scaled by `√w_k`, `AᵀDA` and `AᵀDY`, so the weights are the weighted
    /// ridge solution `(AᵀDA + λI)⁻¹AᵀDY` — what
    /// [`ElmValidParams::fit_weighted`](crate::ElmValidParams::fit_weighted)
    /// and [`BlsValidParams::fit_weighted`](crate::BlsValidParams::fit_weighted)
    /// give, up to rounding.
    ///
    /// # Errors
    /// As [`new`](Self::new); [`ModelError::InvalidParameter`] for weights
    /// that are not one per row, finite and ≥ 0, or are all 0.
    pub fn new_weighted(
        model: M,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        weights: ArrayView1<'_, f64>,
    ) -> Result<Self> {
        validate::sample_weights(weights, x.nrows())?;
        let (a, y) = scaled_rows(&model, x, y, weights)?;
        let mut acc = GramAccumulator::new(model.nodes(), model.n_outputs());
        acc.add(a.view(), y.view())?;
        Self::from_sums(model, &acc)
    }

    /// [`partial_fit`](Self::partial_fit) with a weight `w_k ≥ 0` per row:
    /// the rows enter the sums scaled by `√w_k` (integer weights add what
    /// repeating the rows adds; rows of weight 0 add nothing). To
    /// [`forget_weighted`](Self::forget_weighted) them later, give the same
    /// weights.
    ///
    /// # Errors
    /// As [`partial_fit`](Self::partial_fit), and
    /// [`ModelError::InvalidParameter`] for weights that are not one per row,
    /// finite and ≥ 0.
    pub fn partial_fit_weighted(
        &mut self,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        weights: ArrayView1<'_, f64>,
    ) -> Result<()> {
        if !batch_weights(weights, x.nrows())? {
            return Ok(());
        }
        let (a, y) = scaled_rows(&self.model, x, y, weights)?;
        self.add_rows(a, y.view())
    }

    /// [`forget`](Self::forget) of rows added with weights `weights` (the
    /// same ones as when they were added).
    ///
    /// # Errors
    /// As [`forget`](Self::forget) and
    /// [`partial_fit_weighted`](Self::partial_fit_weighted).
    pub fn forget_weighted(
        &mut self,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        weights: ArrayView1<'_, f64>,
    ) -> Result<()> {
        if !batch_weights(weights, x.nrows())? {
            return Ok(());
        }
        let (a, y) = scaled_rows(&self.model, x, y, weights)?;
        self.forget_rows(a, y.view())
    }

    /// Add the hidden outputs `a` of rows with targets `y` to the sums and
    /// re-solve the weights (undone if the solve fails).
    fn add_rows(&mut self, a: Array2<f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        self.ridge.add(a.view(), y)?;
        match self.ridge.weights() {
            Ok(w) => {
                self.model.set_output_weights(w);
                Ok(())
            }
            Err(e) => {
                // Undo: the same rows out again (the sums return to theirs).
                let _ = self.ridge.forget(a.view(), y);
                Err(e.into())
            }
        }
    }

    /// Remove the samples `x` (k×N) with targets `y` (k×M), which must have
    /// been added (by the first fit or [`partial_fit`](Self::partial_fit)).
    ///
    /// # Errors
    /// Shape and non-finite errors; [`linalg_core::Error::Shape`] for more
    /// rows than the fit has; [`linalg_core::Error::ForgetNotPositiveDefinite`]
    /// when what remains is not positive definite in floating point. On
    /// error nothing changes.
    pub fn forget(&mut self, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        if x.nrows() == 0 && y.nrows() == 0 {
            return Ok(());
        }
        let a = self.model.hidden_outputs(x)?;
        self.forget_rows(a, y)
    }

    /// Remove the hidden outputs `a` of rows with targets `y` from the
    /// sums and re-solve the weights (nothing changes on error).
    fn forget_rows(&mut self, a: Array2<f64>, y: ArrayView2<'_, f64>) -> Result<()> {
        let mut next = self.ridge.clone();
        next.forget(a.view(), y)?;
        let w = next.weights()?;
        self.ridge = next;
        self.model.set_output_weights(w);
        Ok(())
    }

    /// Remove the rows of `chunks` (samples and targets, read once), which
    /// must have been added: their sums are accumulated chunk by chunk and
    /// forgotten at once (one refactorization for all of them).
    ///
    /// # Errors
    /// The first error a chunk yields; shape and non-finite errors; as
    /// [`forget`](Self::forget). On error nothing changes.
    pub fn forget_chunks(&mut self, chunks: impl IntoIterator<Item = Result<Chunk>>) -> Result<()> {
        let mut sums = GramAccumulator::new(self.model.nodes(), self.model.n_outputs());
        for chunk in chunks {
            let (x, y) = chunk?;
            if x.nrows() == 0 && y.nrows() == 0 {
                continue;
            }
            sums.add(self.model.hidden_outputs(x.view())?.view(), y.view())?;
        }
        let mut next = self.ridge.clone();
        next.forget_sums(&sums)?;
        let w = next.weights()?;
        self.ridge = next;
        self.model.set_output_weights(w);
        Ok(())
    }

    /// The model with the weights of the rows kept.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, without the sums.
    pub fn into_model(self) -> M {
        self.model
    }

    /// Rows in the fit.
    pub fn rows(&self) -> usize {
        self.ridge.rows()
    }

    /// Flops of the last update of the readout (factor and sums; the hidden
    /// outputs and the solve for the weights not counted).
    pub fn last_flops(&self) -> u64 {
        self.ridge.last_flops()
    }

    /// The sums `AᵀA`, `AᵀY` and the row count of the rows in the fit.
    pub fn sums(&self) -> GramAccumulator {
        self.ridge.accumulator()
    }
}

/// Whether a batch of rows with `weights` adds anything: `false` when every
/// weight is 0 (checked: one per row, finite, ≥ 0).
fn batch_weights(weights: ArrayView1<'_, f64>, rows: usize) -> Result<bool> {
    if weights.len() == rows && weights.iter().all(|&w| w == 0.0) {
        return Ok(false);
    }
    validate::sample_weights(weights, rows)?;
    Ok(true)
}

/// The hidden outputs of `x` and the targets `y`, each row scaled by the
/// square root of its weight.
fn scaled_rows<M: LinearReadout>(
    model: &M,
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    weights: ArrayView1<'_, f64>,
) -> Result<(Array2<f64>, Array2<f64>)> {
    validate::rows("targets Y", y, x.nrows())?;
    validate::finite("targets Y", y)?;
    let mut a = model.hidden_outputs(x)?;
    let root = weights.mapv(f64::sqrt);
    let root = root.view().insert_axis(Axis(1));
    a *= &root;
    Ok((a, &y * &root))
}

/// What an [`OnlineFit`] saves: the model and the sums (the factor is
/// recomputed on load, `l³/3` flops).
#[derive(Serialize, Deserialize)]
struct OnlineData<M> {
    model: M,
    gram: Array2<f64>,
    rhs: Array2<f64>,
    rows: usize,
}

impl<M: LinearReadout + Serialize> Serialize for OnlineFit<M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let sums = self.ridge.accumulator();
        OnlineData {
            model: self.model.clone(),
            gram: sums.gram(),
            rhs: sums.rhs(),
            rows: sums.rows(),
        }
        .serialize(serializer)
    }
}

impl<'de, M: LinearReadout + Deserialize<'de>> Deserialize<'de> for OnlineFit<M> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let data = OnlineData::<M>::deserialize(deserializer)?;
        let sums = GramAccumulator::from_sums(data.gram.view(), data.rhs.view(), data.rows)
            .map_err(serde::de::Error::custom)?;
        OnlineFit::from_sums(data.model, &sums).map_err(serde::de::Error::custom)
    }
}

/// An ELM kept for row updates, saved and loaded through the crate's
/// versioned envelope: the model and the sums `AᵀA`, `AᵀY`, `K` of its rows
/// (loading re-solves the weights from the sums, so they equal the saved
/// ones to rounding).
impl crate::traits::Persist for OnlineFit<Elm> {
    const MAGIC: [u8; 8] = *b"DNNOELM\0";
    const FORMAT_VERSION: u32 = 2;

    fn check_invariants(&self) -> Result<()> {
        self.model.check_invariants()
    }
}

/// A BLS kept for row updates, saved and loaded as
/// [`OnlineFit<Elm>`](OnlineFit) is.
impl crate::traits::Persist for OnlineFit<Bls> {
    const MAGIC: [u8; 8] = *b"DNNOBLS\0";
    const FORMAT_VERSION: u32 = 2;

    fn check_invariants(&self) -> Result<()> {
        self.model.check_invariants()
    }
}
