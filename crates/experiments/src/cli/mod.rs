//! The user's commands behind `cargo xtask fit` and `cargo xtask predict`
//! (binary `nn`): train a model on the user's files, evaluate it, print one
//! JSON object; predict with a saved model.
//!
//! ```text
//! nn fit --model elm --train TRAIN --test TEST --task classification|regression --hidden N
//!        [--lambda L] [--activation NAME] [--solver ridge|lstsq|STRATEGY] [--seed S]
//!        [--initial-nodes N0] [--save FILE]
//! nn fit --model bls --train TRAIN --test TEST --task classification|regression
//!        [--feature-groups G] [--feature-nodes N] [--enhancement E] [--lambda L]
//!        [--strategy S] [--increments SPEC] [--f32] [--seed S] [--save FILE]
//! nn predict --model-file FILE --data DATA
//! ```
//!
//! The BLS (the ridge-solutions paper's incremental Broad Learning System)
//! starts with G feature groups of N nodes and E enhancement nodes, then
//! applies the `--increments` schedule ([`bls::parse_increments`]; the
//! paper's MNIST schedule is `f10:750:1250x11`), updating the output
//! weights with `--strategy` (orig, exg-e, chol1, chol2, r-inv, d-rdg, …).
//! Its λ defaults to 2⁻¹⁰; the ELM's to 0.1 (Zhu & Wei's k₀²).
//!
//! TRAIN/TEST/DATA are CSV (header row, target in the last column; `.csv.gz`
//! too), MNIST IDX image files (labels from the matching `labels-idx1` file
//! beside them) or LIBSVM text. Features (and, for regression, the target)
//! are standardized with statistics of the training part only. With an incremental `--solver` (a strategy
//! name such as `alg3`), the network grows one node at a time from
//! `--initial-nodes` (default 2, as in Zhu & Wei's protocol) to `--hidden`.

pub mod bls;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use linalg_core::ridge::Strategy;
use models::bls::Bls;
use models::bls::BlsParams;
use models::{Activation, Elm, ElmParams, IncrementalElm, ReadoutSolver};
use models::{Fit, ParamGuard};
use ndarray::{Array2, Axis};
use serde::{Deserialize, Serialize};

use crate::datasets::{self, argmax_rows, one_hot, Dataset, StandardScaler};
use crate::metrics;

/// Errors of the command line: bad arguments, unusable data, model errors.
#[derive(Debug)]
pub enum CliError {
    /// A missing, unknown or malformed argument.
    Usage(String),
    /// Loading or preparing the data failed.
    Data(datasets::DataError),
    /// Fitting, predicting or saving failed.
    Model(models::ModelError),
    /// A metric could not be computed.
    Metric(metrics::MetricError),
    /// Reading or writing the model file failed.
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        problem: String,
    },
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) => write!(f, "{m}"),
            CliError::Data(e) => write!(f, "{e}"),
            CliError::Model(e) => write!(f, "{e}"),
            CliError::Metric(e) => write!(f, "{e}"),
            CliError::File { path, problem } => write!(f, "{}: {problem}", path.display()),
        }
    }
}

impl std::error::Error for CliError {}

impl From<datasets::DataError> for CliError {
    fn from(e: datasets::DataError) -> Self {
        CliError::Data(e)
    }
}
impl From<models::ModelError> for CliError {
    fn from(e: models::ModelError) -> Self {
        CliError::Model(e)
    }
}
impl From<metrics::MetricError> for CliError {
    fn from(e: metrics::MetricError) -> Self {
        CliError::Metric(e)
    }
}

/// Classification or regression, as given by `--task`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskKind {
    /// Integer class labels `0..C`; one-hot targets; metric accuracy.
    Classification,
    /// Real targets; metric RMSE.
    Regression,
}

impl FromStr for TaskKind {
    type Err = CliError;
    fn from_str(s: &str) -> Result<Self, CliError> {
        match s {
            "classification" => Ok(TaskKind::Classification),
            "regression" => Ok(TaskKind::Regression),
            other => Err(CliError::Usage(format!(
                "--task must be classification or regression, not `{other}`"
            ))),
        }
    }
}

/// Which model `--model` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelKind {
    /// The extreme learning machine (Zhu & Wei).
    Elm,
    /// The Broad Learning System (the ridge-solutions paper).
    Bls,
}

/// Parsed `fit` arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct FitArgs {
    /// `--model`.
    pub model: ModelKind,
    /// The BLS flags (used with `--model bls`).
    pub bls: bls::BlsArgs,
    /// Training file.
    pub train: PathBuf,
    /// Test file.
    pub test: PathBuf,
    /// The task.
    pub task: TaskKind,
    /// Hidden nodes.
    pub hidden: usize,
    /// Ridge parameter λ (Zhu & Wei's k₀²; default 0.1, their value).
    pub lambda: f64,
    /// Activation (default sigmoid).
    pub activation: Activation,
    /// Output-weight solver (default ridge).
    pub solver: ReadoutSolver,
    /// Seed of the hidden layer (default 0).
    pub seed: u64,
    /// First size of an incrementally grown network (default 2).
    pub initial_nodes: usize,
    /// Where to save the fitted model.
    pub save: Option<PathBuf>,
}

fn value<'a>(it: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a String, CliError> {
    it.next()
        .ok_or_else(|| CliError::Usage(format!("{flag} needs a value")))
}

fn number<T: FromStr>(text: &str, flag: &str) -> Result<T, CliError>
where
    T::Err: fmt::Display,
{
    text.parse()
        .map_err(|e| CliError::Usage(format!("{flag} `{text}`: {e}")))
}

impl FitArgs {
    /// Parse the arguments after `fit`.
    pub fn parse(args: &[String]) -> Result<Self, CliError> {
        let (mut train, mut test, mut task, mut hidden, mut model) = (None, None, None, None, None);
        let mut lambda = None;
        let mut elm_only = vec![];
        let mut bls_only = vec![];
        let mut out = FitArgs {
            model: ModelKind::Elm,
            bls: bls::BlsArgs::default(),
            train: PathBuf::new(),
            test: PathBuf::new(),
            task: TaskKind::Regression,
            hidden: 0,
            lambda: ElmParams::DEFAULT_LAMBDA,
            activation: ElmParams::DEFAULT_ACTIVATION,
            solver: ElmParams::DEFAULT_SOLVER,
            seed: ElmParams::DEFAULT_SEED,
            initial_nodes: 2,
            save: None,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            match flag.as_str() {
                "--model" => model = Some(value(&mut it, flag)?.clone()),
                "--train" => train = Some(PathBuf::from(value(&mut it, flag)?)),
                "--test" => test = Some(PathBuf::from(value(&mut it, flag)?)),
                "--task" => task = Some(value(&mut it, flag)?.parse::<TaskKind>()?),
                "--hidden" => {
                    elm_only.push(flag.clone());
                    hidden = Some(number::<usize>(value(&mut it, flag)?, flag)?)
                }
                "--lambda" => lambda = Some(number::<f64>(value(&mut it, flag)?, flag)?),
                "--feature-groups" => {
                    bls_only.push(flag.clone());
                    out.bls.feature_groups = number(value(&mut it, flag)?, flag)?
                }
                "--feature-nodes" => {
                    bls_only.push(flag.clone());
                    out.bls.feature_nodes = number(value(&mut it, flag)?, flag)?
                }
                "--enhancement" => {
                    bls_only.push(flag.clone());
                    out.bls.enhancement = number(value(&mut it, flag)?, flag)?
                }
                "--strategy" => {
                    bls_only.push(flag.clone());
                    let v = value(&mut it, flag)?;
                    out.bls.strategy = v.parse().map_err(|_| {
                        CliError::Usage(format!(
                            "--strategy `{v}`: expected one of {}",
                            Strategy::ALL.map(|s| s.cli_name()).join(", ")
                        ))
                    })?
                }
                "--increments" => {
                    bls_only.push(flag.clone());
                    out.bls.increments = bls::parse_increments(value(&mut it, flag)?)?
                }
                "--f32" => {
                    bls_only.push(flag.clone());
                    out.bls.precision = linalg_core::Precision::F32
                }
                "--activation" => {
                    elm_only.push(flag.clone());
                    out.activation = value(&mut it, flag)?
                        .parse()
                        .map_err(|e: models::ModelError| CliError::Usage(e.to_string()))?
                }
                "--solver" => {
                    elm_only.push(flag.clone());
                    out.solver = value(&mut it, flag)?
                        .parse()
                        .map_err(|e: models::ModelError| CliError::Usage(e.to_string()))?
                }
                "--seed" => out.seed = number(value(&mut it, flag)?, flag)?,
                "--initial-nodes" => {
                    elm_only.push(flag.clone());
                    out.initial_nodes = number(value(&mut it, flag)?, flag)?
                }
                "--save" => out.save = Some(PathBuf::from(value(&mut it, flag)?)),
                other => return Err(CliError::Usage(format!("unknown argument `{other}` for fit"))),
            }
        }
        out.model = match model.as_deref() {
            Some("elm") => ModelKind::Elm,
            Some("bls") => ModelKind::Bls,
            Some(other) => return Err(CliError::Usage(format!("--model must be elm or bls, not `{other}`"))),
            None => return Err(CliError::Usage("--model is required (elm or bls)".into())),
        };
        let (wrong, model_name) = match out.model {
            ModelKind::Elm => (bls_only, "elm"),
            ModelKind::Bls => (elm_only, "bls"),
        };
        if let Some(flag) = wrong.first() {
            return Err(CliError::Usage(format!(
                "{flag} does not apply to --model {model_name}"
            )));
        }
        out.train = train.ok_or_else(|| CliError::Usage("--train is required".into()))?;
        out.test = test.ok_or_else(|| CliError::Usage("--test is required".into()))?;
        out.task = task.ok_or_else(|| CliError::Usage("--task is required (classification or regression)".into()))?;
        if out.model == ModelKind::Bls {
            out.lambda = lambda.unwrap_or(BlsParams::DEFAULT_LAMBDA);
            let b = &out.bls;
            if b.feature_groups == 0 || b.feature_nodes == 0 || b.enhancement == 0 {
                return Err(CliError::Usage(
                    "--feature-groups, --feature-nodes and --enhancement must be at least 1".into(),
                ));
            }
            out.hidden = b.feature_groups * b.feature_nodes
                + b.enhancement
                + b.increments.iter().map(bls::IncrementSpec::nodes).sum::<usize>();
            return Ok(out);
        }
        out.lambda = lambda.unwrap_or(ElmParams::DEFAULT_LAMBDA);
        out.hidden = hidden.ok_or_else(|| CliError::Usage("--hidden is required".into()))?;
        if out.hidden == 0 {
            return Err(CliError::Usage("--hidden must be at least 1".into()));
        }
        if out.initial_nodes == 0 || out.initial_nodes > out.hidden {
            return Err(CliError::Usage(format!(
                "--initial-nodes must be in 1..={}",
                out.hidden
            )));
        }
        Ok(out)
    }
}

/// What `fit` prints: one JSON object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FitReport {
    /// `elm` or `bls`.
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
    /// last update).
    pub hidden: usize,
    /// BLS only: feature nodes after the last update.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub feature_nodes: Option<usize>,
    /// BLS only: enhancement nodes after the last update.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub enhancement_nodes: Option<usize>,
    /// BLS only: one record per update (the start first).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub updates: Option<Vec<bls::UpdateJson>>,
    /// Activation name (the BLS's enhancement nodes: tanh).
    pub activation: String,
    /// Solver name (for the BLS: the strategy's paper name).
    pub solver: String,
    /// λ (omitted for `lstsq`, which does not use it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lambda: Option<f64>,
    /// Seed.
    pub seed: u64,
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
}

/// The model inside a [`FittedPipeline`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FittedModel {
    /// An extreme learning machine.
    Elm(Elm),
    /// A Broad Learning System.
    Bls(Bls),
}

impl FittedModel {
    fn predict(&self, x: ndarray::ArrayView2<'_, f64>) -> Result<Array2<f64>, CliError> {
        Ok(match self {
            FittedModel::Elm(m) => m.predict(x)?,
            FittedModel::Bls(m) => m.predict(x)?,
        })
    }
}

/// A fitted pipeline: the feature scaler, the task, and the model. This is
/// what `--save` writes (bincode, with a magic and a format version checked
/// on load).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FittedPipeline {
    /// The task.
    pub task: TaskKind,
    /// Classes for classification.
    pub classes: Option<usize>,
    /// Standardization of the features, fitted on the training part.
    pub scaler: StandardScaler,
    /// Regression only: the training targets' mean and standard deviation.
    /// The ELM has no output bias, so it is fitted to standardized targets
    /// (otherwise λ would shrink the fit of a large mean offset, e.g.
    /// airfoil's 124.8 dB); predictions are mapped back.
    pub target_scale: Option<(f64, f64)>,
    /// The model.
    pub model: FittedModel,
}

const PIPELINE_MAGIC: [u8; 8] = *b"DNNPIPE\0";
const PIPELINE_VERSION: u32 = 3;

#[derive(Serialize, Deserialize)]
struct PipelineFile {
    magic: [u8; 8],
    format_version: u32,
    pipeline: FittedPipeline,
}

impl FittedPipeline {
    /// Predictions on raw features (K×N): class indices as f64 for
    /// classification, values for regression.
    pub fn predict(&self, x: &Array2<f64>) -> Result<Vec<f64>, CliError> {
        let z = self.model.predict(self.scaler.transform(x)?.view())?;
        Ok(match self.task {
            TaskKind::Classification => argmax_rows(&z).iter().map(|&c| c as f64).collect(),
            TaskKind::Regression => {
                let (mean, std) = self.target_scale.unwrap_or((0.0, 1.0));
                z.column(0).iter().map(|v| v * std + mean).collect()
            }
        })
    }

    /// Save with magic and format version.
    pub fn save(&self, path: &Path) -> Result<(), CliError> {
        let file = PipelineFile {
            magic: PIPELINE_MAGIC,
            format_version: PIPELINE_VERSION,
            pipeline: self.clone(),
        };
        let bytes = bincode::serde::encode_to_vec(&file, bincode::config::standard()).map_err(|e| CliError::File {
            path: path.into(),
            problem: format!("cannot encode: {e}"),
        })?;
        std::fs::write(path, bytes).map_err(|e| CliError::File {
            path: path.into(),
            problem: e.to_string(),
        })
    }

    /// Load, checking the magic and the format version.
    pub fn load(path: &Path) -> Result<Self, CliError> {
        let bytes = std::fs::read(path).map_err(|e| CliError::File {
            path: path.into(),
            problem: e.to_string(),
        })?;
        if bytes.len() < 8 || bytes[..8] != PIPELINE_MAGIC {
            return Err(CliError::File {
                path: path.into(),
                problem: "not a model file saved by `nn fit --save`".into(),
            });
        }
        let (file, _): (PipelineFile, usize) = bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
            .map_err(|e| CliError::File {
            path: path.into(),
            problem: format!("corrupt model file: {e}"),
        })?;
        if file.format_version != PIPELINE_VERSION {
            return Err(CliError::File {
                path: path.into(),
                problem: format!(
                    "format version {} (this build reads {PIPELINE_VERSION})",
                    file.format_version
                ),
            });
        }
        Ok(file.pipeline)
    }
}

fn targets(data: &Dataset, task: TaskKind, classes: Option<usize>, what: &str) -> Result<Array2<f64>, CliError> {
    match (task, classes) {
        (TaskKind::Classification, Some(c)) => Ok(one_hot(&data.y, c).map_err(|e| {
            CliError::Usage(format!(
                "{what}: labels must be integers in 0..{c} (classes seen in training): {e}"
            ))
        })?),
        _ => Ok(data.y.clone().insert_axis(Axis(1))),
    }
}

fn metric(task: TaskKind, truth: &Dataset, predicted: &[f64]) -> Result<f64, CliError> {
    Ok(match task {
        TaskKind::Classification => {
            let t: Vec<usize> = truth.y.iter().map(|&v| v as usize).collect();
            let p: Vec<usize> = predicted.iter().map(|&v| v as usize).collect();
            metrics::accuracy(&t, &p)?
        }
        TaskKind::Regression => {
            let t = truth.y.view().insert_axis(Axis(1));
            let p = Array2::from_shape_vec((predicted.len(), 1), predicted.to_vec())
                .map_err(|e| CliError::Usage(e.to_string()))?;
            metrics::rmse(t, p.view())?
        }
    })
}

/// Run `fit`: load, standardize, fit, evaluate, optionally save. Progress
/// goes to stderr; the report is returned (the binary prints it as JSON).
pub fn fit(args: &FitArgs) -> Result<FitReport, CliError> {
    eprintln!("nn fit: loading {} and {}", args.train.display(), args.test.display());
    let train = datasets::load_any(&args.train)?;
    let test = datasets::load_any(&args.test)?;
    if train.n_features() != test.n_features() {
        return Err(CliError::Usage(format!(
            "train has {} features, test {}",
            train.n_features(),
            test.n_features()
        )));
    }
    let classes = match args.task {
        TaskKind::Classification => Some(train.infer_classes().ok_or_else(|| {
            CliError::Usage(format!(
                "{}: classification labels must be integers ≥ 0",
                args.train.display()
            ))
        })?),
        TaskKind::Regression => None,
    };
    let scaler = StandardScaler::fit(&train.x)?;
    let x_train = scaler.transform(&train.x)?;
    let mut y_train = targets(&train, args.task, classes, "train")?;
    let target_scale = match args.task {
        TaskKind::Regression => {
            let n = y_train.len() as f64;
            let mean = y_train.sum() / n;
            let var = y_train.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let std = if var > 0.0 { var.sqrt() } else { 1.0 };
            y_train.mapv_inplace(|v| (v - mean) / std);
            Some((mean, std))
        }
        TaskKind::Classification => None,
    };
    targets(&test, args.task, classes, "test")?;
    let started = Instant::now();
    let (model, updates) = match args.model {
        ModelKind::Elm => {
            eprintln!(
                "nn fit: {} training samples × {} features; {} hidden {} nodes, solver {}",
                train.n_samples(),
                train.n_features(),
                args.hidden,
                args.activation,
                args.solver
            );
            let elm = match args.solver {
                ReadoutSolver::Strategy(_) => grow(args, &x_train, &y_train)?,
                solver => ElmParams::new(args.hidden, args.activation)
                    .with_lambda(args.lambda)
                    .with_solver(solver)
                    .with_seed(args.seed)
                    .fit(&models::Dataset::new(x_train.view(), y_train.view()))?,
            };
            (FittedModel::Elm(elm), None)
        }
        ModelKind::Bls => {
            let b = &args.bls;
            eprintln!(
                "nn fit: {} training samples × {} features; BLS {} × {} feature nodes + {} enhancement nodes, {} updates, strategy {}, λ = {:e}",
                train.n_samples(),
                train.n_features(),
                b.feature_groups,
                b.feature_nodes,
                b.enhancement,
                b.increments.len(),
                b.strategy,
                args.lambda
            );
            let (model, updates) = bls::fit(b, args.lambda, args.seed, &x_train, &y_train)?;
            (FittedModel::Bls(model), Some(updates))
        }
    };
    let train_seconds = started.elapsed().as_secs_f64();
    let (feature_nodes, enhancement_nodes) = match &model {
        FittedModel::Bls(m) => (Some(m.feature_nodes()), Some(m.enhancement_nodes())),
        FittedModel::Elm(_) => (None, None),
    };
    eprintln!("nn fit: fitted in {train_seconds:.2} s");
    let pipeline = FittedPipeline {
        task: args.task,
        classes,
        scaler,
        target_scale,
        model,
    };
    let train_metric = metric(args.task, &train, &pipeline.predict(&train.x)?)?;
    let test_metric = metric(args.task, &test, &pipeline.predict(&test.x)?)?;
    let saved_to = match &args.save {
        Some(path) => {
            pipeline.save(path)?;
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(FitReport {
        model: match args.model {
            ModelKind::Elm => "elm".into(),
            ModelKind::Bls => "bls".into(),
        },
        task: match args.task {
            TaskKind::Classification => "classification".into(),
            TaskKind::Regression => "regression".into(),
        },
        n_train: train.n_samples(),
        n_test: test.n_samples(),
        n_features: train.n_features(),
        classes,
        hidden: args.hidden,
        feature_nodes,
        enhancement_nodes,
        updates,
        activation: match args.model {
            ModelKind::Elm => args.activation.to_string(),
            ModelKind::Bls => Activation::Tanh.to_string(),
        },
        solver: match args.model {
            ModelKind::Elm => args.solver.to_string(),
            ModelKind::Bls => args.bls.strategy.to_string(),
        },
        lambda: match (args.model, args.solver) {
            (ModelKind::Elm, ReadoutSolver::Lstsq) => None,
            _ => Some(args.lambda),
        },
        seed: args.seed,
        train_seconds,
        test_metric_name: match args.task {
            TaskKind::Classification => "accuracy".into(),
            TaskKind::Regression => "rmse".into(),
        },
        test_metric,
        train_metric,
        saved_to,
    })
}

/// Grow an ELM one node at a time with an incremental strategy.
fn grow(args: &FitArgs, x: &Array2<f64>, y: &Array2<f64>) -> Result<Elm, CliError> {
    let start = args.initial_nodes.min(args.hidden);
    let params = ElmParams::new(start, args.activation)
        .with_lambda(args.lambda)
        .with_solver(args.solver)
        .with_seed(args.seed)
        .check()?;
    let mut inc = IncrementalElm::start(&params, &models::Dataset::new(x.view(), y.view()))?;
    inc.reserve(args.hidden - start);
    let total = args.hidden - start;
    let mut last_report = Instant::now();
    for done in 0..total {
        inc.add_nodes(1)?;
        if last_report.elapsed().as_secs_f64() > 2.0 {
            eprintln!("nn fit: {} of {} nodes", inc.nodes(), args.hidden);
            last_report = Instant::now();
        }
        let _ = done;
    }
    Ok(inc.into_elm())
}

/// Run `predict`: load the model and the data, return the predictions.
pub fn predict(args: &[String]) -> Result<Vec<f64>, CliError> {
    let (mut model, mut data) = (None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--model-file" => model = Some(PathBuf::from(value(&mut it, flag)?)),
            "--data" => data = Some(PathBuf::from(value(&mut it, flag)?)),
            other => return Err(CliError::Usage(format!("unknown argument `{other}` for predict"))),
        }
    }
    let model = model.ok_or_else(|| CliError::Usage("--model-file is required".into()))?;
    let data = data.ok_or_else(|| CliError::Usage("--data is required".into()))?;
    let pipeline = FittedPipeline::load(&model)?;
    let ds = datasets::load_any(&data)?;
    pipeline.predict(&ds.x)
}
