//! The BPLS half of `nn fit --model bpls`: the fully connected network of
//! Tomic, Matos-Carvalho & Beko (2024; [`models::mlp`]) trained by BPLS
//! (back-propagating least squares, their Algorithms 1 and 2) or, for their
//! comparison, by backpropagation with Adam, NAG, SGD or AdaGrad — its flags
//! and their checks, the fit with one progress line per epoch on stderr,
//! the per-epoch records of the JSON, and the checks of a network loaded
//! from a model file.
//!
//! `--layers` (shared with `--model dfnn`) lists the hidden widths; the
//! output layer (one unit for regression, one per class) is added from the
//! targets. Classification runs Algorithm 2 (`--iterations` = its `τ_max`,
//! default 39: at most 40 epochs, the paper's budget) with a softmax output;
//! regression runs Algorithm 1 (one epoch) with a linear output, on the
//! standardized targets. Both trainers start from the same random network
//! (every weight uniform on `[−1, 1]` from `--seed`, the paper's line 1).

use std::ops::ControlFlow;

use clap::{Args, ValueEnum};
use models::mlp::{Backprop, BplsAlgorithm, BplsParams, BplsReport, Loss, Mlp, OutputActivation, DEFAULT_LAMBDA};
use models::{Activation, Dataset, ModelError, ParamGuard, Predict};
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

use super::budget::FitSize;
use super::common::{CommonFlags, ModelKind, TaskKind};
use super::error::CliError;
use super::model_command::{details_of, FitContext, ModelCommand, ModelFlags, Resolved, Trained};
use super::shared_flags::{ActivationFlag, LayersFlag, MinibatchFlags, TimeLimitFlag, TrainerFlag};
use super::trainer::TrainerArg;
use crate::datasets::argmax_rows;
use nn_data::pipeline::FittedModel;

const HEADING: &str = "BPLS (--model bpls)";

/// `τ_max` of Algorithm 2 by default: 39 passes on the misses after the
/// first pass, at most 40 epochs (the budget of Tomic et al.'s MNIST runs).
pub const DEFAULT_ITERATIONS: usize = models::mlp::DEFAULT_MAX_ITERATIONS;
/// Samples per minibatch of the backprop trainers by default (Tomic et al.
/// used 1, which is slower per epoch by orders of magnitude): the params
/// type's [`Backprop::PRACTICAL_BATCH_SIZE`](models::mlp::Backprop::PRACTICAL_BATCH_SIZE).
pub const DEFAULT_BATCH_SIZE: usize = models::mlp::Backprop::PRACTICAL_BATCH_SIZE;
/// Epochs of the backprop trainers by default: Tomic et al.'s 40
/// ([`Backprop::PAPER_EPOCHS`](models::mlp::Backprop::PAPER_EPOCHS)).
pub const DEFAULT_MAX_EPOCHS: usize = models::mlp::Backprop::PAPER_EPOCHS;
/// The starting weights are uniform on `[−INIT_SCALE, INIT_SCALE)`: the
/// paper's `U[−1, 1]` (Algorithms 1 and 2, line 1), for every trainer.
pub const INIT_SCALE: f64 = models::mlp::INIT_SCALE;

/// The flags of `nn fit --model bpls` besides the common ones
/// ([`CommonFlags`]): exactly the flags that apply to the BPLS model, so
/// that any other is refused ([`FitFlags`](crate::cli::FitFlags)).
#[derive(Clone, Debug, Args)]
pub struct BplsFlags {
    /// `--layers` (shared with `--model dfnn`).
    #[command(flatten)]
    pub layers: LayersFlag,
    /// `--activation` of the hidden layers (sigmoid, tanh or linear).
    #[command(flatten)]
    pub activation: ActivationFlag,
    /// `--trainer`: bpls, adam, nag, sgd or adagrad.
    #[command(flatten)]
    pub trainer: TrainerFlag,
    /// `--time-limit` (the backprop trainers).
    #[command(flatten)]
    pub time_limit: TimeLimitFlag,
    /// `--batch-size` and `--max-epochs` (the backprop trainers).
    #[command(flatten)]
    pub minibatch: MinibatchFlags,
    /// τ_max of Algorithm 2 (classification; --trainer bpls only): at most
    /// K passes on the misclassified samples after the first pass, while the
    /// misses decrease; 0 = the first pass only [default: 39, at most 40
    /// epochs]. Regression runs Algorithm 1 (one pass) and refuses it.
    #[arg(long, value_name = "K", help_heading = HEADING)]
    pub iterations: Option<usize>,
    /// The output layer's activation [default: softmax for classification,
    /// linear for regression (the only one for regression: its targets are
    /// standardized)].
    #[arg(long, value_enum, value_name = "NAME", ignore_case = true, help_heading = HEADING)]
    pub output_activation: Option<OutputArg>,
    /// Learning rate η of the backprop trainers (adam, nag, sgd, adagrad)
    /// [default: 0.001, Tomic et al.'s].
    #[arg(long, value_name = "ETA", value_parser = learning_rate, help_heading = HEADING)]
    pub learning_rate: Option<f64>,
}

/// `--output-activation`: the output layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    /// `y = z` (regression).
    Linear,
    /// `y = 1/(1 + e^{−z})`, one per class.
    Sigmoid,
    /// `y = softmax(z)` over the classes (classification).
    Softmax,
}

impl From<OutputArg> for OutputActivation {
    fn from(o: OutputArg) -> Self {
        match o {
            OutputArg::Linear => OutputActivation::Linear,
            OutputArg::Sigmoid => OutputActivation::Sigmoid,
            OutputArg::Softmax => OutputActivation::Softmax,
        }
    }
}

/// A learning rate: finite and > 0.
fn learning_rate(text: &str) -> Result<f64, String> {
    let eta: f64 = text.trim().parse().map_err(|e| format!("not a number ({e})"))?;
    if !(eta.is_finite() && eta > 0.0) {
        return Err("the learning rate η must be finite and > 0".into());
    }
    Ok(eta)
}

/// How the network is trained.
#[derive(Clone, Debug, PartialEq)]
pub enum MlpTrainer {
    /// BPLS: Algorithm 1 (regression) or 2 (classification) with the ridge
    /// parameter λ of every least-squares solve.
    Bpls {
        /// Algorithm 1 or 2 (`τ_max` from `--iterations`).
        algorithm: BplsAlgorithm,
        /// λ (`--lambda`).
        lambda: f64,
    },
    /// Minibatch backpropagation with a first-order rule (the paper's
    /// baselines), shuffled every epoch from `--seed`.
    Backprop(Backprop),
}

/// The resolved `--model bpls` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BplsArgs {
    /// The hidden layers' widths (`--layers`).
    pub hidden: Vec<usize>,
    /// The hidden layers' activation (`--activation`: sigmoid, tanh, linear).
    pub hidden_activation: Activation,
    /// The output layer's activation (`--output-activation`).
    pub output: OutputActivation,
    /// The trainer with its settings.
    pub trainer: MlpTrainer,
    /// The backprop trainers' `--time-limit`: no epoch starts after it.
    pub time_limit: Option<std::time::Duration>,
    /// `--seed` (the starting weights; backprop's shuffles).
    pub seed: u64,
}

impl BplsArgs {
    /// The hidden units in all (the JSON's `hidden`).
    pub fn hidden_units(&self) -> usize {
        self.hidden.iter().sum()
    }

    /// The trainer's name as `--trainer` spells it (`bpls`, `adam`, …).
    pub fn trainer_name(&self) -> &'static str {
        match &self.trainer {
            MlpTrainer::Bpls { .. } => TrainerArg::Bpls.name(),
            MlpTrainer::Backprop(b) => b.method.name(),
        }
    }
}

fn usage(text: impl Into<String>) -> CliError {
    CliError::Usage(text.into())
}

/// Resolve the BPLS settings from the parsed flags (`--trainer` already
/// checked to be one of the model's: [`TrainerArg::check_model`]).
///
/// # Errors
/// [`CliError::Usage`] naming the flag: no `--layers`, more hidden units
/// than a `usize` counts, a hidden activation without an inverse, an output
/// activation other than linear for regression, `--iterations` with
/// regression or a backprop trainer, `--batch-size`, `--max-epochs` or
/// `--learning-rate` with `--trainer bpls`, `--lambda` with a backprop
/// trainer or not finite and > 0.
pub(crate) fn resolve(flags: &BplsFlags, common: &CommonFlags) -> Result<BplsArgs, CliError> {
    flags
        .trainer
        .trainer
        .map(|t| t.check_model(ModelKind::Bpls))
        .transpose()?;
    let hidden = super::shared_flags::required_layers(&flags.layers, "bpls", "50")?;
    let hidden_activation = flags.activation.activation.0;
    if !hidden_activation.is_invertible() {
        return Err(usage(format!(
            "--activation {hidden_activation} does not apply to --model bpls: BPLS maps the targets back through \
             the inverse of the hidden activation, so the network's hidden layers are sigmoid, tanh or linear"
        )));
    }
    let classification = common.task == TaskKind::Classification;
    let output = match flags.output_activation {
        Some(o) => OutputActivation::from(o),
        None if classification => OutputActivation::Softmax,
        None => OutputActivation::Linear,
    };
    if !classification && output != OutputActivation::Linear {
        return Err(usage(format!(
            "--output-activation {} does not apply to a regression task: the targets are standardized (mean 0, \
             deviation 1), outside a {}'s range; regression uses a linear output",
            output.name(),
            output.name()
        )));
    }
    let arg = flags.trainer.trainer.unwrap_or(TrainerArg::Bpls);
    let name = arg.name();
    let trainer = match (arg, arg.first_order()) {
        (TrainerArg::Bpls, _) => {
            for (given, flag, why) in [
                (
                    flags.minibatch.batch_size.is_some(),
                    "--batch-size",
                    "BPLS solves every layer on all samples at once",
                ),
                (
                    flags.minibatch.max_epochs.is_some(),
                    "--max-epochs",
                    "BPLS's epochs are set by --iterations",
                ),
                (
                    flags.learning_rate.is_some(),
                    "--learning-rate",
                    "BPLS takes no steps: every layer is a least-squares solve",
                ),
                (
                    flags.time_limit.time_limit.is_some(),
                    "--time-limit",
                    "BPLS stops after its --iterations passes",
                ),
            ] {
                if given {
                    return Err(usage(format!(
                        "{flag} does not apply to --trainer bpls: only the backprop trainers adam, nag, sgd, \
                         adagrad take it ({why})"
                    )));
                }
            }
            let algorithm = match (classification, flags.iterations) {
                (true, k) => BplsAlgorithm::NonInjective {
                    max_iterations: k.unwrap_or(DEFAULT_ITERATIONS),
                },
                (false, None) => BplsAlgorithm::Injective,
                (false, Some(_)) => {
                    return Err(usage(
                        "--iterations does not apply to a regression task: it is τ_max of Algorithm 2, which \
                         repeats passes on the misclassified samples; regression runs Algorithm 1 (one pass)",
                    ))
                }
            };
            let lambda = common.lambda.unwrap_or(DEFAULT_LAMBDA);
            if !(lambda.is_finite() && lambda > 0.0) {
                return Err(usage(format!(
                    "--lambda {lambda}: BPLS's λ must be finite and > 0 (it keeps every layer's least-squares \
                     solve well posed)"
                )));
            }
            MlpTrainer::Bpls { algorithm, lambda }
        }
        (_, Some(kind)) => {
            if flags.iterations.is_some() {
                return Err(usage(format!(
                    "--iterations does not apply to --trainer {name}: it is τ_max of BPLS's Algorithm 2; \
                     backprop runs --max-epochs epochs"
                )));
            }
            if common.lambda.is_some() {
                return Err(usage(format!(
                    "--lambda does not apply to --trainer {name}: backprop minimizes the loss without a ridge term \
                     (λ is BPLS's)"
                )));
            }
            let backprop = Backprop::new(kind)
                .with_learning_rate(flags.learning_rate.unwrap_or(kind.paper_learning_rate()))
                .with_batch_size(flags.minibatch.batch_size.unwrap_or(DEFAULT_BATCH_SIZE))
                .with_epochs(flags.minibatch.max_epochs.unwrap_or(DEFAULT_MAX_EPOCHS))
                .with_shuffle(Some(common.seed));
            backprop.check()?;
            MlpTrainer::Backprop(backprop)
        }
        (_, None) => {
            return Err(usage(format!(
                "--trainer {name} does not apply to --model bpls: its trainers are bpls, adam, nag, sgd, adagrad"
            )))
        }
    };
    Ok(BplsArgs {
        hidden,
        hidden_activation,
        output,
        trainer,
        time_limit: flags.time_limit.time_limit,
        seed: common.seed,
    })
}

impl ModelFlags for BplsFlags {
    type Settings = BplsArgs;
    const KIND: ModelKind = ModelKind::Bpls;

    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<BplsArgs>, CliError> {
        let _ = typed;
        resolve(self, common).map(Resolved::alone)
    }
}

/// The BPLS model's own fields of the JSON report.
#[derive(Serialize)]
struct BplsJson {
    /// Every layer's width, the output layer's last.
    layers: Vec<usize>,
    /// The output layer's activation (`linear`, `sigmoid`, `softmax`).
    output_activation: String,
    /// Epochs run.
    iterations: usize,
    /// Why the fit stopped.
    termination: String,
    /// `--trainer bpls` only: `Algorithm 1` or `Algorithm 2 (τ_max = K)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<String>,
    /// `--trainer bpls` only: the epoch whose weights were returned
    /// (Algorithm 2 keeps the weights with the fewest misses).
    #[serde(skip_serializing_if = "Option::is_none")]
    best_epoch: Option<usize>,
    /// Backprop trainers only: the learning rate η.
    #[serde(skip_serializing_if = "Option::is_none")]
    learning_rate: Option<f64>,
    /// Backprop trainers only: samples per minibatch.
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_size: Option<usize>,
    /// Backprop trainers only: `cross-entropy` (softmax output) or
    /// `squared-error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    loss_function: Option<&'static str>,
    /// One record per epoch.
    epochs: Vec<EpochJson>,
}

impl ModelCommand for BplsArgs {
    fn kind(&self) -> ModelKind {
        ModelKind::Bpls
    }

    fn hidden_units(&self) -> usize {
        BplsArgs::hidden_units(self)
    }

    fn activation_name(&self) -> String {
        self.hidden_activation.to_string()
    }

    fn solver_name(&self) -> String {
        self.trainer_name().to_string()
    }

    fn describe(&self, outputs: usize) -> String {
        format!(
            "BPLS network with hidden layers {:?} ({}) and a {} output layer of {outputs} unit(s), trainer {}",
            self.hidden,
            self.hidden_activation,
            self.output.name(),
            self.trainer_name()
        )
    }

    fn fit_bytes(&self, size: FitSize) -> Option<u128> {
        fit_bytes(self, size)
    }

    fn smaller_fit_flags(&self) -> String {
        "fewer or narrower layers (--layers)".into()
    }

    fn train(&self, ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError> {
        let (net, info) = fit(self, self.seed, ctx.task, x, y)?;
        let details = details_of(&BplsJson {
            layers: [net.hidden_widths(), vec![Predict::n_outputs(&net)]].concat(),
            output_activation: net.output_activation().name().to_string(),
            iterations: info.epochs.len(),
            termination: info.termination,
            algorithm: info.algorithm,
            best_epoch: info.best_epoch,
            learning_rate: info.learning_rate,
            batch_size: info.batch_size,
            loss_function: info.loss_function,
            epochs: info.epochs,
        })?;
        Ok(Trained {
            model: FittedModel::Mlp(net),
            hidden: BplsArgs::hidden_units(self),
            lambda: info.lambda,
            selection: None,
            details,
        })
    }
}

/// One epoch of the fit, as the JSON's `epochs` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochJson {
    /// 1, 2, … (BPLS: 1 is the pass on all samples, then the passes on the
    /// misses).
    pub epoch: usize,
    /// Training seconds since the fit started, at the end of the epoch (the
    /// evaluation of these records not counted).
    pub seconds: f64,
    /// BPLS only: the samples the pass solved on (all, or the misses).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub samples: Option<usize>,
    /// Classification: misclassified training samples after the epoch.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub misses: Option<usize>,
    /// Classification: the training accuracy after the epoch.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub train_accuracy: Option<f64>,
    /// The mean squared error of the outputs over all training samples and
    /// outputs after the epoch (regression: on the standardized targets;
    /// classification: against the one-hot targets).
    pub train_mse: f64,
    /// Backprop only: the epoch's loss (`loss_function`), averaged over its
    /// minibatches as they were processed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub loss: Option<f64>,
}

/// What a fit reports besides the network.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BplsInfo {
    /// One record per epoch.
    pub(crate) epochs: Vec<EpochJson>,
    /// BPLS: the epoch whose weights were returned.
    pub(crate) best_epoch: Option<usize>,
    /// BPLS: `Algorithm 1` or `Algorithm 2 (τ_max = K)`.
    pub(crate) algorithm: Option<String>,
    /// Why the fit stopped.
    pub(crate) termination: String,
    /// BPLS: λ.
    pub(crate) lambda: Option<f64>,
    /// Backprop: η, the batch size and the loss.
    pub(crate) learning_rate: Option<f64>,
    pub(crate) batch_size: Option<usize>,
    pub(crate) loss_function: Option<&'static str>,
}

/// Misses and the mean squared error of `net` on `x` against `y`
/// (classification: the arg max of the outputs against the class `truth`).
fn evaluate(net: &Mlp, x: ArrayView2<'_, f64>, y: &Array2<f64>, truth: Option<&[usize]>) -> (Option<usize>, f64) {
    let Ok(out) = net.predict(x) else {
        return (None, f64::NAN);
    };
    let mse = mse(&out, y);
    let misses = truth.map(|t| argmax_rows(&out).iter().zip(t).filter(|(p, t)| p != t).count());
    (misses, mse)
}

fn mse(out: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let s: f64 = out.iter().zip(y).map(|(o, t)| (o - t) * (o - t)).sum();
    s / out.len().max(1) as f64
}

/// `"7000 misses (88.33% train accuracy), "` or nothing.
fn misses_text(misses: Option<usize>, k: usize) -> String {
    misses.map_or_else(String::new, |m| {
        format!("{m} misses ({:.2}% train accuracy), ", 100.0 * accuracy(m, k))
    })
}

fn accuracy(misses: usize, k: usize) -> f64 {
    1.0 - misses as f64 / k.max(1) as f64
}

/// Why Algorithm 2 stopped (line 18 read as in [`models::mlp`]).
fn termination(report: &BplsReport) -> String {
    let BplsAlgorithm::NonInjective { max_iterations } = report.algorithm else {
        return "Algorithm 1: one pass".into();
    };
    let e = &report.epochs;
    let last = e.last().and_then(|r| r.misses);
    let before = e.len().checked_sub(2).and_then(|i| e[i].misses);
    match (last, before) {
        (Some(l), Some(b)) if l >= b => format!(
            "the misses did not decrease ({b} → {l}): weights of epoch {}",
            report.best_epoch
        ),
        (Some(0), _) => "no misclassified training sample left".into(),
        _ if e.len() > max_iterations => format!("τ_max = {max_iterations} passes on the misses done"),
        _ => "stopped".into(),
    }
}

/// Build the random network on `x`'s features with `y`'s columns as
/// outputs (seed `seed`) and train it with the settings `args`. Progress on
/// stderr: one `nn fit: bpls epoch K …` (or `adam epoch K …`) line per
/// epoch with the seconds and the training misses (classification) or the
/// training MSE, then one line on how it stopped.
///
/// # Errors
/// The model's: data or parameters it refuses, a failed least-squares
/// solve, a diverged backprop run (its remedy naming `--learning-rate`:
/// [`diverged`]).
pub(crate) fn fit(
    args: &BplsArgs,
    seed: u64,
    task: TaskKind,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(Mlp, BplsInfo), CliError> {
    let data = Dataset::new(x.view(), y.view());
    let k = x.nrows();
    let truth = (task == TaskKind::Classification).then(|| argmax_rows(y).to_vec());
    let name = args.trainer_name();
    match &args.trainer {
        MlpTrainer::Bpls { algorithm, lambda } => {
            let params = BplsParams::new(args.hidden.clone())
                .with_hidden_activation(args.hidden_activation)
                .with_output(args.output)
                .with_algorithm(*algorithm)
                .with_lambda(*lambda)
                .with_init_scale(INIT_SCALE)
                .with_seed(seed)
                .check()?;
            say!("nn fit: BPLS, {algorithm}, λ = {lambda:e}");
            let mut epochs = Vec::new();
            let (net, report) = params.fit_with_report(&data, |e, _| {
                let on = if e.epoch == 1 {
                    format!("all {} samples", e.samples)
                } else {
                    format!("{} misses", e.samples)
                };
                say!(
                    "nn fit: bpls epoch {} (on {on}): {}train MSE {:.4e} ({:.2} s)",
                    e.epoch,
                    misses_text(e.misses, k),
                    e.train_mse,
                    e.seconds
                );
                epochs.push(EpochJson {
                    epoch: e.epoch,
                    seconds: e.seconds,
                    samples: Some(e.samples),
                    misses: e.misses,
                    train_accuracy: e.misses.map(|m| accuracy(m, k)),
                    train_mse: e.train_mse,
                    loss: None,
                });
            })?;
            let termination = termination(&report);
            say!(
                "nn fit: bpls stopped after {} epoch(s) ({termination}); best epoch {}",
                report.epochs.len(),
                report.best_epoch
            );
            let info = BplsInfo {
                epochs,
                best_epoch: Some(report.best_epoch),
                algorithm: Some(algorithm.to_string()),
                termination,
                lambda: Some(*lambda),
                learning_rate: None,
                batch_size: None,
                loss_function: None,
            };
            Ok((net, info))
        }
        MlpTrainer::Backprop(backprop) => {
            let mut net = Mlp::random(
                x.ncols(),
                &args.hidden,
                y.ncols(),
                args.hidden_activation,
                args.output,
                seed,
                INIT_SCALE,
            )?;
            let loss = Loss::for_output(args.output);
            say!(
                "nn fit: backprop with {}, η = {:e}, batch size {}, {} epochs, {} loss",
                backprop.method.label(),
                backprop.learning_rate,
                backprop.batch_size,
                backprop.epochs,
                loss.name()
            );
            let mut epochs = Vec::new();
            let (started, mut timed_out) = (std::time::Instant::now(), false);
            let report = backprop.train(&mut net, &data, |e, net| {
                let (misses, train_mse) = evaluate(net, x.view(), y, truth.as_deref());
                say!(
                    "nn fit: {name} epoch {}: loss {:.4e}, {}train MSE {train_mse:.4e} ({:.2} s)",
                    e.epoch,
                    e.loss,
                    misses_text(misses, k),
                    e.seconds
                );
                epochs.push(EpochJson {
                    epoch: e.epoch,
                    seconds: e.seconds,
                    samples: None,
                    misses,
                    train_accuracy: misses.map(|m| accuracy(m, k)),
                    train_mse,
                    loss: Some(e.loss),
                });
                if args.time_limit.is_some_and(|limit| started.elapsed() >= limit) {
                    timed_out = true;
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            });
            let report = report.map_err(|e| diverged(backprop, e))?;
            let termination = if timed_out {
                format!("time limit reached (--time-limit) after {} epochs", report.epochs.len())
            } else {
                format!("all {} epochs run (--max-epochs)", report.epochs.len())
            };
            say!(
                "nn fit: {name} stopped: {termination}, {} updates ({:.2} s)",
                report.updates,
                report.elapsed.as_secs_f64()
            );
            let info = BplsInfo {
                epochs,
                best_epoch: None,
                algorithm: None,
                termination,
                lambda: None,
                learning_rate: Some(backprop.learning_rate),
                batch_size: Some(backprop.batch_size),
                loss_function: Some(loss.name()),
            };
            Ok((net, info))
        }
    }
}

/// A backprop run that diverged ([`Backprop::is_divergence`]: the loss
/// not finite, or above 10⁶ times the starting loss) as the failed fit it
/// is (exit code 1), its remedy naming `--learning-rate` with a smaller
/// value — the default when η is above it, a tenth of η otherwise; any
/// other error as it is.
fn diverged(backprop: &Backprop, e: ModelError) -> CliError {
    match e {
        ModelError::Training { trainer, reason } if Backprop::is_divergence(&e) => {
            let (eta, default) = (backprop.learning_rate, backprop.method.paper_learning_rate());
            let smaller = if eta > default { default } else { eta / 10.0 };
            CliError::Model(ModelError::Training {
                trainer,
                reason: format!("{reason} (e.g. --learning-rate {smaller:e})"),
            })
        }
        other => other.into(),
    }
}

/// Bytes of the fit (a lower bound on the peak, as `budget.rs`'s
/// other estimates), in 8-byte floats, with `n_ℓ` every layer's width (the
/// output layer's last), `W` the weights, K training and K_test test
/// samples, N features:
///
/// - BPLS: every layer's outputs kept by the forward pass (K·Σn_ℓ), four
///   K × max n_ℓ buffers of a layer's step (targets, residual, neuron
///   targets and their inverses), the misses' copy of the features and
///   their forward pass (Algorithm 2: K·N + K·Σn_ℓ), four copies of the
///   weights (network, best, the misses' pass, the blend), and the largest
///   matrix a layer step factors (one at a time): the weights' system,
///   min(K, n_{ℓ−1}+1)² (the (n+1)² Gram matrix, or the K×K dual one when
///   there are fewer samples), and the neuron targets' min(n_{ℓ−1}, n_ℓ)²;
/// - backprop: the minibatch buffers (2·2·B·Σn_ℓ, a shorter last batch
///   too), the weights with their gradients and two moments (4·W), and the
///   per-epoch evaluation on the training set (K·Σn_ℓ);
/// - both: two layers' outputs on the test file (2·K_test·max n_ℓ).
pub(crate) fn fit_bytes(args: &BplsArgs, size: FitSize) -> Option<u128> {
    let (k, kt, n) = (size.train as u128, size.test as u128, size.features as u128);
    let (mut units, mut widest, mut weights, mut fan_in) = (0u128, 0u128, 0u128, n);
    let mut square = 0u128;
    for (l, &w) in args.hidden.iter().chain([&size.outputs]).enumerate() {
        let w = w as u128;
        units = units.checked_add(w)?;
        widest = widest.max(w);
        weights = weights.checked_add(w.checked_mul(fan_in.checked_add(1)?)?)?;
        let solve = k.min(fan_in.checked_add(1)?);
        let targets = if l > 0 { fan_in.min(w) } else { 0 };
        square = square.max(solve.checked_mul(solve)?).max(targets.checked_mul(targets)?);
        fan_in = w;
    }
    let test = kt.checked_mul(2)?.checked_mul(widest)?;
    let doubles = match &args.trainer {
        MlpTrainer::Bpls { algorithm, .. } => {
            let misses = match algorithm {
                BplsAlgorithm::Injective => 0,
                BplsAlgorithm::NonInjective { .. } => k.checked_mul(n.checked_add(units)?)?,
            };
            k.checked_mul(units)?
                .checked_add(k.checked_mul(widest)?.checked_mul(4)?)?
                .checked_add(misses)?
                .checked_add(weights.checked_mul(4)?)?
                .checked_add(square)?
        }
        MlpTrainer::Backprop(b) => (b.batch_size as u128)
            .min(k)
            .checked_mul(4)?
            .checked_mul(units)?
            .checked_add(weights.checked_mul(4)?)?
            .checked_add(k.checked_mul(units)?)?,
    };
    doubles.checked_add(test)?.checked_mul(8)
}

#[cfg(test)]
#[path = "bpls_tests.rs"]
mod tests;
