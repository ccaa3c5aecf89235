//! The one-shot ridge solve [`ridge_solve`] against the independent SVD
//! reference, on row-major, column-major and strided inputs (it reads the
//! first two in place, so the layout decides which BLAS path runs).

mod common;

use common::*;
use linalg_core::ridge::{ridge_solve, ridge_solve_with_intercept, GramAccumulator, Strategy};
use linalg_core::Error;
use ndarray::{s, Array2, ShapeBuilder};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    #[test]
    fn ridge_solve_equals_svd_reference_in_every_layout(
        seed in any::<u64>(),
        n in 1usize..40,
        m in 1usize..4,
        extra in 0usize..40,
        log_lambda in -8.0f64..1.0,
        decades in 0.0f64..6.0,
        wide in any::<bool>(),
    ) {
        let mut rng = SplitMix::new(seed);
        let k = if wide { (n / 2).max(1) } else { n + extra };
        let a = conditioned(&mut rng, k, n, decades);
        let y = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let rf = reference(a.view(), y.view(), lambda);
        let tol = ridge_tolerance(&rf, y.view(), k, n, 1);
        // Row-major, column-major, and a strided view (every other row of a
        // taller matrix), which is copied.
        let mut f = Array2::zeros((k, n).f());
        f.assign(&a);
        let mut tall = Array2::zeros((2 * k, n));
        tall.slice_mut(s![..;2, ..]).assign(&a);
        for (layout, view) in [("C", a.view()), ("F", f.view()), ("strided", tall.slice(s![..;2, ..]))] {
            let w = ridge_solve(view, y.view(), lambda).expect("solve").weights;
            let err = fro_diff(w.view(), rf.w_ridge.view());
            prop_assert!(err <= tol, "{layout}: ‖W − W*‖ = {err:.3e} > {tol:.3e} (κ(R) = {:.2e})", rf.kappa_r);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    /// The intercept solve is the SVD reference on `[A, 1]` (the matrix it
    /// does not form), in both layouts it reads in place.
    #[test]
    fn ridge_solve_with_intercept_equals_svd_reference_on_a_with_ones(
        seed in any::<u64>(),
        n in 1usize..30,
        m in 1usize..4,
        extra in 0usize..40,
        log_lambda in -8.0f64..1.0,
        decades in 0.0f64..6.0,
        offset in -3.0f64..3.0,
    ) {
        let mut rng = SplitMix::new(seed);
        let k = n + 1 + extra;
        // Columns with a common offset: nearly collinear with the constant.
        let a = conditioned(&mut rng, k, n, decades).mapv(|v| v + offset);
        let y = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let mut a1 = Array2::ones((k, n + 1));
        a1.slice_mut(s![.., ..n]).assign(&a);
        let rf = reference(a1.view(), y.view(), lambda);
        let tol = ridge_tolerance(&rf, y.view(), k, n + 1, 1);
        let mut f = Array2::zeros((k, n).f());
        f.assign(&a);
        for (layout, view) in [("C", a.view()), ("F", f.view())] {
            let w = ridge_solve_with_intercept(view, y.view(), lambda).expect("solve").weights;
            let err = fro_diff(w.view(), rf.w_ridge.view());
            prop_assert!(err <= tol, "{layout}: ‖W − W*‖ = {err:.3e} > {tol:.3e} (κ(R) = {:.2e})", rf.kappa_r);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]
    /// Rows added in random chunks (some empty, in both layouts), or split
    /// between two accumulators merged afterwards, give the SVD reference's
    /// ridge solution on all the rows, within the same κ-derived bound as
    /// the one-shot solve (the sums only change order).
    #[test]
    fn gram_accumulator_over_chunks_equals_svd_reference(
        seed in any::<u64>(),
        n in 1usize..30,
        m in 1usize..4,
        extra in 0usize..60,
        log_lambda in -8.0f64..1.0,
        decades in 0.0f64..6.0,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..6),
        split in 0.0f64..1.0,
    ) {
        let mut rng = SplitMix::new(seed);
        let k = n + extra;
        let a = conditioned(&mut rng, k, n, decades);
        let y = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let rf = reference(a.view(), y.view(), lambda);
        let tol = ridge_tolerance(&rf, y.view(), k, n, 1);
        let mut bounds: Vec<usize> = cuts.iter().map(|c| (c * k as f64) as usize).collect();
        bounds.extend([0, k]);
        bounds.sort_unstable();
        let mut whole = GramAccumulator::new(n, m);
        let mut first = GramAccumulator::new(n, m);
        let mut second = GramAccumulator::new(n, m);
        let at = (split * k as f64) as usize;
        for (c, w) in bounds.windows(2).enumerate() {
            let (r0, r1) = (w[0], w[1]);
            let chunk = a.slice(s![r0..r1, ..]);
            let target = y.slice(s![r0..r1, ..]);
            if c % 2 == 0 {
                whole.add(chunk, target).expect("add");
            } else {
                let mut f = Array2::zeros((r1 - r0, n).f());
                f.assign(&chunk);
                whole.add(f.view(), target).expect("add F");
            }
            // The same rows split at `at` between two accumulators.
            let mid = at.clamp(r0, r1);
            first.add(a.slice(s![r0..mid, ..]), y.slice(s![r0..mid, ..])).expect("add first");
            second.add(a.slice(s![mid..r1, ..]), y.slice(s![mid..r1, ..])).expect("add second");
        }
        first.merge(&second).expect("merge");
        prop_assert_eq!((whole.rows(), first.rows()), (k, k));
        for acc in [&whole, &first] {
            let w = acc.solve(lambda).expect("solve").weights;
            let err = fro_diff(w.view(), rf.w_ridge.view());
            prop_assert!(err <= tol, "‖W − W*‖ = {err:.3e} > {tol:.3e} (κ(R) = {:.2e})", rf.kappa_r);
        }
    }
}

#[test]
fn gram_accumulator_refuses_bad_chunks_and_is_unchanged() {
    let mut acc = GramAccumulator::new(2, 1);
    assert!(matches!(acc.solve(1.0), Err(Error::Empty { .. })));
    let a = Array2::<f64>::ones((3, 2));
    let y = Array2::<f64>::ones((3, 1));
    acc.add(a.view(), y.view()).expect("add");
    assert!(matches!(
        acc.add(Array2::<f64>::ones((3, 3)).view(), y.view()),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        acc.add(a.view(), y.slice(s![..2, ..])),
        Err(Error::Shape { .. })
    ));
    let mut bad = a.clone();
    bad[[2, 0]] = f64::NAN;
    assert!(matches!(acc.add(bad.view(), y.view()), Err(Error::NonFinite { .. })));
    assert_eq!(acc.rows(), 3);
    assert_eq!(acc.gram(), Array2::from_elem((2, 2), 3.0));
    assert!(matches!(
        acc.merge(&GramAccumulator::new(3, 1)),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(acc.solve(0.0), Err(Error::InvalidLambda { .. })));
    // Empty chunks add nothing.
    acc.add(Array2::<f64>::zeros((0, 2)).view(), Array2::<f64>::zeros((0, 1)).view())
        .expect("empty");
    assert_eq!((acc.rows(), acc.rhs()), (3, Array2::from_elem((2, 1), 3.0)));
}

#[test]
fn ridge_solve_with_intercept_rejects_bad_input() {
    let a = Array2::<f64>::ones((4, 2));
    let y = Array2::<f64>::ones((4, 1));
    assert!(matches!(
        ridge_solve_with_intercept(a.view(), y.view(), 0.0),
        Err(Error::InvalidLambda { .. })
    ));
    assert!(matches!(
        ridge_solve_with_intercept(a.view(), y.slice(s![..3, ..]), 1.0),
        Err(Error::Shape { .. })
    ));
    let mut bad = a.clone();
    bad[[1, 1]] = f64::INFINITY;
    assert!(matches!(
        ridge_solve_with_intercept(bad.view(), y.view(), 1.0),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn ridge_solve_rejects_bad_input() {
    let a = Array2::<f64>::ones((4, 2));
    let y = Array2::<f64>::ones((4, 1));
    assert!(matches!(
        ridge_solve(a.view(), y.view(), 0.0),
        Err(Error::InvalidLambda { .. })
    ));
    assert!(matches!(
        ridge_solve(a.view(), y.slice(s![..3, ..]), 1.0),
        Err(Error::Shape { .. })
    ));
    let mut bad = a.clone();
    bad[[1, 1]] = f64::NAN;
    assert!(matches!(
        ridge_solve(bad.view(), y.view(), 1.0),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        ridge_solve(
            Array2::<f64>::zeros((0, 2)).view(),
            Array2::<f64>::zeros((0, 1)).view(),
            1.0
        ),
        Err(Error::Empty { .. })
    ));
    // Two equal columns of ones: AᵀA = [[4, 4], [4, 4]] exactly, so the
    // Cholesky pivot is (4 + λ) − 4 = 0 in floating point for λ = 1e-30.
    assert!(matches!(
        ridge_solve(a.view(), y.view(), 1e-30),
        Err(Error::NotPositiveDefinite {
            strategy: Strategy::DRdg,
            ..
        })
    ));
}
