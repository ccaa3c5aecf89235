//! What every trainer of the deep network shares: the choice of trainer,
//! the progress it reports, and the report it ends with.

use std::ops::ControlFlow;
use std::time::Duration;

use ndarray::ArrayView2;
use optim::Termination;
use serde::Serialize;

use super::b2ld::B2ld;
use super::incremental::Incremental;
use super::lbfgs::FullLbfgs;
use super::network::Dfnn;
use super::objective::Objective3;
use crate::error::Result;

/// How to train a [`Dfnn`]: Palagi & Seccia's two decomposition methods
/// and their non-decomposed counterparts.
#[derive(Clone, Debug, PartialEq)]
pub enum DfnnTrainer {
    /// B2LD (Algorithm 3): batch, one layer's block at a time by L-BFGS.
    B2ld(B2ld),
    /// L-BFGS on all weights at once (the baseline of B2LD).
    Lbfgs(FullLbfgs),
    /// BLInG (Algorithm 5) or IG (its baseline): minibatch incremental
    /// gradient, by layer or on all weights.
    Incremental(Incremental),
}

/// The stopping tolerances B2LD and L-BFGS share: finite and ≥ 0.
pub(crate) fn check_stopping(gradient_tolerance: f64, relative_decrease: f64) -> Result<()> {
    crate::validate::finite_scalar(
        "gradient_tolerance",
        gradient_tolerance,
        false,
        "must be finite and ≥ 0",
    )?;
    crate::validate::finite_scalar("relative_decrease", relative_decrease, false, "must be finite and ≥ 0")?;
    Ok(())
}

impl DfnnTrainer {
    /// Every setting of the trainer admissible ([`B2ld::check`],
    /// [`FullLbfgs::check`], [`Incremental::check`]).
    ///
    /// # Errors
    /// [`crate::ModelError::InvalidParameter`] naming the setting.
    pub fn check(&self) -> Result<()> {
        match self {
            Self::B2ld(t) => t.check(),
            Self::Lbfgs(t) => t.check(),
            Self::Incremental(t) => t.check(),
        }
    }

    /// The trainer's short name (`b2ld`, `lbfgs`, `bling`, `ig`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::B2ld(_) => "b2ld",
            Self::Lbfgs(_) => "lbfgs",
            Self::Incremental(i) => i.name(),
        }
    }
}

/// What a trainer reports after each iteration (a B2LD cycle, an L-BFGS
/// iteration, an epoch of BLInG or IG).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Iterations completed.
    pub iteration: usize,
    /// Training time so far (the evaluations made only to report
    /// progress are not counted).
    pub elapsed: Duration,
    /// `f(w)` on the whole training set.
    pub objective: f64,
    /// `‖∇f(w)‖` when the trainer has it at hand.
    pub gradient_norm: Option<f64>,
}

/// One point of the objective's history.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TracePoint {
    /// Training time, seconds.
    pub seconds: f64,
    /// `f(w)` there.
    pub objective: f64,
}

/// How a fit went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainReport {
    /// `b2ld`, `lbfgs`, `bling` or `ig`.
    pub trainer: &'static str,
    /// The final `f(w)` of (3) on the training set.
    pub objective: f64,
    /// The final `‖∇f(w)‖`.
    pub gradient_norm: f64,
    /// Iterations: B2LD cycles over the layers, L-BFGS iterations, epochs
    /// of BLInG and IG.
    pub iterations: usize,
    /// Evaluations of the objective on the whole training set (values
    /// and gradients, full or by block; 0 for the minibatch methods).
    pub evaluations: usize,
    /// Updates of each layer's block, first layer first (the paper's
    /// Table 5 for B2LD; every layer once per minibatch for BLInG and IG).
    pub updates_per_layer: Vec<usize>,
    /// Why the fit stopped.
    #[serde(serialize_with = "termination_name")]
    pub termination: Termination,
    /// Training time, seconds (progress evaluations excluded).
    pub seconds: f64,
    /// `f(w)` after each iteration.
    pub trace: Vec<TracePoint>,
}

fn termination_name<S: serde::Serializer>(t: &Termination, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_string())
}

impl Dfnn {
    /// Train on samples `x` (P×n_0) and targets `y` (P×n_L) for objective
    /// (3) with regularization `rho` (the paper: `10⁻³ /`
    /// [`Dfnn::n_weights`]), calling `progress` after every iteration (it
    /// may stop the fit by returning [`ControlFlow::Break`]).
    ///
    /// # Errors
    /// The data checks, a shape that does not fit the network, an
    /// inadmissible trainer setting ([`crate::ModelError::InvalidParameter`]),
    /// or an objective that is not finite at the start.
    pub fn fit(
        &mut self,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        rho: f64,
        trainer: &DfnnTrainer,
        progress: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<TrainReport> {
        crate::validate::cols("samples X", x, self.n_inputs())?;
        crate::validate::cols("targets Y", y, self.n_outputs())?;
        let objective = Objective3::new(x, y, rho)?;
        match trainer {
            DfnnTrainer::B2ld(t) => t.run(objective, self.weights_mut(), progress),
            DfnnTrainer::Lbfgs(t) => t.run(objective, self.weights_mut(), progress),
            DfnnTrainer::Incremental(t) => t.run(objective, self.weights_mut(), progress),
        }
    }

    /// Palagi & Seccia's `ρ = 10⁻³ / n`, `n` the number of weights.
    pub fn paper_rho(&self) -> f64 {
        1e-3 / self.n_weights() as f64
    }
}

/// The final `f` and `‖∇f‖` on the whole set.
pub(crate) fn final_state(objective: &Objective3<'_>, weights: &[ndarray::Array2<f64>]) -> (f64, f64) {
    let mut ws = objective.workspace(weights);
    let mut grads = weights.to_vec();
    objective.forward(weights, &mut ws);
    let f = objective.value(weights, &ws);
    objective.gradient(weights, &mut ws, 0, &mut grads);
    (f, super::objective::squared_norm(&grads).sqrt())
}
