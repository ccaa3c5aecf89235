//! The JSON object `nn fit` prints ([`FitReport`], with its [`BlasJson`]),
//! and how a fit's figures, its model's shape and its trainer's report
//! become one ([`fit_report`]), for the in-memory and the streamed fit
//! alike.

use serde::{Deserialize, Serialize};

use super::args::{FitArgs, ModelKind};
use super::bpls::{self, BplsArgs};
use super::pipeline::FittedModel;
use super::{bls, select, train};
use models::Activation;

/// The `blas` object of the JSON report ([`linalg_core::blas_info::BlasInfo`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BlasJson {
    /// `OpenBLAS`.
    pub library: String,
    /// The build's version and options (`openblas_get_config`).
    pub config: String,
    /// The kernel set in use (`openblas_get_corename`).
    pub kernel: String,
    /// Who chose the kernel: `library` (OpenBLAS, from the CPUs it knows),
    /// `environment` (`OPENBLAS_CORETYPE` was set) or `chosen` (`nn`, from
    /// this CPU, because the library's own choice was a generic kernel:
    /// [`linalg_core::blas_kernel`]).
    #[serde(default)]
    pub chosen_by: String,
}

impl BlasJson {
    /// The library this process runs.
    pub fn current() -> Self {
        let b = linalg_core::blas_info::BlasInfo::current();
        BlasJson {
            library: b.library,
            config: b.config,
            kernel: b.kernel,
            chosen_by: linalg_core::blas_kernel::KernelSource::current().as_str().into(),
        }
    }
}

/// What `fit` prints: one JSON object.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FitReport {
    /// `elm`, `bls`, `slfn`, `dfnn` or `bpls`.
    pub model: String,
    /// `classification` or `regression`.
    pub task: String,
    /// Training samples.
    pub n_train: usize,
    /// Test samples.
    pub n_test: usize,
    /// Input features.
    pub n_features: usize,
    /// Classes (classification only).
    pub classes: Option<usize>,
    /// Hidden nodes (for the BLS: feature and enhancement nodes after the
    /// last update; for the DFNN and BPLS: the hidden layers' units in all).
    pub hidden: usize,
    /// DFNN and BPLS only: every layer's width, the output layer's last.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub layers: Option<Vec<usize>>,
    /// BLS only: feature nodes after the last update.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub feature_nodes: Option<usize>,
    /// BLS only: enhancement nodes after the last update.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub enhancement_nodes: Option<usize>,
    /// BLS only: one record per update (the start first).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub updates: Option<Vec<bls::UpdateJson>>,
    /// Activation name (the BLS's enhancement nodes: tanh; BPLS: the hidden
    /// layers').
    pub activation: String,
    /// BPLS only: the output layer's activation (`linear`, `sigmoid`,
    /// `softmax`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub output_activation: Option<String>,
    /// Solver name (for the BLS: the strategy's paper name; for the SLFN, the
    /// DFNN and BPLS: the trainer).
    pub solver: String,
    /// λ (omitted for `lstsq`, which does not use it; for the DFNN the `ρ`
    /// the fit used; for BPLS its λ, omitted for the backprop trainers).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lambda: Option<f64>,
    /// Seed.
    pub seed: u64,
    /// Input scaling: `zscore`, `minmax` or `none`.
    pub scale: String,
    /// BLAS threads the fit ran with.
    pub threads: usize,
    /// The BLAS library, its build and its kernel (issue 37: a generic
    /// kernel on a CPU with AVX2 runs at a fraction of its speed).
    #[serde(default)]
    pub blas: BlasJson,
    /// Wall time of the fit (hidden layer and output weights; not loading).
    pub train_seconds: f64,
    /// `accuracy` or `rmse`.
    pub test_metric_name: String,
    /// The metric on the test file.
    pub test_metric: f64,
    /// The same metric on the training file.
    pub train_metric: f64,
    /// Where the model was saved, if it was.
    pub saved_to: Option<String>,
    /// SLFN: the training error `E(λ, w)` of Grippo et al.'s eq. (5) at the
    /// end; DFNN: `f(w)` of Palagi & Seccia's objective (3) (both on the
    /// scaled data and targets the model was fitted to).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub objective: Option<f64>,
    /// DFNN only: `‖∇f(w)‖` at the end.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub gradient_norm: Option<f64>,
    /// SLFN: major iterations (DEC), iterations (L-BFGS), 1 (ELM); DFNN:
    /// B2LD cycles, L-BFGS iterations, epochs of BLInG and IG; BPLS: epochs
    /// run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub iterations: Option<usize>,
    /// SLFN: evaluations (DEC: of one unit's error; L-BFGS: of the whole
    /// error and gradient); DFNN: of the objective on the whole training set
    /// (0 for BLInG and IG).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub evaluations: Option<usize>,
    /// DFNN only: updates of each layer's block, first layer first (the
    /// paper's Table 5).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub updates_per_layer: Option<Vec<usize>>,
    /// SLFN (dec, lbfgs), DFNN and BPLS only: why the fit stopped (`time
    /// limit reached`, …).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub termination: Option<String>,
    /// SLFN, DEC: the objective after every major iteration; DFNN: at the
    /// start and after every iteration (and at the end when a time limit
    /// cut an iteration short).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub objective_trace: Option<Vec<f64>>,
    /// DFNN only: the training time (s) of each `objective_trace` point.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub trace_seconds: Option<Vec<f64>>,
    /// BPLS, `--trainer bpls` only: `Algorithm 1` or `Algorithm 2 (τ_max = K)`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub algorithm: Option<String>,
    /// BPLS, `--trainer bpls` only: the epoch whose weights were returned
    /// (Algorithm 2 keeps the weights with the fewest misses).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub best_epoch: Option<usize>,
    /// BPLS, backprop trainers only: the learning rate η.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub learning_rate: Option<f64>,
    /// BPLS, backprop trainers only: samples per minibatch.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub batch_size: Option<usize>,
    /// BPLS, backprop trainers only: `cross-entropy` (softmax output) or
    /// `squared-error`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub loss_function: Option<String>,
    /// BPLS only: one record per epoch (seconds, misses and training
    /// accuracy for classification, training MSE, backprop's loss).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub epochs: Option<Vec<bpls::EpochJson>>,
    /// Streamed fits (`--chunk-rows`): the rows per chunk read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chunk_rows: Option<usize>,
    /// Fits over several processes (`--distributed`): how many.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub processes: Option<usize>,
    /// `--select-lambda` / `--grow-until-val`: the choice and the curve
    /// (`lambda` and `hidden` above are the chosen ones).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selection: Option<select::SelectionReport>,
}

/// What the fitted model's shape adds to the report.
pub(crate) struct ModelShape {
    feature_nodes: Option<usize>,
    enhancement_nodes: Option<usize>,
    layers: Option<Vec<usize>>,
    output_activation: Option<String>,
}

impl ModelShape {
    pub(crate) fn of(model: &FittedModel) -> Self {
        let (feature_nodes, enhancement_nodes) = match model {
            FittedModel::Bls(m) => (Some(m.feature_nodes()), Some(m.enhancement_nodes())),
            FittedModel::OnlineBls(m) => (Some(m.model().feature_nodes()), Some(m.model().enhancement_nodes())),
            _ => (None, None),
        };
        let layers = match model {
            FittedModel::Dfnn(net) => Some(net.widths()),
            FittedModel::Mlp(net) => Some([net.hidden_widths(), vec![models::Predict::n_outputs(net)]].concat()),
            _ => None,
        };
        let output_activation = match model {
            FittedModel::Mlp(net) => Some(net.output_activation().name().to_string()),
            _ => None,
        };
        ModelShape {
            feature_nodes,
            enhancement_nodes,
            layers,
            output_activation,
        }
    }
}

/// The figures of one fit that every model reports.
pub(crate) struct Run {
    pub(crate) n_train: usize,
    pub(crate) n_test: usize,
    pub(crate) n_features: usize,
    pub(crate) classes: Option<usize>,
    pub(crate) threads: usize,
    pub(crate) train_seconds: f64,
    pub(crate) test_metric: f64,
    pub(crate) train_metric: f64,
    pub(crate) saved_to: Option<String>,
}

/// The JSON report of a fit (in memory; the streamed fit sets its own
/// fields after).
pub(crate) fn fit_report(args: &FitArgs, run: Run, shape: ModelShape, info: train::TrainInfo) -> FitReport {
    let (updates, slfn, dfnn) = (info.updates, info.slfn.as_ref(), info.dfnn.as_ref());
    let mlp = info.bpls;
    let Run {
        n_train,
        n_test,
        n_features,
        classes,
        threads,
        train_seconds,
        test_metric,
        train_metric,
        saved_to,
    } = run;
    let ModelShape {
        feature_nodes,
        enhancement_nodes,
        layers,
        output_activation,
    } = shape;
    FitReport {
        model: args.model.name().into(),
        task: args.task.name().into(),
        n_train,
        n_test,
        n_features,
        classes,
        hidden: info.selection.as_ref().map_or(args.hidden, |s| s.nodes),
        layers,
        feature_nodes,
        enhancement_nodes,
        updates,
        activation: match args.model {
            ModelKind::Elm => args.activation.to_string(),
            ModelKind::Bls => Activation::Tanh.to_string(),
            ModelKind::Slfn | ModelKind::Dfnn => Activation::Sigmoid.to_string(),
            ModelKind::Bpls => args.activation.to_string(),
        },
        output_activation,
        solver: match args.model {
            ModelKind::Elm => args.solver.to_string(),
            ModelKind::Bls => args.bls.strategy.to_string(),
            ModelKind::Slfn => args.trainer.to_string(),
            ModelKind::Dfnn => args.dfnn.as_ref().map_or("", |d| d.trainer.name()).to_string(),
            ModelKind::Bpls => args.bpls.as_ref().map_or("", BplsArgs::trainer_name).to_string(),
        },
        lambda: match args.model {
            ModelKind::Elm if !args.solver.uses_lambda() => None,
            ModelKind::Slfn if args.trainer == models::SlfnTrainer::Elm => None,
            ModelKind::Dfnn => dfnn.map(|&(_, rho)| rho),
            ModelKind::Bpls => mlp.as_ref().and_then(|m| m.lambda),
            _ => Some(info.selection.as_ref().map_or(args.lambda, |s| s.lambda)),
        },
        seed: args.seed,
        scale: args.scale.name().into(),
        threads,
        blas: BlasJson::current(),
        train_seconds,
        test_metric_name: args.task.metric_name().into(),
        test_metric,
        train_metric,
        saved_to,
        objective: slfn.map(|r| r.objective).or(dfnn.map(|(r, _)| r.objective)),
        gradient_norm: dfnn.map(|(r, _)| r.gradient_norm),
        iterations: slfn
            .map(|r| r.iterations)
            .or(dfnn.map(|(r, _)| r.iterations))
            .or(mlp.as_ref().map(|m| m.epochs.len())),
        evaluations: slfn
            .map(|r| r.evaluations.gradients.max(r.evaluations.values))
            .or(dfnn.map(|(r, _)| r.evaluations)),
        updates_per_layer: dfnn.map(|(r, _)| r.updates_per_layer.clone()),
        termination: dfnn
            .map(|(r, _)| r.termination.to_string())
            .or(mlp.as_ref().map(|m| m.termination.clone()))
            .or(slfn.and_then(|r| r.termination).map(|t| t.to_string())),
        objective_trace: slfn
            .and_then(|r| r.dec.as_ref())
            .map(|d| d.trace.iter().map(|t| t.objective).collect())
            .or(dfnn.map(|(r, _)| r.trace.iter().map(|t| t.objective).collect())),
        trace_seconds: dfnn.map(|(r, _)| r.trace.iter().map(|t| t.seconds).collect()),
        algorithm: mlp.as_ref().and_then(|m| m.algorithm.clone()),
        best_epoch: mlp.as_ref().and_then(|m| m.best_epoch),
        learning_rate: mlp.as_ref().and_then(|m| m.learning_rate),
        batch_size: mlp.as_ref().and_then(|m| m.batch_size),
        loss_function: mlp.as_ref().and_then(|m| m.loss_function.map(str::to_string)),
        epochs: mlp.map(|m| m.epochs),
        chunk_rows: None,
        processes: None,
        selection: info.selection,
    }
}
