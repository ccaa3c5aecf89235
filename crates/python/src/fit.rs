//! One function per model: the estimators' parameters become the library's
//! validated parameters ([`models::ParamGuard::check`]), the library fits,
//! and a [`Model`] comes back with a dict of what the fit reports.
//!
//! Samples `x` (K×N) and targets `y` (K×M) are float64 numpy arrays
//! borrowed without a copy; a classifier passes one-hot targets and
//! `classification=True` (which selects the classification error as the
//! selection criterion). The GIL is released while the library works.

use std::time::{Duration, Instant};

use models::dfnn::{B2ld, Bias, DfnnParams, DfnnTrainer, FullLbfgs, Incremental, IncrementalKind};
use models::mlp::{BplsAlgorithm, BplsParams, OutputActivation};
use models::{
    BlsParams, BlsValidParams, Dataset, ElmParams, ElmValidParams, Fit, IncrementalBls, IncrementalElm, InputScale,
    OnlineFit, ParamGuard, SlfnParams,
};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{to_py, value_error};
use crate::model::{Model, State};
use crate::select::{report_dict, RidgeFit, Selection, SelectionArgs};
use crate::threads;

/// A model and the dict of its fit's report.
type Fitted<'py> = (Model, Bound<'py, PyDict>);

/// `name` parsed by the library's `FromStr`, as a `ValueError` on failure.
pub(crate) fn parse<T>(name: &str) -> PyResult<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    name.parse::<T>().map_err(|e| value_error(e.to_string()))
}

/// Fit an extreme learning machine (Zhu & Wei's, Huang's): `n_hidden`
/// random nodes of `activation`, output weights by `solver` (`ridge`,
/// `lstsq`, or an incremental strategy such as `chol2`) with `λ = alpha`,
/// the hidden layer from `random_state`. With `growable=True` the model
/// keeps its incremental solver (`ridge` grows by D-Rdg) for `add_nodes`. With
/// `select_lambda` (`loo`, `kfold:K`, `val:FRAC`) λ is chosen on
/// `lambda_grid = (lo, hi, n)` (and the size among `select_sizes` by
/// k-fold or a validation part); with `grow_until_val` the network grows
/// from `grow_step` nodes by `max(grow_step, 10% of the size)` up to `max_hidden`
/// (default `n_hidden`) until the error on a held-out `val_fraction` has
/// not improved for `patience` steps. With `sample_weight` (one weight ≥ 0
/// per sample) the output weights are the weighted ridge solution
/// (`ElmValidParams::fit_weighted`); it is refused beside `growable`,
/// `select_lambda` and `grow_until_val`, which do not take weights yet.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_hidden, activation, alpha, solver, random_state, classification = false,
    growable = false, select_lambda = None, lambda_grid = None, select_sizes = None, grow_until_val = false,
    grow_step = None, patience = None, max_hidden = None, val_fraction = None, n_jobs = None,
    sample_weight = None, weight_scale = "unit-variance", select_scales = None, growth = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_elm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    n_hidden: usize,
    activation: &str,
    alpha: f64,
    solver: &str,
    random_state: u64,
    classification: bool,
    growable: bool,
    select_lambda: Option<&str>,
    lambda_grid: Option<(f64, f64, usize)>,
    select_sizes: Option<Vec<usize>>,
    grow_until_val: bool,
    grow_step: Option<usize>,
    patience: Option<usize>,
    max_hidden: Option<usize>,
    val_fraction: Option<f64>,
    n_jobs: Option<i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    weight_scale: &str,
    select_scales: Option<Vec<String>>,
    growth: Option<f64>,
) -> PyResult<Fitted<'py>> {
    let input_scale: InputScale = parse(weight_scale)?;
    let params = |nodes: usize| -> PyResult<ElmValidParams> {
        ElmParams::new(nodes, parse(activation)?)
            .with_lambda(alpha)
            .with_solver(parse(solver)?)
            .with_seed(random_state)
            .with_input_scale(input_scale)
            .check()
            .map_err(to_py)
    };
    let sel = Selection::new(SelectionArgs {
        select_lambda,
        lambda_grid,
        select_sizes,
        select_scales,
        grow_until_val,
        grow_step,
        growth,
        patience,
        max_hidden,
        val_fraction,
        classification,
    })?;
    if growable && sel.any() {
        return Err(value_error(
            "growable=True keeps one fit's solver: it excludes select_lambda and grow_until_val",
        ));
    }
    let start = match &sel.grow {
        Some(g) => params(g.step().min(max_hidden.unwrap_or(n_hidden)))?,
        None => params(n_hidden)?,
    };
    if sample_weight.is_some() && (growable || sel.any()) {
        return Err(value_error(
            "sample_weight is taken by the plain fit only: not with growable, select_lambda or grow_until_val",
        ));
    }
    let (x, y) = (x.as_array(), y.as_array());
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let fit = py
        .detach(|| -> models::Result<RidgeFit> {
            let data = Dataset::new(x, y);
            if let Some(w) = weights {
                return Ok(RidgeFit::Plain(State::Elm(start.fit_weighted(&data, w)?)));
            }
            if sel.any() {
                let params = |nodes: usize| ElmParams::from(start).with_nodes(nodes).check();
                return sel.fit_elm(&params, n_hidden, x, y, random_state);
            }
            if growable {
                return Ok(RidgeFit::Plain(State::GrowingElm(Box::new(IncrementalElm::start(
                    &start, &data,
                )?))));
            }
            Ok(RidgeFit::Plain(State::Elm(start.fit(&data)?)))
        })
        .map_err(to_py)?;
    report_dict(py, fit, started.elapsed().as_secs_f64())
}

/// The BLS's validated parameters.
pub(crate) fn bls_params(
    (feature_groups, feature_nodes, enhancement_nodes): (usize, usize, usize),
    alpha: f64,
    strategy: &str,
    random_state: u64,
    shrink: f64,
) -> PyResult<BlsValidParams> {
    BlsParams::new(feature_groups, feature_nodes, enhancement_nodes)
        .with_lambda(alpha)
        .with_strategy(parse(strategy)?)
        .with_seed(random_state)
        .with_shrink(shrink)
        .check()
        .map_err(to_py)
}

/// Fit a broad learning system (Chen & Liu's, with Zhu et al.'s ridge
/// solutions): `feature_groups` groups of `feature_nodes` sparse-autoencoder
/// feature nodes, `enhancement_nodes` enhancement nodes, output weights by
/// the incremental `strategy` with `λ = alpha`, maps from `random_state`.
/// With `growable=True` the model keeps its solver and data for
/// `add_nodes` (enhancement nodes). Selection options as for the ELM
/// (sizes: all nodes; growth from the BLS's size up to `max_hidden`,
/// default that size + 100 steps). With `sample_weight` (one weight ≥ 0 per
/// sample): `BlsValidParams::fit_weighted`, refused beside `growable`,
/// `select_lambda` and `grow_until_val`.
#[pyfunction]
#[pyo3(signature = (x, y, *, feature_groups, feature_nodes, enhancement_nodes, alpha, strategy, random_state,
    classification = false, growable = false, select_lambda = None, lambda_grid = None, select_sizes = None,
    grow_until_val = false, grow_step = None, patience = None, max_hidden = None, val_fraction = None,
    n_jobs = None, sample_weight = None, weight_scale = 0.8, select_scales = None, growth = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_bls<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    feature_groups: usize,
    feature_nodes: usize,
    enhancement_nodes: usize,
    alpha: f64,
    strategy: &str,
    random_state: u64,
    classification: bool,
    growable: bool,
    select_lambda: Option<&str>,
    lambda_grid: Option<(f64, f64, usize)>,
    select_sizes: Option<Vec<usize>>,
    grow_until_val: bool,
    grow_step: Option<usize>,
    patience: Option<usize>,
    max_hidden: Option<usize>,
    val_fraction: Option<f64>,
    n_jobs: Option<i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    weight_scale: f64,
    select_scales: Option<Vec<String>>,
    growth: Option<f64>,
) -> PyResult<Fitted<'py>> {
    let params = bls_params(
        (feature_groups, feature_nodes, enhancement_nodes),
        alpha,
        strategy,
        random_state,
        weight_scale,
    )?;
    let sel = Selection::new(SelectionArgs {
        select_lambda,
        lambda_grid,
        select_sizes,
        select_scales,
        grow_until_val,
        grow_step,
        growth,
        patience,
        max_hidden,
        val_fraction,
        classification,
    })?;
    if growable && sel.any() {
        return Err(value_error(
            "growable=True keeps one fit's solver: it excludes select_lambda and grow_until_val",
        ));
    }
    if sample_weight.is_some() && (growable || sel.any()) {
        return Err(value_error(
            "sample_weight is taken by the plain fit only: not with growable, select_lambda or grow_until_val",
        ));
    }
    let (x, y) = (x.as_array(), y.as_array());
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let fit = py
        .detach(|| -> models::Result<RidgeFit> {
            let data = Dataset::new(x, y);
            if let Some(w) = weights {
                return Ok(RidgeFit::Plain(State::Bls(params.fit_weighted(&data, w)?)));
            }
            if sel.any() {
                return sel.fit_bls(params, x, y, random_state);
            }
            let bls = IncrementalBls::start(&params, x.to_owned(), y.to_owned())?;
            Ok(RidgeFit::Plain(if growable {
                State::GrowingBls(Box::new(bls))
            } else {
                State::Bls(bls.into_bls())
            }))
        })
        .map_err(to_py)?;
    report_dict(py, fit, started.elapsed().as_secs_f64())
}

/// Start a row-updated fit (`partial_fit`'s first call) of an ELM
/// (`kind="elm"`, parameters `n_hidden`, `activation`, `alpha`,
/// `random_state`) or a BLS (`kind="bls"`, `feature_groups`,
/// `feature_nodes`, `enhancement_nodes`, `alpha`, `random_state`): the
/// network is fitted on these rows by a ridge solve, and keeps the sums of
/// its rows so that `Model.partial_fit` adds rows and `Model.forget`
/// removes them (λ must be > 0).
#[pyfunction]
#[pyo3(signature = (x, y, *, kind, n_hidden = 0, activation = "sigmoid", feature_groups = 0, feature_nodes = 0,
    enhancement_nodes = 0, alpha, random_state, n_jobs = None, sample_weight = None, weight_scale = None))]
#[allow(clippy::too_many_arguments)]
pub fn partial_fit_start<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    kind: &str,
    n_hidden: usize,
    activation: &str,
    feature_groups: usize,
    feature_nodes: usize,
    enhancement_nodes: usize,
    alpha: f64,
    random_state: u64,
    n_jobs: Option<i64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    weight_scale: Option<&str>,
) -> PyResult<Model> {
    let (x, y) = (x.as_array(), y.as_array());
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let state = match kind {
        "elm" => {
            let scale = match weight_scale {
                Some(s) => parse(s)?,
                None => ElmParams::DEFAULT_INPUT_SCALE,
            };
            let params = ElmParams::new(n_hidden, parse(activation)?)
                .with_lambda(alpha)
                .with_seed(random_state)
                .with_input_scale(scale)
                .check()
                .map_err(to_py)?;
            py.detach(|| -> models::Result<State> {
                let data = Dataset::new(x, y);
                let online = match weights {
                    None => OnlineFit::new(params.fit(&data)?, [Ok((x.to_owned(), y.to_owned()))])?,
                    Some(w) => OnlineFit::new_weighted(params.fit_weighted(&data, w)?, x, y, w)?,
                };
                Ok(State::OnlineElm(Box::new(online)))
            })
        }
        "bls" => {
            let shrink = match weight_scale {
                Some(s) => s
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| value_error(format!("weight_scale = {s}: the BLS's shrink scale is a number > 0")))?,
                None => BlsParams::DEFAULT_SHRINK,
            };
            let params = bls_params(
                (feature_groups, feature_nodes, enhancement_nodes),
                alpha,
                BlsParams::DEFAULT_STRATEGY.cli_name(),
                random_state,
                shrink,
            )?;
            py.detach(|| -> models::Result<State> {
                let online = match weights {
                    None => {
                        let bls = IncrementalBls::start(&params, x.to_owned(), y.to_owned())?.into_bls();
                        OnlineFit::new(bls, [Ok((x.to_owned(), y.to_owned()))])?
                    }
                    Some(w) => OnlineFit::new_weighted(params.fit_weighted(&Dataset::new(x, y), w)?, x, y, w)?,
                };
                Ok(State::OnlineBls(Box::new(online)))
            })
        }
        other => {
            return Err(value_error(format!(
                "partial_fit_start: unknown kind `{other}` (elm or bls)"
            )))
        }
    }
    .map_err(to_py)?;
    Ok(Model::new(state))
}

/// Fit Grippo, Manno & Sciandrone's single-hidden-layer network:
/// `n_hidden` sigmoid neurons trained by `trainer` (`dec` = DEC(10),
/// `dec:K`, `lbfgs` = lbfgs(1000), `lbfgs:K`, `elm`), with the
/// regularization `tau_lambda` (and `tau_w`, default the paper's rule),
/// starting weights from `random_state`; `tol`, if given, stops DEC after
/// a major iteration that decreased the objective `E` by at most
/// `tol·max{E, 1}` ([`SlfnParams::with_relative_decrease`]).
#[pyfunction]
#[pyo3(signature = (x, y, *, n_hidden, trainer, tau_lambda, tau_w = None, tol = None, random_state, n_jobs = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_slfn<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    n_hidden: usize,
    trainer: &str,
    tau_lambda: f64,
    tau_w: Option<f64>,
    tol: Option<f64>,
    random_state: u64,
    n_jobs: Option<i64>,
) -> PyResult<Fitted<'py>> {
    let mut p = SlfnParams::new(n_hidden)
        .with_trainer(parse(trainer)?)
        .with_tau_lambda(tau_lambda)
        .with_seed(random_state);
    if let Some(t) = tau_w {
        p = p.with_tau_w(t);
    }
    if let Some(t) = tol {
        p = p.with_relative_decrease(t);
    }
    let params = p.check().map_err(to_py)?;
    let (x, y) = (x.as_array(), y.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let (net, report) = py
        .detach(|| params.fit_with_report(&Dataset::new(x, y), |_| {}))
        .map_err(to_py)?;
    let info = PyDict::new(py);
    info.set_item("seconds", started.elapsed().as_secs_f64())?;
    info.set_item("trainer", params.trainer().to_string())?;
    info.set_item("iterations", report.iterations)?;
    info.set_item("report", format!("{report:?}"))?;
    Ok((Model::new(State::Slfn(net)), info))
}

/// Fit Palagi & Seccia's deep network: sigmoid hidden layers of
/// `hidden_layer_sizes`, a linear output, objective (3) with `ρ = rho`
/// (default the paper's `10⁻³/weights`), trained by `trainer` (`b2ld`,
/// `lbfgs`, `bling`, `ig`) with its stopping rules (`time_limit` seconds;
/// `max_epochs` and `batch_size` for bling and ig; `max_cycles`, and
/// `cycle_tolerance` over `cycle_window` cycles ([`B2ld::cycle_tolerance`],
/// default the library's), for b2ld); biases in every layer unless `bias=False`; starting weights
/// uniform on `[−init_scale, init_scale]` from `random_state`.
#[pyfunction]
#[pyo3(signature = (x, y, *, hidden_layer_sizes, trainer, rho = None, bias = true, time_limit = None,
    batch_size, max_epochs, max_cycles, cycle_tolerance = None, cycle_window = None, init_scale, random_state,
    n_jobs = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_dfnn<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    hidden_layer_sizes: Vec<usize>,
    trainer: &str,
    rho: Option<f64>,
    bias: bool,
    time_limit: Option<f64>,
    batch_size: usize,
    max_epochs: usize,
    max_cycles: usize,
    cycle_tolerance: Option<f64>,
    cycle_window: Option<usize>,
    init_scale: f64,
    random_state: u64,
    n_jobs: Option<i64>,
) -> PyResult<Fitted<'py>> {
    let time_limit = match time_limit {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => {
            return Err(value_error(format!(
                "time_limit = {s} is not admissible: seconds, finite and > 0"
            )))
        }
    };
    let trainer = match trainer.to_ascii_lowercase().as_str() {
        "b2ld" => {
            let d = B2ld::default();
            DfnnTrainer::B2ld(B2ld {
                time_limit,
                max_cycles,
                cycle_tolerance: cycle_tolerance.unwrap_or(d.cycle_tolerance),
                cycle_window: cycle_window.unwrap_or(d.cycle_window),
                ..d
            })
        }
        "lbfgs" => DfnnTrainer::Lbfgs(FullLbfgs {
            time_limit,
            ..FullLbfgs::default()
        }),
        name @ ("bling" | "ig") => {
            let kind = if name == "bling" {
                IncrementalKind::Bling
            } else {
                IncrementalKind::Ig
            };
            let mut inc = Incremental::new(kind);
            inc.time_limit = time_limit;
            inc.batch_size = batch_size;
            inc.max_epochs = max_epochs;
            // The fixed random order of the rows comes from the seed, as on
            // the command line.
            inc.shuffle = Some(random_state);
            DfnnTrainer::Incremental(inc)
        }
        other => {
            return Err(value_error(format!(
                "trainer = {other} is not admissible: b2ld, lbfgs, bling or ig"
            )))
        }
    };
    let bias = if bias { Bias::Every } else { Bias::None };
    let params = DfnnParams::new(&hidden_layer_sizes)
        .with_bias(bias)
        .with_trainer(trainer)
        .with_seed(random_state)
        .with_init_scale(init_scale);
    let params = match rho {
        Some(r) => params.with_rho(r),
        None => params,
    }
    .check()
    .map_err(to_py)?;
    let (x, y) = (x.as_array(), y.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let (net, report) = py
        .detach(|| params.fit_with_report(&Dataset::new(x, y), |_| std::ops::ControlFlow::Continue(())))
        .map_err(to_py)?;
    let rho = params.rho_for(&net);
    let info = PyDict::new(py);
    info.set_item("trainer", report.trainer)?;
    info.set_item("rho", rho)?;
    info.set_item("objective", report.objective)?;
    info.set_item("gradient_norm", report.gradient_norm)?;
    info.set_item("iterations", report.iterations)?;
    info.set_item("termination", report.termination.to_string())?;
    info.set_item("train_seconds", report.seconds)?;
    info.set_item("seconds", started.elapsed().as_secs_f64())?;
    Ok((Model::new(State::Dfnn(net)), info))
}

/// Fit Tomic et al.'s network by BPLS: hidden layers of
/// `hidden_layer_sizes` with `activation` (sigmoid, tanh or linear: it
/// must be invertible), the `output` activation (linear, sigmoid, softmax),
/// every layer one ridge solve with `λ = alpha`; `algorithm` 1 (one
/// backward pass) or 2 (then up to `max_iterations` passes on the
/// misclassified samples); starting weights uniform on
/// `[−init_scale, init_scale)` from `random_state`.
#[pyfunction]
#[pyo3(signature = (x, y, *, hidden_layer_sizes, activation, output, algorithm, max_iterations, alpha,
    target_ridge, clip, init_scale, random_state, n_jobs = None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_bpls<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    hidden_layer_sizes: Vec<usize>,
    activation: &str,
    output: &str,
    algorithm: u8,
    max_iterations: usize,
    alpha: f64,
    target_ridge: f64,
    clip: f64,
    init_scale: f64,
    random_state: u64,
    n_jobs: Option<i64>,
) -> PyResult<Fitted<'py>> {
    let algorithm = match algorithm {
        1 => BplsAlgorithm::Injective,
        2 => BplsAlgorithm::NonInjective { max_iterations },
        other => {
            return Err(value_error(format!(
                "algorithm = {other} is not admissible: 1 (one backward pass) or 2 (passes on the misses)"
            )))
        }
    };
    let params = BplsParams::new(hidden_layer_sizes)
        .with_hidden_activation(parse::<models::mlp::HiddenActivation>(activation)?)
        .with_output(parse::<OutputActivation>(output)?)
        .with_algorithm(algorithm)
        .with_lambda(alpha)
        .with_target_ridge(target_ridge)
        .with_clip(clip)
        .with_init_scale(init_scale)
        .with_seed(random_state)
        .check()
        .map_err(to_py)?;
    let (x, y) = (x.as_array(), y.as_array());
    let _threads = threads::scoped(n_jobs)?;
    let started = Instant::now();
    let (net, report) = py
        .detach(|| params.fit_with_report(&Dataset::new(x, y), |_, _| {}))
        .map_err(to_py)?;
    let info = PyDict::new(py);
    info.set_item("seconds", started.elapsed().as_secs_f64())?;
    info.set_item("epochs", report.epochs.len())?;
    info.set_item("best_epoch", report.best_epoch)?;
    info.set_item("algorithm", algorithm.to_string())?;
    Ok((Model::new(State::Mlp(net)), info))
}
