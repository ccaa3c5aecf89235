//! LAPACK wrappers: Cholesky (`dpotrf`), triangular inverse (`dtrtri`), the
//! symmetric eigen-decomposition (`dsyevd`) and the singular values and right
//! singular vectors of a tall matrix (`dtpqrt` streamed over row blocks, then
//! `dgesdd`).

use std::os::raw::{c_char, c_int};

use super::{ci, Diag, Flops, MatMut, MatRef, Op, Owned, Side, Tri};
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

/// Singular values and right singular vectors of a tall matrix: `C = U·Σ·Vᵀ`
/// with `U` not formed.
#[derive(Clone, Debug)]
pub struct TallSvd {
    /// σ₁ ≥ σ₂ ≥ … ≥ 0 (`min(K, q)` of them).
    pub sigma: Vec<f64>,
    /// `Vᵀ`, `min(K, q) × q`: row `j` is the right singular vector of `σⱼ`.
    pub vt: Owned,
}

/// Rows per block of [`tall_svd`]'s streamed QR: large enough for the
/// trailing updates to run as BLAS-3, small enough that the copied block
/// stays a fraction of `C`.
const QR_BLOCK_ROWS: usize = 2048;

/// Panel width of DTPQRT (its `NB`).
const QR_PANEL: usize = 64;

/// The QR factorization of `[R; B]` with `R` upper triangular (q×q) and `B`
/// a general m×q block (DTPQRT with `L = 0`, blocked in panels of 64
/// columns, `2mq²` flops counted): on return `R` holds the triangular factor
/// `R'` of `[R; B]`, so `R'ᵀR' = RᵀR + BᵀB` — a rank-m update of a Cholesky
/// factor by orthogonal transformations, without forming `RᵀR`. `B` is
/// overwritten by the Householder vectors; `R`'s strict lower triangle is
/// not referenced. `Err(info)` if DTPQRT reports an illegal argument.
pub fn triangle_qr_update(fl: &mut Flops, mut r: MatMut<'_>, mut b: MatMut<'_>) -> Result<(), i32> {
    let (m, q) = (b.rows, b.cols);
    assert!(
        r.rows == q && r.cols == q,
        "triangle_qr_update: R must be q×q for a block of q columns"
    );
    if m == 0 || q == 0 {
        return Ok(());
    }
    let nb = QR_PANEL.min(q);
    let mut t = vec![0.0; nb * q];
    let mut work = vec![0.0; nb * q];
    let (mm, nn, l, nbb, ldr, ldb, ldt) = (ci(m), ci(q), 0, ci(nb), ci(r.ld), ci(b.ld), ci(nb));
    let mut info: c_int = 0;
    // SAFETY: R is q×q (ld ≥ q), B m×q (ld ≥ m), T nb×q (ld nb) and work
    // nb×q, the sizes DTPQRT documents for L = 0.
    unsafe {
        ffi::dtpqrt_(
            &mm,
            &nn,
            &l,
            &nbb,
            r.ptr(),
            &ldr,
            b.ptr(),
            &ldb,
            t.as_mut_ptr(),
            &ldt,
            work.as_mut_ptr(),
            &mut info,
        );
    }
    if info != 0 {
        return Err(info);
    }
    fl.add(2 * m * q * q);
    Ok(())
}

/// The singular values and right singular vectors of the `K × q` matrix `c`
/// (`K ≥ q`), accurate to the SVD's backward error `O(ε‖C‖)` — unlike those
/// of `CᵀC`, which lose every singular value below `√ε·σ₁`.
///
/// `C = Q·R` by a QR factorization streamed over blocks of rows (DTPQRT on
/// `[R; C_block]`, so `c` is read once and left unchanged and the extra memory
/// is `O(q² + b·q)`, `b` = 2048 rows), then the SVD of the `q × q`
/// triangle `R = U_R·Σ·Vᵀ` (DGESDD). About `2Kq² + O(q³)` flops counted.
/// `Err(info)` if DTPQRT or DGESDD reports a failure.
pub fn tall_svd(fl: &mut Flops, c: MatRef<'_>) -> Result<TallSvd, i32> {
    let (k, q) = (c.rows, c.cols);
    assert!(k >= q, "tall_svd: a tall matrix (rows >= columns) expected");
    if q == 0 {
        return Ok(TallSvd {
            sigma: vec![],
            vt: Owned::zeros(0, 0),
        });
    }
    let mut r = Owned::zeros(q, q);
    let rows_per_block = QR_BLOCK_ROWS.max(q).min(k);
    let mut block = Owned::zeros(rows_per_block, q);
    let mut r0 = 0;
    while r0 < k {
        let m = rows_per_block.min(k - r0);
        let mut b = MatMut::new(&mut block.data, m, q, m);
        b.copy_from(c.sub(r0, 0, m, q));
        triangle_qr_update(fl, r.as_mut(), b)?;
        r0 += m;
    }
    drop(block);
    let (sigma, vt) = svd_right(fl, r)?;
    Ok(TallSvd { sigma, vt })
}

/// Singular values and `Vᵀ` of the square matrix `a` (destroyed), by DGESDD
/// with `U` written over `a` and discarded (about `(4/3 + 4)q³` flops counted).
fn svd_right(fl: &mut Flops, a: Owned) -> Result<(Vec<f64>, Owned), i32> {
    svd_square(fl, a).map(|(s, _, vt)| (s, vt))
}

/// The SVD `A = U·Σ·Vᵀ` of the square matrix `a` by DGESDD: `σ₁ ≥ … ≥ 0`,
/// `U` (written over `a`) and `Vᵀ` (about `(4/3 + 4)q³` flops counted).
/// `Err(info)` if DGESDD fails to converge.
pub fn svd_square(fl: &mut Flops, mut a: Owned) -> Result<(Vec<f64>, Owned, Owned), i32> {
    let n = a.rows;
    let mut s = vec![0.0; n];
    let mut vt = Owned::zeros(n, n);
    fl.add(16 * n * n * n / 3);
    let jobz = b'O' as c_char;
    let (nn, ld) = (ci(n), ci(n));
    let mut iwork = vec![0 as c_int; 8 * n];
    let mut dummy_u = [0.0f64];
    let one: c_int = 1;
    let mut gesdd = |a: &mut [f64], s: &mut [f64], vt: &mut [f64], work: &mut [f64], lwork: c_int| {
        let mut info: c_int = 0;
        // SAFETY: a and vt are n×n (ld n), s has n entries, iwork 8n; with
        // JOBZ = 'O' and M >= N, U is not referenced (LDU = 1 allowed). In
        // the query (lwork −1) LAPACK writes only work[0].
        unsafe {
            ffi::dgesdd_(
                &jobz,
                &nn,
                &nn,
                a.as_mut_ptr(),
                &ld,
                s.as_mut_ptr(),
                dummy_u.as_mut_ptr(),
                &one,
                vt.as_mut_ptr(),
                &ld,
                work.as_mut_ptr(),
                &lwork,
                iwork.as_mut_ptr(),
                &mut info,
            );
        }
        if info == 0 {
            Ok(())
        } else {
            Err(info)
        }
    };
    let mut query = [0.0f64];
    gesdd(&mut a.data, &mut s, &mut vt.data, &mut query, -1)?;
    let lwork = (query[0] as usize).max(1);
    let mut work = vec![0.0; lwork];
    gesdd(&mut a.data, &mut s, &mut vt.data, &mut work, ci(lwork))?;
    Ok((s, a, vt))
}
