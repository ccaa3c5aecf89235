//! The JSON object `nn fit` prints ([`FitReport`], with its [`BlasJson`]),
//! and how a fit's figures and its model's part become one
//! ([`fit_report`]), for the in-memory and the streamed fit alike. The
//! fields every model reports are [`FitReport`]'s; a model's own (the
//! SLFN's objective, the BLS's updates, …) are declared in the model's file
//! and flattened into the same object.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::args::FitArgs;
use super::select;

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
    /// Activation name (the BLS's enhancement nodes: tanh; BPLS: the hidden
    /// layers').
    pub activation: String,
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
    /// The model's own fields (declared in its file: the BLS's
    /// `feature_nodes`, `enhancement_nodes`, `updates`; the SLFN's, the
    /// DFNN's and the BPLS model's `objective`, `iterations`,
    /// `termination`, …), at the top level of the object.
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

/// What the model's fit adds to the report ([`super::model_command::Trained`]
/// without the model).
pub(crate) struct Fitted {
    pub(crate) hidden: usize,
    pub(crate) lambda: Option<f64>,
    pub(crate) selection: Option<select::SelectionReport>,
    pub(crate) details: Map<String, Value>,
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
pub(crate) fn fit_report(args: &FitArgs, run: Run, fitted: Fitted) -> FitReport {
    let command = args.model.command();
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
    FitReport {
        model: command.kind().name().into(),
        task: args.task.name().into(),
        n_train,
        n_test,
        n_features,
        classes,
        hidden: fitted.hidden,
        activation: command.activation_name(),
        solver: command.solver_name(),
        lambda: fitted.lambda,
        seed: args.seed,
        scale: args.scale.name().into(),
        threads,
        blas: BlasJson::current(),
        train_seconds,
        test_metric_name: args.task.metric_name().into(),
        test_metric,
        train_metric,
        saved_to,
        chunk_rows: None,
        processes: None,
        selection: fitted.selection,
        details: fitted.details,
    }
}
