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
use super::ReproError;
use crate::datasets::{self, k_fold};
use crate::machine::ScopedBlasThreads;
use crate::report::svg;

pub use classification::{ClassRow, NodeSweepRow, Table4, ACTIVATIONS, SETS, SWEEP_ACTIVATIONS, SWEEP_NODES};
pub use mnist::{MnistRow, MnistSize};
pub use protocol::{FeatureScaling, Options, ALGORITHMS, CHECKPOINTS, DATASETS};
pub use published::{PublishedErrors, PUBLISHED_TABLE_II, PUBLISHED_TABLE_III, PUBLISHED_TABLE_IV, PUBLISHED_TABLE_V};
pub use regression::{ErrorRow, TimingRow};

/// Run Tables II and III and write the report. Returns the report's path.
pub fn run(opts: &Options) -> Result<PathBuf, ReproError> {
    let started = Instant::now();
    let _threads = ScopedBlasThreads::new(opts.threads);
    let checkpoints: Vec<usize> = CHECKPOINTS.iter().copied().filter(|&c| c <= opts.max_nodes).collect();
    let mut rows = vec![];
    let mut weight_curves: Vec<svg::Series> = vec![];
    let mut time_curves: Vec<svg::Series> = vec![];
    let mut timing = vec![];
    let (mut scaling_rows, mut zscore_mse) = (vec![], vec![]);
    for (d, (name, label, act)) in DATASETS.iter().enumerate() {
        let ds = datasets::load_shipped(name)?;
        let folds = k_fold(ds.n_samples(), 5, 20_240_000 + d as u64)?;
        let curves = Curves {
            weight: (d == 0).then_some(&mut weight_curves),
            time: (d == DATASETS.len() - 1).then_some(&mut time_curves),
        };
        rows.extend(dataset_errors(
            &ds,
            &folds,
            label,
            *act,
            FeatureScaling::MinMax,
            &checkpoints,
            opts,
            curves,
        )?);
        // Table III on fold 0's training part.
        let [xtr, ytr, _, _] = scaled_fold(&ds, &folds[0].0, &folds[0].1, FeatureScaling::MinMax)?;
        for &n in CHECKPOINTS.iter().skip(1).filter(|&&c| c <= opts.max_nodes) {
            timing.push(time_one_node(label, *act, &xtr, &ytr, n, opts.timing_reps)?);
        }
        if opts.scaling_study {
            zscore_mse.push((label.to_string(), testing_mse_by_scaling(&ds, &folds, *act, opts)?));
            if d == DATASETS.len() - 1 {
                for scaling in [FeatureScaling::Symmetric, FeatureScaling::ZScore] {
                    scaling_rows.extend(dataset_errors(
                        &ds,
                        &folds,
                        &format!("{label}, {}", scaling.label()),
                        *act,
                        scaling,
                        &checkpoints,
                        opts,
                        Curves::none(),
                    )?);
                }
            }
        }
    }
    let classification = classification::table4(opts)?;
    let mnist = match opts.mnist {
        Some(size) => mnist::table5(size, opts.mnist_threads)?,
        None => vec![],
    };
    let results = Results {
        rows,
        scaling_rows,
        zscore_mse,
        timing,
        classification,
        mnist,
        weight_curves,
        time_curves,
    };
    write_report(opts, &results, started.elapsed().as_secs_f64())
}
