//! The sparse LIBSVM / SVMlight text format: `label index:value index:value …`, read line by line
//! ([`LibsvmRows`]) for the whole file or in chunks, with the same checks.

use std::path::{Path, PathBuf};

use linalg_core::sparse::Csr;
use ndarray::{Array1, Array2};

use super::error::{quote, DataError};
use super::read::{available_memory_bytes, human_bytes, settle, Input, Lines, Reading};
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
    let input = Input::open(path.as_ref(), Reading::Whole)?;
    LibsvmRows::new(input, n_features, None).whole()?.into_dataset()
}

/// A LIBSVM file kept sparse ([`load_libsvm_sparse`]): the samples as a compressed sparse row
/// matrix and one label per row.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseDataset {
    /// Features, one row per sample, only the entries the file lists.
    pub x: Csr,
    /// Labels as written (e.g. `-1`/`+1`), one per sample.
    pub y: Array1<f64>,
    /// Where the data came from (the path given to the loader).
    pub source: String,
}

/// Loads a LIBSVM file keeping it sparse: the file's `index:value` pairs become the stored entries
/// of a [`Csr`] matrix (16 bytes each) instead of a dense `K × d` array, so text data with millions
/// of features and a few hundred entries per row fits in memory, and the ELM and the BLS fit it
/// through their sparse products (`ElmValidParams::fit_samples`, `BlsValidParams::fit_samples`).
/// The same format, checks and errors as [`load_libsvm`], without its dense-memory limit; an
/// entry whose value is written as 0 is kept as a stored 0.
///
/// ```no_run
/// let data = nn_data::load_libsvm_sparse("news20.libsvm", None)?;
/// println!("{} rows, {} features, {:.4}% stored", data.x.nrows(), data.x.ncols(), 100.0 * data.x.density());
/// # Ok::<(), nn_data::DataError>(())
/// ```
///
/// # Errors
/// [`DataError`] naming the file and line of a malformed line, an index beyond `n_features`, or a
/// file without data lines.
pub fn load_libsvm_sparse(path: impl AsRef<Path>, n_features: Option<usize>) -> Result<SparseDataset, DataError> {
    let input = Input::open(path.as_ref(), Reading::Whole)?;
    let rows = LibsvmRows::new(input, n_features, None);
    let source = rows.path.display().to_string();
    let (x, y) = rows.whole_sparse()?;
    Ok(SparseDataset {
        x,
        y: Array1::from(y),
        source,
    })
}

/// The most values a dense LIBSVM matrix may have (2³¹, i.e. 16 GiB of `f64`): a larger request comes
/// from an absurd feature index rather than from real data.
pub const LIBSVM_MAX_DENSE_CELLS: usize = 1 << 31;

/// One parsed line: its label and its `(0-based index, value)` pairs.
type Row = (f64, Vec<(usize, f64)>);

/// The data of a line: what comes before a `#`, trimmed (empty for blank and comment lines).
fn content(line: &str) -> &str {
    line.split('#').next().unwrap_or("").trim()
}

/// Parses line `line_no` of a LIBSVM file read from `path` (named in errors only): `None` for a
/// blank or comment line. An index beyond `n_features`, when given, is an error.
fn parse_line(path: &Path, line_no: usize, line: &str, n_features: Option<usize>) -> Result<Option<Row>, DataError> {
    let content = content(line);
    if content.is_empty() {
        return Ok(None);
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
        features.push((index - 1, value));
    }
    Ok(Some((label, features)))
}

/// Rows parsed from a LIBSVM file: each with its line, the width they share, and where the
/// largest index is (for messages).
struct Parsed {
    rows: Vec<Row>,
    lines: Vec<usize>,
    d: usize,
    largest: String,
}

/// The rows of a LIBSVM file, read in order.
pub(crate) struct LibsvmRows {
    path: PathBuf,
    lines: Lines,
    /// The width the caller gave (an index beyond it is an error).
    n_features: Option<usize>,
    /// The largest index of the file and its line, from a first pass, when chunks must share a width
    /// the caller did not give.
    first_pass: Option<(usize, usize)>,
    /// Rows returned so far.
    rows: usize,
}

impl LibsvmRows {
    /// The rows of `input`; `first_pass` is [`largest_index`] of the same file when it is read in
    /// chunks without `n_features` (else the width is the largest index of the rows read at once).
    pub(crate) fn new(input: Input, n_features: Option<usize>, first_pass: Option<(usize, usize)>) -> Self {
        LibsvmRows {
            path: input.path().to_path_buf(),
            lines: Lines::new(input),
            n_features,
            first_pass,
            rows: 0,
        }
    }

    /// The number of feature columns, when known before reading rows.
    pub(crate) fn n_features(&self) -> Option<usize> {
        self.n_features.or(self.first_pass.map(|(index, _)| index))
    }

    /// Every row, for the whole-file loaders.
    pub(crate) fn whole(mut self) -> Result<Table, DataError> {
        self.next_chunk(usize::MAX)?
            .ok_or_else(|| DataError::format(&self.path, None, "empty file (no data lines)"))
    }

    /// The next at most `max_rows` rows (`None` after the last); an error for the chunk holding a
    /// bad line, for a file without data lines, or when the chunk cannot be held densely.
    pub(crate) fn next_chunk(&mut self, max_rows: usize) -> Result<Option<Table>, DataError> {
        self.read_chunk(max_rows).map_err(|e| settle(e, self.lines.input_mut()))
    }

    /// Every row kept sparse, for [`load_libsvm_sparse`]: the matrix and the labels.
    pub(crate) fn whole_sparse(mut self) -> Result<(Csr, Vec<f64>), DataError> {
        let parsed = self
            .read_rows(usize::MAX)
            .map_err(|e| settle(e, self.lines.input_mut()))?;
        let Some(parsed) = parsed else {
            return Err(DataError::format(&self.path, None, "empty file (no data lines)"));
        };
        let (d, n) = (parsed.d, parsed.rows.len());
        let nnz = parsed.rows.iter().map(|(_, f)| f.len()).sum();
        let mut indptr = Vec::with_capacity(n + 1);
        let mut indices = Vec::with_capacity(nnz);
        let mut values = Vec::with_capacity(nnz);
        let mut y = Vec::with_capacity(n);
        indptr.push(0);
        for (r, (label, features)) in parsed.rows.into_iter().enumerate() {
            y.push(label);
            for (j, v) in features {
                if j >= d {
                    return Err(self.changed_while_read(parsed.lines[r], j, d));
                }
                indices.push(j);
                values.push(v);
            }
            indptr.push(values.len());
        }
        self.rows += n;
        let x = Csr::try_new(n, d, indptr, indices, values)
            .map_err(|e| DataError::format(&self.path, None, e.to_string()))?;
        Ok((x, y))
    }

    /// The error for feature index `j` (0-based) on line `line` beyond the width `d` of the first pass.
    fn changed_while_read(&self, line: usize, j: usize, d: usize) -> DataError {
        DataError::format(
            &self.path,
            Some(line),
            format!(
                "feature index {} is beyond the largest index, {d}, of the first pass over the file: the file changed while it was read",
                j + 1
            ),
        )
    }

    /// The next at most `max_rows` parsed rows with their lines and the width they share (`None`
    /// after the last row; an error for a file without data lines).
    fn read_rows(&mut self, max_rows: usize) -> Result<Option<Parsed>, DataError> {
        let mut rows: Vec<Row> = Vec::new();
        let mut lines: Vec<usize> = Vec::new();
        let (mut max_index, mut max_line) = (0usize, 0usize);
        while rows.len() < max_rows {
            let Some((line_no, line)) = self.lines.next_line()? else {
                break;
            };
            if let Some(row) = parse_line(&self.path, line_no, line, self.n_features)? {
                if let Some(&(last, _)) = row.1.last() {
                    if last + 1 > max_index {
                        (max_index, max_line) = (last + 1, line_no);
                    }
                }
                rows.push(row);
                lines.push(line_no);
            }
        }
        if rows.is_empty() {
            if self.rows == 0 {
                return Err(DataError::format(&self.path, None, "empty file (no data lines)"));
            }
            return Ok(None);
        }
        let (d, largest) = match (self.n_features, self.first_pass) {
            (Some(d), _) => (d, None),
            (None, Some(pass)) => (pass.0, Some(pass)),
            (None, None) => (max_index, Some((max_index, max_line))),
        };
        let largest = largest.map_or(String::new(), |(index, line)| {
            format!(" (the largest feature index, {index}, is on line {line})")
        });
        Ok(Some(Parsed {
            rows,
            lines,
            d,
            largest,
        }))
    }

    fn read_chunk(&mut self, max_rows: usize) -> Result<Option<Table>, DataError> {
        let Some(Parsed {
            rows,
            lines,
            d,
            largest,
        }) = self.read_rows(max_rows)?
        else {
            return Ok(None);
        };
        dense_fits(rows.len(), d, available_memory_bytes())
            .map_err(|problem| DataError::format(&self.path, None, format!("{problem}{largest}")))?;
        let mut x = Array2::zeros((rows.len(), d));
        let mut y = Vec::with_capacity(rows.len());
        for (r, (label, features)) in rows.into_iter().enumerate() {
            y.push(label);
            for (j, v) in features {
                if j >= d {
                    return Err(self.changed_while_read(lines[r], j, d));
                }
                x[[r, j]] = v;
            }
        }
        let mut table = Table::new(&self.path, x, Targets::Numbers(y), Some(lines));
        table.first_row = self.rows;
        self.rows += table.n_samples();
        Ok(Some(table))
    }
}

/// The largest feature index of the LIBSVM file `input` and its line, reading up to its first bad
/// line (which the second pass reports): the width of every chunk when the caller gives none.
pub(crate) fn largest_index(input: Input) -> (usize, usize) {
    let path = input.path().to_path_buf();
    let mut lines = Lines::new(input);
    let (mut max_index, mut max_line) = (0, 0);
    while let Ok(Some((line_no, line))) = lines.next_line() {
        match parse_line(&path, line_no, line, None) {
            Ok(Some((_, features))) => {
                if let Some(&(last, _)) = features.last() {
                    if last + 1 > max_index {
                        (max_index, max_line) = (last + 1, line_no);
                    }
                }
            }
            Ok(None) => {}
            Err(_) => break,
        }
    }
    (max_index, max_line)
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

/// Whether the first data line of `input` (blank and comment lines skipped) carries `index:value`
/// tokens, i.e. looks like LIBSVM. A file that cannot be read that far is given to the LIBSVM
/// reader, which reports the problem at the same place as the CSV reader would.
pub(crate) fn looks_like_libsvm(input: Input) -> bool {
    let mut lines = Lines::new(input);
    loop {
        match lines.next_line() {
            Ok(Some((_, line))) => {
                let content = content(line);
                if !content.is_empty() {
                    return content.split_whitespace().skip(1).any(|t| t.contains(':'));
                }
            }
            Ok(None) => return false,
            Err(_) => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(text: &'static str) -> Input {
        Input::new(Path::new("t.svm"), Box::new(text.as_bytes()), false, u64::MAX, 0)
    }

    fn parse(text: &'static str, n_features: Option<usize>) -> Result<Dataset, DataError> {
        LibsvmRows::new(input(text), n_features, None).whole()?.into_dataset()
    }

    #[test]
    fn sparse_to_dense() -> Result<(), DataError> {
        let d = parse("# header\n+1 1:0.5 3:2 # c\n-1\n\n0 qid:3 2:7\n", None)?;
        assert_eq!(d.x, ndarray::array![[0.5, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 7.0, 0.0]]);
        assert_eq!(d.y, ndarray::array![1.0, -1.0, 0.0]);
        let d = parse("1 2:1\n", Some(4))?;
        assert_eq!(d.n_features(), 4);
        assert!(parse("1 5:1\n", Some(4)).is_err());
        let huge = parse("1 1:1\n0 18446744073709551615:1\n", None);
        assert!(matches!(huge, Err(DataError::Format { line: None, .. })));
        Ok(())
    }

    /// In chunks, every chunk has the first pass's width; a file changed since then is an error,
    /// not a panic.
    #[test]
    fn chunks_share_the_first_pass_width() -> Result<(), DataError> {
        let text = "1 1:1\n# c\n0 3:2\n1 2:5\n";
        assert_eq!(largest_index(input(text)), (3, 3));
        let mut rows = LibsvmRows::new(input(text), None, Some(largest_index(input(text))));
        assert_eq!(rows.n_features(), Some(3));
        let first = rows.next_chunk(2)?.map(|t| (t.x, t.lines));
        assert_eq!(
            first,
            Some((ndarray::array![[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]], Some(vec![1, 3])))
        );
        assert_eq!(rows.next_chunk(2)?.map(|t| (t.n_features(), t.first_row)), Some((3, 2)));
        assert!(rows.next_chunk(2)?.is_none());
        let mut changed = LibsvmRows::new(input(text), None, Some((2, 1)));
        let e = changed.next_chunk(5).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains("t.svm line 3: feature index 3 is beyond") && e.contains("changed"),
            "{e}"
        );
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
        assert!(looks_like_libsvm(input("# c\n\n1 3:4\n")));
        assert!(!looks_like_libsvm(input("a,b\n1,2\n")));
        assert!(!looks_like_libsvm(input("\n# only\n")));
        let bad = Input::new(Path::new("t.txt"), Box::new(&b"\n\xff 1:2\n"[..]), false, u64::MAX, 0);
        assert!(looks_like_libsvm(bad));
    }
}
