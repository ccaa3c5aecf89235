//! The check of an incremental fit's output weights against their normal
//! equations (the ELM grown node by node, the BLS after its updates), and
//! the warning before a generalized-inverse strategy's ridge start.

use linalg_core::ridge::Strategy;
use models::verify::{normal_equations, normal_equations_of, NormalEquations};
use ndarray::Array2;

use super::error::CliError;

/// The warning on stderr before a fit whose strategy updates toward the
/// generalized-inverse solution (Orig., Exg-E) after a ridge start with
/// `lambda`; nothing for a ridge strategy.
pub(crate) fn warn_if_not_ridge(strategy: Strategy, lambda: f64) {
    if !strategy.is_ridge() {
        say!(
            "nn fit: warning: {strategy} updates the output weights toward the generalized-inverse (λ → 0) solution after a \
             ridge start with λ = {lambda:e}: its weights are not the ridge solution for that λ and differ from chol2, \
             r-inv and d-rdg by design (the BLS paper's comparison); they are checked below"
        );
    }
}

/// The largest relative normal-equations residual accepted: `√u ≈ 1.5e-8`,
/// half the working digits. A backward-stable solve leaves `≈ (K + n)u`
/// (about 1e-11 at K = 60000); the incremental strategies whose rounding
/// grows with `κ(AᵀA + λI)` (Alg. 2 with `κ²`) stay far below `√u` on
/// problems they solve; an update applied outside its assumptions (Orig.
/// and Exg-E after a ridge start with λ not ≈ 0) leaves 1e-4 and more
/// (docs/numerics.md, measured on airfoil, pima and MNIST).
pub(crate) const RESIDUAL_TOLERANCE: f64 = 1.4901161193847656e-8;

/// The normal-equations residuals of an incremental solver's weights on
/// its own `A` (no recomputation when `A` is stored in f64; recomputed in
/// blocks of rows by `hidden` when it is stored in f32, so that the check
/// does not widen the whole matrix).
pub(crate) fn solver_residuals(
    solver: &dyn linalg_core::IncrementalRidge,
    hidden: impl Fn(ndarray::ArrayView2<'_, f64>) -> Result<Array2<f64>, models::ModelError>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<NormalEquations, CliError> {
    let started = std::time::Instant::now();
    let (w, lambda) = (solver.weights(), solver.lambda());
    let ne = match solver.precision() {
        linalg_core::Precision::F64 => normal_equations_of(solver.hidden().view(), y.view(), w, lambda)?,
        // The solver saw A rounded to f32: check against the same rounding.
        linalg_core::Precision::F32 => {
            let rounded = |rows: ndarray::ArrayView2<'_, f64>| hidden(rows).map(|a| a.mapv(|v| v as f32 as f64));
            normal_equations(rounded, x.view(), y.view(), w, lambda)?
        }
    };
    say!(
        "nn fit: checked the output weights against their normal equations in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    Ok(ne)
}

/// Refuse output weights that do not solve their problem: the ridge normal
/// equations for a ridge strategy, either system for the
/// generalized-inverse strategies Orig. and Exg-E (exact for λ → 0). The
/// batch solvers (Cholesky, LAPACK's least squares) are backward stable by
/// construction and not checked here.
pub(crate) fn check_weights(strategy: Strategy, ne: &NormalEquations) -> Result<(), CliError> {
    let (ridge, ls) = (ne.relative_ridge(), ne.relative_least_squares());
    say!(
        "nn fit: normal-equations residual of the output weights: ridge {ridge:.1e}, least squares {ls:.1e} (relative)"
    );
    let achieved = if strategy.is_ridge() { ridge } else { ridge.min(ls) };
    if achieved <= RESIDUAL_TOLERANCE {
        return Ok(());
    }
    let remedy = if strategy.is_ridge() {
        format!("{strategy} lost accuracy on this problem: use chol2, r-inv or d-rdg, or a larger --lambda")
    } else {
        format!(
            "{strategy}'s generalized-inverse updates assume λ → 0, and λ = {:e} is not: use a ridge strategy \
             (chol2, r-inv, d-rdg) or a smaller --lambda",
            ne.lambda
        )
    };
    Err(CliError::Input(format!(
        "the fitted output weights do not solve their normal equations (relative residual {achieved:.1e}, \
         accepted up to {RESIDUAL_TOLERANCE:.1e}): {remedy}"
    )))
}
