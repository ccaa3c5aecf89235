//! The random hidden layer of an ELM: `h(x) = f(xᵀW + bᵀ)` with input weights
//! and biases drawn once and never trained.

use std::ops::Range;

// `slice_axis` rather than `s![]`: ndarray 0.17's `s!` expands to
// `#[allow(unsafe_code)]`, which the crate's `forbid(unsafe_code)` rejects.
use linalg_core::sparse::Samples;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, Slice};
use serde::{Deserialize, Serialize};

use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::rng::node_stream;
use crate::validate;

/// A hidden layer of `l` nodes on `N` inputs: input weights `W` (N×l, one
/// column per node), biases `b` (l) and an activation `f`. On `K` samples
/// `X` (K×N, one row per sample) its outputs are
///
/// ```text
/// A = f(X W + 1 bᵀ)        (K×l)
/// ```
///
/// — Zhu & Wei's eq. (5), `H = f(AX + 1ᵀ⊗d)`, transposed (their `A` is our
/// `Wᵀ`, their `d` our `b`).
///
/// [`HiddenLayer::random`] draws every weight and bias i.i.d. uniform on
/// `[−1, 1]`, as MATLAB ELM's `rand*2-1`; [`HiddenLayer::random_scaled`]
/// multiplies the input weights by a scale `s` (uniform on `[−s, s)`; the
/// biases stay on `[−1, 1)`). Every activation, the Gaussian
/// included, acts on the same affine map `xᵀw_j + b_j` (Zhu & Wei's additive
/// form, eq. (1)), so a Gaussian node is `exp(−(xᵀw_j + b_j)²)`, not an RBF
/// centred at a point — the choice that makes all activations share one
/// layer type and one incremental update.
///
/// Node `j`'s parameters come from their own random stream seeded by
/// `(seed, j)` ([`crate::rng::node_stream`]): `w_{1j}, …, w_{Nj}` then `b_j`.
/// A layer grown by [`extend`](Self::extend) is therefore identical to one
/// drawn at its final size.
///
/// ```
/// use models::{elm::HiddenLayer, Activation};
/// let mut grown = HiddenLayer::random(3, 2, Activation::Sigmoid, 7);
/// for _ in 0..8 {
///     grown.extend(1, 7);
/// }
/// assert_eq!(grown, HiddenLayer::random(3, 10, Activation::Sigmoid, 7));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "HiddenLayerData")]
pub struct HiddenLayer {
    weights: Array2<f64>,
    biases: Array1<f64>,
    activation: Activation,
}

impl HiddenLayer {
    /// A layer with the given input weights (N×l), biases (l) and activation.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `biases.len() != weights.ncols()`,
    /// [`linalg_core::Error::NonFinite`] if a weight or bias is not finite.
    pub fn new(weights: Array2<f64>, biases: Array1<f64>, activation: Activation) -> Result<Self> {
        let weights = weights.as_standard_layout().into_owned();
        let layer = Self {
            weights,
            biases,
            activation,
        };
        layer.check()?;
        Ok(layer)
    }

    /// `nodes` random nodes on `n_inputs` inputs, reproducible from `seed`:
    /// weights and biases i.i.d. uniform on `[−1, 1)` (MATLAB ELM's
    /// `rand*2-1`), node `j` drawn from the stream of `(seed, j)`.
    pub fn random(n_inputs: usize, nodes: usize, activation: Activation, seed: u64) -> Self {
        Self::random_scaled(n_inputs, nodes, activation, seed, 1.0)
    }

    /// As [`random`](Self::random), the input weights multiplied by `scale`
    /// (uniform on `[−scale, scale)`; `scale = 1` gives exactly
    /// [`random`](Self::random)'s layer). The biases are not scaled.
    pub fn random_scaled(n_inputs: usize, nodes: usize, activation: Activation, seed: u64, scale: f64) -> Self {
        let (weights, biases) = draw(n_inputs, 0..nodes, seed, scale);
        Self {
            weights,
            biases,
            activation,
        }
    }

    /// Append `more_nodes` random nodes drawn from `seed`. Node `j` (counting
    /// from 0 over the whole layer) gets the parameters it would have in
    /// [`HiddenLayer::random`]`(N, ≥ j+1, f, seed)`, whatever the sizes of the
    /// earlier calls.
    pub fn extend(&mut self, more_nodes: usize, seed: u64) {
        self.extend_scaled(more_nodes, seed, 1.0);
    }

    /// As [`extend`](Self::extend) for a layer drawn by
    /// [`random_scaled`](Self::random_scaled) with `scale`.
    pub fn extend_scaled(&mut self, more_nodes: usize, seed: u64, scale: f64) {
        if more_nodes == 0 {
            return;
        }
        let l = self.nodes();
        let (w, b) = draw(self.n_inputs(), l..l + more_nodes, seed, scale);
        // Row-major like a freshly drawn layer, so that a grown layer and one
        // drawn at once take the same BLAS path (bitwise equal outputs).
        let mut weights = Array2::zeros((self.n_inputs(), l + more_nodes));
        weights.slice_axis_mut(Axis(1), Slice::from(..l)).assign(&self.weights);
        weights.slice_axis_mut(Axis(1), Slice::from(l..)).assign(&w);
        let mut biases = Array1::zeros(l + more_nodes);
        biases.slice_axis_mut(Axis(0), Slice::from(..l)).assign(&self.biases);
        biases.slice_axis_mut(Axis(0), Slice::from(l..)).assign(&b);
        self.weights = weights;
        self.biases = biases;
    }

    /// Keep only the first `nodes` nodes (no effect if the layer has fewer).
    pub fn truncate(&mut self, nodes: usize) {
        if nodes < self.nodes() {
            self.weights = self.weights.slice_axis(Axis(1), Slice::from(..nodes)).to_owned();
            self.biases = self.biases.slice_axis(Axis(0), Slice::from(..nodes)).to_owned();
        }
    }

    /// Number of inputs `N`.
    pub fn n_inputs(&self) -> usize {
        self.weights.nrows()
    }

    /// Number of nodes `l`.
    pub fn nodes(&self) -> usize {
        self.biases.len()
    }

    /// The activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Input weights `W` (N×l, one column per node).
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.weights.view()
    }

    /// Biases `b` (l).
    pub fn biases(&self) -> ArrayView1<'_, f64> {
        self.biases.view()
    }

    /// Hidden outputs `f(XW + 1bᵀ)` (K×l) of the samples `x` (K×N, dense
    /// or a sparse [`Csr`](linalg_core::sparse::Csr)): one product (a DGEMM,
    /// or [`Csr::matmul`](linalg_core::sparse::Csr::matmul)'s `2·nnz·l`
    /// flops), then bias and activation in one (parallel) pass.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns.
    pub fn outputs<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        self.outputs_range(x, 0..self.nodes())
    }

    /// Hidden outputs of the nodes in `nodes` only (K×|nodes|): the new
    /// columns when nodes are appended.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns,
    /// [`ModelError::InvalidParameter`] if the range is not within `0..l`.
    pub fn outputs_range<'s>(&self, x: impl Into<Samples<'s>>, nodes: Range<usize>) -> Result<Array2<f64>> {
        let x = x.into();
        validate::sample_cols("samples X", x, self.n_inputs())?;
        if nodes.start > nodes.end || nodes.end > self.nodes() {
            return Err(ModelError::InvalidParameter {
                name: "nodes",
                value: format!("{nodes:?}"),
                reason: "the node range must lie within 0..(number of nodes)",
            });
        }
        let mut z = x.matmul(self.weights.slice_axis(Axis(1), Slice::from(nodes.clone())))?;
        self.activation
            .apply_with_bias_inplace(&mut z, self.biases.slice_axis(Axis(0), Slice::from(nodes)))?;
        Ok(z)
    }

    /// Shapes agree and every parameter is finite (for layers made by
    /// [`new`](Self::new) or decoded from a file).
    pub(crate) fn check(&self) -> Result<()> {
        if self.biases.len() != self.weights.ncols() {
            return Err(linalg_core::Error::Shape {
                what: "hidden-layer biases",
                expected: format!("{} entries (one per node)", self.weights.ncols()),
                found: format!("{}", self.biases.len()),
            }
            .into());
        }
        validate::finite("hidden-layer weights", self.weights.view())?;
        validate::finite("hidden-layer biases", self.biases.view().insert_axis(Axis(0)))
    }
}

/// The serialized form of a [`HiddenLayer`], checked by [`HiddenLayer::new`]
/// when deserialized (a decoded layer always has consistent shapes).
#[derive(Deserialize)]
struct HiddenLayerData {
    weights: Array2<f64>,
    biases: Array1<f64>,
    activation: Activation,
}

impl TryFrom<HiddenLayerData> for HiddenLayer {
    type Error = ModelError;
    fn try_from(d: HiddenLayerData) -> Result<Self> {
        HiddenLayer::new(d.weights, d.biases, d.activation)
    }
}

/// The input weights (N×|nodes|, times `scale`) and biases of nodes `nodes`
/// drawn from `seed`.
fn draw(n_inputs: usize, nodes: Range<usize>, seed: u64, scale: f64) -> (Array2<f64>, Array1<f64>) {
    let q = nodes.len();
    let mut w = Array2::zeros((n_inputs, q));
    let mut b = Array1::zeros(q);
    for (c, j) in nodes.enumerate() {
        let mut rng = node_stream(seed, j as u64);
        for i in 0..n_inputs {
            w[[i, c]] = scale * rng.symmetric();
        }
        b[c] = rng.symmetric();
    }
    (w, b)
}
