//! The network: layer weights and the forward map.

use ndarray::{Array2, ArrayView2, Axis, Slice};
use serde::{Deserialize, Serialize};

use crate::activation::sigmoid;
use crate::error::Result;
use crate::rng::node_stream;
use crate::validate;

/// A feedforward network of `L` layers: layer `ℓ` maps `n_{ℓ−1}` inputs to
/// `n_ℓ` outputs through `W_ℓ` (`n_ℓ × (n_{ℓ−1} + 1)`, the bias in the
/// last column); hidden layers apply the sigmoid, the output layer is
/// linear.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dfnn {
    weights: Vec<Array2<f64>>,
}

impl Dfnn {
    /// A network on `inputs` inputs with the layer widths `widths` (the
    /// last is the number of outputs), every weight uniform on
    /// `[−scale, scale)` from `seed` (unit `j` of layer `ℓ` from its own
    /// stream).
    ///
    /// # Errors
    /// [`crate::ModelError::InvalidParameter`] for no layer, a width or
    /// `inputs` of 0, or a scale that is not finite and positive.
    pub fn random(inputs: usize, widths: &[usize], seed: u64, scale: f64) -> Result<Self> {
        validate::at_least_one("inputs", inputs, "the network needs at least one input")?;
        validate::at_least_one("layers", widths.len(), "the network needs at least one layer")?;
        for &w in widths {
            validate::at_least_one("width", w, "every layer needs at least one unit")?;
        }
        validate::finite_scalar(
            "scale",
            scale,
            true,
            "the scale of the starting weights must be finite and > 0",
        )?;
        let mut fan_in = inputs;
        let mut weights = Vec::with_capacity(widths.len());
        for (l, &width) in widths.iter().enumerate() {
            let mut w = Array2::zeros((width, fan_in + 1));
            for (j, mut row) in w.rows_mut().into_iter().enumerate() {
                let mut s = node_stream(seed ^ ((l as u64 + 1) << 40), j as u64);
                row.iter_mut().for_each(|v| *v = scale * s.symmetric());
            }
            weights.push(w);
            fan_in = width;
        }
        Ok(Self { weights })
    }

    /// The layers' weights `W_ℓ` (bias last).
    pub fn weights(&self) -> &[Array2<f64>] {
        &self.weights
    }

    /// The layers' weights, mutable (shapes must be kept).
    pub fn weights_mut(&mut self) -> &mut [Array2<f64>] {
        &mut self.weights
    }

    /// Number of inputs `n_0`.
    pub fn n_inputs(&self) -> usize {
        self.weights.first().map_or(0, |w| w.ncols() - 1)
    }

    /// Number of outputs `n_L`.
    pub fn n_outputs(&self) -> usize {
        self.weights.last().map_or(0, Array2::nrows)
    }

    /// Number of weights (biases included).
    pub fn n_weights(&self) -> usize {
        self.weights.iter().map(Array2::len).sum()
    }

    /// The outputs (K×n_L) for samples `x` (K×n_0).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] for the wrong number of columns,
    /// [`linalg_core::Error::NonFinite`] for non-finite samples.
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        validate::cols("samples X", x, self.n_inputs())?;
        validate::finite("samples X", x)?;
        let mut a = x.to_owned();
        for (l, w) in self.weights.iter().enumerate() {
            a = layer(a.view(), w.view(), l + 1 < self.weights.len());
        }
        Ok(a)
    }
}

/// One layer: `A W_xᵀ + 1bᵀ`, through the sigmoid when `hidden`.
pub(crate) fn layer(a: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>, hidden: bool) -> Array2<f64> {
    let n = a.ncols();
    let wx = w.slice_axis(Axis(1), Slice::from(..n));
    let b = w.column(n);
    let mut z = a.dot(&wx.t());
    for mut row in z.rows_mut() {
        for (v, bj) in row.iter_mut().zip(b) {
            *v += bj;
            if hidden {
                *v = sigmoid(*v);
            }
        }
    }
    z
}
