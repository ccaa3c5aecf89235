//! LAPACK wrappers: Cholesky (`dpotrf`), triangular inverse (`dtrtri`) and
//! the symmetric eigen-decomposition (`dsyevd`).

use std::os::raw::{c_char, c_int};

use super::{ci, Diag, Flops, MatMut, MatRef, Op, Side, Tri};
use crate::ffi;

/// Cholesky factorization in place (DPOTRF, `n³/3` flops): the chosen
/// triangle of `A` is overwritten by `L` (`A = LLᵀ`, `Tri::Lower`) or `U`
/// (`A = UᵀU`, `Tri::Upper`). `Err(k)` when the leading minor of order `k`
/// (1-based) is not positive definite.
pub fn potrf(fl: &mut Flops, tri: Tri, mut a: MatMut<'_>) -> Result<(), usize> {
    let Some(n) = square_order(fl, &a, "potrf") else {
        return Ok(());
    };
    let mut info: c_int = 0;
    let (nn, lda, uplo) = (ci(n), ci(a.ld), tri.lapack());
    // SAFETY: LAPACK reads/writes the n×n block with leading dimension lda.
    unsafe { ffi::dpotrf_(&uplo, &nn, a.ptr(), &lda, &mut info) };
    status(info, "dpotrf")
}

/// Solve `UᵀU·X = B` in place with the upper Cholesky factor `U` of
/// [`potrf`] (two DTRSM, `2k²·m` flops): the solve of a normal-equations
/// system `(AᵀA + λI)·W = AᵀY` once `U` is known.
pub fn potrs_upper(fl: &mut Flops, u: MatRef<'_>, mut b: MatMut<'_>) {
    for op in [Op::T, Op::N] {
        super::trsm(fl, Side::Left, Tri::Upper, op, Diag::NonUnit, 1.0, u, b.rb_mut());
    }
}

/// The order `n` of the square matrix `a`, its `n³/3` flops counted;
/// `None` for the empty matrix (nothing to do).
fn square_order(fl: &mut Flops, a: &MatMut<'_>, routine: &str) -> Option<usize> {
    let n = a.rows;
    assert_eq!(a.cols, n, "{routine}: square matrix expected");
    if n == 0 {
        return None;
    }
    fl.add(n * n * n / 3);
    Some(n)
}

/// LAPACK's `info`: 0 is success, `k > 0` the 1-based position of the
/// failure, `k < 0` an invalid argument (a bug here, not the caller's input).
fn status(info: c_int, routine: &str) -> Result<(), usize> {
    match info {
        0 => Ok(()),
        k if k > 0 => Err(k as usize),
        k => panic!("{routine}: argument {} invalid (internal error)", -k),
    }
}

/// Triangular inverse in place (DTRTRI, `n³/3` flops). `Err(k)` when the
/// diagonal entry `k` (1-based) is exactly zero.
pub fn trtri(fl: &mut Flops, tri: Tri, diag: Diag, mut a: MatMut<'_>) -> Result<(), usize> {
    let Some(n) = square_order(fl, &a, "trtri") else {
        return Ok(());
    };
    let mut info: c_int = 0;
    let d = match diag {
        Diag::NonUnit => b'N' as c_char,
        Diag::Unit => b'U' as c_char,
    };
    let (nn, lda, uplo) = (ci(n), ci(a.ld), tri.lapack());
    // SAFETY: as potrf.
    unsafe { ffi::dtrtri_(&uplo, &d, &nn, a.ptr(), &lda, &mut info) };
    status(info, "dtrtri")
}

/// Eigen-decomposition of a symmetric matrix (upper triangle referenced),
/// in place: on return `a` holds the eigenvectors as columns and the result
/// the eigenvalues in ascending order (DSYEVD, about `9n³` flops counted).
/// `Err(info)` if the algorithm failed to converge.
pub fn syevd(fl: &mut Flops, mut a: MatMut<'_>) -> Result<Vec<f64>, i32> {
    let n = a.rows;
    assert_eq!(a.cols, n, "syevd: square matrix expected");
    let mut w = vec![0.0; n];
    if n == 0 {
        return Ok(w);
    }
    fl.add(9 * n * n * n);
    let (jobz, uplo) = (b'V' as c_char, b'U' as c_char);
    let (nn, lda) = (ci(n), ci(a.ld));
    let a_ptr = a.ptr();
    // One dsyevd call with the given workspaces (lengths −1: the size query).
    let mut dsyevd = |work: &mut [f64], lwork: c_int, iwork: &mut [c_int], liwork: c_int| {
        let mut info: c_int = 0;
        // SAFETY: a is n×n with the checked ld and w has n entries; in the
        // query (lengths −1) LAPACK writes only work[0] and iwork[0],
        // otherwise the workspaces have the sizes it asked for.
        unsafe {
            ffi::dsyevd_(
                &jobz,
                &uplo,
                &nn,
                a_ptr,
                &lda,
                w.as_mut_ptr(),
                work.as_mut_ptr(),
                &lwork,
                iwork.as_mut_ptr(),
                &liwork,
                &mut info,
            );
        }
        if info == 0 {
            Ok(())
        } else {
            Err(info)
        }
    };
    let (mut wq, mut iq) = ([0.0f64], [0 as c_int]);
    dsyevd(&mut wq, -1, &mut iq, -1)?;
    let lwork = (wq[0] as usize).max(1);
    let liwork = (iq[0] as usize).max(1);
    let mut work = vec![0.0; lwork];
    let mut iwork = vec![0 as c_int; liwork];
    dsyevd(&mut work, ci(lwork), &mut iwork, ci(liwork))?;
    Ok(w)
}
