//! BLAS-2 wrappers (matrix–vector: `dgemv`, `dtrmv`, `dsymv`, `dsyr`,
//! `dger`, and the dot product), and the streaming `Aᵀx` for a tall `A`.
//!
//! Symmetric and upper triangular products run in [`super::upper_triangle`],
//! and small general ones in plain loops here: OpenBLAS's threads would
//! otherwise be woken for every step of a one-node update.

use super::{ci, upper_triangle, Diag, Flops, MatMut, MatRef, Op, Tri};
use crate::ffi;

/// Matrices with fewer entries than this (1 MB) go to this module's plain
/// loops on the calling thread ([`gemv`], [`ger`]) instead of OpenBLAS,
/// whose worker threads, once woken, spin for a while and share the cores
/// with the next pass over the hidden matrix (see [`super::upper_triangle`]).
const SERIAL_BELOW: usize = 1 << 17;

/// Whether `Aᵀx` goes to [`dot_columns`]: tall, and large enough (≥ 1 MB)
/// that two threads pay for their start.
pub(super) fn streams(a: &MatRef<'_>) -> bool {
    a.rows >= 256 && a.rows * a.cols >= SERIAL_BELOW
}

/// `Σ u[i]·v[i]` with eight independent accumulators (vectorizes).
pub(super) fn dot8(u: &[f64], v: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (cu, cv) = (u.chunks_exact(8), v.chunks_exact(8));
    let tail: f64 = cu.remainder().iter().zip(cv.remainder()).map(|(p, q)| p * q).sum();
    for (p, q) in cu.zip(cv) {
        for i in 0..8 {
            acc[i] += p[i] * q[i];
        }
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// `y[i] += a·x[i]`.
pub(super) fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// `y ← alpha·Aᵀx + beta·y` for a column-major `A` (K×n): one dot product
/// per column, the columns split evenly over [`crate::threads::blas_threads`]
/// threads.
///
/// This is the one product of a single-node update that touches the whole
/// hidden matrix (Zhu & Wei's `p = Aᵀh`, `2Kn` flops on `8Kn` bytes), so it
/// is bound by reading `A` once. OpenBLAS's DGEMV (transposed) reaches about
/// 60% of a plain read loop on the development machine
/// (docs/performance.md); eight independent accumulators per column, on
/// contiguous columns, run at the read loop's speed.
pub(super) fn dot_columns(alpha: f64, a: MatRef<'_>, x: &[f64], beta: f64, y: &mut [f64]) {
    // Four columns per pass over x: x is read once for four columns (it
    // does not stay in L2 at MNIST's K = 60000), with four independent
    // accumulators per column.
    fn dot4(c: [&[f64]; 4], x: &[f64]) -> [f64; 4] {
        let mut acc = [[0.0f64; 4]; 4];
        let n4 = x.len() / 4 * 4;
        for i in (0..n4).step_by(4) {
            let xv = [x[i], x[i + 1], x[i + 2], x[i + 3]];
            for (col, a) in c.iter().zip(acc.iter_mut()) {
                let s = &col[i..i + 4];
                for t in 0..4 {
                    a[t] += s[t] * xv[t];
                }
            }
        }
        let mut out = [0.0; 4];
        for ((col, a), o) in c.iter().zip(&acc).zip(&mut out) {
            let tail: f64 = col[n4..].iter().zip(&x[n4..]).map(|(p, q)| p * q).sum();
            *o = (a[0] + a[2]) + (a[1] + a[3]) + tail;
        }
        out
    }
    let work = |first: usize, ys: &mut [f64]| {
        let mut d = vec![0.0; ys.len()];
        let full = ys.len() / 4 * 4;
        for j in (0..full).step_by(4) {
            let c = first + j;
            let r = dot4([a.col(c), a.col(c + 1), a.col(c + 2), a.col(c + 3)], x);
            d[j..j + 4].copy_from_slice(&r);
        }
        for (j, dj) in d.iter_mut().enumerate().skip(full) {
            *dj = dot8(a.col(first + j), x);
        }
        for (yj, v) in ys.iter_mut().zip(d) {
            *yj = if beta == 0.0 { alpha * v } else { alpha * v + beta * *yj };
        }
    };
    let threads = crate::threads::blas_threads().clamp(1, 64).min(y.len().max(1));
    if threads <= 1 {
        work(0, y);
        return;
    }
    let share = y.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (t, ys) in y.chunks_mut(share).enumerate() {
            let work = &work;
            scope.spawn(move || work(t * share, ys));
        }
    });
}

pub(super) fn scale(mut c: MatMut<'_>, beta: f64) {
    for j in 0..c.cols {
        for x in c.col_mut(j) {
            *x = if beta == 0.0 { 0.0 } else { *x * beta };
        }
    }
}

/// `y ← alpha·op(A)·x + beta·y` (DGEMV, `2mn` flops).
pub fn gemv(fl: &mut Flops, alpha: f64, a: MatRef<'_>, ta: Op, x: &[f64], beta: f64, y: &mut [f64]) {
    let (m, n) = ta.dims(&a);
    assert!(x.len() == n && y.len() == m, "gemv: shapes");
    if m == 0 {
        return;
    }
    if n == 0 {
        y.iter_mut().for_each(|v| *v *= beta);
        return;
    }
    fl.add(2 * m * n);
    gemv_into(alpha, a, ta, x, beta, y);
}

/// [`gemv`] without the flop count or the empty cases (`op(A)` is m×n with
/// m, n ≥ 1; `x` has n entries, `y` m): the streaming kernel for a tall
/// `Aᵀx`, plain loops below [`SERIAL_BELOW`] entries, DGEMV otherwise.
pub(super) fn gemv_into(alpha: f64, a: MatRef<'_>, ta: Op, x: &[f64], beta: f64, y: &mut [f64]) {
    if ta == Op::T && streams(&a) {
        dot_columns(alpha, a, x, beta, y);
        return;
    }
    if a.rows * a.cols < SERIAL_BELOW {
        let combine = |yi: &mut f64, v: f64| *yi = if beta == 0.0 { alpha * v } else { alpha * v + beta * *yi };
        match ta {
            Op::T => {
                for (j, yj) in y.iter_mut().enumerate() {
                    combine(yj, dot8(a.col(j), x));
                }
            }
            Op::N => {
                let mut ax = vec![0.0; a.rows];
                for (j, &xj) in x.iter().enumerate() {
                    axpy(xj, a.col(j), &mut ax);
                }
                for (yi, v) in y.iter_mut().zip(ax) {
                    combine(yi, v);
                }
            }
        }
        return;
    }
    // SAFETY: vectors have the checked lengths and unit stride.
    unsafe { dgemv_strided(ta, alpha, a, x.as_ptr(), 1, beta, y.as_mut_ptr(), 1) }
}

/// `y ← alpha·op(A)·x + beta·y` (DGEMV) on raw strided vectors.
///
/// # Safety
///
/// `x` must point to `cols(op(A))` readable entries at stride `incx`, and `y`
/// to `rows(op(A))` writable entries at stride `incy`, not overlapping `A`.
pub(super) unsafe fn dgemv_strided(
    ta: Op,
    alpha: f64,
    a: MatRef<'_>,
    x: *const f64,
    incx: usize,
    beta: f64,
    y: *mut f64,
    incy: usize,
) {
    // SAFETY: A's extent is checked by its descriptor; the caller vouches for
    // x and y.
    unsafe {
        ffi::cblas_dgemv(
            ffi::COL_MAJOR,
            ta.cblas(),
            ci(a.rows),
            ci(a.cols),
            alpha,
            a.ptr(),
            ci(a.ld),
            x,
            ci(incx),
            beta,
            y,
            ci(incy),
        );
    }
}

/// `x ← op(T)·x` with triangular `T` (DTRMV, `n²` flops).
pub fn trmv(fl: &mut Flops, tri: Tri, op: Op, diag: Diag, t: MatRef<'_>, x: &mut [f64]) {
    let n = x.len();
    assert!(t.rows == n && t.cols == n, "trmv: shapes");
    if n == 0 {
        return;
    }
    fl.add(n * n);
    if tri == Tri::Upper {
        upper_triangle::trmv_upper(crate::threads::blas_threads(), op == Op::T, diag == Diag::Unit, t, x);
        return;
    }
    // SAFETY: see gemv.
    unsafe {
        ffi::cblas_dtrmv(
            ffi::COL_MAJOR,
            tri.cblas(),
            op.cblas(),
            diag.cblas(),
            ci(n),
            t.ptr(),
            ci(t.ld),
            x.as_mut_ptr(),
            1,
        );
    }
}

/// `y ← alpha·S·x + beta·y` with symmetric `S` stored in its upper triangle
/// (DSYMV, `2n²` flops).
pub fn symv(fl: &mut Flops, alpha: f64, s: MatRef<'_>, x: &[f64], beta: f64, y: &mut [f64]) {
    let n = x.len();
    assert!(s.rows == n && s.cols == n && y.len() == n, "symv: shapes");
    if n == 0 {
        return;
    }
    fl.add(2 * n * n);
    upper_triangle::symv_upper(crate::threads::blas_threads(), alpha, s, x, beta, y);
}

/// Upper triangle of `S ← S + alpha·x·xᵀ` (DSYR, `n²` flops).
pub fn syr(fl: &mut Flops, alpha: f64, x: &[f64], s: MatMut<'_>) {
    let n = x.len();
    assert!(s.rows == n && s.cols == n, "syr: shapes");
    if n == 0 {
        return;
    }
    fl.add(n * n);
    upper_triangle::syr_upper(crate::threads::blas_threads(), alpha, x, s);
}

/// Upper triangle of `S ← S + alpha·v·vᵀ` on its leading `v.len()` block,
/// then `y ← S·x` with the updated `S`, in one sweep over `S` (`v.len()² +
/// 2n²` flops; see `upper_triangle`).
pub fn syr_then_symv(fl: &mut Flops, alpha: f64, v: &[f64], s: MatMut<'_>, x: &[f64], y: &mut [f64]) {
    let n = x.len();
    assert!(
        s.rows == n && s.cols == n && y.len() == n && v.len() <= n,
        "syr_then_symv: shapes"
    );
    if n == 0 {
        return;
    }
    fl.add(v.len() * v.len() + 2 * n * n);
    upper_triangle::syr_then_symv_upper(crate::threads::blas_threads(), alpha, v, s, x, y);
}

/// `(Lᵀp, L·(d∘Lᵀp))` for a unit upper triangular `L` (upper part of `l`)
/// and a diagonal `d`, in one sweep over `L` (`2n² + n` flops, as two
/// DTRMV and a scaling).
pub fn ldlt_times_unit_upper(fl: &mut Flops, l: MatRef<'_>, d: &[f64], p: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = p.len();
    assert!(
        l.rows == n && l.cols == n && d.len() == n,
        "ldlt_times_unit_upper: shapes"
    );
    fl.add(2 * n * n + n);
    if n == 0 {
        return (vec![], vec![]);
    }
    upper_triangle::ldlt_times_unit_upper(crate::threads::blas_threads(), l, d, p)
}

/// `A ← A + alpha·x·yᵀ` (DGER, `2mn` flops).
pub fn ger(fl: &mut Flops, alpha: f64, x: &[f64], y: &[f64], mut a: MatMut<'_>) {
    assert!(a.rows == x.len() && a.cols == y.len(), "ger: shapes");
    if a.rows == 0 || a.cols == 0 {
        return;
    }
    fl.add(2 * a.rows * a.cols);
    if a.rows * a.cols < SERIAL_BELOW {
        for (j, &yj) in y.iter().enumerate() {
            axpy(alpha * yj, x, a.col_mut(j));
        }
        return;
    }
    // SAFETY: see gemv.
    unsafe {
        ffi::cblas_dger(
            ffi::COL_MAJOR,
            ci(a.rows),
            ci(a.cols),
            alpha,
            x.as_ptr(),
            1,
            y.as_ptr(),
            1,
            a.ptr(),
            ci(a.ld),
        );
    }
}

/// `xᵀy` (`2n` flops).
pub fn dot(fl: &mut Flops, x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "dot: lengths");
    fl.add(2 * x.len());
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}
