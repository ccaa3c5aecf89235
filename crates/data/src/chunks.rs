//! Reading a data file in chunks of rows: [`read_table_chunks`] yields the rows of
//! [`read_table`](super::read_table)'s [`Table`] a chunk at a time, holding only one chunk (and the
//! read buffers) in memory, so files larger than memory can be fitted by models that accumulate
//! statistics over rows (see [`ColumnStats`](super::ColumnStats) and
//! [`ClassLabelsAccumulator`](super::ClassLabelsAccumulator)).
//!
//! The format is chosen as [`read_table`](super::read_table) chooses it, and every file is read front
//! to back through a buffer (gunzipped on the fly when it starts with the gzip magic bytes). Each
//! chunk is a [`Table`] equal to the corresponding rows of `read_table`'s: the same features,
//! targets, names (repeated in every chunk) and absolute line numbers, with
//! [`Table::first_row`] counting the rows before it. In fact `read_table` *is* this reader with a
//! single chunk holding every row, so both check a file in the same way:
//!
//! * problems with the file as a whole — it cannot be opened; a CSV's header row (empty file,
//!   blank first line followed by data, one column, a first row of numbers under
//!   [`HeaderMode::Auto`](super::HeaderMode)); an IDX header, or labels that do not match the images
//!   in number — are errors of [`read_table_chunks`] itself;
//! * a problem in a row — a bad cell or token, a wrong column count, a line that is not UTF-8, a
//!   blank line followed by more data, an IDX file that ends early or has bytes after its last
//!   item, damaged gzip data — is the error of the chunk that reaches it, after the chunks before it
//!   were yielded `Ok`; a file with no data rows gives `read_table`'s error at the first chunk. The
//!   error has the same message as `read_table`'s, and the iterator ends after it;
//! * when a file has several problems, the first one met reading front to back is reported. When a
//!   gzipped file has a bad row, the rest of it is decompressed first: if its gzip data are
//!   damaged further on, that damage is the error (it may be what made the row look bad).
//!
//! What streaming cannot know up front, and how it differs from one chunk of everything:
//!
//! * LIBSVM without [`ReadOptions::n_features`]: the width of the file is its largest feature
//!   index, so a first pass over the file finds it (up to the first bad line, which the second
//!   pass reports) before the first chunk; every chunk then has that width.
//!   [`TableChunks::n_features`] tells it.
//! * The dense-memory checks (LIBSVM's [`LIBSVM_MAX_DENSE_CELLS`](super::LIBSVM_MAX_DENSE_CELLS)
//!   and available memory, IDX's available memory) apply to each chunk, `rows of the chunk ×
//!   features`, instead of to the whole file; their messages name the chunk's rows.
//! * A gzipped file read whole may decompress to at most half the available memory; in chunks
//!   there is no such limit.
//! * Gzip damage that only the checksum at the end of the data reveals is reported there: the
//!   chunks yielded before it may hold damaged rows (read whole, the file gives only the error).
//!
//! ```no_run
//! use nn_data::{read_table_chunks, shipped, ColumnStats, ReadOptions};
//!
//! let mut chunks = read_table_chunks(shipped("mnist-train")?, &ReadOptions::default(), 10_000)?;
//! let mut stats = ColumnStats::new(chunks.n_features().unwrap_or(0));
//! for chunk in &mut chunks {
//!     stats.add(chunk?.x.view())?;
//! }
//! let scaler = stats.to_standard_scaler()?;
//! # let _ = scaler;
//! # Ok::<(), nn_data::DataError>(())
//! ```

use std::path::Path;

use super::csv::CsvRows;
use super::error::DataError;
use super::idx::IdxRows;
use super::libsvm::{largest_index, looks_like_libsvm, LibsvmRows};
use super::read::{Input, Reading};
use super::table::{ReadOptions, Table};

/// The formats [`read_table`](super::read_table) tells apart by the file's name.
enum Format {
    /// MNIST's IDX images (and labels beside them).
    Idx,
    /// LIBSVM text (`.libsvm`, `.svm`).
    Libsvm,
    /// `.txt`: LIBSVM if its first data line has `index:value` tokens, else CSV.
    Text,
    /// Anything else.
    Csv,
}

/// The format of `path` by its name (a trailing `.gz` ignored).
fn format_of(path: &Path) -> Format {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let stem = name.strip_suffix(".gz").unwrap_or(&name);
    let extension = Path::new(stem)
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    if super::is_idx_images(path) {
        Format::Idx
    } else if matches!(extension.as_str(), "libsvm" | "svm") {
        Format::Libsvm
    } else if extension == "txt" {
        Format::Text
    } else {
        Format::Csv
    }
}

/// The reader of each format.
enum Rows {
    Csv(CsvRows),
    Libsvm(LibsvmRows),
    Idx(IdxRows),
}

/// The rows of a data file in consecutive chunks of at most a given number of rows: an
/// [`Iterator`] of `Result<Table, DataError>` (see [`read_table_chunks`]).
///
/// After the last chunk, or after an error, it yields `None`.
pub struct TableChunks {
    rows: Rows,
    chunk_rows: usize,
    done: bool,
}

impl TableChunks {
    /// The number of feature columns of every chunk, when known before reading rows: after a CSV's
    /// header (or first row), from an IDX header, for LIBSVM from [`ReadOptions::n_features`] or the
    /// first pass. `None` only for a file read whole ([`read_table`](super::read_table)'s LIBSVM
    /// without a width).
    pub fn n_features(&self) -> Option<usize> {
        match &self.rows {
            Rows::Csv(r) => Some(r.n_features()),
            Rows::Libsvm(r) => r.n_features(),
            Rows::Idx(r) => Some(r.n_features()),
        }
    }

    /// The most rows a chunk holds.
    pub fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }
}

impl Iterator for TableChunks {
    type Item = Result<Table, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let chunk = match &mut self.rows {
            Rows::Csv(r) => r.next_chunk(self.chunk_rows),
            Rows::Libsvm(r) => r.next_chunk(self.chunk_rows),
            Rows::Idx(r) => r.next_chunk(self.chunk_rows),
        };
        match chunk {
            Ok(Some(table)) => Some(Ok(table)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for TableChunks {}

/// Reads `path` as [`read_table`](super::read_table) does, in consecutive chunks of at most
/// `chunk_rows` rows (the last may be shorter; no chunk is empty, except the one table of an IDX
/// file of no images).
///
/// Only one chunk is held in memory at a time; see the [module documentation](self) for where
/// errors are reported and how streaming differs from reading the file whole. A LIBSVM file
/// without [`ReadOptions::n_features`] is read twice: a first pass finds its width.
///
/// `chunk_rows == 0` is a [`DataError::InvalidArgument`].
///
/// ```no_run
/// use nn_data::{read_table_chunks, ReadOptions};
///
/// let mut rows = 0;
/// for chunk in read_table_chunks("data/big.csv.gz", &ReadOptions::default(), 50_000)? {
///     let chunk = chunk?;
///     rows += chunk.n_samples();
/// }
/// # let _ = rows;
/// # Ok::<(), nn_data::DataError>(())
/// ```
pub fn read_table_chunks(
    path: impl AsRef<Path>,
    options: &ReadOptions,
    chunk_rows: usize,
) -> Result<TableChunks, DataError> {
    if chunk_rows == 0 {
        return Err(DataError::invalid("chunk_rows is 0: a chunk holds at least one row"));
    }
    open(path.as_ref(), options, Reading::Chunks, chunk_rows)
}

/// Every row of `path` in one table: [`read_table`](super::read_table).
pub(crate) fn read_whole(path: &Path, options: &ReadOptions) -> Result<Table, DataError> {
    let mut chunks = open(path, options, Reading::Whole, usize::MAX)?;
    chunks
        .next()
        .unwrap_or_else(|| Err(DataError::format(path, None, "no data rows")))
}

/// The rows of `path` in chunks of `chunk_rows`, read as `reading` says.
fn open(path: &Path, options: &ReadOptions, reading: Reading, chunk_rows: usize) -> Result<TableChunks, DataError> {
    let libsvm = |path: &Path| -> Result<Rows, DataError> {
        let input = Input::open(path, reading)?;
        let first_pass = match (options.n_features, reading) {
            (None, Reading::Chunks) => Some(largest_index(Input::open(path, reading)?)),
            _ => None,
        };
        Ok(Rows::Libsvm(LibsvmRows::new(input, options.n_features, first_pass)))
    };
    let csv = |path: &Path| -> Result<Rows, DataError> {
        Ok(Rows::Csv(CsvRows::open(Input::open(path, reading)?, options.header)?))
    };
    let rows = match format_of(path) {
        Format::Idx => Rows::Idx(IdxRows::open(path, options.labels_optional, reading)?),
        Format::Libsvm => libsvm(path)?,
        Format::Text if looks_like_libsvm(Input::open(path, reading)?) => libsvm(path)?,
        Format::Text | Format::Csv => csv(path)?,
    };
    Ok(TableChunks {
        rows,
        chunk_rows,
        done: false,
    })
}
