//! Class labels as scikit-learn's estimators treat them: the labels that occur in the training
//! targets — integers of any size, or strings — become the classes `0..k` in sorted order; the
//! mapping is kept so predictions can be printed as the original labels.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ndarray::Array1;
use serde::{Deserialize, Serialize};

use super::error::{quote, DataError};
use super::table::{Table, Targets};

/// The labels of the classes `0..k`, in sorted order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassLabels {
    /// Integer labels (`-1`, `+1`, `0`…`9`, `1000000000000`, `1e18`), sorted numerically.
    Integers(Vec<i64>),
    /// Text labels (`cat`, `dog`), sorted by their bytes; used when any training label is not a
    /// number.
    Text(Vec<String>),
}

/// The error of an empty class-label cell: refused, as an empty feature
/// cell is, rather than read as a class `""` (issue 36).
const EMPTY_LABEL: &str = "the class label (last column) is empty; give every row its label, or remove the row";

/// One label read as an integer, or why it is not one.
fn integer_label(value: f64, text: &str) -> Result<i64, String> {
    // 2⁶³: the first integer beyond i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if !value.is_finite() {
        return Err(format!("class label {} is not a finite number", quote(text)));
    }
    if value.fract() != 0.0 {
        return Err(format!(
            "class label {} is not an integer (classification labels are integers or names; use --task regression for real-valued targets)",
            quote(text)
        ));
    }
    if value.abs() >= LIMIT {
        return Err(format!(
            "class label {} is too large (integer labels must lie within ±9.2e18)",
            quote(text)
        ));
    }
    Ok(value as i64)
}

/// A label cell as an integer: exact for integer text, through `f64` for `1e3`, `2.0`; `None` if it
/// is not a number at all.
fn integer_cell(cell: &str) -> Option<Result<i64, String>> {
    let text = cell.strip_prefix('+').unwrap_or(cell);
    if let Ok(v) = text.parse::<i64>() {
        return Some(Ok(v));
    }
    let value = cell.parse::<f64>().ok()?;
    Some(integer_label(value, cell))
}

/// The class labels of a file read in chunks: [`ClassLabelsAccumulator::add`] each chunk in the
/// file's order, then [`ClassLabelsAccumulator::finish`] gives what [`ClassLabels::fit`] gives for
/// the whole table, with the same errors.
///
/// It keeps the distinct labels only (and, for CSV, their text until it is known whether every
/// label is a number). Accumulators of consecutive parts of a file (for instance one per process)
/// combine with [`ClassLabelsAccumulator::merge`].
#[derive(Debug, Default)]
pub struct ClassLabelsAccumulator {
    /// Rows seen.
    rows: usize,
    /// The file of the targets, for errors (the first chunk's).
    source: Option<PathBuf>,
    /// What the targets were: `Some(true)` for text (CSV), `Some(false)` for numbers.
    text: Option<bool>,
    /// The integer labels.
    integers: BTreeSet<i64>,
    /// Text only: the labels as written.
    names: BTreeSet<String>,
    /// Text only: whether a label is not a number (then every label is a name).
    any_name: bool,
    /// Text only: the first number that is not a class label (an error unless a name turns up).
    bad_number: Option<DataError>,
}

impl ClassLabelsAccumulator {
    /// An accumulator that has seen no rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the labels of `chunk`, the rows of the file after those added so far. A number that is
    /// not a class label is an error at once for LIBSVM and IDX targets; for CSV targets at
    /// [`ClassLabelsAccumulator::finish`], unless some label turns out not to be a number. A chunk
    /// without targets (IDX images without labels) is an error.
    pub fn add(&mut self, chunk: &Table) -> Result<(), DataError> {
        if self.source.is_none() {
            self.source = Some(chunk.target_source.clone());
        }
        if chunk.n_samples() == 0 {
            return Ok(());
        }
        match &chunk.targets {
            Targets::None => Err(DataError::format(
                &chunk.source,
                None,
                "no labels (no labels file beside the images)",
            )),
            Targets::Numbers(values) => {
                self.kind(false)?;
                for (i, &v) in values.iter().enumerate() {
                    let label = integer_label(v, &number_text(v)).map_err(|p| chunk.target_error(i, p))?;
                    self.integers.insert(label);
                }
                self.rows += values.len();
                Ok(())
            }
            Targets::Text(cells) => {
                self.kind(true)?;
                for (i, cell) in cells.iter().enumerate() {
                    if cell.trim().is_empty() {
                        return Err(chunk.target_error(i, EMPTY_LABEL));
                    }
                    if !self.names.contains(cell) {
                        self.names.insert(cell.clone());
                    }
                    match integer_cell(cell) {
                        None => self.any_name = true,
                        Some(Ok(label)) => {
                            self.integers.insert(label);
                        }
                        Some(Err(problem)) => {
                            if self.bad_number.is_none() {
                                self.bad_number = Some(chunk.target_error(i, problem));
                            }
                        }
                    }
                }
                self.rows += cells.len();
                Ok(())
            }
        }
    }

    /// Checks that the targets stay of one kind (text or numbers).
    fn kind(&mut self, text: bool) -> Result<(), DataError> {
        match self.text {
            Some(t) if t != text => Err(DataError::invalid(
                "class labels of chunks with text targets and chunks with numeric targets cannot be combined",
            )),
            _ => {
                self.text = Some(text);
                Ok(())
            }
        }
    }

    /// Adds what `later` gathered from the rows after those of `self` (e.g. the next process's
    /// part of the file), as if its chunks had been added here.
    pub fn merge(&mut self, later: ClassLabelsAccumulator) -> Result<(), DataError> {
        if let Some(text) = later.text {
            self.kind(text)?;
        }
        if self.source.is_none() {
            self.source = later.source;
        }
        self.rows += later.rows;
        self.integers.extend(later.integers);
        self.names.extend(later.names);
        self.any_name |= later.any_name;
        if self.bad_number.is_none() {
            self.bad_number = later.bad_number;
        }
        Ok(())
    }

    /// The classes: the labels in sorted order, integers if every label is one, else names. An
    /// error without rows, or for a CSV number that is not a class label when every label is a
    /// number.
    pub fn finish(self) -> Result<ClassLabels, DataError> {
        if self.rows == 0 {
            let source = self.source.unwrap_or_default();
            return Err(DataError::format(&source, None, "no samples: the file is empty"));
        }
        if self.any_name {
            return Ok(ClassLabels::Text(self.names.into_iter().collect()));
        }
        match self.bad_number {
            Some(e) => Err(e),
            None => Ok(ClassLabels::Integers(self.integers.into_iter().collect())),
        }
    }
}

/// The number shown for a label read as a number.
fn number_text(v: f64) -> String {
    format!("{v}")
}

impl ClassLabels {
    /// The classes of the training targets, and each row's class index.
    ///
    /// Integers (or numbers with an integer value) map numerically; if any CSV label is not a
    /// number, every label is a name. Errors name the file, the line and the label: a number that
    /// is not an integer, not finite or too large; a file without labels or without rows.
    ///
    /// For a file read in chunks, gather the labels with a [`ClassLabelsAccumulator`] (or
    /// [`ClassLabels::collect`]) and encode each chunk with [`ClassLabels::encode`].
    pub fn fit(table: &Table) -> Result<(ClassLabels, Array1<f64>), DataError> {
        let labels = ClassLabels::collect([table])?;
        let classes = labels.encode(table, None)?;
        Ok((labels, classes))
    }

    /// The classes of the training targets given in chunks (in the file's order), as
    /// [`ClassLabels::fit`] finds them in the whole table, with the same errors.
    ///
    /// ```no_run
    /// use nn_data::{read_table_chunks, ClassLabels, ReadOptions};
    ///
    /// let path = "data/train.csv";
    /// let chunks: Vec<_> = read_table_chunks(path, &ReadOptions::default(), 10_000)?.collect::<Result<_, _>>()?;
    /// let labels = ClassLabels::collect(&chunks)?;
    /// for chunk in &chunks {
    ///     let classes = labels.encode(chunk, None)?;
    ///     # let _ = classes;
    /// }
    /// # Ok::<(), nn_data::DataError>(())
    /// ```
    pub fn collect<'a>(chunks: impl IntoIterator<Item = &'a Table>) -> Result<ClassLabels, DataError> {
        let mut accumulator = ClassLabelsAccumulator::new();
        for chunk in chunks {
            accumulator.add(chunk)?;
        }
        accumulator.finish()
    }

    /// The number of classes.
    pub fn len(&self) -> usize {
        match self {
            ClassLabels::Integers(v) => v.len(),
            ClassLabels::Text(v) => v.len(),
        }
    }

    /// Whether there is no class.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The label of class `index`, as printed (`None` beyond the classes).
    pub fn label(&self, index: usize) -> Option<String> {
        match self {
            ClassLabels::Integers(v) => v.get(index).map(i64::to_string),
            ClassLabels::Text(v) => v.get(index).cloned(),
        }
    }

    /// A short list of the labels for messages.
    fn listing(&self) -> String {
        const SHOWN: usize = 10;
        let shown: Vec<String> = (0..self.len().min(SHOWN)).filter_map(|i| self.label(i)).collect();
        let more = if self.len() > SHOWN {
            format!(", … ({} in all)", self.len())
        } else {
            String::new()
        };
        format!("{}{more}", shown.join(", "))
    }

    /// The class index of every row of `table`; a label training never saw is an error naming the
    /// file, the line and the label (and `training`, the training file, when given).
    pub fn encode(&self, table: &Table, training: Option<&std::path::Path>) -> Result<Array1<f64>, DataError> {
        let unseen = |i: usize, text: &str| {
            let source = training.map_or(String::new(), |t| format!(" {}", t.display()));
            table.target_error(
                i,
                format!(
                    "class label {} does not occur in the training file{source} (its labels: {})",
                    quote(text),
                    self.listing()
                ),
            )
        };
        let index_of_integer = |i: usize, label: Result<i64, String>, text: &str| -> Result<f64, DataError> {
            let ClassLabels::Integers(v) = self else {
                return Err(unseen(i, text));
            };
            let label = label.map_err(|_| unseen(i, text))?;
            v.binary_search(&label).map(|k| k as f64).map_err(|_| unseen(i, text))
        };
        match &table.targets {
            Targets::None => Err(DataError::format(
                &table.source,
                None,
                "no labels (no labels file beside the images)",
            )),
            Targets::Numbers(values) => values
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let text = number_text(v);
                    index_of_integer(i, integer_label(v, &text), &text)
                })
                .collect(),
            Targets::Text(cells) => cells
                .iter()
                .enumerate()
                .map(|(i, cell)| match self {
                    _ if cell.trim().is_empty() => Err(table.target_error(i, EMPTY_LABEL)),
                    ClassLabels::Text(v) => v
                        .binary_search_by(|l| l.as_str().cmp(cell))
                        .map(|k| k as f64)
                        .map_err(|_| unseen(i, cell)),
                    ClassLabels::Integers(_) => match integer_cell(cell) {
                        Some(label) => index_of_integer(i, label, cell),
                        None => Err(unseen(i, cell)),
                    },
                })
                .collect(),
        }
    }
}
