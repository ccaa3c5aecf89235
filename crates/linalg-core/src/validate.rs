//! Input checks shared by every public entry point (and by `models`, whose
//! inputs are checked the same way): non-empty, finite, agreeing shapes, an
//! admissible λ, well-formed bordering columns and blocks. Each returns the
//! [`Error`] that names the input at fault.

use ndarray::ArrayView2;

use crate::error::{Error, Result};
use crate::ridge::Strategy;

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

/// Fail with [`Error::NonFinite`] if `m` holds NaN or ±∞; "first" is in
/// row-major order whatever `m`'s layout.
pub fn finite(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    // The common case in memory order: a column-major K×n block read row by
    // row strides K·8 bytes per element (0.77 s instead of ~0.2 s for the
    // BLS's 1.47 GB start block; docs/performance.md). The indexed scan
    // below runs only to describe a failure.
    if m.fold(true, |ok, v| ok & v.is_finite()) {
        return Ok(());
    }
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
    dimension(what, m, m.nrows() == rows, || format!("{rows} rows (one per sample)"))
}

/// Fail with [`Error::Shape`] unless `m` has `cols` columns.
pub fn cols(what: &'static str, m: &ArrayView2<'_, f64>, cols: usize) -> Result<()> {
    dimension(what, m, m.ncols() == cols, || format!("{cols} columns"))
}

/// [`Error::Shape`] naming `what`, the `expected` shape and `m`'s, unless `ok`.
fn dimension(what: &'static str, m: &ArrayView2<'_, f64>, ok: bool, expected: impl FnOnce() -> String) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::Shape {
        what,
        expected: expected(),
        found: format!("{}×{}", m.nrows(), m.ncols()),
    })
}

/// Fail with [`Error::Shape`] unless `m` is square.
pub fn square(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    dimension(what, m, m.nrows() == m.ncols(), || "a square matrix".into())
}

/// A non-empty, square, finite matrix (the SPD input of a factorization),
/// or the [`Error`] of the first check that fails.
pub fn square_finite(what: &'static str, m: &ArrayView2<'_, f64>) -> Result<()> {
    non_empty(what, m)?;
    square(what, m)?;
    finite(what, m)
}

/// Fail with [`Error::InvalidLambda`] unless `lambda` is finite and > 0.
pub fn lambda(strategy: Strategy, lambda: f64) -> Result<()> {
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(Error::InvalidLambda { strategy, lambda });
    }
    Ok(())
}

/// Check a bordering column of an n×n SPD matrix: `r12` of length n and a
/// finite diagonal entry `r22`.
pub fn bordering_column(n: usize, r12: &[f64], r22: f64) -> Result<()> {
    if r12.len() != n {
        return Err(Error::Shape {
            what: "r12",
            expected: format!("length {n}"),
            found: format!("length {}", r12.len()),
        });
    }
    if let Some(row) = r12.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "r12 (bordering column)",
            row,
            col: 0,
            count: 1,
        });
    }
    if !r22.is_finite() {
        return Err(Error::NonFinite {
            what: "r22 (new diagonal entry)",
            row: 0,
            col: 0,
            count: 1,
        });
    }
    Ok(())
}

/// Check a bordering block of an n×n SPD matrix: `r12` (n×q) and square,
/// non-empty `r22` (q×q), both finite. Returns q.
pub fn bordering_block(n: usize, r12: &ArrayView2<'_, f64>, r22: &ArrayView2<'_, f64>) -> Result<usize> {
    non_empty("R22", r22)?;
    square("R22", r22)?;
    let q = r22.nrows();
    if r12.dim() != (n, q) {
        return Err(Error::Shape {
            what: "R12",
            expected: format!("{n}×{q}"),
            found: format!("{}×{}", r12.nrows(), r12.ncols()),
        });
    }
    finite("R12", r12)?;
    finite("R22", r22)?;
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ShapeBuilder};

    /// The error is the same for both layouts: the first bad entry in
    /// row-major order, and the count of all of them.
    #[test]
    fn finite_reports_the_first_in_row_major_order_for_either_layout() {
        for f_order in [false, true] {
            let mut m = Array2::<f64>::zeros((6, 5).set_f(f_order));
            assert_eq!(finite("M", &m.view()), Ok(()));
            // Column-major memory order meets (4, 1) first, row-major (2, 3).
            m[[4, 1]] = f64::NAN;
            m[[2, 3]] = f64::NEG_INFINITY;
            m[[5, 4]] = f64::INFINITY;
            assert_eq!(
                finite("M", &m.view()),
                Err(Error::NonFinite {
                    what: "M",
                    row: 2,
                    col: 3,
                    count: 3
                }),
                "F order: {f_order}"
            );
            // And in a strided view.
            let t = m.t();
            assert!(matches!(
                finite("Mᵀ", &t),
                Err(Error::NonFinite {
                    row: 1,
                    col: 4,
                    count: 3,
                    ..
                })
            ));
        }
    }
}
