//! The library's errors as Python exceptions, with their messages unchanged.
//!
//! `ValueError` when the caller's input is at fault: an inadmissible
//! parameter or name, samples or targets of the wrong shape, empty or not
//! finite, a λ the solver refuses, rows to forget that were never added,
//! bytes that are not a model of this kind (unpickling). `RuntimeError` when
//! the computation failed on admissible input: a factorization that lost
//! definiteness, a breakdown of an incremental update, a trainer that could
//! not continue, LAPACK. `OSError` for file errors.

use models::ModelError;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

/// Whether the caller's input (not the computation) is at fault.
pub fn is_input_error(e: &ModelError) -> bool {
    use linalg_core::Error as L;
    match e {
        ModelError::InvalidParameter { .. }
        | ModelError::UnknownActivation(_)
        | ModelError::UnknownSolver(_)
        | ModelError::BadMagic { .. }
        | ModelError::UnsupportedFormat { .. }
        | ModelError::Corrupt { .. } => true,
        ModelError::Linalg(l) => matches!(
            l,
            L::NonFinite { .. }
                | L::Shape { .. }
                | L::Empty { .. }
                | L::InvalidLambda { .. }
                | L::ForgetNotPositiveDefinite { .. }
        ),
        _ => false,
    }
}

/// The exception for `e`: `ValueError`, `RuntimeError` or `OSError`, with
/// the library's message.
pub fn to_py(e: ModelError) -> PyErr {
    let message = e.to_string();
    if matches!(e, ModelError::Io { .. }) {
        PyOSError::new_err(message)
    } else if is_input_error(&e) {
        PyValueError::new_err(message)
    } else {
        PyRuntimeError::new_err(message)
    }
}

/// A `ValueError` with `message` (for the checks made here, before the
/// library is called).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
