//! # Datasets: loaders, preprocessing and the shipped data
//!
//! Every loader returns a [`Dataset`]: a dense `f64` matrix with one row per sample, one target per
//! sample (a class index as `f64` for classification, a value for regression), the feature names
//! when the file has them, and the file it came from.
//!
//! * [`load_idx`] reads MNIST's IDX images and the labels file beside them ([`read_idx_images`] and
//!   [`read_idx_labels`] read one file each);
//! * [`load_csv`] reads a numeric CSV with a header and the target in the last column;
//! * [`load_libsvm`] reads the sparse LIBSVM format into a dense matrix, [`load_libsvm_sparse`]
//!   keeps it sparse (a `Csr` matrix the ELM and the BLS fit directly);
//! * [`load_any`] picks one of them from the file name and contents;
//! * [`read_table`] reads like [`load_any`] but leaves the targets as the file has them (a CSV's
//!   last column as text) and keeps each row's line, for the command line: [`ClassLabels`] maps
//!   the labels that occur (integers or names) to classes, and names the file, line and label of
//!   one training never saw. Its [`ReadOptions`] say how a CSV's first row is read
//!   ([`HeaderMode`]: a first row of numbers only is refused unless the caller says what it is),
//!   the width of a LIBSVM file, and whether IDX images may come without labels;
//! * [`read_table_chunks`] reads the same rows in chunks of a given size, holding one chunk in
//!   memory at a time (see [`chunks`]): [`ColumnStats`] gathers the statistics of the scalers and
//!   [`ClassLabelsAccumulator`] the class labels over the chunks.
//!
//! All loaders read gzipped files directly (recognised by the gzip magic bytes, not by the name).
//! Every problem with a file is a [`DataError`] naming the file, the line and what is wrong; nothing
//! a file contains can make them panic.
//!
//! Preprocessing is fitted on the training part only and applied to any part: [`StandardScaler`],
//! [`MinMaxScaler`], [`one_hot`] / [`argmax_rows`], and seeded [`shuffled_indices`],
//! [`train_test_split`] and [`k_fold`].
//!
//! The datasets shipped in the workspace's `data/` folder (see its `README.md` for provenance,
//! licences and checksums) are found by name with [`shipped`] and loaded with [`load_shipped`].
//!
//! ```no_run
//! use nn_data::{load_shipped, train_test_split, StandardScaler};
//!
//! let boston = load_shipped("boston")?;
//! let (train, test) = train_test_split(&boston, 0.2, 42)?;
//! let scaler = StandardScaler::fit(&train.x)?;
//! let (x_train, x_test) = (scaler.transform(&train.x)?, scaler.transform(&test.x)?);
//! # let _ = (x_train, x_test);
//! # Ok::<(), nn_data::DataError>(())
//! ```

pub mod chunks;
mod csv;
mod error;
mod idx;
mod labels;
mod libsvm;
pub mod metrics;
pub mod onnx;
pub mod pipeline;
mod preprocess;
pub(crate) mod read;
mod registry;
mod table;

use std::path::Path;

use ndarray::{Array1, Array2, Axis};

pub use self::chunks::{read_table_chunks, TableChunks};
pub use self::csv::load_csv;
pub use self::error::DataError;
pub use self::idx::{load_idx, read_idx_images, read_idx_labels, IdxImages, IDX_IMAGES_MAGIC, IDX_LABELS_MAGIC};
pub use self::labels::{ClassLabels, ClassLabelsAccumulator};
pub use self::libsvm::{load_libsvm, load_libsvm_sparse, SparseDataset, LIBSVM_MAX_DENSE_CELLS};
pub use self::preprocess::{
    argmax_rows, k_fold, one_hot, shuffled_indices, train_test_split, ColumnStats, MinMaxScaler, StandardScaler,
};
pub use self::read::{available_memory_bytes, human_bytes};
pub use self::registry::{data_dir, load_shipped, names, shipped, DATA_DIR_ENV};
pub use self::table::{HeaderMode, ReadOptions, Table, Targets};

/// What a dataset's target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Task {
    /// The target is a class index in `0..classes`.
    Classification {
        /// The number of classes.
        classes: usize,
    },
    /// The target is a real value.
    Regression,
}

impl Task {
    /// The number of classes of a classification task, `None` for regression.
    pub fn classes(&self) -> Option<usize> {
        match *self {
            Task::Classification { classes } => Some(classes),
            Task::Regression => None,
        }
    }
}

/// Samples and their targets, as read from one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Features, one row per sample.
    pub x: Array2<f64>,
    /// Targets, one per sample: a class index as `f64` for classification, a value for regression.
    pub y: Array1<f64>,
    /// The feature columns' names, when the file has them (CSV headers).
    pub feature_names: Option<Vec<String>>,
    /// Where the data came from (the path given to the loader).
    pub source: String,
}

impl Dataset {
    /// A dataset from its parts, checking that `x` and `y` have the same number of samples and that
    /// the names, if any, match the columns.
    pub fn new(
        x: Array2<f64>,
        y: Array1<f64>,
        feature_names: Option<Vec<String>>,
        source: impl Into<String>,
    ) -> Result<Self, DataError> {
        if x.nrows() != y.len() {
            return Err(DataError::invalid(format!(
                "{} rows of features but {} targets",
                x.nrows(),
                y.len()
            )));
        }
        if let Some(names) = &feature_names {
            if names.len() != x.ncols() {
                return Err(DataError::invalid(format!(
                    "{} feature names for {} columns",
                    names.len(),
                    x.ncols()
                )));
            }
        }
        Ok(Self {
            x,
            y,
            feature_names,
            source: source.into(),
        })
    }

    /// The number of samples (rows).
    pub fn n_samples(&self) -> usize {
        self.x.nrows()
    }

    /// The number of features (columns).
    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }

    /// The samples at `indices`, in that order (repetitions allowed), with the same names and source.
    ///
    /// # Panics
    ///
    /// If an index is not below [`Dataset::n_samples`].
    pub fn select(&self, indices: &[usize]) -> Dataset {
        Dataset {
            x: self.x.select(Axis(0), indices),
            y: self.y.select(Axis(0), indices),
            feature_names: self.feature_names.clone(),
            source: self.source.clone(),
        }
    }

    /// The number of classes if every target is a non-negative integer (`max + 1`), else `None`
    /// (also for an empty dataset).
    ///
    /// This is a guess: integer-valued regression targets (counts) also yield `Some`.
    pub fn infer_classes(&self) -> Option<usize> {
        if self.y.is_empty() {
            return None;
        }
        let mut max = 0.0f64;
        for &v in &self.y {
            if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0) {
                return None;
            }
            max = max.max(v);
        }
        (max as usize).checked_add(1)
    }
}

/// Loads `path` with the loader its name and contents call for.
///
/// * a name containing `idx3-ubyte` → [`load_idx`];
/// * a name ending in `.libsvm` or `.svm` (optionally followed by `.gz`) → [`load_libsvm`];
/// * a name ending in `.txt` (optionally `.gz`) whose first data line has `index:value` tokens →
///   [`load_libsvm`];
/// * anything else → [`load_csv`].
pub fn load_any(path: impl AsRef<Path>) -> Result<Dataset, DataError> {
    read_table(path, &ReadOptions::default())?.into_dataset()
}

/// Whether [`read_table`] reads `path` as IDX images (MNIST's
/// `…idx3-ubyte` files): pixel intensities, all in one unit and range.
pub fn is_idx_images(path: impl AsRef<Path>) -> bool {
    path.as_ref()
        .file_name()
        .is_some_and(|n| n.to_string_lossy().to_lowercase().contains("idx3-ubyte"))
}

/// Reads `path` as [`load_any`] chooses its format, without interpreting the targets: a [`Table`]
/// whose CSV targets are the last column's text (class names or numbers, as the task decides), read
/// as `options` say (CSV header, LIBSVM width, IDX labels).
///
/// The file is read front to back as [`read_table_chunks`] reads it, in one chunk holding every row:
/// both report the same error for a bad file (the first problem met, see [`chunks`]).
pub fn read_table(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Table, DataError> {
    chunks::read_whole(path.as_ref(), options)
}

/// This crate's README example, compiled and run as a doc test so that the
/// code a user copies from crates.io cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
