//! Minimum-norm least squares by a rank-revealing QR (Householder QR with
//! column pivoting) and a complete orthogonal decomposition — the method of
//! LAPACK's `dgelsy`, in pure Rust.
//!
//! For `A` (m×n) and `Y` (m×M), find `W` (n×M) minimizing `‖AW − Y‖_F`, and
//! among the minimizers the one of least norm:
//!
//! 1. `A P = Q R` with column pivoting (`P` a permutation, `|R₁₁| ≥ |R₂₂| ≥ …`).
//! 2. Numerical rank `r` = the number of diagonal entries with
//!    `|R_kk| > max(m, n)·ε·|R₁₁|`; the trailing rows of `R` are dropped.
//! 3. If `r = n` (full column rank), `W = P R⁻¹ (QᵀY)[..n]`: the unique
//!    least-squares solution, which is then the minimum-norm one.
//! 4. If `r < n`, the `r×n` block `[R₁₁ R₁₂]` is reduced by a second
//!    Householder QR of its transpose, `[R₁₁ R₁₂]ᵀ = Z [S; 0]`, so
//!    `A P = Q [Sᵀ 0; 0 0] Zᵀ` (complete orthogonal decomposition). Then
//!    `W = P Z [S⁻ᵀ (QᵀY)[..r]; 0]` is the minimum-norm solution of the
//!    rank-`r` problem (the one `pinv` gives with the same rank decision).
//!
//! Cost: `2mn² − 2n³/3` flops for the QR, `2mnM` to apply `Qᵀ` to `Y`, plus
//! `O(n²r)` for step 4 — unblocked (BLAS-1 style loops over contiguous
//! columns), so slower than LAPACK on large problems; it is the reference
//! least-squares solver of the ELM, not the fast path (that is the ridge
//! solution through `linalg-core`).
//!
//! ```
//! use models::elm::lstsq::lstsq;
//! use ndarray::array;
//! // Two identical columns: rank 1, the minimum-norm solution splits the weight.
//! let a = array![[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]];
//! let y = array![[2.0], [4.0], [6.0]];
//! let sol = lstsq(a.view(), y.view())?;
//! assert_eq!(sol.rank, 1);
//! assert!((sol.solution[[0, 0]] - 1.0).abs() < 1e-12);
//! assert!((sol.solution[[1, 0]] - 1.0).abs() < 1e-12);
//! # Ok::<(), models::ModelError>(())
//! ```

use ndarray::{Array2, ArrayView2};

use crate::error::Result;
use crate::validate;

/// The result of [`lstsq`].
#[derive(Clone, Debug, PartialEq)]
pub struct LstsqSolution {
    /// The minimum-norm least-squares solution `W` (n×M).
    pub solution: Array2<f64>,
    /// The numerical rank of `A` decided by the pivoted QR.
    pub rank: usize,
}

/// Minimum-norm least-squares solution of `A W ≈ Y` (see the [module
/// docs](self)).
///
/// # Errors
/// [`linalg_core::Error::Empty`] or
/// [`linalg_core::Error::NonFinite`] for an empty or
/// non-finite `a` or `y`, [`linalg_core::Error::Shape`] if
/// their row counts differ.
pub fn lstsq(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<LstsqSolution> {
    validate::matrix("least-squares matrix A", a)?;
    validate::matrix("least-squares targets Y", y)?;
    validate::rows("least-squares targets Y", y, a.nrows())?;
    let (m, n) = a.dim();
    let outputs = y.ncols();
    let mut qr = ColMajor::from_view(a);
    let mut rhs = ColMajor::from_view(y);
    let (perm, _) = pivoted_qr(&mut qr, Some(&mut rhs));

    // Numerical rank from the diagonal of R.
    let steps = m.min(n);
    let r00 = qr.at(0, 0).abs();
    let tol = m.max(n) as f64 * f64::EPSILON * r00;
    let rank = if r00 == 0.0 {
        0
    } else {
        (0..steps).take_while(|&k| qr.at(k, k).abs() > tol).count()
    };

    // u (n×M, in pivoted order): the solution before undoing P.
    let mut u = ColMajor::zeros(n, outputs);
    if rank > 0 {
        if rank == n {
            // R₁₁ u = c by back substitution.
            for c in 0..outputs {
                let rhs_col = rhs.col(c);
                let u_col = u.col_mut(c);
                u_col.copy_from_slice(&rhs_col[..n]);
                back_substitute(&qr, rank, u_col);
            }
        } else {
            // Complete orthogonal decomposition: QR of [R₁₁ R₁₂]ᵀ (n×r).
            let mut t = ColMajor::zeros(n, rank);
            for k in 0..rank {
                for j in k..n {
                    t.set(j, k, qr.at(k, j));
                }
            }
            let taus = householder_qr(&mut t);
            for c in 0..outputs {
                // Sᵀ z = c (forward substitution; S is the upper triangle of t).
                let mut z = rhs.col(c)[..rank].to_vec();
                for i in 0..rank {
                    let mut s = z[i];
                    for (k, zk) in z.iter().enumerate().take(i) {
                        s -= t.at(k, i) * zk;
                    }
                    z[i] = s / t.at(i, i);
                }
                // u = Z [z; 0] = H₁ H₂ ⋯ H_r [z; 0].
                let u_col = u.col_mut(c);
                u_col[..rank].copy_from_slice(&z);
                for k in (0..rank).rev() {
                    apply_reflector(&t.col(k)[k + 1..], taus[k], &mut u_col[k..]);
                }
            }
        }
    }

    // W[perm[i], :] = u[i, :].
    let mut w = Array2::zeros((n, outputs));
    for c in 0..outputs {
        let u_col = u.col(c);
        for (i, &p) in perm.iter().enumerate() {
            w[[p, c]] = u_col[i];
        }
    }
    Ok(LstsqSolution { solution: w, rank })
}

/// A dense column-major matrix: columns are contiguous slices, which is what
/// Householder updates touch.
#[derive(Clone, Debug)]
struct ColMajor {
    data: Vec<f64>,
    rows: usize,
}

impl ColMajor {
    fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            data: vec![0.0; rows * cols],
            rows,
        }
    }

    fn from_view(a: ArrayView2<'_, f64>) -> Self {
        let (rows, cols) = a.dim();
        let mut m = Self::zeros(rows, cols);
        for (j, col) in a.columns().into_iter().enumerate() {
            for (d, &v) in m.col_mut(j).iter_mut().zip(col.iter()) {
                *d = v;
            }
        }
        m
    }

    fn cols(&self) -> usize {
        self.data.len().checked_div(self.rows).unwrap_or(0)
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[j * self.rows + i]
    }

    fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[j * self.rows + i] = v;
    }

    fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }

    fn col_mut(&mut self, j: usize) -> &mut [f64] {
        &mut self.data[j * self.rows..(j + 1) * self.rows]
    }

    fn swap_cols(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let (lo, hi) = (i.min(j), i.max(j));
        let (left, right) = self.data.split_at_mut(hi * self.rows);
        left[lo * self.rows..(lo + 1) * self.rows].swap_with_slice(&mut right[..self.rows]);
    }

    /// Column `k` (read) and columns `k+1..` (written) at once.
    fn split_at_col(&mut self, k: usize) -> (&[f64], &mut [f64]) {
        let (left, right) = self.data.split_at_mut((k + 1) * self.rows);
        (&left[k * self.rows..], right)
    }
}

/// `‖x‖₂` without overflow or harmful underflow (scaled by `max |xᵢ|`).
fn norm2(x: &[f64]) -> f64 {
    let scale = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return 0.0;
    }
    let inv = 1.0 / scale;
    scale * x.iter().map(|v| (v * inv) * (v * inv)).sum::<f64>().sqrt()
}

/// Householder reflector `H = I − τ v vᵀ`, `v₀ = 1`, with `H x = β e₁`
/// (LAPACK `dlarfg`): overwrites `x₀` by `β` and `x₁..` by `v₁..`; returns
/// `τ` (`0` when `x₁.. = 0`: `H = I`).
fn make_reflector(x: &mut [f64]) -> f64 {
    let Some((alpha, tail)) = x.split_first_mut() else {
        return 0.0;
    };
    let xnorm = norm2(tail);
    if xnorm == 0.0 {
        return 0.0;
    }
    let a = *alpha;
    let beta = -a.signum() * a.hypot(xnorm);
    let tau = (beta - a) / beta;
    let scale = 1.0 / (a - beta);
    tail.iter_mut().for_each(|v| *v *= scale);
    *alpha = beta;
    tau
}

/// `c ← (I − τ v vᵀ) c` with `v = [1; v_tail]`; `c.len() == 1 + v_tail.len()`.
fn apply_reflector(v_tail: &[f64], tau: f64, c: &mut [f64]) {
    if tau == 0.0 {
        return;
    }
    let Some((c0, c_tail)) = c.split_first_mut() else {
        return;
    };
    let dot = *c0 + v_tail.iter().zip(c_tail.iter()).map(|(v, x)| v * x).sum::<f64>();
    let s = tau * dot;
    *c0 -= s;
    c_tail.iter_mut().zip(v_tail).for_each(|(x, v)| *x -= s * v);
}

/// Householder QR with column pivoting of `a` (m×n, in place: `R` in the upper
/// triangle, the reflectors below), applying `Qᵀ` to `rhs` as it goes.
/// Returns the permutation (`perm[i]` = original index of column `i`) and the
/// reflectors' `τ`. Column norms are downdated with LAPACK `dlaqp2`'s
/// safeguard (recomputed when cancellation has eaten half the digits).
fn pivoted_qr(a: &mut ColMajor, mut rhs: Option<&mut ColMajor>) -> (Vec<usize>, Vec<f64>) {
    let (m, n) = (a.rows, a.cols());
    let steps = m.min(n);
    let mut perm: Vec<usize> = (0..n).collect();
    let mut vn1: Vec<f64> = (0..n).map(|j| norm2(a.col(j))).collect();
    let mut vn2 = vn1.clone();
    let tol3z = f64::EPSILON.sqrt();
    let mut taus = Vec::with_capacity(steps);
    for k in 0..steps {
        // Pivot: the remaining column of largest partial norm.
        let p = (k..n).fold(k, |best, j| if vn1[j] > vn1[best] { j } else { best });
        if p != k {
            a.swap_cols(k, p);
            perm.swap(k, p);
            vn1.swap(k, p);
            vn2.swap(k, p);
        }
        let tau = make_reflector(&mut a.col_mut(k)[k..]);
        taus.push(tau);
        let (vk, rest) = a.split_at_col(k);
        let v_tail = &vk[k + 1..];
        for (off, col) in rest.chunks_exact_mut(m).enumerate() {
            apply_reflector(v_tail, tau, &mut col[k..]);
            // Downdate the partial norm of column j = k + 1 + off.
            let j = k + 1 + off;
            if vn1[j] != 0.0 {
                let ratio = col[k].abs() / vn1[j];
                let temp = (1.0 - ratio * ratio).max(0.0);
                let temp2 = temp * (vn1[j] / vn2[j]).powi(2);
                if temp2 <= tol3z {
                    vn1[j] = norm2(&col[k + 1..]);
                    vn2[j] = vn1[j];
                } else {
                    vn1[j] *= temp.sqrt();
                }
            }
        }
        if let Some(rhs) = rhs.as_deref_mut() {
            for c in 0..rhs.cols() {
                apply_reflector(v_tail, tau, &mut rhs.col_mut(c)[k..]);
            }
        }
    }
    (perm, taus)
}

/// Unpivoted Householder QR of `a` (m×n, m ≥ n) in place; returns the `τ`s.
fn householder_qr(a: &mut ColMajor) -> Vec<f64> {
    let (m, n) = (a.rows, a.cols());
    let steps = m.min(n);
    let mut taus = Vec::with_capacity(steps);
    for k in 0..steps {
        let tau = make_reflector(&mut a.col_mut(k)[k..]);
        taus.push(tau);
        let (vk, rest) = a.split_at_col(k);
        let v_tail = &vk[k + 1..];
        for col in rest.chunks_exact_mut(m) {
            apply_reflector(v_tail, tau, &mut col[k..]);
        }
    }
    taus
}

/// Solve `R[..r, ..r] x = b` in place (`R` the upper triangle of `qr`).
fn back_substitute(qr: &ColMajor, r: usize, b: &mut [f64]) {
    for i in (0..r).rev() {
        let mut s = b[i];
        for (j, bj) in b.iter().enumerate().take(r).skip(i + 1) {
            s -= qr.at(i, j) * bj;
        }
        b[i] = s / qr.at(i, i);
    }
}
