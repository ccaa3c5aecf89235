//! `nn fit` in memory: load the files, check the memory the fit needs,
//! scale, fit the model through its [`ModelCommand`], evaluate, save, and
//! the JSON report. Nothing here depends on which model is fitted.

use std::time::Instant;

use ndarray::{Array1, Array2, ArrayView1, Axis};

use super::args::FitArgs;
use super::budget::{self, FitSize};
use super::common::TaskKind;
use super::error::CliError;
use super::fit_data::{check_n_features, columns_of, finite_metric, non_empty, target_scale};
use super::model_command::FitContext;
use super::report::{fit_report, FitReport, Fitted, Run};
use super::stream;
use crate::datasets::{self, one_hot, ClassLabels, ReadOptions, Table};
use nn_data::pipeline::{FittedPipeline, InputScaler};

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
        args.model.kind().name().to_uppercase()
    ))
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
    let command = args.model.command();
    let (train, test, weights) = load_train_test(args, command.weight_column())?;
    let (labels, y_train_raw, y_test) = targets(args, &train, &test)?;
    let classes = labels.as_ref().map(ClassLabels::len);
    budget::check_fit(
        command,
        args.select.as_ref(),
        FitSize {
            train: train.n_samples(),
            test: test.n_samples(),
            features: train.n_features(),
            nodes: command.largest_nodes(args.select.as_ref()),
            outputs: classes.unwrap_or(1),
        },
    )?;
    let w = weights.as_ref().map(|w| w.view());
    let (scaler, x_train) = scaled_features(args, &train, w)?;
    let (y_train, target_scale) = training_targets(args, classes, &y_train_raw, w)?;
    let threads = linalg_core::threads::blas_threads();
    announce(args, &train, y_train.ncols(), threads);
    let started = Instant::now();
    let ctx = FitContext {
        task: args.task,
        seed: args.seed,
        select: args.select.as_ref(),
        weights: weights.as_ref().map(|w| w.view()),
    };
    let mut trained = command
        .train(&ctx, &x_train, &y_train)
        .map_err(|e| overflowed_hidden_layer(e, args, &x_train))?;
    if args.scale_out.updatable {
        trained.model = trained.model.into_updatable(x_train, y_train)?;
    }
    let train_seconds = started.elapsed().as_secs_f64();
    say!("nn fit: fitted in {train_seconds:.2} s");
    let pipeline = FittedPipeline {
        task: args.task,
        classes,
        scaler,
        target_scale,
        model: trained.model,
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
    let fitted = Fitted {
        hidden: trained.hidden,
        lambda: trained.lambda,
        selection: trained.selection,
        details: trained.details,
    };
    Ok(fit_report(args, run, fitted))
}

/// Read the training and the test file and check that they fit together;
/// with `weight_column`, take that column out of both (the test file's only
/// if it has one) and return the training rows' weights, checked.
fn load_train_test(
    args: &FitArgs,
    weight_column: Option<&str>,
) -> Result<(Table, Table, Option<Array1<f64>>), CliError> {
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
    let mut test = datasets::read_table(&args.test, &test_options)?;
    non_empty(&test, "test")?;
    let mut train = train;
    let weights = match weight_column {
        Some(name) => {
            let w = train.take_feature(name)?;
            check_sample_weights(&train, name, &w)?;
            if test.feature_names.as_ref().is_some_and(|n| n.iter().any(|c| c == name)) {
                test.take_feature(name)?;
            }
            Some(w)
        }
        None => None,
    };
    if train.n_features() != test.n_features() {
        return Err(CliError::Input(format!(
            "{} has {} features per sample, but the training file {} has {}",
            args.test.display(),
            test.n_features(),
            args.train.display(),
            train.n_features()
        )));
    }
    Ok((train, test, weights))
}

/// `--weight-column name`'s values `w` of the training table: finite, ≥ 0,
/// not all 0; an error names the file, the line and the value.
fn check_sample_weights(train: &Table, name: &str, w: &Array1<f64>) -> Result<(), CliError> {
    if let Some((row, v)) = w.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
        let line = train
            .lines
            .as_ref()
            .and_then(|l| l.get(row))
            .map_or(String::new(), |l| format!(" line {l}:"));
        return Err(CliError::Input(format!(
            "{}:{line} weight {v} in column {name:?}: sample weights must be finite and >= 0",
            train.source.display()
        )));
    }
    if !w.iter().any(|v| *v > 0.0) {
        return Err(CliError::Input(format!(
            "{}: every weight in column {name:?} is 0: at least one row must count",
            train.source.display()
        )));
    }
    Ok(())
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

/// The input scaler fitted on the training features (weighted by the sample
/// weights, if any), and those features scaled; a value the scaling makes
/// non-finite is an error naming its line.
fn scaled_features(
    args: &FitArgs,
    train: &Table,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<(InputScaler, Array2<f64>), CliError> {
    let scaler = match weights {
        Some(w) => InputScaler::fit_weighted(args.scale, &train.x, w)?,
        None => InputScaler::fit(args.scale, &train.x)?,
    };
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
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<(Array2<f64>, TargetScale), CliError> {
    let mut y_train = match classes {
        Some(c) => one_hot(y_train_raw, c)?,
        None => y_train_raw.clone().insert_axis(Axis(1)),
    };
    let target_scale = match args.task {
        TaskKind::Regression => {
            let (mean, std) = target_scale(&y_train, &args.train, weights)?;
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
    say!(
        "nn fit: {} training samples × {} features ({} scaling); {}, {threads} BLAS threads",
        train.n_samples(),
        train.n_features(),
        args.scale.name(),
        args.model.command().describe(outputs)
    );
}

/// Regression: the training targets' mean and standard deviation.
type TargetScale = Option<(f64, f64)>;

/// Classification's labels, and the raw training and test targets.
type TargetParts = (Option<ClassLabels>, Array1<f64>, Array1<f64>);
