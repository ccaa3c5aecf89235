//! Input checks shared by the models: non-empty, finite, agreeing shapes.

use ndarray::ArrayView2;

use crate::error::{ModelError, Result};

/// `a` has at least one row and one column.
pub(crate) fn non_empty(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    let (rows, cols) = a.dim();
    if rows == 0 || cols == 0 {
        return Err(ModelError::Empty { what, rows, cols });
    }
    Ok(())
}

/// Every entry of `a` is finite (checked in memory order; the first bad
/// entry is reported in row-major order).
pub(crate) fn finite(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    if a.fold(true, |ok, v| ok & v.is_finite()) {
        return Ok(());
    }
    let mut first = None;
    let mut count = 0;
    for ((row, col), v) in a.indexed_iter() {
        if !v.is_finite() {
            count += 1;
            first.get_or_insert((row, col));
        }
    }
    let (row, col) = first.unwrap_or((0, 0));
    Err(ModelError::NonFinite { what, row, col, count })
}

/// `a` is non-empty and finite.
pub(crate) fn matrix(what: &'static str, a: ArrayView2<'_, f64>) -> Result<()> {
    non_empty(what, a)?;
    finite(what, a)
}

/// `a` has `expected` columns.
pub(crate) fn cols(what: &'static str, a: ArrayView2<'_, f64>, expected: usize) -> Result<()> {
    if a.ncols() != expected {
        return Err(ModelError::Shape {
            what,
            expected: format!("{expected} columns"),
            found: format!("{}×{}", a.nrows(), a.ncols()),
        });
    }
    Ok(())
}

/// `a` has `expected` rows.
pub(crate) fn rows(what: &'static str, a: ArrayView2<'_, f64>, expected: usize) -> Result<()> {
    if a.nrows() != expected {
        return Err(ModelError::Shape {
            what,
            expected: format!("{expected} rows (one per sample)"),
            found: format!("{}×{}", a.nrows(), a.ncols()),
        });
    }
    Ok(())
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
