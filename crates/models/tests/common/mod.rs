//! Test helpers that share no code with the crate's solvers: a seeded
//! generator, Gaussian elimination with partial pivoting, Jacobi eigenvalues
//! of a symmetric matrix, Frobenius norms.

#![allow(dead_code)]

use ndarray::{Array1, Array2, ArrayView2};

/// Unit roundoff.
pub const U: f64 = f64::EPSILON / 2.0;

#[allow(unused_imports)] // each test binary uses its own subset
pub use test_support::{fro, fro_diff, TestRng as Rng};

/// The tests' seeded generator (SplitMix64, independent of the crate's own
/// `models::rng`), in the family these tests' data was drawn from.
pub fn rng(seed: u64) -> Rng {
    Rng::salted(seed, 0xD1B5_4A32_D192_ED03)
}

/// `AᵀB` by plain loops (no BLAS).
pub fn at_b(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
    assert_eq!(a.nrows(), b.nrows());
    let mut c = Array2::zeros((a.ncols(), b.ncols()));
    for i in 0..a.ncols() {
        for j in 0..b.ncols() {
            c[[i, j]] = (0..a.nrows()).map(|k| a[[k, i]] * b[[k, j]]).sum();
        }
    }
    c
}

/// `A B` by plain loops (no BLAS).
pub fn a_b(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
    at_b(a.t(), b)
}

/// Solve `S X = B` by Gaussian elimination with partial pivoting.
pub fn gauss_solve(s: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
    let n = s.nrows();
    assert_eq!(s.ncols(), n);
    assert_eq!(b.nrows(), n);
    let mut a = s.to_owned();
    let mut x = b.to_owned();
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[[i, k]].abs().total_cmp(&a[[j, k]].abs()))
            .expect("non-empty pivot range");
        if p != k {
            for j in 0..n {
                a.swap([k, j], [p, j]);
            }
            for j in 0..x.ncols() {
                x.swap([k, j], [p, j]);
            }
        }
        let piv = a[[k, k]];
        assert!(piv != 0.0, "singular matrix in the test's Gaussian elimination");
        for i in k + 1..n {
            let f = a[[i, k]] / piv;
            if f == 0.0 {
                continue;
            }
            for j in k..n {
                a[[i, j]] -= f * a[[k, j]];
            }
            for j in 0..x.ncols() {
                x[[i, j]] -= f * x[[k, j]];
            }
        }
    }
    for k in (0..n).rev() {
        for j in 0..x.ncols() {
            let mut v = x[[k, j]];
            for i in k + 1..n {
                v -= a[[k, i]] * x[[i, j]];
            }
            x[[k, j]] = v / a[[k, k]];
        }
    }
    x
}

/// Eigenvalues of a symmetric matrix by the cyclic Jacobi method (ascending).
pub fn sym_eigenvalues(s: ArrayView2<'_, f64>) -> Array1<f64> {
    let n = s.nrows();
    let mut a = s.to_owned();
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[[i, j]] * a[[i, j]])
            .sum();
        let diag: f64 = (0..n).map(|i| a[[i, i]] * a[[i, i]]).sum();
        if off <= 1e-32 * diag {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[[p, q]] == 0.0 {
                    continue;
                }
                let theta = (a[[q, q]] - a[[p, p]]) / (2.0 * a[[p, q]]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..n {
                    let akp = a[[k, p]];
                    let akq = a[[k, q]];
                    a[[k, p]] = c * akp - sn * akq;
                    a[[k, q]] = sn * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[[p, k]];
                    let aqk = a[[q, k]];
                    a[[p, k]] = c * apk - sn * aqk;
                    a[[q, k]] = sn * apk + c * aqk;
                }
            }
        }
    }
    let mut ev: Vec<f64> = (0..n).map(|i| a[[i, i]]).collect();
    ev.sort_by(f64::total_cmp);
    Array1::from(ev)
}

/// Spectral facts about `A` (K×n) from the eigenvalues of `AᵀA`.
pub struct Spectrum {
    /// `‖A‖₂`.
    pub norm_a: f64,
    /// Smallest singular value of `A` (from the eigenvalues of `AᵀA`: only
    /// meaningful above `√(n ε)·‖A‖`).
    pub sigma_min: f64,
}

pub fn spectrum(a: ArrayView2<'_, f64>) -> Spectrum {
    let ev = sym_eigenvalues(at_b(a, a).view());
    let max = ev[ev.len() - 1].max(0.0);
    let min = ev[0].max(0.0);
    Spectrum {
        norm_a: max.sqrt(),
        sigma_min: min.sqrt(),
    }
}

/// The forward-error bound of a ridge solution `W = (AᵀA + λI)⁻¹AᵀY` computed
/// through the normal equations by `steps` backward-stable eliminations (as in
/// linalg-core's tests): forming `AᵀA`, `AᵀY` perturbs them by `γ‖A‖²`,
/// `γ‖A‖‖Y‖` with `γ = (K + n)u`; first-order perturbation of `RW = AᵀY`
/// gives `‖ΔW‖ ≤ γ(κ(R)‖W‖ + ‖R⁻¹‖‖A‖‖Y‖)` per elimination, the errors of
/// successive updates add (factor `steps`), `c = 2` absorbs the constants.
/// `kappa_power` = 2 for Alg. 2, whose recursion on `Q = R⁻¹` amplifies
/// rounding by `κ(R)²`.
pub fn ridge_tolerance(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    lambda: f64,
    steps: usize,
    kappa_power: i32,
) -> f64 {
    let (k, n) = a.dim();
    let sp = spectrum(a);
    let kappa_r = (sp.norm_a * sp.norm_a + lambda) / (sp.sigma_min * sp.sigma_min + lambda);
    let norm_rinv = 1.0 / (sp.sigma_min * sp.sigma_min + lambda);
    let gamma = (k + n) as f64 * U;
    2.0 * steps as f64 * gamma * (kappa_r.powi(kappa_power) * fro(w) + norm_rinv * sp.norm_a * fro(y))
}

/// The BLS tests' data: K samples of d inputs uniform on [−1, 1], M = 3 smooth targets.
pub fn bls_data(seed: u64, k: usize, d: usize) -> (Array2<f64>, Array2<f64>) {
    let mut rng = rng(seed);
    let x = rng.uniform_matrix(k, d, -1.0, 1.0);
    let y = Array2::from_shape_fn((k, 3), |(i, c)| {
        let r = x.row(i);
        let v = |j: usize| r[j % d];
        match c {
            0 => (2.0 * v(0) + v(1)).sin(),
            1 => v(2) * v(3) - 0.5 * v(4),
            _ => (3.0 * (v(5) - v(1))).tanh(),
        }
    });
    (x, y)
}

/// The ELM tests' data: K samples of 4 inputs uniform on [−3, 3] and 2
/// smooth targets.
pub fn elm_data(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut rng = rng(seed);
    let x = rng.uniform_matrix(k, 4, -3.0, 3.0);
    let y = Array2::from_shape_fn((k, 2), |(i, c)| {
        let r = x.row(i);
        if c == 0 {
            (r[0] + 0.5 * r[1]).sin() + 0.1 * r[2] * r[3]
        } else {
            (r[0] * r[2] / 9.0).tanh() - 0.2 * r[1]
        }
    });
    (x, y)
}
