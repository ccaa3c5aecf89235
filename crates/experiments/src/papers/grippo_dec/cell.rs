//! One cell of the tables: one algorithm at one network size from one
//! starting point, trained, timed, evaluated, and kept on disk so that an
//! interrupted run resumes where it stopped.

use std::path::{Path, PathBuf};
use std::time::Instant;

use models::slfn::{SlfnParams, SlfnTrainer};
use models::{Dataset, ParamGuard};
use serde::{Deserialize, Serialize};

use super::protocol::{Options, Prepared};
use super::ReproError;

/// What a cell measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// The paper's data set name.
    pub dataset: String,
    /// The paper's algorithm name ("DEC(2)", "lbfgs(500)", "elm").
    pub algorithm: String,
    /// Hidden units.
    pub neurons: usize,
    /// The starting point (seed 1000 + run).
    pub run: usize,
    /// Whether it ran on the quick run's capped data.
    pub quick: bool,
    /// Training samples.
    pub n_train: usize,
    /// Training time, seconds.
    pub train_time: f64,
    /// Time to compute the outputs on the test set, seconds.
    pub test_time: f64,
    /// `%` accuracy or RMSE on the training set.
    pub train_metric: f64,
    /// The same on the test set.
    pub test_metric: f64,
    /// `E(λ, w)` at the end (eq. (5); the ELM's with `τ = 0`).
    pub objective: f64,
    /// Major iterations (DEC) or iterations (L-BFGS).
    pub iterations: usize,
    /// Evaluations (DEC: of one unit's error; L-BFGS: of `E` and `∇E`).
    pub evaluations: usize,
    /// DEC: unit steps that took L-BFGS's point, the Armijo point, no step.
    pub dec_steps: Option<[usize; 3]>,
    /// DEC: seconds spent in the unit steps (Step B and its Step A).
    pub unit_seconds: Option<f64>,
    /// Run 0 only: `(seconds, E)` after every major iteration (DEC) or
    /// iteration (L-BFGS).
    pub trace: Vec<(f64, f64)>,
    /// The ELM: the rank of `H` its least-squares cut kept.
    #[serde(default)]
    pub elm_rank: Option<usize>,
    /// The test metric on the test rows whose features do not occur in the
    /// training part ([`Prepared::unshared_test`]); `None` where no row is
    /// shared or for cells computed before it was measured.
    #[serde(default)]
    pub test_metric_unshared: Option<f64>,
}

/// The least-squares cuts the ELM rows are also run with, by name
/// ([`elm_cut`]): DGELSS's `RCOND < 0` (machine precision `ε`), then wider.
pub const ELM_CUTS: [&str; 4] = ["elm(eps)", "elm(1e-8)", "elm(1e-6)", "elm(1e-4)"];

/// The ELM's least-squares cut named by an algorithm `elm(CUT)` (`eps` for
/// `ε`); `None` for plain `elm` (the default `max(K, n)·ε`) and for every
/// other algorithm.
pub fn elm_cut(algorithm: &str) -> Option<f64> {
    let a = algorithm.replace(' ', "").to_ascii_lowercase();
    let inner = a.strip_prefix("elm(")?.strip_suffix(')')?;
    if inner == "eps" {
        Some(f64::EPSILON)
    } else {
        inner.parse().ok()
    }
}

/// The trainer of the paper's algorithm name.
///
/// # Errors
/// [`ReproError::Protocol`] for a name that is none of DEC(k), lbfgs(k),
/// elm, elm(CUT).
pub fn trainer(algorithm: &str) -> Result<SlfnTrainer, ReproError> {
    let a = algorithm.replace(' ', "").to_ascii_lowercase();
    let count = |prefix: &str| {
        a.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|n| n.parse().ok())
    };
    if let Some(maxiter) = count("dec(") {
        Ok(SlfnTrainer::Dec { maxiter })
    } else if let Some(iterations) = count("lbfgs(") {
        Ok(SlfnTrainer::Lbfgs { iterations })
    } else if a == "elm" || elm_cut(&a).is_some() {
        Ok(SlfnTrainer::Elm)
    } else {
        Err(ReproError::Protocol(format!("unknown algorithm {algorithm:?}")))
    }
}

/// The file of a cell in `dir`.
pub fn path(dir: &Path, dataset: &str, algorithm: &str, neurons: usize, run: usize, opts: &Options) -> PathBuf {
    let alg: String = algorithm
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    let q = if opts.quick { "quick-" } else { "" };
    let z = if opts.raw { "raw-" } else { "" };
    dir.join(format!("{q}{z}{dataset}-{alg}-n{neurons}-run{run}.json"))
}

/// Train and evaluate one cell.
///
/// # Errors
/// The model's errors.
pub fn run(
    prep: &Prepared,
    algorithm: &str,
    neurons: usize,
    run: usize,
    quick: bool,
) -> Result<CellResult, ReproError> {
    let params = SlfnParams::new(neurons)
        .with_trainer(trainer(algorithm)?)
        .with_seed(1000 + run as u64);
    let params = match elm_cut(algorithm) {
        Some(cut) => params.with_lstsq_cut(cut),
        None => params,
    }
    .check()?;
    let mut trace = vec![];
    let started = Instant::now();
    let (net, report) = params.fit_with_report(&Dataset::new(prep.x_train.view(), prep.y_train.view()), |p| {
        if run == 0 {
            trace.push((p.elapsed.as_secs_f64(), p.objective));
        }
    })?;
    let train_time = started.elapsed().as_secs_f64();
    let t = Instant::now();
    let phi_test = net.predict(prep.x_test.view())?;
    let test_time = t.elapsed().as_secs_f64();
    let phi_train = net.predict(prep.x_train.view())?;
    Ok(CellResult {
        dataset: prep.info.paper_name.to_string(),
        algorithm: algorithm.to_string(),
        neurons,
        run,
        quick,
        n_train: prep.x_train.nrows(),
        train_time,
        test_time,
        train_metric: prep.metric(&phi_train, &prep.truth_train),
        test_metric: prep.metric(&phi_test, &prep.truth_test),
        test_metric_unshared: prep.unshared_metric(&phi_test),
        elm_rank: report.elm_rank,
        objective: report.objective,
        iterations: report.iterations,
        evaluations: report.evaluations.gradients.max(report.evaluations.values),
        dec_steps: report
            .dec
            .as_ref()
            .map(|d| [d.lbfgs_accepted, d.armijo_taken, d.no_decrease + d.skipped]),
        unit_seconds: report.dec.as_ref().map(|d| d.unit_time.as_secs_f64()),
        trace,
    })
}

/// A cell for the report's tests: `algorithm` on `dataset` with `neurons`
/// units, run 0, the given times and metrics, everything else neutral.
#[cfg(test)]
pub(super) fn fixture(
    dataset: &str,
    algorithm: &str,
    neurons: usize,
    (train_time, test_time): (f64, f64),
    (train_metric, test_metric): (f64, f64),
) -> CellResult {
    CellResult {
        dataset: dataset.into(),
        algorithm: algorithm.into(),
        neurons,
        run: 0,
        quick: false,
        n_train: 1,
        train_time,
        test_time,
        train_metric,
        test_metric,
        objective: 1.0,
        iterations: 1,
        evaluations: 1,
        dec_steps: None,
        unit_seconds: None,
        trace: vec![],
        elm_rank: None,
        test_metric_unshared: None,
    }
}
