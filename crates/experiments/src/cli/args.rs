//! The flags of `nn fit` and `nn predict` (clap, derive), their defaults in
//! one place ([`defaults`]), and their resolution into the validated
//! [`FitArgs`] the fit runs on.
//!
//! Model-specific flags are checked after parsing: a BLS flag given with
//! `--model elm` (or an ELM flag with `--model bls`) is an error naming the
//! flag, so a mistyped command never trains silently with a default. The
//! DFNN's flags and their checks live in [`super::dfnn`], the BPLS model's
//! in [`super::bpls`].

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, Parser, Subcommand, ValueEnum};
use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::{Activation, BlsParams, ElmParams, ReadoutSolver as Solver, SlfnParams, SlfnTrainer};
use serde::{Deserialize, Serialize};

/// `--task` and `--scale`: the data layer's types (they are saved in the
/// pipeline), with clap's `ValueEnum` from `nn-data`'s `clap` feature.
pub use nn_data::pipeline::{Scale, TaskKind};

use super::bls::{self, BlsArgs};
use super::bpls::{self, BplsArgs, BplsFlags};
use super::dfnn::{self, DfnnArgs, DfnnFlags};
pub use super::saved::{PredictFlags, UpdateFlags};
use super::scale_out::{ScaleOut, ScaleOutFlags};
use super::select::{SelectArgs, SelectFlags};
pub use super::trainer::TrainerArg;
use super::{trainer, CliError};
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

/// `nn`: train a model on your files and predict with it.
#[derive(Debug, Parser)]
#[command(name = "nn", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `nn`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a model on TRAIN, evaluate it on TEST, print one JSON object.
    Fit(Box<FitFlags>),
    /// Print the predictions of a saved model on DATA, one per line.
    Predict(PredictFlags),
    /// Add rows to and forget rows from a model saved with --updatable.
    Update(UpdateFlags),
}

/// The flags of `nn fit`, as typed on the command line (see [`FitArgs`]
/// for the resolved values).
#[derive(Clone, Debug, Args)]
pub struct FitFlags {
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
    /// BLAS threads (default: every core).
    #[arg(long, value_name = "N", value_parser = at_least_one, help = threads_help(), long_help = threads_help())]
    pub threads: Option<usize>,
    /// How the first row of a CSV file is read.
    #[command(flatten)]
    pub header: HeaderFlags,
    /// LIBSVM files: the number of features (default: the training file's
    /// largest index; the test file is read with the training width).
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub n_features: Option<usize>,

    /// Hidden nodes (required with --model elm and --model slfn).
    #[arg(long, value_name = "N", value_parser = at_least_one, help_heading = "ELM and SLFN (--model elm, slfn)")]
    pub hidden: Option<usize>,
    /// Activation of the hidden nodes (also --model bpls: sigmoid, tanh or
    /// linear only, the injective ones BPLS inverts).
    #[arg(long, value_enum, value_name = "NAME", ignore_case = true, default_value_t = ActivationArg(Activation::Sigmoid), help_heading = "ELM (--model elm)")]
    pub activation: ActivationArg,
    /// Output-weight solver: batch ridge, minimum-norm least squares, or a
    /// ridge strategy, which grows the network one node at a time from
    /// --initial-nodes.
    #[arg(long, value_enum, value_name = "SOLVER", ignore_case = true, default_value_t = SolverArg(Solver::Ridge), help_heading = "ELM (--model elm)")]
    pub solver: SolverArg,
    /// First size of a network grown by an incremental --solver.
    #[arg(long, value_name = "N0", value_parser = at_least_one, default_value_t = defaults::INITIAL_NODES, help_heading = "ELM (--model elm)")]
    pub initial_nodes: usize,

    /// Feature groups of the initial network.
    #[arg(long, value_name = "G", value_parser = at_least_one, default_value_t = defaults::FEATURE_GROUPS, help_heading = "BLS (--model bls)")]
    pub feature_groups: usize,
    /// Nodes per feature group.
    #[arg(long, value_name = "N", value_parser = at_least_one, default_value_t = defaults::FEATURE_NODES, help_heading = "BLS (--model bls)")]
    pub feature_nodes: usize,
    /// Enhancement nodes of the initial network.
    #[arg(long, value_name = "E", value_parser = at_least_one, default_value_t = defaults::ENHANCEMENT, help_heading = "BLS (--model bls)")]
    pub enhancement: usize,
    /// How the output weights are computed and updated.
    #[arg(long, value_enum, value_name = "S", ignore_case = true, default_value_t = StrategyArg(defaults::STRATEGY), help_heading = "BLS (--model bls)")]
    pub strategy: StrategyArg,
    /// Growth after the initial fit: comma-separated `e<P>` (P enhancement
    /// nodes) or `f<N>:<FED>:<EXTRA>` (a feature group of N nodes, FED
    /// enhancement nodes fed by it, EXTRA fed by all), each optionally
    /// repeated with `x<R>`; the BLS paper's MNIST schedule is
    /// `f10:750:1250x11` [default: none].
    #[arg(long, value_name = "SPEC", value_parser = increments, help_heading = "BLS (--model bls)")]
    pub increments: Option<Increments>,
    /// Store the solver's expanded matrix in single precision (half the memory).
    #[arg(long, help_heading = "BLS (--model bls)")]
    pub f32: bool,

    /// Trainer. slfn (Grippo et al.): dec (DEC, Algorithm 3), lbfgs (on all
    /// weights) or elm (the paper's ELM: random input weights, minimum-norm
    /// least squares) [default: dec]. dfnn (Palagi & Seccia): b2ld
    /// (Algorithm 3), lbfgs (on all weights), bling (Algorithm 5) or ig
    /// (incremental gradient) [default: b2ld]. bpls (Tomic et al.): bpls
    /// (Algorithm 1 or 2), or backprop with adam, nag, sgd or adagrad (the
    /// paper's baselines) [default: bpls].
    #[arg(
        long,
        value_enum,
        value_name = "T",
        ignore_case = true,
        help_heading = "SLFN, DFNN and BPLS (--model slfn, dfnn, bpls)"
    )]
    pub trainer: Option<TrainerArg>,
    /// DEC: major iterations (the paper's DEC(2), DEC(10)) [default: 10];
    /// L-BFGS: iterations [default: 1000]; either also stops when progress
    /// stalls ([`trainer::DEC_RELATIVE_DECREASE`],
    /// [`trainer::LBFGS_RELATIVE_DECREASE`]).
    #[arg(long, value_name = "K", value_parser = at_least_one, help_heading = "SLFN (--model slfn)", help = trainer::maxiter_help(), long_help = trainer::maxiter_help())]
    pub maxiter: Option<usize>,
    /// Regularization τ_w of the input weights [default: 10⁻²/(n·N), the
    /// paper's]; τ_λ is --lambda.
    #[arg(
        long,
        value_name = "T",
        allow_negative_numbers = true,
        help_heading = "SLFN (--model slfn)"
    )]
    pub tau_w: Option<f64>,

    /// The deep network's flags (`--layers`, `--time-limit`, …).
    #[command(flatten)]
    pub dfnn: DfnnFlags,
    /// The BPLS model's flags (`--iterations`, `--output-activation`, …).
    #[command(flatten)]
    pub bpls: BplsFlags,
    /// `--updatable` (and the other flags for data beyond one fit).
    #[command(flatten)]
    pub scale_out: ScaleOutFlags,
    /// `--select-lambda`, `--grow-until-val` (choosing λ and the size).
    #[command(flatten)]
    pub select: SelectFlags,
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

/// Flags that apply to one model only, by their clap ids (the field names).
const ELM_ONLY: [&str; 3] = ["activation", "solver", "initial_nodes"];
const SLFN_ONLY: [&str; 2] = ["maxiter", "tau_w"];
const BLS_ONLY: [&str; 6] = [
    "feature_groups",
    "feature_nodes",
    "enhancement",
    "strategy",
    "increments",
    "f32",
];

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
    format!("BLAS threads [default: every core, {} here]", threads_or_all(None))
}

/// A whole number ≥ 1.
pub(crate) fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a whole number ({e})")),
    }
}

/// An `--increments` schedule ([`bls::parse_increments`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Increments(pub bls::Schedule);

fn increments(text: &str) -> Result<Increments, String> {
    bls::parse_increments(text).map(Increments).map_err(|e| e.to_string())
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
    /// depends on the network's size ([`DfnnArgs::rho`]).
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

/// Resolved `fit` arguments: every default applied, every model-specific
/// flag checked against `--model`.
#[derive(Clone, Debug, PartialEq)]
pub struct FitArgs {
    /// `--model`.
    pub model: ModelKind,
    /// The BLS flags (used with `--model bls`).
    pub bls: BlsArgs,
    /// Training file.
    pub train: PathBuf,
    /// Test file.
    pub test: PathBuf,
    /// The task.
    pub task: TaskKind,
    /// Hidden nodes (for the BLS: all nodes after the last increment; for
    /// the DFNN: the hidden layers' units in all).
    pub hidden: usize,
    /// Ridge parameter λ ([`ModelKind::default_lambda`] unless given; the
    /// DFNN reads its `ρ` from [`DfnnArgs::rho`]).
    pub lambda: f64,
    /// Activation (default sigmoid).
    pub activation: Activation,
    /// Output-weight solver (default ridge).
    pub solver: Solver,
    /// Seed of the random maps (default 0).
    pub seed: u64,
    /// First size of an incrementally grown network (default 2).
    pub initial_nodes: usize,
    /// Input scaling ([`ModelKind::default_scale`] unless given).
    pub scale: Scale,
    /// Where to save the fitted model.
    pub save: Option<PathBuf>,
    /// How the first row of a CSV file is read (`--header`, `--no-header`).
    pub header: HeaderMode,
    /// LIBSVM files: the number of features (`--n-features`).
    pub n_features: Option<usize>,
    /// The SLFN's trainer (`--trainer` with `--maxiter`; DEC(10) by default).
    pub trainer: SlfnTrainer,
    /// The SLFN's `τ_w` (`--tau-w`; `None`: the paper's `10⁻²/(n·N)`).
    pub tau_w: Option<f64>,
    /// The SLFN's `--time-limit` (the DFNN's is in its trainer, [`DfnnArgs`]).
    pub slfn_time_limit: Option<std::time::Duration>,
    /// The DFNN's settings (`Some` with `--model dfnn`).
    pub dfnn: Option<DfnnArgs>,
    /// The BPLS model's settings (`Some` with `--model bpls`).
    pub bpls: Option<BplsArgs>,
    /// `--updatable` and the other flags for data beyond one fit.
    pub scale_out: ScaleOut,
    /// `--select-lambda` or `--grow-until-val`, if given.
    pub select: Option<SelectArgs>,
}

impl FitArgs {
    /// Resolve the parsed flags; `matches` are the `fit` subcommand's (they
    /// tell which flags were typed rather than defaulted).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a flag of the other model, a missing
    /// `--hidden`, or `--initial-nodes` above `--hidden`.
    pub fn resolve(flags: FitFlags, matches: &ArgMatches) -> Result<Self, CliError> {
        let (dfnn_only, bpls_only) = (&dfnn::FLAGS[..], &bpls::FLAGS[..]);
        let foreign: Vec<&str> = match flags.model {
            ModelKind::Elm => [&BLS_ONLY[..], &SLFN_ONLY, &["trainer"], dfnn_only, bpls_only].concat(),
            ModelKind::Bls => [&ELM_ONLY[..], &["hidden", "trainer"], &SLFN_ONLY, dfnn_only, bpls_only].concat(),
            ModelKind::Slfn => [&ELM_ONLY[..], &BLS_ONLY, &dfnn::NOT_SLFN, bpls_only].concat(),
            ModelKind::Dfnn => [&ELM_ONLY[..], &BLS_ONLY, &SLFN_ONLY, &["hidden"], bpls_only].concat(),
            ModelKind::Bpls => [&ELM_ONLY[1..], &BLS_ONLY, &SLFN_ONLY, &["hidden"], &bpls::DFNN_ONLY].concat(),
        };
        if let Some(id) = foreign
            .iter()
            .find(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        {
            return Err(CliError::Usage(format!(
                "--{} does not apply to --model {}",
                id.replace('_', "-"),
                flags.model.name()
            )));
        }
        if let Some(t) = flags.trainer {
            t.check_model(flags.model)?;
        }
        let dfnn = match flags.model {
            ModelKind::Dfnn => Some(dfnn::resolve(&flags.dfnn, flags.trainer, flags.lambda)?),
            _ => None,
        };
        let bpls = bpls::resolve_for(flags.model, &flags)?;
        let bls = BlsArgs {
            feature_groups: flags.feature_groups,
            feature_nodes: flags.feature_nodes,
            enhancement: flags.enhancement,
            strategy: flags.strategy.0,
            increments: flags.increments.map(|i| i.0).unwrap_or_default(),
            precision: if flags.f32 { Precision::F32 } else { Precision::F64 },
        };
        let hidden = match flags.model {
            ModelKind::Bls => bls
                .feature_groups
                .checked_mul(bls.feature_nodes)
                .and_then(|f| f.checked_add(bls.enhancement))
                .and_then(|n| n.checked_add(bls.increments.nodes()))
                .ok_or_else(|| {
                    CliError::Usage(
                        "the BLS's node count (--feature-groups × --feature-nodes + --enhancement + the increments) \
                         overflows a 64-bit integer"
                            .into(),
                    )
                })?,
            ModelKind::Slfn => flags
                .hidden
                .ok_or_else(|| CliError::Usage("--hidden is required with --model slfn".into()))?,
            ModelKind::Dfnn => dfnn.as_ref().map_or(0, DfnnArgs::hidden_units),
            ModelKind::Bpls => bpls.as_ref().map_or(0, BplsArgs::hidden_units),
            ModelKind::Elm => {
                let hidden = flags
                    .hidden
                    .ok_or_else(|| CliError::Usage("--hidden is required with --model elm".into()))?;
                if flags.initial_nodes > hidden {
                    return Err(CliError::Usage(format!("--initial-nodes must be in 1..={hidden}")));
                }
                hidden
            }
        };
        let typed = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        if let (ModelKind::Elm | ModelKind::Bls, Some(l)) = (flags.model, flags.lambda) {
            if !(l.is_finite() && l > 0.0) {
                return Err(CliError::Usage(format!(
                    "--lambda {l}: the ridge parameter λ of the {} must be finite and > 0 (e.g. --lambda 1e-3)",
                    flags.model.name().to_uppercase()
                )));
            }
        }
        if flags.model == ModelKind::Elm {
            let solver = flags.solver.0;
            if typed("lambda") && !solver.uses_lambda() {
                return Err(CliError::Usage(format!(
                    "--lambda does not apply to --solver {solver}: minimum-norm least squares has no ridge parameter"
                )));
            }
            if typed("initial_nodes") && !matches!(solver, Solver::Strategy(_)) && !flags.select.grow_until_val {
                return Err(CliError::Usage(format!(
                    "--initial-nodes applies to an incremental --solver (a strategy such as alg3 or chol2) or --grow-until-val, \
                     not to the batch solver {solver}"
                )));
            }
        }
        let trainer = match flags.model {
            ModelKind::Slfn => trainer::slfn_trainer(flags.trainer, flags.maxiter)?,
            _ => defaults::SLFN_TRAINER,
        };
        if let Some(t) = flags.tau_w {
            if !(t.is_finite() && t >= 0.0) {
                return Err(CliError::Usage(format!("--tau-w {t}: must be finite and ≥ 0")));
            }
        }
        if flags.model == ModelKind::Slfn && trainer == SlfnTrainer::Elm && typed("tau_w") {
            return Err(CliError::Usage(
                "--tau-w does not apply to --trainer elm: the paper's ELM draws its input weights and does not \
                 train them"
                    .into(),
            ));
        }
        if flags.model == ModelKind::Slfn && trainer == SlfnTrainer::Elm && typed("lambda") {
            return Err(CliError::Usage(
                "--lambda does not apply to --trainer elm: the paper's ELM is minimum-norm least squares (τ = 0)"
                    .into(),
            ));
        }
        let slfn_time_limit = match flags.model {
            ModelKind::Slfn => trainer::slfn_flags(hidden, trainer, flags.lambda, flags.tau_w, flags.dfnn.time_limit)?,
            _ => None,
        };
        check_save(flags.save.as_deref(), &[&flags.train, &flags.test])?;
        let scale = flags.scale.unwrap_or(flags.model.default_scale_for(&flags.train));
        let batch = match flags.model {
            ModelKind::Elm => flags.solver.0 == Solver::Ridge,
            _ => bls.increments.is_empty() && !flags.f32,
        };
        let ridge = flags.model != ModelKind::Elm || flags.solver.0.uses_lambda();
        let scale_out = flags.scale_out.resolve(flags.model, ridge, batch)?;
        Ok(FitArgs {
            model: flags.model,
            bls,
            train: flags.train,
            test: flags.test,
            task: flags.task,
            hidden,
            lambda: flags.lambda.unwrap_or(flags.model.default_lambda()),
            activation: flags.activation.0,
            solver: flags.solver.0,
            seed: flags.seed,
            initial_nodes: flags.initial_nodes,
            scale,
            save: flags.save,
            header: flags.header.mode(),
            n_features: flags.n_features,
            trainer,
            tau_w: flags.tau_w,
            slfn_time_limit,
            dfnn,
            bpls,
            select: flags.select.resolve(flags.model, ridge, &scale_out, &typed)?,
            scale_out,
        })
    }
}

/// `--save FILE` can be written: its directory exists, it is not a
/// directory, device or FIFO, and it is none of the `inputs` (which the fit
/// would overwrite after reading), also through a symbolic or hard link.
/// Checked before the fit, so that an hour of training is not lost to a typo.
fn check_save(save: Option<&std::path::Path>, inputs: &[&std::path::Path]) -> Result<(), CliError> {
    let Some(save) = save else {
        return Ok(());
    };
    if save.is_dir() {
        return Err(CliError::Usage(format!(
            "--save {}: is a directory; give a file name",
            save.display()
        )));
    }
    super::saved::check_save_target("--save", save, inputs)
}

/// The thread count to use: `requested`, or every core the system offers.
pub fn threads_or_all(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `nn fit ARGS…` parsed and resolved as the binary does (for unit tests).
#[cfg(test)]
pub(crate) fn resolve_fit(args: &[&str]) -> Result<FitArgs, String> {
    use clap::{CommandFactory, FromArgMatches};
    let m = Cli::command()
        .try_get_matches_from(["nn", "fit"].iter().chain(args))
        .map_err(|e| e.to_string())?;
    let Some(("fit", sub)) = m.subcommand() else {
        return Err("no fit".into());
    };
    let flags = FitFlags::from_arg_matches(sub).map_err(|e| e.to_string())?;
    FitArgs::resolve(flags, sub).map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
