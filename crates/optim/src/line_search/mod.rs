//! Line searches: given a point `x`, a descent direction `d` and the slope
//! `∇f(x)ᵀd < 0`, find a step `α > 0` that decreases `f` enough.
//!
//! - [`Armijo`]: backtracking exactly as Grippo, Manno & Sciandrone (2016),
//!   Algorithm 2 (DEC's step along a neuron's negative gradient, and the
//!   fallback of B2LD's acceptance test).

mod armijo;

pub use armijo::Armijo;

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
        }
    }
}

impl std::error::Error for LineSearchError {}
