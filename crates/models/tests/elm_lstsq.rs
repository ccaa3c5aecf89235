//! Minimum-norm least squares for the ELM's output weights
//! (`models::elm::lstsq`, QR with column pivoting) against independent
//! computations: the normal equations by Gaussian elimination, the
//! optimality conditions, the null space of a rank-deficient matrix.

mod common;

use common::{a_b, at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum, U};
use models::elm::lstsq::lstsq;
use ndarray::{concatenate, s, Array2, Axis};

/// On a full-rank problem, the QR least-squares solution against the normal
/// equations `AᵀA W = AᵀY` solved by Gaussian elimination. The normal
/// equations' error dominates: `γ κ(AᵀA) (‖W‖ + ‖(AᵀA)⁻¹‖‖A‖‖Y‖)` with
/// `γ = (K + n)u` (that of `ridge_tolerance` at λ = 0); the QR solution's is
/// smaller (κ(A) instead of κ(A)² on the consistent part), so twice the bound
/// covers both.
#[test]
fn lstsq_equals_the_normal_equations_on_a_full_rank_problem() {
    let mut rng = rng(6);
    let a = rng.gaussian(60, 8);
    let y = rng.gaussian(60, 3);
    let sol = lstsq(a.view(), y.view()).expect("valid problem");
    assert_eq!(sol.rank, 8);
    let w = gauss_solve(at_b(a.view(), a.view()).view(), at_b(a.view(), y.view()).view());
    let tol = 2.0 * ridge_tolerance(a.view(), y.view(), w.view(), 0.0, 1, 1);
    let err = fro_diff(sol.solution.view(), w.view());
    assert!(err <= tol, "‖W_qr − W_ne‖ = {err:.3e} > {tol:.3e}");
    assert!(tol < 1e-10 * fro(w.view()));
}

/// Rank-deficient `A = [B, BT]` (K×12 of rank 7): the solution must satisfy
/// the normal equations `Aᵀ(AW − Y) = 0`, to within the backward error of the
/// QR, `c·γ‖A‖(‖A‖‖W‖ + ‖Y‖)` with `γ = (K + n)u`, `c = 4` — and be the
/// minimum-norm one: orthogonal to the null space `{[−Tz; z]}`.
#[test]
fn lstsq_is_optimal_and_minimum_norm_on_a_rank_deficient_problem() {
    let mut rng = rng(7);
    let (k, r, extra) = (50, 7, 5);
    let b = rng.gaussian(k, r);
    let t = rng.gaussian(r, extra);
    let a = concatenate(Axis(1), &[b.view(), a_b(b.view(), t.view()).view()]).expect("same rows");
    let y = rng.gaussian(k, 2);
    let sol = lstsq(a.view(), y.view()).expect("valid problem");
    assert_eq!(sol.rank, r);
    let w = &sol.solution;
    let residual = a_b(a.view(), w.view()) - &y;
    let normal = at_b(a.view(), residual.view());
    let norm_a = spectrum(a.view()).norm_a;
    let gamma = (k + r + extra) as f64 * U;
    let tol = 4.0 * gamma * norm_a * (norm_a * fro(w.view()) + fro(y.view()));
    assert!(
        fro(normal.view()) <= tol,
        "‖Aᵀ(AW − Y)‖ = {:.3e} > {tol:.3e}",
        fro(normal.view())
    );
    // Null space of A: N = [−T; I] (12×5). Minimum norm ⇔ NᵀW = 0.
    let mut null = Array2::<f64>::zeros((r + extra, extra));
    null.slice_mut(s![..r, ..]).assign(&t.mapv(|v| -v));
    null.slice_mut(s![r.., ..]).assign(&Array2::eye(extra));
    let proj = at_b(null.view(), w.view());
    let cond_tol = 1e3 * gamma * fro(null.view()) * fro(w.view());
    assert!(
        fro(proj.view()) <= cond_tol,
        "‖NᵀW‖ = {:.3e} > {cond_tol:.3e}",
        fro(proj.view())
    );
}

#[test]
fn lstsq_splits_the_weight_of_duplicated_columns() {
    let mut rng = rng(8);
    let b = rng.gaussian(30, 4);
    let y = rng.gaussian(30, 1);
    let a = concatenate(Axis(1), &[b.view(), b.view()]).expect("same rows");
    let full = lstsq(b.view(), y.view()).expect("full rank");
    let dup = lstsq(a.view(), y.view()).expect("rank deficient");
    assert_eq!((full.rank, dup.rank), (4, 4));
    let half = full.solution.mapv(|v| v / 2.0);
    let want = concatenate(Axis(0), &[half.view(), half.view()]).expect("same cols");
    let err = fro_diff(dup.solution.view(), want.view());
    assert!(err <= 1e-12 * fro(want.view()), "‖W − [w/2; w/2]‖ = {err:e}");
}

/// Wide `A` (K < n): consistent, so `AW = Y`, and the minimum-norm solution is
/// `Aᵀ(AAᵀ)⁻¹Y` (here from Gaussian elimination on the well-conditioned
/// `AAᵀ`; bound as for the normal equations, with `A` and `Aᵀ` swapped).
#[test]
fn lstsq_on_an_underdetermined_problem_is_the_minimum_norm_solution() {
    let mut rng = rng(9);
    let a = rng.gaussian(6, 15);
    let y = rng.gaussian(6, 2);
    let sol = lstsq(a.view(), y.view()).expect("valid problem");
    assert_eq!(sol.rank, 6);
    let z = gauss_solve(a_b(a.view(), a.t()).view(), y.view());
    let w = at_b(a.view(), z.view());
    // Forming AAᵀ perturbs it by γ‖A‖² (γ = (K + n)u), so ‖ΔZ‖ ≤ γκ(A)²‖Z‖;
    // W = AᵀZ adds ‖A‖‖ΔZ‖ + γ‖A‖‖Z‖. The QR solution's error is smaller
    // (κ(A), not κ(A)²): twice the bound covers both, c = 2 the constants.
    let sp = spectrum(a.t());
    let kappa2 = (sp.norm_a / sp.sigma_min).powi(2);
    let gamma = (6 + 15) as f64 * U;
    let tol = 2.0 * 2.0 * gamma * sp.norm_a * fro(z.view()) * (kappa2 + 1.0);
    let err = fro_diff(sol.solution.view(), w.view());
    assert!(err <= tol, "‖W − Aᵀ(AAᵀ)⁻¹Y‖ = {err:.3e} > {tol:.3e}");
}

#[test]
fn lstsq_of_a_zero_matrix_is_zero() {
    let a = Array2::<f64>::zeros((5, 3));
    let y = Array2::<f64>::ones((5, 2));
    let sol = lstsq(a.view(), y.view()).expect("valid problem");
    assert_eq!(sol.rank, 0);
    assert!(sol.solution.iter().all(|&v| v == 0.0));
}
