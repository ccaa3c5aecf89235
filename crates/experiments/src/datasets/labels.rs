//! Class labels as scikit-learn's estimators treat them: the labels that occur in the training
//! targets — integers of any size, or strings — become the classes `0..k` in sorted order; the
//! mapping is kept so predictions can be printed as the original labels.

use std::collections::BTreeSet;

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
    pub fn fit(table: &Table) -> Result<(ClassLabels, Array1<f64>), DataError> {
        if table.n_samples() == 0 {
            return Err(DataError::format(
                &table.target_source,
                None,
                "no samples: the file is empty",
            ));
        }
        let labels = match &table.targets {
            Targets::None => {
                return Err(DataError::format(
                    &table.source,
                    None,
                    "no labels (no labels file beside the images)",
                ))
            }
            Targets::Numbers(values) => {
                let mut set = BTreeSet::new();
                for (i, &v) in values.iter().enumerate() {
                    let label = integer_label(v, &number_text(v)).map_err(|p| table.target_error(i, p))?;
                    set.insert(label);
                }
                ClassLabels::Integers(set.into_iter().collect())
            }
            Targets::Text(cells) => {
                let parsed: Vec<Option<Result<i64, String>>> = cells.iter().map(|c| integer_cell(c)).collect();
                if parsed.iter().any(Option::is_none) {
                    let set: BTreeSet<&str> = cells.iter().map(String::as_str).collect();
                    ClassLabels::Text(set.into_iter().map(str::to_string).collect())
                } else {
                    let mut set = BTreeSet::new();
                    for (i, p) in parsed.into_iter().enumerate() {
                        if let Some(p) = p {
                            set.insert(p.map_err(|e| table.target_error(i, e))?);
                        }
                    }
                    ClassLabels::Integers(set.into_iter().collect())
                }
            }
        };
        let classes = labels.encode(table, None)?;
        Ok((labels, classes))
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
