//! The sparse LIBSVM / SVMlight text format: `label index:value index:value …`.

use std::path::Path;

use ndarray::Array2;

use super::error::{quote, DataError};
use super::read::{available_memory_bytes, human_bytes, read_text};
use super::table::{Table, Targets};
use super::Dataset;

/// Loads a LIBSVM file into a dense dataset.
///
/// Each non-blank line is `label index:value …` with 1-based, strictly increasing feature indices;
/// everything after a `#` is a comment; `qid:` tokens are skipped. Absent features are 0. Labels are
/// kept as written (e.g. `-1`/`+1`): map them to class indices yourself. The number of features is
/// `n_features` when given (an index beyond it is an error), else the largest index present.
/// A gzipped file is recognised by its magic bytes.
pub fn load_libsvm(path: impl AsRef<Path>, n_features: Option<usize>) -> Result<Dataset, DataError> {
    let path = path.as_ref();
    let text = read_text(path)?;
    parse_libsvm(path, &text, n_features)
}

/// Parses the text of a LIBSVM file read from `path` (named in errors only) into a dataset.
pub(crate) fn parse_libsvm(path: &Path, text: &str, n_features: Option<usize>) -> Result<Dataset, DataError> {
    parse_libsvm_table(path, text, n_features)?.into_dataset()
}

/// The most values a dense LIBSVM matrix may have (2³¹, i.e. 16 GiB of `f64`): a larger request comes
/// from an absurd feature index rather than from real data.
pub const LIBSVM_MAX_DENSE_CELLS: usize = 1 << 31;

/// One parsed line: its label and its `(0-based index, value)` pairs.
type Row = (f64, Vec<(usize, f64)>);

/// Parses the text of a LIBSVM file read from `path` (named in errors only): the labels as numbers
/// and the line of every row.
///
/// The dense matrix is allocated only after checking that it fits: at most
/// [`LIBSVM_MAX_DENSE_CELLS`] values and no more bytes than the machine's available memory.
pub(crate) fn parse_libsvm_table(path: &Path, text: &str, n_features: Option<usize>) -> Result<Table, DataError> {
    let mut rows: Vec<Row> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    let mut max_index = 0usize;
    let mut max_line = 0usize;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let err = |problem: String| DataError::format(path, Some(line_no), problem);
        let mut tokens = content.split_whitespace();
        let label_text = tokens.next().unwrap_or("");
        let label = match label_text.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => return Err(err(format!("bad label {}", quote(label_text)))),
        };
        let mut features = Vec::new();
        let mut previous = 0usize;
        for token in tokens {
            if token.starts_with("qid:") {
                continue;
            }
            let bad = || err(format!("bad index:value token {}", quote(token)));
            let (index_text, value_text) = token.split_once(':').ok_or_else(bad)?;
            let index = index_text.parse::<usize>().map_err(|_| bad())?;
            let value = value_text.parse::<f64>().map_err(|_| bad())?;
            if !value.is_finite() {
                return Err(err(format!("non-finite value in token {}", quote(token))));
            }
            if index == 0 {
                return Err(err(format!(
                    "feature index 0 in token {} (indices are 1-based)",
                    quote(token)
                )));
            }
            if index <= previous {
                return Err(err(format!(
                    "feature index {index} in token {} is not greater than the previous index {previous}",
                    quote(token)
                )));
            }
            if let Some(limit) = n_features {
                if index > limit {
                    return Err(err(format!(
                        "feature index {index} in token {} is beyond the {limit} features expected \
                         (the training file's width, or --n-features)",
                        quote(token)
                    )));
                }
            }
            previous = index;
            if index > max_index {
                max_index = index;
                max_line = line_no;
            }
            features.push((index - 1, value));
        }
        rows.push((label, features));
        lines.push(line_no);
    }
    if rows.is_empty() {
        return Err(DataError::format(path, None, "empty file (no data lines)"));
    }
    let d = n_features.unwrap_or(max_index);
    let largest = if n_features.is_some() {
        String::new()
    } else {
        format!(" (the largest feature index, {max_index}, is on line {max_line})")
    };
    dense_fits(rows.len(), d, available_memory_bytes())
        .map_err(|problem| DataError::format(path, None, format!("{problem}{largest}")))?;
    let mut x = Array2::zeros((rows.len(), d));
    let mut y = Vec::with_capacity(rows.len());
    for (r, (label, features)) in rows.into_iter().enumerate() {
        y.push(label);
        for (j, v) in features {
            x[[r, j]] = v;
        }
    }
    Ok(Table::new(path, x, Targets::Numbers(y), Some(lines)))
}

/// Whether a dense `rows × d` matrix of `f64` may be allocated: at most [`LIBSVM_MAX_DENSE_CELLS`]
/// values, and no more bytes than `available` (the machine's available memory, when known).
fn dense_fits(rows: usize, d: usize, available: Option<u64>) -> Result<(), String> {
    let cells = rows.checked_mul(d).filter(|&c| c <= LIBSVM_MAX_DENSE_CELLS);
    let Some(cells) = cells else {
        return Err(format!(
            "{rows} rows × {d} features is too large to hold densely (limit {LIBSVM_MAX_DENSE_CELLS} values)"
        ));
    };
    let need = (cells as u64).saturating_mul(8);
    match available {
        Some(available) if need > available => Err(format!(
            "{rows} rows × {d} features need {} as a dense matrix, more than the {} of memory available",
            human_bytes(need),
            human_bytes(available)
        )),
        _ => Ok(()),
    }
}

/// Whether the first data line of `text` carries `index:value` tokens, i.e. looks like LIBSVM.
pub(crate) fn looks_like_libsvm(text: &str) -> bool {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.split_whitespace().skip(1).any(|t| t.contains(':')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_to_dense() -> Result<(), DataError> {
        let d = parse_libsvm(
            Path::new("t.svm"),
            "# header\n+1 1:0.5 3:2 # c\n-1\n\n0 qid:3 2:7\n",
            None,
        )?;
        assert_eq!(d.x, ndarray::array![[0.5, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 7.0, 0.0]]);
        assert_eq!(d.y, ndarray::array![1.0, -1.0, 0.0]);
        let d = parse_libsvm(Path::new("t.svm"), "1 2:1\n", Some(4))?;
        assert_eq!(d.n_features(), 4);
        assert!(parse_libsvm(Path::new("t.svm"), "1 5:1\n", Some(4)).is_err());
        let huge = parse_libsvm(Path::new("t.svm"), "1 1:1\n0 18446744073709551615:1\n", None);
        assert!(matches!(huge, Err(DataError::Format { line: None, .. })));
        Ok(())
    }

    #[test]
    fn dense_size_is_checked_against_memory() {
        assert_eq!(dense_fits(1000, 1000, Some(8_000_000)), Ok(()));
        assert_eq!(dense_fits(1000, 1000, None), Ok(()));
        assert_eq!(
            dense_fits(100_000, 10_000, Some(2_000_000_000)),
            Err(
                "100000 rows × 10000 features need 8.0 GB as a dense matrix, more than the 2.0 GB of memory available"
                    .into()
            )
        );
        assert!(dense_fits(usize::MAX, 2, None).is_err_and(|e| e.contains("too large to hold densely")));
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_libsvm("# c\n\n1 3:4\n"));
        assert!(!looks_like_libsvm("a,b\n1,2\n"));
    }
}
