//! Input checks shared by every public entry point.

use ndarray::ArrayView2;

use crate::error::{Error, Result};

/// Fail with [`Error::Empty`] if `m` has no rows or no columns.
pub fn non_empty(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    if m.nrows() == 0 || m.ncols() == 0 {
        return Err(Error::Empty {
            what,
            rows: m.nrows(),
            cols: m.ncols(),
        });
    }
    Ok(())
}

/// Fail with [`Error::NonFinite`] if `m` holds NaN or ±∞.
pub fn finite(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    let mut first = None;
    let mut count = 0;
    for ((i, j), v) in m.indexed_iter() {
        if !v.is_finite() {
            count += 1;
            if first.is_none() {
                first = Some((i, j));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((row, col)) => Err(Error::NonFinite { what, row, col, count }),
    }
}

/// Fail with [`Error::Shape`] unless `m` has `rows` rows.
pub fn rows(what: &'static str, m: &ArrayView2<'_, f64>, rows: usize) -> Result<()> {
    if m.nrows() != rows {
        return Err(Error::Shape {
            what,
            expected: format!("{rows} rows (one per sample)"),
            found: format!("{}×{}", m.nrows(), m.ncols()),
        });
    }
    Ok(())
}

/// Fail with [`Error::Shape`] unless `m` is square.
pub fn square(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    if m.nrows() != m.ncols() {
        return Err(Error::Shape {
            what,
            expected: "a square matrix".into(),
            found: format!("{}×{}", m.nrows(), m.ncols()),
        });
    }
    Ok(())
}

/// Fail with [`Error::InvalidLambda`] unless `lambda` is finite and > 0.
pub fn lambda(strategy: &'static str, lambda: f64) -> Result<()> {
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(Error::InvalidLambda { strategy, lambda });
    }
    Ok(())
}
