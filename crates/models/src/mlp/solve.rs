//! The two least-squares solves of a BPLS layer step, each in whichever of
//! its two algebraically equal forms has the smaller matrix to factor.
//!
//! - The weights `W = (GᵀG + λI)⁻¹GᵀT` of `G = [A, 1]` (K×(n+1)): the
//!   primal form factors the (n+1)×(n+1) Gram matrix
//!   ([`ridge_solve_with_intercept`]); with fewer samples than columns
//!   (K < n+1) the dual form `W = Gᵀ(GGᵀ + λI)⁻¹T` factors the K×K kernel
//!   matrix `GGᵀ = AAᵀ + 11ᵀ` instead. For λ > 0 (BPLS refuses λ = 0) both
//!   are the one minimizer of `‖GW − T‖² + λ‖W‖²`: `(GᵀG + λI)Gᵀ =
//!   Gᵀ(GGᵀ + λI)`, so `(GᵀG + λI)⁻¹Gᵀ = Gᵀ(GGᵀ + λI)⁻¹`. Thirty samples
//!   of 20000 features take a 30×30 factorization, not one of 20001×20001
//!   (3.2 GB and minutes).
//! - The neuron-target map `P = (VVᵀ + μI)⁻¹V` of eq. (5) (`V` n×m, a
//!   layer's weights without the bias row): the primal form factors the n×n
//!   matrix `VVᵀ + μI`, the dual `P = V(VᵀV + μI)⁻¹` the m×m one, by the
//!   same identity.
//!
//! Why not through [`crate::Readout`], the output layer of the ELM and the
//! BLS: a BPLS layer step is not an output layer's solve. It appends the
//! bias column `1` to the layer's inputs (the Readout solves `AW = Y` on the
//! columns it is given), chooses between the primal and the dual form by
//! the shape of `G` (the Readout always factors the n×n Gram matrix: a
//! 20001×20001 one for thirty samples of 20000 features), and is solved
//! anew at every epoch on a changed `A`, so none of the Readout's growth
//! by columns applies.
//!
//! Every factorization is of a matrix whose eigenvalues are those of the
//! other form's plus, or minus, zeros: the dual's smallest eigenvalue is
//! `σ_min² + λ ≥ λ`, the primal's λ when K < n+1, so the smaller form is
//! never the worse conditioned one (the tests in `tests/bpls.rs` compare the
//! two within their forward-error bounds).

use linalg_core::kernels::{self, Flops, Owned, Tri};
use linalg_core::ridge::{ridge_solve_with_intercept, Strategy};
use linalg_core::validate as check;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, Axis, ShapeBuilder, Slice};

use crate::error::Result;

/// What to do when the dual kernel matrix is not numerically positive definite.
const LAMBDA_TOO_SMALL: &str = "λ is below the rounding of [A, 1][A, 1]ᵀ on (nearly) repeated samples: use a larger λ";
/// What to do when the neuron-target system is not numerically positive definite.
const MU_TOO_SMALL: &str = "μ is below the rounding of the layer's weight products: use a larger μ";

/// `W = ([A, 1]ᵀ[A, 1] + λI)⁻¹[A, 1]ᵀT` ((n+1)×m, the bias last) for `a`
/// (K×n) and `t` (K×m), λ > 0: [`ridge_solve_with_intercept`] when
/// K ≥ n+1, [`dual_ridge_with_intercept`] otherwise.
///
/// # Errors
/// As [`ridge_solve_with_intercept`].
pub(super) fn ridge_with_intercept(a: ArrayView2<'_, f64>, t: ArrayView2<'_, f64>, lambda: f64) -> Result<Array2<f64>> {
    if a.nrows() < a.ncols().saturating_add(1) {
        dual_ridge_with_intercept(a, t, lambda)
    } else {
        Ok(ridge_solve_with_intercept(a, t, lambda)?.weights)
    }
}

/// The same `W` in the dual form `W = [A, 1]ᵀα`, `(AAᵀ + 11ᵀ + λI)α = T`:
/// one K×K Cholesky factorization, `K²n + 2Knm` flops besides.
///
/// # Errors
/// As [`ridge_solve_with_intercept`]: λ not finite and > 0, empty, non-finite
/// or mismatched inputs, a kernel matrix not numerically positive definite,
/// non-finite weights.
pub(super) fn dual_ridge_with_intercept(
    a: ArrayView2<'_, f64>,
    t: ArrayView2<'_, f64>,
    lambda: f64,
) -> Result<Array2<f64>> {
    check::lambda(Strategy::DRdg, lambda)?;
    check::non_empty("hidden matrix A", &a)?;
    check::non_empty("targets Y", &t)?;
    check::rows("targets Y", &t, a.nrows())?;
    check::finite("hidden matrix A", &a)?;
    check::finite("targets Y", &t)?;
    let (k, n) = a.dim();
    // AAᵀ + 11ᵀ + λI: the ones, then AAᵀ added by GEMM, then λ.
    let mut kernel = Array2::from_elem((k, k).f(), 1.0);
    general_mat_mul(1.0, &a, &a.t(), 1.0, &mut kernel);
    kernel.diag_mut().mapv_inplace(|v| v + lambda);
    let alpha = spd_solve(kernel, t, "[A, 1][A, 1]ᵀ + λI", LAMBDA_TOO_SMALL)?;
    let mut w = Array2::zeros((n + 1, t.ncols()));
    general_mat_mul(
        1.0,
        &a.t(),
        &alpha,
        0.0,
        &mut w.slice_axis_mut(Axis(0), Slice::from(..n)),
    );
    w.row_mut(n).assign(&alpha.sum_axis(Axis(0)));
    finite_weights(&w, n + 1)?;
    Ok(w)
}

/// `P = (VVᵀ + μI)⁻¹V` (n×m) for `v` (n×m), μ > 0: the n×n system when
/// n ≤ m, else `P = V(VᵀV + μI)⁻¹` from the m×m one.
///
/// # Errors
/// [`linalg_core::Error::InvalidLambda`] unless μ is finite and > 0,
/// [`linalg_core::Error::NotPositiveDefinite`] if the matrix factored is
/// not numerically positive definite, [`linalg_core::Error::Breakdown`] for
/// a non-finite result.
pub(super) fn neuron_map(v: ArrayView2<'_, f64>, mu: f64) -> Result<Array2<f64>> {
    check::lambda(Strategy::DRdg, mu)?;
    let (n, m) = v.dim();
    let p = if n <= m {
        let mut gram = Array2::zeros((n, n).f());
        general_mat_mul(1.0, &v, &v.t(), 0.0, &mut gram);
        gram.diag_mut().mapv_inplace(|x| x + mu);
        spd_solve(gram, v, "VVᵀ + μI", MU_TOO_SMALL)?
    } else {
        let mut gram = Array2::zeros((m, m).f());
        general_mat_mul(1.0, &v.t(), &v, 0.0, &mut gram);
        gram.diag_mut().mapv_inplace(|x| x + mu);
        spd_solve(gram, v.t(), "VᵀV + μI", MU_TOO_SMALL)?.reversed_axes()
    };
    finite_weights(&p, n)?;
    Ok(p)
}

/// `S⁻¹B` for a symmetric `s` (its upper triangle read) by the Cholesky
/// factorization `S = UᵀU` and two triangular solves; `matrix` names it and
/// `suggestion` says what to do in the error.
fn spd_solve(
    s: Array2<f64>,
    b: ArrayView2<'_, f64>,
    matrix: &'static str,
    suggestion: &'static str,
) -> Result<Array2<f64>> {
    let order = s.nrows();
    let mut fl = Flops::default();
    let mut u = Owned::from_array(s);
    kernels::potrf(&mut fl, Tri::Upper, u.as_mut()).map_err(|pivot| linalg_core::Error::NotPositiveDefinite {
        strategy: Strategy::DRdg,
        matrix,
        pivot,
        first_node: 0,
        end_node: order,
        suggestion,
    })?;
    let mut x = Owned::from_view(b);
    kernels::potrs_upper(&mut fl, u.as_ref(), x.as_mut());
    Ok(x.into_array())
}

/// Refuse non-finite entries (overflow in a solve).
fn finite_weights(w: &Array2<f64>, nodes: usize) -> Result<()> {
    if w.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(linalg_core::Error::Breakdown {
            strategy: Strategy::DRdg,
            first_node: 0,
            end_node: nodes,
            detail: "non-finite weights",
        }
        .into())
    }
}
