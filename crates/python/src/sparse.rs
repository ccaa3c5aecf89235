//! Sparse samples from Python (issue 41, item 4): a `scipy.sparse` matrix
//! arrives as its CSR parts (shape, `indptr`, `indices`, `data`; the
//! estimators convert every sparse format to CSR with int64 indices and
//! float64 values) and becomes a [`Csr`], which the ELM's and the BLS's
//! fits and predictions take directly (`fit_samples`, `predict(&csr)`).
//!
//! Only the plain fit takes sparse samples (with or without
//! `sample_weight`); `growable`, `select_lambda`, `grow_until_val` and
//! `partial_fit` work on dense samples and are refused by the estimators
//! before they get here.

use std::time::Instant;

use models::{Csr, ElmParams, InputScale, ParamGuard};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{to_py, value_error};
use crate::model::{Model, State};
use crate::threads;

/// The CSR parts of a `scipy.sparse` matrix, borrowed from numpy.
pub type CsrParts<'a, 'py> = (
    (usize, usize),
    &'a PyReadonlyArray1<'py, i64>,
    &'a PyReadonlyArray1<'py, i64>,
    &'a PyReadonlyArray1<'py, f64>,
);

/// The [`Csr`] of the parts `shape`, `indptr`, `indices`, `data` (copied:
/// scipy's int32 or int64 indices become `usize`), checked by
/// [`Csr::try_new`]; `ValueError` for a negative pointer or index or a
/// malformed matrix.
pub fn csr((shape, indptr, indices, data): CsrParts<'_, '_>) -> PyResult<Csr> {
    let to_usize = |what: &str, v: &PyReadonlyArray1<'_, i64>| -> PyResult<Vec<usize>> {
        v.as_array()
            .iter()
            .map(|&i| usize::try_from(i).map_err(|_| value_error(format!("sparse matrix: negative {what} {i}"))))
            .collect()
    };
    let (indptr, indices) = (to_usize("row pointer", indptr)?, to_usize("column index", indices)?);
    let values = data.as_array().to_vec();
    Csr::try_new(shape.0, shape.1, indptr, indices, values).map_err(|e| to_py(e.into()))
}

/// The model and the dict of a plain fit's report (its time).
fn fitted(py: Python<'_>, state: State, seconds: f64) -> PyResult<(Model, Bound<'_, PyDict>)> {
    let info = PyDict::new(py);
    info.set_item("seconds", seconds)?;
    Ok((Model::new(state), info))
}

/// Fit an ELM to sparse samples (CSR parts, K×N) and targets `y` (K×M):
/// `ElmValidParams::fit_samples`, the hidden layer's product from the
/// stored entries only; parameters as `fit_elm`'s plain fit.
#[pyfunction]
#[pyo3(signature = (shape, indptr, indices, data, y, *, n_hidden, activation, alpha, solver, random_state,
    n_jobs = None, sample_weight = None, weight_scale = "unit-variance"))]
#[allow(clippy::too_many_arguments)]
pub fn fit_elm_sparse<'py>(
    py: Python<'py>,
    shape: (usize, usize),
    indptr: PyReadonlyArray1<'py, i64>,
    indices: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    n_hidden: usize,
    activation: &str,
    alpha: f64,
    solver: &str,
    random_state: u64,
    n_jobs: Option<i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    weight_scale: &str,
) -> PyResult<(Model, Bound<'py, PyDict>)> {
    let params = ElmParams::new(n_hidden, crate::fit::parse(activation)?)
        .with_lambda(alpha)
        .with_solver(crate::fit::parse(solver)?)
        .with_seed(random_state)
        .with_input_scale(crate::fit::parse::<InputScale>(weight_scale)?)
        .check()
        .map_err(to_py)?;
    let x = csr((shape, &indptr, &indices, &data))?;
    let y = y.as_array();
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let elm = py
        .detach(|| params.fit_samples((&x).into(), y, weights))
        .map_err(to_py)?;
    fitted(py, State::Elm(elm), started.elapsed().as_secs_f64())
}

/// Fit a BLS to sparse samples (CSR parts, K×N) and targets `y` (K×M):
/// `BlsValidParams::fit_samples`; parameters as `fit_bls`'s plain fit.
#[pyfunction]
#[pyo3(signature = (shape, indptr, indices, data, y, *, feature_groups, feature_nodes, enhancement_nodes, alpha,
    strategy, random_state, n_jobs = None, sample_weight = None, weight_scale = 0.8))]
#[allow(clippy::too_many_arguments)]
pub fn fit_bls_sparse<'py>(
    py: Python<'py>,
    shape: (usize, usize),
    indptr: PyReadonlyArray1<'py, i64>,
    indices: PyReadonlyArray1<'py, i64>,
    data: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    feature_groups: usize,
    feature_nodes: usize,
    enhancement_nodes: usize,
    alpha: f64,
    strategy: &str,
    random_state: u64,
    n_jobs: Option<i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    weight_scale: f64,
) -> PyResult<(Model, Bound<'py, PyDict>)> {
    let params = crate::fit::bls_params(
        (feature_groups, feature_nodes, enhancement_nodes),
        alpha,
        strategy,
        random_state,
        weight_scale,
    )?;
    let x = csr((shape, &indptr, &indices, &data))?;
    let y = y.as_array();
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let bls = py
        .detach(|| params.fit_samples((&x).into(), y, weights))
        .map_err(to_py)?;
    fitted(py, State::Bls(bls), started.elapsed().as_secs_f64())
}
