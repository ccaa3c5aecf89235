//! Backpropagation for the network of Tomic et al. (2024): the baseline
//! their BPLS is compared with (§III: AdaGrad, SGD, NAG and Adam, `η = 10⁻³`,
//! batch size 1, at most 40 epochs on MNIST and Fashion-MNIST), the step
//! rules those of [`optim::first_order`].
//!
//! The loss is documented at [`Loss`], the gradient, the minibatches and
//! the buffers at [`Backprop`].

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, Slice, Zip};
use optim::first_order::FirstOrderKind;
use optim::incremental::StepRuleError;

use super::loss::{check_loss, output_loss, Loss};
use super::network::{apply_hidden, HiddenActivation, Mlp, OutputActivation};
use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::rng::node_stream;
use crate::traits::{Dataset, Predict};
use crate::validate;

/// The name [`ModelError::Training`] gives this trainer.
const TRAINER: &str = "backprop";

/// The word a divergence's [`ModelError::Training`] reason carries
/// ([`Backprop::is_divergence`]).
const DIVERGED: &str = "diverged";

/// Epoch records reserved up front: the report grows past it one epoch at
/// a time, so that a huge `epochs` reserves nothing it may never use.
const RESERVED_EPOCHS: usize = 1024;

/// Minibatch backpropagation with a first-order rule (SGD, NAG, Adam or
/// AdaGrad): the baseline of Tomic et al.'s comparison (2024, §III: the
/// four with `η = 10⁻³`, batch size 1, at most 40 epochs on MNIST and
/// Fashion-MNIST), minimizing [`Loss::for_output`] of the network's output
/// activation.
///
/// # The gradient
///
/// Layer `l` computes `Z_l = [N_{l−1}, 1] W_l` (`W_l = [V_l; b_lᵀ]`, the
/// bias in the last row) and `N_l = f(Z_l)`. With `Δ_l = ∂L/∂Z_l` (`|B|×N_l`)
/// from the output down:
///
/// ```text
/// ∂L/∂V_l = N_{l−1}ᵀ Δ_l,   ∂L/∂b_l = Δ_lᵀ 1,   Δ_{l−1} = (Δ_l V_lᵀ) ⊙ f′(Z_{l−1}),
/// ```
///
/// every layer's gradient from the weights before the step; `f′` from the
/// layer's output `N = f(Z)`: `N(1 − N)` (sigmoid), `1 − N²` (tanh), 1
/// (linear). Then every layer takes one step of its own [`FirstOrder`](optim::first_order::FirstOrder)
/// rule. The four rules are element-wise (state and update of a weight
/// depend on that weight's gradient only, plus a step count shared by all),
/// so one rule per layer is the same as one rule on all weights
/// concatenated (checked by a test for all four).
///
/// # Divergence
///
/// A run has diverged, and [`train`](Backprop::train) fails, when an
/// epoch's loss or the loss at the final weights is not finite or exceeds
/// [`DIVERGENCE_FACTOR`](Backprop::DIVERGENCE_FACTOR) `= 10⁶` times `L₀`,
/// the loss of the starting weights on all samples — the same rule for
/// every step rule, regression and classification alike. Why relative to
/// `L₀` and why `10⁶`:
///
/// - the loss's scale is the data's (the targets' units, the number of
///   outputs), and `L₀` carries it: the rule reads the same on
///   standardized and raw targets;
/// - with a learning rate small enough every rule is a descent method: the
///   loss goes down on average, and a converging run's epoch loss stays
///   within a small factor of `L₀` (minibatch noise and early overshoot
///   raise it by a few times, not by orders of magnitude);
/// - a diverging run's loss grows geometrically (the squared error by about
///   `(ηλ_max − 1)²` per step along the Hessian's top eigenvector) or, for
///   the cross-entropy, which grows like the logits, with the weights'
///   scale `η·‖∇L‖`; either passes `10⁶ L₀` within a few epochs, or at
///   once for absurd rates (η = 10³⁰⁰ puts the loss near 10³⁰⁰ after one
///   step), long before it overflows to infinity — which a saturated
///   sigmoid layer may keep it from ever doing (SGD at η = 1000 on a small
///   regression reaches a training MSE of 10¹⁹ in four epochs, finite);
/// - a loss merely high is a poor fit, reported as it is, not refused:
///   SGD at η = 1000 on Pima oscillates at a few hundred nats from
///   `L₀ ≈ 0.7` and still classifies 71% of the samples.
///
/// The epoch loss is the running one (each minibatch's at the weights
/// before its step), so the last epoch's steps are judged by the loss at
/// the final weights, computed once after training, as `L₀` once before
/// (one forward pass over the samples each).
///
/// # Minibatches
///
/// Every epoch visits the `K` samples once, in minibatches of
/// `batch_size` rows (the last one smaller when `batch_size` does not
/// divide `K`; a batch larger than `K` is the whole set): in file order
/// (`shuffle_seed: None`) or in a random permutation drawn anew each epoch
/// by a Fisher–Yates shuffle of `0, …, K−1` from the SplitMix64 stream of
/// `(seed, epoch)` ([`node_stream`]), so a seed gives the same run on every
/// machine.
///
/// # Speed
///
/// Tomic et al. report backprop at batch size 1 more than 1000× slower per
/// epoch than BPLS; for that comparison to be honest the baseline is
/// efficient. Every buffer (the minibatch's inputs and targets, every
/// layer's outputs and `Δ`, every layer's gradient) is allocated once per
/// [`Backprop::train`] call (once for the batch size, once more for a
/// smaller last batch); nothing is allocated per minibatch. The three
/// products of every layer are GEMMs into contiguous outputs (ndarray hands
/// only those to BLAS), at batch size 1 too: on a 784×50 layer with one
/// row, OpenBLAS's GEMM took 4.4 µs for the forward product where its GEMV
/// took 4.6 µs single-threaded and 12 µs when it spread over two busy cores,
/// and 5.3 µs for the outer product `N_0ᵀΔ_1` where a plain
/// (auto-vectorized, SSE2) loop took 10.7 µs. The sigmoid uses the
/// vectorized [`sigmoid_in_place`](crate::activation::sigmoid_in_place).
///
/// # Example
///
/// ```
/// use models::mlp::{Backprop, Mlp, OutputActivation};
/// use models::optim::FirstOrderKind;
/// use models::{Activation, Dataset};
/// use ndarray::array;
/// use std::ops::ControlFlow;
/// // XOR-like toy: 2 → 4 (tanh) → 1 (sigmoid), squared error.
/// let x = array![[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]];
/// let y = array![[0.0], [1.0], [1.0], [0.0]];
/// let mut net = Mlp::random(2, &[4], 1, Activation::Tanh, OutputActivation::Sigmoid, 1, 1.0)?;
/// let report = Backprop::new(FirstOrderKind::Adam)
///     .with_learning_rate(0.05)
///     .with_epochs(300)
///     .train(&mut net, &Dataset::new(x.view(), y.view()), |_, _| ControlFlow::Continue(()))?;
/// assert_eq!(report.updates, 300 * 4); // batch size 1
/// assert!(report.epochs[299].loss < report.epochs[0].loss);
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Backprop {
    /// The step rule.
    pub method: FirstOrderKind,
    /// The learning rate `η > 0`.
    pub learning_rate: f64,
    /// Samples per minibatch, ≥ 1 (the last minibatch of an epoch may be
    /// smaller; a value above the number of samples means full batches).
    pub batch_size: usize,
    /// Passes over the data, ≥ 1 (nothing is allocated per epoch up front:
    /// any count is accepted, and runs that long).
    pub epochs: usize,
    /// `Some(seed)`: a new random order of the samples every epoch, from
    /// `(seed, epoch)`; `None`: file order every epoch.
    pub shuffle_seed: Option<u64>,
    /// The loss minimized; `None`: [`Loss::for_output`] of the network's
    /// output activation. The squared error may be chosen for a softmax
    /// output too (the mean squared error of the class probabilities,
    /// which some frameworks' examples train); the cross-entropy needs a
    /// softmax output.
    pub loss: Option<Loss>,
}

/// One epoch of [`Backprop::train`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackpropEpoch {
    /// 1, 2, …
    pub epoch: usize,
    /// The epoch's minibatch losses as computed during it (each at the
    /// weights before its step), averaged with the minibatch sizes as
    /// weights: the mean over the samples of the loss each had when its
    /// minibatch was processed (the plain mean of the minibatch losses when
    /// all minibatches have the same size; Keras's running "loss").
    pub loss: f64,
    /// Training seconds since `train` started, up to the end of this epoch,
    /// excluding the time spent in the `on_epoch` callbacks.
    pub seconds: f64,
}

/// What [`Backprop::train`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct BackpropReport {
    /// Every epoch run, in order.
    pub epochs: Vec<BackpropEpoch>,
    /// Steps taken (one per minibatch, every layer updated in each).
    pub updates: usize,
    /// Training time, excluding the `on_epoch` callbacks (the last epoch's
    /// `seconds`).
    pub elapsed: Duration,
}

impl Backprop {
    /// A run whose loss exceeds this many times the loss of its starting
    /// weights has diverged (see [the rule](Backprop#divergence)).
    pub const DIVERGENCE_FACTOR: f64 = 1e6;
    /// Tomic et al.'s batch size, 1: what [`new`](Self::new) uses.
    pub const PAPER_BATCH_SIZE: usize = 1;
    /// Tomic et al.'s 40 epochs (their MNIST runs): what [`new`](Self::new)
    /// uses, and the command line's default.
    pub const PAPER_EPOCHS: usize = 40;
    /// The command line's default batch size, 128: the paper's batch of 1
    /// is slower per epoch by orders of magnitude.
    pub const PRACTICAL_BATCH_SIZE: usize = 128;

    /// Whether `error` is [`train`](Self::train)'s report of a diverged
    /// run (a [`ModelError::Training`] whose remedy is a smaller learning
    /// rate), as opposed to bad parameters or data.
    pub fn is_divergence(error: &ModelError) -> bool {
        matches!(error, ModelError::Training { trainer, reason } if *trainer == TRAINER && reason.contains(DIVERGED))
    }

    /// `method` with Tomic et al.'s settings: `η =`
    /// [`paper_learning_rate`](FirstOrderKind::paper_learning_rate)
    /// (`10⁻³`), batch size 1, 40 epochs (their MNIST runs), shuffled with
    /// seed 0.
    pub fn new(method: FirstOrderKind) -> Self {
        Self {
            method,
            learning_rate: method.paper_learning_rate(),
            batch_size: Self::PAPER_BATCH_SIZE,
            epochs: Self::PAPER_EPOCHS,
            shuffle_seed: Some(0),
            loss: None,
        }
    }

    /// The loss to minimize instead of [`Loss::for_output`]'s.
    pub fn with_loss(mut self, loss: Loss) -> Self {
        self.loss = Some(loss);
        self
    }

    /// The loss minimized on `net`: [`loss`](Self::loss), or
    /// [`Loss::for_output`] of its output activation.
    pub fn loss_for(&self, net: &Mlp) -> Loss {
        self.loss.unwrap_or_else(|| Loss::for_output(net.output_activation()))
    }

    /// The learning rate `η`, finite and > 0.
    pub fn with_learning_rate(mut self, learning_rate: f64) -> Self {
        self.learning_rate = learning_rate;
        self
    }

    /// Samples per minibatch, ≥ 1.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    /// The number of epochs, ≥ 1.
    pub fn with_epochs(mut self, epochs: usize) -> Self {
        self.epochs = epochs;
        self
    }

    /// `Some(seed)` to shuffle every epoch, `None` for file order.
    pub fn with_shuffle(mut self, shuffle_seed: Option<u64>) -> Self {
        self.shuffle_seed = shuffle_seed;
        self
    }

    /// Check the parameters (done by [`train`](Self::train) too).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `learning rate` (not finite
    /// and > 0), `batch size` or `epochs` (0).
    pub fn check(&self) -> Result<()> {
        validate::finite_scalar(
            "learning rate",
            self.learning_rate,
            true,
            "the learning rate η must be finite and > 0",
        )?;
        validate::at_least_one("batch size", self.batch_size, "a minibatch needs at least one sample")?;
        validate::at_least_one("epochs", self.epochs, "training needs at least one epoch")?;
        // The rule's own checks (η again), with its message.
        self.method.build(0, self.learning_rate).map_err(step_rule_error)?;
        Ok(())
    }

    /// Train `net` in place on `data` for [`epochs`](Self::epochs) epochs,
    /// minimizing [`loss_for`](Self::loss_for) (by default
    /// [`Loss::for_output`] of its output activation). After each
    /// epoch `on_epoch(&record, net)` is called (its time is not counted in
    /// the record's `seconds`); training stops after that epoch if it
    /// returns [`ControlFlow::Break`]. The step rules' state starts from
    /// zero on every call.
    ///
    /// # Errors
    /// - [`ModelError::InvalidParameter`] for the parameters (see
    ///   [`check`](Self::check)), a hidden activation other than sigmoid,
    ///   tanh or linear, or targets outside `[0, 1]` for a sigmoid or
    ///   softmax output (`targets Y`), or the cross-entropy chosen for an
    ///   output other than softmax (`loss`);
    /// - [`ModelError::Linalg`] for empty or non-finite data, or data whose
    ///   columns do not match the network's inputs and outputs;
    /// - [`ModelError::Training`] if the loss at the starting weights is not
    ///   finite, or if the run diverged by [the rule](Backprop#divergence)
    ///   ([`is_divergence`](Self::is_divergence): a smaller learning rate
    ///   is needed); `net` then holds the diverged weights.
    pub fn train(
        &self,
        net: &mut Mlp,
        data: &Dataset<'_>,
        mut on_epoch: impl FnMut(&BackpropEpoch, &Mlp) -> ControlFlow<()>,
    ) -> Result<BackpropReport> {
        self.check()?;
        let slope = Slope::of(net.hidden_activation())?;
        let loss = self.loss_for(net);
        check_loss(net, loss)?;
        check_data(net, data)?;
        let start = Instant::now();
        standard_layout(net);
        let mut rules = net
            .weights()
            .iter()
            .map(|w| self.method.build(w.len(), self.learning_rate).map_err(step_rule_error))
            .collect::<Result<Vec<_>>>()?;
        let (x, y) = (data.features(), data.targets());
        let k = x.nrows();
        let batch = self.batch_size.min(k);
        let mut full = Workspace::new(net, batch, loss);
        let mut tail = (k % batch != 0).then(|| Workspace::new(net, k % batch, loss));
        let mut grads: Vec<Array2<f64>> = net.weights().iter().map(|w| Array2::zeros(w.raw_dim())).collect();
        let mut order: Vec<usize> = (0..k).collect();
        let initial = full_loss(net, x, y, &order, &mut full, tail.as_mut());
        if !initial.is_finite() {
            return Err(ModelError::Training {
                trainer: TRAINER,
                reason: format!(
                    "the loss at the starting weights is {initial}: the network's weights are too large for the data"
                ),
            });
        }
        let mut report = BackpropReport {
            epochs: Vec::with_capacity(self.epochs.min(RESERVED_EPOCHS)),
            updates: 0,
            elapsed: Duration::ZERO,
        };
        let mut training = start.elapsed();
        for epoch in 1..=self.epochs {
            let epoch_start = Instant::now();
            if let Some(seed) = self.shuffle_seed {
                epoch_order(&mut order, seed, epoch);
            }
            let mut sum = 0.0;
            for rows in order.chunks(batch) {
                let ws = match tail.as_mut() {
                    Some(ws) if ws.rows == rows.len() => ws,
                    _ => &mut full,
                };
                ws.gather(x, y, rows);
                sum += rows.len() as f64 * ws.loss_and_gradient(net, slope, &mut grads);
                for ((w, g), rule) in net.weights_mut().iter_mut().zip(&grads).zip(rules.iter_mut()) {
                    match (w.as_slice_mut(), g.as_slice()) {
                        (Some(w), Some(g)) => rule.step(w, g),
                        _ => return Err(layout_error()),
                    }
                }
                report.updates += 1;
            }
            training += epoch_start.elapsed();
            let loss = sum / k as f64;
            self.check_divergence(loss, initial, &format!("in epoch {epoch}"))?;
            let record = BackpropEpoch {
                epoch,
                loss,
                seconds: training.as_secs_f64(),
            };
            report.epochs.push(record);
            report.elapsed = training;
            if on_epoch(&record, net).is_break() {
                break;
            }
        }
        let last = full_loss(net, x, y, &order, &mut full, tail.as_mut());
        self.check_divergence(last, initial, "at the final weights")?;
        Ok(report)
    }

    /// The [divergence rule](Backprop#divergence) on `loss` (`when`: "in
    /// epoch 3", "at the final weights") against the starting loss.
    fn check_divergence(&self, loss: f64, initial: f64, when: &str) -> Result<()> {
        if loss.is_finite() && loss <= Self::DIVERGENCE_FACTOR * initial {
            return Ok(());
        }
        let how = if loss.is_finite() {
            format!("{loss:.3e} {when}, more than 10⁶ times the {initial:.3e} at the starting weights")
        } else {
            format!("{loss} {when}")
        };
        Err(ModelError::Training {
            trainer: TRAINER,
            reason: format!(
                "the steps of {} with η = {:e} {DIVERGED} (the loss is {how}); use a smaller learning rate",
                self.method.label(),
                self.learning_rate
            ),
        })
    }
}

/// The loss of `net` on all samples (the rows of `order`, in its
/// minibatches: the workspaces of the steps), without a step.
fn full_loss(
    net: &Mlp,
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    order: &[usize],
    full: &mut Workspace,
    mut tail: Option<&mut Workspace>,
) -> f64 {
    let mut sum = 0.0;
    for rows in order.chunks(full.rows) {
        let ws = match tail.as_deref_mut() {
            Some(ws) if ws.rows == rows.len() => ws,
            _ => &mut *full,
        };
        ws.gather(x, y, rows);
        sum += rows.len() as f64 * ws.loss(net);
    }
    sum / order.len() as f64
}

/// The loss [`Loss::for_output`] of `net` on all of `data` taken as one
/// minibatch, and its gradient with respect to every layer's weights (the
/// shapes of [`Mlp::weights`], the bias row last): what one step of
/// [`Backprop::train`] with `batch_size ≥ K` uses.
///
/// # Errors
/// As [`Backprop::train`] for the network and the data.
pub fn loss_and_gradient(net: &Mlp, data: &Dataset<'_>) -> Result<(f64, Vec<Array2<f64>>)> {
    loss_and_gradient_of(net, data, Loss::for_output(net.output_activation()))
}

/// As [`loss_and_gradient`], for the loss `loss` (the squared error or,
/// for a softmax output, the cross-entropy).
///
/// # Errors
/// As [`loss_and_gradient`]; [`ModelError::InvalidParameter`] naming
/// `loss` for the cross-entropy of an output other than softmax.
pub fn loss_and_gradient_of(net: &Mlp, data: &Dataset<'_>, loss: Loss) -> Result<(f64, Vec<Array2<f64>>)> {
    let slope = Slope::of(net.hidden_activation())?;
    check_loss(net, loss)?;
    check_data(net, data)?;
    let mut net = net.clone();
    standard_layout(&mut net);
    let (x, y) = (data.features(), data.targets());
    let mut ws = Workspace::new(&net, x.nrows(), loss);
    let rows: Vec<usize> = (0..x.nrows()).collect();
    ws.gather(x, y, &rows);
    let mut grads: Vec<Array2<f64>> = net.weights().iter().map(|w| Array2::zeros(w.raw_dim())).collect();
    let loss = ws.loss_and_gradient(&net, slope, &mut grads);
    Ok((loss, grads))
}

fn step_rule_error(e: StepRuleError) -> ModelError {
    let name = if e.name == "learning rate η" {
        "learning rate"
    } else {
        e.name
    };
    ModelError::InvalidParameter {
        name,
        value: e.value.to_string(),
        reason: e.requirement,
    }
}

fn layout_error() -> ModelError {
    ModelError::Training {
        trainer: TRAINER,
        reason: "a weight matrix or its gradient is not contiguous in memory".into(),
    }
}

/// Every weight matrix in standard (row-major, contiguous) layout, so that
/// weights and gradients are the same flat slices for the step rules.
fn standard_layout(net: &mut Mlp) {
    for w in net.weights_mut() {
        if !w.is_standard_layout() {
            *w = w.as_standard_layout().into_owned();
        }
    }
}

/// The data are non-empty and finite, match the network's inputs and
/// outputs, and lie in `[0, 1]` for a softmax output.
fn check_data(net: &Mlp, data: &Dataset<'_>) -> Result<()> {
    data.check()?;
    validate::cols("samples X", data.features(), net.n_inputs())?;
    validate::cols("targets Y", data.targets(), net.n_outputs())?;
    // The cross-entropy of a softmax needs class probabilities; the squared
    // error of a sigmoid output does not (the paper's noisy toy targets leave
    // (0, 1), and are fitted as well as the range allows).
    if net.output_activation() == OutputActivation::Softmax {
        let targets = data.targets();
        let bad = targets.indexed_iter().find(|(_, v)| !(0.0..=1.0).contains(*v));
        if let Some(((i, j), v)) = bad {
            return Err(ModelError::InvalidParameter {
                name: "targets Y",
                value: format!("{v} (row {i}, column {j})"),
                reason: "the cross-entropy of a softmax output needs class probabilities in [0, 1]",
            });
        }
    }
    Ok(())
}

/// `order` ← a random permutation of `0, …, K−1` for `epoch` (Fisher–Yates
/// on the identity, from the stream of `(seed, epoch)`): each epoch's order
/// depends on the seed and the epoch only.
fn epoch_order(order: &mut [usize], seed: u64, epoch: usize) {
    for (i, v) in order.iter_mut().enumerate() {
        *v = i;
    }
    let mut rng = node_stream(seed, epoch as u64);
    for i in (1..order.len()).rev() {
        // j uniform on 0..=i: the high word of a 64×64-bit product (Lemire),
        // biased by at most (i + 1)/2⁶⁴.
        let j = ((u128::from(rng.next_u64()) * (i as u128 + 1)) >> 64) as usize;
        order.swap(i, j);
    }
}

/// The hidden activation's derivative, from its output `n = f(z)`.
#[derive(Clone, Copy, Debug)]
enum Slope {
    /// `σ′ = n(1 − n)`.
    Sigmoid,
    /// `tanh′ = 1 − n²`.
    Tanh,
    /// 1.
    Linear,
}

impl Slope {
    fn of(activation: HiddenActivation) -> Result<Self> {
        match activation {
            HiddenActivation::Elementwise(Activation::Sigmoid) => Ok(Self::Sigmoid),
            HiddenActivation::Elementwise(Activation::Tanh) => Ok(Self::Tanh),
            HiddenActivation::Elementwise(Activation::Linear) => Ok(Self::Linear),
            other => Err(ModelError::InvalidParameter {
                name: "hidden activation",
                value: other.name().to_string(),
                reason: "backpropagation trains sigmoid, tanh or linear hidden layers (a softmax hidden layer is trained by BPLS only)",
            }),
        }
    }

    /// `Δ ← Δ ⊙ f′` given the layer's outputs `n`.
    fn scale(self, delta: &mut Array2<f64>, n: &Array2<f64>) {
        match self {
            Self::Sigmoid => Zip::from(delta).and(n).for_each(|d, &n| *d *= n * (1.0 - n)),
            Self::Tanh => Zip::from(delta).and(n).for_each(|d, &n| *d *= 1.0 - n * n),
            Self::Linear => {}
        }
    }
}

/// The buffers of minibatches of `rows` samples, all contiguous.
struct Workspace {
    rows: usize,
    /// The minibatch's samples, `rows × N_0`.
    x: Array2<f64>,
    /// Their targets, `rows × J`.
    y: Array2<f64>,
    /// `N_l = f(Z_l)`, `rows × N_l`, for the hidden layers `l = 1, …, L`.
    hidden: Vec<Array2<f64>>,
    /// `Δ_l = ∂L/∂Z_l`, `rows × N_l`, for `l = 1, …, L+1`; the last holds
    /// `Z_{L+1}` between the forward pass and the loss.
    deltas: Vec<Array2<f64>>,
    /// The loss minimized.
    loss: Loss,
}

impl Workspace {
    fn new(net: &Mlp, rows: usize, loss: Loss) -> Self {
        let weights = net.weights();
        let widths: Vec<usize> = weights.iter().map(Array2::ncols).collect();
        let hidden = widths[..widths.len() - 1]
            .iter()
            .map(|&n| Array2::zeros((rows, n)))
            .collect();
        Self {
            rows,
            x: Array2::zeros((rows, net.n_inputs())),
            y: Array2::zeros((rows, net.n_outputs())),
            hidden,
            deltas: widths.iter().map(|&n| Array2::zeros((rows, n))).collect(),
            loss,
        }
    }

    /// Copy the samples `rows` of `x` and `y` into the buffers.
    fn gather(&mut self, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, rows: &[usize]) {
        for ((mut bx, mut by), &r) in self.x.rows_mut().into_iter().zip(self.y.rows_mut()).zip(rows) {
            bx.assign(&x.row(r));
            by.assign(&y.row(r));
        }
    }

    /// The minibatch's loss by the forward pass (the last `Δ` then holds
    /// `∂L/∂Z_{L+1}`).
    fn loss(&mut self, net: &Mlp) -> f64 {
        let weights = net.weights();
        let last = weights.len() - 1;
        // Forward: N_l = f([N_{l−1}, 1] W_l), Z_{L+1} into the last Δ.
        for (l, w) in weights.iter().enumerate() {
            if l < last {
                let (below, rest) = self.hidden.split_at_mut(l);
                let input = below.last().unwrap_or(&self.x);
                affine_into(input, w, &mut rest[0]);
                apply_hidden(net.hidden_activation(), rest[0].view_mut());
            } else {
                let input = self.hidden.last().unwrap_or(&self.x);
                affine_into(input, w, &mut self.deltas[last]);
            }
        }
        output_loss(&mut self.deltas[last], &self.y, net.output_activation(), self.loss)
    }

    /// The minibatch's loss; `grads[l]` ← its gradient with respect to
    /// layer `l`'s weights.
    fn loss_and_gradient(&mut self, net: &Mlp, slope: Slope, grads: &mut [Array2<f64>]) -> f64 {
        let weights = net.weights();
        let last = weights.len() - 1;
        let loss = self.loss(net);
        // Backward: gradients from Δ_l, then Δ_{l−1}.
        for l in (0..=last).rev() {
            let input = if l == 0 { &self.x } else { &self.hidden[l - 1] };
            let (below, rest) = self.deltas.split_at_mut(l);
            gradient_into(input, &rest[0], &mut grads[l]);
            if let Some(delta_below) = below.last_mut() {
                back_into(&rest[0], &weights[l], delta_below);
                slope.scale(delta_below, &self.hidden[l - 1]);
            }
        }
        loss
    }
}

/// The rows `0..n` of `w`: `V`, without the bias row.
fn without_bias(w: &Array2<f64>) -> ArrayView2<'_, f64> {
    w.slice_axis(Axis(0), Slice::from(..w.nrows() - 1))
}

/// `z ← [a, 1] w` (bias in the last row of `w`): the bias in every row,
/// then `a V` added by GEMM.
fn affine_into(a: &Array2<f64>, w: &Array2<f64>, z: &mut Array2<f64>) {
    let bias = w.row(w.nrows() - 1);
    for mut row in z.rows_mut() {
        row.assign(&bias);
    }
    general_mat_mul(1.0, a, &without_bias(w), 1.0, z);
}

/// `g ← [a, 1]ᵀ Δ`: `aᵀΔ` by GEMM into the rows above the bias row (a
/// contiguous block), the column sums of `Δ` in the bias row.
fn gradient_into(a: &Array2<f64>, delta: &Array2<f64>, g: &mut Array2<f64>) {
    let n = a.ncols();
    {
        let mut bias = g.row_mut(n);
        bias.fill(0.0);
        for row in delta.rows() {
            bias += &row;
        }
    }
    general_mat_mul(
        1.0,
        &a.t(),
        delta,
        0.0,
        &mut g.slice_axis_mut(Axis(0), Slice::from(..n)),
    );
}

/// `below ← Δ Vᵀ` (before the activation's slope), by GEMM.
fn back_into(delta: &Array2<f64>, w: &Array2<f64>, below: &mut Array2<f64>) {
    general_mat_mul(1.0, delta, &without_bias(w).t(), 0.0, below);
}

#[cfg(test)]
#[path = "backprop_tests.rs"]
mod tests;
