//! Palagi & Seccia's objective (3), `f(w) = (1/P) Σ_p ‖ỹ_p(w) − y_p‖² +
//! ρ‖w‖²`, with a forward pass that keeps the activations and a backward
//! pass that can stop at a layer; all products batched over the samples
//! (BLAS-3), every buffer in a [`Workspace`] allocated once per fit.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, Slice, Zip};

use super::network::layer_into;
use crate::error::Result;
use crate::validate;

/// The objective (3) on samples `X` (P×n_0) and targets `Y` (P×n_L).
#[derive(Clone, Copy, Debug)]
pub struct Objective3<'a> {
    x: ArrayView2<'a, f64>,
    y: ArrayView2<'a, f64>,
    rho: f64,
}

/// The buffers of one forward and one backward pass over `P` samples:
/// each layer's activations and back-propagated errors `δ_ℓ` (P×n_ℓ).
/// Made once per fit ([`Objective3::workspace`]) and reused by every
/// evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Workspace {
    activations: Vec<Array2<f64>>,
    deltas: Vec<Array2<f64>>,
}

impl Workspace {
    /// Layer `ℓ`'s output (P×n_ℓ) as last computed; the last is the
    /// network's output.
    pub fn activations(&self) -> &[Array2<f64>] {
        &self.activations
    }
}

impl<'a> Objective3<'a> {
    /// The objective on `x` and `y` with regularization `ρ ≥ 0`.
    ///
    /// # Errors
    /// The data checks (non-empty, finite, one target row per sample) and
    /// [`crate::ModelError::InvalidParameter`] for `ρ` negative or not
    /// finite.
    pub fn new(x: ArrayView2<'a, f64>, y: ArrayView2<'a, f64>, rho: f64) -> Result<Self> {
        validate::matrix("samples X", x)?;
        validate::matrix("targets Y", y)?;
        validate::rows("targets Y", y, x.nrows())?;
        validate::finite_scalar("rho", rho, false, "ρ must be finite and ≥ 0")?;
        Ok(Self { x, y, rho })
    }

    /// The same objective on rows `range` of the samples (a minibatch:
    /// the mean error over those rows plus the same `ρ‖w‖²`).
    pub(crate) fn rows(&self, range: std::ops::Range<usize>) -> Self {
        let (x, y) = (self.x, self.y);
        Self {
            x: x.slice_axis_move(Axis(0), Slice::from(range.clone())),
            y: y.slice_axis_move(Axis(0), Slice::from(range)),
            rho: self.rho,
        }
    }

    /// `ρ`.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The number of samples `P`.
    pub fn samples(&self) -> usize {
        self.x.nrows()
    }

    /// The samples.
    pub fn x(&self) -> ArrayView2<'a, f64> {
        self.x
    }

    /// The targets.
    pub fn y(&self) -> ArrayView2<'a, f64> {
        self.y
    }

    /// The buffers for networks shaped like `weights` on these samples.
    pub fn workspace(&self, weights: &[Array2<f64>]) -> Workspace {
        let p = self.x.nrows();
        let blank = || weights.iter().map(|w| Array2::zeros((p, w.nrows()))).collect();
        Workspace {
            activations: blank(),
            deltas: blank(),
        }
    }

    /// A full forward pass into `ws`.
    pub fn forward(&self, weights: &[Array2<f64>], ws: &mut Workspace) {
        self.forward_from(weights, ws, 0);
    }

    /// Recompute layers `from..L` after a change of their weights, reusing
    /// the stored activations below `from`.
    pub fn forward_from(&self, weights: &[Array2<f64>], ws: &mut Workspace, from: usize) {
        let last = weights.len() - 1;
        for l in from..weights.len() {
            let (below, here) = ws.activations.split_at_mut(l);
            let input = if l == 0 { self.x } else { below[l - 1].view() };
            layer_into(input, weights[l].view(), l < last, here[0].view_mut());
        }
    }

    /// `f(w)` from a forward pass of `weights` held in `ws`.
    pub fn value(&self, weights: &[Array2<f64>], ws: &Workspace) -> f64 {
        self.mean_error(ws) + self.rho * squared_norm(weights)
    }

    /// `(1/P) Σ_p ‖ỹ_p − y_p‖²` from the output held in `ws`.
    fn mean_error(&self, ws: &Workspace) -> f64 {
        let out = ws.activations.last().map_or(self.x, |a| a.view());
        let err: f64 = Zip::from(&out)
            .and(&self.y)
            .fold(0.0, |acc, a, b| acc + (a - b) * (a - b));
        err / self.x.nrows() as f64
    }

    /// The gradient blocks of layers `down_to..L` into `grads` (shaped as
    /// the weights; blocks below `down_to` are left as they are): the
    /// backward pass stops at layer `down_to`, never propagating below it.
    pub fn gradient(&self, weights: &[Array2<f64>], ws: &mut Workspace, down_to: usize, grads: &mut [Array2<f64>]) {
        self.backward(weights, ws, down_to, |l, gradient| {
            if l >= down_to {
                gradient(&mut grads[l]);
            }
        });
    }

    /// Only block `l` of the gradient into `g`: the errors are propagated
    /// from the output down to layer `l`, the blocks above are not formed.
    pub fn block_gradient(&self, weights: &[Array2<f64>], ws: &mut Workspace, l: usize, g: &mut Array2<f64>) {
        self.backward(weights, ws, l, |k, gradient| {
            if k == l {
                gradient(g);
            }
        });
    }

    /// The backward pass from the output down to layer `down_to`; at each
    /// layer `k` calls `visit(k, form)`, where `form(g)` writes block `k`
    /// of the gradient into `g` (so unwanted blocks cost nothing).
    fn backward(
        &self,
        weights: &[Array2<f64>],
        ws: &mut Workspace,
        down_to: usize,
        mut visit: impl FnMut(usize, &mut dyn FnMut(&mut Array2<f64>)),
    ) {
        let big_l = weights.len();
        let p = self.x.nrows() as f64;
        // δ_L = (2/P)(A_L − Y).
        {
            let (out, delta) = (&ws.activations[big_l - 1], &mut ws.deltas[big_l - 1]);
            Zip::from(&mut *delta)
                .and(out)
                .and(&self.y)
                .for_each(|d, &a, &y| *d = 2.0 * (a - y) / p);
        }
        for l in (down_to..big_l).rev() {
            let a_in = if l == 0 { self.x } else { ws.activations[l - 1].view() };
            let n = a_in.ncols();
            let w = &weights[l];
            let delta = &ws.deltas[l];
            visit(l, &mut |g: &mut Array2<f64>| {
                g.assign(w);
                {
                    let mut gx = g.slice_axis_mut(Axis(1), Slice::from(..n));
                    general_mat_mul(1.0, &delta.t(), &a_in, 2.0 * self.rho, &mut gx);
                }
                if w.ncols() > n {
                    let colsum = delta.sum_axis(Axis(0));
                    for (gb, s) in g.column_mut(n).iter_mut().zip(&colsum) {
                        *gb = 2.0 * self.rho * *gb + s;
                    }
                }
            });
            if l > down_to {
                // δ_{ℓ−1} = (δ_ℓ W_x) ∘ σ'(·), σ' = a(1 − a).
                let wx = w.slice_axis(Axis(1), Slice::from(..n));
                let (lower, upper) = ws.deltas.split_at_mut(l);
                let next = &mut lower[l - 1];
                general_mat_mul(1.0, &upper[0], &wx, 0.0, next);
                Zip::from(next)
                    .and(&ws.activations[l - 1])
                    .for_each(|d, &a| *d *= a * (1.0 - a));
            }
        }
    }
}

/// `‖w‖²` over all blocks.
pub(crate) fn squared_norm(weights: &[Array2<f64>]) -> f64 {
    weights.iter().flat_map(|w| w.iter()).map(|v| v * v).sum()
}

/// Copy a block into a flat vector (row-major).
pub(crate) fn copy_out(w: &Array2<f64>, z: &mut [f64]) {
    for (zi, v) in z.iter_mut().zip(w.iter()) {
        *zi = *v;
    }
}

/// Copy a flat vector (row-major) into a block.
pub(crate) fn copy_in(z: &[f64], w: &mut Array2<f64>) {
    for (v, zi) in w.iter_mut().zip(z) {
        *v = *zi;
    }
}

/// The objective (3) in all weights, flattened layer by layer (each `W_ℓ`
/// row-major), as an [`optim::Objective`]: the L-BFGS baseline's problem.
/// Its buffers are made once, at construction.
#[derive(Clone, Debug)]
pub struct FullObjective<'a> {
    objective: Objective3<'a>,
    weights: Vec<Array2<f64>>,
    grads: Vec<Array2<f64>>,
    ws: Workspace,
}

impl<'a> FullObjective<'a> {
    /// The objective for networks shaped like `like`.
    pub fn new(objective: Objective3<'a>, like: &[Array2<f64>]) -> Self {
        Self {
            ws: objective.workspace(like),
            objective,
            weights: like.to_vec(),
            grads: like.to_vec(),
        }
    }

    /// The weights flattened as this objective's variables.
    pub fn flatten(weights: &[Array2<f64>]) -> Vec<f64> {
        weights.iter().flat_map(|w| w.iter().copied()).collect()
    }

    /// Write the variables `z` into `weights` (shaped as at construction).
    pub fn unflatten(z: &[f64], weights: &mut [Array2<f64>]) {
        let mut at = 0;
        for w in weights.iter_mut() {
            let len = w.len();
            copy_in(&z[at..at + len], w);
            at += len;
        }
    }

    fn set(&mut self, z: &[f64]) -> f64 {
        Self::unflatten(z, &mut self.weights);
        self.objective.forward(&self.weights, &mut self.ws);
        self.objective.value(&self.weights, &self.ws)
    }
}

impl optim::Objective for FullObjective<'_> {
    fn dim(&self) -> usize {
        self.weights.iter().map(Array2::len).sum()
    }
    fn value(&mut self, z: &[f64]) -> f64 {
        self.set(z)
    }
    fn gradient(&mut self, z: &[f64], g: &mut [f64]) {
        self.value_and_gradient(z, g);
    }
    fn value_and_gradient(&mut self, z: &[f64], g: &mut [f64]) -> f64 {
        let v = self.set(z);
        self.objective.gradient(&self.weights, &mut self.ws, 0, &mut self.grads);
        let mut at = 0;
        for b in &self.grads {
            copy_out(b, &mut g[at..at + b.len()]);
            at += b.len();
        }
        v
    }
}

/// The objective (3) as a function of one layer's block `W_ℓ` (row-major),
/// the other layers fixed: the subproblem of B2LD. It works in the
/// caller's weights and workspace, whose activations below layer `ℓ` must
/// be those of the weights; each evaluation runs the forward pass from `ℓ`
/// up and the backward pass down to `ℓ` only.
#[derive(Debug)]
pub struct BlockObjective<'o, 'b> {
    objective: Objective3<'o>,
    weights: &'b mut [Array2<f64>],
    ws: &'b mut Workspace,
    grad: &'b mut Array2<f64>,
    layer: usize,
    /// `ρ‖w‖²` of the fixed blocks.
    fixed_reg: f64,
}

impl<'o, 'b> BlockObjective<'o, 'b> {
    /// Layer `layer`'s block of the objective at `weights` (`layer < L`),
    /// with `ws` holding a forward pass of `weights` at least below
    /// `layer`; `grad` is scratch shaped as `W_layer`.
    pub fn new(
        objective: Objective3<'o>,
        weights: &'b mut [Array2<f64>],
        ws: &'b mut Workspace,
        grad: &'b mut Array2<f64>,
        layer: usize,
    ) -> Self {
        let fixed_reg = weights
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != layer)
            .map(|(_, w)| w.iter().map(|v| v * v).sum::<f64>())
            .sum::<f64>()
            * objective.rho;
        Self {
            objective,
            weights,
            ws,
            grad,
            layer,
            fixed_reg,
        }
    }

    /// The layer.
    pub fn layer(&self) -> usize {
        self.layer
    }

    fn set(&mut self, z: &[f64]) -> f64 {
        copy_in(z, &mut self.weights[self.layer]);
        self.objective.forward_from(self.weights, self.ws, self.layer);
        let own: f64 = z.iter().map(|v| v * v).sum();
        self.objective.mean_error(self.ws) + self.fixed_reg + self.objective.rho * own
    }
}

impl optim::Objective for BlockObjective<'_, '_> {
    fn dim(&self) -> usize {
        self.weights[self.layer].len()
    }
    fn value(&mut self, z: &[f64]) -> f64 {
        self.set(z)
    }
    fn gradient(&mut self, z: &[f64], g: &mut [f64]) {
        self.value_and_gradient(z, g);
    }
    fn value_and_gradient(&mut self, z: &[f64], g: &mut [f64]) -> f64 {
        let v = self.set(z);
        self.objective
            .block_gradient(self.weights, self.ws, self.layer, self.grad);
        copy_out(self.grad, g);
        v
    }
}
