//! The crate's error type: every way a model can refuse an input, a
//! configuration or a file.

use std::path::PathBuf;

use thiserror::Error;

/// Errors of `models`. Each names the input, parameter or file at fault.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ModelError {
    /// An error of the linear-algebra layer: an input check (`Shape`,
    /// `Empty`, `NonFinite`: the models check their inputs with
    /// [`linalg_core::validate`]) or a ridge solver's update.
    #[error(transparent)]
    Linalg(#[from] linalg_core::Error),
    /// The caller's source of rows (a chunk reader of a streamed fit)
    /// failed; its message, passed through.
    #[error("{0}")]
    Source(String),
    /// A configuration value or argument is not admissible.
    #[error("{name} = {value} is not admissible: {reason}")]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// The value given, formatted.
        value: String,
        /// What it must satisfy.
        reason: &'static str,
    },
    /// A name that is not a known activation function.
    #[error(
        "unknown activation `{0}`; known: sigmoid, gaussian (rbf), hardlim, triangular (tribas), sine, tanh, relu, \
         linear"
    )]
    UnknownActivation(String),
    /// A name that is not a known output-weight solver.
    #[error("unknown solver `{0}`; known: ridge, lstsq, or an incremental strategy (d-rdg, chol1, …, alg3)")]
    UnknownSolver(String),
    /// Reading or writing a model file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the model file's magic bytes.
    #[error("{path}: not a model file (magic bytes {found:?}, expected {expected:?})")]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// The first eight bytes found.
        found: [u8; 8],
        /// The magic bytes of this kind of model file.
        expected: [u8; 8],
    },
    /// The file is a model file of a format version this build cannot read.
    #[error("{path}: unsupported model file format version {found} (this build reads versions 1 to {expected})")]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The version this build reads and writes.
        expected: u32,
    },
    /// The file has the right header but its content cannot be decoded, or
    /// decodes to an inconsistent model (truncated, altered, trailing bytes).
    #[error("{path}: model file is corrupt: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A trainer could not continue (an inner solver failed on data it
    /// cannot handle, e.g. a singular system with no regularization).
    #[error("{trainer} training failed: {reason}")]
    Training {
        /// The trainer ("DEC", "L-BFGS", …).
        trainer: &'static str,
        /// What failed.
        reason: String,
    },
    /// Encoding a model for saving failed.
    #[error("encoding the model failed: {0}")]
    Encode(String),
}

/// `Result` with this crate's [`ModelError`].
pub type Result<T> = std::result::Result<T, ModelError>;
