//! What an optimizer run reports: how far it got and why it stopped.
//!
//! Every optimizer of this crate ends with a [`Report`], so a trainer can log
//! it, count the papers' "function evaluations", and tell a converged run
//! from one that hit a limit. The stopping reasons are those the papers use:
//! a small gradient (Grippo et al. (29); Palagi & Seccia's `‖∇f‖ ≤ 10⁻³`), a
//! small relative decrease (Palagi & Seccia's `10⁻⁴`), iteration, evaluation
//! and time limits, and a line search that found no acceptable step.

use std::fmt;
use std::time::Duration;

use crate::objective::Evaluations;

/// Why an optimizer stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Termination {
    /// `‖∇f(x)‖ ≤` the gradient tolerance.
    GradientTolerance,
    /// The relative decrease `(f_prev − f) / max(1, |f_prev|)` fell below its
    /// tolerance.
    RelativeDecrease,
    /// The iteration limit was reached.
    MaxIterations,
    /// The evaluation limit was reached.
    MaxEvaluations,
    /// The time limit was reached.
    TimeLimit,
    /// The line search found no step satisfying its conditions (for a
    /// descent direction this happens only at the limit of rounding).
    LineSearchFailed,
    /// The caller's observer asked to stop.
    Interrupted,
}

impl Termination {
    /// Every reason, in declaration order.
    pub const ALL: [Termination; 7] = [
        Termination::GradientTolerance,
        Termination::RelativeDecrease,
        Termination::MaxIterations,
        Termination::MaxEvaluations,
        Termination::TimeLimit,
        Termination::LineSearchFailed,
        Termination::Interrupted,
    ];

    /// Whether the run stopped because a convergence test held (rather than
    /// because of a limit or a failure).
    pub fn converged(self) -> bool {
        matches!(self, Termination::GradientTolerance | Termination::RelativeDecrease)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Termination::GradientTolerance => "gradient norm below tolerance",
            Termination::RelativeDecrease => "relative decrease below tolerance",
            Termination::MaxIterations => "iteration limit reached",
            Termination::MaxEvaluations => "evaluation limit reached",
            Termination::TimeLimit => "time limit reached",
            Termination::LineSearchFailed => "line search found no acceptable step",
            Termination::Interrupted => "stopped by the caller",
        })
    }
}

/// The outcome of one optimizer run.
///
/// ```
/// use std::time::Duration;
/// use optim::{Evaluations, Report, Termination};
///
/// let r = Report {
///     iterations: 12,
///     evaluations: Evaluations { values: 15, gradients: 13 },
///     value: 1.5e-9,
///     gradient_norm: 4.0e-6,
///     termination: Termination::GradientTolerance,
///     elapsed: Duration::from_millis(3),
/// };
/// assert!(r.termination.converged());
/// assert_eq!(
///     r.to_string(),
///     "gradient norm below tolerance after 12 iterations (15 values, 13 gradients): \
///      f = 1.5e-9, ‖∇f‖ = 4e-6, 0.003 s"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    /// Iterations completed.
    pub iterations: usize,
    /// Evaluations of the objective, line searches included.
    pub evaluations: Evaluations,
    /// The final value `f(x)`.
    pub value: f64,
    /// The final gradient's Euclidean norm.
    pub gradient_norm: f64,
    /// Why the run stopped.
    pub termination: Termination,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} after {} iterations ({} values, {} gradients): f = {:e}, ‖∇f‖ = {:e}, {:.3} s",
            self.termination,
            self.iterations,
            self.evaluations.values,
            self.evaluations.gradients,
            self.value,
            self.gradient_norm,
            self.elapsed.as_secs_f64()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_convergence_tests_count_as_converged() {
        let converged: Vec<bool> = Termination::ALL.into_iter().map(Termination::converged).collect();
        assert_eq!(converged, [true, true, false, false, false, false, false]);
    }
}
