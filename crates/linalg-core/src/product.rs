//! Large matrix products into fresh row-major arrays (the hidden layer's
//! `X·W`), with the output buffer allocated for speed.
//!
//! `ndarray`'s `dot` allocates the K×l result with ordinary 4 KiB pages; on
//! the development machine the first touch of such a buffer costs 0.5–1 s
//! per GB in page faults (docs/performance.md), about a third of the DGEMM
//! itself for MNIST's 60000×2000 hidden layer. [`matmul`] allocates the
//! result huge-page advised (`crate::alloc`) and runs one DGEMM into it.

use ndarray::{Array2, ArrayView2, CowArray, Ix2};

use crate::alloc;
use crate::error::{Error, Result};
use crate::kernels::{self, Flops, MatMut, MatRef, Op};

/// A standard-layout (row-major contiguous) view of `v`, copying only if
/// needed.
fn standard(v: ArrayView2<'_, f64>) -> CowArray<'_, f64, Ix2> {
    if v.is_standard_layout() {
        CowArray::from(v)
    } else {
        CowArray::from(v.as_standard_layout().into_owned())
    }
}

/// `X·W` (K×l, row-major) for `x` (K×N) and `w` (N×l), in one DGEMM.
///
/// Row-major `X` and `W` are, byte for byte, the column-major `Xᵀ` and
/// `Wᵀ`; the product is computed as `(XW)ᵀ = Wᵀ Xᵀ` in column-major terms,
/// which is the row-major `XW`, so nothing is transposed or copied (inputs
/// in other layouts are copied once).
///
/// ```
/// use linalg_core::product::matmul;
/// use ndarray::array;
/// let p = matmul(array![[1.0, 2.0], [3.0, 4.0]].view(), array![[1.0], [1.0]].view())?;
/// assert_eq!(p, array![[3.0], [7.0]]);
/// # Ok::<(), linalg_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Shape`] if the inner dimensions differ.
pub fn matmul(x: ArrayView2<'_, f64>, w: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    let ((k, n), (n2, l)) = (x.dim(), w.dim());
    if n != n2 {
        return Err(Error::Shape {
            what: "right factor W of X·W",
            expected: format!("{n} rows (the columns of X)"),
            found: format!("{n2}"),
        });
    }
    let mut out = alloc::zeroed(k * l);
    if k > 0 && l > 0 {
        let (xs, ws) = (standard(x), standard(w));
        let contiguous = |what| Error::Shape {
            what,
            expected: "a contiguous copy".into(),
            found: "a non-contiguous array".into(),
        };
        let xd = xs.as_slice().ok_or_else(|| contiguous("left factor X of X·W"))?;
        let wd = ws.as_slice().ok_or_else(|| contiguous("right factor W of X·W"))?;
        let mut fl = Flops::default();
        // An empty inner dimension leaves the zero matrix.
        if n > 0 {
            kernels::gemm(
                &mut fl,
                1.0,
                MatRef::new(wd, l, n, l),
                Op::N,
                MatRef::new(xd, n, k, n),
                Op::N,
                0.0,
                MatMut::new(&mut out, l, k, l),
            );
        }
    }
    Array2::from_shape_vec((k, l), out).map_err(|e| Error::Shape {
        what: "product X·W",
        expected: format!("{k}×{l}"),
        found: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::matmul;
    use ndarray::{s, Array2, ShapeBuilder};

    #[test]
    fn matmul_equals_ndarray_dot_in_every_layout() {
        let x = Array2::from_shape_fn((7, 5), |(i, j)| (i * 5 + j) as f64 * 0.37 - 3.0);
        let w = Array2::from_shape_fn((5, 4), |(i, j)| ((i + 2 * j) as f64).sin());
        let want = x.dot(&w);
        let mut xf = Array2::zeros((7, 5).f());
        xf.assign(&x);
        let mut tall = Array2::zeros((14, 5));
        tall.slice_mut(s![..;2, ..]).assign(&x);
        for xv in [x.view(), xf.view(), tall.slice(s![..;2, ..])] {
            let got = matmul(xv, w.view()).expect("product");
            assert!(got.is_standard_layout());
            for (a, b) in got.iter().zip(want.iter()) {
                assert!((a - b).abs() <= 1e-13 * (1.0 + b.abs()));
            }
        }
        assert!(matmul(x.view(), x.view()).is_err());
        assert_eq!(
            matmul(Array2::zeros((3, 0)).view(), Array2::zeros((0, 2)).view()).expect("empty"),
            Array2::<f64>::zeros((3, 2))
        );
    }
}
