//! The network: one weight matrix per layer, one column per neuron, and the
//! forward map that keeps every layer's input.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, ShapeBuilder, Slice};
use serde::{Deserialize, Serialize};

use crate::activation::{sigmoid, sigmoid_in_place, Activation};
use crate::error::{ModelError, Result};
use crate::rng::node_stream;
use crate::traits::{Persist, Predict};
use crate::validate;

/// The output layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OutputActivation {
    /// `y = z` (regression; Tomic et al.'s linear toy example).
    Linear,
    /// `y = 1/(1 + e^{−z})` per output (their non-linear toy example).
    Sigmoid,
    /// `y_j = e^{z_j} / Σ_k e^{z_k}` over the outputs of a sample
    /// (classification; their MNIST and Fashion-MNIST networks).
    Softmax,
}

impl OutputActivation {
    /// The name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Sigmoid => "sigmoid",
            Self::Softmax => "softmax",
        }
    }

    /// Apply to the output layer's pre-activations `z` (K×J), in place.
    pub fn apply_inplace(self, z: &mut Array2<f64>) {
        match self {
            Self::Linear => {}
            Self::Sigmoid => sigmoid_all(z.view_mut()),
            Self::Softmax => softmax_rows(z.view_mut()),
        }
    }
}

impl std::str::FromStr for OutputActivation {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "linear" | "identity" => Ok(Self::Linear),
            "sigmoid" | "logistic" => Ok(Self::Sigmoid),
            "softmax" => Ok(Self::Softmax),
            _ => Err(ModelError::InvalidParameter {
                name: "output activation",
                value: s.to_string(),
                reason: "known output activations: linear, sigmoid, softmax",
            }),
        }
    }
}

/// The hidden layers' non-linearity: an element-wise [`Activation`], or the
/// softmax over a layer's neurons, `n_i = e^{z_i} / Σ_k e^{z_k}` per sample
/// (Tomic et al.'s MNIST network has "softmax activation functions", read
/// by their Fig. 6 as the hidden layer's too).
///
/// Softmax is injective only up to a constant added to a sample's
/// pre-activations; BPLS inverts it as it inverts a softmax output (the
/// centred logarithm, see [`BplsValidParams`](super::BplsValidParams)).
/// `From<Activation>` lets every place that takes one take an
/// [`Activation`].
///
/// ```
/// use models::mlp::HiddenActivation;
/// use models::Activation;
/// let h: HiddenActivation = Activation::Tanh.into();
/// assert_eq!(h.name(), "tanh");
/// assert_eq!("softmax".parse::<HiddenActivation>()?, HiddenActivation::Softmax);
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "HiddenWire", into = "HiddenWire")]
pub enum HiddenActivation {
    /// One activation per neuron (sigmoid, tanh or linear: the injective
    /// ones).
    Elementwise(Activation),
    /// The softmax over the layer's neurons, per sample.
    Softmax,
}

impl HiddenActivation {
    /// The name as the command line spells it (`sigmoid`, …, `softmax`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Elementwise(a) => a.name(),
            Self::Softmax => "softmax",
        }
    }

    /// The element-wise activation, if this is one.
    pub fn elementwise(self) -> Option<Activation> {
        match self {
            Self::Elementwise(a) => Some(a),
            Self::Softmax => None,
        }
    }
}

impl From<Activation> for HiddenActivation {
    fn from(a: Activation) -> Self {
        Self::Elementwise(a)
    }
}

impl std::fmt::Display for HiddenActivation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for HiddenActivation {
    type Err = ModelError;
    /// `softmax`, or any name [`Activation`] parses.
    fn from_str(s: &str) -> Result<Self> {
        if s.trim().eq_ignore_ascii_case("softmax") {
            Ok(Self::Softmax)
        } else {
            s.parse::<Activation>().map(Self::Elementwise)
        }
    }
}

/// How a [`HiddenActivation`] is saved: [`Activation`]'s variants in its
/// order, then `softmax`, so that a network saved before the softmax
/// existed (a bare `Activation`, encoded by bincode as its variant index,
/// by JSON as its name) loads unchanged.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename = "Activation", rename_all = "lowercase")]
enum HiddenWire {
    Sigmoid,
    Gaussian,
    Hardlim,
    Triangular,
    Sine,
    Tanh,
    Relu,
    Linear,
    Softmax,
}

impl From<HiddenWire> for HiddenActivation {
    fn from(w: HiddenWire) -> Self {
        let a = match w {
            HiddenWire::Sigmoid => Activation::Sigmoid,
            HiddenWire::Gaussian => Activation::Gaussian,
            HiddenWire::Hardlim => Activation::Hardlim,
            HiddenWire::Triangular => Activation::Triangular,
            HiddenWire::Sine => Activation::Sine,
            HiddenWire::Tanh => Activation::Tanh,
            HiddenWire::Relu => Activation::Relu,
            HiddenWire::Linear => Activation::Linear,
            HiddenWire::Softmax => return Self::Softmax,
        };
        Self::Elementwise(a)
    }
}

impl From<HiddenActivation> for HiddenWire {
    fn from(h: HiddenActivation) -> Self {
        match h {
            HiddenActivation::Softmax => Self::Softmax,
            HiddenActivation::Elementwise(a) => match a {
                Activation::Sigmoid => Self::Sigmoid,
                Activation::Gaussian => Self::Gaussian,
                Activation::Hardlim => Self::Hardlim,
                Activation::Triangular => Self::Triangular,
                Activation::Sine => Self::Sine,
                Activation::Tanh => Self::Tanh,
                Activation::Relu => Self::Relu,
                Activation::Linear => Self::Linear,
            },
        }
    }
}

/// The hidden activations a network of this module may use: the injective
/// ones, whose inverse BPLS needs (sigmoid, tanh, linear), and the softmax.
pub(crate) fn check_hidden(activation: HiddenActivation) -> Result<()> {
    match activation {
        HiddenActivation::Softmax => Ok(()),
        HiddenActivation::Elementwise(a) if a.is_invertible() => Ok(()),
        HiddenActivation::Elementwise(a) => Err(ModelError::InvalidParameter {
            name: "hidden activation",
            value: a.name().to_string(),
            reason: "the hidden layers need an injective activation with an inverse (sigmoid, tanh, linear or softmax)",
        }),
    }
}

/// A fully connected feedforward network (Tomic et al., Fig. 1): `L` hidden
/// layers of an injective activation or the softmax ([`HiddenActivation`]) and an output layer of
/// [`OutputActivation`]. Layer `l` (1-based, `l = 1, …, L+1`) computes
/// `Z_l = [N_{l−1}, 1] W_l` and `N_l = f(Z_l)` with `N_0 = X`.
///
/// `W_l` is `(N_{l−1} + 1) × N_l`: **one column per neuron** — column `i`
/// is the paper's `w_i^{(l)}` of eq. (4) — the bias in the last row (the
/// weight of a constant input 1, the "bias fixed at value 1" of the paper's
/// toy network, given to every layer here).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mlp {
    weights: Vec<Array2<f64>>,
    hidden: HiddenActivation,
    output: OutputActivation,
}

impl Mlp {
    /// A network on `inputs` inputs with hidden widths `hidden_widths` (may
    /// be empty: a single layer) and `outputs` outputs, every weight uniform
    /// on `[−scale, scale)` from `seed` (Tomic et al. draw every weight from
    /// `U[−1, 1]`: `scale = 1`); neuron `i` of layer `l` from its own stream.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for a width, `inputs` or `outputs`
    /// of 0, a scale that is not finite and positive, or a hidden activation
    /// without an inverse.
    pub fn random(
        inputs: usize,
        hidden_widths: &[usize],
        outputs: usize,
        hidden: impl Into<HiddenActivation>,
        output: OutputActivation,
        seed: u64,
        scale: f64,
    ) -> Result<Self> {
        let hidden = hidden.into();
        validate::at_least_one("inputs", inputs, "the network needs at least one input")?;
        validate::at_least_one("outputs", outputs, "the network needs at least one output")?;
        for &w in hidden_widths {
            validate::at_least_one("hidden width", w, "every hidden layer needs at least one neuron")?;
        }
        validate::finite_scalar(
            "scale",
            scale,
            true,
            "the scale of the starting weights must be finite and > 0",
        )?;
        check_hidden(hidden)?;
        let mut weights = Vec::with_capacity(hidden_widths.len() + 1);
        let mut fan_in = inputs;
        for (l, &width) in hidden_widths.iter().chain(std::iter::once(&outputs)).enumerate() {
            let mut w = Array2::zeros((fan_in + 1, width));
            for (i, mut col) in w.columns_mut().into_iter().enumerate() {
                let mut s = node_stream(seed ^ ((l as u64 + 1) << 40), i as u64);
                col.iter_mut().for_each(|v| *v = scale * s.symmetric());
            }
            weights.push(w);
            fan_in = width;
        }
        Ok(Self {
            weights,
            hidden,
            output,
        })
    }

    /// A network from its weights (layer `l`: `(N_{l−1} + 1) × N_l`).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for no layer, a layer whose rows do
    /// not match the previous layer's columns plus the bias row, non-finite
    /// weights, or a hidden activation without an inverse.
    pub fn from_weights(
        weights: Vec<Array2<f64>>,
        hidden: impl Into<HiddenActivation>,
        output: OutputActivation,
    ) -> Result<Self> {
        let net = Self {
            weights,
            hidden: hidden.into(),
            output,
        };
        net.check()?;
        Ok(net)
    }

    fn check(&self) -> Result<()> {
        check_hidden(self.hidden)?;
        let bad = |reason: &'static str, value: String| ModelError::InvalidParameter {
            name: "weights",
            value,
            reason,
        };
        let first = self
            .weights
            .first()
            .ok_or_else(|| bad("the network needs at least one layer", "[]".into()))?;
        let mut fan_in = first.nrows();
        for (l, w) in self.weights.iter().enumerate() {
            if w.nrows() != fan_in || w.nrows() < 2 || w.ncols() == 0 {
                return Err(bad(
                    "layer l must be (N_{l-1} + 1) × N_l: the previous layer's width plus the bias row, at least one neuron",
                    format!("layer {} of shape {}×{}", l + 1, w.nrows(), w.ncols()),
                ));
            }
            if !w.iter().all(|v| v.is_finite()) {
                return Err(bad("every weight must be finite", format!("layer {}", l + 1)));
            }
            fan_in = w.ncols() + 1;
        }
        Ok(())
    }

    /// The weights `W_l` of every layer, one column per neuron, bias last row.
    pub fn weights(&self) -> &[Array2<f64>] {
        &self.weights
    }

    /// The weights, mutable (shapes must be kept).
    pub fn weights_mut(&mut self) -> &mut [Array2<f64>] {
        &mut self.weights
    }

    /// The hidden layers' activation.
    pub fn hidden_activation(&self) -> HiddenActivation {
        self.hidden
    }

    /// The output layer's activation.
    pub fn output_activation(&self) -> OutputActivation {
        self.output
    }

    /// The hidden widths `N_1, …, N_L`.
    pub fn hidden_widths(&self) -> Vec<usize> {
        self.weights[..self.weights.len() - 1]
            .iter()
            .map(Array2::ncols)
            .collect()
    }

    /// Number of weights, biases included.
    pub fn n_weights(&self) -> usize {
        self.weights.iter().map(Array2::len).sum()
    }

    /// The hidden layers' outputs `N_1, …, N_L` for the samples `x`
    /// (K×N_0) and the output layer's pre-activations `Z_{L+1}`: BLAS-3
    /// products over all samples.
    pub(crate) fn forward(&self, x: ArrayView2<'_, f64>) -> (Vec<Array2<f64>>, Array2<f64>) {
        let last = self.weights.len() - 1;
        let mut hidden: Vec<Array2<f64>> = Vec::with_capacity(last);
        for w in &self.weights[..last] {
            let mut z = affine(hidden.last().map_or(x, |h| h.view()), w.view());
            apply_hidden(self.hidden, z.view_mut());
            hidden.push(z);
        }
        let z = affine(hidden.last().map_or(x, |h| h.view()), self.weights[last].view());
        (hidden, z)
    }

    /// The outputs (K×J) for samples `x` (K×N_0), unchecked.
    pub(crate) fn predict_unchecked(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let (_, mut z) = self.forward(x);
        self.output.apply_inplace(&mut z);
        z
    }
}

/// `[A, 1] W` for `W` ((n+1)×m, the bias in the last row) without forming
/// `[A, 1]`: the bias rows, then one GEMM into the contiguous result
/// (ndarray hands only contiguous outputs to BLAS).
pub(crate) fn affine(a: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>) -> Array2<f64> {
    let n = a.ncols();
    // Column-major: OpenBLAS runs MNIST's 60000×784 by 784×50 product at 47
    // GFLOP/s into a row-major result, 72 into a column-major one
    // (`bpls-report`); every consumer reads either layout.
    let mut z = Array2::zeros((a.nrows(), w.ncols()).f());
    for (mut col, &b) in z.columns_mut().into_iter().zip(w.row(n)) {
        col.fill(b);
    }
    general_mat_mul(1.0, &a, &w.slice_axis(Axis(0), Slice::from(..n)), 1.0, &mut z);
    z
}

/// The hidden activation of every entry of `z` (the softmax: of every row),
/// in place.
pub(crate) fn apply_hidden(activation: HiddenActivation, z: ArrayViewMut2<'_, f64>) {
    match activation {
        HiddenActivation::Elementwise(Activation::Sigmoid) => sigmoid_all(z),
        HiddenActivation::Elementwise(Activation::Linear) => {}
        HiddenActivation::Elementwise(other) => {
            let mut z = z;
            z.mapv_inplace(|v| other.value(v));
        }
        HiddenActivation::Softmax => softmax_rows(z),
    }
}

/// `z_ij ← e^{z_ij − max_k z_ik} / Σ_k e^{z_ik − max_k z_ik}`, row by row.
fn softmax_rows(mut z: ArrayViewMut2<'_, f64>) {
    for mut row in z.rows_mut() {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        row.mapv_inplace(|v| {
            let e = (v - max).exp();
            sum += e;
            e
        });
        row.mapv_inplace(|v| v / sum);
    }
}

/// The sigmoid of every entry: the vectorized kernel row by row (rows of a
/// `[N, 1]` buffer are contiguous but not the whole block).
fn sigmoid_all(mut z: ArrayViewMut2<'_, f64>) {
    if let Some(s) = z.as_slice_memory_order_mut() {
        sigmoid_in_place(s);
        return;
    }
    for mut row in z.axis_iter_mut(Axis(0)) {
        match row.as_slice_mut() {
            Some(s) => sigmoid_in_place(s),
            None => row.mapv_inplace(sigmoid),
        }
    }
}

impl Predict for Mlp {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        validate::matrix("samples X", x)?;
        validate::cols("samples X", x, self.n_inputs())?;
        Ok(self.predict_unchecked(x))
    }

    fn n_inputs(&self) -> usize {
        self.weights[0].nrows() - 1
    }

    fn n_outputs(&self) -> usize {
        self.weights.last().map_or(0, Array2::ncols)
    }
}

/// The first eight bytes of a saved [`Mlp`].
pub const MAGIC: [u8; 8] = *b"DNNMLP\0\0";

/// Saved and loaded through the crate's versioned envelope (format 2, as
/// every model of the crate: CRC-32 checked).
impl Persist for Mlp {
    const MAGIC: [u8; 8] = MAGIC;
    const FORMAT_VERSION: u32 = 2;

    fn check_invariants(&self) -> Result<()> {
        self.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A network saved while the hidden activation was a bare
    /// [`Activation`] loads unchanged: every element-wise hidden activation
    /// encodes (bincode, the envelope's) to the same bytes as the
    /// `Activation` it wraps, and the softmax to a new variant index.
    #[test]
    fn hidden_activations_encode_as_the_activation_they_wrap() {
        let config = bincode::config::standard();
        for a in Activation::ALL {
            let old = bincode::serde::encode_to_vec(a, config).expect("encode");
            let new = bincode::serde::encode_to_vec(HiddenActivation::from(a), config).expect("encode");
            assert_eq!(old, new, "{a}");
            let (back, _): (HiddenActivation, usize) = bincode::serde::decode_from_slice(&old, config).expect("decode");
            assert_eq!(back, HiddenActivation::Elementwise(a));
        }
        let soft = bincode::serde::encode_to_vec(HiddenActivation::Softmax, config).expect("encode");
        assert_eq!(soft, vec![Activation::ALL.len() as u8]);
        let (back, _): (HiddenActivation, usize) = bincode::serde::decode_from_slice(&soft, config).expect("decode");
        assert_eq!(back, HiddenActivation::Softmax);
    }
}
