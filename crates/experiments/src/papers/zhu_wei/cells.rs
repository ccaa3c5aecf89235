//! Zhu & Wei's runs as resumable cells (issue 38): one cell per data set
//! of Tables II–III, one for Table IV, one for Table V, each stored as JSON
//! under `out_dir/cells/` ([`papers::store_cell`](crate::papers::store_cell))
//! beside the options it was computed under. A rerun reads back every cell
//! whose options are the same and computes the others, so an interrupted
//! run resumes where it stopped.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::mnist::MnistSize;
use super::protocol::Options;
use super::regression::{ErrorRow, TimingRow};
use crate::papers::{load_cell, store_cell, ReproError};
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

/// The cell `name` of this run: read back when stored under the same
/// options, else computed by `compute` and stored.
///
/// # Errors
/// `compute`'s, and writing the cell.
pub(super) fn cell<T: Serialize + DeserializeOwned>(
    opts: &Options,
    name: &str,
    count: &mut Count,
    compute: impl FnOnce() -> Result<T, ReproError>,
) -> Result<T, ReproError> {
    let path = opts.out_dir.join("cells").join(format!("{name}.json"));
    let key = Key::of(opts);
    count.cells += 1;
    if let Some(stored) = load_cell::<Stored<T>>(&path)? {
        if stored.key == key {
            count.reused += 1;
            eprintln!("zhu-wei: {name}: read back from {}", path.display());
            return Ok(stored.value);
        }
    }
    let value = compute()?;
    let stored = Stored { key, value };
    store_cell(&path, &stored)?;
    Ok(stored.value)
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
        let mut count = Count::default();
        let computed = cell(&options(dir.path(), 2), "t", &mut count, || Ok(vec![1.0, 2.0])).expect("cell");
        assert_eq!((computed, count), (vec![1.0, 2.0], Count { cells: 1, reused: 0 }));
        // The same options: read back, `compute` not called.
        let again: Vec<f64> = cell(&options(dir.path(), 2), "t", &mut count, || {
            Err(ReproError::Protocol("must not be computed again".into()))
        })
        .expect("read back");
        assert_eq!((again, count), (vec![1.0, 2.0], Count { cells: 2, reused: 1 }));
        // Other options: computed again, and stored for them.
        let other = cell(&options(dir.path(), 3), "t", &mut count, || Ok(vec![3.0])).expect("cell");
        assert_eq!((other, count), (vec![3.0], Count { cells: 3, reused: 1 }));
    }
}
