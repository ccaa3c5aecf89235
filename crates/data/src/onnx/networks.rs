//! The trained networks as ONNX graphs (issue 43): Grippo et al.'s SLFN,
//! Palagi & Seccia's deep network and Tomic et al.'s fully connected
//! network, each a stack of `MatMul`, `Add` and activations written from
//! the layer formulas of [`models::slfn`], [`models::dfnn`] and
//! [`models::mlp`].

use models::dfnn::{Bias, Dfnn};
use models::mlp::{HiddenActivation, Mlp, OutputActivation};
use models::Slfn;
use ndarray::{s, ArrayView2, Axis};

use super::graph::{Attr, ElemType, Graph};
use super::{activation, linear};

/// `x·W + b` for `W` given with one row per input and `b` apart.
fn affine(g: &mut Graph, x: &str, w: ArrayView2<'_, f64>, b: &[f64], elem: ElemType) -> String {
    let prod = linear(g, x, w, elem);
    let bias = g.constant("b", &[b.len()], b, elem);
    g.apply("Add", &[&prod, &bias], &[])
}

/// The SLFN: `h = σ(x·W_xᵀ − θ)` (the threshold `θ`, the weight of a
/// constant input −1, in `W`'s last column), outputs `h·Λ`.
pub(super) fn slfn_graph(g: &mut Graph, x: &str, net: &Slfn, elem: ElemType) -> (String, usize) {
    let w = net.weights();
    let n = net.n_inputs();
    let theta: Vec<f64> = w.column(n).iter().map(|t| -t).collect();
    let z = affine(g, x, w.slice(s![.., ..n]).t(), &theta, elem);
    let h = g.apply("Sigmoid", &[&z], &[]);
    (linear(g, &h, net.output_weights(), elem), net.n_outputs())
}

/// The deep network: layer `ℓ` computes `a·W_xᵀ (+ b)` (`W_ℓ` is
/// `n_ℓ × n_{ℓ−1}`, the bias its extra last column when every layer has
/// one), through the sigmoid in the hidden layers; the last is linear.
pub(super) fn dfnn_graph(g: &mut Graph, x: &str, net: &Dfnn, elem: ElemType) -> (String, usize) {
    let mut a = x.to_string();
    let last = net.weights().len() - 1;
    for (l, w) in net.weights().iter().enumerate() {
        let z = match net.bias() {
            Bias::Every => {
                let n = w.ncols() - 1;
                let b = w.column(n).to_vec();
                affine(g, &a, w.slice(s![.., ..n]).t(), &b, elem)
            }
            Bias::None => linear(g, &a, w.t(), elem),
        };
        a = if l < last { g.apply("Sigmoid", &[&z], &[]) } else { z };
    }
    (a, net.n_outputs())
}

/// Tomic et al.'s network: `Z_l = [N_{l−1}, 1]·W_l` (the bias in `W_l`'s
/// last row), the hidden activation (element-wise, or the softmax over a
/// sample's neurons) in the hidden layers and the output activation last.
pub(super) fn mlp_graph(g: &mut Graph, x: &str, net: &Mlp, elem: ElemType) -> (String, usize) {
    let mut a = x.to_string();
    let last = net.weights().len() - 1;
    let mut width = 0;
    for (l, w) in net.weights().iter().enumerate() {
        let n = w.nrows() - 1;
        let b = w.row(n).to_vec();
        let z = affine(g, &a, w.slice(s![..n, ..]), &b, elem);
        width = w.len_of(Axis(1));
        a = if l < last {
            match net.hidden_activation() {
                HiddenActivation::Elementwise(f) => activation(g, &z, f, elem),
                HiddenActivation::Softmax => g.apply("Softmax", &[&z], &[Attr::Int("axis", 1)]),
            }
        } else {
            match net.output_activation() {
                OutputActivation::Linear => z,
                OutputActivation::Sigmoid => g.apply("Sigmoid", &[&z], &[]),
                OutputActivation::Softmax => g.apply("Softmax", &[&z], &[Attr::Int("axis", 1)]),
            }
        };
    }
    (a, width)
}
