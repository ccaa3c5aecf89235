//! Minimum-norm least squares by LAPACK's SVD solver `dgelsd`: the ELM's
//! output weights without regularization, `W = A⁺Y` (Zhu & Wei, eq. (9)).
//!
//! Singular values below `rcond·σ_max` are treated as zero; the default
//! `rcond = max(K, n)·ε` is MATLAB's `pinv` tolerance.

use std::os::raw::c_int;

use ndarray::{Array1, Array2, ArrayView2, ShapeBuilder};

use crate::error::{Error, Result};
use crate::ffi;
use crate::kernels::Owned;
use crate::validate;

/// The result of [`min_norm_lstsq`].
#[derive(Clone, Debug)]
pub struct Lstsq {
    /// `A⁺Y` (n×M).
    pub solution: Array2<f64>,
    /// Numerical rank of `A` at the tolerance used.
    pub rank: usize,
    /// Singular values of `A`, descending.
    pub singular_values: Array1<f64>,
}

/// `argmin ‖AW − Y‖_F` of minimum norm, for `A` (K×n) and `Y` (K×M), by
/// the SVD (`dgelsd`). `rcond`: relative cut-off for small singular values
/// (`None` → `max(K, n)·ε`).
///
/// ```
/// use linalg_core::lstsq::min_norm_lstsq;
/// use ndarray::array;
/// // Two identical columns: the minimum-norm solution splits the weight.
/// let a = array![[1.0, 1.0], [2.0, 2.0]];
/// let y = array![[2.0], [4.0]];
/// let s = min_norm_lstsq(a.view(), y.view(), None)?;
/// assert_eq!(s.rank, 1);
/// assert!((s.solution[[0, 0]] - 1.0).abs() < 1e-14 && (s.solution[[1, 0]] - 1.0).abs() < 1e-14);
/// # Ok::<(), linalg_core::Error>(())
/// ```
pub fn min_norm_lstsq(a: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, rcond: Option<f64>) -> Result<Lstsq> {
    validate::non_empty("A", &a)?;
    validate::non_empty("Y", &y)?;
    validate::rows("Y", &y, a.nrows())?;
    validate::finite("A", &a)?;
    validate::finite("Y", &y)?;
    let (k, n) = a.dim();
    let m = y.ncols();
    let mut a_f = Owned::from_view(a);
    // B must hold max(K, n) rows: Y on input, the solution's n rows on output.
    let ldb = k.max(n);
    let mut b = vec![0.0; ldb * m];
    for (j, col) in y.columns().into_iter().enumerate() {
        for (i, v) in col.iter().enumerate() {
            b[i + j * ldb] = *v;
        }
    }
    let mut s = vec![0.0; k.min(n)];
    let rcond = rcond.unwrap_or(k.max(n) as f64 * f64::EPSILON);
    let ci = |x: usize| {
        c_int::try_from(x).map_err(|_| Error::Lapack {
            routine: "dgelsd (dimension too large)",
            info: -1,
        })
    };
    let (mm, nn, nrhs, lda, ldb_c) = (ci(k)?, ci(n)?, ci(m)?, ci(k.max(1))?, ci(ldb)?);
    let mut rank: c_int = 0;
    let a_ptr = a_f.data_mut().as_mut_ptr();
    // One dgelsd call with the given workspaces (length −1: the size query).
    let mut dgelsd = |work: &mut [f64], lwork: c_int, iwork: &mut [c_int], stage: &'static str| {
        let mut info: c_int = 0;
        // SAFETY: a is K×n column-major with lda = K, b is ldb×M, s has
        // min(K, n) entries; in the query (lwork = −1) LAPACK writes only
        // work[0] and iwork[0], otherwise the workspaces have the sizes it
        // asked for.
        unsafe {
            ffi::dgelsd_(
                &mm,
                &nn,
                &nrhs,
                a_ptr,
                &lda,
                b.as_mut_ptr(),
                &ldb_c,
                s.as_mut_ptr(),
                &rcond,
                &mut rank,
                work.as_mut_ptr(),
                &lwork,
                iwork.as_mut_ptr(),
                &mut info,
            );
        }
        if info == 0 {
            Ok(())
        } else {
            Err(Error::Lapack { routine: stage, info })
        }
    };
    let (mut wq, mut iq) = ([0.0f64], [0 as c_int]);
    dgelsd(&mut wq, -1, &mut iq, "dgelsd (workspace query)")?;
    let mut work = vec![0.0; (wq[0] as usize).max(1)];
    let mut iwork = vec![0 as c_int; (iq[0] as usize).max(1)];
    let lwork = ci(work.len())?;
    dgelsd(&mut work, lwork, &mut iwork, "dgelsd (the SVD did not converge)")?;
    let mut solution = Array2::zeros((n, m).f());
    for j in 0..m {
        for i in 0..n {
            solution[[i, j]] = b[i + j * ldb];
        }
    }
    Ok(Lstsq {
        solution,
        rank: rank.max(0) as usize,
        singular_values: Array1::from(s),
    })
}
