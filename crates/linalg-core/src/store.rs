//! Column-major matrices that grow cheaply by columns (and, for square
//! factors, by rows and columns together).
//!
//! The incremental solvers append `q` columns at a time to the hidden-layer
//! matrix `A` (K×n) and grow their n×n factors. Storing column-major with
//! spare capacity makes an append a copy of the new columns only; the
//! capacity grows geometrically (×1.5) so a sequence of appends costs an
//! amortized constant number of copies per entry. [`GrowMat::reserve_cols`]
//! removes even that when the final size is known.

use ndarray::ArrayView2;

use crate::kernels::{MatMut, MatRef, Owned};

/// A column-major matrix with spare capacity in both dimensions.
///
/// Entry `(i, j)` lives at `data[i + j * ld]`. `ld >= rows` is the row
/// capacity, `data.len() / ld` the column capacity.
#[derive(Clone, Debug, Default)]
pub struct GrowMat {
    data: Vec<f64>,
    rows: usize,
    cols: usize,
    ld: usize,
}

impl GrowMat {
    /// An empty `rows × 0` matrix that can take `col_cap` columns without
    /// reallocating (for tall stores such as `A`, whose row count is fixed).
    pub fn tall(rows: usize, col_cap: usize) -> Self {
        let ld = rows.max(1);
        Self {
            data: crate::alloc::zeroed(ld * col_cap),
            rows,
            cols: 0,
            ld,
        }
    }

    /// An `n × n` zero matrix with room for `cap × cap` (square factors).
    pub fn square(n: usize, cap: usize) -> Self {
        let ld = cap.max(n).max(1);
        Self {
            data: crate::alloc::zeroed(ld * ld),
            rows: n,
            cols: n,
            ld,
        }
    }

    /// A `rows × cols` zero matrix with room for `row_cap` rows (matrices
    /// such as the weights `W`, n×M, that grow by rows).
    pub fn with_row_capacity(rows: usize, cols: usize, row_cap: usize) -> Self {
        let ld = row_cap.max(rows).max(1);
        Self {
            data: crate::alloc::zeroed(ld * cols.max(1)),
            rows,
            cols,
            ld,
        }
    }

    /// Take over a column-major [`Owned`] matrix without copying (`ld` = rows).
    pub fn from_owned(m: Owned) -> Self {
        let (rows, cols) = (m.rows(), m.cols());
        Self {
            data: m.into_data(),
            rows,
            cols,
            ld: rows.max(1),
        }
    }

    /// Copy a descriptor into a new matrix with room for `row_cap` rows.
    pub fn from_ref(src: MatRef<'_>, row_cap: usize) -> Self {
        let mut m = Self::with_row_capacity(src.rows(), src.cols(), row_cap);
        m.as_mut().copy_from(src);
        m
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    fn col_cap(&self) -> usize {
        self.data.len() / self.ld
    }

    /// The matrix as a BLAS descriptor.
    pub fn as_ref(&self) -> MatRef<'_> {
        MatRef::new(&self.data, self.rows, self.cols, self.ld)
    }

    /// The matrix as a mutable BLAS descriptor.
    pub fn as_mut(&mut self) -> MatMut<'_> {
        MatMut::new(&mut self.data, self.rows, self.cols, self.ld)
    }

    /// The matrix as an ndarray view (strides `(1, ld)`).
    pub fn view(&self) -> ArrayView2<'_, f64> {
        MatRef::new(&self.data, self.rows, self.cols, self.ld).view()
    }

    /// Make room for `additional` more columns without reallocating later.
    pub fn reserve_cols(&mut self, additional: usize) {
        let need = self.cols + additional;
        if need > self.col_cap() {
            crate::alloc::grow_zeroed(&mut self.data, need * self.ld);
        }
    }

    fn grow_cols_for(&mut self, need: usize) {
        if need > self.col_cap() {
            let new_cap = need.max(self.col_cap() + self.col_cap() / 2);
            crate::alloc::grow_zeroed(&mut self.data, new_cap * self.ld);
        }
    }

    /// Append the columns of `src` (which must have `self.rows()` rows).
    pub fn push_cols(&mut self, src: MatRef<'_>) {
        assert_eq!(src.rows(), self.rows, "push_cols: row count differs");
        let q = src.cols();
        self.grow_cols_for(self.cols + q);
        for j in 0..q {
            let dst = (self.cols + j) * self.ld;
            self.data[dst..dst + self.rows].copy_from_slice(src.col(j));
        }
        self.cols += q;
    }

    /// Resize to `new_rows × new_cols` (neither may shrink); new entries are
    /// zero. Row and column capacity grow geometrically (×1.5), re-laying the
    /// columns when the leading dimension must grow.
    pub fn resize(&mut self, new_rows: usize, new_cols: usize) {
        assert!(
            new_rows >= self.rows && new_cols >= self.cols,
            "GrowMat::resize cannot shrink"
        );
        if new_rows > self.ld {
            let new_ld = new_rows.max(self.ld + self.ld / 2);
            let new_cap = new_cols.max(self.col_cap());
            let mut data = crate::alloc::zeroed(new_ld * new_cap);
            for j in 0..self.cols {
                data[j * new_ld..j * new_ld + self.rows]
                    .copy_from_slice(&self.data[j * self.ld..j * self.ld + self.rows]);
            }
            self.data = data;
            self.ld = new_ld;
        } else {
            self.grow_cols_for(new_cols);
            // Clear stale entries (left by an earlier truncate) in the new region.
            for j in 0..new_cols {
                let start = if j < self.cols { self.rows } else { 0 };
                self.data[j * self.ld + start..j * self.ld + new_rows].fill(0.0);
            }
        }
        self.rows = new_rows;
        self.cols = new_cols;
    }

    /// Grow a square matrix to `new_n × new_n`; new entries are zero.
    pub fn grow_square(&mut self, new_n: usize) {
        self.resize(new_n, new_n);
    }

    /// Reserve room for `rows_total × cols_total` without reallocating later.
    pub fn reserve(&mut self, rows_total: usize, cols_total: usize) {
        let (r, c) = (self.rows, self.cols);
        if rows_total > self.ld || cols_total > self.col_cap() {
            self.resize(rows_total.max(r), cols_total.max(c));
            self.rows = r;
            self.cols = c;
        }
    }

    /// Reserve room for a square matrix of size `n_total` (no copy later).
    pub fn reserve_square(&mut self, n_total: usize) {
        self.reserve(n_total, n_total);
    }

    /// Shrink to the leading `rows × cols` block (keeps capacity; a later
    /// [`resize`](Self::resize) zeroes the region it brings back).
    pub fn truncate(&mut self, rows: usize, cols: usize) {
        self.rows = self.rows.min(rows);
        self.cols = self.cols.min(cols);
    }

    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        debug_assert!(i < self.rows && j < self.cols);
        self.data[i + j * self.ld]
    }

    /// Set entry `(i, j)`.
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        debug_assert!(i < self.rows && j < self.cols);
        self.data[i + j * self.ld] = v;
    }

    /// Bytes held (capacity included), for memory reports.
    pub fn bytes(&self) -> usize {
        self.data.len() * std::mem::size_of::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tall_store_appends_columns_in_order() {
        let mut a = GrowMat::tall(3, 1);
        let b = Owned::from_fn(3, 2, |i, j| (i + 10 * j) as f64);
        a.push_cols(b.as_ref());
        a.push_cols(b.as_ref().sub(0, 1, 3, 1));
        assert_eq!(a.cols(), 3);
        assert_eq!(a.get(2, 0), 2.0);
        assert_eq!(a.get(1, 1), 11.0);
        assert_eq!(a.get(2, 2), 12.0);
        assert_eq!(a.view()[[2, 2]], 12.0);
    }

    #[test]
    fn square_growth_keeps_entries_and_zeroes_new_ones() {
        let mut f = GrowMat::square(2, 2);
        f.set(0, 0, 1.0);
        f.set(0, 1, 2.0);
        f.set(1, 1, 3.0);
        f.grow_square(5);
        assert_eq!((f.get(0, 0), f.get(0, 1), f.get(1, 1)), (1.0, 2.0, 3.0));
        for i in 0..5 {
            for j in 0..5 {
                if i >= 2 || j >= 2 {
                    assert_eq!(f.get(i, j), 0.0);
                }
            }
        }
        f.set(4, 4, 7.0);
        f.reserve_square(20);
        assert_eq!(f.rows(), 5);
        assert_eq!(f.get(4, 4), 7.0);
        assert_eq!(f.get(0, 1), 2.0);
    }
}
