//! The small hand-checked examples that were the per-strategy doc examples
//! before the strategies became one solver type: every strategy on a problem
//! whose solution is known in closed form.

use linalg_core::ridge::{Factors, Strategy};
use linalg_core::Precision;
use ndarray::array;

/// `A = [1 1]ᵀ`, `Y = [2 4]ᵀ`, λ = 1: `W = (2 + 1)⁻¹·6 = 2`; then the
/// orthogonal column `[1 −1]ᵀ`: `w₂ = (2 + 1)⁻¹·(2 − 4) = −2/3`, `w₁` unchanged.
#[test]
fn ridge_strategies_solve_the_two_node_example() {
    for (st, tol) in [
        (Strategy::Chol1, 1e-15),
        (Strategy::Chol2, 1e-15),
        (Strategy::RInv, 1e-15),
        (Strategy::LiEtAl, 1e-14),
        (Strategy::Alg1, 1e-14),
        (Strategy::Alg2, 1e-14),
        (Strategy::Alg3, 1e-14),
        (Strategy::DRdg, 1e-15),
    ] {
        let mut s = st
            .build(
                array![[1.0], [1.0]].view(),
                array![[2.0], [4.0]].view(),
                1.0,
                Precision::F64,
            )
            .unwrap();
        assert!((s.weights()[[0, 0]] - 2.0).abs() < tol, "{st}");
        s.append(array![[1.0], [-1.0]].view()).unwrap();
        assert!((s.weights()[[0, 0]] - 2.0).abs() < tol, "{st}");
        assert!((s.weights()[[1, 0]] + 2.0 / 3.0).abs() < tol, "{st}");
        assert_eq!(s.strategy(), st);
    }
}

/// D-Rdg with `A = I₂`, λ = 1: `W = Y/2`.
#[test]
fn direct_ridge_on_the_identity_halves_the_targets() {
    let s = Strategy::DRdg
        .build(
            array![[1.0, 0.0], [0.0, 1.0]].view(),
            array![[4.0], [6.0]].view(),
            1.0,
            Precision::F64,
        )
        .unwrap();
    let w = s.weights();
    assert!((w[[0, 0]] - 2.0).abs() < 1e-15 && (w[[1, 0]] - 3.0).abs() < 1e-15);
    assert!(matches!(s.factors(), Factors::Gram { .. }));
}

/// The generalized-inverse strategies (Exg-E, Orig.) with a tiny λ tend to
/// least squares: `w₁ = 3`, `w₂ = 1/2`.
#[test]
fn generalized_inverse_strategies_reach_least_squares() {
    for st in [Strategy::ExgE, Strategy::Orig] {
        let mut s = st
            .build(
                array![[1.0], [1.0], [0.0]].view(),
                array![[2.0], [4.0], [1.0]].view(),
                1e-12,
                Precision::F64,
            )
            .unwrap();
        s.append(array![[0.0], [0.0], [2.0]].view()).unwrap();
        assert!((s.weights()[[0, 0]] - 3.0).abs() < 1e-10, "{st}");
        assert!((s.weights()[[1, 0]] - 0.5).abs() < 1e-10, "{st}");
    }
}

/// Each strategy reports the factor state of its paper.
#[test]
fn factors_are_those_of_the_strategy() {
    let (a, y) = (array![[1.0], [1.0], [1.0]], array![[1.0], [0.0], [1.0]]);
    for st in Strategy::ALL {
        let s = st.build(a.view(), y.view(), 2.0, Precision::F64).unwrap();
        let ok = match s.factors() {
            Factors::Gram { gram, aty } => st == Strategy::DRdg && gram.dim() == (1, 1) && aty.dim() == (1, 1),
            Factors::InverseCholesky { f, g } => {
                matches!(st, Strategy::Chol1 | Strategy::Chol2 | Strategy::ExgE)
                    && f.dim() == (1, 1)
                    && g.dim() == (1, 1)
                    // R = ‖a‖² + λ = 5: F = 5^{-1/2}, Q = D = 1/5
                    && (f[[0, 0]] - 5f64.powf(-0.5)).abs() < 1e-15
            }
            Factors::TransposedInverse(b) => {
                matches!(st, Strategy::RInv | Strategy::Orig | Strategy::LiEtAl | Strategy::Alg1) && b.dim() == (3, 1)
            }
            Factors::Inverse(q) => st == Strategy::Alg2 && (q[[0, 0]] - 0.2).abs() < 1e-15,
            Factors::InverseLdl { l, d } => st == Strategy::Alg3 && l[[0, 0]] == 1.0 && (d[0] - 0.2).abs() < 1e-15,
            _ => false,
        };
        assert!(ok, "{st}: {:?}", s.factors());
    }
}
