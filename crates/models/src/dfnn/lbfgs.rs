//! The baseline of B2LD: L-BFGS on all the weights at once.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use ndarray::Array2;
use optim::{Lbfgs, Termination};

use super::objective::{FullObjective, Objective3};
use super::train::{final_state, Progress, TracePoint, TrainReport};
use crate::error::Result;
use crate::validate;

/// L-BFGS on objective (3) in all weights, stopped by the paper's rules:
/// `‖∇f‖ ≤ 10⁻³`, relative decrease `(f_k − f_{k+1}) / max{f_k, 1} ≤
/// 10⁻⁴`, a time limit (paper: 150 s).
#[derive(Clone, Debug, PartialEq)]
pub struct FullLbfgs {
    /// Stop when `‖∇f‖ ≤` this (paper: 10⁻³).
    pub gradient_tolerance: f64,
    /// Stop when one iteration decreases `f` by at most this, relative
    /// to `max{|f|, 1}` (paper: 10⁻⁴).
    pub relative_decrease: f64,
    /// Stop after this much time (paper: 150 s).
    pub time_limit: Option<Duration>,
    /// Stop after this many iterations.
    pub max_iterations: usize,
    /// The memory (ours: 10, SciPy's L-BFGS-B default, which the paper
    /// used).
    pub memory: usize,
}

impl Default for FullLbfgs {
    fn default() -> Self {
        Self {
            gradient_tolerance: 1e-3,
            relative_decrease: 1e-4,
            time_limit: None,
            max_iterations: 100_000,
            memory: 10,
        }
    }
}

impl FullLbfgs {
    pub(crate) fn run(
        &self,
        objective: Objective3<'_>,
        weights: &mut [Array2<f64>],
        mut progress: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<TrainReport> {
        validate::finite_scalar(
            "gradient_tolerance",
            self.gradient_tolerance,
            false,
            "must be finite and ≥ 0",
        )?;
        validate::finite_scalar(
            "relative_decrease",
            self.relative_decrease,
            false,
            "must be finite and ≥ 0",
        )?;
        validate::at_least_one("memory", self.memory, "L-BFGS keeps at least one pair")?;
        let start = Instant::now();
        let mut lbfgs = Lbfgs::default()
            .with_memory(self.memory)
            .map_err(|e| invalid(e.to_string()))?
            .with_gradient_tolerance(self.gradient_tolerance)
            .with_relative_decrease(self.relative_decrease)
            .with_max_iterations(self.max_iterations);
        if let Some(t) = self.time_limit {
            lbfgs = lbfgs.with_time_limit(t);
        }
        let mut full = FullObjective::new(objective, weights);
        let mut z = FullObjective::flatten(weights);
        let f0 = optim::Objective::value(&mut full, &z);
        let mut trace = vec![TracePoint {
            seconds: 0.0,
            objective: f0,
        }];
        let report = lbfgs
            .minimize_observed(&mut full, &mut z, |it| {
                trace.push(TracePoint {
                    seconds: it.elapsed.as_secs_f64(),
                    objective: it.value,
                });
                progress(&Progress {
                    iteration: it.iteration,
                    elapsed: it.elapsed,
                    objective: it.value,
                    gradient_norm: Some(it.gradient_norm),
                })
            })
            .map_err(|e| invalid(e.to_string()))?;
        FullObjective::unflatten(&z, weights);
        let seconds = start.elapsed().as_secs_f64();
        let (objective_value, gradient_norm) = final_state(&objective, weights);
        let termination: Termination = report.termination;
        Ok(TrainReport {
            trainer: "lbfgs",
            objective: objective_value,
            gradient_norm,
            iterations: report.iterations,
            evaluations: report.evaluations.values,
            updates_per_layer: vec![report.iterations; weights.len()],
            termination,
            seconds,
            trace,
        })
    }
}

pub(crate) fn invalid(detail: String) -> crate::ModelError {
    crate::ModelError::InvalidParameter {
        name: "lbfgs",
        value: detail,
        reason: "L-BFGS could not run",
    }
}
