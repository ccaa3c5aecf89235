//! `min_norm_lstsq` (LAPACK dgelsd) against the minimum-norm solution from
//! an independent SVD (ndarray-linalg's dgesdd) on full-rank tall, wide and
//! exactly rank-deficient matrices.
//!
//! Bound: both are backward-stable SVD solutions of the same problem; for
//! the minimum-norm least-squares solution the forward error is at most
//! `c·max(K, n)·u·(κ(A)‖W‖ + κ(A)²‖r‖/‖A‖)` (Golub & Van Loan, §5.3.8,
//! `r` the residual), with κ(A) the ratio of the largest to the smallest
//! *kept* singular value; c = 4 covers the two solutions' errors.

mod common;

use common::*;
use linalg_core::lstsq::min_norm_lstsq;
use ndarray::{concatenate, s, Axis};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn equals_the_svd_minimum_norm_solution(seed in any::<u64>(), k in 2usize..50, n in 1usize..30, m in 1usize..4,
                                            decades in 0.0f64..4.0, duplicate in any::<bool>()) {
        let mut rng = SplitMix::new(seed);
        let mut a = conditioned(&mut rng, k, n, decades);
        if duplicate && n >= 2 {
            // Exact rank deficiency: repeat the first columns.
            let half = a.slice(s![.., ..n / 2]).to_owned();
            a = concatenate![Axis(1), a, half];
        }
        let y = rng.gaussian(k, m);
        let got = min_norm_lstsq(a.view(), y.view(), None).unwrap();
        let rf = reference(a.view(), y.view(), 0.0);
        let sv = &got.singular_values;
        let kept: Vec<f64> = sv.iter().copied().filter(|&x| x > sv[0] * (k.max(a.ncols()) as f64) * f64::EPSILON).collect();
        prop_assert_eq!(got.rank, kept.len());
        let kappa = kept[0] / kept[kept.len() - 1];
        let w = fro(rf.w_ls.view());
        let r = fro((a.dot(&rf.w_ls) - &y).view());
        let tol = 4.0 * (k.max(a.ncols())) as f64 * U * (kappa * w + kappa * kappa * r / kept[0]);
        let err = fro_diff(got.solution.view(), rf.w_ls.view());
        prop_assert!(err <= tol, "‖W − A⁺Y‖ = {:.3e} > {:.3e} (κ = {:.2e}, rank {})", err, tol, kappa, got.rank);
    }
}

#[test]
fn input_errors_are_typed() {
    use linalg_core::Error;
    let a = ndarray::array![[1.0, 2.0], [3.0, f64::NAN]];
    let y = ndarray::array![[1.0], [2.0]];
    assert!(matches!(
        min_norm_lstsq(a.view(), y.view(), None),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        min_norm_lstsq(a.slice(s![.., ..0]), y.view(), None),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        min_norm_lstsq(a.view(), y.slice(s![..1, ..]), None),
        Err(Error::Shape { .. })
    ));
}
