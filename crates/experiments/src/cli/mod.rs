//! The user's commands behind `cargo xtask fit` and `cargo xtask predict`
//! (binary `nn`): train a model on the user's files, evaluate it, print one
//! JSON object; predict with a saved model.
//!
//! ```text
//! nn fit --model elm --train TRAIN --test TEST --task classification|regression --hidden N
//!        [--lambda L] [--activation NAME] [--solver ridge|lstsq|STRATEGY] [--seed S]
//!        [--initial-nodes N0] [--scale zscore|minmax|none] [--threads T] [--save FILE]
//!        [--no-header | --header] [--n-features N]
//! nn fit --model bls --train TRAIN --test TEST --task classification|regression
//!        [--feature-groups G] [--feature-nodes N] [--enhancement E] [--lambda L]
//!        [--strategy S] [--increments SPEC] [--f32] [--seed S]
//!        [--scale zscore|minmax|none] [--threads T] [--save FILE]
//!        [--no-header | --header] [--n-features N]
//! nn fit --model slfn --train TRAIN --test TEST --task classification|regression --hidden N
//!        [--trainer dec|lbfgs|elm] [--maxiter K] [--lambda L] [--tau-w T] [--seed S] …
//! nn fit --model dfnn --train TRAIN --test TEST --task classification|regression --layers N,N,…
//!        [--trainer b2ld|lbfgs|bling|ig] [--time-limit S] [--batch-size B] [--max-epochs E]
//!        [--exact-last-layer] [--no-bias] [--lambda RHO] [--seed S] …
//! nn fit --model bpls --train TRAIN --test TEST --task classification|regression --layers N,N,…
//!        [--trainer bpls|adam|nag|sgd|adagrad] [--iterations K] [--output-activation linear|sigmoid|softmax]
//!        [--activation sigmoid|tanh|linear] [--lambda L] [--batch-size B] [--max-epochs E]
//!        [--learning-rate ETA] [--seed S] …
//! nn predict --model-file FILE --data DATA [--no-header | --header] [--threads T]
//! ```
//!
//! The flags are declared with clap in [`args`] (`nn fit --help` lists each
//! with its default; [`args::defaults`] holds them, the λ of each model
//! read from [`models::ElmParams::DEFAULT_LAMBDA`] and
//! [`models::BlsParams::DEFAULT_LAMBDA`]). `train.rs` is the one place where
//! they become model hyper-parameters.
//!
//! The BLS (the ridge-solutions paper's incremental Broad Learning System)
//! starts with G feature groups of N nodes and E enhancement nodes, then
//! applies the `--increments` schedule ([`bls::parse_increments`]; the
//! paper's MNIST schedule is `f10:750:1250x11`), updating the output
//! weights with `--strategy` (orig, exg-e, chol1, chol2, r-inv, d-rdg, …).
//!
//! The DFNN (Palagi & Seccia's deep network: [`dfnn`]) has the hidden
//! widths of `--layers` and one output per target column; `--lambda` is the
//! `ρ` of their objective (3), by default their `10⁻³ /` (number of
//! weights).
//!
//! The BPLS model (Tomic et al.'s fully connected network: [`bpls`]) has
//! the hidden widths of `--layers` too; `--trainer bpls` runs their
//! Algorithm 2 for classification (`--iterations` = `τ_max`) and Algorithm 1
//! for regression, `--trainer adam|nag|sgd|adagrad` backprop on the same
//! starting network (their baselines).
//!
//! TRAIN/TEST/DATA are CSV (header row — or none with `--no-header`; a
//! first row of numbers only is refused unless `--header` or `--no-header`
//! says what it is —, target in the last column; `.csv.gz` too), MNIST IDX
//! image files (labels from the matching `labels-idx1` file beside them) or
//! LIBSVM text (the test file read with the training width, or
//! `--n-features`). Classification labels — integers of any size, or
//! names — map to classes in sorted order, as in scikit-learn; the saved
//! model keeps them and `predict` prints them. Features are scaled with statistics of the
//! training part only (`--scale`; by default z-scores for the ELM and `[0, 1]`
//! for the BLS, the scaling each method expects, and `[0, 1]` for IDX images
//! with either model: [`args::ModelKind::default_scale_for`]); regression targets are
//! standardized (overflow-free, so targets of any finite magnitude work).
//! A prediction or metric that is not finite is an error naming the file, the
//! line and the cause, never a result. With an incremental `--solver` (a strategy name such as
//! `alg3`), the network grows one node at a time from `--initial-nodes`
//! (default 2, as in Zhu & Wei's protocol) to `--hidden`.

/// `eprintln!` that ignores a failed write: progress on stderr must not
/// panic when stderr is closed or full (`nn fit 2>/dev/full`); the report
/// on stdout and the exit code carry the outcome.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod args;
pub mod bls;
pub mod bpls;
pub mod budget;
pub mod dfnn;
pub mod elm;
/// The saved scaler + model pipeline: the data layer's (`nn-data`).
pub use nn_data::pipeline;
mod progress;
mod report;
pub mod saved;
pub mod scale_out;
pub mod select;
pub mod shared_flags;
pub mod slfn;
pub mod stream;
mod train;
pub mod trainer;

use std::path::{Path, PathBuf};
use std::time::Instant;

use ndarray::{Array1, Array2, Axis};

pub use self::args::{Cli, Command, FitArgs, FitFlags, ModelKind, PredictFlags, Scale, TaskKind, UpdateFlags};
use self::bpls::BplsArgs;
pub use self::pipeline::{FittedModel, FittedPipeline, InputScaler};
pub(crate) use self::report::{fit_report, ModelShape, Run};
pub use self::report::{BlasJson, FitReport};
pub use self::saved::{update, UpdateReport};
use crate::datasets::{self, one_hot, ClassLabels, ReadOptions, Table, Targets};
use crate::metrics;

/// Errors of the command line: bad arguments, unusable data, model errors.
/// Each displays as one line naming what was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A missing, unknown, malformed or inapplicable argument, or flags that
    /// ask for more than the machine has (`nn` exits with 2).
    #[error("{0}")]
    Usage(String),
    /// Files that do not fit together (a test file narrower than the
    /// training file, a model file that cannot be updated), data the fit
    /// cannot use, or a fit that failed its checks (`nn` exits with 1).
    #[error("{0}")]
    Input(String),
    /// Loading or preparing the data failed.
    #[error(transparent)]
    Data(#[from] datasets::DataError),
    /// Fitting, predicting or saving the model failed.
    #[error(transparent)]
    Model(#[from] models::ModelError),
    /// A linear-algebra routine failed.
    #[error(transparent)]
    Linalg(#[from] linalg_core::Error),
    /// A metric could not be computed.
    #[error(transparent)]
    Metric(#[from] metrics::MetricError),
    /// The report could not be written as JSON.
    #[error("cannot write the report: {0}")]
    Json(#[from] serde_json::Error),
    /// Reading or writing the model file failed.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        problem: String,
    },
}

impl From<pipeline::PipelineError> for CliError {
    /// The same message; a model that cannot take new rows is a usage error
    /// (`nn update` of a model file that is not a ridge readout: exit 2).
    fn from(e: pipeline::PipelineError) -> Self {
        use pipeline::PipelineError as P;
        match e {
            P::NotUpdatable(m) => CliError::Usage(m),
            P::Input(m) => CliError::Input(m),
            P::Data(d) => CliError::Data(d),
            P::Model(m) => CliError::Model(m),
            P::File { path, problem } => CliError::File { path, problem },
            other => CliError::Input(other.to_string()),
        }
    }
}

fn metric(task: TaskKind, truth: &Array1<f64>, predicted: &[f64]) -> Result<f64, CliError> {
    Ok(match task {
        TaskKind::Classification => {
            let t: Vec<usize> = truth.iter().map(|&v| v as usize).collect();
            let p: Vec<usize> = predicted.iter().map(|&v| v as usize).collect();
            metrics::accuracy(&t, &p)?
        }
        TaskKind::Regression => {
            let t = truth.view().insert_axis(Axis(1));
            let p = Array2::from_shape_vec((predicted.len(), 1), predicted.to_vec())
                .map_err(|e| CliError::Input(e.to_string()))?;
            metrics::rmse(t, p.view())?
        }
    })
}

/// The mean and standard deviation of the regression targets `y` (from the
/// file `path`; a constant column gets deviation 1). Targets of any finite
/// magnitude work: when the plain sums overflow (targets beyond about 1e154),
/// both are computed on `y / max|y|` and scaled back.
///
/// # Errors
/// [`CliError::Usage`] naming the file and the targets' magnitude if the
/// scale is still not finite.
fn target_scale(y: &Array2<f64>, path: &std::path::Path) -> Result<(f64, f64), CliError> {
    let n = y.len() as f64;
    let mean = y.sum() / n;
    let var = y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let (mean, std) = if mean.is_finite() && var.is_finite() {
        (mean, if var > 0.0 { var.sqrt() } else { 1.0 })
    } else {
        let largest = y.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
        let m = y.iter().map(|v| v / largest).sum::<f64>() / n;
        let var = y.iter().map(|v| (v / largest - m) * (v / largest - m)).sum::<f64>() / n;
        (m * largest, if var > 0.0 { var.sqrt() * largest } else { 1.0 })
    };
    if !(mean.is_finite() && std.is_finite() && std > 0.0) {
        return Err(CliError::Input(format!(
            "{}: cannot standardize the regression targets (largest magnitude {:e}): mean {mean}, standard \
             deviation {std}; rescale the target column",
            path.display(),
            y.iter().fold(0.0_f64, |a, v| a.max(v.abs()))
        )));
    }
    Ok((mean, std))
}

/// [`metric`], refusing a value that is not finite (never reported as a
/// result).
fn finite_metric(task: TaskKind, truth: &Array1<f64>, source: &Path, predicted: &[f64]) -> Result<f64, CliError> {
    let value = metric(task, truth, predicted)?;
    if !value.is_finite() {
        return Err(not_finite_metric(task, source, value));
    }
    Ok(value)
}

/// The error of a metric that is not finite on the file `source`.
fn not_finite_metric(task: TaskKind, source: &Path, value: f64) -> CliError {
    CliError::File {
        path: source.to_path_buf(),
        problem: format!(
            "the {} is {value} (not finite): targets and predictions differ by more than a 64-bit float holds",
            task.metric_name()
        ),
    }
}

/// A file with no rows is an error naming it (`what`: `training`, `test`).
fn non_empty(table: &Table, what: &str) -> Result<(), CliError> {
    if table.n_samples() == 0 {
        return Err(CliError::Input(format!(
            "{}: the {what} file has no samples",
            table.source.display()
        )));
    }
    Ok(())
}

/// A fit whose hidden outputs are not finite on finite features: the
/// features (after scaling) are beyond what the hidden layer maps to finite
/// values (the BLS's feature maps on 1e300 features with `--scale none`).
/// The error names the file, the features' magnitude and the flag that
/// fixes it; other errors pass as they are.
fn overflowed_hidden_layer(e: CliError, args: &FitArgs, x: &Array2<f64>) -> CliError {
    let inner = match &e {
        CliError::Linalg(inner @ linalg_core::Error::NonFinite { what, .. })
        | CliError::Model(models::ModelError::Linalg(inner @ linalg_core::Error::NonFinite { what, .. }))
            if what.contains("hidden") =>
        {
            inner
        }
        _ => return e,
    };
    let largest = x.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    CliError::Input(format!(
        "{}: the fit's hidden outputs are not finite ({inner}): the features, of magnitude up to {largest:e} after \
         {} scaling, are beyond what the {} maps to finite values; use --scale zscore or --scale minmax",
        args.train.display(),
        args.scale.name(),
        args.model.name().to_uppercase()
    ))
}

/// The column names of a table read from a file with a header (the
/// features and the target), for the saved pipeline.
pub(crate) fn columns_of(table: &Table) -> Option<pipeline::Columns> {
    match (&table.feature_names, &table.target_name) {
        (Some(features), Some(target)) => Some(pipeline::Columns {
            features: features.clone(),
            target: target.clone(),
        }),
        _ => None,
    }
}

/// `--n-features N` against the width `found` of the training file `train`.
/// It sets the width of a LIBSVM file (read with exactly `N` columns, an
/// index beyond it refused), so a file of another width is a CSV or IDX
/// file, whose width is its own: the flag disagreeing with it is refused
/// rather than ignored (issue 36).
///
/// # Errors
/// [`CliError::Usage`] naming the flag, the file and its width.
pub(crate) fn check_n_features(n_features: Option<usize>, train: &Path, found: usize) -> Result<(), CliError> {
    match n_features {
        Some(n) if n != found => Err(CliError::Usage(format!(
            "--n-features {n}: {} has {found} feature columns (--n-features sets the width of LIBSVM files; drop \
             it for CSV and IDX files)",
            train.display()
        ))),
        _ => Ok(()),
    }
}

/// Run `fit`: load, scale, fit, evaluate, optionally save. Progress goes to
/// stderr; the report is returned (the binary prints it as JSON). The BLAS
/// thread count is the caller's to set (the binary sets `--threads`); the
/// report records the count in use.
///
/// # Errors
/// Any [`CliError`]: unreadable or mismatched files, labels that are not
/// classes, invalid hyper-parameters, a failed fit or save.
pub fn fit(args: &FitArgs) -> Result<FitReport, CliError> {
    if args.scale_out.chunk_rows.is_some() {
        if args.scale_out.distributed {
            return Err(CliError::Usage(
                "--distributed: this nn was built without MPI, or not started by its own main; build it with \
                 `--features experiments/mpi` (`cargo xtask setup --mpi` installs Open MPI) and run it under mpirun"
                    .into(),
            ));
        }
        return stream::fit(args, &linalg_core::collective::Local);
    }
    let (train, test) = load_train_test(args)?;
    let (labels, y_train_raw, y_test) = targets(args, &train, &test)?;
    let classes = labels.as_ref().map(ClassLabels::len);
    budget::check_fit(
        args,
        budget::FitSize {
            train: train.n_samples(),
            test: test.n_samples(),
            features: train.n_features(),
            nodes: select::largest_nodes(args),
            outputs: classes.unwrap_or(1),
        },
    )?;
    let (scaler, x_train) = scaled_features(args, &train)?;
    let (y_train, target_scale) = training_targets(args, classes, &y_train_raw)?;
    let threads = linalg_core::threads::blas_threads();
    announce(args, &train, y_train.ncols(), threads);
    let started = Instant::now();
    let (model, info) =
        train::train(args, &x_train, &y_train).map_err(|e| overflowed_hidden_layer(e, args, &x_train))?;
    let model = if args.scale_out.updatable {
        model.into_updatable(x_train, y_train)?
    } else {
        model
    };
    let train_seconds = started.elapsed().as_secs_f64();
    say!("nn fit: fitted in {train_seconds:.2} s");
    let shape = ModelShape::of(&model);
    let pipeline = FittedPipeline {
        task: args.task,
        classes,
        scaler,
        target_scale,
        model,
        labels,
        columns: columns_of(&train),
    };
    let train_metric = finite_metric(args.task, &y_train_raw, &train.source, &pipeline.predict_data(&train)?)?;
    let test_metric = finite_metric(args.task, &y_test, &test.source, &pipeline.predict_data(&test)?)?;
    let saved_to = match &args.save {
        Some(path) => {
            pipeline.save(path)?;
            Some(path.display().to_string())
        }
        None => None,
    };
    let run = Run {
        n_train: train.n_samples(),
        n_test: test.n_samples(),
        n_features: train.n_features(),
        classes,
        threads,
        train_seconds,
        test_metric,
        train_metric,
        saved_to,
    };
    Ok(fit_report(args, run, shape, info))
}

/// Read the training and the test file and check that they fit together.
fn load_train_test(args: &FitArgs) -> Result<(Table, Table), CliError> {
    say!("nn fit: loading {} and {}", args.train.display(), args.test.display());
    let options = ReadOptions {
        header: args.header,
        n_features: args.n_features,
        labels_optional: false,
    };
    let train = datasets::read_table(&args.train, &options)?;
    non_empty(&train, "training")?;
    check_n_features(args.n_features, &args.train, train.n_features())?;
    // A LIBSVM test file is read with the training width (its largest index may be lower).
    let test_options = ReadOptions {
        n_features: Some(train.n_features()),
        ..options
    };
    let test = datasets::read_table(&args.test, &test_options)?;
    non_empty(&test, "test")?;
    if train.n_features() != test.n_features() {
        return Err(CliError::Input(format!(
            "{} has {} features per sample, but the training file {} has {}",
            args.test.display(),
            test.n_features(),
            args.train.display(),
            train.n_features()
        )));
    }
    Ok((train, test))
}

/// The classes' labels (classification) and the raw training and test
/// targets: class indices, or the regression values.
fn targets(args: &FitArgs, train: &Table, test: &Table) -> Result<TargetParts, CliError> {
    Ok(match args.task {
        TaskKind::Classification => {
            let (labels, y_train) = ClassLabels::fit(train)?;
            let y_test = labels.encode(test, Some(&args.train))?;
            (Some(labels), y_train, y_test)
        }
        TaskKind::Regression => (None, train.numeric_targets()?, test.numeric_targets()?),
    })
}

/// The input scaler fitted on the training features, and those features
/// scaled; a value the scaling makes non-finite is an error naming its line.
fn scaled_features(args: &FitArgs, train: &Table) -> Result<(InputScaler, Array2<f64>), CliError> {
    let scaler = InputScaler::fit(args.scale, &train.x)?;
    let x_train = scaler.transform(&train.x)?;
    if let Some(((row, col), value)) = x_train.indexed_iter().find(|(_, v)| !v.is_finite()) {
        let place = match train.lines.as_ref().and_then(|lines| lines.get(row)) {
            Some(line) => format!("line {line}"),
            None => format!("sample {}", row + 1),
        };
        return Err(CliError::Input(format!(
            "{}: {place}: feature {} ({:e}) becomes {value} (not finite) after {} scaling; rescale the column \
             or choose another --scale",
            args.train.display(),
            col + 1,
            train.x[[row, col]],
            args.scale.name()
        )));
    }
    Ok((scaler, x_train))
}

/// The targets the model is fitted to: one-hot classes, or the regression
/// targets standardized (with their mean and deviation).
fn training_targets(
    args: &FitArgs,
    classes: Option<usize>,
    y_train_raw: &Array1<f64>,
) -> Result<(Array2<f64>, TargetScale), CliError> {
    let mut y_train = match classes {
        Some(c) => one_hot(y_train_raw, c)?,
        None => y_train_raw.clone().insert_axis(Axis(1)),
    };
    let target_scale = match args.task {
        TaskKind::Regression => {
            let (mean, std) = target_scale(&y_train, &args.train)?;
            y_train.mapv_inplace(|v| (v - mean) / std);
            if y_train.iter().any(|v| !v.is_finite()) {
                return Err(CliError::Input(format!(
                    "{}: the regression targets (largest magnitude {:e}) span more than a 64-bit float can \
                     standardize; rescale the target column",
                    args.train.display(),
                    y_train_raw.iter().fold(0.0_f64, |a, v| a.max(v.abs()))
                )));
            }
            Some((mean, std))
        }
        TaskKind::Classification => None,
    };
    Ok((y_train, target_scale))
}

/// One line on stderr saying what is about to be fitted.
fn announce(args: &FitArgs, train: &Table, outputs: usize, threads: usize) {
    match args.model {
        ModelKind::Elm => say!(
            "nn fit: {} training samples × {} features ({} scaling); {} hidden {} nodes, solver {}, {threads} BLAS threads",
            train.n_samples(),
            train.n_features(),
            args.scale.name(),
            args.hidden,
            args.activation,
            args.solver
        ),
        ModelKind::Slfn => say!(
            "nn fit: {} training samples × {} features ({} scaling); SLFN with {} sigmoid units, trainer {}, τ_λ = {:e}, {threads} BLAS threads",
            train.n_samples(),
            train.n_features(),
            args.scale.name(),
            args.hidden,
            args.trainer,
            args.lambda
        ),
        ModelKind::Dfnn => say!(
            "nn fit: {} training samples × {} features ({} scaling); DFNN with hidden layers {:?} (sigmoid) and a linear output layer of {} unit(s), {}, trainer {}, {threads} BLAS threads",
            train.n_samples(),
            train.n_features(),
            args.scale.name(),
            args.dfnn.as_ref().map_or(&[][..], |d| &d.hidden),
            outputs,
            match args.dfnn.as_ref().map(|d| d.bias) {
                Some(models::dfnn::Bias::None) => "no biases",
                _ => "biases",
            },
            args.dfnn.as_ref().map_or("", |d| d.trainer.name()),
        ),
        ModelKind::Bpls => {
            let b = args.bpls.as_ref();
            say!(
                "nn fit: {} training samples × {} features ({} scaling); BPLS network with hidden layers {:?} ({}) and a {} output layer of {} unit(s), trainer {}, {threads} BLAS threads",
                train.n_samples(),
                train.n_features(),
                args.scale.name(),
                b.map_or(&[][..], |b| &b.hidden),
                args.activation,
                b.map_or("", |b| b.output.name()),
                outputs,
                b.map_or("", BplsArgs::trainer_name),
            )
        }
        ModelKind::Bls => {
            let b = &args.bls;
            say!(
                "nn fit: {} training samples × {} features ({} scaling); BLS {} × {} feature nodes + {} enhancement nodes, {} updates, strategy {}, λ = {:e}, {threads} BLAS threads",
                train.n_samples(),
                train.n_features(),
                args.scale.name(),
                b.feature_groups,
                b.feature_nodes,
                b.enhancement,
                b.increments.len(),
                b.strategy,
                args.lambda
            )
        }
    }
}

/// Regression: the training targets' mean and standard deviation.
type TargetScale = Option<(f64, f64)>;

/// Classification's labels, and the raw training and test targets.
type TargetParts = (Option<ClassLabels>, Array1<f64>, Array1<f64>);

/// Run `predict`: load the model and the data, return the predictions as
/// printed (classification: the original labels of the training file).
///
/// The data holds the model's features: a CSV of exactly the model's width,
/// or one more column (the target, read and ignored); IDX images with or
/// without their labels file; LIBSVM text, read with the model's width.
///
/// # Errors
/// [`CliError::File`] for a file that is not a saved model, any error of
/// loading the data (a width that fits neither way names the file, the
/// expected and the found width) or of the model's prediction.
pub fn predict(args: &PredictFlags) -> Result<Vec<String>, CliError> {
    let pipeline = FittedPipeline::load(&args.model_file)?;
    let width = pipeline.n_inputs();
    let options = ReadOptions {
        header: args.header.mode(),
        n_features: Some(width),
        labels_optional: true,
    };
    let table = datasets::read_table(&args.data, &options)?;
    // A header of a width the model takes (its features, or them and the
    // target) is checked against the training columns; other widths get
    // the width's error below.
    let names: Option<Vec<String>> = table
        .feature_names
        .as_ref()
        .map(|f| f.iter().cloned().chain(table.target_name.iter().cloned()).collect())
        .filter(|names: &Vec<String>| names.len() == width || names.len() == width + 1);
    pipeline.check_columns(names.as_deref(), &args.data, &args.model_file)?;
    let table = match &table.targets {
        Targets::Text(_) if table.n_features() + 1 == width => table.with_target_as_feature().map_err(|e| {
            CliError::Input(format!(
                "{e} (the file has {width} columns, as many as the model has features, so its last column is read as a feature)"
            ))
        })?,
        _ => table,
    };
    if table.n_features() != width {
        let found = match &table.targets {
            Targets::Text(_) => format!(
                "{} columns (taken as {} features and the target)",
                table.n_features() + 1,
                table.n_features()
            ),
            _ => format!("{} features per sample", table.n_features()),
        };
        let expected = if matches!(table.targets, Targets::Text(_)) {
            format!("{width} feature columns, or {} with the target last", width + 1)
        } else {
            format!("{width} features per sample")
        };
        return Err(CliError::Input(format!(
            "{}: the model {} expects {expected}; the file has {found}",
            args.data.display(),
            args.model_file.display()
        )));
    }
    Ok(pipeline.predict_labels_data(&table)?)
}
