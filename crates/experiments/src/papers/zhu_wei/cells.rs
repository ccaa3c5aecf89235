//! Zhu & Wei's runs as resumable cells (issue 38): one cell per data set
//! of Tables II–III, one for Table IV, one for Table V, each stored as JSON
//! under `out_dir/cells/` by the one cell runner
//! ([`CellRunner`](crate::papers::CellRunner)) beside the options it was
//! computed under. A rerun reads back every cell whose options are the same
//! and computes the others, so an interrupted run resumes where it stopped.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::mnist::MnistSize;
use super::protocol::Options;
use super::regression::{ErrorRow, TimingRow};
use crate::papers::{CellRunner, Job, ReproError};
use crate::report::svg;

/// The options a cell's numbers depend on (not the output folder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Key {
    folds: usize,
    max_nodes: usize,
    timing_reps: usize,
    scaling_study: bool,
    mnist: Option<MnistSize>,
    threads: usize,
    mnist_threads: usize,
}

impl Key {
    fn of(opts: &Options) -> Self {
        Key {
            folds: opts.folds,
            max_nodes: opts.max_nodes,
            timing_reps: opts.timing_reps,
            scaling_study: opts.scaling_study,
            mnist: opts.mnist,
            threads: opts.threads,
            mnist_threads: opts.mnist_threads,
        }
    }
}

/// A cell as stored: its options and its numbers.
#[derive(Serialize, Deserialize)]
struct Stored<T> {
    key: Key,
    value: T,
}

/// How many cells a run had and how many of them it read back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Count {
    /// Cells in all.
    pub(super) cells: usize,
    /// Cells read back from an earlier run.
    pub(super) reused: usize,
}

/// The cells of `jobs` through the runner: each read back when stored
/// under the same options, else computed by `compute` (on the job's BLAS
/// threads) and stored beside the options; in job order.
///
/// # Errors
/// `compute`'s, and reading or writing a cell.
pub(super) fn cells<S: Sync, T: Serialize + DeserializeOwned + Send>(
    runner: &mut CellRunner,
    opts: &Options,
    jobs: &[Job<S>],
    count: &mut Count,
    compute: impl Fn(&S) -> Result<T, ReproError> + Sync,
) -> Result<Vec<T>, ReproError> {
    let key = Key::of(opts);
    let ran = runner.run_reusing(
        jobs,
        |_, stored: &Stored<T>| stored.key == key,
        |job| {
            Ok(Stored {
                key: key.clone(),
                value: compute(&job.spec)?,
            })
        },
    )?;
    count.cells += jobs.len();
    count.reused += ran.reused;
    let values: Vec<T> = ran.done().into_iter().map(|s| s.value).collect();
    if values.len() != jobs.len() {
        return Err(ReproError::Protocol(format!(
            "zhu-wei: {} of {} cells computed",
            values.len(),
            jobs.len()
        )));
    }
    Ok(values)
}

/// The one cell `name` (file `name.json`) on `threads` BLAS threads: see
/// [`cells`].
///
/// # Errors
/// As [`cells`].
pub(super) fn cell<T: Serialize + DeserializeOwned + Send>(
    runner: &mut CellRunner,
    opts: &Options,
    (name, threads): (&str, usize),
    count: &mut Count,
    compute: impl Fn() -> Result<T, ReproError> + Sync,
) -> Result<T, ReproError> {
    let jobs = [Job::new(format!("{name}.json"), threads, ())];
    let mut values = cells(runner, opts, &jobs, count, |()| compute())?;
    values
        .pop()
        .ok_or_else(|| ReproError::Protocol(format!("zhu-wei: cell {name} not computed")))
}

/// One data set's share of Tables II and III (and of the scaling study).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct DatasetCell {
    /// Table II's rows.
    pub(super) rows: Vec<ErrorRow>,
    /// Table III's rows (fold 0's training part).
    pub(super) timing: Vec<TimingRow>,
    /// The scaling study's testing MSE under each feature scaling.
    pub(super) zscore_mse: Option<(String, [f64; 3])>,
    /// Table II's rows under the other feature scalings.
    pub(super) scaling_rows: Vec<ErrorRow>,
    /// The first data set's weight-error curves.
    pub(super) weight_curves: Vec<svg::Series>,
    /// The last data set's time curves.
    pub(super) time_curves: Vec<svg::Series>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &std::path::Path, folds: usize) -> Options {
        Options {
            folds,
            max_nodes: 10,
            timing_reps: 1,
            out_dir: dir.to_path_buf(),
            mnist: None,
            scaling_study: false,
            threads: 1,
            mnist_threads: 1,
        }
    }

    #[test]
    fn a_cell_is_read_back_only_under_the_same_options() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut runner = CellRunner::new("zhu-wei", dir.path().join("cells"), &crate::papers::Blas::none());
        let mut count = Count::default();
        let computed = cell(&mut runner, &options(dir.path(), 2), ("t", 1), &mut count, || {
            Ok(vec![1.0, 2.0])
        })
        .expect("cell");
        assert_eq!((computed, count), (vec![1.0, 2.0], Count { cells: 1, reused: 0 }));
        // The same options: read back, `compute` not called.
        let again: Vec<f64> = cell(&mut runner, &options(dir.path(), 2), ("t", 1), &mut count, || {
            Err(ReproError::Protocol("must not be computed again".into()))
        })
        .expect("read back");
        assert_eq!((again, count), (vec![1.0, 2.0], Count { cells: 2, reused: 1 }));
        // Other options: computed again, and stored for them.
        let other = cell(&mut runner, &options(dir.path(), 3), ("t", 1), &mut count, || {
            Ok(vec![3.0])
        })
        .expect("cell");
        assert_eq!((other, count), (vec![3.0], Count { cells: 3, reused: 1 }));
    }
}
