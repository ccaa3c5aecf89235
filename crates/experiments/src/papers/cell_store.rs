//! The one cell store of the reproductions (issue 38): a cell is a JSON
//! file of one unit of a paper's work (a data set, a run, a λ), written
//! when it finishes and read back by a rerun, so that every paper's run is
//! resumable the same way.
//!
//! - Writing is atomic (a temporary file, then a rename): an interrupted
//!   run never leaves half a cell.
//! - Reading is exact (every `f64` reads back as written: serde_json's
//!   `float_roundtrip`) and strict: a file that exists but cannot be read
//!   or parsed is an error naming it — a cell is never guessed, and never
//!   silently computed again over a damaged file.
//! - Cells are pretty-printed, so that the committed ones can be read and
//!   diffed.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A cell file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    /// Reading or writing the file (or listing its directory) failed.
    #[error("cell file {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a cell (bad JSON, a missing field, an unknown name).
    #[error("cell file {} is not a readable cell: {source} (delete it to compute the cell again)", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What serde found wrong.
        source: serde_json::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CellError + '_ {
    move |source| CellError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The cell in `path`.
///
/// # Errors
/// [`CellError`] naming the file: missing, unreadable or not a cell.
pub fn read_cell<T: DeserializeOwned>(path: &Path) -> Result<T, CellError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|source| CellError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// The cell in `path`, or `None` when there is no such file (not computed
/// yet).
///
/// # Errors
/// [`CellError`] for a file that exists but cannot be read or parsed.
pub fn load_cell<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, CellError> {
    if !path.exists() {
        return Ok(None);
    }
    read_cell(path).map(Some)
}

/// Store a cell as pretty JSON, atomically (a temporary file beside it,
/// then a rename); the directory is created if needed.
///
/// # Errors
/// [`CellError`] naming the file.
pub fn store_cell<T: Serialize>(path: &Path, cell: &T) -> Result<(), CellError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let text = serde_json::to_string_pretty(cell).map_err(|source| CellError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// For an `f64` field of a cell that may be NaN or infinite
/// (`#[serde(deserialize_with = "...::f64_or_null")]`): serde_json writes a
/// non-finite number as `null`, and this reads `null` back as NaN (any
/// other value as itself).
///
/// # Errors
/// The deserializer's, for a value that is neither a number nor `null`.
pub fn f64_or_null<'de, D: serde::Deserializer<'de>>(de: D) -> Result<f64, D::Error> {
    Ok(<Option<f64> as serde::Deserialize>::deserialize(de)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_cell_reads_back_every_f64_exactly() {
        // Numbers the default serde_json parser read back one ulp off
        // (the float_roundtrip feature fixes it), and random bit patterns.
        let mut values = vec![
            9.452952922881157e-4,
            6.977798631328281e-14,
            5.494110154434194e-14,
            f64::MIN_POSITIVE,
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = f64::from_bits(state >> 1);
            if v.is_finite() {
                values.push(v);
            }
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("deeper").join("cell.json");
        store_cell(&path, &values).expect("store");
        let back: Vec<f64> = load_cell(&path).expect("load").expect("a stored cell");
        let off: Vec<(f64, f64)> = values
            .iter()
            .zip(&back)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .map(|(a, b)| (*a, *b))
            .collect();
        assert!(
            off.is_empty() && back.len() == values.len(),
            "read back differently: {off:?}"
        );
        assert!(!path.with_extension("json.tmp").exists(), "no temporary file is left");
    }

    #[test]
    fn a_non_finite_field_reads_back_as_nan() {
        #[derive(Serialize, serde::Deserialize)]
        struct Timed {
            #[serde(deserialize_with = "f64_or_null")]
            seconds: f64,
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("cell.json");
        store_cell(&path, &Timed { seconds: f64::NAN }).expect("store");
        assert!(read_cell::<Timed>(&path).expect("read").seconds.is_nan());
        store_cell(&path, &Timed { seconds: 2.5 }).expect("store");
        assert_eq!(read_cell::<Timed>(&path).expect("read").seconds, 2.5);
    }

    #[test]
    fn a_missing_cell_is_none_and_a_damaged_one_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("cell.json");
        assert!(load_cell::<Vec<f64>>(&path).expect("no error").is_none());
        std::fs::write(&path, "[1.0, 2.").expect("write");
        let e = load_cell::<Vec<f64>>(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("cell.json") && e.contains("not a readable cell"), "{e}");
    }
}
