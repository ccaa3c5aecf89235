//! The store of the hidden-layer matrix `A` (K×n) that every incremental
//! solver keeps, in double or single precision.
//!
//! Every update needs products with the current `A` (`AᵀH`, `A·D`, `Aᵀh`),
//! so each solver owns a copy. At the BLS paper's MNIST size (60000 ×
//! 25170) that copy is 12.1 GB in f64; R-Inv and Orig. also keep a K×n
//! pseudo-inverse, 24 GB together. [`Precision::F32`] stores `A` in 4 bytes
//! per entry (6 GB there).
//!
//! **Exactness.** With `F32` the solver rounds every column it is given to
//! the nearest f32 *before* using it, and from then on computes in f64 with
//! the widened values, so every product sees the same matrix `A₃₂` (exactly
//! representable in both precisions) and the solver solves the ridge problem
//! for `A₃₂` to the same accuracy as the f64 solver solves it for `A`. The
//! difference from the f64 problem is the relative rounding of the entries
//! (≤ 2⁻²⁴ ≈ 6e-8), a perturbation of the data, not of the algorithm;
//! callers that need the two to agree exactly (tests, a model's predictions
//! on its training data) round their own copy with [`round_to_f32`].
//!
//! **Speed.** The f32 products widen `A` panel by panel into a f64 buffer of
//! about [`PANEL_BYTES`] and run DGEMM/DSYRK on it: by column panels for
//! `AᵀB` (each panel gives its own rows of the result) and by row panels for
//! `A·D` (its own rows of `C`), so each output entry is written once per
//! call. The widening moves 12 bytes per entry of `A`, against the `2q`
//! flops per entry of the product.

use ndarray::{Array2, CowArray, Ix2, ShapeBuilder};

use crate::kernels::{self, Flops, MatMut, MatRef, Op, Owned};
use crate::store::GrowMat;

/// The precision `A` is stored in (its products are always computed in f64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Precision {
    /// 8 bytes per entry, `A` kept exactly as given.
    #[default]
    F64,
    /// 4 bytes per entry, columns rounded to f32 on arrival (see the module
    /// documentation for what that means for the solution).
    F32,
}

/// Size of the f64 buffer that f32 panels are widened into.
pub const PANEL_BYTES: usize = 128 << 20;

/// Round every entry to the nearest f32 (kept as f64): what a
/// [`Precision::F32`] solver does to the columns it is given.
pub fn round_to_f32(a: &mut Array2<f64>) {
    a.mapv_inplace(|v| v as f32 as f64);
}

/// Column-major K×n f32 matrix with spare column capacity (`ld = rows`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Tall32 {
    data: Vec<f32>,
    rows: usize,
    cols: usize,
}

impl Tall32 {
    fn col(&self, j: usize) -> &[f32] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }
}

/// `A` in the chosen precision.
#[derive(Clone, Debug)]
pub(crate) enum HiddenStore {
    F64(GrowMat),
    F32(Tall32),
}

impl HiddenStore {
    /// Take over a column-major matrix (rounding it for `F32`).
    pub fn new(a: Owned, precision: Precision) -> Self {
        match precision {
            Precision::F64 => HiddenStore::F64(GrowMat::from_owned(a)),
            Precision::F32 => {
                let (rows, cols) = (a.rows(), a.cols());
                let data = a.data().iter().map(|&v| v as f32).collect();
                HiddenStore::F32(Tall32 { data, rows, cols })
            }
        }
    }

    pub fn precision(&self) -> Precision {
        match self {
            HiddenStore::F64(_) => Precision::F64,
            HiddenStore::F32(_) => Precision::F32,
        }
    }

    /// Round new columns the way this store will keep them.
    pub fn conform(&self, h: &mut Owned) {
        if let HiddenStore::F32(_) = self {
            for v in h.data_mut() {
                *v = *v as f32 as f64;
            }
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            HiddenStore::F64(g) => g.cols(),
            HiddenStore::F32(t) => t.cols,
        }
    }

    /// Bytes held (capacity included).
    pub fn bytes(&self) -> usize {
        match self {
            HiddenStore::F64(g) => g.bytes(),
            HiddenStore::F32(t) => t.data.capacity() * 4,
        }
    }

    pub fn reserve_cols(&mut self, additional: usize) {
        match self {
            HiddenStore::F64(g) => g.reserve_cols(additional),
            HiddenStore::F32(t) => t.data.reserve_exact((t.cols + additional) * t.rows - t.data.len()),
        }
    }

    /// Append columns (already conformed by [`Self::conform`]).
    pub fn push_cols(&mut self, src: MatRef<'_>) {
        match self {
            HiddenStore::F64(g) => g.push_cols(src),
            HiddenStore::F32(t) => {
                assert_eq!(src.rows(), t.rows, "push_cols: row count differs");
                for j in 0..src.cols() {
                    t.data.extend(src.col(j).iter().map(|&v| v as f32));
                }
                t.cols += src.cols();
            }
        }
    }

    /// `A` as f64: borrowed for `F64`, widened for `F32`.
    pub fn view(&self) -> CowArray<'_, f64, Ix2> {
        match self {
            HiddenStore::F64(g) => CowArray::from(g.view()),
            HiddenStore::F32(t) => {
                let v: Vec<f64> = t.data.iter().map(|&x| x as f64).collect();
                let a = Array2::from_shape_vec((t.rows, t.cols).f(), v).expect("Tall32 holds rows × cols entries");
                CowArray::from(a)
            }
        }
    }

    /// An f64 copy of `A` with room to grow (e.g. to start `B = A F Fᵀ`).
    pub fn to_grow_f64(&self) -> GrowMat {
        match self {
            HiddenStore::F64(g) => g.clone(),
            HiddenStore::F32(_) => GrowMat::from_owned(Owned::from_view(self.view().view())),
        }
    }

    /// `C ← alpha·AᵀB + beta·C` (B: K×q, C: n×q).
    pub fn gemm_t(&self, fl: &mut Flops, alpha: f64, b: MatRef<'_>, beta: f64, mut c: MatMut<'_>) {
        match self {
            HiddenStore::F64(g) => kernels::gemm(fl, alpha, g.as_ref(), Op::T, b, Op::N, beta, c),
            HiddenStore::F32(t) => {
                let (k, n, q) = (t.rows, t.cols, b.cols());
                let w = (PANEL_BYTES / (8 * k.max(1))).clamp(16, n.max(16));
                let mut buf = vec![0.0; k * w.min(n)];
                let mut j0 = 0;
                while j0 < n {
                    let j1 = (j0 + w).min(n);
                    let width = j1 - j0;
                    for (jj, j) in (j0..j1).enumerate() {
                        for (d, &s) in buf[jj * k..(jj + 1) * k].iter_mut().zip(t.col(j)) {
                            *d = s as f64;
                        }
                    }
                    let panel = MatRef::new(&buf, k, width, k.max(1));
                    kernels::gemm(fl, alpha, panel, Op::T, b, Op::N, beta, c.rb_mut().sub(j0, 0, width, q));
                    j0 = j1;
                }
            }
        }
    }

    /// `p ← Aᵀh` for one column `h` (K) into `p` (n): Zhu & Wei's `p = Aᵀh`
    /// of a single-node update.
    pub fn t_times_vec(&self, fl: &mut Flops, h: &[f64], p: &mut [f64]) {
        let (k, n) = (h.len(), p.len());
        self.gemm_t(
            fl,
            1.0,
            MatRef::new(h, k, 1, k.max(1)),
            0.0,
            MatMut::new(p, n, 1, n.max(1)),
        );
    }

    /// `C ← alpha·A·D + beta·C` (D: n×q, C: K×q).
    pub fn gemm_n(&self, fl: &mut Flops, alpha: f64, d: MatRef<'_>, beta: f64, mut c: MatMut<'_>) {
        match self {
            HiddenStore::F64(g) => kernels::gemm(fl, alpha, g.as_ref(), Op::N, d, Op::N, beta, c),
            HiddenStore::F32(t) => {
                let (k, n, q) = (t.rows, t.cols, d.cols());
                let r = (PANEL_BYTES / (8 * n.max(1))).clamp(64, k.max(64));
                let mut buf = vec![0.0; r.min(k) * n];
                let mut i0 = 0;
                while i0 < k {
                    let i1 = (i0 + r).min(k);
                    let height = i1 - i0;
                    widen_rows(t, i0, i1, &mut buf);
                    let panel = MatRef::new(&buf, height, n, height);
                    kernels::gemm(
                        fl,
                        alpha,
                        panel,
                        Op::N,
                        d,
                        Op::N,
                        beta,
                        c.rb_mut().sub(i0, 0, height, q),
                    );
                    i0 = i1;
                }
            }
        }
    }

    /// `C ← alpha·AᵀA + beta·C` (upper triangle of the n×n `C`).
    pub fn syrk_t(&self, fl: &mut Flops, alpha: f64, beta: f64, mut c: MatMut<'_>) {
        match self {
            HiddenStore::F64(g) => kernels::syrk(fl, alpha, g.as_ref(), Op::T, beta, c),
            HiddenStore::F32(t) => {
                let (k, n) = (t.rows, t.cols);
                let r = (PANEL_BYTES / (8 * n.max(1))).clamp(64, k.max(64));
                let mut buf = vec![0.0; r.min(k) * n];
                let mut i0 = 0;
                let mut first = true;
                while i0 < k {
                    let i1 = (i0 + r).min(k);
                    let height = i1 - i0;
                    widen_rows(t, i0, i1, &mut buf);
                    let panel = MatRef::new(&buf, height, n, height);
                    kernels::syrk(fl, alpha, panel, Op::T, if first { beta } else { 1.0 }, c.rb_mut());
                    first = false;
                    i0 = i1;
                }
            }
        }
    }
}

/// Rows `i0..i1` of `t`, widened into `buf` as a column-major
/// `(i1 − i0) × n` matrix.
fn widen_rows(t: &Tall32, i0: usize, i1: usize, buf: &mut [f64]) {
    let h = i1 - i0;
    for j in 0..t.cols {
        for (d, &s) in buf[j * h..(j + 1) * h].iter_mut().zip(&t.col(j)[i0..i1]) {
            *d = s as f64;
        }
    }
}

/// `a` rounded to f32 and widened back (what an f32 store holds).
#[cfg(test)]
fn widened(a: ndarray::ArrayView2<'_, f64>) -> Array2<f64> {
    a.mapv(|v| v as f32 as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(a: &Array2<f64>) -> Owned {
        Owned::from_view(a.view())
    }

    fn close(a: &Array2<f64>, b: &Array2<f64>) {
        assert_eq!(a.dim(), b.dim());
        let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (x, y) in a.iter().zip(b.iter()) {
            assert!((x - y).abs() <= 1e-12 * scale, "{x} vs {y}");
        }
    }

    /// The panel products of an f32 store equal the f64 products of the
    /// rounded matrix, for panel counts of one and of many (a tiny panel
    /// size is forced through the row/column counts).
    #[test]
    fn f32_products_equal_f64_products_of_the_rounded_matrix() {
        // K large enough for several row panels when n is large enough.
        for (k, n, q) in [(7, 3, 2), (300, 40, 5), (70_000, 300, 3)] {
            let a = Array2::from_shape_fn((k, n), |(i, j)| {
                ((i * 31 + j * 17) % 101) as f64 / 7.3 - 6.0 + 1e-9 * i as f64
            });
            let a32 = widened(a.view());
            let mut store = HiddenStore::new(owned(&a), Precision::F32);
            let exact = HiddenStore::new(owned(&a32), Precision::F64);
            let b = Array2::from_shape_fn((k, q), |(i, j)| ((i + 3 * j) as f64).sin());
            let d = Array2::from_shape_fn((n, q), |(i, j)| ((2 * i + j) as f64).cos());
            let mut fl = Flops::default();
            // AᵀB
            let (mut c1, mut c2) = (Owned::zeros(n, q), Owned::zeros(n, q));
            store.gemm_t(&mut fl, 1.5, owned(&b).as_ref(), 0.0, c1.as_mut());
            exact.gemm_t(&mut fl, 1.5, owned(&b).as_ref(), 0.0, c2.as_mut());
            close(&c1.into_array(), &c2.into_array());
            // C − A·D
            let (mut c1, mut c2) = (owned(&b), owned(&b));
            store.gemm_n(&mut fl, -1.0, owned(&d).as_ref(), 1.0, c1.as_mut());
            exact.gemm_n(&mut fl, -1.0, owned(&d).as_ref(), 1.0, c2.as_mut());
            close(&c1.into_array(), &c2.into_array());
            // AᵀA
            let (mut g1, mut g2) = (Owned::zeros(n, n), Owned::zeros(n, n));
            store.syrk_t(&mut fl, 1.0, 0.0, g1.as_mut());
            exact.syrk_t(&mut fl, 1.0, 0.0, g2.as_mut());
            let (mut g1, mut g2) = (g1, g2);
            kernels::symmetrize_upper(&mut g1.as_mut());
            kernels::symmetrize_upper(&mut g2.as_mut());
            close(&g1.into_array(), &g2.into_array());
            // Growing keeps the rounded columns; the view is the rounded A.
            let mut extra = owned(&b);
            store.conform(&mut extra);
            store.push_cols(extra.as_ref());
            assert_eq!(store.cols(), n + q);
            let v = store.view();
            assert_eq!(v.slice(ndarray::s![.., ..n]), a32.view());
            assert_eq!(v.slice(ndarray::s![.., n..]), widened(b.view()).view());
        }
    }
}
