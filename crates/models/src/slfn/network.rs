//! The fitted single-hidden-layer network of Grippo, Manno & Sciandrone:
//! `φ(x) = Σⱼ λⱼ g(wⱼᵀx̃)` with `x̃ = (x, −1)`.

use ndarray::{Array2, ArrayView2, Axis, Slice};
use serde::{Deserialize, Serialize};

use crate::activation::sigmoid;
use crate::error::{ModelError, Result};
use crate::traits::{Persist, Predict};
use crate::validate;

/// A single-hidden-layer network with sigmoid hidden units and linear
/// outputs (the paper's eq. (2), with `M ≥ 1` outputs):
///
/// ```text
/// φ(x) = Σⱼ λⱼ g(wⱼᵀ x̃),    x̃ = (x₁, …, xₙ, −1),    g(t) = 1 / (1 + e⁻ᵗ)
/// ```
///
/// The bias of a hidden unit is the weight of the constant input `−1` (the
/// paper's threshold `θⱼ`: `wⱼᵀx − θⱼ`). Stored as the input weights `W`
/// (N×(n+1), one row per hidden unit, the threshold last) and the output
/// weights `Λ` (N×M, row `j` is unit `j`'s `λⱼ`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SlfnData")]
pub struct Slfn {
    weights: Array2<f64>,
    output_weights: Array2<f64>,
}

impl Slfn {
    /// A network from its input weights `W` (N×(n+1), thresholds last) and
    /// output weights `Λ` (N×M).
    ///
    /// # Errors
    /// [`linalg_core::Error::Empty`] for no hidden unit or no output,
    /// [`linalg_core::Error::Shape`] when `W` has fewer than 2 columns or `Λ`
    /// another number of rows, [`linalg_core::Error::NonFinite`] for
    /// non-finite weights.
    pub fn from_parts(weights: Array2<f64>, output_weights: Array2<f64>) -> Result<Self> {
        let net = Self {
            weights,
            output_weights,
        };
        net.check()?;
        Ok(net)
    }

    pub(crate) fn from_raw(weights: Array2<f64>, output_weights: Array2<f64>) -> Self {
        Self {
            weights,
            output_weights,
        }
    }

    /// The hidden outputs `H` (K×N), `H_pj = g(wⱼᵀx̃_p)`, of samples `x`
    /// (K×n).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `n` columns,
    /// [`linalg_core::Error::NonFinite`] for non-finite samples.
    pub fn hidden_outputs(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        validate::cols("samples X", x, self.n_inputs())?;
        validate::finite("samples X", x)?;
        Ok(hidden_outputs(x, self.weights.view()))
    }

    /// The outputs `φ(x)` (K×M) of samples `x` (K×n).
    ///
    /// # Errors
    /// As [`Self::hidden_outputs`].
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Ok(self.hidden_outputs(x)?.dot(&self.output_weights))
    }

    /// Input weights `W` (N×(n+1)), thresholds in the last column.
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.weights.view()
    }

    /// Output weights `Λ` (N×M).
    pub fn output_weights(&self) -> ArrayView2<'_, f64> {
        self.output_weights.view()
    }

    /// Number of hidden units `N`.
    pub fn hidden(&self) -> usize {
        self.weights.nrows()
    }

    /// Number of inputs `n`.
    pub fn n_inputs(&self) -> usize {
        self.weights.ncols().saturating_sub(1)
    }

    /// Number of outputs `M`.
    pub fn n_outputs(&self) -> usize {
        self.output_weights.ncols()
    }

    pub(crate) fn check(&self) -> Result<()> {
        validate::non_empty("input weights", self.weights.view())?;
        validate::non_empty("output weights", self.output_weights.view())?;
        if self.weights.ncols() < 2 {
            return Err(linalg_core::Error::Shape {
                what: "input weights",
                expected: "at least 2 columns (n ≥ 1 inputs and the threshold)".to_string(),
                found: format!("{}×{}", self.weights.nrows(), self.weights.ncols()),
            }
            .into());
        }
        validate::rows("output weights", self.output_weights.view(), self.weights.nrows())?;
        validate::finite("input weights", self.weights.view())?;
        validate::finite("output weights", self.output_weights.view())
    }
}

/// `H = g(X W_xᵀ − 1 θᵀ)` for `W = [W_x, θ]` (N×(n+1)): one BLAS-3 product
/// and the sigmoid.
pub(crate) fn hidden_outputs(x: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>) -> Array2<f64> {
    let n = x.ncols();
    let wx = w.slice_axis(Axis(1), Slice::from(..n));
    let theta = w.column(n);
    let mut h = x.dot(&wx.t());
    for mut row in h.rows_mut() {
        for (v, t) in row.iter_mut().zip(theta) {
            *v = sigmoid(*v - t);
        }
    }
    h
}

#[derive(Deserialize)]
struct SlfnData {
    weights: Array2<f64>,
    output_weights: Array2<f64>,
}

impl TryFrom<SlfnData> for Slfn {
    type Error = ModelError;
    fn try_from(d: SlfnData) -> Result<Self> {
        Slfn::from_parts(d.weights, d.output_weights)
    }
}

impl Predict for Slfn {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Slfn::predict(self, x)
    }
    fn n_inputs(&self) -> usize {
        Slfn::n_inputs(self)
    }
    fn n_outputs(&self) -> usize {
        Slfn::n_outputs(self)
    }
}

/// The first eight bytes of an SLFN model file.
pub const MAGIC: [u8; 8] = *b"DNNSLFN\0";

/// Saved and loaded through the crate's versioned envelope (format 2: CRC-32
/// checked; the body is the two weight matrices).
impl Persist for Slfn {
    const MAGIC: [u8; 8] = MAGIC;
    const FORMAT_VERSION: u32 = 2;

    fn check_invariants(&self) -> Result<()> {
        self.check()
    }
}
