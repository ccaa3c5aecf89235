//! Checking fitted output weights against the problem they solve, cheaply:
//! the residual of the normal equations, computed block by block without
//! holding the hidden matrix.
//!
//! Output weights `W` of the ridge problem `min ‖AW − Y‖² + λ‖W‖²` solve
//! `AᵀA W + λW = AᵀY`; minimum-norm least squares (λ → 0) solves
//! `AᵀA W = AᵀY`. A backward-stable solve leaves a residual of the order
//! `γ·(‖A‖²‖W‖ + λ‖W‖ + ‖A‖‖Y‖)` with `γ ≈ (K + n)u`, whatever the
//! conditioning; [`NormalEquations`] reports both residuals relative to
//! that scale. An update formula applied outside its assumptions leaves a
//! residual many orders larger: the generalized-inverse updates of Orig. and
//! Exg-E assume λ → 0, and after a ridge start with λ = 0.1 on airfoil the
//! weights solve neither system (relative residuals near 10⁻³; the
//! predictions' RMSE is 44 where the ridge solution's is 3.2).
//!
//! Cost: two products with `M` columns per block of rows (`4KnM` flops)
//! and the hidden outputs of the block: one more pass over the training
//! samples, `O(block · n)` memory.

use ndarray::{Array2, ArrayView2, Axis};

use crate::error::{ModelError, Result};

/// Rows per block: the hidden outputs of one block are `BLOCK × n` floats.
const BLOCK: usize = 2048;

/// How far output weights are from solving their normal equations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalEquations {
    /// `‖Aᵀ(AW − Y) + λW‖_F`: the ridge system's residual.
    pub ridge: f64,
    /// `‖Aᵀ(AW − Y)‖_F`: the least-squares system's residual.
    pub least_squares: f64,
    /// `‖A‖_F²‖W‖_F + λ‖W‖_F + ‖A‖_F‖Y‖_F`: the size of the terms, which a
    /// backward-stable solve gets right to `γ` relative.
    pub scale: f64,
    /// The λ of the ridge system.
    pub lambda: f64,
}

impl NormalEquations {
    /// The ridge residual relative to [`scale`](Self::scale).
    pub fn relative_ridge(&self) -> f64 {
        relative(self.ridge, self.scale)
    }

    /// The least-squares residual relative to [`scale`](Self::scale).
    pub fn relative_least_squares(&self) -> f64 {
        relative(self.least_squares, self.scale)
    }
}

fn relative(residual: f64, scale: f64) -> f64 {
    if scale > 0.0 {
        residual / scale
    } else {
        residual
    }
}

/// The normal-equations residuals of `w` (n×M) for the hidden outputs
/// `hidden(x)` (K×n, computed on blocks of rows of `x`), targets `y` (K×M)
/// and ridge parameter `lambda`.
///
/// # Errors
/// [`ModelError::Linalg`] for shapes that do not agree, and the errors of
/// `hidden`.
pub fn normal_equations(
    hidden: impl Fn(ArrayView2<'_, f64>) -> Result<Array2<f64>>,
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    lambda: f64,
) -> Result<NormalEquations> {
    let k = y.nrows();
    crate::validate::rows("samples X", x, k)?;
    let mut sums = Sums::new(w, y.ncols())?;
    let mut start = 0;
    while start < k {
        let end = (start + BLOCK).min(k);
        let rows = Axis(0);
        let a = hidden(x.slice_axis(rows, (start..end).into()))?;
        sums.add(a.view(), y.slice_axis(rows, (start..end).into()), w)?;
        start = end;
    }
    Ok(sums.finish(y, w, lambda))
}

/// [`normal_equations`] for a hidden matrix `a` (K×n) at hand, e.g. the
/// one an incremental solver holds: `4KnM` flops and a K×M temporary.
///
/// # Errors
/// [`ModelError::Linalg`] for shapes that do not agree.
pub fn normal_equations_of(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    lambda: f64,
) -> Result<NormalEquations> {
    crate::validate::rows("hidden outputs A", a, y.nrows())?;
    let mut sums = Sums::new(w, y.ncols())?;
    sums.add(a, y, w)?;
    Ok(sums.finish(y, w, lambda))
}

/// `Aᵀ(AW − Y)` and `‖A‖_F²` accumulated over blocks of rows.
struct Sums {
    atr: Array2<f64>,
    a_sq: f64,
}

impl Sums {
    fn new(w: ArrayView2<'_, f64>, m: usize) -> Result<Self> {
        crate::validate::cols("output weights W", w, m)?;
        Ok(Self {
            atr: Array2::zeros((w.nrows(), m)),
            a_sq: 0.0,
        })
    }

    fn add(&mut self, a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>) -> Result<()> {
        if a.ncols() != w.nrows() {
            return Err(ModelError::Linalg(linalg_core::Error::Shape {
                what: "hidden outputs A",
                expected: format!("{} columns (the rows of W)", w.nrows()),
                found: format!("{}×{}", a.nrows(), a.ncols()),
            }));
        }
        let r = a.dot(&w) - y;
        self.atr += &a.t().dot(&r);
        self.a_sq += a.iter().map(|v| v * v).sum::<f64>();
        Ok(())
    }

    fn finish(self, y: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>, lambda: f64) -> NormalEquations {
        let fro = |m: ArrayView2<'_, f64>| m.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (norm_w, norm_y) = (fro(w), fro(y));
        NormalEquations {
            ridge: fro((&self.atr + &w.mapv(|v| lambda * v)).view()),
            least_squares: fro(self.atr.view()),
            scale: self.a_sq * norm_w + lambda * norm_w + self.a_sq.sqrt() * norm_y,
            lambda,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn identity(x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        Ok(x.to_owned())
    }

    /// `A = [[1, 0], [0, 2], [1, 1]]`, `Y = [1, 2, 3]ᵀ`: the ridge solution
    /// for λ = 1 solves `(AᵀA + I)W = AᵀY`, i.e. `[[3, 1], [1, 6]]W = [4, 7]ᵀ`;
    /// by Cramer's rule (determinant 17) `W = [(24 − 7)/17, (21 − 4)/17] = [1, 1]ᵀ`.
    #[test]
    fn the_ridge_solution_has_no_ridge_residual_and_a_least_squares_one() {
        let a = array![[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]];
        let y = array![[1.0], [2.0], [3.0]];
        let w = array![[1.0], [1.0]];
        let ne = normal_equations(identity, a.view(), y.view(), w.view(), 1.0).expect("shapes agree");
        assert_eq!(ne.ridge, 0.0);
        // Aᵀ(AW − Y) = −λW = [−1, −1]: norm √2.
        assert!((ne.least_squares - 2f64.sqrt()).abs() < 1e-15);
        // ‖A‖_F² = 7, ‖W‖ = √2, ‖Y‖ = √14.
        let scale = 7.0 * 2f64.sqrt() + 2f64.sqrt() + 7f64.sqrt() * 14f64.sqrt();
        assert!((ne.scale - scale).abs() < 1e-13);
    }

    /// Blocks of rows add up to the whole: 5000 rows (three blocks) against
    /// the one-shot products.
    #[test]
    fn blocks_add_up_to_the_whole() {
        let a = Array2::from_shape_fn((5000, 3), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.4);
        let y = Array2::from_shape_fn((5000, 2), |(i, j)| ((i + j) % 5) as f64);
        let w = array![[0.5, -1.0], [2.0, 0.0], [-0.3, 0.7]];
        let ne = normal_equations(identity, a.view(), y.view(), w.view(), 0.25).expect("shapes agree");
        let atr = a.t().dot(&(a.dot(&w) - &y));
        let direct = atr.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((ne.least_squares - direct).abs() <= 1e-12 * direct);
        let ridge = (&atr + &w.mapv(|v| 0.25 * v)).iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((ne.ridge - ridge).abs() <= 1e-12 * ridge);
    }

    #[test]
    fn a_matrix_at_hand_gives_the_blockwise_figures() {
        let a = Array2::from_shape_fn((3000, 4), |(i, j)| ((i * 5 + j) % 13) as f64 / 13.0);
        let y = Array2::from_shape_fn((3000, 1), |(i, _)| (i % 3) as f64);
        let w = array![[0.1], [0.2], [-0.3], [0.4]];
        let blockwise = normal_equations(identity, a.view(), y.view(), w.view(), 0.5).expect("shapes agree");
        let at_hand = normal_equations_of(a.view(), y.view(), w.view(), 0.5).expect("shapes agree");
        for (p, q) in [
            (blockwise.ridge, at_hand.ridge),
            (blockwise.least_squares, at_hand.least_squares),
            (blockwise.scale, at_hand.scale),
        ] {
            assert!((p - q).abs() <= 1e-12 * q.abs(), "{p} vs {q}");
        }
    }

    #[test]
    fn shapes_that_do_not_agree_are_errors() {
        let a = array![[1.0, 0.0], [0.0, 2.0]];
        let y = array![[1.0], [2.0], [3.0]];
        let w = array![[1.0], [1.0]];
        assert!(normal_equations(identity, a.view(), y.view(), w.view(), 1.0).is_err());
    }
}
