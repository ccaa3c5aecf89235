//! The sparse kernels against the dense products (issue 41, item 4), on
//! random sparse matrices of every density and of columns scaled from 1e-4
//! to 1e4 (ill-conditioned samples).
//!
//! **The bound.** An entry of `X·W` is a sum of `N` products. Computed in
//! any order (DGEMM's blocking, the sparse kernel's storage order, with or
//! without FMA) its error is at most `γ_N · Σ_j |x_ij||w_jl|` with
//! `γ_n = n·u / (1 − n·u)`, `u = 2⁻⁵³` (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, eq. (3.5)); the sparse kernel sums only the
//! stored entries, which the same bound covers. Two such results therefore
//! differ by at most `2·γ_N·(|X||W|)_il`, entry by entry: the tolerance of
//! every comparison below, computed from the data. `XᵀB` is the same with
//! `K` terms per entry. A wrong index, a dropped or doubled entry, or a
//! row written to the wrong place is an error of the order of the entries
//! themselves, far above this bound.

use linalg_core::sparse::{Csr, Samples};
use linalg_core::threads::set_blas_threads;
use ndarray::{Array2, ArrayView2, ShapeBuilder};
use proptest::prelude::*;
use test_support::TestRng;

const U: f64 = f64::EPSILON / 2.0;

fn gamma(n: usize) -> f64 {
    let nu = n as f64 * U;
    nu / (1.0 - nu)
}

/// A `k×n` matrix with about `density` of its entries nonzero, column `j`
/// scaled by `10^e_j` with `e_j` uniform on `[−spread, spread]`; some rows
/// left empty.
fn sparse_dense(rng: &mut TestRng, k: usize, n: usize, density: f64, spread: f64) -> Array2<f64> {
    let scales: Vec<f64> = (0..n).map(|_| 10f64.powf(rng.range(-spread, spread))).collect();
    Array2::from_shape_fn((k, n), |(i, j)| {
        if i % 7 == 3 || rng.uniform() >= density {
            0.0
        } else {
            rng.range(-1.0, 1.0) * scales[j]
        }
    })
}

/// `max_il |got − want| / (2·γ_terms·(|X||W|)_il)` (0/0 counts as 0): at
/// most 1 when `got` and `want` agree within the bound.
fn worst_ratio(got: ArrayView2<'_, f64>, want: ArrayView2<'_, f64>, scale: ArrayView2<'_, f64>, terms: usize) -> f64 {
    let g = 2.0 * gamma(terms);
    let mut worst = 0.0f64;
    for ((a, b), s) in got.iter().zip(want.iter()).zip(scale.iter()) {
        let d = (a - b).abs();
        if d > 0.0 {
            worst = worst.max(d / (g * s));
        }
    }
    worst
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn sparse_products_agree_with_dense_within_the_rounding_bound(
        seed in any::<u64>(),
        k in 1usize..60,
        n in 1usize..50,
        l in 1usize..20,
        density in 0.0f64..1.0,
        spread in 0.0f64..4.0,
    ) {
        let mut rng = TestRng::new(seed);
        let xd = sparse_dense(&mut rng, k, n, density, spread);
        let x = Csr::from_dense(xd.view()).expect("finite");
        prop_assert_eq!(x.to_dense(), xd.clone());
        let w = rng.uniform_matrix(n, l, -1.0, 1.0);
        let abs_x = xd.mapv(f64::abs);
        let scale = abs_x.dot(&w.mapv(f64::abs));

        let dense = xd.dot(&w);
        let sparse = x.matmul(w.view()).expect("shapes agree");
        prop_assert!(sparse.is_standard_layout());
        prop_assert!(worst_ratio(sparse.view(), dense.view(), scale.view(), n) <= 1.0);

        // Into a column-major output and through `Samples`, the same values.
        let mut f = Array2::zeros((k, l).f());
        Samples::from(&x).matmul_into(w.view(), f.view_mut()).expect("shapes agree");
        prop_assert_eq!(&f, &sparse);
        // A column-major W is copied to row-major first: the same values.
        let mut wf = Array2::zeros((n, l).f());
        wf.assign(&w);
        prop_assert_eq!(x.matmul(wf.view()).expect("shapes agree"), sparse.clone());

        // XᵀB (N×l) for B (K×l): K terms per entry.
        let b = rng.uniform_matrix(k, l, -1.0, 1.0);
        let dense_t = xd.t().dot(&b);
        let sparse_t = x.transpose_matmul(b.view()).expect("shapes agree");
        let scale_t = abs_x.t().dot(&b.mapv(f64::abs));
        prop_assert!(worst_ratio(sparse_t.view(), dense_t.view(), scale_t.view(), k) <= 1.0);
    }
}

/// Rows split among threads give the same rows as one thread: each row is
/// computed by one thread in the same order whatever the split, so the
/// results are identical, not merely close.
#[test]
fn threads_split_the_rows_without_changing_them() {
    let mut rng = TestRng::new(41);
    let xd = sparse_dense(&mut rng, 700, 300, 0.05, 1.0);
    let x = Csr::from_dense(xd.view()).expect("finite");
    let w = rng.uniform_matrix(300, 120, -1.0, 1.0);
    assert!(x.nnz() * 120 >= 1 << 18, "large enough for the threaded path");
    set_blas_threads(1);
    let one = x.matmul(w.view()).expect("product");
    set_blas_threads(2);
    let two = x.matmul(w.view()).expect("product");
    set_blas_threads(1);
    assert_eq!(one, two);
    let scale = xd.mapv(f64::abs).dot(&w.mapv(f64::abs));
    assert!(worst_ratio(one.view(), xd.dot(&w).view(), scale.view(), 300) <= 1.0);
}

/// Scipy's CSR may list a row's columns out of order and repeat one: the
/// products read it as the dense matrix with the repeats added.
#[test]
fn unsorted_and_repeated_indices_mean_their_sum() {
    let x = Csr::try_new(2, 3, vec![0, 3, 4], vec![2, 0, 2, 1], vec![1.0, 2.0, 0.5, -1.0]).expect("valid");
    let xd = x.to_dense();
    assert_eq!(xd, ndarray::array![[2.0, 0.0, 1.5], [0.0, -1.0, 0.0]]);
    let w = ndarray::array![[1.0, 2.0], [3.0, 4.0], [0.25, -2.0]];
    assert_eq!(x.matmul(w.view()).expect("product"), xd.dot(&w));
    let b = ndarray::array![[1.0], [2.0]];
    assert_eq!(x.transpose_matmul(b.view()).expect("product"), xd.t().dot(&b));
}
