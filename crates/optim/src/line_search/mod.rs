//! Line searches: given a point `x`, a descent direction `d` and the slope
//! `∇f(x)ᵀd < 0`, find a step `α > 0` that decreases `f` enough.
//!
//! - [`Armijo`]: backtracking exactly as Grippo, Manno & Sciandrone (2016),
//!   Algorithm 2 (DEC's step along a neuron's negative gradient, and the
//!   fallback of B2LD's acceptance test);
//! - [`MoreThuente`]: the strong Wolfe conditions by Moré and Thuente's
//!   safeguarded interpolation (inside [`crate::Lbfgs`]).

mod armijo;
mod more_thuente;

pub use armijo::Armijo;
pub use more_thuente::{MoreThuente, WolfeFailure, WolfeStep};

use std::fmt;

/// A step accepted by a line search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The step length `α`.
    pub alpha: f64,
    /// `f(x + αd)`.
    pub value: f64,
    /// How many times the step was shortened before it was accepted.
    pub backtracks: usize,
}

/// Why a line search (or its construction) failed.
#[derive(Clone, Debug, PartialEq)]
pub enum LineSearchError {
    /// A parameter is outside its range.
    InvalidParameter {
        /// The parameter's name in the paper's notation.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must lie in.
        range: &'static str,
    },
    /// `∇f(x)ᵀd` is not negative (or not finite): `d` is not a descent
    /// direction, and no step can be guaranteed to decrease `f`.
    NotDescent {
        /// The slope `∇f(x)ᵀd` given.
        slope: f64,
    },
    /// `x`, `d` or the objective's dimension disagree.
    Dimension {
        /// The objective's dimension.
        expected: usize,
        /// The offending length.
        found: usize,
    },
    /// No step among the ones tried satisfied the condition (for a descent
    /// direction of a smooth function this happens only at the limit of
    /// rounding, or when `f` is not finite near `x`).
    NoStep {
        /// The number of steps evaluated.
        tried: usize,
        /// The last (shortest) step considered; when it no longer moved `x`
        /// in floating point, `tried` counts the evaluated ones before it.
        last_alpha: f64,
    },
    /// The Wolfe search ([`MoreThuente`]) found no step satisfying both
    /// conditions.
    NoWolfeStep {
        /// The evaluations made.
        evaluations: usize,
        /// Why it stopped.
        reason: WolfeFailure,
        /// The best step found (`0` when no trial had a lower value than
        /// `f(x)`).
        best_alpha: f64,
        /// `f` at that step.
        best_value: f64,
    },
}

impl fmt::Display for LineSearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidParameter { name, value, range } => {
                write!(f, "line search parameter {name} = {value} must lie in {range}")
            }
            Self::NotDescent { slope } => write!(
                f,
                "the direction is not a descent direction (∇f(x)ᵀd = {slope:e}, must be negative and finite)"
            ),
            Self::Dimension { expected, found } => {
                write!(
                    f,
                    "vector of length {found} given for an objective of dimension {expected}"
                )
            }
            Self::NoStep { tried, last_alpha } => write!(
                f,
                "no step satisfied the sufficient-decrease condition after {tried} trials (last α = {last_alpha:e})"
            ),
            Self::NoWolfeStep {
                evaluations,
                reason,
                best_alpha,
                best_value,
            } => write!(
                f,
                "no step satisfied the strong Wolfe conditions after {evaluations} evaluations: {reason} (best α = {best_alpha:e}, f = {best_value:e})"
            ),
        }
    }
}

impl std::error::Error for LineSearchError {}

/// The checks every search makes on its inputs: `x` and `d` of the
/// objective's length `n`, a negative and finite slope.
pub(crate) fn check_inputs(n: usize, x: &[f64], d: &[f64], slope: f64) -> Result<(), LineSearchError> {
    for len in [x.len(), d.len()] {
        if len != n {
            return Err(LineSearchError::Dimension {
                expected: n,
                found: len,
            });
        }
    }
    if !(slope < 0.0 && slope.is_finite()) {
        return Err(LineSearchError::NotDescent { slope });
    }
    Ok(())
}

/// One-variable test functions shared by the line searches' tests.
#[cfg(test)]
pub(crate) mod test_functions {
    use crate::objective::Objective;

    /// `f(t) = c₂ t² + c₁ t + s·sin(ω t)` in one variable: smooth, bounded
    /// below for `c₂ > 0`, with several local minima when `s ω²` is large.
    pub(crate) struct Wavy {
        pub(crate) c2: f64,
        pub(crate) c1: f64,
        pub(crate) s: f64,
        pub(crate) w: f64,
    }

    impl Objective for Wavy {
        fn dim(&self) -> usize {
            1
        }
        fn value(&mut self, x: &[f64]) -> f64 {
            let t = x[0];
            self.c2 * t * t + self.c1 * t + self.s * (self.w * t).sin()
        }
        fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
            let t = x[0];
            g[0] = 2.0 * self.c2 * t + self.c1 + self.s * self.w * (self.w * t).cos();
        }
    }
}
