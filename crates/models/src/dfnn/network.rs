//! The network: layer weights and the forward map.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, Slice};
use serde::{Deserialize, Serialize};

use crate::activation::{sigmoid, sigmoid_in_place};
use crate::error::Result;
use crate::rng::node_stream;
use crate::validate;

/// Where the network has bias weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bias {
    /// Every layer has a bias (an extra last column of `W_ℓ`).
    Every,
    /// No layer has one (Palagi & Seccia's counts of variables in their
    /// Table 1 are those of a network without biases, the constant input
    /// column counted among the features).
    None,
}

/// A feedforward network of `L` layers: layer `ℓ` maps `n_{ℓ−1}` inputs to
/// `n_ℓ` outputs through `W_ℓ` (`n_ℓ × n_{ℓ−1}`, or `n_ℓ × (n_{ℓ−1} + 1)`
/// with the bias in the last column); hidden layers apply the sigmoid, the
/// output layer is linear.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dfnn {
    weights: Vec<Array2<f64>>,
    bias: Bias,
}

impl Dfnn {
    /// A network on `inputs` inputs with the layer widths `widths` (the
    /// last is the number of outputs), biases as `bias` says, every weight
    /// uniform on `[−scale, scale)` from `seed` (unit `j` of layer `ℓ` from
    /// its own stream).
    ///
    /// # Errors
    /// [`crate::ModelError::InvalidParameter`] for no layer, a width or
    /// `inputs` of 0, or a scale that is not finite and positive.
    pub fn random(inputs: usize, widths: &[usize], bias: Bias, seed: u64, scale: f64) -> Result<Self> {
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
        let extra = usize::from(bias == Bias::Every);
        let mut fan_in = inputs;
        let mut weights = Vec::with_capacity(widths.len());
        for (l, &width) in widths.iter().enumerate() {
            let mut w = Array2::zeros((width, fan_in + extra));
            for (j, mut row) in w.rows_mut().into_iter().enumerate() {
                let mut s = node_stream(seed ^ ((l as u64 + 1) << 40), j as u64);
                row.iter_mut().for_each(|v| *v = scale * s.symmetric());
            }
            weights.push(w);
            fan_in = width;
        }
        Ok(Self { weights, bias })
    }

    /// The layers' weights `W_ℓ` (bias last).
    pub fn weights(&self) -> &[Array2<f64>] {
        &self.weights
    }

    /// The layers' weights, mutable (shapes must be kept).
    pub fn weights_mut(&mut self) -> &mut [Array2<f64>] {
        &mut self.weights
    }

    /// Where the network has biases.
    pub fn bias(&self) -> Bias {
        self.bias
    }

    /// Number of inputs `n_0`.
    pub fn n_inputs(&self) -> usize {
        self.weights[0].ncols() - usize::from(self.bias == Bias::Every)
    }

    /// The layer widths `n_1, …, n_L`.
    pub fn widths(&self) -> Vec<usize> {
        self.weights.iter().map(Array2::nrows).collect()
    }

    /// Number of outputs `n_L`.
    pub fn n_outputs(&self) -> usize {
        self.weights.last().map_or(0, Array2::nrows)
    }

    /// Number of weights (biases included): the `n` of `ρ = 10⁻³/n`.
    pub fn n_weights(&self) -> usize {
        self.weights.iter().map(Array2::len).sum()
    }

    /// The outputs (K×n_L) for samples `x` (K×n_0).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] when `x` does not fit the first layer,
    /// [`linalg_core::Error::NonFinite`] for non-finite samples.
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        validate::matrix("samples X", x)?;
        validate::cols("samples X", x, self.n_inputs())?;
        let mut a = x.to_owned();
        for (l, w) in self.weights.iter().enumerate() {
            let mut out = Array2::zeros((a.nrows(), w.nrows()));
            layer_into(a.view(), w.view(), l + 1 < self.weights.len(), out.view_mut());
            a = out;
        }
        Ok(a)
    }
}

/// One layer into `out`: `A W_xᵀ` (`+ 1bᵀ` when `W` has one more column
/// than `A`: the caller's shapes say whether there is a bias), through the sigmoid when `hidden`. A BLAS-3 product over all rows.
///
/// The sigmoid is the vectorized [`sigmoid_in_place`] (within `2.2ε` of the
/// exact value, `4ε` of the scalar [`sigmoid`], about 2.9× faster) when `out`
/// is contiguous, as the workspaces' buffers and [`Dfnn::predict`]'s are;
/// the scalar [`sigmoid`] otherwise.
pub(crate) fn layer_into(
    a: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    hidden: bool,
    mut out: ArrayViewMut2<'_, f64>,
) {
    let n = a.ncols();
    let wx = w.slice_axis(Axis(1), Slice::from(..n));
    general_mat_mul(1.0, &a, &wx.t(), 0.0, &mut out);
    if w.ncols() > n {
        let b = w.column(n);
        for mut row in out.rows_mut() {
            for (v, bj) in row.iter_mut().zip(b) {
                *v += bj;
            }
        }
    }
    if hidden {
        // An entry's result does not depend on its position: any memory order.
        match out.as_slice_memory_order_mut() {
            Some(s) => sigmoid_in_place(s),
            None => out.mapv_inplace(sigmoid),
        }
    }
}

/// The first eight bytes of a deep-network model file.
pub const MAGIC: [u8; 8] = *b"DNNDFNN\0";

/// Saved and loaded through the crate's versioned envelope (format 2, as
/// every model of the crate: CRC-32 checked; the body is the layers' weights
/// and where the biases are).
impl crate::traits::Persist for Dfnn {
    const MAGIC: [u8; 8] = MAGIC;
    const FORMAT_VERSION: u32 = 2;

    /// At least one layer, every layer with units, each layer's columns the
    /// previous layer's width (plus its bias), every weight finite.
    fn check_invariants(&self) -> Result<()> {
        let extra = usize::from(self.bias == Bias::Every);
        let shape = |what: &'static str, expected: String, found: String| -> crate::ModelError {
            linalg_core::Error::Shape { what, expected, found }.into()
        };
        if self.weights.is_empty() {
            return Err(shape("layers", "at least one layer".into(), "none".into()));
        }
        let mut fan_in: Option<usize> = None;
        for w in &self.weights {
            validate::non_empty("layer weights", w.view())?;
            let expected = fan_in.map_or(extra + 1, |n| n + extra);
            let fits = match fan_in {
                None => w.ncols() > extra,
                Some(n) => w.ncols() == n + extra,
            };
            if !fits {
                return Err(shape(
                    "layer weights",
                    format!("{expected} columns (the previous layer's width and the bias)"),
                    format!("{}×{}", w.nrows(), w.ncols()),
                ));
            }
            validate::finite("layer weights", w.view())?;
            fan_in = Some(w.nrows());
        }
        Ok(())
    }
}

impl crate::traits::Predict for Dfnn {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Dfnn::predict(self, x)
    }

    fn n_inputs(&self) -> usize {
        Dfnn::n_inputs(self)
    }

    fn n_outputs(&self) -> usize {
        Dfnn::n_outputs(self)
    }
}
