//! BPLS: the layer-by-layer least-squares trainer of Tomic et al. (2024),
//! Algorithm 1 (injective problems) and Algorithm 2 (non-injective ones:
//! classification). The reading of the paper is in the [module
//! documentation](super).

use std::fmt;
use std::time::{Duration, Instant};

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, Slice, Zip};

use super::network::{affine, check_hidden, HiddenActivation, Mlp, OutputActivation};
use super::solve::{neuron_map, ridge_with_intercept};
use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::traits::{Dataset, Fit, ParamGuard};
use crate::validate;

/// Which of the paper's two algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BplsAlgorithm {
    /// Algorithm 1: one backward pass of least-squares solves over all
    /// samples (one epoch).
    Injective,
    /// Algorithm 2: a first backward pass that re-estimates every layer's
    /// weights on the updated neuron values (lines 5–9), then passes on the
    /// misclassified samples only, each blended into the weights by the
    /// miss fraction (line 20), while the number of misses decreases, at
    /// most `max_iterations` of them.
    NonInjective {
        /// `τ_max`: the most passes on the misses after the first pass.
        max_iterations: usize,
    },
}

impl fmt::Display for BplsAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Injective => f.write_str("Algorithm 1"),
            Self::NonInjective { max_iterations } => write!(f, "Algorithm 2 (τ_max = {max_iterations})"),
        }
    }
}

/// Validated BPLS hyper-parameters ([`BplsParams::check`](ParamGuard::check)).
#[derive(Clone, Debug, PartialEq)]
pub struct BplsValidParams {
    hidden: Vec<usize>,
    hidden_activation: HiddenActivation,
    output: OutputActivation,
    algorithm: BplsAlgorithm,
    lambda: f64,
    target_ridge: f64,
    clip: f64,
    init_scale: f64,
    seed: u64,
}

/// BPLS hyper-parameters, unchecked: [`BplsParams::new`] then setters, then
/// [`check`](ParamGuard::check) or [`fit`](Fit::fit).
///
/// ```
/// use models::mlp::{BplsAlgorithm, BplsParams, OutputActivation};
/// use models::prelude::*;
/// use ndarray::Array2;
/// // y = 2x − 1 learned by a linear network [x, 1] → 3 → 1 (the paper's linear toy, one output).
/// let x = Array2::from_shape_fn((5, 1), |(i, _)| (2 * i + 1) as f64);
/// let y = x.mapv(|v| 2.0 * v - 1.0);
/// let net = BplsParams::new(vec![3])
///     .with_hidden_activation(models::Activation::Linear)
///     .with_lambda(1e-12)
///     .fit(&Dataset::new(x.view(), y.view()))?;
/// let test = Array2::from_shape_fn((5, 1), |(i, _)| (2 * i + 2) as f64);
/// let p = net.predict(test.view())?;
/// assert!(p.iter().zip(test.iter()).all(|(p, x)| (p - (2.0 * x - 1.0)).abs() < 1e-6));
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct BplsParams(BplsValidParams);

/// The default ridge parameter λ of the weight solves (eq. (6)).
pub const DEFAULT_LAMBDA: f64 = 1e-6;
/// The default relative regularization μ of the neuron-target solves (eq. (5)).
pub const DEFAULT_TARGET_RIDGE: f64 = 1e-6;
/// The default clipping margin δ of the inverse activations.
pub const DEFAULT_CLIP: f64 = 1e-3;
/// `τ_max` of Algorithm 2 by default: 39 passes on the misses after the
/// first pass, at most 40 epochs (the budget of Tomic et al.'s MNIST runs).
pub const DEFAULT_MAX_ITERATIONS: usize = 39;
/// The starting weights' default range `[−INIT_SCALE, INIT_SCALE)`: the
/// paper's `U[−1, 1]` (Algorithms 1 and 2, line 1).
pub const INIT_SCALE: f64 = 1.0;

impl BplsParams {
    /// Hidden widths `N_1, …, N_L` (may be empty: one least-squares layer),
    /// sigmoid hidden layers, a linear output, Algorithm 1, λ = 10⁻⁶,
    /// μ = 10⁻⁶, δ = 10⁻³, starting weights from `U[−1, 1]` (the paper's),
    /// seed 0.
    pub fn new(hidden: Vec<usize>) -> Self {
        Self(BplsValidParams {
            hidden,
            hidden_activation: HiddenActivation::Elementwise(Activation::Sigmoid),
            output: OutputActivation::Linear,
            algorithm: BplsAlgorithm::Injective,
            lambda: DEFAULT_LAMBDA,
            target_ridge: DEFAULT_TARGET_RIDGE,
            clip: DEFAULT_CLIP,
            init_scale: 1.0,
            seed: 0,
        })
    }

    /// The hidden layers' activation (sigmoid, tanh, linear, or
    /// [`HiddenActivation::Softmax`]).
    pub fn with_hidden_activation(mut self, activation: impl Into<HiddenActivation>) -> Self {
        self.0.hidden_activation = activation.into();
        self
    }

    /// The output activation.
    pub fn with_output(mut self, output: OutputActivation) -> Self {
        self.0.output = output;
        self
    }

    /// Algorithm 1 or 2.
    pub fn with_algorithm(mut self, algorithm: BplsAlgorithm) -> Self {
        self.0.algorithm = algorithm;
        self
    }

    /// λ > 0 of the weight solves `(AᵀA + λI)⁻¹AᵀB` (eq. (6) regularized).
    pub fn with_lambda(mut self, lambda: f64) -> Self {
        self.0.lambda = lambda;
        self
    }

    /// μ > 0 of the neuron-target solves, relative to the mean squared
    /// weight of a neuron's outgoing row (eq. (5) regularized).
    pub fn with_target_ridge(mut self, mu: f64) -> Self {
        self.0.target_ridge = mu;
        self
    }

    /// δ ∈ (0, ½): targets are clipped into `[δ, 1 − δ]` (sigmoid, softmax
    /// outputs and hidden layers) or `[−1 + δ, 1 − δ]` (tanh) before the inverse activation.
    pub fn with_clip(mut self, clip: f64) -> Self {
        self.0.clip = clip;
        self
    }

    /// Starting weights uniform on `[−scale, scale)`.
    pub fn with_init_scale(mut self, scale: f64) -> Self {
        self.0.init_scale = scale;
        self
    }

    /// The seed of the starting weights.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
}

impl ParamGuard for BplsParams {
    type Checked = BplsValidParams;

    fn check_ref(&self) -> Result<&BplsValidParams> {
        let p = &self.0;
        for &w in &p.hidden {
            validate::at_least_one("hidden width", w, "every hidden layer needs at least one neuron")?;
        }
        check_hidden(p.hidden_activation)?;
        validate::lambda(p.lambda)?;
        validate::finite_scalar(
            "target ridge",
            p.target_ridge,
            true,
            "μ must be finite and > 0 (it keeps the neuron-target solves well posed)",
        )?;
        if !(p.clip > 0.0 && p.clip < 0.5) {
            return Err(ModelError::InvalidParameter {
                name: "clip",
                value: p.clip.to_string(),
                reason: "δ must lie in (0, 0.5): targets are clipped into [δ, 1 − δ] before the inverse activation",
            });
        }
        validate::finite_scalar(
            "scale",
            p.init_scale,
            true,
            "the scale of the starting weights must be finite and > 0",
        )?;
        Ok(p)
    }

    fn check(self) -> Result<BplsValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}

/// One epoch of a BPLS fit: the first pass over all samples, or one pass
/// over the misses (Algorithm 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BplsEpoch {
    /// 1 for the first pass, then 2, 3, … for the passes on the misses.
    pub epoch: usize,
    /// The samples the pass solved on (all, or the misses).
    pub samples: usize,
    /// Misclassified training samples after the epoch (Algorithm 2; the
    /// arg max of the outputs against that of the targets, or the 0.5
    /// threshold for one output); `None` for Algorithm 1.
    pub misses: Option<usize>,
    /// Mean squared error of the outputs over all training samples and
    /// outputs after the epoch.
    pub train_mse: f64,
    /// Seconds since the fit started, at the end of the epoch.
    pub seconds: f64,
}

/// One layer of the backward pass ([`BplsValidParams::layer_step`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerStep {
    /// The layer's weights `W_l` ((n+1)×m, bias last row).
    pub weights: Array2<f64>,
    /// The neuron values `N̂_{l−1}` asked of the layer below (eq. (5),
    /// clipped), if a hidden layer feeds this one.
    pub neurons: Option<Array2<f64>>,
    /// Their pre-activation targets `f⁻¹(N̂_{l−1})`, the next step's `T`.
    pub targets: Option<Array2<f64>>,
}

/// What a BPLS fit did.
#[derive(Clone, Debug, PartialEq)]
pub struct BplsReport {
    /// The algorithm run.
    pub algorithm: BplsAlgorithm,
    /// Every epoch, in order.
    pub epochs: Vec<BplsEpoch>,
    /// The epoch whose weights were returned (Algorithm 2 returns the
    /// weights with the fewest misses: the last epoch, or the one before a
    /// pass that did not decrease them).
    pub best_epoch: usize,
    /// Wall time of the fit, without the time spent in the progress callback.
    pub elapsed: Duration,
}

impl BplsValidParams {
    /// The hidden widths.
    pub fn hidden(&self) -> &[usize] {
        &self.hidden
    }

    /// The hidden activation.
    pub fn hidden_activation(&self) -> HiddenActivation {
        self.hidden_activation
    }

    /// The output activation.
    pub fn output(&self) -> OutputActivation {
        self.output
    }

    /// The algorithm.
    pub fn algorithm(&self) -> BplsAlgorithm {
        self.algorithm
    }

    /// λ of the weight solves.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// μ of the neuron-target solves (relative).
    pub fn target_ridge(&self) -> f64 {
        self.target_ridge
    }

    /// δ of the clipping.
    pub fn clip(&self) -> f64 {
        self.clip
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The random starting network for `n_inputs` inputs and `n_outputs`
    /// outputs (Algorithm 1 and 2, line 1).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for 0 inputs or outputs.
    pub fn start(&self, n_inputs: usize, n_outputs: usize) -> Result<Mlp> {
        Mlp::random(
            n_inputs,
            &self.hidden,
            n_outputs,
            self.hidden_activation,
            self.output,
            self.seed,
            self.init_scale,
        )
    }

    /// Fit from the random start, calling `progress` after every epoch with
    /// the epoch's record and the network as it stands (its time is not
    /// counted in [`BplsEpoch::seconds`]: a caller may evaluate the network
    /// there).
    ///
    /// # Errors
    /// The [`Dataset`] checks; [`ModelError::InvalidParameter`] for
    /// Algorithm 2 on targets that are not class indicators in `[0, 1]`
    /// and for targets outside the output activation's range where it has
    /// one; [`ModelError::Linalg`] if a least-squares solve fails.
    pub fn fit_with_report(
        &self,
        data: &Dataset<'_>,
        progress: impl FnMut(&BplsEpoch, &Mlp),
    ) -> Result<(Mlp, BplsReport)> {
        data.check()?;
        let net = self.start(data.features().ncols(), data.targets().ncols())?;
        self.fit_from(net, data, progress)
    }

    /// Fit starting from `net` (its shapes must match the data; its
    /// activations are replaced by these parameters').
    ///
    /// # Errors
    /// As [`fit_with_report`](Self::fit_with_report), and
    /// [`linalg_core::Error::Shape`] if `net` does not fit the data.
    pub fn fit_from(
        &self,
        net: Mlp,
        data: &Dataset<'_>,
        mut progress: impl FnMut(&BplsEpoch, &Mlp),
    ) -> Result<(Mlp, BplsReport)> {
        data.check()?;
        let (x, y) = (data.features(), data.targets());
        validate::cols("samples X", x, crate::traits::Predict::n_inputs(&net))?;
        validate::cols("targets Y", y, crate::traits::Predict::n_outputs(&net))?;
        if self.algorithm != BplsAlgorithm::Injective {
            check_indicators(y)?;
        }
        let mut net = Mlp::from_weights(net.weights().to_vec(), self.hidden_activation, self.output)?;
        let start = Instant::now();
        let t_out = self.output_targets(y);
        let mut epochs = Vec::new();
        let reestimate = self.algorithm != BplsAlgorithm::Injective;
        self.backward_pass(&mut net, x, t_out.view(), reestimate)?;
        let mut out = net.predict_unchecked(x);
        let mut misses = match self.algorithm {
            BplsAlgorithm::Injective => None,
            BplsAlgorithm::NonInjective { .. } => Some(missed(out.view(), y).len()),
        };
        // Time spent in `progress`, not counted as training.
        let mut outside = Duration::ZERO;
        let record = |epoch, samples, misses, out: &Array2<f64>, outside: Duration| BplsEpoch {
            epoch,
            samples,
            misses,
            train_mse: mse(out.view(), y),
            seconds: (start.elapsed() - outside).as_secs_f64(),
        };
        let mut report_epoch = |e: BplsEpoch, net: &Mlp, outside: &mut Duration| {
            let t = Instant::now();
            progress(&e, net);
            *outside += t.elapsed();
            e
        };
        epochs.push(report_epoch(
            record(1, x.nrows(), misses, &out, outside),
            &net,
            &mut outside,
        ));
        let mut best_epoch = 1;
        if let BplsAlgorithm::NonInjective { max_iterations } = self.algorithm {
            let k = x.nrows() as f64;
            let mut best = net.clone();
            for tau in 1..=max_iterations {
                let idx = missed(out.view(), y);
                let prev = idx.len();
                if prev == 0 {
                    break;
                }
                // Line 19: lines 3–14 on the misses, from the current weights.
                let mut on_misses = net.clone();
                let xm = x.select(Axis(0), &idx);
                let tm = t_out.select(Axis(0), &idx);
                self.backward_pass(&mut on_misses, xm.view(), tm.view(), true)?;
                // Line 20: blend by the miss fraction.
                let frac = prev as f64 / k;
                for (w, wm) in net.weights_mut().iter_mut().zip(on_misses.weights()) {
                    Zip::from(w)
                        .and(wm)
                        .for_each(|w, &wm| *w = (1.0 - frac) * *w + frac * wm);
                }
                out = net.predict_unchecked(x);
                let now = missed(out.view(), y).len();
                misses = Some(now);
                let e = record(tau + 1, prev, misses, &out, outside);
                epochs.push(report_epoch(e, &net, &mut outside));
                if now < prev {
                    best = net.clone();
                    best_epoch = tau + 1;
                } else {
                    // Line 18: continue only while the misses decrease.
                    break;
                }
            }
            net = best;
        }
        // The solves leave some layers column-major; a saved and loaded
        // network is row-major, and BLAS rounds the two layouts' products
        // differently: store the layout loading gives, so that a loaded
        // network predicts bit for bit as the one fitted.
        for w in net.weights_mut() {
            if !w.is_standard_layout() {
                *w = w.as_standard_layout().into_owned();
            }
        }
        Ok((
            net,
            BplsReport {
                algorithm: self.algorithm,
                epochs,
                best_epoch,
                elapsed: start.elapsed() - outside,
            },
        ))
    }

    /// The output layer's pre-activation targets: `Y` itself (linear), the
    /// logit of `Y` clipped into `[δ, 1 − δ]` (sigmoid), or the centred
    /// log of the clipped `Y`, `ln p_j − mean_k ln p_k` (softmax: the
    /// logits whose softmax is the clipped `Y` renormalized; softmax is
    /// injective only up to a constant added to a sample's logits, fixed
    /// here by centring).
    pub fn output_targets(&self, y: ArrayView2<'_, f64>) -> Array2<f64> {
        let d = self.clip;
        match self.output {
            OutputActivation::Linear => y.to_owned(),
            OutputActivation::Sigmoid => y.mapv(|v| logit(v.clamp(d, 1.0 - d))),
            OutputActivation::Softmax => {
                let mut t = y.mapv(|v| v.clamp(d, 1.0 - d));
                centred_log_rows(&mut t);
                t
            }
        }
    }

    /// Lines 3–14 (Algorithm 2; lines 3–11 of Algorithm 1 without the
    /// re-estimation): from the output layer down, every layer by
    /// [`layer_step`](Self::layer_step) on the current network's forward
    /// values.
    fn backward_pass(
        &self,
        net: &mut Mlp,
        x: ArrayView2<'_, f64>,
        t_out: ArrayView2<'_, f64>,
        reestimate: bool,
    ) -> Result<()> {
        let (inputs, _) = net.forward(x);
        let mut target = t_out.to_owned();
        for l in (0..net.weights().len()).rev() {
            let a = if l == 0 { x } else { inputs[l - 1].view() };
            let step = self.layer_step(a, target.view(), l > 0, reestimate)?;
            net.weights_mut()[l] = step.weights;
            match step.targets {
                Some(t) => target = t,
                None => break,
            }
        }
        Ok(())
    }

    /// One layer of the backward pass, all its neurons at once, given the
    /// layer's input `a` (K×n: the previous layer's neuron values, or the
    /// samples; the constant column is implicit) and its pre-activation
    /// targets `T` (K×m):
    ///
    /// 1. the weights `W = ([A, 1]ᵀ[A, 1] + λI)⁻¹[A, 1]ᵀT` (eq. (6), one
    ///    Cholesky factorization, one right-hand side per neuron; with fewer
    ///    samples than columns K < n+1, the same `W` in the dual form
    ///    `[A, 1]ᵀ([A, 1][A, 1]ᵀ + λI)⁻¹T`, a K×K factorization);
    /// 2. if a hidden layer feeds this one (`below`): its neuron targets
    ///    `N̂` by eq. (5) read as least squares (see the [module
    ///    documentation](super)), clipped into the activation's range;
    ///    with `reestimate` (Algorithm 2, lines 8–9) the weights solved again
    ///    on `[N̂, 1]`; and the pre-activation targets `f⁻¹(N̂)` of the layer
    ///    below.
    ///
    /// # Errors
    /// [`ModelError::Linalg`] if a solve fails (shapes, non-finite values,
    /// or a Gram matrix not numerically positive definite).
    pub fn layer_step(
        &self,
        a: ArrayView2<'_, f64>,
        target: ArrayView2<'_, f64>,
        below: bool,
        reestimate: bool,
    ) -> Result<LayerStep> {
        let w = ridge_with_intercept(a, target, self.lambda)?;
        if !below {
            return Ok(LayerStep {
                weights: w,
                neurons: None,
                targets: None,
            });
        }
        let n_hat = self.neuron_targets(a, w.view(), target)?;
        let weights = if reestimate {
            ridge_with_intercept(n_hat.view(), target, self.lambda)?
        } else {
            w
        };
        let targets = self.hidden_targets(n_hat.clone());
        Ok(LayerStep {
            weights,
            neurons: Some(n_hat),
            targets: Some(targets),
        })
    }

    /// Eq. (5) as a least-squares problem: the neuron values `N̂` of the
    /// layer feeding `W = [V; b]` closest to its current values `N` (the
    /// non-constant columns of `a`) with `[N̂, 1] W` nearest the targets
    /// `T`: `min ‖N̂V + 1bᵀ − T‖² + μ‖N̂ − N‖²`, i.e. `N̂ = N + R Vᵀ(VVᵀ +
    /// μI)⁻¹` with the residual `R = T − [N, 1]W`, μ relative to the mean
    /// diagonal of `VVᵀ`; clipped into the activation's range.
    fn neuron_targets(
        &self,
        a: ArrayView2<'_, f64>,
        w: ArrayView2<'_, f64>,
        t: ArrayView2<'_, f64>,
    ) -> Result<Array2<f64>> {
        let n = a.ncols();
        let v = w.slice_axis(Axis(0), Slice::from(..n));
        let mut r = affine(a, w);
        Zip::from(&mut r).and(t).for_each(|r, &t| *r = t - *r);
        let scale = v.iter().map(|x| x * x).sum::<f64>() / n as f64;
        let mu = self.target_ridge * if scale > 0.0 { scale } else { 1.0 };
        // ΔN = R Vᵀ(VVᵀ + μI)⁻¹ = R Pᵀ with P = (VVᵀ + μI)⁻¹V (n × N_l),
        // solved once (from the smaller of VVᵀ and VᵀV: `neuron_map`), then
        // one product (rather than the solve with one right-hand side per
        // sample: 30 ms of a 0.9 s MNIST epoch).
        let p = neuron_map(v, mu)?;
        let mut n_hat = a.to_owned();
        general_mat_mul(1.0, &r, &p.t(), 1.0, &mut n_hat);
        let (lo, hi) = self.range();
        n_hat.mapv_inplace(|x| x.clamp(lo, hi));
        Ok(n_hat)
    }

    /// The open range a hidden neuron's value is clipped into.
    fn range(&self) -> (f64, f64) {
        let d = self.clip;
        match self.hidden_activation {
            HiddenActivation::Elementwise(Activation::Sigmoid) | HiddenActivation::Softmax => (d, 1.0 - d),
            HiddenActivation::Elementwise(Activation::Tanh) => (-1.0 + d, 1.0 - d),
            HiddenActivation::Elementwise(_) => (f64::NEG_INFINITY, f64::INFINITY),
        }
    }

    /// The pre-activation targets of the neuron values `n_hat` (already
    /// clipped into the range): the inverse activation; for the softmax the
    /// centred logarithm of every row, `ln n̂_i − mean_k ln n̂_k`, whose
    /// softmax is the row divided by its sum.
    fn hidden_targets(&self, mut n_hat: Array2<f64>) -> Array2<f64> {
        match self.hidden_activation {
            HiddenActivation::Elementwise(Activation::Sigmoid) => n_hat.mapv_inplace(logit),
            HiddenActivation::Elementwise(Activation::Tanh) => n_hat.mapv_inplace(f64::atanh),
            HiddenActivation::Elementwise(_) => {}
            HiddenActivation::Softmax => centred_log_rows(&mut n_hat),
        }
        n_hat
    }
}

/// `p_ij ← ln p_ij − mean_k ln p_ik`, row by row (every `p_ij > 0`): the
/// pre-activations whose softmax is each row of `p` divided by its sum,
/// the constant softmax leaves free fixed by the centring.
fn centred_log_rows(p: &mut Array2<f64>) {
    p.mapv_inplace(f64::ln);
    for mut row in p.rows_mut() {
        let mean = row.sum() / row.len() as f64;
        row -= mean;
    }
}

/// `ln(y/(1 − y))`: one logarithm (for `y` clipped into `[δ, 1 − δ]` the
/// quotient is within two roundings of exact, the result within `2ε` of
/// `ln y − ln(1 − y)` plus its own rounding).
fn logit(y: f64) -> f64 {
    (y / (1.0 - y)).ln()
}

/// Targets that Algorithm 2 can count misses on: class indicators in
/// `[0, 1]` (one-hot rows, or one column thresholded at ½).
fn check_indicators(y: ArrayView2<'_, f64>) -> Result<()> {
    if y.iter().all(|&v| (0.0..=1.0).contains(&v)) {
        Ok(())
    } else {
        Err(ModelError::InvalidParameter {
            name: "algorithm",
            value: "Algorithm 2 (non-injective)".into(),
            reason: "it counts misclassified samples: the targets must be class indicators in [0, 1] (one-hot rows, or one column); use Algorithm 1 for regression",
        })
    }
}

/// The rows whose predicted class differs from the target's: the arg max
/// over outputs, or the ½ threshold for a single output.
pub(crate) fn missed(out: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Vec<usize> {
    out.rows()
        .into_iter()
        .zip(y.rows())
        .enumerate()
        .filter_map(|(i, (o, t))| {
            let miss = if o.len() == 1 {
                (o[0] >= 0.5) != (t[0] >= 0.5)
            } else {
                argmax(o.iter().copied()) != argmax(t.iter().copied())
            };
            miss.then_some(i)
        })
        .collect()
}

pub(crate) use linalg_core::argmax;

/// Mean squared error over all entries.
fn mse(out: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> f64 {
    let s: f64 = out.iter().zip(y.iter()).map(|(o, t)| (o - t) * (o - t)).sum();
    s / out.len().max(1) as f64
}

impl Fit for BplsValidParams {
    type Model = Mlp;

    fn fit(&self, data: &Dataset<'_>) -> Result<Mlp> {
        Ok(self.fit_with_report(data, |_, _| {})?.0)
    }
}
