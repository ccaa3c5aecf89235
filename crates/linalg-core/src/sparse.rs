//! Sparse samples (issue 41, item 4): a compressed sparse row matrix
//! ([`Csr`]), its products with dense matrices, and [`Samples`], the sample
//! matrix of a fit or a prediction, dense or sparse.
//!
//! A random hidden layer reads its samples `X` (K×N) only through the
//! product `X·W` with its input weights (N×l): the ELM's pre-activations,
//! the BLS's random maps and feature maps. The BLS's sparse autoencoder
//! also needs `BᵀX` for a dense `B` (K×n). On a CSR matrix with `nnz`
//! stored entries both cost `2·nnz·l` flops, against `2·K·N·l` dense, and
//! the samples take `16·nnz` bytes instead of `8·K·N`; the hidden layer's
//! output `f(XW + 1bᵀ)` is dense either way.
//!
//! ```
//! use linalg_core::sparse::Csr;
//! use ndarray::array;
//! // [[1, 0, 2], [0, 0, 0], [0, 3, 0]]
//! let x = Csr::try_new(3, 3, vec![0, 2, 2, 3], vec![0, 2, 1], vec![1.0, 2.0, 3.0])?;
//! let w = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
//! assert_eq!(x.matmul(w.view())?, array![[3.0, 2.0], [0.0, 0.0], [0.0, 3.0]]);
//! assert_eq!(x.to_dense(), array![[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0]]);
//! # Ok::<(), linalg_core::Error>(())
//! ```

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, CowArray, Ix2};

use crate::error::{Error, Result};

/// Products with fewer multiply–adds than this run on one thread.
const PARALLEL_WORK: usize = 1 << 18;

/// A K×N matrix in compressed sparse row form (scipy's `csr_matrix`, the
/// LIBSVM file's rows): row `i` holds the values `values[p]` at columns
/// `indices[p]` for `p` in `indptr[i]..indptr[i + 1]`; every other entry is
/// 0. Within a row the column indices may come in any order, and a
/// repeated index adds its values (as scipy's `toarray` does).
///
/// Made by [`Csr::try_new`] or [`Csr::from_dense`], a `Csr` always has
/// consistent pointers, column indices below `N` and finite values, so the
/// products need no further check of their sparse factor.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    nrows: usize,
    ncols: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
}

/// The [`Error::Shape`] of a malformed CSR matrix.
fn malformed(expected: String, found: String) -> Error {
    Error::Shape {
        what: "sparse matrix (CSR)",
        expected,
        found,
    }
}

impl Csr {
    /// The `nrows`×`ncols` matrix of the row pointers `indptr`, column
    /// indices `indices` and values `values`.
    ///
    /// # Errors
    /// [`Error::Shape`] unless `indptr` has `nrows + 1` entries, starts at
    /// 0, never decreases and ends at the number of values, `indices` has
    /// one entry per value and every index is below `ncols`;
    /// [`Error::NonFinite`] (naming the row and column of the first) if a
    /// value is NaN or ±∞.
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    ) -> Result<Self> {
        if indptr.len().checked_sub(1) != Some(nrows) {
            return Err(malformed(
                format!("{nrows} + 1 row pointers"),
                format!("{}", indptr.len()),
            ));
        }
        if indices.len() != values.len() {
            return Err(malformed(
                format!("one column index per value ({} values)", values.len()),
                format!("{} column indices", indices.len()),
            ));
        }
        if indptr[0] != 0 || indptr[nrows] != values.len() {
            return Err(malformed(
                format!("row pointers from 0 to the number of values, {}", values.len()),
                format!("from {} to {}", indptr[0], indptr[nrows]),
            ));
        }
        if let Some(i) = indptr.windows(2).position(|w| w[1] < w[0]) {
            return Err(malformed(
                "non-decreasing row pointers".into(),
                format!("row {i} from {} back to {}", indptr[i], indptr[i + 1]),
            ));
        }
        let m = Csr {
            nrows,
            ncols,
            indptr,
            indices,
            values,
        };
        if let Some(p) = m.indices.iter().position(|&j| j >= ncols) {
            return Err(malformed(
                format!("column indices below {ncols}"),
                format!("index {} in row {}", m.indices[p], m.row_of(p)),
            ));
        }
        let count = m.values.iter().filter(|v| !v.is_finite()).count();
        if let Some(p) = m.values.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "sparse matrix (CSR)",
                row: m.row_of(p),
                col: m.indices[p],
                count,
            });
        }
        Ok(m)
    }

    /// The nonzero entries of `x`, row by row in column order.
    ///
    /// # Errors
    /// [`Error::NonFinite`] if `x` holds NaN or ±∞.
    pub fn from_dense(x: ArrayView2<'_, f64>) -> Result<Self> {
        crate::validate::finite("samples X", &x)?;
        let mut indptr = Vec::with_capacity(x.nrows() + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        indptr.push(0);
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    indices.push(j);
                    values.push(v);
                }
            }
            indptr.push(values.len());
        }
        Ok(Csr {
            nrows: x.nrows(),
            ncols: x.ncols(),
            indptr,
            indices,
            values,
        })
    }

    /// The row holding stored entry `p` (`p` below the number of values).
    fn row_of(&self, p: usize) -> usize {
        // indptr[0] = 0 ≤ p, so at least one pointer is ≤ p.
        self.indptr.partition_point(|&s| s <= p) - 1
    }

    /// Number of rows `K`.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns `N`.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Stored entries per entry of the K×N matrix (0 for an empty shape).
    pub fn density(&self) -> f64 {
        let cells = self.nrows as f64 * self.ncols as f64;
        if cells > 0.0 {
            self.nnz() as f64 / cells
        } else {
            0.0
        }
    }

    /// The row pointers (`K + 1`).
    pub fn indptr(&self) -> &[usize] {
        &self.indptr
    }

    /// The column index of every stored entry.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The value of every stored entry.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Row `i`'s column indices and values, or `None` for `i ≥ K`.
    pub fn row(&self, i: usize) -> Option<(&[usize], &[f64])> {
        let span = *self.indptr.get(i)?..*self.indptr.get(i + 1)?;
        Some((&self.indices[span.clone()], &self.values[span]))
    }

    /// The dense K×N matrix (repeated indices added).
    pub fn to_dense(&self) -> Array2<f64> {
        let mut x = Array2::zeros((self.nrows, self.ncols));
        for (i, mut row) in x.rows_mut().into_iter().enumerate() {
            for p in self.indptr[i]..self.indptr[i + 1] {
                row[self.indices[p]] += self.values[p];
            }
        }
        x
    }

    /// The rows `rows` (in that order, repeats allowed) as a new matrix.
    ///
    /// # Errors
    /// [`Error::Shape`] if a row index is `≥ K`.
    pub fn select_rows(&self, rows: &[usize]) -> Result<Csr> {
        if let Some(&i) = rows.iter().find(|&&i| i >= self.nrows) {
            return Err(Error::Shape {
                what: "rows selected from a sparse matrix",
                expected: format!("indices below {}", self.nrows),
                found: format!("{i}"),
            });
        }
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        indptr.push(0);
        for &i in rows {
            let span = self.indptr[i]..self.indptr[i + 1];
            indices.extend_from_slice(&self.indices[span.clone()]);
            values.extend_from_slice(&self.values[span]);
            indptr.push(values.len());
        }
        Ok(Csr {
            nrows: rows.len(),
            ncols: self.ncols,
            indptr,
            indices,
            values,
        })
    }

    /// `X·W` (K×l, row-major) for `w` (N×l): `2·nnz·l` flops.
    ///
    /// # Errors
    /// [`Error::Shape`] if `w` does not have `N` rows.
    pub fn matmul(&self, w: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let (k, l) = (self.nrows, w.ncols());
        let mut out = Array2::from_shape_vec((k, l), crate::alloc::zeroed(k * l)).map_err(|e| Error::Shape {
            what: "product X·W",
            expected: format!("{k}×{l}"),
            found: e.to_string(),
        })?;
        self.matmul_into(w, out.view_mut())?;
        Ok(out)
    }

    /// `out ← X·W` for `w` (N×l) and `out` (K×l, any layout).
    ///
    /// Row `i` of the product is `Σ_p values[p] · W[indices[p], :]` over the
    /// row's stored entries, accumulated in a contiguous buffer in the
    /// order they are stored (a row of a row-major `W` is contiguous, so
    /// each entry is one streaming multiply–add over `l` values). The rows
    /// are shared among at most [`threads::budget`](crate::threads::budget)
    /// scoped threads in blocks of about equal numbers of stored entries.
    ///
    /// # Errors
    /// [`Error::Shape`] if `w` does not have `N` rows or `out` is not K×l.
    pub fn matmul_into(&self, w: ArrayView2<'_, f64>, out: ArrayViewMut2<'_, f64>) -> Result<()> {
        let l = w.ncols();
        if w.nrows() != self.ncols {
            return Err(Error::Shape {
                what: "right factor W of X·W (X sparse)",
                expected: format!("{} rows (the columns of X)", self.ncols),
                found: format!("{}×{}", w.nrows(), l),
            });
        }
        if out.dim() != (self.nrows, l) {
            return Err(Error::Shape {
                what: "product X·W (X sparse)",
                expected: format!("{}×{l}", self.nrows),
                found: format!("{}×{}", out.nrows(), out.ncols()),
            });
        }
        if l == 0 || self.nrows == 0 {
            return Ok(());
        }
        let ws = standard(w);
        let wd = ws.as_slice().ok_or_else(|| Error::Shape {
            what: "right factor W of X·W (X sparse)",
            expected: "a contiguous copy".into(),
            found: "a non-contiguous array".into(),
        })?;
        let work = |first: usize, mut block: ArrayViewMut2<'_, f64>| {
            let mut acc = vec![0.0; l];
            for (r, mut row) in block.axis_iter_mut(Axis(0)).enumerate() {
                let i = first + r;
                acc.fill(0.0);
                for p in self.indptr[i]..self.indptr[i + 1] {
                    let (j, v) = (self.indices[p], self.values[p]);
                    for (a, &b) in acc.iter_mut().zip(&wd[j * l..(j + 1) * l]) {
                        *a += v * b;
                    }
                }
                for (o, &a) in row.iter_mut().zip(&acc) {
                    *o = a;
                }
            }
        };
        let threads = self.threads_for(l);
        if threads <= 1 {
            work(0, out);
            return Ok(());
        }
        let blocks = self.balanced_blocks(threads);
        std::thread::scope(|scope| {
            let mut rest = out;
            let mut start = 0;
            for &end in &blocks {
                let (head, tail) = rest.split_at(Axis(0), end - start);
                rest = tail;
                let work = &work;
                let first = start;
                scope.spawn(move || work(first, head));
                start = end;
            }
        });
        Ok(())
    }

    /// `Xᵀ·B` (N×n, row-major) for `b` (K×n): row `j` of the result sums
    /// `values[p] · B[i, :]` over the stored entries `(i, j)`, in storage
    /// order (one thread; `2·nnz·n` flops).
    ///
    /// # Errors
    /// [`Error::Shape`] if `b` does not have `K` rows.
    pub fn transpose_matmul(&self, b: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let n = b.ncols();
        if b.nrows() != self.nrows {
            return Err(Error::Shape {
                what: "right factor B of XᵀB (X sparse)",
                expected: format!("{} rows (the rows of X)", self.nrows),
                found: format!("{}×{}", b.nrows(), n),
            });
        }
        let mut out = Array2::<f64>::zeros((self.ncols, n));
        let mut brow = vec![0.0; n];
        for (i, row) in b.rows().into_iter().enumerate() {
            if self.indptr[i] == self.indptr[i + 1] {
                continue;
            }
            for (t, &v) in brow.iter_mut().zip(row.iter()) {
                *t = v;
            }
            for p in self.indptr[i]..self.indptr[i + 1] {
                let (j, v) = (self.indices[p], self.values[p]);
                for (o, &t) in out.row_mut(j).iter_mut().zip(&brow) {
                    *o += v * t;
                }
            }
        }
        Ok(out)
    }

    /// How many threads a product with `l` columns gets: the budget, at
    /// most one per row, one below [`PARALLEL_WORK`] multiply–adds.
    fn threads_for(&self, l: usize) -> usize {
        if self.nnz().saturating_mul(l) < PARALLEL_WORK {
            return 1;
        }
        crate::threads::budget().clamp(1, 64).min(self.nrows.max(1))
    }

    /// The ends of `threads` consecutive row blocks holding about equal
    /// numbers of stored entries (the last end is `K`; ends never go back).
    fn balanced_blocks(&self, threads: usize) -> Vec<usize> {
        let nnz = self.nnz();
        let mut ends: Vec<usize> = (1..threads)
            .map(|t| {
                let target = nnz / threads * t + (nnz % threads) * t / threads;
                self.indptr.partition_point(|&s| s < target).min(self.nrows)
            })
            .collect();
        ends.push(self.nrows);
        for t in 1..ends.len() {
            ends[t] = ends[t].max(ends[t - 1]);
        }
        ends
    }
}

/// A standard-layout (row-major contiguous) view of `v`, copying only if
/// needed.
fn standard(v: ArrayView2<'_, f64>) -> CowArray<'_, f64, Ix2> {
    if v.is_standard_layout() {
        CowArray::from(v)
    } else {
        CowArray::from(v.as_standard_layout().into_owned())
    }
}

/// The samples of a fit or a prediction (K×N, one row per sample), dense
/// or sparse: what the ELM's and the BLS's hidden layers take. Converted
/// from an `ArrayView2` or a `&Csr` (`.into()`).
#[derive(Clone, Copy, Debug)]
pub enum Samples<'a> {
    /// A dense matrix, any layout.
    Dense(ArrayView2<'a, f64>),
    /// A compressed sparse row matrix.
    Sparse(&'a Csr),
}

impl<'a> From<ArrayView2<'a, f64>> for Samples<'a> {
    fn from(x: ArrayView2<'a, f64>) -> Self {
        Samples::Dense(x)
    }
}

impl<'a> From<&'a Array2<f64>> for Samples<'a> {
    fn from(x: &'a Array2<f64>) -> Self {
        Samples::Dense(x.view())
    }
}

impl<'a> From<&'a ArrayView2<'_, f64>> for Samples<'a> {
    fn from(x: &'a ArrayView2<'_, f64>) -> Self {
        Samples::Dense(x.view())
    }
}

impl<'a> From<&'a Csr> for Samples<'a> {
    fn from(x: &'a Csr) -> Self {
        Samples::Sparse(x)
    }
}

impl Samples<'_> {
    /// Number of samples `K`.
    pub fn nrows(&self) -> usize {
        match self {
            Samples::Dense(x) => x.nrows(),
            Samples::Sparse(x) => x.nrows(),
        }
    }

    /// Number of features `N`.
    pub fn ncols(&self) -> usize {
        match self {
            Samples::Dense(x) => x.ncols(),
            Samples::Sparse(x) => x.ncols(),
        }
    }

    /// Whether the samples are sparse.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Samples::Sparse(_))
    }

    /// At least one row and one column, every value finite (a [`Csr`] is
    /// finite by construction).
    ///
    /// # Errors
    /// [`Error::Empty`] or [`Error::NonFinite`] naming `what`.
    pub fn check(&self, what: &'static str) -> Result<()> {
        match self {
            Samples::Dense(x) => {
                crate::validate::non_empty(what, x)?;
                crate::validate::finite(what, x)
            }
            Samples::Sparse(x) => {
                if x.nrows() == 0 || x.ncols() == 0 {
                    return Err(Error::Empty {
                        what,
                        rows: x.nrows(),
                        cols: x.ncols(),
                    });
                }
                Ok(())
            }
        }
    }

    /// `f` folded over the nonzero values of row `k` (a dense row's zeros
    /// included): enough for the row's norm or largest magnitude.
    ///
    /// # Panics
    /// If `k ≥ K`.
    pub fn fold_row<T>(&self, k: usize, init: T, f: impl FnMut(T, f64) -> T) -> T {
        match self {
            Samples::Dense(x) => x.row(k).iter().copied().fold(init, f),
            Samples::Sparse(x) => x.values[x.indptr[k]..x.indptr[k + 1]].iter().copied().fold(init, f),
        }
    }

    /// `X·W` (K×l, row-major) for `w` (N×l): one DGEMM for dense samples
    /// ([`crate::product::matmul`]), [`Csr::matmul`] for sparse ones.
    ///
    /// # Errors
    /// [`Error::Shape`] if `w` does not have `N` rows.
    pub fn matmul(&self, w: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        match self {
            Samples::Dense(x) => crate::product::matmul(*x, w),
            Samples::Sparse(x) => x.matmul(w),
        }
    }

    /// `out ← X·W` for `w` (N×l) and `out` (K×l, any layout): ndarray's
    /// `general_mat_mul` (DGEMM) for dense samples, [`Csr::matmul_into`]
    /// for sparse ones.
    ///
    /// # Errors
    /// [`Error::Shape`] if the shapes do not agree.
    pub fn matmul_into(&self, w: ArrayView2<'_, f64>, mut out: ArrayViewMut2<'_, f64>) -> Result<()> {
        match self {
            Samples::Dense(x) => {
                if x.ncols() != w.nrows() || out.dim() != (x.nrows(), w.ncols()) {
                    return Err(Error::Shape {
                        what: "product X·W",
                        expected: format!("W with {} rows and a {}×{} result", x.ncols(), x.nrows(), w.ncols()),
                        found: format!("W {}×{}, result {}×{}", w.nrows(), w.ncols(), out.nrows(), out.ncols()),
                    });
                }
                general_mat_mul(1.0, x, &w, 0.0, &mut out);
                Ok(())
            }
            Samples::Sparse(x) => x.matmul_into(w, out),
        }
    }

    /// The rows `rows` (in that order) as owned samples.
    ///
    /// # Errors
    /// [`Error::Shape`] if a row index is `≥ K`.
    pub fn select_rows(&self, rows: &[usize]) -> Result<OwnedSamples> {
        match self {
            Samples::Dense(x) => {
                if let Some(&i) = rows.iter().find(|&&i| i >= x.nrows()) {
                    return Err(Error::Shape {
                        what: "rows selected from the samples",
                        expected: format!("indices below {}", x.nrows()),
                        found: format!("{i}"),
                    });
                }
                Ok(OwnedSamples::Dense(x.select(Axis(0), rows)))
            }
            Samples::Sparse(x) => Ok(OwnedSamples::Sparse(x.select_rows(rows)?)),
        }
    }
}

/// Owned [`Samples`]: what selecting rows of them gives.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedSamples {
    /// A dense matrix.
    Dense(Array2<f64>),
    /// A compressed sparse row matrix.
    Sparse(Csr),
}

impl OwnedSamples {
    /// The borrowed samples.
    pub fn view(&self) -> Samples<'_> {
        match self {
            OwnedSamples::Dense(x) => Samples::Dense(x.view()),
            OwnedSamples::Sparse(x) => Samples::Sparse(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, ShapeBuilder};

    fn example() -> Csr {
        // [[1, 0, 2], [0, 0, 0], [0, 3, 0], [4, 0, 0]]
        Csr::try_new(4, 3, vec![0, 2, 2, 3, 4], vec![0, 2, 1, 0], vec![1.0, 2.0, 3.0, 4.0]).expect("valid")
    }

    #[test]
    fn malformed_matrices_are_errors_naming_the_fault() {
        let bad = |r: Result<Csr>| r.expect_err("malformed").to_string();
        assert!(bad(Csr::try_new(2, 3, vec![0, 1], vec![0], vec![1.0])).contains("2 + 1 row pointers"));
        assert!(bad(Csr::try_new(1, 3, vec![0, 1], vec![0, 1], vec![1.0])).contains("one column index per value"));
        assert!(bad(Csr::try_new(1, 3, vec![1, 1], vec![0], vec![1.0])).contains("from 0 to"));
        assert!(bad(Csr::try_new(2, 3, vec![0, 1, 2], vec![0], vec![1.0])).contains("from 0 to"));
        assert!(
            bad(Csr::try_new(3, 3, vec![0, 2, 1, 2], vec![0, 1], vec![1.0, 1.0])).contains("row 1 from 2 back to 1")
        );
        assert!(bad(Csr::try_new(2, 3, vec![0, 1, 2], vec![0, 3], vec![1.0, 1.0])).contains("index 3 in row 1"));
        let e = Csr::try_new(2, 3, vec![0, 1, 3], vec![0, 2, 1], vec![1.0, f64::NAN, f64::INFINITY]).expect_err("NaN");
        assert_eq!(
            e,
            Error::NonFinite {
                what: "sparse matrix (CSR)",
                row: 1,
                col: 2,
                count: 2
            }
        );
    }

    #[test]
    fn dense_round_trip_and_rows() {
        let x = example();
        let d = x.to_dense();
        assert_eq!(
            d,
            array![[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0], [4.0, 0.0, 0.0]]
        );
        assert_eq!(Csr::from_dense(d.view()).expect("finite"), x);
        assert_eq!(x.row(2), Some((&[1usize][..], &[3.0][..])));
        assert_eq!(x.row(4), None);
        assert_eq!((x.nnz(), x.density()), (4, 4.0 / 12.0));
        let s = x.select_rows(&[3, 0, 3]).expect("rows");
        assert_eq!(s.to_dense(), array![[4.0, 0.0, 0.0], [1.0, 0.0, 2.0], [4.0, 0.0, 0.0]]);
        assert!(x.select_rows(&[4]).is_err());
        // Repeated indices add up, as scipy's toarray does.
        let r = Csr::try_new(1, 2, vec![0, 2], vec![1, 1], vec![1.5, 2.0]).expect("valid");
        assert_eq!(r.to_dense(), array![[0.0, 3.5]]);
    }

    #[test]
    fn products_with_small_integers_are_exact() {
        // Small integers: every product and sum is exact, so the sparse
        // kernels must give the dense products to the bit.
        let x = example();
        let w = array![[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0]];
        let d = x.to_dense();
        assert_eq!(x.matmul(w.view()).expect("product"), d.dot(&w));
        let b = array![[1.0, 2.0], [5.0, 6.0], [-1.0, 0.0], [2.0, -3.0]];
        assert_eq!(x.transpose_matmul(b.view()).expect("product"), d.t().dot(&b));
        let mut f = Array2::zeros((4, 2).f());
        x.matmul_into(w.view(), f.view_mut()).expect("product");
        assert_eq!(f, d.dot(&w));
        assert!(x.matmul(b.view()).is_err());
        assert!(x.transpose_matmul(w.view()).is_err());
        assert!(x.matmul_into(w.view(), Array2::zeros((3, 2)).view_mut()).is_err());
    }

    #[test]
    fn balanced_blocks_cover_the_rows_in_order() {
        let x = example();
        for threads in 1..6 {
            let ends = x.balanced_blocks(threads);
            assert_eq!(ends.len(), threads);
            assert_eq!(ends.last(), Some(&4));
            assert!(ends.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn samples_dispatch_to_the_dense_and_sparse_kernels() {
        let x = example();
        let d = x.to_dense();
        let w = array![[1.0], [2.0], [3.0]];
        let (ds, ss) = (Samples::from(&d), Samples::from(&x));
        assert_eq!(
            (ss.nrows(), ss.ncols(), ss.is_sparse(), ds.is_sparse()),
            (4, 3, true, false)
        );
        assert_eq!(
            ds.matmul(w.view()).expect("dense"),
            ss.matmul(w.view()).expect("sparse")
        );
        assert_eq!(
            ds.fold_row(0, 0.0, |a, v| a + v * v),
            ss.fold_row(0, 0.0, |a, v| a + v * v)
        );
        let picked = ss.select_rows(&[2]).expect("rows");
        assert_eq!(picked.view().matmul(w.view()).expect("sparse"), array![[6.0]]);
        assert!(
            Samples::from(&Csr::try_new(0, 3, vec![0], vec![], vec![]).expect("empty"))
                .check("X")
                .is_err()
        );
        assert!(ss.check("X").is_ok());
    }
}
