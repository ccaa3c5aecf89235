//! `nn fit --chunk-rows R` and `--distributed`: the ELM and the BLS fitted
//! from a training file read R rows at a time (issue 21, parts 1 and 3),
//! never holding more than one chunk of it, on one process or on the
//! processes of an MPI job.
//!
//! Every statistic the in-memory fit takes from the whole training file
//! adds up over rows, so it is gathered by passes over the chunks:
//!
//! 1. the rows' count, the features' statistics for `--scale` (means and
//!    variances by Chan et al.'s update, or extremes: [`ColumnStats`]), the
//!    class labels (or the regression targets' mean and deviation);
//! 2. what the model needs ([`ElmValidParams::fit_shards`]: the input
//!    scale's sums, then the Gram sums `AᵀA`, `AᵀY` of the hidden outputs;
//!    [`BlsValidParams::fit_shards`]: the node maps' statistics, then the
//!    Gram sums);
//! 3. with `--updatable`, the Gram sums once more for the saved model;
//! 4. the training and test metrics, chunk by chunk.
//!
//! The result is the in-memory fit up to the order of the sums. With
//! several processes each reads its own shard — the file named by `--train`
//! with `{rank}` replaced by the process's rank, or else every P-th chunk of
//! the one file (each process then parses the whole file) — and every sum
//! is combined across them ([`Collective`]); a failure on any process
//! (an unreadable shard, an empty one) ends every process with the same
//! error. Only rank 0 prints progress and saves the model.
//!
//! [`ElmValidParams::fit_shards`]: models::ElmValidParams::fit_shards
//! [`BlsValidParams::fit_shards`]: models::BlsValidParams::fit_shards

use std::path::{Path, PathBuf};
use std::time::Instant;

use linalg_core::collective::{agree, Collective};
use linalg_core::ridge::GramAccumulator;
use models::Chunk;
use models::{LinearReadout, ModelError, OnlineFit};
use ndarray::{Array2, Axis};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::args::{FitArgs, ModelArgs};
use super::common::{Scale, TaskKind};
use super::error::CliError;
use super::fit_data::{check_n_features, columns_of, not_finite_metric};
use super::report::{fit_report, FitReport, Fitted, Run};
use super::saved::RowPrep;
use crate::datasets::{
    read_table_chunks, ClassLabels, ClassLabelsAccumulator, ColumnStats, DataError, ReadOptions, Table, Targets,
};
use nn_data::pipeline::{Columns, FittedModel, FittedPipeline, InputScaler};

/// One process's part of a file.
struct Shard {
    path: PathBuf,
    /// Keep chunk `c` when `c % every == offset`.
    every: usize,
    offset: usize,
}

impl Shard {
    /// This process's shard of `path`: its own file when the name holds
    /// `{rank}`, else every `size`-th chunk from the `rank`-th.
    fn of(path: &Path, world: &dyn Collective) -> Shard {
        let text = path.to_string_lossy();
        if text.contains("{rank}") {
            Shard {
                path: PathBuf::from(text.replace("{rank}", &world.rank().to_string())),
                every: 1,
                offset: 0,
            }
        } else {
            Shard {
                path: path.to_path_buf(),
                every: world.size(),
                offset: world.rank(),
            }
        }
    }

    /// The shard's chunks of at most `rows` rows.
    fn chunks(
        &self,
        options: &ReadOptions,
        rows: usize,
    ) -> Result<impl Iterator<Item = Result<Table, DataError>>, DataError> {
        let (every, offset) = (self.every, self.offset);
        Ok(read_table_chunks(&self.path, options, rows)?
            .enumerate()
            .filter(move |(c, _)| c % every == offset)
            .map(|(_, t)| t))
    }
}

/// A phase's outcome on this process; with several processes, agreed (a
/// failure anywhere fails everywhere, with every failed process's message).
fn phase<T>(world: &dyn Collective, outcome: Result<T, CliError>) -> Result<T, CliError> {
    if world.size() == 1 {
        return outcome;
    }
    Ok(agree(world, outcome.map_err(|e| e.to_string()))?)
}

/// `mine` combined with every other process's (in rank order) by `merge`;
/// itself with one process.
fn merge_all<T: Serialize + DeserializeOwned>(
    world: &dyn Collective,
    mine: T,
    merge: impl Fn(&mut T, &T) -> Result<(), CliError>,
) -> Result<T, CliError> {
    if world.size() == 1 {
        return Ok(mine);
    }
    let config = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(&mine, config).map_err(|e| CliError::Input(e.to_string()))?;
    let mut all = world.gather(&bytes)?.into_iter().map(|b| {
        bincode::serde::decode_from_slice::<T, _>(&b, config)
            .map(|(v, _)| v)
            .map_err(|e| CliError::Input(format!("a process's statistics do not decode: {e}")))
    });
    let mut total = all.next().ok_or_else(|| CliError::Input("no process".into()))??;
    for other in all {
        merge(&mut total, &other?)?;
    }
    Ok(total)
}

/// What the first pass over the training shard gathers.
struct FirstPass {
    rows: usize,
    features: Option<usize>,
    x: Option<ColumnStats>,
    labels: ClassLabelsAccumulator,
    /// The distinct raw labels (text, or numbers as text), for combining
    /// the processes' label sets.
    raw_labels: std::collections::BTreeSet<String>,
    numeric_labels: bool,
    y: ColumnStats,
    /// The file's column names (a CSV with a header), from its first chunk.
    columns: Option<Columns>,
}

impl FirstPass {
    fn read(shard: &Shard, options: &ReadOptions, rows: usize, task: TaskKind) -> Result<FirstPass, CliError> {
        let mut pass = FirstPass {
            rows: 0,
            features: None,
            x: None,
            labels: ClassLabelsAccumulator::new(),
            raw_labels: Default::default(),
            numeric_labels: false,
            y: ColumnStats::new(1),
            columns: None,
        };
        for chunk in shard.chunks(options, rows)? {
            let chunk = chunk?;
            if pass.columns.is_none() {
                pass.columns = columns_of(&chunk);
            }
            let n = *pass.features.get_or_insert(chunk.n_features());
            if chunk.n_features() != n {
                return Err(CliError::Input(format!(
                    "{}: a chunk of {} features after chunks of {n}",
                    chunk.source.display(),
                    chunk.n_features()
                )));
            }
            pass.rows += chunk.n_samples();
            pass.x.get_or_insert_with(|| ColumnStats::new(n)).add(chunk.x.view())?;
            match task {
                TaskKind::Classification => {
                    pass.labels.add(&chunk)?;
                    match &chunk.targets {
                        Targets::Text(t) => pass.raw_labels.extend(t.iter().cloned()),
                        Targets::Numbers(v) => {
                            pass.numeric_labels = true;
                            pass.raw_labels.extend(v.iter().map(|x| format!("{x:e}")));
                        }
                        Targets::None => {}
                    }
                }
                TaskKind::Regression => pass.y.add(chunk.numeric_targets()?.view().insert_axis(Axis(1)))?,
            }
        }
        if pass.rows == 0 {
            return Err(CliError::Input(format!(
                "{}: the training shard has no samples",
                shard.path.display()
            )));
        }
        Ok(pass)
    }
}

/// The class labels of every process's rows.
fn all_labels(world: &dyn Collective, pass: FirstPass, train: &Path) -> Result<ClassLabels, CliError> {
    if world.size() == 1 {
        return Ok(pass.labels.finish()?);
    }
    let mine: Vec<String> = pass.raw_labels.into_iter().collect();
    let all = merge_all(world, (pass.numeric_labels, mine), |total, other| {
        total.0 |= other.0;
        total.1.extend(other.1.iter().cloned());
        Ok(())
    })?;
    // One table of every distinct label, read as the file's would be.
    let targets = if all.0 {
        Targets::Numbers(all.1.iter().map(|t| t.parse().unwrap_or(f64::NAN)).collect())
    } else {
        Targets::Text(all.1)
    };
    let n = match &targets {
        Targets::Numbers(v) => v.len(),
        Targets::Text(v) => v.len(),
        Targets::None => 0,
    };
    let table = Table {
        x: Array2::zeros((n, 0)),
        targets,
        feature_names: None,
        target_name: None,
        lines: None,
        first_row: 0,
        source: train.to_path_buf(),
        target_source: train.to_path_buf(),
    };
    let mut acc = ClassLabelsAccumulator::new();
    acc.add(&table)?;
    Ok(acc.finish()?)
}

/// The Gram sums of `model`'s hidden outputs over the chunks, combined
/// over the processes, and the model with its sums ([`OnlineFit`]).
fn with_sums<M: LinearReadout>(
    world: &dyn Collective,
    model: M,
    chunks: impl Iterator<Item = models::Result<Chunk>>,
) -> Result<OnlineFit<M>, CliError> {
    let mut acc = GramAccumulator::new(model.nodes(), model.n_outputs());
    let local = (|| -> Result<(), CliError> {
        for chunk in chunks {
            let (x, y) = chunk?;
            acc.add(model.hidden_outputs(x.view())?.view(), y.view())?;
        }
        Ok(())
    })();
    phase(world, local)?;
    acc.allreduce(world)?;
    Ok(OnlineFit::from_sums(model, &acc)?)
}

/// Accuracy (classification) or RMSE of the pipeline on the shard's rows,
/// over every process.
fn metric(
    world: &dyn Collective,
    pipeline: &FittedPipeline,
    shard: &Shard,
    options: &ReadOptions,
    rows: usize,
    train: &Path,
) -> Result<(f64, usize), CliError> {
    // Regression: the squared errors summed as they are and scaled by
    // 2⁻⁶⁰⁰, so that errors beyond 1e154 (whose squares overflow) still
    // give the RMSE the in-memory fit gives (`metrics::rmse`), while the
    // plain sum keeps every bit of ordinary ones. When the plain sum
    // overflows, errors below 2⁶⁰⁰·1e-154 ≈ 4e26, whose scaled squares
    // underflow, are negligible against it.
    let scale = 2f64.powi(-600);
    let local = (|| -> Result<[f64; 3], CliError> {
        let (mut sum, mut scaled, mut n) = (0.0, 0.0, 0usize);
        for chunk in shard.chunks(options, rows)? {
            let chunk = chunk?;
            if chunk.n_features() != pipeline.n_inputs() {
                return Err(CliError::Input(format!(
                    "{} has {} features per sample, but the training file {} has {}",
                    chunk.source.display(),
                    chunk.n_features(),
                    train.display(),
                    pipeline.n_inputs()
                )));
            }
            let predicted = pipeline.predict_data(&chunk)?;
            match (pipeline.task, &pipeline.labels) {
                (TaskKind::Classification, Some(labels)) => {
                    let truth = labels.encode(&chunk, Some(train))?;
                    sum += truth.iter().zip(&predicted).filter(|(t, p)| t == p).count() as f64;
                }
                _ => {
                    let truth = chunk.numeric_targets()?;
                    for (t, p) in truth.iter().zip(&predicted) {
                        let e = t - p;
                        sum += e * e;
                        scaled += (e * scale) * (e * scale);
                    }
                }
            }
            n += chunk.n_samples();
        }
        Ok([sum, scaled, n as f64])
    })();
    let mut totals = phase(world, local)?;
    world.sum(&mut totals)?;
    let (sum, scaled, n) = (totals[0], totals[1], totals[2] as usize);
    if n == 0 {
        return Err(CliError::Input(format!("{}: no samples", shard.path.display())));
    }
    let value = match pipeline.task {
        TaskKind::Classification => sum / n as f64,
        TaskKind::Regression if sum.is_finite() => (sum / n as f64).sqrt(),
        TaskKind::Regression => (scaled / n as f64).sqrt() / scale,
    };
    if !value.is_finite() {
        return Err(not_finite_metric(pipeline.task, &shard.path, value));
    }
    Ok((value, n))
}

/// The metric of the streamed `pipeline` on the training and the test
/// shards (the test file read with the training width), and where rank 0
/// saved it: `(train metric, test metric, test rows, saved to)`.
fn evaluate_and_save(
    args: &FitArgs,
    world: &dyn Collective,
    pipeline: &FittedPipeline,
    [train, test]: [&Shard; 2],
    options: &ReadOptions,
    rows: usize,
    n_features: usize,
) -> Result<(f64, f64, usize, Option<String>), CliError> {
    let (train_metric, _) = metric(world, pipeline, train, options, rows, &args.train)?;
    let test_options = ReadOptions {
        n_features: Some(n_features),
        ..*options
    };
    let (test_metric, n_test) = metric(world, pipeline, test, &test_options, rows, &args.train)?;
    let saved_to = match (&args.save, world.rank() == 0) {
        (Some(path), true) => {
            pipeline.save(path)?;
            Some(path.display().to_string())
        }
        (Some(path), false) => Some(path.display().to_string()),
        (None, _) => None,
    };
    Ok((train_metric, test_metric, n_test, saved_to))
}

/// Fit the ELM or the BLS of `args` from its training file in chunks of
/// `args.scale_out.chunk_rows` rows over the processes of `world`,
/// evaluate on the test file the same way, save (rank 0); the report.
///
/// # Errors
/// Any [`CliError`] of reading (file, line, problem), of the labels or the
/// fit; with several processes, the failures of all of them as one error.
pub fn fit(args: &FitArgs, world: &dyn Collective) -> Result<FitReport, CliError> {
    let rows = args
        .scale_out
        .chunk_rows
        .unwrap_or(super::scale_out::DEFAULT_CHUNK_ROWS);
    let lead = world.rank() == 0;
    let say = |message: String| {
        if lead {
            say!("nn fit: {message}");
        }
    };
    let options = ReadOptions {
        header: args.header,
        n_features: args.n_features,
        labels_optional: false,
    };
    let (train, test) = (Shard::of(&args.train, world), Shard::of(&args.test, world));
    say(format!(
        "streaming {} in chunks of {rows} rows on {} process(es)",
        args.train.display(),
        world.size()
    ));
    let started = Instant::now();
    let mut pass = phase(
        world,
        FirstPass::read(&train, &options, rows, args.task).and_then(|pass| {
            if let Some(found) = pass.features {
                check_n_features(args.n_features, &args.train, found)?;
            }
            Ok(pass)
        }),
    )?;
    let columns = pass.columns.take();
    let mut counts = [pass.rows as f64, pass.features.unwrap_or(0) as f64];
    world.sum(&mut counts)?;
    let (n_train, n_features) = (counts[0] as usize, pass.features.unwrap_or(0));
    let merge = |a: &mut ColumnStats, b: &ColumnStats| a.merge(b).map_err(CliError::from);
    let x_stats = merge_all(
        world,
        pass.x.clone().unwrap_or_else(|| ColumnStats::new(n_features)),
        merge,
    )?;
    let y_stats = merge_all(world, pass.y.clone(), merge)?;
    let scaler = match args.scale {
        Scale::Zscore => InputScaler::Zscore(x_stats.to_standard_scaler()?),
        Scale::Minmax => InputScaler::Minmax(x_stats.to_minmax_scaler()?),
        Scale::None => InputScaler::None,
    };
    let (labels, classes, target_scale) = match args.task {
        TaskKind::Classification => {
            let labels = all_labels(world, pass, &args.train)?;
            let c = labels.len();
            (Some(labels), Some(c), None)
        }
        TaskKind::Regression => {
            let s = y_stats.to_standard_scaler()?;
            (None, None, Some((s.mean()[0], s.std()[0])))
        }
    };
    let prep = RowPrep {
        scaler: &scaler,
        task: args.task,
        classes,
        labels: labels.as_ref(),
        target_scale,
    };
    let source = |e: CliError| ModelError::Source(e.to_string());
    let chunks = || -> Box<dyn Iterator<Item = models::Result<Chunk>> + '_> {
        match train.chunks(&options, rows) {
            Ok(it) => Box::new(it.map(|t| {
                let t = t.map_err(|e| source(e.into()))?;
                prep.rows(&t, &args.train).map_err(source)
            })),
            Err(e) => Box::new(std::iter::once(Err(source(e.into())))),
        }
    };
    say(format!(
        "{n_train} training samples × {n_features} features; fitting the {}",
        args.model.kind().name()
    ));
    let (model, hidden, lambda, details) = match &args.model {
        ModelArgs::Elm(m) => {
            let elm = m.params(m.hidden)?.fit_shards(world, chunks)?;
            let model = match args.scale_out.updatable {
                true => FittedModel::OnlineElm(with_sums(world, elm, chunks())?),
                false => FittedModel::Elm(elm),
            };
            (model, m.hidden, Some(m.lambda), serde_json::Map::new())
        }
        ModelArgs::Bls(m) => {
            let bls = m.params()?.fit_shards(world, chunks)?;
            let (hidden, details) = (bls.nodes(), super::bls::details(&bls, None)?);
            let model = match args.scale_out.updatable {
                true => FittedModel::OnlineBls(with_sums(world, bls, chunks())?),
                false => FittedModel::Bls(bls),
            };
            (model, hidden, Some(m.lambda), details)
        }
        other => {
            return Err(CliError::Usage(format!(
                "--chunk-rows applies to --model elm and --model bls, not {}",
                other.kind().name()
            )))
        }
    };
    let train_seconds = started.elapsed().as_secs_f64();
    say(format!("fitted in {train_seconds:.2} s"));
    let pipeline = FittedPipeline {
        task: args.task,
        classes,
        scaler,
        target_scale,
        model,
        labels,
        columns,
    };
    let (train_metric, test_metric, n_test, saved_to) =
        evaluate_and_save(args, world, &pipeline, [&train, &test], &options, rows, n_features)?;
    let run = Run {
        n_train,
        n_test,
        n_features,
        classes,
        threads: linalg_core::threads::blas_threads(),
        train_seconds,
        test_metric,
        train_metric,
        saved_to,
    };
    let fitted = Fitted {
        hidden,
        lambda,
        selection: None,
        details,
    };
    let mut report = fit_report(args, run, fitted);
    report.chunk_rows = Some(rows);
    report.processes = (world.size() > 1).then_some(world.size());
    Ok(report)
}
