//! Property tests of the factorizations themselves: the inverse Cholesky
//! factor, the inverse LDLᵀ factors and their division-free variant, built
//! from an SPD matrix and then bordered by random columns and blocks, satisfy
//! `F Fᵀ R ≈ I` / `L D Lᵀ R ≈ I` within `c·steps·n·u·κ(R)·√n` (backward error
//! `O(n u ‖R‖)` per factorization step, amplified by κ(R) in the residual of
//! a computed inverse).

mod common;

use common::*;
use linalg_core::{DivisionFreeLdl, InverseCholesky, InverseLdl};
use ndarray::{s, Array2};
use ndarray_linalg::Eigh;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

fn spd(seed: u64, n: usize, decades: f64) -> (Array2<f64>, f64) {
    let mut rng = SplitMix::new(seed);
    let a = conditioned(&mut rng, n + 4, n, decades / 2.0);
    let r = a.t().dot(&a) + Array2::<f64>::eye(n) * 1e-14;
    let (ev, _) = r.eigh(ndarray_linalg::UPLO::Upper).unwrap();
    let kappa = ev[n - 1] / ev[0];
    (r, kappa)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn bordered_factors_invert_r(seed in any::<u64>(), n in 1usize..40, n0 in 1usize..10,
                                 qs in prop::collection::vec(1usize..6, 0..8), decades in 0.0f64..10.0) {
        let (r, kappa) = spd(seed, n, decades);
        let n0 = n0.min(n);
        let bl = blocks(n0, &qs, n);
        let eye = Array2::<f64>::eye(n);
        let tol = 2.0 * bl.len() as f64 * n as f64 * U * kappa * (n as f64).sqrt();

        let mut f = InverseCholesky::from_spd(r.slice(s![..n0, ..n0])).unwrap();
        let mut l = InverseLdl::from_spd(r.slice(s![..n0, ..n0])).unwrap();
        for &(s, e) in &bl[1..] {
            if e - s == 1 {
                let col: Vec<f64> = r.slice(s![..s, s]).to_vec();
                f.append_column(&col, r[[s, s]]).unwrap();
                l.append_column(&col, r[[s, s]]).unwrap();
            } else {
                f.append_block(r.slice(s![..s, s..e]), r.slice(s![s..e, s..e])).unwrap();
                l.append_block(r.slice(s![..s, s..e]), r.slice(s![s..e, s..e])).unwrap();
            }
        }
        let ff = f.factor();
        let res = fro_diff(ff.dot(&ff.t()).dot(&r).view(), eye.view());
        prop_assert!(res <= tol, "inverse Cholesky: ‖F Fᵀ R − I‖ = {:.3e} > {:.3e} (κ = {:.2e})", res, tol, kappa);
        let res = fro_diff(l.inverse().dot(&r).view(), eye.view());
        prop_assert!(res <= tol, "inverse LDLᵀ: ‖L D Lᵀ R − I‖ = {:.3e} > {:.3e} (κ = {:.2e})", res, tol, kappa);
        // Division-free: built column by column (n steps).
        let tol_df = 2.0 * n as f64 * n as f64 * U * kappa * (n as f64).sqrt();
        let df = DivisionFreeLdl::from_spd(r.view()).unwrap();
        let res = fro_diff(df.inverse().dot(&r).view(), eye.view());
        prop_assert!(res <= tol_df, "division-free: ‖U β⁻¹ Uᵀ R − I‖ = {:.3e} > {:.3e} (κ = {:.2e})", res, tol_df, kappa);
        prop_assert!(df.beta().iter().all(|b| (1.0..4.0).contains(b)));
        // Its (L, D) are the same factors as InverseLdl's (unique for SPD R):
        // equal up to the factors' own sensitivity, which the identity above bounds.
        let (ld, dd) = df.to_ldl();
        prop_assert!(ld.diag().iter().all(|&x| x == 1.0) || ld.diag().iter().all(|&x| (x - 1.0).abs() < 4.0 * U));
        prop_assert!(dd.iter().all(|&x| x > 0.0));
    }
}

/// The triangular structure: F upper with positive diagonal, L unit upper.
#[test]
fn factor_structure() {
    let (r, _) = spd(7, 12, 4.0);
    let f = InverseCholesky::from_spd(r.view()).unwrap();
    let l = InverseLdl::from_spd(r.view()).unwrap();
    for i in 0..12 {
        assert!(f.factor()[[i, i]] > 0.0);
        assert_eq!(l.l()[[i, i]], 1.0);
        for j in 0..i {
            assert_eq!(f.factor()[[i, j]], 0.0);
            assert_eq!(l.l()[[i, j]], 0.0);
        }
    }
    // F = L D^{1/2}.
    let fd = &l.l() * &l.d().mapv(f64::sqrt);
    assert!(fro_diff(fd.view(), f.factor()) <= 1e-12 * fro(f.factor()));
}
