//! Commands on a saved model: the flags of `nn predict`, and `nn update`,
//! which adds rows to and forgets rows from a model saved with
//! `nn fit … --updatable --save FILE` (issue 21, part 2).
//!
//! ```text
//! nn update --model-file FILE [--add DATA]… [--forget DATA]… [--test DATA] [--save OUT]
//!           [--no-header | --header] [--threads T]
//! ```
//!
//! The rows of every `--add` file are added to the fit, then those of every
//! `--forget` file removed, each as one block: the output weights become
//! exactly those of a ridge fit on the rows kept, with the saved hidden
//! layer, input scaling and target scaling. The model is written back to
//! FILE (or to `--save OUT`), through a temporary file renamed over it, only
//! when every step succeeded; the target must be a regular file or a new
//! path, and none of the data files (checked first). One JSON object
//! reports the rows, the time of the updates and, with `--test`, the metric.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use ndarray::Axis;
use serde::{Deserialize, Serialize};

use super::common::{at_least_one, threads_help, HeaderFlags, TaskKind};
use super::error::CliError;
use super::fit_data::finite_metric;
use crate::datasets::{self, one_hot, ClassLabels, ReadOptions, Table, Targets};
use models::Chunk;
use models::{LinearReadout, ModelError, OnlineFit};
use nn_data::pipeline::{FittedModel, FittedPipeline, InputScaler};

/// The flags of `nn predict`.
#[derive(Clone, Debug, Args)]
pub struct PredictFlags {
    /// A model saved by `nn fit --save`.
    #[arg(long, value_name = "FILE")]
    pub model_file: PathBuf,
    /// The samples to predict (same formats as `nn fit --train`): a CSV of
    /// the model's features, optionally followed by a target column (read
    /// and ignored); IDX images with or without a labels file; LIBSVM text
    /// (read with the model's width).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// How the first row of a CSV file is read.
    #[command(flatten)]
    pub header: HeaderFlags,
    /// BLAS threads (default: every core).
    #[arg(long, value_name = "N", value_parser = at_least_one, help = threads_help(), long_help = threads_help())]
    pub threads: Option<usize>,
}

/// The flags of `nn update`.
#[derive(Clone, Debug, Args)]
pub struct UpdateFlags {
    /// A model saved by `nn fit --updatable --save FILE` (ELM or BLS).
    #[arg(long, value_name = "FILE")]
    pub model_file: PathBuf,
    /// Rows to add to the fit (same formats as `nn fit --train`, with
    /// targets); may be repeated.
    #[arg(long, value_name = "DATA")]
    pub add: Vec<PathBuf>,
    /// Rows to remove from the fit (they must have been added: by the first
    /// fit or an earlier update); may be repeated. Applied after --add.
    #[arg(long, value_name = "DATA")]
    pub forget: Vec<PathBuf>,
    /// Evaluate the updated model on DATA (accuracy or RMSE in the report).
    #[arg(long, value_name = "DATA")]
    pub test: Option<PathBuf>,
    /// Write the updated model to OUT instead of back to --model-file.
    #[arg(long, value_name = "OUT")]
    pub save: Option<PathBuf>,
    /// Read the files R rows at a time: each chunk of an --add file is one
    /// rank-R update; a --forget file's chunks are summed and forgotten at
    /// once. Memory: one chunk and the model's sums.
    #[arg(long, value_name = "R", value_parser = at_least_one, default_value_t = super::scale_out::DEFAULT_CHUNK_ROWS)]
    pub chunk_rows: usize,
    /// How the first row of a CSV file is read.
    #[command(flatten)]
    pub header: HeaderFlags,
    /// BLAS threads (default: every core).
    #[arg(long, value_name = "N", value_parser = at_least_one, help = threads_help(), long_help = threads_help())]
    pub threads: Option<usize>,
}

/// One file's block of rows added or forgotten.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct UpdateStep {
    /// `add` or `forget`.
    pub action: String,
    /// The data file.
    pub file: String,
    /// Rows in it.
    pub rows: usize,
    /// Seconds of the update (hidden outputs, factor, weights; reading and
    /// scaling the file not counted).
    pub seconds: f64,
    /// Flops of the factor and sums' update (the papers' counting rule).
    pub flops: u64,
}

/// What `nn update` prints: one JSON object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct UpdateReport {
    /// `elm` or `bls`.
    pub model: String,
    /// The task of the model.
    pub task: String,
    /// Hidden nodes (rows of the output weights).
    pub nodes: usize,
    /// Rows in the fit before the update.
    pub rows_before: usize,
    /// Rows in the fit after it.
    pub rows_after: usize,
    /// Each file's update, in the order applied.
    pub steps: Vec<UpdateStep>,
    /// `accuracy` or `rmse`, with --test.
    pub test_metric_name: Option<String>,
    /// The updated model's metric on --test.
    pub test_metric: Option<f64>,
    /// Where the updated model was written.
    pub saved_to: String,
    /// BLAS threads in use.
    pub threads: usize,
}

/// Run `update`: load the model, add and forget the rows of the files,
/// evaluate, save.
///
/// # Errors
/// [`CliError::Usage`] when there is nothing to do or the file to write is not a regular file or
/// is one of the data files (checked before anything is read);
/// [`CliError::Input`] for a model not saved with `--updatable`; any error of
/// reading the files (a width other than the model's, a class label it does
/// not know, a feature that is not finite after scaling), and [`models::ModelError`]s of the update (a
/// forget that leaves the system indefinite: nothing is saved then).
pub fn update(flags: &UpdateFlags) -> Result<UpdateReport, CliError> {
    if flags.add.is_empty() && flags.forget.is_empty() {
        return Err(CliError::Usage(
            "nothing to update: give --add DATA (rows to add) and/or --forget DATA (rows to remove)".into(),
        ));
    }
    let out = flags.save.clone().unwrap_or_else(|| flags.model_file.clone());
    let flag = if flags.save.is_some() { "--save" } else { "--model-file" };
    let inputs: Vec<&Path> = flags
        .add
        .iter()
        .chain(&flags.forget)
        .chain(&flags.test)
        .map(PathBuf::as_path)
        .collect();
    check_save_target(flag, &out, &inputs)?;
    let mut pipeline = FittedPipeline::load(&flags.model_file)?;
    let (model, nodes, rows_before) = match &pipeline.model {
        FittedModel::OnlineElm(m) => ("elm", m.model().nodes(), m.rows()),
        FittedModel::OnlineBls(m) => ("bls", m.model().nodes(), m.rows()),
        _ => {
            return Err(CliError::Input(format!(
                "{} was not saved with --updatable: refit with `nn fit … --updatable --save FILE` (ELM or BLS) to \
                 keep the sums that updates need",
                flags.model_file.display()
            )))
        }
    };
    let options = ReadOptions {
        header: flags.header.mode(),
        n_features: Some(pipeline.n_inputs()),
        labels_optional: false,
    };
    let mut steps = Vec::new();
    let files = flags
        .add
        .iter()
        .map(|f| ("add", f))
        .chain(flags.forget.iter().map(|f| ("forget", f)));
    for (action, file) in files {
        say!("nn update: {action} the rows of {}", file.display());
        let width = pipeline.n_inputs();
        let (scaler, labels) = (pipeline.scaler.clone(), pipeline.labels.clone());
        let prep = RowPrep {
            scaler: &scaler,
            labels: labels.as_ref(),
            ..RowPrep::of(&pipeline)
        };
        let mut step = UpdateStep {
            action: action.into(),
            file: file.display().to_string(),
            ..UpdateStep::default()
        };
        let mut rows = 0;
        let mut chunks = datasets::read_table_chunks(file, &options, flags.chunk_rows)?.map(|table| {
            let table = table?;
            check_width(&table, width, &flags.model_file)?;
            let chunk = prep.rows(&table, &flags.model_file)?;
            rows += chunk.0.nrows();
            Ok::<_, CliError>(chunk)
        });
        let started = Instant::now();
        let mut read_seconds = 0.0;
        if action == "add" {
            loop {
                let t = Instant::now();
                let Some(chunk) = chunks.next() else { break };
                read_seconds += t.elapsed().as_secs_f64();
                step.flops += apply(&mut pipeline.model, Some(chunk?), None)?;
            }
        } else {
            let mut sourced = chunks
                .by_ref()
                .map(|c| c.map_err(|e| ModelError::Source(e.to_string())));
            step.flops += apply(&mut pipeline.model, None, Some(&mut sourced))?;
        }
        drop(chunks);
        step.rows = rows;
        // Reading and scaling are not the update's time for --add; for
        // --forget they are interleaved with the sums and counted.
        step.seconds = started.elapsed().as_secs_f64() - read_seconds;
        steps.push(step);
    }
    let rows_after = match &pipeline.model {
        FittedModel::OnlineElm(m) => m.rows(),
        FittedModel::OnlineBls(m) => m.rows(),
        _ => rows_before,
    };
    let (test_metric_name, test_metric) = match &flags.test {
        Some(path) => {
            let test = datasets::read_table(path, &options)?;
            check_width(&test, pipeline.n_inputs(), &flags.model_file)?;
            let truth = match (pipeline.task, &pipeline.labels) {
                (TaskKind::Classification, Some(labels)) => labels.encode(&test, None)?,
                _ => test.numeric_targets()?,
            };
            let value = finite_metric(pipeline.task, &truth, path, &pipeline.predict_data(&test)?)?;
            (Some(pipeline.task.metric_name().to_string()), Some(value))
        }
        None => (None, None),
    };
    pipeline.save(&out)?;
    Ok(UpdateReport {
        model: model.into(),
        task: pipeline.task.name().into(),
        nodes,
        rows_before,
        rows_after,
        steps,
        test_metric_name,
        test_metric,
        saved_to: out.display().to_string(),
        threads: linalg_core::threads::blas_threads(),
    })
}

/// The file's rows have the model's width.
fn check_width(table: &Table, width: usize, model_file: &Path) -> Result<(), CliError> {
    if table.n_features() != width {
        return Err(CliError::Input(format!(
            "{}: {} features per sample, but the model {} has {width} inputs",
            table.source.display(),
            table.n_features(),
            model_file.display()
        )));
    }
    Ok(())
}

/// Add the rows of `add`, or forget those of `forget` (their sums at once);
/// the flops of the update.
fn apply(
    model: &mut FittedModel,
    add: Option<Chunk>,
    forget: Option<&mut dyn Iterator<Item = models::Result<Chunk>>>,
) -> Result<u64, CliError> {
    fn on<M: LinearReadout>(
        m: &mut OnlineFit<M>,
        add: Option<Chunk>,
        forget: Option<&mut dyn Iterator<Item = models::Result<Chunk>>>,
    ) -> Result<u64, CliError> {
        if let Some((x, y)) = add {
            m.partial_fit(x.view(), y.view())?;
        }
        if let Some(chunks) = forget {
            m.forget_chunks(chunks)?;
        }
        Ok(m.last_flops())
    }
    match model {
        FittedModel::OnlineElm(m) => on(m, add, forget),
        FittedModel::OnlineBls(m) => on(m, add, forget),
        _ => Ok(0),
    }
}

/// How a file's rows become the rows a model is fitted on: the scaler, the
/// task, the classes and their labels, the regression targets' scale
/// (those of a [`FittedPipeline`], or of a fit being made).
pub(crate) struct RowPrep<'a> {
    pub(crate) scaler: &'a InputScaler,
    pub(crate) task: TaskKind,
    pub(crate) classes: Option<usize>,
    pub(crate) labels: Option<&'a ClassLabels>,
    pub(crate) target_scale: Option<(f64, f64)>,
}

impl<'a> RowPrep<'a> {
    /// The preparation of a saved pipeline's rows.
    pub(crate) fn of(pipeline: &'a FittedPipeline) -> Self {
        RowPrep {
            scaler: &pipeline.scaler,
            task: pipeline.task,
            classes: pipeline.classes,
            labels: pipeline.labels.as_ref(),
            target_scale: pipeline.target_scale,
        }
    }

    /// The rows of `table` as the model is fitted on them: features scaled
    /// (a value that is not finite afterwards is an error naming the line),
    /// targets one-hot (classification; a label not among the classes is
    /// named with its line and `training`, the file that set the classes)
    /// or standardized (regression).
    pub(crate) fn rows(&self, table: &Table, training: &Path) -> Result<Chunk, CliError> {
        let x = self.scaler.transform(&table.x)?;
        if let Some(((row, col), value)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(table
                .target_error(
                    row,
                    format!(
                        "feature {} ({:e}) becomes {value} (not finite) after {} scaling; rescale the column or \
                         choose another --scale",
                        col + 1,
                        table.x[[row, col]],
                        self.scaler.scale().name()
                    ),
                )
                .into());
        }
        let y = match (self.task, self.classes, self.labels) {
            (TaskKind::Classification, Some(classes), Some(labels)) => {
                one_hot(&labels.encode(table, Some(training))?, classes)?
            }
            (TaskKind::Classification, Some(classes), None) => one_hot(&table.numeric_targets()?, classes)?,
            _ => {
                let (mean, std) = self.target_scale.unwrap_or((0.0, 1.0));
                table.numeric_targets()?.mapv(|v| (v - mean) / std).insert_axis(Axis(1))
            }
        };
        Ok((x, y))
    }
}

/// A model file about to be written to `save` (named by `flag` in the
/// messages) can be: its directory exists; `save` is not a directory, a
/// device, a FIFO or a socket (which a saved model would replace), and not
/// one of the `inputs` (whose data the model would overwrite), under its
/// name or another: a symbolic or a hard link to it. Checked before the work, so that a fit is not lost
/// to a wrong path.
///
/// # Errors
/// [`CliError::Usage`] naming the path and what it is.
pub(crate) fn check_save_target(flag: &str, save: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    let dir = match save.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "{flag} {}: the directory {} does not exist",
            save.display(),
            dir.display()
        )));
    }
    if let Some(kind) = models::envelope::special_file_kind(save) {
        let hint = if flag == "--save" {
            "give a regular file or a new path"
        } else {
            "the model is written back to it: give --save with a regular file or a new path"
        };
        return Err(CliError::Usage(format!(
            "{flag} {}: is {kind}, not a regular file; {hint}",
            save.display()
        )));
    }
    if let Some(input) = inputs.iter().find(|input| same_file(save, input)) {
        return Err(CliError::Usage(format!(
            "{flag} {} is the input file {}: the model would overwrite the data; choose another file",
            save.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Whether `a` and `b` name the same existing file: the same path once
/// symbolic links are resolved, or (on Unix) the same device and inode, as
/// two hard links to one file do.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            if (x.dev(), x.ino()) == (y.dev(), y.ino()) {
                return true;
            }
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

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
