//! BLAS-3 wrappers: matrix–matrix products (`dgemm`, `dsyrk`, `dtrmm`) and
//! triangular solves (`dtrsm`), falling back to the BLAS-2 routine when one
//! operand is a single vector.

use std::borrow::Cow;
use std::os::raw::c_int;

use super::blas2::{dot8, gemv_into, scale};
use super::upper_triangle;
use super::{ci, Diag, Flops, MatMut, MatRef, Op, Owned, Side, Tri};
use crate::ffi;

/// `C ← C·G` in place for a square `G` (q×q): `2mq²` flops, like the DGEMM
/// into a new matrix, but with a `ROW_PANEL × q` scratch panel instead of a
/// second `m × q` matrix (for the BLS's K×q blocks that is 0.96 GB saved).
///
/// Each panel of rows of `C` is multiplied into the scratch and copied back;
/// the rows of `C·G` depend only on the same rows of `C`, so the result is the
/// product exactly as DGEMM computes it panel by panel.
pub fn gemm_right_in_place(fl: &mut Flops, mut c: MatMut<'_>, g: MatRef<'_>) {
    const ROW_PANEL: usize = 512;
    let (m, q) = (c.rows, c.cols);
    assert!(
        g.rows == q && g.cols == q,
        "gemm_right_in_place: C is {m}×{q}, G is {}×{}",
        g.rows,
        g.cols
    );
    if m == 0 || q == 0 {
        return;
    }
    let mut panel = Owned::zeros(ROW_PANEL.min(m), q);
    for r0 in (0..m).step_by(ROW_PANEL) {
        let rows = ROW_PANEL.min(m - r0);
        let mut p = panel.as_mut().sub(0, 0, rows, q);
        gemm(fl, 1.0, c.rb().sub(r0, 0, rows, q), Op::N, g, Op::N, 0.0, p.rb_mut());
        c.rb_mut().sub(r0, 0, rows, q).copy_from(p.rb());
    }
}

/// `C ← alpha·op(A)·op(B) + beta·C` (DGEMM, `2mnk` flops).
pub fn gemm(fl: &mut Flops, alpha: f64, a: MatRef<'_>, ta: Op, b: MatRef<'_>, tb: Op, beta: f64, mut c: MatMut<'_>) {
    let (m, k) = ta.dims(&a);
    let (k2, n) = tb.dims(&b);
    assert!(
        k == k2 && c.rows == m && c.cols == n,
        "gemm: shapes ({m}×{k})·({k2}×{n}) → {}×{}",
        c.rows,
        c.cols
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        scale(c.rb_mut(), beta);
        return;
    }
    fl.add(2 * m * n * k);
    // A single output column (n = 1, e.g. Aᵀh for one new node): a
    // matrix–vector product (the streaming kernel for a tall Aᵀh). DGEMM
    // would pack the whole of op(A) — for a tall A that copy costs more than
    // the product itself, which is bound by reading A once.
    if n == 1 && tb == Op::N {
        gemv_into(alpha, a, ta, b.col(0), beta, c.col_mut(0));
        return;
    }
    // A single output row (m = 1, e.g. hᵀY, or one hidden node's outputs
    // wᵀXᵀ): cᵀ = alpha·op(B)ᵀ·a + beta·cᵀ, with op(A)'s one row (a's first
    // column for ta = T, its first row for ta = N) and c's row (stride ld)
    // gathered into vectors.
    if m == 1 {
        let x = first_row_of_op(&a, ta, k);
        let trans_b = match tb {
            Op::N => Op::T,
            Op::T => Op::N,
        };
        let mut y: Vec<f64> = (0..n).map(|j| if beta == 0.0 { 0.0 } else { c.at(0, j) }).collect();
        gemv_into(alpha, b, trans_b, &x, beta, &mut y);
        for (j, v) in y.into_iter().enumerate() {
            c.set(0, j, v);
        }
        return;
    }
    // SAFETY: shapes and leading dimensions were checked by the descriptors
    // and the assertion above; BLAS reads/writes only within those extents.
    unsafe {
        ffi::cblas_dgemm(
            ffi::COL_MAJOR,
            ta.cblas(),
            tb.cblas(),
            ci(m),
            ci(n),
            ci(k),
            alpha,
            a.ptr(),
            ci(a.ld),
            b.ptr(),
            ci(b.ld),
            beta,
            c.ptr(),
            ci(c.ld),
        );
    }
}

/// The first row of `op(A)` (k entries): `a`'s first column, borrowed, for
/// `ta = T`; its first row (stride ld), gathered, for `ta = N`.
fn first_row_of_op<'a>(a: &MatRef<'a>, ta: Op, k: usize) -> Cow<'a, [f64]> {
    match ta {
        Op::T => Cow::Borrowed(a.col(0)),
        Op::N => Cow::Owned((0..k).map(|j| a.at(0, j)).collect()),
    }
}

/// `C ← op(A)·op(B)` (DGEMM with α = 1, β = 0; `2·m·n·k` flops): the
/// plain product, the most common call of [`gemm`].
pub fn matmul(fl: &mut Flops, a: MatRef<'_>, ta: Op, b: MatRef<'_>, tb: Op, c: MatMut<'_>) {
    gemm(fl, 1.0, a, ta, b, tb, 0.0, c);
}

/// Upper triangle of `C ← alpha·op(A)ᵀ·op(A) + beta·C` where the product is
/// `AᵀA` for `ta = T` (C is `cols(A)²`) and `AAᵀ` for `ta = N` (DSYRK,
/// `n(n+1)k` flops). Only the upper triangle of `C` is referenced; call
/// [`symmetrize_upper`] to fill the lower one.
pub fn syrk(fl: &mut Flops, alpha: f64, a: MatRef<'_>, ta: Op, beta: f64, mut c: MatMut<'_>) {
    // cblas: trans = T computes AᵀA with A k×n.
    let (n, k) = match ta {
        Op::T => (a.cols, a.rows),
        Op::N => (a.rows, a.cols),
    };
    assert!(c.rows == n && c.cols == n, "syrk: C must be {n}×{n}");
    if n == 0 {
        return;
    }
    if k == 0 {
        scale(c.rb_mut(), beta);
        return;
    }
    fl.add(n * (n + 1) * k);
    if n == 1 {
        // One entry, ‖a‖² (e.g. hᵀh of one new node): a dot product, on this
        // thread (see blas2's SERIAL_BELOW).
        let v = first_row_of_op(&a, ta, k);
        let old = if beta == 0.0 { 0.0 } else { beta * c.at(0, 0) };
        c.set(0, 0, alpha * dot8(&v, &v) + old);
        return;
    }
    // SAFETY: see gemm.
    unsafe {
        ffi::cblas_dsyrk(
            ffi::COL_MAJOR,
            ffi::UPPER,
            ta.cblas(),
            ci(n),
            ci(k),
            alpha,
            a.ptr(),
            ci(a.ld),
            beta,
            c.ptr(),
            ci(c.ld),
        );
    }
}

/// Copy the upper triangle of a square matrix into its lower triangle.
pub fn symmetrize_upper(c: &mut MatMut<'_>) {
    let n = c.rows;
    for j in 0..n {
        for i in j + 1..n {
            let v = c.at(j, i);
            c.set(i, j, v);
        }
    }
}

fn tri_common(side: Side, t: &MatRef<'_>, b: &MatMut<'_>) -> usize {
    let k = match side {
        Side::Left => b.rows,
        Side::Right => b.cols,
    };
    assert!(t.rows == k && t.cols == k, "triangular operand must be {k}×{k}");
    k
}

/// When the right-hand side of a triangular product or solve is one vector
/// (a single column for `Side::Left`, a single row for `Side::Right`), the
/// BLAS-2 routine is used instead: returns its pointer, stride and the
/// operation to apply (`x·op(T) = (op(T)ᵀ·xᵀ)ᵀ` for a row).
fn single_vector(side: Side, op: Op, b: &mut MatMut<'_>) -> Option<(*mut f64, c_int, Op)> {
    match side {
        Side::Left if b.cols == 1 => Some((b.ptr(), 1, op)),
        Side::Right if b.rows == 1 => {
            let flipped = match op {
                Op::N => Op::T,
                Op::T => Op::N,
            };
            Some((b.ptr(), ci(b.ld), flipped))
        }
        _ => None,
    }
}

/// `B ← alpha·op(T)·B` or `B ← alpha·B·op(T)` with triangular `T` (DTRMM,
/// `k²·m` flops for a `k×k` triangle and `m` right-hand columns/rows).
pub fn trmm(fl: &mut Flops, side: Side, tri: Tri, op: Op, diag: Diag, alpha: f64, t: MatRef<'_>, b: MatMut<'_>) {
    let routines = Triangular {
        vector: ffi::cblas_dtrmv,
        matrix: ffi::cblas_dtrmm,
        scale_first: false,
        own_upper_vector: Some(upper_triangle::trmv_upper),
    };
    routines.apply(fl, side, tri, op, diag, alpha, t, b);
}

/// Solve `op(T)·X = alpha·B` (left) or `X·op(T) = alpha·B` (right) in place
/// (DTRSM, `k²·m` flops).
pub fn trsm(fl: &mut Flops, side: Side, tri: Tri, op: Op, diag: Diag, alpha: f64, t: MatRef<'_>, b: MatMut<'_>) {
    // Scaling first is the same as solving first: op(T)⁻¹(αb) = α·op(T)⁻¹b.
    let routines = Triangular {
        vector: ffi::cblas_dtrsv,
        matrix: ffi::cblas_dtrsm,
        scale_first: true,
        own_upper_vector: None,
    };
    routines.apply(fl, side, tri, op, diag, alpha, t, b);
}

/// The CBLAS routine of a triangular product or solve on one vector (DTRMV,
/// DTRSV).
type VectorRoutine = unsafe extern "C" fn(
    ffi::CblasLayout,
    ffi::CblasUplo,
    ffi::CblasTranspose,
    ffi::CblasDiag,
    c_int,
    *const f64,
    c_int,
    *mut f64,
    c_int,
);

/// The CBLAS routine of a triangular product or solve on a matrix (DTRMM,
/// DTRSM).
type MatrixRoutine = unsafe extern "C" fn(
    ffi::CblasLayout,
    ffi::CblasSide,
    ffi::CblasUplo,
    ffi::CblasTranspose,
    ffi::CblasDiag,
    c_int,
    c_int,
    f64,
    *const f64,
    c_int,
    *mut f64,
    c_int,
);

/// One triangular operation (product or solve): its BLAS-2 routine for a
/// single right-hand vector, its BLAS-3 routine otherwise, and whether the
/// BLAS-2 path scales by `alpha` before the routine (solve) or after (product),
/// and this crate's own kernel for one contiguous vector and an upper
/// triangle, if any (see [`upper_triangle`]).
struct Triangular {
    vector: VectorRoutine,
    matrix: MatrixRoutine,
    scale_first: bool,
    own_upper_vector: Option<OwnUpperVector>,
}

/// This crate's kernel for `x ← op(T)·x` with an upper triangular `T`:
/// (threads, transposed, unit diagonal, T, x).
type OwnUpperVector = fn(usize, bool, bool, MatRef<'_>, &mut [f64]);

impl Triangular {
    fn apply(
        self,
        fl: &mut Flops,
        side: Side,
        tri: Tri,
        op: Op,
        diag: Diag,
        alpha: f64,
        t: MatRef<'_>,
        mut b: MatMut<'_>,
    ) {
        let k = tri_common(side, &t, &b);
        if b.rows == 0 || b.cols == 0 {
            return;
        }
        fl.add(k * k * (b.rows * b.cols / k));
        if k == 1 {
            // A 1×1 triangle (e.g. bordering by one node): a scaling. OpenBLAS
            // would split the rows of b among its threads.
            let t00 = if diag == Diag::Unit { 1.0 } else { t.at(0, 0) };
            let factor = if self.scale_first { alpha / t00 } else { alpha * t00 };
            if factor != 1.0 {
                scale(b.rb_mut(), factor);
            }
            return;
        }
        if let Some((x, incx, op_v)) = single_vector(side, op, &mut b) {
            if self.scale_first && alpha != 1.0 {
                scale(b.rb_mut(), alpha);
            }
            if let (Some(own), Tri::Upper, Side::Left) = (self.own_upper_vector, tri, side) {
                // A left-side single column: b's first column, contiguous.
                own(
                    crate::threads::blas_threads(),
                    op_v == Op::T,
                    diag == Diag::Unit,
                    t,
                    b.col_mut(0),
                );
                if !self.scale_first && alpha != 1.0 {
                    scale(b.rb_mut(), alpha);
                }
                return;
            }
            // SAFETY: x walks k entries of b with stride incx (a column, or a
            // row with stride ld); t is k×k with the checked ld; scaling does
            // not move b's storage.
            unsafe {
                (self.vector)(
                    ffi::COL_MAJOR,
                    tri.cblas(),
                    op_v.cblas(),
                    diag.cblas(),
                    ci(k),
                    t.ptr(),
                    ci(t.ld),
                    x,
                    incx,
                );
            }
            if !self.scale_first && alpha != 1.0 {
                scale(b.rb_mut(), alpha);
            }
            return;
        }
        let s = if side == Side::Left { ffi::LEFT } else { ffi::RIGHT };
        // SAFETY: see gemm.
        unsafe {
            (self.matrix)(
                ffi::COL_MAJOR,
                s,
                tri.cblas(),
                op.cblas(),
                diag.cblas(),
                ci(b.rows),
                ci(b.cols),
                alpha,
                t.ptr(),
                ci(t.ld),
                b.ptr(),
                ci(b.ld),
            );
        }
    }
}
