//! Input checks shared by the models: non-empty, finite, agreeing shapes
//! (`linalg-core`'s checks, whose errors come back as
//! [`ModelError::Linalg`]), and the admissibility of parameters.

use ndarray::{ArrayView1, ArrayView2};

use linalg_core::sparse::Samples;
use linalg_core::validate as checks;

use crate::error::{ModelError, Result};

/// `a` has at least one row and one column.
pub(crate) fn non_empty(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    Ok(checks::non_empty(what, &a)?)
}

/// Every entry of `a` is finite (the first bad entry is reported in
/// row-major order).
pub(crate) fn finite(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    Ok(checks::finite(what, &a)?)
}

/// `a` is non-empty and finite.
pub(crate) fn matrix(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    non_empty(what, a)?;
    finite(what, a)
}

/// `a` has `expected` columns.
pub(crate) fn cols(what: &'static str, a: ArrayView2<'_, f64>, expected: usize) -> Result<()> {
    Ok(checks::cols(what, &a, expected)?)
}

/// The samples `x` (dense or sparse) have `expected` columns.
pub(crate) fn sample_cols(what: &'static str, x: Samples<'_>, expected: usize) -> Result<()> {
    if x.ncols() == expected {
        return Ok(());
    }
    Err(linalg_core::Error::Shape {
        what,
        expected: format!("{expected} columns"),
        found: format!("{}×{}", x.nrows(), x.ncols()),
    }
    .into())
}

/// `a` has `expected` rows.
pub(crate) fn rows(what: &'static str, a: ArrayView2<'_, f64>, expected: usize) -> Result<()> {
    Ok(checks::rows(what, &a, expected)?)
}

/// λ is finite and > 0.
pub(crate) fn lambda(lambda: f64) -> Result<()> {
    finite_scalar("lambda", lambda, true, "the ridge parameter must be finite and > 0")
}

/// The parameter `name` = `value` is finite and > 0 (`positive`) or ≥ 0;
/// otherwise refused with `reason`.
pub(crate) fn finite_scalar(name: &'static str, value: f64, positive: bool, reason: &'static str) -> Result<()> {
    let admissible = value.is_finite() && if positive { value > 0.0 } else { value >= 0.0 };
    if !admissible {
        return Err(ModelError::InvalidParameter {
            name,
            value: format!("{value}"),
            reason,
        });
    }
    Ok(())
}

/// A count that must be at least 1 (`name` = `value`, refused with `reason`
/// when 0).
pub(crate) fn at_least_one(name: &'static str, value: usize, reason: &'static str) -> Result<()> {
    if value == 0 {
        return Err(ModelError::InvalidParameter {
            name,
            value: "0".into(),
            reason,
        });
    }
    Ok(())
}

/// Sample weights for `samples` samples: one per sample, finite, ≥ 0, not
/// all 0 (the weighted fits: [`crate::ElmValidParams::fit_weighted`]).
pub(crate) fn sample_weights(w: ArrayView1<'_, f64>, samples: usize) -> Result<()> {
    if w.len() != samples {
        return Err(ModelError::InvalidParameter {
            name: "sample_weight",
            value: format!("{} weights", w.len()),
            reason: "give one weight per sample (as many as the rows of X)",
        });
    }
    if let Some((i, v)) = w.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
        return Err(ModelError::InvalidParameter {
            name: "sample_weight",
            value: format!("{v} (sample {i})"),
            reason: "every weight must be finite and >= 0",
        });
    }
    if !w.iter().any(|v| *v > 0.0) {
        return Err(ModelError::InvalidParameter {
            name: "sample_weight",
            value: "all 0".into(),
            reason: "at least one sample must have a weight > 0",
        });
    }
    Ok(())
}
