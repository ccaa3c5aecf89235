//! Column-major matrix descriptors: borrowed ([`MatRef`], [`MatMut`]) with a
//! leading dimension, and owned contiguous ([`Owned`]).

use ndarray::{Array2, ArrayView2, ShapeBuilder};

/// The leading dimension of a `rows × cols` descriptor over `len` entries
/// (at least 1), checked to fit.
fn checked_ld(len: usize, rows: usize, cols: usize, ld: usize) -> usize {
    let ld = ld.max(1);
    assert!(ld >= rows, "leading dimension smaller than the row count");
    assert!(cols == 0 || len >= (cols - 1) * ld + rows, "slice too short");
    ld
}

/// The constructor and dimensions shared by [`MatRef`] and [`MatMut`].
macro_rules! descriptor {
    ($slice:ty) => {
        /// Describe `data` as a `rows × cols` matrix with leading dimension `ld`.
        pub fn new(data: $slice, rows: usize, cols: usize, ld: usize) -> Self {
            let ld = checked_ld(data.len(), rows, cols, ld);
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
    };
}

/// A read-only column-major matrix: entry `(i, j)` at `data[i + j*ld]`.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a> {
    pub(super) data: &'a [f64],
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) ld: usize,
}

impl<'a> MatRef<'a> {
    descriptor!(&'a [f64]);
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
    pub(super) fn ptr(&self) -> *const f64 {
        self.data.as_ptr()
    }
}

/// A mutable column-major matrix.
#[derive(Debug)]
pub struct MatMut<'a> {
    pub(super) data: &'a mut [f64],
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) ld: usize,
}

impl<'a> MatMut<'a> {
    descriptor!(&'a mut [f64]);
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
    /// Split into columns `..c` and `c..` (two disjoint mutable views).
    pub fn split_cols_at(self, c: usize) -> (MatMut<'a>, MatMut<'a>) {
        assert!(c <= self.cols, "split_cols_at: column out of range");
        let (rows, cols, ld) = (self.rows, self.cols, self.ld);
        let at = (c * ld).min(self.data.len());
        let (left, right) = self.data.split_at_mut(at);
        (MatMut::new(left, rows, c, ld), MatMut::new(right, rows, cols - c, ld))
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
    pub(super) fn ptr(&mut self) -> *mut f64 {
        self.data.as_mut_ptr()
    }
}

/// An owned, contiguous column-major matrix (scratch space of the solvers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Owned {
    pub(super) data: Vec<f64>,
    pub(super) rows: usize,
    pub(super) cols: usize,
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
