//! A file as read, before a task gives its targets a meaning: the features, the raw target of each
//! row (text for CSV, numbers for LIBSVM and IDX, none for unlabelled images) and where each row
//! came from, so that later checks (class labels, widths) can name the file, the line and the value.

use std::path::{Path, PathBuf};

use ndarray::{concatenate, Array1, Array2, Axis};

use super::error::{quote, DataError};
use super::Dataset;

/// How the first row of a CSV file is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeaderMode {
    /// The first row is the header, unless every cell of it is a number: then the file is refused
    /// (the row looks like data; say which with [`HeaderMode::Present`] or [`HeaderMode::Absent`]).
    #[default]
    Auto,
    /// The first row is the header, even if its names look like numbers (`--header`).
    Present,
    /// There is no header row: every row is data (`--no-header`).
    Absent,
}

/// How [`read_table`](super::read_table) reads a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// CSV only: the header row.
    pub header: HeaderMode,
    /// LIBSVM only: the number of features (an index beyond it is an error); `None`: the largest
    /// index present.
    pub n_features: Option<usize>,
    /// IDX only: images without a labels file beside them are read with [`Targets::None`] instead of
    /// being an error.
    pub labels_optional: bool,
}

/// The target of each row as the file has it.
#[derive(Clone, Debug, PartialEq)]
pub enum Targets {
    /// CSV: the last column's cells, trimmed (class names or numbers, the task decides).
    Text(Vec<String>),
    /// LIBSVM labels and IDX labels.
    Numbers(Vec<f64>),
    /// No targets (IDX images without a labels file).
    None,
}

/// A file as read: features, raw targets, and the origin of every row.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Features, one row per sample (for CSV: every column but the last).
    pub x: Array2<f64>,
    /// The targets, uninterpreted.
    pub targets: Targets,
    /// The feature columns' names (CSV with a header).
    pub feature_names: Option<Vec<String>>,
    /// The target column's name (CSV with a header).
    pub target_name: Option<String>,
    /// The 1-based line of each row in a text file; `None` for IDX (rows are items).
    pub lines: Option<Vec<usize>>,
    /// The file the features came from.
    pub source: PathBuf,
    /// The file the targets came from (the labels file for IDX, else [`Table::source`]).
    pub target_source: PathBuf,
    /// How many rows of the file come before this table's first: 0 for a whole file, the rows of
    /// the chunks before for a chunk of [`read_table_chunks`](super::read_table_chunks). IDX items
    /// are counted from it in errors (`item 10001`), as text files name their absolute lines.
    pub first_row: usize,
}

impl Table {
    /// Remove the feature column named `name` (a CSV header's) and return
    /// it: how a column of sample weights leaves the features.
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] when the table has no header or no
    /// feature column of that name (the target column is not one).
    pub fn take_feature(&mut self, name: &str) -> Result<ndarray::Array1<f64>, DataError> {
        let Some(names) = &mut self.feature_names else {
            return Err(DataError::invalid(format!(
                "{}: a column named {name:?} needs a CSV file with a header row",
                self.source.display()
            )));
        };
        let Some(j) = names.iter().position(|n| n == name) else {
            let target = self.target_name.as_deref().unwrap_or("");
            let why = if target == name {
                " (it is the target, the last column)"
            } else {
                ""
            };
            return Err(DataError::invalid(format!(
                "{}: no feature column named {name:?}{why}; the columns are {}",
                self.source.display(),
                names.join(", ")
            )));
        };
        names.remove(j);
        let column = self.x.column(j).to_owned();
        let keep: Vec<usize> = (0..self.x.ncols()).filter(|&c| c != j).collect();
        self.x = self.x.select(ndarray::Axis(1), &keep);
        Ok(column)
    }

    /// The number of samples.
    pub fn n_samples(&self) -> usize {
        self.x.nrows()
    }

    /// The number of features.
    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }

    /// An error about the target of row `row` (0-based, in this table): `file line L: problem` for a
    /// text file, `file: item I: problem` for IDX (`I` counted in the whole file, see
    /// [`Table::first_row`]).
    pub fn target_error(&self, row: usize, problem: impl Into<String>) -> DataError {
        match self.lines.as_ref().and_then(|l| l.get(row)) {
            Some(&line) => DataError::format(&self.target_source, Some(line), problem),
            None => DataError::format(
                &self.target_source,
                None,
                format!("item {}: {}", self.first_row + row + 1, problem.into()),
            ),
        }
    }

    /// The targets as numbers: CSV cells must be finite numbers; IDX images without labels are an
    /// error.
    pub fn numeric_targets(&self) -> Result<Array1<f64>, DataError> {
        match &self.targets {
            Targets::Numbers(v) => Ok(Array1::from(v.clone())),
            Targets::Text(cells) => {
                let column = self.x.ncols() + 1;
                let name = self
                    .target_name
                    .as_deref()
                    .map_or(String::new(), |n| format!(" ({})", quote(n)));
                cells
                    .iter()
                    .enumerate()
                    .map(|(i, cell)| match cell.parse::<f64>() {
                        Ok(v) if v.is_finite() => Ok(v),
                        Ok(_) => {
                            Err(self
                                .target_error(i, format!("non-finite value {} in column {column}{name}", quote(cell))))
                        }
                        Err(_) => {
                            Err(self
                                .target_error(i, format!("non-numeric cell {} in column {column}{name}", quote(cell))))
                        }
                    })
                    .collect()
            }
            Targets::None => Err(DataError::format(&self.source, None, "no targets (no labels file)")),
        }
    }

    /// The same rows with the target column of a CSV read as one more feature: for files of
    /// features only. Other formats are returned unchanged.
    pub fn with_target_as_feature(self) -> Result<Table, DataError> {
        if !matches!(self.targets, Targets::Text(_)) {
            return Ok(self);
        }
        let last = self.numeric_targets()?;
        let x = concatenate(Axis(1), &[self.x.view(), last.view().insert_axis(Axis(1))])
            .map_err(|e| DataError::format(&self.source, None, format!("cannot shape the table: {e}")))?;
        let feature_names = match (self.feature_names, self.target_name) {
            (Some(mut names), Some(target)) => {
                names.push(target);
                Some(names)
            }
            _ => None,
        };
        Ok(Table {
            x,
            targets: Targets::None,
            feature_names,
            target_name: None,
            lines: self.lines,
            source: self.source,
            target_source: self.target_source,
            first_row: self.first_row,
        })
    }

    /// A [`Dataset`] with numeric targets ([`Table::numeric_targets`]).
    pub fn into_dataset(self) -> Result<Dataset, DataError> {
        let y = self.numeric_targets()?;
        Ok(Dataset {
            x: self.x,
            y,
            feature_names: self.feature_names,
            source: self.source.display().to_string(),
        })
    }

    /// A table of `x` with targets and row origins, from `path`.
    pub(crate) fn new(path: &Path, x: Array2<f64>, targets: Targets, lines: Option<Vec<usize>>) -> Self {
        Table {
            x,
            targets,
            feature_names: None,
            target_name: None,
            lines,
            source: path.to_path_buf(),
            target_source: path.to_path_buf(),
            first_row: 0,
        }
    }
}
