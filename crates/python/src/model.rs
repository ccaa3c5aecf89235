//! The fitted model as a Python object: [`Model`].

use std::sync::{Mutex, MutexGuard, TryLockError};

use models::dfnn::Dfnn;
use models::{Bls, Csr, Elm, IncrementalBls, IncrementalElm, Mlp, OnlineFit, Persist, Predict, Slfn};
use ndarray::{Array1, Array2, ArrayView2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use nn_data::onnx::{export as onnx_export, ExportParts, OnnxFloat};
use nn_data::pipeline::FittedModel;
use nn_data::ClassLabels;

use crate::errors::{to_py, value_error};
use crate::threads;

/// What a [`Model`] holds: a fitted network, or one kept for growth
/// (`growable=True`: the solver and the training data stay, so nodes can be
/// added) or for row updates (started by `partial_fit`: the sums of its
/// rows stay, so rows can be added and forgotten).
pub enum State {
    /// An extreme learning machine.
    Elm(Elm),
    /// A broad learning system.
    Bls(Bls),
    /// Grippo et al.'s single-hidden-layer network.
    Slfn(Slfn),
    /// Palagi & Seccia's deep network.
    Dfnn(Dfnn),
    /// Tomic et al.'s network (BPLS).
    Mlp(Mlp),
    /// An ELM that can grow by nodes.
    GrowingElm(Box<IncrementalElm>),
    /// A BLS that can grow by enhancement nodes.
    GrowingBls(Box<IncrementalBls>),
    /// An ELM updated by rows.
    OnlineElm(Box<OnlineFit<Elm>>),
    /// A BLS updated by rows.
    OnlineBls(Box<OnlineFit<Bls>>),
}

impl State {
    fn predict(&self, x: ArrayView2<'_, f64>) -> models::Result<Array2<f64>> {
        match self {
            State::Elm(m) => m.predict(x),
            State::Bls(m) => m.predict(x),
            State::Slfn(m) => m.predict(x),
            State::Dfnn(m) => m.predict(x),
            State::Mlp(m) => m.predict(x),
            // As the fitted network (weights copied row-major): the same
            // bits as the pickled model's predictions.
            State::GrowingElm(m) => m.to_elm().predict(x),
            State::GrowingBls(m) => m.to_bls().predict(x),
            State::OnlineElm(m) => m.model().predict(x),
            State::OnlineBls(m) => m.model().predict(x),
        }
    }

    /// The outputs for sparse samples: the ELM's and the BLS's (a growing
    /// model as the network it is now); `ValueError` for the other models.
    fn predict_sparse(&self, x: &Csr) -> models::Result<Array2<f64>> {
        match self {
            State::Elm(m) => m.predict(x),
            State::Bls(m) => m.predict(x),
            State::GrowingElm(m) => m.to_elm().predict(x),
            State::GrowingBls(m) => m.to_bls().predict(x),
            State::OnlineElm(m) => m.model().predict(x),
            State::OnlineBls(m) => m.model().predict(x),
            other => Err(sparse_refused(other.kind())),
        }
    }

    /// The hidden outputs for sparse samples (ELM and BLS).
    fn hidden_outputs_sparse(&self, x: &Csr) -> models::Result<Array2<f64>> {
        match self {
            State::Elm(m) => m.hidden_outputs(x),
            State::Bls(m) => m.hidden_outputs(x),
            State::GrowingElm(m) => m.hidden().outputs(x),
            State::GrowingBls(m) => m.to_bls().hidden_outputs(x),
            State::OnlineElm(m) => m.model().hidden_outputs(x),
            State::OnlineBls(m) => m.model().hidden_outputs(x),
            other => Err(sparse_refused(other.kind())),
        }
    }

    fn n_inputs(&self) -> usize {
        match self {
            State::Elm(m) => m.n_inputs(),
            State::Bls(m) => m.n_inputs(),
            State::Slfn(m) => Predict::n_inputs(m),
            State::Dfnn(m) => m.n_inputs(),
            State::Mlp(m) => m.n_inputs(),
            State::GrowingElm(m) => m.n_inputs(),
            State::GrowingBls(m) => m.n_inputs(),
            State::OnlineElm(m) => m.model().n_inputs(),
            State::OnlineBls(m) => m.model().n_inputs(),
        }
    }

    fn n_outputs(&self) -> usize {
        match self {
            State::Elm(m) => m.n_outputs(),
            State::Bls(m) => m.n_outputs(),
            State::Slfn(m) => Predict::n_outputs(m),
            State::Dfnn(m) => m.n_outputs(),
            State::Mlp(m) => m.n_outputs(),
            State::GrowingElm(m) => m.n_outputs(),
            State::GrowingBls(m) => m.n_outputs(),
            State::OnlineElm(m) => m.model().n_outputs(),
            State::OnlineBls(m) => m.model().n_outputs(),
        }
    }

    /// `elm`, `bls`, `slfn`, `dfnn` or `bpls`.
    fn kind(&self) -> &'static str {
        match self {
            State::Elm(_) | State::GrowingElm(_) | State::OnlineElm(_) => "elm",
            State::Bls(_) | State::GrowingBls(_) | State::OnlineBls(_) => "bls",
            State::Slfn(_) => "slfn",
            State::Dfnn(_) => "dfnn",
            State::Mlp(_) => "bpls",
        }
    }

    /// Hidden nodes of an ELM or a BLS (all its nodes), else `None`.
    fn nodes(&self) -> Option<usize> {
        use models::LinearReadout;
        match self {
            State::Elm(m) => Some(m.nodes()),
            State::Bls(m) => Some(LinearReadout::nodes(m)),
            State::GrowingElm(m) => Some(m.nodes()),
            State::GrowingBls(m) => Some(m.nodes()),
            State::OnlineElm(m) => Some(m.model().nodes()),
            State::OnlineBls(m) => Some(LinearReadout::nodes(m.model())),
            State::Slfn(_) | State::Dfnn(_) | State::Mlp(_) => None,
        }
    }

    /// The bytes of the model's versioned envelope ([`Persist::to_bytes`]);
    /// a growing model is saved as the fitted network it is now.
    fn to_bytes(&self) -> models::Result<Vec<u8>> {
        match self {
            State::Elm(m) => m.to_bytes(),
            State::Bls(m) => m.to_bytes(),
            State::Slfn(m) => m.to_bytes(),
            State::Dfnn(m) => m.to_bytes(),
            State::Mlp(m) => m.to_bytes(),
            State::GrowingElm(m) => m.to_elm().to_bytes(),
            State::GrowingBls(m) => m.to_bls().to_bytes(),
            State::OnlineElm(m) => m.to_bytes(),
            State::OnlineBls(m) => m.to_bytes(),
        }
    }

    /// The fitted network as the data layer's [`FittedModel`] (a growing
    /// model as the network it is now), for the ONNX export.
    fn to_fitted(&self) -> FittedModel {
        match self {
            State::Elm(m) => FittedModel::Elm(m.clone()),
            State::Bls(m) => FittedModel::Bls(m.clone()),
            State::Slfn(m) => FittedModel::Slfn(m.clone()),
            State::Dfnn(m) => FittedModel::Dfnn(m.clone()),
            State::Mlp(m) => FittedModel::Mlp(m.clone()),
            State::GrowingElm(m) => FittedModel::Elm(m.to_elm()),
            State::GrowingBls(m) => FittedModel::Bls(m.to_bls()),
            State::OnlineElm(m) => FittedModel::OnlineElm((**m).clone()),
            State::OnlineBls(m) => FittedModel::OnlineBls((**m).clone()),
        }
    }

    /// A model from [`to_bytes`](Self::to_bytes)' bytes, by their magic.
    fn from_bytes(bytes: &[u8]) -> models::Result<Self> {
        let magic: Option<[u8; 8]> = bytes.get(..8).and_then(|m| m.try_into().ok());
        match magic {
            Some(m) if m == Elm::MAGIC => Elm::from_bytes(bytes).map(State::Elm),
            Some(m) if m == Bls::MAGIC => Bls::from_bytes(bytes).map(State::Bls),
            Some(m) if m == Slfn::MAGIC => Slfn::from_bytes(bytes).map(State::Slfn),
            Some(m) if m == Dfnn::MAGIC => Dfnn::from_bytes(bytes).map(State::Dfnn),
            Some(m) if m == Mlp::MAGIC => Mlp::from_bytes(bytes).map(State::Mlp),
            Some(m) if m == <OnlineFit<Elm>>::MAGIC => {
                <OnlineFit<Elm>>::from_bytes(bytes).map(|o| State::OnlineElm(Box::new(o)))
            }
            Some(m) if m == <OnlineFit<Bls>>::MAGIC => {
                <OnlineFit<Bls>>::from_bytes(bytes).map(|o| State::OnlineBls(Box::new(o)))
            }
            // Let the envelope name what it found.
            _ => Elm::from_bytes(bytes).map(State::Elm),
        }
    }
}

/// A fitted network of `decomp_nn`, made by the `fit_*` functions and
/// pickled through its model file's bytes (the same bytes as the Rust
/// library's `save`).
#[pyclass(module = "decomp_nn._core", name = "Model")]
pub struct Model {
    state: Mutex<State>,
}

impl Model {
    /// A model holding `state`.
    pub fn new(state: State) -> Self {
        Self {
            state: Mutex::new(state),
        }
    }

    /// The state, or `RuntimeError` when another thread is using this model
    /// (waiting here, holding the GIL, could deadlock with that thread).
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "this model is in use by another thread (fit, predict or update): use one model per thread",
            )),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        }
    }
}

/// What a row update does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// `partial_fit`.
    Add,
    /// `forget`.
    Forget,
}

impl Model {
    /// Add or forget the rows `x`, `y` of a model started by `partial_fit`.
    fn update<'py>(
        &self,
        py: Python<'py>,
        (x, y): (PyReadonlyArray2<'py, f64>, PyReadonlyArray2<'py, f64>),
        weights: Option<PyReadonlyArray1<'py, f64>>,
        n_jobs: Option<i64>,
        rows: Rows,
    ) -> PyResult<()> {
        let mut guard = self.lock()?;
        let (x, y) = (x.as_array(), y.as_array());
        let w = weights.as_ref().map(|w| w.as_array());
        let _threads = threads::scoped(n_jobs)?;
        let result = match (&mut *guard, rows, w) {
            (State::OnlineElm(m), Rows::Add, None) => py.detach(|| m.partial_fit(x, y)),
            (State::OnlineElm(m), Rows::Add, Some(w)) => py.detach(|| m.partial_fit_weighted(x, y, w)),
            (State::OnlineElm(m), Rows::Forget, None) => py.detach(|| m.forget(x, y)),
            (State::OnlineElm(m), Rows::Forget, Some(w)) => py.detach(|| m.forget_weighted(x, y, w)),
            (State::OnlineBls(m), Rows::Add, None) => py.detach(|| m.partial_fit(x, y)),
            (State::OnlineBls(m), Rows::Add, Some(w)) => py.detach(|| m.partial_fit_weighted(x, y, w)),
            (State::OnlineBls(m), Rows::Forget, None) => py.detach(|| m.forget(x, y)),
            (State::OnlineBls(m), Rows::Forget, Some(w)) => py.detach(|| m.forget_weighted(x, y, w)),
            (other, Rows::Add, _) => {
                return Err(value_error(format!(
                    "partial_fit continues only a model that partial_fit started; this {} was fitted by fit \
                     (call partial_fit on a fresh estimator, or fit again)",
                    other.kind()
                )))
            }
            (other, Rows::Forget, _) => {
                return Err(value_error(format!(
                    "forget needs a model started by partial_fit (it keeps the sums of its rows); this {} was \
                     fitted by fit",
                    other.kind()
                )))
            }
        };
        result.map_err(to_py)
    }
}

impl Model {
    /// `work` on the model's state and the sparse samples of the CSR parts
    /// `parts` ([`crate::sparse::csr`]), within `n_jobs` threads and with
    /// the GIL released: what the `*_sparse` methods share.
    fn on_sparse<T: Send>(
        &self,
        py: Python<'_>,
        parts: crate::sparse::CsrParts<'_, '_>,
        n_jobs: Option<i64>,
        work: impl FnOnce(&mut State, &Csr) -> models::Result<T> + Send,
    ) -> PyResult<T> {
        let x = crate::sparse::csr(parts)?;
        let mut guard = self.lock()?;
        let state: &mut State = &mut guard;
        let _threads = threads::scoped(n_jobs)?;
        py.detach(move || work(state, &x)).map_err(to_py)
    }
}

/// Class indices as numpy's int64.
fn class_array(classes: Vec<usize>) -> Array1<i64> {
    classes
        .into_iter()
        .map(|c| i64::try_from(c).unwrap_or(i64::MAX))
        .collect()
}

/// The error for sparse samples given to a model that takes dense ones only.
fn sparse_refused(kind: &str) -> models::ModelError {
    models::ModelError::InvalidParameter {
        name: "X",
        value: format!("a sparse matrix for the {kind}"),
        reason: "sparse samples are taken by the ELM and the BLS only: pass a dense array (X.toarray())",
    }
}

/// The column of the largest entry of each row (ties to the first; NaN
/// never wins: [`linalg_core::argmax`]): the class of one-hot targets or of
/// a classifier's outputs.
pub fn argmax_rows(y: ArrayView2<'_, f64>) -> Vec<usize> {
    y.rows()
        .into_iter()
        .map(|row| linalg_core::argmax(row.iter().copied()))
        .collect()
}

#[pymethods]
impl Model {
    /// The model as an ONNX graph (`ModelProto` bytes, [`nn_data::onnx`]):
    /// input `X` (the samples as the model takes them), output `Y` for a
    /// regressor, or `scores` and `label` for a classifier given its
    /// `labels` (a list of ints or of strings, one per output); float64, or
    /// float32 with `float32=True`.
    #[pyo3(signature = (labels = None, float32 = false))]
    fn to_onnx<'py>(
        &self,
        py: Python<'py>,
        labels: Option<&Bound<'py, PyAny>>,
        float32: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let labels =
            match labels {
                None => None,
                Some(l) => Some(match l.extract::<Vec<i64>>() {
                    Ok(ints) => ClassLabels::Integers(ints),
                    Err(_) => ClassLabels::Text(l.extract::<Vec<String>>().map_err(|_| {
                        value_error("labels must be a list of ints or a list of strings (one per class)")
                    })?),
                }),
            };
        let model = self.lock()?.to_fitted();
        let parts = ExportParts {
            scaler: None,
            model: &model,
            target_scale: None,
            labels: labels.as_ref(),
        };
        let float = if float32 { OnnxFloat::F32 } else { OnnxFloat::F64 };
        let bytes = onnx_export(&parts, float).map_err(|e| value_error(e.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The outputs (K×M) for samples `x` (K×N, float64, any layout), with
    /// the GIL released.
    #[pyo3(signature = (x, n_jobs = None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let mut guard = self.lock()?;
        // Moved into the closure as `&mut`: sendable, as the state is `Send`.
        let state: &mut State = &mut guard;
        let x = x.as_array();
        let _threads = threads::scoped(n_jobs)?;
        let out = py.detach(move || state.predict(x)).map_err(to_py)?;
        Ok(out.into_pyarray(py))
    }

    /// [`predict`](Self::predict) for sparse samples given by their CSR
    /// parts (ELM and BLS only).
    #[pyo3(signature = (shape, indptr, indices, data, n_jobs = None))]
    fn predict_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let parts = (shape, &indptr, &indices, &data);
        let out = self.on_sparse(py, parts, n_jobs, |state, x| state.predict_sparse(x))?;
        Ok(out.into_pyarray(py))
    }

    /// [`predict_class`](Self::predict_class) for sparse samples given by
    /// their CSR parts (ELM and BLS only).
    #[pyo3(signature = (shape, indptr, indices, data, n_jobs = None))]
    fn predict_class_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let parts = (shape, &indptr, &indices, &data);
        let classes = self.on_sparse(py, parts, n_jobs, |state, x| {
            state.predict_sparse(x).map(|y| argmax_rows(y.view()))
        })?;
        Ok(class_array(classes).into_pyarray(py))
    }

    /// [`hidden_outputs`](Self::hidden_outputs) for sparse samples given by
    /// their CSR parts.
    #[pyo3(signature = (shape, indptr, indices, data, n_jobs = None))]
    fn hidden_outputs_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let parts = (shape, &indptr, &indices, &data);
        let out = self.on_sparse(py, parts, n_jobs, |state, x| state.hidden_outputs_sparse(x))?;
        Ok(out.into_pyarray(py))
    }

    /// The column of the largest output of each sample (ties to the first):
    /// the class index of a classifier.
    #[pyo3(signature = (x, n_jobs = None))]
    fn predict_class<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut guard = self.lock()?;
        let state: &mut State = &mut guard;
        let x = x.as_array();
        let _threads = threads::scoped(n_jobs)?;
        let classes = py
            .detach(move || state.predict(x).map(|y| argmax_rows(y.view())))
            .map_err(to_py)?;
        Ok(class_array(classes).into_pyarray(py))
    }

    /// The hidden outputs `A(x)` (K×l) of an ELM or a BLS (all its nodes,
    /// in the column order of its output weights): what the ridge readout
    /// is fitted on (hpelm's `project`). `ValueError` for the other models.
    #[pyo3(signature = (x, n_jobs = None))]
    fn hidden_outputs<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        use models::LinearReadout;
        let mut guard = self.lock()?;
        let state: &mut State = &mut guard;
        let x = x.as_array();
        let _threads = threads::scoped(n_jobs)?;
        let out = match state {
            State::Elm(m) => py.detach(move || m.hidden_outputs(x)),
            State::Bls(m) => py.detach(move || LinearReadout::hidden_outputs(m, x)),
            State::GrowingElm(m) => py.detach(move || m.hidden().outputs(x)),
            State::GrowingBls(m) => py.detach(move || m.hidden_outputs(x)),
            State::OnlineElm(m) => py.detach(move || m.model().hidden_outputs(x)),
            State::OnlineBls(m) => py.detach(move || LinearReadout::hidden_outputs(m.model(), x)),
            other => {
                return Err(value_error(format!(
                    "hidden_outputs is for the ELM and the BLS (a hidden layer under a ridge readout), not the {}",
                    other.kind()
                )))
            }
        }
        .map_err(to_py)?;
        Ok(out.into_pyarray(py))
    }

    /// The output weights `W` (l×M) of an ELM or a BLS.
    fn output_weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let state = self.lock()?;
        let w = match &*state {
            State::Elm(m) => m.output_weights().to_owned(),
            State::Bls(m) => m.output_weights().to_owned(),
            State::GrowingElm(m) => m.weights().to_owned(),
            State::GrowingBls(m) => m.weights().to_owned(),
            State::OnlineElm(m) => m.model().output_weights().to_owned(),
            State::OnlineBls(m) => m.model().output_weights().to_owned(),
            other => {
                return Err(value_error(format!(
                    "output_weights is for the ELM and the BLS, not the {}",
                    other.kind()
                )))
            }
        };
        Ok(w.into_pyarray(py))
    }

    /// Add `q` hidden nodes (ELM) or enhancement nodes (BLS) and update the
    /// output weights with the model's incremental strategy; only for a
    /// model fitted with `growable=True`.
    #[pyo3(signature = (q, n_jobs = None))]
    fn add_nodes(&self, py: Python<'_>, q: usize, n_jobs: Option<i64>) -> PyResult<()> {
        let mut state = self.lock()?;
        let _threads = threads::scoped(n_jobs)?;
        let state = &mut *state;
        match state {
            State::GrowingElm(m) => py.detach(|| m.add_nodes(q)).map_err(to_py),
            State::GrowingBls(m) => py.detach(|| m.add_enhancement(q).map(|_| ())).map_err(to_py),
            other => Err(value_error(format!(
                "add_nodes needs a model fitted with growable=True (an ELM with an incremental solver, or a BLS); \
                 this {} was not",
                other.kind()
            ))),
        }
    }

    /// Add the rows `x`, `y` to a model started by `partial_fit`: its output
    /// weights become the ridge solution on every row so far. With
    /// `sample_weight` each row counts `w` times (`OnlineFit::partial_fit_weighted`).
    #[pyo3(signature = (x, y, n_jobs = None, sample_weight = None))]
    fn partial_fit<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<()> {
        self.update(py, (x, y), sample_weight, n_jobs, Rows::Add)
    }

    /// Remove rows `x`, `y` (added before, with the same `sample_weight`)
    /// from a model started by `partial_fit`: its output weights become the
    /// ridge solution on the rows kept.
    #[pyo3(signature = (x, y, n_jobs = None, sample_weight = None))]
    fn forget<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray2<'py, f64>,
        n_jobs: Option<i64>,
        sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<()> {
        self.update(py, (x, y), sample_weight, n_jobs, Rows::Forget)
    }

    /// The rows a model started by `partial_fit` is fitted on now (`None`
    /// for other models).
    #[getter]
    fn rows(&self) -> PyResult<Option<usize>> {
        Ok(match &*self.lock()? {
            State::OnlineElm(m) => Some(m.rows()),
            State::OnlineBls(m) => Some(m.rows()),
            _ => None,
        })
    }

    /// Number of inputs `N`.
    #[getter]
    fn n_inputs(&self) -> PyResult<usize> {
        Ok(self.lock()?.n_inputs())
    }

    /// Number of outputs `M`.
    #[getter]
    fn n_outputs(&self) -> PyResult<usize> {
        Ok(self.lock()?.n_outputs())
    }

    /// `elm`, `bls`, `slfn`, `dfnn` or `bpls`.
    #[getter]
    fn kind(&self) -> PyResult<&'static str> {
        Ok(self.lock()?.kind())
    }

    /// Hidden nodes of an ELM or BLS (`None` for the other models).
    #[getter]
    fn nodes(&self) -> PyResult<Option<usize>> {
        Ok(self.lock()?.nodes())
    }

    /// Whether `add_nodes` applies (fitted with `growable=True`).
    #[getter]
    fn growable(&self) -> PyResult<bool> {
        Ok(matches!(&*self.lock()?, State::GrowingElm(_) | State::GrowingBls(_)))
    }

    /// The model file's bytes: what the Rust library's `save` writes
    /// (magic, format version, CRC-32, the model in bincode). A growable
    /// model is written as the network it is now (the growth state is not
    /// kept); a model started by `partial_fit` with the sums of its rows.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.lock()?.to_bytes().map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// A model from [`to_bytes`](Self::to_bytes)' bytes (or a file the
    /// Rust library saved); `ValueError` for bytes that are not one.
    #[staticmethod]
    fn _from_bytes(bytes: &[u8]) -> PyResult<Self> {
        State::from_bytes(bytes).map(Model::new).map_err(to_py)
    }

    /// Pickling: `Model._from_bytes(self.to_bytes())`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_bytes = py.get_type::<Model>().getattr("_from_bytes")?;
        let bytes = self.to_bytes(py)?;
        PyTuple::new(py, [from_bytes.into_any(), PyTuple::new(py, [bytes])?.into_any()])
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.lock()?;
        Ok(format!(
            "Model(kind={:?}, n_inputs={}, n_outputs={})",
            state.kind(),
            state.n_inputs(),
            state.n_outputs()
        ))
    }
}
