//! Palagi & Seccia's objective (3), `f(w) = (1/P) Σ_p ‖ỹ_p(w) − y_p‖² +
//! ρ‖w‖²`, with a forward pass that keeps the activations and a backward
//! pass that can stop at a layer; all products batched over the samples.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, Slice};

use super::network::layer;
use crate::error::Result;
use crate::validate;

/// The objective (3) on samples `X` (P×n_0) and targets `Y` (P×n_L).
#[derive(Clone, Copy, Debug)]
pub struct Objective3<'a> {
    x: ArrayView2<'a, f64>,
    y: ArrayView2<'a, f64>,
    rho: f64,
}

/// The activations of a forward pass: `activations[ℓ]` is layer `ℓ`'s
/// output (P×n_ℓ; the last is the network's output).
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    /// One matrix per layer.
    pub activations: Vec<Array2<f64>>,
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

    /// `ρ`.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    fn input<'s>(&'s self, fwd: &'s Forward, l: usize) -> ArrayView2<'s, f64> {
        if l == 0 {
            self.x
        } else {
            fwd.activations[l - 1].view()
        }
    }

    /// A full forward pass.
    pub fn forward(&self, weights: &[Array2<f64>]) -> Forward {
        let mut fwd = Forward {
            activations: Vec::with_capacity(weights.len()),
        };
        for (l, w) in weights.iter().enumerate() {
            let a = layer(self.input(&fwd, l), w.view(), l + 1 < weights.len());
            fwd.activations.push(a);
        }
        fwd
    }

    /// Recompute layers `from..L` after a change of their weights, reusing
    /// the stored activations below `from`.
    pub fn forward_from(&self, weights: &[Array2<f64>], fwd: &mut Forward, from: usize) {
        for l in from..weights.len() {
            let a = layer(self.input(fwd, l), weights[l].view(), l + 1 < weights.len());
            fwd.activations[l] = a;
        }
    }

    /// `f(w)` from a forward pass of `weights`.
    pub fn value(&self, weights: &[Array2<f64>], fwd: &Forward) -> f64 {
        let out = fwd.activations.last().map_or(self.x, |a| a.view());
        let p = self.x.nrows() as f64;
        let err: f64 = out.iter().zip(self.y).map(|(a, b)| (a - b) * (a - b)).sum();
        let reg: f64 = weights.iter().flat_map(|w| w.iter()).map(|v| v * v).sum();
        err / p + self.rho * reg
    }

    /// The gradient blocks of layers `down_to..L` into `grads` (shaped as
    /// the weights; blocks below `down_to` are left as they are): the
    /// backward pass stops at layer `down_to`, never propagating below it.
    pub fn gradient(&self, weights: &[Array2<f64>], fwd: &Forward, down_to: usize, grads: &mut [Array2<f64>]) {
        let big_l = weights.len();
        let p = self.x.nrows() as f64;
        let Some(out) = fwd.activations.last() else {
            return;
        };
        // δ_L = (2/P)(A_L − Y).
        let mut delta = out - &self.y;
        delta.mapv_inplace(|v| 2.0 * v / p);
        for l in (down_to..big_l).rev() {
            let a_in = self.input(fwd, l);
            let n = a_in.ncols();
            let w = &weights[l];
            let g = &mut grads[l];
            g.assign(w);
            {
                let mut gx = g.slice_axis_mut(Axis(1), Slice::from(..n));
                general_mat_mul(1.0, &delta.t(), &a_in, 2.0 * self.rho, &mut gx);
            }
            let colsum = delta.sum_axis(Axis(0));
            for (gb, s) in g.column_mut(n).iter_mut().zip(&colsum) {
                *gb = 2.0 * self.rho * *gb + s;
            }
            if l > down_to {
                // δ_{ℓ−1} = (δ_ℓ W_x) ∘ σ'(·), σ' = a(1 − a).
                let wx = w.slice_axis(Axis(1), Slice::from(..n));
                let mut next = delta.dot(&wx);
                ndarray::Zip::from(&mut next)
                    .and(&a_in)
                    .for_each(|d, &a| *d *= a * (1.0 - a));
                delta = next;
            }
        }
    }
}

fn shapes(weights: &[Array2<f64>]) -> Vec<(usize, usize)> {
    weights.iter().map(Array2::dim).collect()
}

/// The objective (3) in all weights, flattened layer by layer (each `W_ℓ`
/// row-major), as an [`optim::Objective`]: the L-BFGS baseline's problem.
#[derive(Clone, Debug)]
pub struct FullObjective<'a> {
    objective: Objective3<'a>,
    shapes: Vec<(usize, usize)>,
    weights: Vec<Array2<f64>>,
    grads: Vec<Array2<f64>>,
}

impl<'a> FullObjective<'a> {
    /// The objective for networks shaped like `like`.
    pub fn new(objective: Objective3<'a>, like: &[Array2<f64>]) -> Self {
        Self {
            objective,
            shapes: shapes(like),
            weights: like.to_vec(),
            grads: like.to_vec(),
        }
    }

    /// The weights flattened as this objective's variables.
    pub fn flatten(weights: &[Array2<f64>]) -> Vec<f64> {
        weights.iter().flat_map(|w| w.iter().copied()).collect()
    }

    /// Write the variables `z` into `weights` (shaped as at construction).
    pub fn unflatten(&self, z: &[f64], weights: &mut [Array2<f64>]) {
        let mut at = 0;
        for (w, &(r, c)) in weights.iter_mut().zip(&self.shapes) {
            for (v, s) in w.iter_mut().zip(&z[at..at + r * c]) {
                *v = *s;
            }
            at += r * c;
        }
    }
}

impl optim::Objective for FullObjective<'_> {
    fn dim(&self) -> usize {
        self.shapes.iter().map(|(r, c)| r * c).sum()
    }
    fn value(&mut self, z: &[f64]) -> f64 {
        let mut w = std::mem::take(&mut self.weights);
        self.unflatten(z, &mut w);
        let fwd = self.objective.forward(&w);
        let v = self.objective.value(&w, &fwd);
        self.weights = w;
        v
    }
    fn gradient(&mut self, z: &[f64], g: &mut [f64]) {
        self.value_and_gradient(z, g);
    }
    fn value_and_gradient(&mut self, z: &[f64], g: &mut [f64]) -> f64 {
        let mut w = std::mem::take(&mut self.weights);
        self.unflatten(z, &mut w);
        let fwd = self.objective.forward(&w);
        let v = self.objective.value(&w, &fwd);
        self.objective.gradient(&w, &fwd, 0, &mut self.grads);
        for (gi, s) in g.iter_mut().zip(self.grads.iter().flat_map(|b| b.iter())) {
            *gi = *s;
        }
        self.weights = w;
        v
    }
}

/// The objective (3) as a function of one layer's block `W_ℓ` (row-major),
/// the other layers fixed: the subproblem of B2LD. The activations below
/// layer `ℓ` are computed once; each evaluation runs the forward pass from
/// `ℓ` up and the backward pass down to `ℓ` only.
#[derive(Clone, Debug)]
pub struct BlockObjective<'a> {
    objective: Objective3<'a>,
    weights: Vec<Array2<f64>>,
    grads: Vec<Array2<f64>>,
    layer: usize,
    fwd: Forward,
}

impl<'a> BlockObjective<'a> {
    /// Layer `layer`'s block of the objective at `weights` (`layer < L`).
    pub fn new(objective: Objective3<'a>, weights: Vec<Array2<f64>>, layer: usize) -> Self {
        let fwd = objective.forward(&weights);
        let grads = weights.clone();
        Self {
            objective,
            weights,
            grads,
            layer,
            fwd,
        }
    }

    /// The layer.
    pub fn layer(&self) -> usize {
        self.layer
    }

    /// All weights, the block as last evaluated.
    pub fn weights(&self) -> &[Array2<f64>] {
        &self.weights
    }

    fn set(&mut self, z: &[f64]) {
        for (v, s) in self.weights[self.layer].iter_mut().zip(z) {
            *v = *s;
        }
        self.objective.forward_from(&self.weights, &mut self.fwd, self.layer);
    }
}

impl optim::Objective for BlockObjective<'_> {
    fn dim(&self) -> usize {
        self.weights[self.layer].len()
    }
    fn value(&mut self, z: &[f64]) -> f64 {
        self.set(z);
        self.objective.value(&self.weights, &self.fwd)
    }
    fn gradient(&mut self, z: &[f64], g: &mut [f64]) {
        self.value_and_gradient(z, g);
    }
    fn value_and_gradient(&mut self, z: &[f64], g: &mut [f64]) -> f64 {
        self.set(z);
        let v = self.objective.value(&self.weights, &self.fwd);
        self.objective
            .gradient(&self.weights, &self.fwd, self.layer, &mut self.grads);
        for (gi, s) in g.iter_mut().zip(self.grads[self.layer].iter()) {
            *gi = *s;
        }
        v
    }
}
