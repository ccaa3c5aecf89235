//! The flags of `nn fit` and `nn predict` (clap, derive), their defaults in
//! one place ([`defaults`]), and their resolution into the validated
//! [`FitArgs`] the fit runs on.
//!
//! Each model declares its own flags in its own module ([`super::elm`],
//! [`super::bls`], [`super::slfn`], [`super::dfnn`], [`super::bpls`]; the
//! flags several models share in [`super::shared_flags`]); the common ones
//! are [`CommonFlags`]. A flag of another model given on the command line
//! is an error naming the flag and the models it belongs to
//! ([`FitFlags`]), so a mistyped command never trains silently with a
//! default.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use linalg_core::ridge::Strategy;
use models::{Activation, BlsParams, ElmParams, ReadoutSolver as Solver, SlfnParams, SlfnTrainer};
use serde::{Deserialize, Serialize};

/// `--task` and `--scale`: the data layer's types (they are saved in the
/// pipeline), with clap's `ValueEnum` from `nn-data`'s `clap` feature.
pub use nn_data::pipeline::{Scale, TaskKind};

use super::bls::{BlsArgs, BlsFlags};
use super::bpls::{self, BplsArgs, BplsFlags};
use super::dfnn::{self, DfnnArgs, DfnnFlags};
use super::elm::ElmFlags;
pub use super::saved::{PredictFlags, UpdateFlags};
use super::scale_out::ScaleOut;
use super::select::SelectArgs;
use super::slfn::SlfnFlags;
pub use super::trainer::TrainerArg;
use super::CliError;
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
}

/// The flags of `nn fit`, as typed on the command line (see [`FitArgs`]
/// for the resolved values): the common ones and each model's own.
///
/// Which flag applies to which model comes from the types: each model's
/// flag struct ([`ElmFlags`], [`BlsFlags`], [`SlfnFlags`], [`DfnnFlags`],
/// [`BplsFlags`]) lists exactly its flags, the ones several models take
/// flattened from [`super::shared_flags`]. `nn fit` accepts the union of
/// them all (each flag once; `nn fit --help` lists them under their
/// models' headings), and [`FitArgs::resolve`] refuses a flag typed on the
/// command line that neither [`CommonFlags`] nor the chosen model's struct
/// declares.
#[derive(Clone, Debug)]
pub struct FitFlags {
    /// The flags every model takes.
    pub common: CommonFlags,
    /// `--model elm`'s flags.
    pub elm: ElmFlags,
    /// `--model bls`'s flags.
    pub bls: BlsFlags,
    /// `--model slfn`'s flags.
    pub slfn: SlfnFlags,
    /// `--model dfnn`'s flags.
    pub dfnn: DfnnFlags,
    /// `--model bpls`'s flags.
    pub bpls: BplsFlags,
    /// The ids of the flags typed on the command line (rather than
    /// defaulted), in clap's order.
    pub typed: Vec<String>,
}

/// Every model's flag struct, as the arguments it adds to a command.
fn model_commands() -> [(ModelKind, clap::Command); 5] {
    let of = |augment: fn(clap::Command) -> clap::Command| augment(clap::Command::new("model"));
    [
        (ModelKind::Elm, of(ElmFlags::augment_args)),
        (ModelKind::Bls, of(BlsFlags::augment_args)),
        (ModelKind::Slfn, of(SlfnFlags::augment_args)),
        (ModelKind::Dfnn, of(DfnnFlags::augment_args)),
        (ModelKind::Bpls, of(BplsFlags::augment_args)),
    ]
}

impl Args for FitFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = CommonFlags::augment_args(cmd);
        for (_, model) in model_commands() {
            for arg in model.get_arguments() {
                if cmd.get_arguments().all(|a| a.get_id() != arg.get_id()) {
                    cmd = cmd.arg(arg.clone());
                }
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for FitFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let typed = m
            .ids()
            .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.as_str().to_string())
            .collect();
        Ok(FitFlags {
            common: CommonFlags::from_arg_matches(m)?,
            elm: ElmFlags::from_arg_matches(m)?,
            bls: BlsFlags::from_arg_matches(m)?,
            slfn: SlfnFlags::from_arg_matches(m)?,
            dfnn: DfnnFlags::from_arg_matches(m)?,
            bpls: BplsFlags::from_arg_matches(m)?,
            typed,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl FitFlags {
    /// Refuse the first flag typed on the command line that neither the
    /// common flags nor `model`'s flag struct declares.
    ///
    /// # Errors
    /// [`CliError::Usage`]: `--FLAG does not apply to --model NAME: it is a
    /// flag of --model A and --model B` (the models whose flag structs
    /// declare it).
    fn check_applicable(&self, model: ModelKind) -> Result<(), CliError> {
        let common = CommonFlags::augment_args(clap::Command::new("common"));
        let commands = model_commands();
        let own = commands.iter().find(|(kind, _)| *kind == model).map(|(_, c)| c);
        // A flag, or a group of flags (clap reports `HeaderFlags` as typed
        // when `--header` is).
        let declares = |c: &clap::Command, id: &str| {
            c.get_arguments().any(|a| a.get_id().as_str() == id) || c.get_groups().any(|g| g.get_id().as_str() == id)
        };
        let foreign = self
            .typed
            .iter()
            .find(|id| !declares(&common, id) && !own.is_some_and(|c| declares(c, id)));
        match foreign {
            Some(id) => {
                let long = commands
                    .iter()
                    .flat_map(|(_, c)| c.get_arguments())
                    .find(|a| a.get_id().as_str() == id.as_str())
                    .and_then(|a| a.get_long())
                    .map_or_else(|| id.replace('_', "-"), str::to_string);
                let owners: Vec<String> = commands
                    .iter()
                    .filter(|(_, c)| declares(c, id))
                    .map(|(kind, _)| format!("--model {}", kind.name()))
                    .collect();
                let owners = match owners.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                    None => "no model".into(),
                };
                Err(CliError::Usage(format!(
                    "--{long} does not apply to --model {}: it is a flag of {owners}",
                    model.name()
                )))
            }
            None => Ok(()),
        }
    }
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
    /// The resolved common flags, every model-specific field at its
    /// default (each model's resolution sets its own).
    fn from_common(common: &CommonFlags) -> Self {
        FitArgs {
            model: common.model,
            bls: BlsArgs::default(),
            train: common.train.clone(),
            test: common.test.clone(),
            task: common.task,
            hidden: 0,
            lambda: common.lambda.unwrap_or(common.model.default_lambda()),
            activation: Activation::Sigmoid,
            solver: Solver::Ridge,
            seed: common.seed,
            initial_nodes: defaults::INITIAL_NODES,
            scale: common.scale.unwrap_or(common.model.default_scale_for(&common.train)),
            save: common.save.clone(),
            header: common.header.mode(),
            n_features: common.n_features,
            trainer: defaults::SLFN_TRAINER,
            tau_w: None,
            slfn_time_limit: None,
            dfnn: None,
            bpls: None,
            scale_out: ScaleOut::default(),
            select: None,
        }
    }

    /// Resolve the parsed flags: a flag of another model is refused
    /// ([`FitFlags`]), then the chosen model's flags are checked and
    /// resolved by its own module (`elm`, `bls`, `slfn`, `dfnn`, `bpls`).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a flag of another model, a missing
    /// `--hidden` or `--layers`, a value the model refuses, or a `--save`
    /// target that cannot be written.
    pub fn resolve(flags: FitFlags) -> Result<Self, CliError> {
        let model = flags.common.model;
        flags.check_applicable(model)?;
        let typed = |id: &str| flags.typed.iter().any(|t| t == id);
        let common = &flags.common;
        let mut args = FitArgs::from_common(common);
        match model {
            ModelKind::Elm => super::elm::resolve(&flags.elm, common, &typed, &mut args)?,
            ModelKind::Bls => super::bls::resolve(&flags.bls, common, &typed, &mut args)?,
            ModelKind::Slfn => super::slfn::resolve(&flags.slfn, common, &typed, &mut args)?,
            ModelKind::Dfnn => {
                let dfnn = dfnn::resolve(&flags.dfnn, common)?;
                args.hidden = dfnn.hidden_units();
                args.dfnn = Some(dfnn);
            }
            ModelKind::Bpls => {
                let bpls = bpls::resolve(&flags.bpls, common)?;
                args.hidden = bpls.hidden_units();
                args.activation = bpls.hidden_activation;
                args.bpls = Some(bpls);
            }
        }
        check_save(common.save.as_deref(), &[&common.train, &common.test])?;
        Ok(args)
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
    use clap::CommandFactory;
    let m = Cli::command()
        .try_get_matches_from(["nn", "fit"].iter().chain(args))
        .map_err(|e| e.to_string())?;
    let Some(("fit", sub)) = m.subcommand() else {
        return Err("no fit".into());
    };
    let flags = FitFlags::from_arg_matches(sub).map_err(|e| e.to_string())?;
    FitArgs::resolve(flags).map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
