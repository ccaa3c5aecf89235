//! `n_jobs`: the thread budget of one call (OpenBLAS's count, which every
//! parallel site of the library follows: `linalg_core::threads::budget`).
//!
//! `None` leaves OpenBLAS's own count (every core unless
//! `OPENBLAS_NUM_THREADS` says otherwise), as the command line does without
//! `--threads`; `n ≥ 1` uses `n` threads; a negative `n` counts from the
//! cores as scikit-learn does (`-1`: every core, `-2`: all but one). The
//! count is restored when the call ends. OpenBLAS's count is global to the
//! process: two Python threads fitting at once with different `n_jobs`
//! share whichever was set last.

use pyo3::prelude::*;

use crate::errors::value_error;

/// Restores the BLAS thread count it replaced when dropped.
pub struct Scoped {
    previous: Option<usize>,
}

impl Drop for Scoped {
    fn drop(&mut self) {
        if let Some(n) = self.previous {
            linalg_core::threads::set_blas_threads(n);
        }
    }
}

/// The cores of this machine (1 if unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The thread count `n_jobs` asks for (`None`: leave it).
///
/// # Errors
/// `ValueError` for `n_jobs = 0`.
pub fn resolve(n_jobs: Option<i64>) -> PyResult<Option<usize>> {
    match n_jobs {
        None => Ok(None),
        Some(0) => Err(value_error(
            "n_jobs = 0 is not admissible: use None (OpenBLAS's default), a count ≥ 1, or -1 for every core",
        )),
        Some(n) if n > 0 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        Some(n) => {
            let back = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
            Ok(Some((cores() + 1).saturating_sub(back).max(1)))
        }
    }
}

/// Use the threads `n_jobs` asks for until the returned guard is dropped.
///
/// # Errors
/// As [`resolve`].
pub fn scoped(n_jobs: Option<i64>) -> PyResult<Scoped> {
    Ok(match resolve(n_jobs)? {
        None => Scoped { previous: None },
        Some(n) => {
            let previous = linalg_core::threads::blas_threads();
            linalg_core::threads::set_blas_threads(n);
            Scoped {
                previous: Some(previous),
            }
        }
    })
}

/// The number of threads OpenBLAS uses now.
#[pyfunction]
pub fn blas_threads() -> usize {
    linalg_core::threads::blas_threads()
}
