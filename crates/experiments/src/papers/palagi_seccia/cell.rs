//! One cell of the tables: one method on one network from one starting
//! point, trained, timed, evaluated, and kept on disk so that an
//! interrupted run resumes where it stopped.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use models::dfnn::{B2ld, Bias, Dfnn, DfnnTrainer, FullLbfgs, Incremental, IncrementalKind, StallRule};
use serde::{Deserialize, Serialize};

use super::protocol::{Options, Prepared, ARCHITECTURES, LBFGS_WINDOW};
use super::ReproError;

/// The starting weights are uniform on `[−SCALE, SCALE]`
/// ([`models::dfnn::INIT_SCALE`]: the paper does not say).
pub const SCALE: f64 = models::dfnn::INIT_SCALE;

/// What a cell measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// The data set's key.
    pub dataset: String,
    /// Index into [`ARCHITECTURES`].
    pub architecture: usize,
    /// `b2ld`, `lbfgs`, `bling` or `ig`.
    pub method: String,
    /// The starting point (seed 1000 + run), the same for every method.
    pub run: usize,
    /// Whether it ran on the quick run's capped data.
    pub quick: bool,
    /// Training samples.
    pub n_train: usize,
    /// The time limit it had, seconds.
    pub limit: f64,
    /// Training time, seconds.
    pub seconds: f64,
    /// `f(w)` of (3) on the training set at the end.
    pub objective: f64,
    /// `‖∇f(w)‖` there.
    pub gradient_norm: f64,
    /// The mean squared error on the test set, `(1/P) Σ ‖ỹ_p − y_p‖²`.
    pub test_error: f64,
    /// Cycles (B2LD), iterations (L-BFGS), epochs (BLInG, IG).
    pub iterations: usize,
    /// Updates of each layer's block.
    pub updates_per_layer: Vec<usize>,
    /// Why it stopped.
    pub termination: String,
    /// Run 0 only: `(seconds, f)` after every iteration.
    pub trace: Vec<(f64, f64)>,
    /// The machine that ran the cell (`machine::cpu_description`); `None`
    /// for cells written before 2026-11-28, which all ran on
    /// [`EARLIER_MACHINE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
}

/// The machine of every cell written before cells recorded theirs (the
/// committed reports of 2026-11-25 to 2026-11-28 name it).
pub const EARLIER_MACHINE: &str = "AMD EPYC, 2 cores";

impl CellResult {
    /// The machine that ran the cell.
    pub fn machine(&self) -> &str {
        self.cpu.as_deref().unwrap_or(EARLIER_MACHINE)
    }
}

/// The trainer of `method` with the options' limits, for starting point
/// `run` (BLInG's and IG's row order is seeded by it, as the weights are).
///
/// # Errors
/// [`ReproError::Protocol`] for an unknown method.
pub fn trainer(method: &str, opts: &Options, run: usize) -> Result<DfnnTrainer, ReproError> {
    Ok(match method {
        "b2ld" => DfnnTrainer::B2ld(B2ld {
            time_limit: Some(opts.batch_limit),
            stall: opts.b2ld_stall,
            ..B2ld::paper()
        }),
        "lbfgs" => DfnnTrainer::Lbfgs(FullLbfgs {
            time_limit: Some(opts.batch_limit),
            window: opts.lbfgs_window,
            ..FullLbfgs::default()
        }),
        "bling" | "ig" => {
            let kind = if method == "bling" {
                IncrementalKind::Bling
            } else {
                IncrementalKind::Ig
            };
            DfnnTrainer::Incremental(Incremental {
                batch_size: opts.batch_size,
                time_limit: Some(opts.minibatch_limit),
                max_epochs: usize::MAX,
                shuffle: Some(1000 + run as u64),
                ..Incremental::new(kind)
            })
        }
        other => return Err(ReproError::Protocol(format!("unknown method {other:?}"))),
    })
}

/// The file of a cell in `dir`.
pub fn path(dir: &Path, dataset: &str, architecture: usize, method: &str, run: usize, opts: &Options) -> PathBuf {
    let q = if opts.quick { "quick-" } else { "" };
    let limit = if matches!(method, "bling" | "ig") {
        opts.minibatch_limit
    } else {
        opts.batch_limit
    };
    let stall = match method {
        "b2ld" if opts.b2ld_stall == StallRule::PerCycle => "-percycle".to_string(),
        "lbfgs" if opts.lbfgs_window == 1 => "-periter".to_string(),
        "lbfgs" if opts.lbfgs_window != LBFGS_WINDOW => format!("-window{}", opts.lbfgs_window),
        _ => String::new(),
    };
    dir.join(format!(
        "{q}{dataset}-a{architecture}-{method}{stall}-run{run}-t{}ms.json",
        limit.as_millis()
    ))
}

/// Train and evaluate one cell.
///
/// # Errors
/// The model's errors.
pub fn run(
    prep: &Prepared,
    architecture: usize,
    method: &str,
    run: usize,
    opts: &Options,
) -> Result<CellResult, ReproError> {
    let mut widths = ARCHITECTURES[architecture].to_vec();
    widths.push(1);
    let mut net = Dfnn::random(prep.x_train.ncols(), &widths, Bias::None, 1000 + run as u64, SCALE)?;
    let rho = net.paper_rho();
    let trainer = trainer(method, opts, run)?;
    let report = net.fit(prep.x_train.view(), prep.y_train.view(), rho, &trainer, |_| {
        ControlFlow::Continue(())
    })?;
    let out = net.predict(prep.x_test.view())?;
    let test_error = (&out - &prep.y_test).mapv(|v| v * v).sum() / prep.y_test.nrows() as f64;
    let limit = match trainer {
        DfnnTrainer::Incremental(_) => opts.minibatch_limit,
        _ => opts.batch_limit,
    };
    Ok(CellResult {
        dataset: prep.source.key.to_string(),
        architecture,
        method: method.to_string(),
        run,
        quick: opts.quick,
        n_train: prep.x_train.nrows(),
        limit: limit.as_secs_f64(),
        seconds: report.seconds,
        objective: report.objective,
        gradient_norm: report.gradient_norm,
        test_error,
        iterations: report.iterations,
        updates_per_layer: report.updates_per_layer,
        termination: report.termination.to_string(),
        trace: if run == 0 {
            report.trace.iter().map(|t| (t.seconds, t.objective)).collect()
        } else {
            vec![]
        },
        cpu: Some(crate::machine::cpu_description()),
    })
}
