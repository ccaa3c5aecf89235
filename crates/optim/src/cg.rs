//! Conjugate gradient for a symmetric positive definite system `A x = b`
//! given as a matrix-free operator.
//!
//! DEC's Step A (Grippo, Manno & Sciandrone 2016) solves the ridge problem in
//! the output weights, `H̃ λ = u`, by CG and stops by their rule (38):
//! `‖H̃ λ − u‖ / ‖u‖ ≤ 10⁻⁶`. [`ConjugateGradient::solve`] stops on that rule
//! with the *true* residual: when the recursively updated residual passes
//! the tolerance, `A x` is formed once more and the test is repeated on
//! `b − A x` (CG's recursive residual drifts from the true one in floating
//! point); if the true residual fails it, CG restarts from `x`.

use std::fmt;

/// A symmetric positive definite operator `x ↦ A x`.
pub trait LinearOperator {
    /// The dimension `n` (A is n×n).
    fn dim(&self) -> usize;
    /// `y ← A x` (`x.len() == y.len() == self.dim()`).
    fn apply(&mut self, x: &[f64], y: &mut [f64]);
}

/// A closure as a [`LinearOperator`] of a given dimension.
pub struct FnOperator<F> {
    n: usize,
    f: F,
}

impl<F: FnMut(&[f64], &mut [f64])> FnOperator<F> {
    /// The operator `y ← f(x)` on vectors of length `n`.
    pub fn new(n: usize, f: F) -> Self {
        Self { n, f }
    }
}

impl<F: FnMut(&[f64], &mut [f64])> LinearOperator for FnOperator<F> {
    fn dim(&self) -> usize {
        self.n
    }
    fn apply(&mut self, x: &[f64], y: &mut [f64]) {
        (self.f)(x, y)
    }
}

/// How a CG solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CgReport {
    /// CG iterations (operator applications beyond the residual checks).
    pub iterations: usize,
    /// Operator applications in all.
    pub applications: usize,
    /// The true relative residual `‖b − A x‖ / ‖b‖` at the end (0 for b = 0).
    pub relative_residual: f64,
    /// Whether the tolerance was met (otherwise the iteration limit was hit).
    pub converged: bool,
}

/// Why a CG solve could not run or continue.
#[derive(Clone, Debug, PartialEq)]
pub enum CgError {
    /// A parameter is outside its range.
    InvalidParameter {
        /// Its name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must lie in.
        range: &'static str,
    },
    /// `b` or `x` does not have the operator's length.
    Dimension {
        /// The operator's dimension.
        expected: usize,
        /// The offending length.
        found: usize,
    },
    /// `pᵀ A p ≤ 0` for a search direction `p ≠ 0`: the operator is not
    /// positive definite (or not symmetric).
    NotPositiveDefinite {
        /// The iteration at which it was found.
        iteration: usize,
        /// The curvature `pᵀ A p` found.
        curvature: f64,
    },
    /// A non-finite value appeared (in `b`, `x` or `A x`).
    NonFinite {
        /// Where.
        what: &'static str,
    },
}

impl fmt::Display for CgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidParameter { name, value, range } => {
                write!(f, "conjugate gradient parameter {name} = {value} must lie in {range}")
            }
            Self::Dimension { expected, found } => {
                write!(
                    f,
                    "vector of length {found} given for an operator of dimension {expected}"
                )
            }
            Self::NotPositiveDefinite { iteration, curvature } => write!(
                f,
                "the operator is not positive definite: pᵀAp = {curvature:e} at CG iteration {iteration}"
            ),
            Self::NonFinite { what } => write!(f, "non-finite values in {what}"),
        }
    }
}

impl std::error::Error for CgError {}

/// Conjugate gradient with a relative-residual tolerance (rule (38)) and an
/// iteration limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConjugateGradient {
    rel_tol: f64,
    max_iter: usize,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl ConjugateGradient {
    /// Stop when `‖b − A x‖ ≤ rel_tol · ‖b‖` (the paper: `rel_tol = 1e-6`) or
    /// after `max_iter` iterations.
    ///
    /// # Errors
    /// [`CgError::InvalidParameter`] unless `0 < rel_tol < 1`.
    pub fn new(rel_tol: f64, max_iter: usize) -> Result<Self, CgError> {
        if !(rel_tol > 0.0 && rel_tol < 1.0) {
            return Err(CgError::InvalidParameter {
                name: "rel_tol",
                value: rel_tol,
                range: "(0, 1)",
            });
        }
        Ok(Self { rel_tol, max_iter })
    }

    /// Solve `A x = b` from the starting point in `x` (overwritten by the
    /// solution).
    ///
    /// # Errors
    /// [`CgError::Dimension`], [`CgError::NonFinite`], or
    /// [`CgError::NotPositiveDefinite`] (then `x` holds the last iterate).
    pub fn solve<A: LinearOperator + ?Sized>(&self, a: &mut A, b: &[f64], x: &mut [f64]) -> Result<CgReport, CgError> {
        let n = a.dim();
        for len in [b.len(), x.len()] {
            if len != n {
                return Err(CgError::Dimension {
                    expected: n,
                    found: len,
                });
            }
        }
        if !b.iter().chain(x.iter()).all(|v| v.is_finite()) {
            return Err(CgError::NonFinite {
                what: "b or the starting x",
            });
        }
        let b_norm = dot(b, b).sqrt();
        let mut report = CgReport {
            iterations: 0,
            applications: 0,
            relative_residual: 0.0,
            converged: true,
        };
        if b_norm == 0.0 {
            x.iter_mut().for_each(|v| *v = 0.0);
            return Ok(report);
        }
        let target = self.rel_tol * b_norm;
        let (mut r, mut p, mut ap) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        // r = b − A x, the true residual.
        let true_residual = |a: &mut A, x: &[f64], r: &mut [f64], ap: &mut [f64], report: &mut CgReport| {
            a.apply(x, ap);
            report.applications += 1;
            for ((ri, bi), ai) in r.iter_mut().zip(b).zip(ap.iter()) {
                *ri = bi - ai;
            }
            let rr = dot(r, r);
            if rr.is_finite() {
                Ok(rr)
            } else {
                Err(CgError::NonFinite { what: "A x" })
            }
        };
        let mut rr = true_residual(a, x, &mut r, &mut ap, &mut report)?;
        loop {
            // (Re)start from the true residual.
            if rr.sqrt() <= target {
                report.relative_residual = rr.sqrt() / b_norm;
                return Ok(report);
            }
            p.copy_from_slice(&r);
            loop {
                if report.iterations == self.max_iter {
                    let rr_true = true_residual(a, x, &mut r, &mut ap, &mut report)?;
                    report.relative_residual = rr_true.sqrt() / b_norm;
                    report.converged = rr_true.sqrt() <= target;
                    return Ok(report);
                }
                a.apply(&p, &mut ap);
                report.applications += 1;
                report.iterations += 1;
                let curvature = dot(&p, &ap);
                if !curvature.is_finite() {
                    return Err(CgError::NonFinite { what: "A x" });
                }
                if curvature <= 0.0 {
                    return Err(CgError::NotPositiveDefinite {
                        iteration: report.iterations,
                        curvature,
                    });
                }
                let alpha = rr / curvature;
                for ((xi, ri), (pi, ai)) in x.iter_mut().zip(r.iter_mut()).zip(p.iter().zip(&ap)) {
                    *xi += alpha * pi;
                    *ri -= alpha * ai;
                }
                let rr_new = dot(&r, &r);
                if rr_new.sqrt() <= target {
                    // Confirm on the true residual; restart if it fails.
                    rr = true_residual(a, x, &mut r, &mut ap, &mut report)?;
                    break;
                }
                let beta = rr_new / rr;
                for (pi, ri) in p.iter_mut().zip(&r) {
                    *pi = ri + beta * *pi;
                }
                rr = rr_new;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use linalg_core::kernels::{self, Flops, Op, Owned, Tri};
    use proptest::prelude::*;

    /// `A = BᵀB + μI` with `B` random (n×n): κ(A) up to about ‖B‖²/μ.
    pub(crate) fn spd(seed: u64, n: usize, mu: f64) -> Owned {
        let mut s = seed | 1;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let entries: Vec<f64> = (0..n * n).map(|_| rnd()).collect();
        let b = Owned::from_fn(n, n, |i, j| entries[i + j * n]);
        let mut a = Owned::scaled_identity(n, mu);
        kernels::syrk(&mut Flops::default(), 1.0, b.as_ref(), Op::T, 1.0, a.as_mut());
        kernels::symmetrize_upper(&mut a.as_mut());
        a
    }

    pub(crate) fn matvec(a: &Owned, x: &[f64], y: &mut [f64]) {
        kernels::gemv(&mut Flops::default(), 1.0, a.as_ref(), Op::N, x, 0.0, y);
    }

    proptest! {
        /// Random SPD systems (κ from about 1 to 2e5; tolerances down to 1e-9,
        /// above the attainable ε·κ): CG meets rule (38) on the true
        /// residual, and the error against a direct solve (Cholesky) is
        /// within κ(A)·tol relative (the residual bound) plus the direct
        /// solve's own κ·ε.
        #[test]
        fn solves_random_spd_systems_to_the_tolerance(
            seed in any::<u64>(), n in 1usize..60, log_mu in -4.0f64..1.0, tol_exp in 3i32..10,
        ) {
            let a = spd(seed, n, 10f64.powf(log_mu));
            let x_true: Vec<f64> = (0..n).map(|i| ((i * 7 + 3) % 11) as f64 - 5.0).collect();
            let mut b = vec![0.0; n];
            matvec(&a, &x_true, &mut b);
            let tol = 10f64.powi(-tol_exp);
            let cg = ConjugateGradient::new(tol, 100 * n + 100).unwrap();
            let mut x = vec![0.0; n];
            let mut op = FnOperator::new(n, |v: &[f64], w: &mut [f64]| matvec(&a, v, w));
            let rep = cg.solve(&mut op, &b, &mut x).unwrap();
            // The residual claimed is the true one, and within tolerance.
            let mut ax = vec![0.0; n];
            matvec(&a, &x, &mut ax);
            let res = ax.iter().zip(&b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>().sqrt();
            let bn = dot(&b, &b).sqrt();
            prop_assert!(rep.converged, "not converged in {} iterations: {:?}", rep.iterations, rep);
            prop_assert!(rep.relative_residual <= tol);
            prop_assert!((res / bn - rep.relative_residual).abs() <= 1e-12 + 1e-6 * rep.relative_residual);
            // Against the direct solution.
            let mut f = a.clone();
            let mut fl = Flops::default();
            kernels::potrf(&mut fl, Tri::Upper, f.as_mut()).unwrap();
            let mut xd = Owned::from_fn(n, 1, |i, _| b[i]);
            kernels::potrs_upper(&mut fl, f.as_ref(), xd.as_mut());
            let w = kernels::syevd(&mut fl, a.clone().as_mut()).unwrap();
            let kappa = w.iter().cloned().fold(0.0, f64::max) / w.iter().cloned().fold(f64::INFINITY, f64::min);
            let xn = (0..n).map(|i| xd.at(i, 0).powi(2)).sum::<f64>().sqrt();
            let err = (0..n).map(|i| (x[i] - xd.at(i, 0)).powi(2)).sum::<f64>().sqrt();
            let bound = kappa * (rep.relative_residual + 4.0 * n as f64 * f64::EPSILON);
            prop_assert!(err <= bound * xn, "‖x − x_direct‖/‖x‖ = {:.3e} > {:.3e} (κ = {:.2e})", err / xn, bound, kappa);
        }
    }

    #[test]
    fn well_conditioned_systems_converge_within_n_iterations() {
        let n = 40;
        let a = spd(11, n, 1.0);
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut x = vec![0.0; n];
        let mut op = FnOperator::new(n, |v: &[f64], w: &mut [f64]| matvec(&a, v, w));
        let rep = ConjugateGradient::new(1e-6, 1000)
            .unwrap()
            .solve(&mut op, &b, &mut x)
            .unwrap();
        assert!(rep.converged && rep.relative_residual <= 1e-6);
        assert!(rep.iterations <= n, "{} iterations", rep.iterations);
        // One application for the starting residual and one to confirm.
        assert_eq!(rep.applications, rep.iterations + 2);
    }

    #[test]
    fn errors_and_edge_cases() {
        assert!(matches!(
            ConjugateGradient::new(0.0, 10),
            Err(CgError::InvalidParameter { .. })
        ));
        assert!(matches!(
            ConjugateGradient::new(1.5, 10),
            Err(CgError::InvalidParameter { .. })
        ));
        let cg = ConjugateGradient::new(1e-8, 100).unwrap();
        // b = 0: x = 0 without iterations.
        let mut x = vec![3.0, 4.0];
        let mut id = FnOperator::new(2, |v: &[f64], w: &mut [f64]| w.copy_from_slice(v));
        let rep = cg.solve(&mut id, &[0.0, 0.0], &mut x).unwrap();
        assert_eq!((x, rep.iterations), (vec![0.0, 0.0], 0));
        // An indefinite operator.
        let mut indef = FnOperator::new(2, |v: &[f64], w: &mut [f64]| {
            w[0] = v[0];
            w[1] = -v[1];
        });
        let err = cg.solve(&mut indef, &[0.0, 1.0], &mut [0.0, 0.0]).unwrap_err();
        assert!(
            matches!(err, CgError::NotPositiveDefinite { iteration: 1, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("not positive definite"));
        // Lengths and non-finite inputs.
        let err = cg.solve(&mut id, &[1.0], &mut [0.0, 0.0]).unwrap_err();
        assert_eq!(err, CgError::Dimension { expected: 2, found: 1 });
        let err = cg.solve(&mut id, &[f64::NAN, 1.0], &mut [0.0, 0.0]).unwrap_err();
        assert!(matches!(err, CgError::NonFinite { .. }));
        // The iteration limit: not converged, the true residual reported.
        let a = spd(5, 30, 1e-4);
        let mut op = FnOperator::new(30, |v: &[f64], w: &mut [f64]| matvec(&a, v, w));
        let b = vec![1.0; 30];
        let rep = ConjugateGradient::new(1e-12, 3)
            .unwrap()
            .solve(&mut op, &b, &mut vec![0.0; 30])
            .unwrap();
        assert!(!rep.converged && rep.iterations == 3 && rep.relative_residual > 1e-12);
    }
}
