//! # `decomp_nn._core` — the Rust side of the Python package `decomp_nn`
//!
//! The scikit-learn estimators of `decomp_nn` (`ELMRegressor`,
//! `BLSClassifier`, …, in `python/decomp_nn/`) check their inputs with
//! scikit-learn's own validation, then call the functions here; every
//! number is computed by the `models` crate, through its seam
//! ([`models::ParamGuard`] → [`models::Fit`] → [`models::Predict`],
//! [`models::Persist`]). No numerics are done in Python.
//!
//! - [`fit`]: one function per model (`fit_elm`, `fit_bls`, `fit_slfn`,
//!   `fit_dfnn`, `fit_bpls`) and the one that starts a row-updated fit
//!   (`partial_fit_start`); each returns a [`model::Model`].
//! - [`model`]: the fitted model (`predict`, `predict_class`, `add_nodes`,
//!   `partial_fit`, `forget`, pickling through the model's versioned
//!   envelope: `__reduce__` → `Model._from_bytes`).
//! - [`sparse`]: `scipy.sparse` samples as CSR parts (`fit_elm_sparse`,
//!   `fit_bls_sparse`; the model's `predict_sparse`, `predict_class_sparse`,
//!   `hidden_outputs_sparse`).
//! - [`defaults`]: the library's defaults, read by the Python estimators'
//!   signatures (one source).
//!
//! **Arrays.** Samples and targets arrive as `float64` numpy arrays,
//! borrowed without a copy whatever their layout (C or Fortran order,
//! strided); predictions go back as numpy arrays that own the Rust
//! buffer (no copy either).
//!
//! **The GIL** is released for every fit, update and prediction, so other
//! Python threads run meanwhile.
//!
//! **Errors.** A [`models::ModelError`] is raised as `ValueError` when the
//! input or a parameter is at fault (invalid parameter, shape, non-finite
//! or empty data, unreadable pickled bytes) and as `RuntimeError` when the
//! computation failed (a factorization that broke down, a trainer that
//! diverged), with the library's message unchanged ([`errors`]).
//!
//! **Threads.** `n_jobs` sets the process's one thread budget for the
//! duration of a call and restores it afterwards ([`threads`]): OpenBLAS's
//! threads, linalg-core's scoped kernels and the models' rayon loops all
//! stay within it (`linalg_core::threads::budget`); `None` leaves
//! OpenBLAS's own choice (every core, or `OPENBLAS_NUM_THREADS`).

use pyo3::prelude::*;

pub mod blas;
pub mod defaults;
pub mod errors;
pub mod fit;
pub mod model;
pub mod select;
pub mod sparse;
pub mod threads;

/// The module `decomp_nn._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<model::Model>()?;
    m.add_function(wrap_pyfunction!(fit::fit_elm, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_bls, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_slfn, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_dfnn, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit_bpls, m)?)?;
    m.add_function(wrap_pyfunction!(fit::partial_fit_start, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::fit_elm_sparse, m)?)?;
    m.add_function(wrap_pyfunction!(sparse::fit_bls_sparse, m)?)?;
    m.add_function(wrap_pyfunction!(defaults::defaults, m)?)?;
    m.add_function(wrap_pyfunction!(threads::blas_threads, m)?)?;
    m.add_function(wrap_pyfunction!(blas::blas_info, m)?)?;
    m.add_function(wrap_pyfunction!(blas::blas_kernel_for, m)?)?;
    Ok(())
}
