//! Zhu & Wei, *inverse-free incremental ELM*, section V: Tables II and III.
//!
//! Protocol (the paper's, Sec. V-A): λ = k₀² = 0.1; five-fold cross
//! validation; hidden nodes added one by one from 2; the weight error
//! `‖W₁ − W₂‖_F` and the output errors `‖Z₁ − Z₂‖_F` (training and testing)
//! of each inverse-free algorithm against the standard ELM (eq. (10), a
//! Cholesky solve) with the same hidden layer, at 3, 100 and 500 nodes, and
//! the standard ELM's testing MSE. Table III: speedups of Alg. 1, 2, 3 over
//! Li et al. for adding one node to reach 100 and 500 nodes, mean over many
//! repetitions.
//!
//! Our reading where the paper is silent: features and targets are scaled to
//! [0, 1] with the training folds' minima and maxima (the published MSEs,
//! e.g. 7.7e-3 on airfoil, are only consistent with targets in [0, 1]);
//! figures are means over the folds; the hidden layer of fold f is drawn
//! from seed 1000 + f; timings are of the output-weight update given the new
//! node's column (its computation is timed separately by the ELM and is the
//! same for every algorithm), on 1 OpenBLAS thread.

mod cells;
mod claims;
mod classification;
mod mnist;
mod protocol;
mod published;
mod regression;
mod report;

use std::path::PathBuf;
use std::time::Instant;

use self::regression::{dataset_errors, scaled_fold, testing_mse_by_scaling, time_one_node, Curves};
use self::report::{write_report, Results};
use super::{Blas, CellRunner, Job, ReproError};
use crate::datasets::{self, k_fold};

pub use classification::{ClassRow, NodeSweepRow, Table4, ACTIVATIONS, SETS, SWEEP_ACTIVATIONS, SWEEP_NODES};
pub use mnist::{MnistRow, MnistSize};
pub use protocol::{FeatureScaling, Options, ALGORITHMS, CHECKPOINTS, DATASETS};
pub use published::{PublishedErrors, PUBLISHED_TABLE_II, PUBLISHED_TABLE_III, PUBLISHED_TABLE_IV, PUBLISHED_TABLE_V};
pub use regression::{ErrorRow, TimingRow};

/// Run Tables II–V and write the report. Returns the report's path. Each
/// data set of Tables II–III, Table IV and Table V is a cell
/// (`cells.rs`): a rerun with the same options reads back what an earlier
/// run stored. Tables II–IV run on `opts.threads` BLAS threads, Table V on
/// `opts.mnist_threads`, set through `blas`.
pub fn run(opts: &Options, blas: &Blas) -> Result<PathBuf, ReproError> {
    let started = Instant::now();
    let mut runner = CellRunner::new("zhu-wei", opts.out_dir.join("cells"), blas);
    let mut count = cells::Count::default();
    let mut results = Results::default();
    let jobs: Vec<Job<usize>> = DATASETS
        .iter()
        .enumerate()
        .map(|(d, (name, _, _))| Job::new(format!("table2-{name}.json"), opts.threads, d))
        .collect();
    for one in cells::cells(&mut runner, opts, &jobs, &mut count, |&d| dataset_cell(opts, d))? {
        results.rows.extend(one.rows);
        results.timing.extend(one.timing);
        results.zscore_mse.extend(one.zscore_mse);
        results.scaling_rows.extend(one.scaling_rows);
        results.weight_curves.extend(one.weight_curves);
        results.time_curves.extend(one.time_curves);
    }
    results.classification = cells::cell(&mut runner, opts, ("table4", opts.threads), &mut count, || {
        classification::table4(opts)
    })?;
    if let Some(size) = opts.mnist {
        results.mnist = cells::cell(&mut runner, opts, ("table5", opts.mnist_threads), &mut count, || {
            mnist::table5(size)
        })?;
    }
    results.cells = count;
    write_report(opts, &results, started.elapsed().as_secs_f64())
}

/// Tables II and III (and the scaling study) on the `d`-th of [`DATASETS`].
fn dataset_cell(opts: &Options, d: usize) -> Result<cells::DatasetCell, ReproError> {
    let (name, label, act) = DATASETS[d];
    let checkpoints: Vec<usize> = CHECKPOINTS.iter().copied().filter(|&c| c <= opts.max_nodes).collect();
    let mut cell = cells::DatasetCell::default();
    let ds = datasets::load_shipped(name)?;
    let folds = k_fold(ds.n_samples(), 5, 20_240_000 + d as u64)?;
    let curves = Curves {
        weight: (d == 0).then_some(&mut cell.weight_curves),
        time: (d == DATASETS.len() - 1).then_some(&mut cell.time_curves),
    };
    cell.rows = dataset_errors(
        &ds,
        &folds,
        label,
        act,
        FeatureScaling::MinMax,
        &checkpoints,
        opts,
        curves,
    )?;
    // Table III on fold 0's training part.
    let [xtr, ytr, _, _] = scaled_fold(&ds, &folds[0].0, &folds[0].1, FeatureScaling::MinMax)?;
    for &n in CHECKPOINTS.iter().skip(1).filter(|&&c| c <= opts.max_nodes) {
        cell.timing
            .push(time_one_node(label, act, &xtr, &ytr, n, opts.timing_reps)?);
    }
    if opts.scaling_study {
        cell.zscore_mse = Some((label.to_string(), testing_mse_by_scaling(&ds, &folds, act, opts)?));
        if d == DATASETS.len() - 1 {
            for scaling in [FeatureScaling::Symmetric, FeatureScaling::ZScore] {
                cell.scaling_rows.extend(dataset_errors(
                    &ds,
                    &folds,
                    &format!("{label}, {}", scaling.label()),
                    act,
                    scaling,
                    &checkpoints,
                    opts,
                    Curves::none(),
                )?);
            }
        }
    }
    Ok(cell)
}
