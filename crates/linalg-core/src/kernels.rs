//! Safe, flop-counting wrappers over the BLAS/LAPACK routines the solvers use.
//!
//! All matrices are column-major descriptors ([`MatRef`], [`MatMut`]) with a
//! leading dimension, so sub-blocks of the growable factors
//! ([`crate::store::GrowMat`]) go to BLAS without copies. Every wrapper adds
//! the flops it performs to a [`Flops`] counter by the papers' rule (Zhu & Wei,
//! Sec. IV: an `l1×l2` by `l2×l3` product costs `2·l1·l2·l3`, a sum of two
//! `l1×l2` matrices `l1·l2`); triangular and symmetric products count what
//! they compute (half of the dense figure).
//!
//! Shapes are checked with `assert!`: they are internal invariants of the
//! solvers, whose public entry points validate user input first.

// The wrappers mirror the BLAS argument lists (operand, transposition,
// triangle, side, scalars) so each call reads like the routine it makes.
#![allow(clippy::too_many_arguments)]

use std::os::raw::{c_char, c_int};

use ndarray::{Array2, ArrayView2, ShapeBuilder};

use crate::ffi;

/// A flop counter (paper's counting rules, see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flops(pub u64);

impl Flops {
    /// Add `n` flops.
    pub fn add(&mut self, n: usize) {
        self.0 += n as u64;
    }
}

fn ci(n: usize) -> c_int {
    c_int::try_from(n).expect("matrix dimension exceeds the BLAS integer range")
}

/// A read-only column-major matrix: entry `(i, j)` at `data[i + j*ld]`.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a> {
    data: &'a [f64],
    rows: usize,
    cols: usize,
    ld: usize,
}

impl<'a> MatRef<'a> {
    /// Describe `data` as a `rows × cols` matrix with leading dimension `ld`.
    pub fn new(data: &'a [f64], rows: usize, cols: usize, ld: usize) -> Self {
        let ld = ld.max(1);
        assert!(ld >= rows, "leading dimension smaller than the row count");
        assert!(cols == 0 || data.len() >= (cols - 1) * ld + rows, "slice too short");
        Self { data, rows, cols, ld }
    }
    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Leading dimension.
    pub fn ld(&self) -> usize {
        self.ld
    }
    /// Column `j` as a slice.
    pub fn col(&self, j: usize) -> &'a [f64] {
        &self.data[j * self.ld..j * self.ld + self.rows]
    }
    /// The `rows × cols` block starting at `(r0, c0)`.
    pub fn sub(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> MatRef<'a> {
        assert!(
            r0 + rows <= self.rows && c0 + cols <= self.cols,
            "sub-block out of range"
        );
        let off = if cols == 0 { 0 } else { r0 + c0 * self.ld };
        MatRef::new(&self.data[off.min(self.data.len())..], rows, cols, self.ld)
    }
    /// Entry `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i + j * self.ld]
    }
    /// As an ndarray view.
    pub fn view(&self) -> ArrayView2<'a, f64> {
        let len = if self.cols == 0 {
            0
        } else {
            (self.cols - 1) * self.ld + self.rows
        };
        ArrayView2::from_shape((self.rows, self.cols).strides((1, self.ld)), &self.data[..len])
            .expect("MatRef invariant")
    }
    fn ptr(&self) -> *const f64 {
        self.data.as_ptr()
    }
}

/// A mutable column-major matrix.
#[derive(Debug)]
pub struct MatMut<'a> {
    data: &'a mut [f64],
    rows: usize,
    cols: usize,
    ld: usize,
}

impl<'a> MatMut<'a> {
    /// Describe `data` as a mutable `rows × cols` matrix with leading dimension `ld`.
    pub fn new(data: &'a mut [f64], rows: usize, cols: usize, ld: usize) -> Self {
        let ld = ld.max(1);
        assert!(ld >= rows, "leading dimension smaller than the row count");
        assert!(cols == 0 || data.len() >= (cols - 1) * ld + rows, "slice too short");
        Self { data, rows, cols, ld }
    }
    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Reborrow as read-only.
    pub fn rb(&self) -> MatRef<'_> {
        MatRef::new(self.data, self.rows, self.cols, self.ld)
    }
    /// Reborrow mutably.
    pub fn rb_mut(&mut self) -> MatMut<'_> {
        MatMut::new(self.data, self.rows, self.cols, self.ld)
    }
    /// The mutable `rows × cols` block starting at `(r0, c0)`.
    pub fn sub(self, r0: usize, c0: usize, rows: usize, cols: usize) -> MatMut<'a> {
        assert!(
            r0 + rows <= self.rows && c0 + cols <= self.cols,
            "sub-block out of range"
        );
        let off = if cols == 0 { 0 } else { r0 + c0 * self.ld };
        let ld = self.ld;
        let len = self.data.len();
        MatMut::new(&mut self.data[off.min(len)..], rows, cols, ld)
    }
    /// Column `j`, mutably.
    pub fn col_mut(&mut self, j: usize) -> &mut [f64] {
        &mut self.data[j * self.ld..j * self.ld + self.rows]
    }
    /// Entry `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i + j * self.ld]
    }
    /// Set entry `(i, j)`.
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[i + j * self.ld] = v;
    }
    /// Copy `src` (same shape) into this block.
    pub fn copy_from(&mut self, src: MatRef<'_>) {
        assert!(
            src.rows == self.rows && src.cols == self.cols,
            "copy_from: shape differs"
        );
        for j in 0..self.cols {
            self.col_mut(j).copy_from_slice(src.col(j));
        }
    }
    fn ptr(&mut self) -> *mut f64 {
        self.data.as_mut_ptr()
    }
}

/// An owned, contiguous column-major matrix (scratch space of the solvers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Owned {
    data: Vec<f64>,
    rows: usize,
    cols: usize,
}

impl Owned {
    /// A zero `rows × cols` matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            data: crate::alloc::zeroed(rows * cols),
            rows,
            cols,
        }
    }
    /// Build from a function of `(i, j)`.
    pub fn from_fn(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f64) -> Self {
        let mut m = Self::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                m.data[i + j * rows] = f(i, j);
            }
        }
        m
    }
    /// Copy any ndarray view (any layout) into column-major storage.
    ///
    /// Column-major input is one `memcpy`; row-major input (what most
    /// ndarray code produces) is transposed in 32×32 tiles so that both the
    /// reads and the writes stay in cache — a naive strided copy of a large
    /// K×n matrix is several times slower than the BLAS work it feeds.
    pub fn from_view(v: ArrayView2<'_, f64>) -> Self {
        let (rows, cols) = v.dim();
        let mut m = Self::zeros(rows, cols);
        if rows == 0 || cols == 0 {
            return m;
        }
        if let Some(src) = v.t().as_slice() {
            // v is column-major contiguous: vᵀ is row-major contiguous.
            m.data.copy_from_slice(src);
        } else if let Some(src) = v.as_slice() {
            const T: usize = 32;
            for i0 in (0..rows).step_by(T) {
                for j0 in (0..cols).step_by(T) {
                    let j1 = (j0 + T).min(cols);
                    for i in i0..(i0 + T).min(rows) {
                        for (j, &x) in src[i * cols + j0..i * cols + j1].iter().enumerate() {
                            m.data[i + (j0 + j) * rows] = x;
                        }
                    }
                }
            }
        } else {
            for (j, col) in v.columns().into_iter().enumerate() {
                for (i, x) in col.iter().enumerate() {
                    m.data[i + j * rows] = *x;
                }
            }
        }
        m
    }
    /// Take an ndarray `Array2` without copying when it is column-major
    /// contiguous (as `Array2::zeros((k, q).f())` is); any other layout is
    /// copied as [`Self::from_view`] does.
    pub fn from_array(a: Array2<f64>) -> Self {
        let (rows, cols) = a.dim();
        if rows > 0 && cols > 0 && a.t().is_standard_layout() {
            let (data, offset) = a.into_raw_vec_and_offset();
            if offset == Some(0) && data.len() == rows * cols {
                return Self { data, rows, cols };
            }
            // A sliced array: its column-major entries start at the offset.
            let start = offset.unwrap_or(0);
            let mut m = Self::zeros(rows, cols);
            m.data.copy_from_slice(&data[start..start + rows * cols]);
            return m;
        }
        Self::from_view(a.view())
    }
    /// Copy a descriptor into owned storage.
    pub fn from_ref(a: MatRef<'_>) -> Self {
        let mut m = Self::zeros(a.rows(), a.cols());
        m.as_mut().copy_from(a);
        m
    }
    /// The `n × n` identity times `alpha`.
    pub fn scaled_identity(n: usize, alpha: f64) -> Self {
        Self::from_fn(n, n, |i, j| if i == j { alpha } else { 0.0 })
    }
    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// As a descriptor.
    pub fn as_ref(&self) -> MatRef<'_> {
        MatRef::new(&self.data, self.rows, self.cols, self.rows)
    }
    /// As a mutable descriptor.
    pub fn as_mut(&mut self) -> MatMut<'_> {
        let r = self.rows;
        MatMut::new(&mut self.data, self.rows, self.cols, r)
    }
    /// The column-major data, taken out.
    pub fn into_data(self) -> Vec<f64> {
        self.data
    }
    /// The raw column-major data.
    pub fn data(&self) -> &[f64] {
        &self.data
    }
    /// The raw column-major data, mutably.
    pub fn data_mut(&mut self) -> &mut [f64] {
        &mut self.data
    }
    /// Entry `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i + j * self.rows]
    }
    /// Column `j` as a slice.
    pub fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }
    /// Set entry `(i, j)`.
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        self.data[i + j * self.rows] = v;
    }
    /// Into an ndarray `Array2` (column-major).
    pub fn into_array(self) -> Array2<f64> {
        Array2::from_shape_vec((self.rows, self.cols).f(), self.data).expect("Owned invariant")
    }
}

/// Whether an operand is used as is or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `A`.
    N,
    /// `Aᵀ`.
    T,
}

impl Op {
    fn cblas(self) -> ffi::CblasTranspose {
        match self {
            Op::N => ffi::NO_TRANS,
            Op::T => ffi::TRANS,
        }
    }
    fn dims(self, a: &MatRef<'_>) -> (usize, usize) {
        match self {
            Op::N => (a.rows, a.cols),
            Op::T => (a.cols, a.rows),
        }
    }
}

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
    // A single output column (n = 1, e.g. Aᵀh for one new node): DGEMV. DGEMM
    // would pack the whole of op(A) — for a tall A that copy costs more than
    // the product itself, which is bound by reading A once.
    if n == 1 && tb == Op::N && ta == Op::T && streams(&a) {
        let (x, y) = (b.col(0), c.col_mut(0));
        dot_columns(alpha, a, x, beta, y);
        return;
    }
    if n == 1 && tb == Op::N {
        let (x, y) = (b.ptr(), c.ptr());
        // SAFETY: op(A) is m×k with the checked ld; x is b's first column
        // (k contiguous entries), y is c's first column (m contiguous entries).
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
                1,
                beta,
                y,
                1,
            );
        }
        return;
    }
    // A single output row (m = 1, e.g. hᵀY, or one hidden node's outputs
    // wᵀXᵀ): cᵀ = alpha·op(B)ᵀ·a + beta·cᵀ with c's row strided by its ld;
    // op(A)'s one row is a's first column (ta = T, contiguous) or first row
    // (ta = N, stride ld).
    if m == 1 {
        let incx = match ta {
            Op::T => 1,
            Op::N => a.ld,
        };
        let trans_b = match tb {
            Op::N => Op::T,
            Op::T => Op::N,
        };
        let ldc = c.ld;
        let y = c.ptr();
        // SAFETY: op(B)ᵀ is n×k with the checked ld; x walks op(A)'s row
        // (k entries, stride incx within a's extent); y walks c's first row:
        // n entries, stride ldc.
        unsafe {
            ffi::cblas_dgemv(
                ffi::COL_MAJOR,
                trans_b.cblas(),
                ci(b.rows),
                ci(b.cols),
                alpha,
                b.ptr(),
                ci(b.ld),
                a.ptr(),
                ci(incx),
                beta,
                y,
                ci(ldc),
            );
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

/// Whether `Aᵀx` goes to [`dot_columns`]: large enough (≥ 8 MB) that it is
/// bound by reading `A` from memory.
fn streams(a: &MatRef<'_>) -> bool {
    a.rows >= 256 && a.rows * a.cols >= 1 << 20
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
fn dot_columns(alpha: f64, a: MatRef<'_>, x: &[f64], beta: f64, y: &mut [f64]) {
    fn dot8(u: &[f64], v: &[f64]) -> f64 {
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

fn scale(mut c: MatMut<'_>, beta: f64) {
    for j in 0..c.cols {
        for x in c.col_mut(j) {
            *x = if beta == 0.0 { 0.0 } else { *x * beta };
        }
    }
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

/// Which triangle of a triangular operand holds the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    /// Upper triangular.
    Upper,
    /// Lower triangular.
    Lower,
}

impl Tri {
    fn cblas(self) -> ffi::CblasUplo {
        match self {
            Tri::Upper => ffi::UPPER,
            Tri::Lower => ffi::LOWER,
        }
    }
    fn lapack(self) -> c_char {
        match self {
            Tri::Upper => b'U' as c_char,
            Tri::Lower => b'L' as c_char,
        }
    }
}

/// Whether the triangular operand has an implicit unit diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diag {
    /// Stored diagonal.
    NonUnit,
    /// Unit diagonal (not referenced).
    Unit,
}

impl Diag {
    fn cblas(self) -> ffi::CblasDiag {
        match self {
            Diag::NonUnit => ffi::NON_UNIT,
            Diag::Unit => ffi::UNIT,
        }
    }
}

/// Side of the triangular operand in [`trmm`] / [`trsm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `B ← op(T)·B`.
    Left,
    /// `B ← B·op(T)`.
    Right,
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
pub fn trmm(fl: &mut Flops, side: Side, tri: Tri, op: Op, diag: Diag, alpha: f64, t: MatRef<'_>, mut b: MatMut<'_>) {
    let k = tri_common(side, &t, &b);
    if b.rows == 0 || b.cols == 0 {
        return;
    }
    fl.add(k * k * (b.rows * b.cols / k));
    if let Some((x, incx, op_v)) = single_vector(side, op, &mut b) {
        // SAFETY: x walks k entries of b with stride incx (a column, or a row
        // with stride ld); t is k×k with the checked ld.
        unsafe {
            ffi::cblas_dtrmv(
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
        if alpha != 1.0 {
            scale(b.rb_mut(), alpha);
        }
        return;
    }
    let s = if side == Side::Left { ffi::LEFT } else { ffi::RIGHT };
    // SAFETY: see gemm.
    unsafe {
        ffi::cblas_dtrmm(
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

/// Solve `op(T)·X = alpha·B` (left) or `X·op(T) = alpha·B` (right) in place
/// (DTRSM, `k²·m` flops).
pub fn trsm(fl: &mut Flops, side: Side, tri: Tri, op: Op, diag: Diag, alpha: f64, t: MatRef<'_>, mut b: MatMut<'_>) {
    let k = tri_common(side, &t, &b);
    if b.rows == 0 || b.cols == 0 {
        return;
    }
    fl.add(k * k * (b.rows * b.cols / k));
    if let Some((x, incx, op_v)) = single_vector(side, op, &mut b) {
        // Scaling first is the same as solving first: op(T)⁻¹(αb) = α·op(T)⁻¹b.
        if alpha != 1.0 {
            scale(b.rb_mut(), alpha);
        }
        // SAFETY: as in trmm (scaling does not move b's storage).
        unsafe {
            ffi::cblas_dtrsv(
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
        return;
    }
    let s = if side == Side::Left { ffi::LEFT } else { ffi::RIGHT };
    // SAFETY: see gemm.
    unsafe {
        ffi::cblas_dtrsm(
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
    if ta == Op::T && streams(&a) {
        dot_columns(alpha, a, x, beta, y);
        return;
    }
    // SAFETY: see gemm; vectors have the checked lengths and unit stride.
    unsafe {
        ffi::cblas_dgemv(
            ffi::COL_MAJOR,
            ta.cblas(),
            ci(a.rows),
            ci(a.cols),
            alpha,
            a.ptr(),
            ci(a.ld),
            x.as_ptr(),
            1,
            beta,
            y.as_mut_ptr(),
            1,
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
    // SAFETY: see gemv.
    unsafe {
        ffi::cblas_dsymv(
            ffi::COL_MAJOR,
            ffi::UPPER,
            ci(n),
            alpha,
            s.ptr(),
            ci(s.ld),
            x.as_ptr(),
            1,
            beta,
            y.as_mut_ptr(),
            1,
        );
    }
}

/// Upper triangle of `S ← S + alpha·x·xᵀ` (DSYR, `n²` flops).
pub fn syr(fl: &mut Flops, alpha: f64, x: &[f64], mut s: MatMut<'_>) {
    let n = x.len();
    assert!(s.rows == n && s.cols == n, "syr: shapes");
    if n == 0 {
        return;
    }
    fl.add(n * n);
    // SAFETY: see gemv.
    unsafe {
        ffi::cblas_dsyr(
            ffi::COL_MAJOR,
            ffi::UPPER,
            ci(n),
            alpha,
            x.as_ptr(),
            1,
            s.ptr(),
            ci(s.ld),
        );
    }
}

/// `A ← A + alpha·x·yᵀ` (DGER, `2mn` flops).
pub fn ger(fl: &mut Flops, alpha: f64, x: &[f64], y: &[f64], mut a: MatMut<'_>) {
    assert!(a.rows == x.len() && a.cols == y.len(), "ger: shapes");
    if a.rows == 0 || a.cols == 0 {
        return;
    }
    fl.add(2 * a.rows * a.cols);
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

/// Cholesky factorization in place (DPOTRF, `n³/3` flops): the chosen
/// triangle of `A` is overwritten by `L` (`A = LLᵀ`, `Tri::Lower`) or `U`
/// (`A = UᵀU`, `Tri::Upper`). `Err(k)` when the leading minor of order `k`
/// (1-based) is not positive definite.
pub fn potrf(fl: &mut Flops, tri: Tri, mut a: MatMut<'_>) -> Result<(), usize> {
    let n = a.rows;
    assert_eq!(a.cols, n, "potrf: square matrix expected");
    if n == 0 {
        return Ok(());
    }
    fl.add(n * n * n / 3);
    let mut info: c_int = 0;
    let (nn, lda, uplo) = (ci(n), ci(a.ld), tri.lapack());
    // SAFETY: LAPACK reads/writes the n×n block with leading dimension lda.
    unsafe { ffi::dpotrf_(&uplo, &nn, a.ptr(), &lda, &mut info) };
    match info {
        0 => Ok(()),
        k if k > 0 => Err(k as usize),
        k => panic!("dpotrf: argument {} invalid (internal error)", -k),
    }
}

/// Triangular inverse in place (DTRTRI, `n³/3` flops). `Err(k)` when the
/// diagonal entry `k` (1-based) is exactly zero.
pub fn trtri(fl: &mut Flops, tri: Tri, diag: Diag, mut a: MatMut<'_>) -> Result<(), usize> {
    let n = a.rows;
    assert_eq!(a.cols, n, "trtri: square matrix expected");
    if n == 0 {
        return Ok(());
    }
    fl.add(n * n * n / 3);
    let mut info: c_int = 0;
    let d = match diag {
        Diag::NonUnit => b'N' as c_char,
        Diag::Unit => b'U' as c_char,
    };
    let (nn, lda, uplo) = (ci(n), ci(a.ld), tri.lapack());
    // SAFETY: as potrf.
    unsafe { ffi::dtrtri_(&uplo, &d, &nn, a.ptr(), &lda, &mut info) };
    match info {
        0 => Ok(()),
        k if k > 0 => Err(k as usize),
        k => panic!("dtrtri: argument {} invalid (internal error)", -k),
    }
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
    let mut info: c_int = 0;
    // Workspace query.
    let mut wq = 0.0f64;
    let mut iq: c_int = 0;
    let minus1: c_int = -1;
    // SAFETY: LAPACK workspace query writes only wq and iq.
    unsafe {
        ffi::dsyevd_(
            &jobz,
            &uplo,
            &nn,
            a.ptr(),
            &lda,
            w.as_mut_ptr(),
            &mut wq,
            &minus1,
            &mut iq,
            &minus1,
            &mut info,
        );
    }
    if info != 0 {
        return Err(info);
    }
    let lwork = (wq as usize).max(1);
    let liwork = (iq as usize).max(1);
    let mut work = vec![0.0; lwork];
    let mut iwork = vec![0 as c_int; liwork];
    let (lw, liw) = (ci(lwork), ci(liwork));
    // SAFETY: workspaces have the sizes LAPACK asked for.
    unsafe {
        ffi::dsyevd_(
            &jobz,
            &uplo,
            &nn,
            a.ptr(),
            &lda,
            w.as_mut_ptr(),
            work.as_mut_ptr(),
            &lw,
            iwork.as_mut_ptr(),
            &liw,
            &mut info,
        );
    }
    if info != 0 {
        return Err(info);
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ShapeBuilder};

    fn m(rows: usize, cols: usize, seed: usize) -> Array2<f64> {
        Array2::from_shape_fn((rows, cols).f(), |(i, j)| {
            (((i * 31 + j * 17 + seed * 7) % 23) as f64 - 11.0) / 7.0
        })
    }

    fn owned(a: &Array2<f64>) -> Owned {
        Owned::from_view(a.view())
    }

    fn close(a: &Array2<f64>, b: &Array2<f64>) {
        assert_eq!(a.dim(), b.dim());
        for (x, y) in a.iter().zip(b.iter()) {
            assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }

    #[test]
    fn from_view_handles_every_layout() {
        let c_order = Array2::from_shape_fn((70, 45), |(i, j)| (i * 1000 + j) as f64);
        let f_order = Array2::from_shape_fn((70, 45).f(), |(i, j)| (i * 1000 + j) as f64);
        let strided = c_order.slice(ndarray::s![..;2, 1..;3]);
        for v in [c_order.view(), f_order.view(), strided, c_order.t()] {
            let o = Owned::from_view(v);
            assert_eq!(o.clone().into_array(), v.to_owned());
            assert_eq!((o.rows(), o.cols()), v.dim());
        }
    }

    #[test]
    fn from_array_takes_column_major_buffers_and_copies_the_rest() {
        let f_order = Array2::from_shape_fn((70, 45).f(), |(i, j)| (i * 1000 + j) as f64);
        let ptr = f_order.as_ptr();
        let expect = f_order.clone();
        let o = Owned::from_array(f_order);
        assert_eq!(o.data().as_ptr(), ptr, "column-major input must not be copied");
        assert_eq!(o.into_array(), expect);
        let c_order = Array2::from_shape_fn((70, 45), |(i, j)| (i * 1000 + j) as f64);
        // Column-major but starting at an offset (columns 5.. of an F array).
        let mut shifted = Array2::from_shape_fn((70, 50).f(), |(i, j)| (i * 1000 + j) as f64 - 5.0);
        shifted.slice_collapse(ndarray::s![.., 5..]);
        for a in [c_order.clone(), c_order.t().to_owned(), shifted] {
            let expect = a.clone();
            let o = Owned::from_array(a);
            assert_eq!((o.rows(), o.cols()), expect.dim());
            assert_eq!(o.into_array(), expect);
        }
    }

    /// `C ← C·G` by row panels against a plain triple loop, for heights
    /// below, at and across the panel size: each entry is a q-term dot
    /// product, each computation within `q·u·Σ|c_ik||g_kj|` of the exact one
    /// (u = 2⁻⁵³), so they differ by at most twice that.
    #[test]
    fn right_multiply_in_place_matches_a_plain_loop() {
        for (rows, q) in [(1, 3), (7, 1), (512, 6), (1300, 9)] {
            let c = m(rows, q, 3);
            let g = m(q, q, 8);
            let mut o = owned(&c);
            let mut fl = Flops::default();
            gemm_right_in_place(&mut fl, o.as_mut(), owned(&g).as_ref());
            assert_eq!(fl.0, (2 * rows * q * q) as u64);
            let got = o.into_array();
            for i in 0..rows {
                for j in 0..q {
                    let (mut exact, mut abs) = (0.0, 0.0);
                    for k in 0..q {
                        exact += c[[i, k]] * g[[k, j]];
                        abs += (c[[i, k]] * g[[k, j]]).abs();
                    }
                    let tol = 2.0 * q as f64 * f64::EPSILON / 2.0 * abs;
                    assert!((got[[i, j]] - exact).abs() <= tol, "({i}, {j}) of {rows}×{q}");
                }
            }
        }
    }

    /// The DGEMV shortcuts of `gemm` (n = 1; m = 1 with a column operand)
    /// against ndarray's product, for every transposition and alpha/beta.
    #[test]
    fn gemm_vector_shortcuts_match_the_general_product() {
        let (k, mm) = (9, 5);
        for (ta, tb) in [(Op::N, Op::N), (Op::T, Op::N), (Op::T, Op::T), (Op::N, Op::T)] {
            for (rows_out, cols_out) in [(mm, 1), (1, mm), (mm, 3)] {
                let a = if ta == Op::N {
                    m(rows_out, k, 1)
                } else {
                    m(k, rows_out, 1)
                };
                let b = if tb == Op::N {
                    m(k, cols_out, 2)
                } else {
                    m(cols_out, k, 2)
                };
                let c0 = m(rows_out, cols_out, 3);
                let opa = if ta == Op::N { a.clone() } else { a.t().to_owned() };
                let opb = if tb == Op::N { b.clone() } else { b.t().to_owned() };
                let want = opa.dot(&opb) * 1.5 - &c0 * 0.5;
                let mut c = owned(&c0);
                gemm(
                    &mut Flops::default(),
                    1.5,
                    owned(&a).as_ref(),
                    ta,
                    owned(&b).as_ref(),
                    tb,
                    -0.5,
                    c.as_mut(),
                );
                close(&c.into_array(), &want);
            }
        }
    }

    /// `Aᵀx` on a matrix large enough for the streaming dot-product kernel
    /// (through gemv and through gemm's single-column path), on 1 and 2
    /// threads, against a plain loop; with beta ≠ 0 and an odd row count.
    #[test]
    fn streaming_transposed_products_match_a_plain_loop() {
        let (k, n) = (1027, 1100);
        assert!(super::streams(&MatRef::new(&vec![0.0; k * n], k, n, k)));
        let a = Owned::from_fn(k, n, |i, j| ((i * 13 + j * 7) % 17) as f64 / 17.0 - 0.4);
        let x: Vec<f64> = (0..k).map(|i| (i as f64 * 0.01).sin()).collect();
        let y0: Vec<f64> = (0..n).map(|j| j as f64 * 0.5).collect();
        let want: Vec<f64> = (0..n)
            .map(|j| 1.5 * (0..k).map(|i| a.at(i, j) * x[i]).sum::<f64>() - 0.25 * y0[j])
            .collect();
        let before = crate::threads::blas_threads();
        for threads in [1, 2] {
            crate::threads::set_blas_threads(threads);
            let mut y = y0.clone();
            gemv(&mut Flops::default(), 1.5, a.as_ref(), Op::T, &x, -0.25, &mut y);
            let xm = Owned::from_fn(k, 1, |i, _| x[i]);
            let mut c = Owned::from_fn(n, 1, |j, _| y0[j]);
            gemm(
                &mut Flops::default(),
                1.5,
                a.as_ref(),
                Op::T,
                xm.as_ref(),
                Op::N,
                -0.25,
                c.as_mut(),
            );
            for j in 0..n {
                let tol = 1e-13 * (1.0 + want[j].abs()) * k as f64;
                assert!((y[j] - want[j]).abs() <= tol, "gemv, {threads} threads, column {j}");
                assert!(
                    (c.at(j, 0) - want[j]).abs() <= tol,
                    "gemm, {threads} threads, column {j}"
                );
            }
        }
        crate::threads::set_blas_threads(before);
    }

    /// The single-row shortcut with `ta = N` reads op(A)'s row with stride
    /// ld: take the row from inside a taller matrix (ld = 3).
    #[test]
    fn gemm_single_row_of_a_strided_operand() {
        let (k, n) = (7, 4);
        let a = m(3, k, 6);
        let b = m(k, n, 7);
        let want = a.slice(ndarray::s![1..2, ..]).dot(&b);
        let mut c = Owned::zeros(1, n);
        let oa = owned(&a);
        gemm(
            &mut Flops::default(),
            1.0,
            oa.as_ref().sub(1, 0, 1, k),
            Op::N,
            owned(&b).as_ref(),
            Op::N,
            0.0,
            c.as_mut(),
        );
        close(&c.into_array(), &want);
    }

    /// trmm / trsm with a single right-hand column (left) or row (right)
    /// take the BLAS-2 path; compare with ndarray on a strided block.
    #[test]
    fn triangular_vector_shortcuts_match() {
        let n = 6;
        let mut t = m(n, n, 4);
        for i in 0..n {
            t[[i, i]] = 3.0 + i as f64;
            for j in 0..i {
                t[[i, j]] = 0.0;
            }
        }
        let tt = owned(&t);
        for op in [Op::N, Op::T] {
            let opt = if op == Op::N { t.clone() } else { t.t().to_owned() };
            // Left, one column.
            let x = m(n, 1, 5);
            let mut b = owned(&x);
            trmm(
                &mut Flops::default(),
                Side::Left,
                Tri::Upper,
                op,
                Diag::NonUnit,
                2.0,
                tt.as_ref(),
                b.as_mut(),
            );
            close(&b.clone().into_array(), &(opt.dot(&x) * 2.0));
            trsm(
                &mut Flops::default(),
                Side::Left,
                Tri::Upper,
                op,
                Diag::NonUnit,
                0.5,
                tt.as_ref(),
                b.as_mut(),
            );
            close(&b.into_array(), &x);
            // Right, one row of a 3×n block (row stride = ld = 3).
            let y = m(3, n, 6);
            let mut b = owned(&y);
            let row0 = b.as_mut().sub(0, 0, 1, n);
            trmm(
                &mut Flops::default(),
                Side::Right,
                Tri::Upper,
                op,
                Diag::NonUnit,
                -1.0,
                tt.as_ref(),
                row0,
            );
            let got = b.clone().into_array();
            close(
                &got.slice(ndarray::s![0..1, ..]).to_owned(),
                &(y.slice(ndarray::s![0..1, ..]).dot(&opt) * -1.0),
            );
            close(
                &got.slice(ndarray::s![1.., ..]).to_owned(),
                &y.slice(ndarray::s![1.., ..]).to_owned(),
            );
            let row0 = b.as_mut().sub(0, 0, 1, n);
            trsm(
                &mut Flops::default(),
                Side::Right,
                Tri::Upper,
                op,
                Diag::NonUnit,
                -1.0,
                tt.as_ref(),
                row0,
            );
            close(&b.into_array(), &y);
        }
    }
}
