//! The library's defaults, for the Python estimators' signatures: the one
//! source of every default value `decomp_nn` shows (`ELMRegressor()`'s
//! `alpha` is [`models::ElmParams::DEFAULT_LAMBDA`], and so on).
//!
//! The library has no default for a network's size (its parameter types
//! require it); a scikit-learn estimator must construct without arguments,
//! so the sizes below are this package's, stated here once.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use models::dfnn::{B2ld, Incremental, IncrementalKind, INIT_SCALE as DFNN_INIT_SCALE};
use models::{BlsParams, ElmParams, SlfnParams};

/// Hidden nodes of `ELMRegressor()`/`ELMClassifier()`.
pub const ELM_NODES: usize = 100;
/// Hidden neurons of `SLFNRegressor()`/`SLFNClassifier()`: 50, chosen
/// over 20 (the earlier default) and 50 units by DEC(4) on every shipped
/// set (`benches/iterative_defaults.py`, `docs/defaults.md`).
pub const SLFN_NODES: usize = 50;
/// `SLFNRegressor()`'s `tol`: DEC's relative decrease per major iteration
/// ([`models::SlfnParams::with_relative_decrease`]); `None`, the paper's
/// DEC, runs every major iteration.
pub const SLFN_TOL: Option<f64> = None;
/// Hidden layers of `DFNNRegressor()`/`DFNNClassifier()`.
pub const DFNN_LAYERS: [usize; 2] = [50, 50];
/// Hidden layers of `BPLSRegressor()`/`BPLSClassifier()`.
pub const BPLS_LAYERS: [usize; 1] = [100];

/// `{"elm": {...}, "bls": {...}, "slfn": {...}, "dfnn": {...}, "bpls": {...}}`:
/// each estimator's parameters with the library's default values, under the
/// Python estimators' parameter names.
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let all = PyDict::new(py);

    let elm = PyDict::new(py);
    elm.set_item("n_hidden", ELM_NODES)?;
    elm.set_item("activation", ElmParams::DEFAULT_ACTIVATION.to_string())?;
    elm.set_item("alpha", ElmParams::DEFAULT_LAMBDA)?;
    elm.set_item("solver", ElmParams::DEFAULT_SOLVER.to_string())?;
    elm.set_item("random_state", ElmParams::DEFAULT_SEED)?;
    elm.set_item("weight_scale", ElmParams::DEFAULT_INPUT_SCALE.to_string())?;
    all.set_item("elm", elm)?;

    let bls = PyDict::new(py);
    bls.set_item("feature_groups", BlsParams::DEFAULT_FEATURE_GROUPS)?;
    bls.set_item("feature_nodes", BlsParams::DEFAULT_FEATURE_NODES)?;
    bls.set_item("enhancement_nodes", BlsParams::DEFAULT_ENHANCEMENT_NODES)?;
    bls.set_item("alpha", BlsParams::DEFAULT_LAMBDA)?;
    bls.set_item("strategy", BlsParams::DEFAULT_STRATEGY.cli_name())?;
    bls.set_item("random_state", BlsParams::DEFAULT_SEED)?;
    bls.set_item("weight_scale", BlsParams::DEFAULT_SHRINK)?;
    all.set_item("bls", bls)?;

    let slfn = PyDict::new(py);
    slfn.set_item("n_hidden", SLFN_NODES)?;
    slfn.set_item("trainer", trainer_name(SlfnParams::DEFAULT_TRAINER))?;
    slfn.set_item("tau_lambda", SlfnParams::DEFAULT_TAU_LAMBDA)?;
    slfn.set_item("tol", SLFN_TOL)?;
    slfn.set_item("random_state", ElmParams::DEFAULT_SEED)?;
    all.set_item("slfn", slfn)?;

    let dfnn = PyDict::new(py);
    let inc = Incremental::new(IncrementalKind::Bling);
    dfnn.set_item("hidden_layer_sizes", DFNN_LAYERS.to_vec())?;
    dfnn.set_item("trainer", "b2ld")?;
    dfnn.set_item("batch_size", inc.batch_size)?;
    dfnn.set_item("max_epochs", inc.max_epochs)?;
    dfnn.set_item("max_cycles", B2ld::default().max_cycles)?;
    dfnn.set_item("tol", B2ld::default().cycle_tolerance)?;
    dfnn.set_item("n_iter_no_change", B2ld::default().cycle_window)?;
    dfnn.set_item("init_scale", DFNN_INIT_SCALE)?;
    dfnn.set_item("random_state", ElmParams::DEFAULT_SEED)?;
    all.set_item("dfnn", dfnn)?;

    let bpls = PyDict::new(py);
    bpls.set_item("hidden_layer_sizes", BPLS_LAYERS.to_vec())?;
    bpls.set_item("activation", "sigmoid")?;
    bpls.set_item("alpha", models::mlp::DEFAULT_LAMBDA)?;
    bpls.set_item("target_ridge", models::mlp::DEFAULT_TARGET_RIDGE)?;
    bpls.set_item("clip", models::mlp::DEFAULT_CLIP)?;
    bpls.set_item("max_iterations", models::mlp::DEFAULT_MAX_ITERATIONS)?;
    bpls.set_item("init_scale", models::mlp::INIT_SCALE)?;
    bpls.set_item("random_state", ElmParams::DEFAULT_SEED)?;
    all.set_item("bpls", bpls)?;
    Ok(all)
}

/// `dec:10`, `lbfgs:1000` or `elm`: the spelling [`models::SlfnTrainer`]'s
/// `FromStr` reads back.
pub fn trainer_name(t: models::SlfnTrainer) -> String {
    match t {
        models::SlfnTrainer::Dec { maxiter } => format!("dec:{maxiter}"),
        models::SlfnTrainer::Lbfgs { iterations } => format!("lbfgs:{iterations}"),
        models::SlfnTrainer::Elm => "elm".to_string(),
    }
}
