//! What every fit does with its data, whatever the model: the metric of
//! the predictions (refused when not finite), the regression targets'
//! scale, the files' column names and width checks.

use std::path::Path;

use ndarray::{Array1, Array2, ArrayView1, Axis};

use super::common::TaskKind;
use super::error::CliError;
use crate::datasets::Table;
use crate::metrics;
use nn_data::pipeline;

pub(crate) fn metric(task: TaskKind, truth: &Array1<f64>, predicted: &[f64]) -> Result<f64, CliError> {
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
/// both are computed on `y / max|y|` and scaled back. With `weights` (one
/// per target, from `--weight-column`; checked: finite, ≥ 0, not all 0),
/// the weighted mean and population deviation, so that integer weights give
/// those of the rows repeated.
///
/// # Errors
/// [`CliError::Usage`] naming the file and the targets' magnitude if the
/// scale is still not finite.
pub(crate) fn target_scale(
    y: &Array2<f64>,
    path: &std::path::Path,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<(f64, f64), CliError> {
    let (mean, std) = match weights {
        None => {
            let n = y.len() as f64;
            let mean = y.sum() / n;
            let var = y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            if mean.is_finite() && var.is_finite() {
                (mean, if var > 0.0 { var.sqrt() } else { 1.0 })
            } else {
                let largest = y.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
                let m = y.iter().map(|v| v / largest).sum::<f64>() / n;
                let var = y.iter().map(|v| (v / largest - m) * (v / largest - m)).sum::<f64>() / n;
                (m * largest, if var > 0.0 { var.sqrt() * largest } else { 1.0 })
            }
        }
        Some(w) => {
            // Scaled by the largest magnitude from the start, so every term is
            // at most its weight: the sums stay finite while the weights' sum
            // does (an infinite sum ends in the error below).
            let largest = y.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            let c = if largest > 0.0 && largest.is_finite() {
                largest
            } else {
                1.0
            };
            let n: f64 = w.sum();
            let m = y.iter().zip(w).map(|(v, wi)| wi * (v / c)).sum::<f64>() / n;
            let var = y
                .iter()
                .zip(w)
                .map(|(v, wi)| wi * (v / c - m) * (v / c - m))
                .sum::<f64>()
                / n;
            (m * c, if var > 0.0 { var.sqrt() * c } else { 1.0 })
        }
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
pub(crate) fn finite_metric(
    task: TaskKind,
    truth: &Array1<f64>,
    source: &Path,
    predicted: &[f64],
) -> Result<f64, CliError> {
    let value = metric(task, truth, predicted)?;
    if !value.is_finite() {
        return Err(not_finite_metric(task, source, value));
    }
    Ok(value)
}

/// The error of a metric that is not finite on the file `source`.
pub(crate) fn not_finite_metric(task: TaskKind, source: &Path, value: f64) -> CliError {
    CliError::File {
        path: source.to_path_buf(),
        problem: format!(
            "the {} is {value} (not finite): targets and predictions differ by more than a 64-bit float holds",
            task.metric_name()
        ),
    }
}

/// A file with no rows is an error naming it (`what`: `training`, `test`).
pub(crate) fn non_empty(table: &Table, what: &str) -> Result<(), CliError> {
    if table.n_samples() == 0 {
        return Err(CliError::Input(format!(
            "{}: the {what} file has no samples",
            table.source.display()
        )));
    }
    Ok(())
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
