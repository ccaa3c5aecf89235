//! What every model's part of the command line shares: the flags every
//! model takes ([`CommonFlags`]), the model names ([`ModelKind`]), the
//! defaults ([`defaults`]), the values of the enumerated flags and the
//! small parsers. The bottom of `cli/`: it imports no other `cli` module
//! but the error.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use linalg_core::ridge::Strategy;
use models::{Activation, BlsParams, ElmParams, ReadoutSolver as Solver, SlfnParams, SlfnTrainer};
use serde::{Deserialize, Serialize};

/// `--task` and `--scale`: the data layer's types (they are saved in the
/// pipeline), with clap's `ValueEnum` from `nn-data`'s `clap` feature.
pub use nn_data::pipeline::{Scale, TaskKind};

use super::error::CliError;
use crate::datasets::HeaderMode;

/// The defaults of every flag, taken from the model types' constants where
/// they have one (the λ of each model) — the one place the command line
/// reads them from.
pub mod defaults {
    use super::{BlsParams, ElmParams, SlfnParams, SlfnTrainer, Strategy};

    /// The ELM's λ: Zhu & Wei's `k₀² = 0.1` ([`ElmParams::DEFAULT_LAMBDA`]).
    pub const ELM_LAMBDA: f64 = ElmParams::DEFAULT_LAMBDA;
    /// The BLS's λ: Chen & Liu's `C = 2⁻³⁰` ([`BlsParams::DEFAULT_LAMBDA`]).
    pub const BLS_LAMBDA: f64 = BlsParams::DEFAULT_LAMBDA;
    /// The SLFN's `τ_λ` (its ridge parameter on the output weights):
    /// Grippo et al.'s `10⁻³` ([`SlfnParams::DEFAULT_TAU_LAMBDA`]).
    pub const SLFN_LAMBDA: f64 = SlfnParams::DEFAULT_TAU_LAMBDA;
    /// The SLFN's trainer: DEC(10) ([`SlfnParams::DEFAULT_TRAINER`]).
    pub const SLFN_TRAINER: SlfnTrainer = SlfnParams::DEFAULT_TRAINER;
    /// Seed of every random map ([`ElmParams::DEFAULT_SEED`], the BLS's too).
    pub const SEED: u64 = ElmParams::DEFAULT_SEED;
    /// First size of an incrementally grown ELM (Zhu & Wei's protocol).
    pub const INITIAL_NODES: usize = 2;
    /// BLS feature groups of the initial network.
    pub const FEATURE_GROUPS: usize = BlsParams::DEFAULT_FEATURE_GROUPS;
    /// BLS nodes per feature group.
    pub const FEATURE_NODES: usize = BlsParams::DEFAULT_FEATURE_NODES;
    /// BLS enhancement nodes of the initial network.
    pub const ENHANCEMENT: usize = BlsParams::DEFAULT_ENHANCEMENT_NODES;
    /// BLS output-weight strategy ([`BlsParams::DEFAULT_STRATEGY`]: the BLS
    /// paper's numerically stable Chol-2).
    pub const STRATEGY: Strategy = BlsParams::DEFAULT_STRATEGY;
}

/// The flags every model takes: the files, the task, λ, the scaling, the
/// seed, where to save, the threads and how to read the files.
#[derive(Clone, Debug, Args)]
pub struct CommonFlags {
    /// The model to train.
    #[arg(long, value_enum)]
    pub model: ModelKind,
    /// Training file: CSV (header row, target in the last column; `.csv.gz`
    /// too), MNIST IDX images (labels beside them) or LIBSVM text.
    #[arg(long, value_name = "FILE")]
    pub train: PathBuf,
    /// Test file (same formats as --train).
    #[arg(long, value_name = "FILE")]
    pub test: PathBuf,
    /// Classification (integer or named labels, accuracy) or regression (RMSE).
    #[arg(long, value_enum)]
    pub task: TaskKind,
    /// Ridge parameter λ (default: [`ModelKind::default_lambda`]).
    #[arg(long, value_name = "L", allow_negative_numbers = true, help = lambda_help(), long_help = lambda_help())]
    pub lambda: Option<f64>,
    /// Input scaling fitted on the training file (default:
    /// [`ModelKind::default_scale`]).
    #[arg(long, value_enum, value_name = "SCALE", help = scale_help(), long_help = scale_help())]
    pub scale: Option<Scale>,
    /// Seed of every random map.
    #[arg(long, value_name = "S", default_value_t = defaults::SEED)]
    pub seed: u64,
    /// Save the fitted model (scaler included) to FILE, for `nn predict`.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Threads, all of them: OpenBLAS's, linalg-core's kernels' and the
    /// models' rayon loops' (default: every core).
    #[arg(long, value_name = "N", value_parser = at_least_one, help = threads_help(), long_help = threads_help())]
    pub threads: Option<usize>,
    /// How the first row of a CSV file is read.
    #[command(flatten)]
    pub header: HeaderFlags,
    /// LIBSVM files: the number of features (default: the training file's
    /// largest index; the test file is read with the training width).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub n_features: Option<usize>,
}

/// `--header` / `--no-header`: how the first row of a CSV file is read.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct HeaderFlags {
    /// CSV files have no header row: every row is data (else numbers only are refused as a header).
    #[arg(long, conflicts_with = "header")]
    pub no_header: bool,
    /// The first row of a CSV file is its header even if every name in it is a number.
    #[arg(long)]
    pub header: bool,
}

impl HeaderFlags {
    /// The header mode the flags ask for (by default: a header row, and a
    /// first row of numbers only is an error).
    pub fn mode(self) -> HeaderMode {
        match (self.header, self.no_header) {
            (_, true) => HeaderMode::Absent,
            (true, false) => HeaderMode::Present,
            (false, false) => HeaderMode::Auto,
        }
    }
}

fn lambda_help() -> String {
    format!(
        "Ridge parameter λ (for slfn: τ_λ of the output weights; for dfnn: ρ of objective (3), on all weights; \
         for bpls: λ of every layer's least-squares solve, --trainer bpls only) [default: {} for elm, 2^{} for bls, \
         {} for slfn, the paper's 10⁻³ / (number of weights) for dfnn, {:e} for bpls]",
        ModelKind::Elm.default_lambda(),
        ModelKind::Bls.default_lambda().log2(),
        ModelKind::Slfn.default_lambda(),
        ModelKind::Bpls.default_lambda()
    )
}

fn scale_help() -> String {
    format!(
        "Input scaling, fitted on the training file [default: {} for elm, slfn, dfnn and bpls, {} for bls (to [0, 1]) and for IDX images]",
        ModelKind::Elm.default_scale().name(),
        ModelKind::Bls.default_scale().name()
    )
}

pub(crate) fn threads_help() -> String {
    format!(
        "threads: OpenBLAS's, the kernels' and the parallel loops', one budget [default: every core, {} here]",
        threads_or_all(None)
    )
}

/// A whole number ≥ 1.
pub(crate) fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a whole number ({e})")),
    }
}

/// Which model `--model` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
pub enum ModelKind {
    /// The extreme learning machine (Zhu & Wei).
    Elm,
    /// The Broad Learning System (the ridge-solutions paper).
    Bls,
    /// The single-hidden-layer network of Grippo et al., trained by DEC,
    /// L-BFGS or as an ELM.
    Slfn,
    /// The deep feedforward network of Palagi & Seccia, trained by B2LD,
    /// L-BFGS, BLInG or IG.
    Dfnn,
    /// The fully connected network of Tomic et al., trained by BPLS or by
    /// backprop (Adam, NAG, SGD, AdaGrad).
    Bpls,
}

impl ModelKind {
    /// `elm`, `bls`, `slfn`, `dfnn` or `bpls` (the JSON's `model`).
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Elm => "elm",
            ModelKind::Bls => "bls",
            ModelKind::Slfn => "slfn",
            ModelKind::Dfnn => "dfnn",
            ModelKind::Bpls => "bpls",
        }
    }

    /// The input scaling the model's method expects: z-scores for the ELM
    /// (Zhu & Wei standardize their inputs) and the SLFN (its `w⁰` on
    /// `[−0.5, 0.5]` suits unit-scale inputs) and the DFNN (sigmoid units
    /// too, as Tomic et al.'s network), `[0, 1]` for the BLS (Chen's BLS code
    /// divides MNIST's pixels by 255).
    pub fn default_scale(self) -> Scale {
        match self {
            ModelKind::Elm | ModelKind::Slfn | ModelKind::Dfnn | ModelKind::Bpls => Scale::Zscore,
            ModelKind::Bls => Scale::Minmax,
        }
    }

    /// The default scaling for the training file `train`: `[0, 1]` for IDX
    /// images whatever the model — pixels share one unit and range, and
    /// z-scoring each pixel alone multiplies MNIST's nearly constant border
    /// pixels by up to 100 (the ELM on MNIST, 2000 nodes: 93.0% with
    /// z-scores, 95.6% on `[0, 1]`; docs/performance.md) —, otherwise
    /// [`default_scale`](Self::default_scale).
    pub fn default_scale_for(self, train: &std::path::Path) -> Scale {
        if crate::datasets::is_idx_images(train) {
            Scale::Minmax
        } else {
            self.default_scale()
        }
    }

    /// The model's default λ ([`defaults::ELM_LAMBDA`], [`defaults::BLS_LAMBDA`],
    /// [`defaults::SLFN_LAMBDA`]); for the DFNN 0, a placeholder: its `ρ`
    /// depends on the network's size (`DfnnArgs::rho`).
    pub fn default_lambda(self) -> f64 {
        match self {
            ModelKind::Elm => defaults::ELM_LAMBDA,
            ModelKind::Bls => defaults::BLS_LAMBDA,
            ModelKind::Slfn => defaults::SLFN_LAMBDA,
            ModelKind::Dfnn => 0.0,
            ModelKind::Bpls => models::mlp::DEFAULT_LAMBDA,
        }
    }
}

/// The command-line name of a ridge strategy and the names also accepted
/// (the paper's, lower-case; matching ignores case).
pub fn strategy_names(s: Strategy) -> (&'static str, &'static [&'static str]) {
    match s {
        Strategy::DRdg => ("d-rdg", &[]),
        Strategy::Chol1 => ("chol1", &["chol-1"]),
        Strategy::Chol2 => ("chol2", &["chol-2"]),
        Strategy::ExgE => ("exg-e", &[]),
        Strategy::RInv => ("r-inv", &[]),
        Strategy::Orig => ("orig", &["orig."]),
        Strategy::LiEtAl => ("li-et-al", &["li et al."]),
        Strategy::Alg1 => ("alg1", &["alg. 1"]),
        Strategy::Alg2 => ("alg2", &["alg. 2"]),
        Strategy::Alg3 => ("alg3", &["alg. 3"]),
    }
}

fn strategy_value(s: Strategy) -> PossibleValue {
    let (name, aliases) = strategy_names(s);
    PossibleValue::new(name).aliases(aliases.iter().copied())
}

/// A ridge strategy as a command-line value (`--strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyArg(pub Strategy);

static STRATEGIES: LazyLock<Vec<StrategyArg>> = LazyLock::new(|| Strategy::ALL.map(StrategyArg).to_vec());

impl ValueEnum for StrategyArg {
    fn value_variants<'a>() -> &'a [Self] {
        &STRATEGIES
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(strategy_value(self.0))
    }
}

/// An ELM output-weight solver as a command-line value (`--solver`):
/// `ridge`, `lstsq` or a strategy name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolverArg(pub Solver);

static SOLVERS: LazyLock<Vec<SolverArg>> = LazyLock::new(|| {
    let strategies = Strategy::ALL.map(Solver::Strategy);
    [Solver::Ridge, Solver::Lstsq]
        .into_iter()
        .chain(strategies)
        .map(SolverArg)
        .collect()
});

impl ValueEnum for SolverArg {
    fn value_variants<'a>() -> &'a [Self] {
        &SOLVERS
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.0 {
            Solver::Ridge => PossibleValue::new("ridge"),
            Solver::Lstsq => PossibleValue::new("lstsq").aliases(["pinv", "least-squares"]),
            Solver::Strategy(s) => strategy_value(s),
        })
    }
}

/// An activation as a command-line value (`--activation`): its name, or a
/// MATLAB alias (`rbf`, `sig`, `tansig`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActivationArg(pub Activation);

static ACTIVATIONS: LazyLock<Vec<ActivationArg>> = LazyLock::new(|| Activation::ALL.map(ActivationArg).to_vec());

impl ValueEnum for ActivationArg {
    fn value_variants<'a>() -> &'a [Self] {
        &ACTIVATIONS
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        let aliases: &[&str] = match self.0 {
            Activation::Sigmoid => &["sig", "logistic"],
            Activation::Gaussian => &["rbf", "radbas"],
            Activation::Triangular => &["tribas"],
            Activation::Sine => &["sin"],
            Activation::Tanh => &["tansig"],
            Activation::Relu => &["poslin"],
            Activation::Linear => &["purelin", "identity"],
            Activation::Hardlim => &[],
        };
        Some(PossibleValue::new(self.0.name()).aliases(aliases.iter().copied()))
    }
}

/// `--lambda` of a ridge readout (the ELM's, the BLS's): finite and > 0
/// when given.
///
/// # Errors
/// [`CliError::Usage`] naming the flag, the value and the model.
pub(crate) fn ridge_lambda(common: &CommonFlags) -> Result<(), CliError> {
    match common.lambda {
        Some(l) if !(l.is_finite() && l > 0.0) => Err(CliError::Usage(format!(
            "--lambda {l}: the ridge parameter λ of the {} must be finite and > 0 (e.g. --lambda 1e-3)",
            common.model.name().to_uppercase()
        ))),
        _ => Ok(()),
    }
}

/// The thread count to use: `requested`, or every core the system offers.
pub fn threads_or_all(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}
