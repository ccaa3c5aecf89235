//! The columns of a BLS's random maps: the products `Ũ W` with the bias
//! row (`Ũ = [U, 0.1·1]`), the one pass over them that gathers each
//! column's statistic (extremes, maxima), and MATLAB `mapminmax`'s min–max
//! scaling, column by column within the thread budget
//! ([`crate::parallel`]).

use linalg_core::sparse::Samples;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, ArrayView2, ArrayViewMut1, ArrayViewMut2, Axis, Slice};
use rayon::prelude::*;

use super::nodes::BIAS_INPUT;
use crate::activation::PARALLEL_THRESHOLD;

/// MATLAB `mapminmax`'s gain `span / (hi − lo)`, or 1 when the range is
/// empty (a constant column) or the quotient is not finite — as MATLAB does,
/// so a constant column maps to the lower end of the target interval.
pub(crate) fn minmax_gain(lo: f64, hi: f64, span: f64) -> f64 {
    let g = span / (hi - lo);
    if hi > lo && g.is_finite() {
        g
    } else {
        1.0
    }
}

/// The target interval of a min–max scaling as `(span, shift)`: column
/// values become `(v − min)·span/(max − min) − shift`.
pub(crate) type MinMaxTarget = (f64, f64);
/// A feature group's random map `A1` is scaled onto [−1, 1].
pub(crate) const A1_TARGET: MinMaxTarget = (2.0, 1.0);
/// A feature group's outputs `Z` are scaled onto [0, 1].
pub(crate) const Z_TARGET: MinMaxTarget = (1.0, 0.0);

/// Column extremes over the training rows seen so far: the statistics of
/// MATLAB `mapminmax` (of a feature group's `A1` and of its `X̃β`). They
/// combine over chunks of rows and over processes by min and max, which are
/// exact and independent of the order: of the same values, a fit from chunks
/// records the extremes that a fit on all the rows does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Extremes {
    /// Column minima.
    pub(crate) lo: Vec<f64>,
    /// Column maxima.
    pub(crate) hi: Vec<f64>,
}

impl Extremes {
    /// No rows yet, for `n` columns.
    pub(crate) fn none(n: usize) -> Self {
        Self {
            lo: vec![f64::INFINITY; n],
            hi: vec![f64::NEG_INFINITY; n],
        }
    }

    /// Fold in the extremes of other rows.
    pub(crate) fn merge(&mut self, other: &Extremes) {
        for (a, &b) in self.lo.iter_mut().zip(&other.lo) {
            *a = a.min(b);
        }
        for (a, &b) in self.hi.iter_mut().zip(&other.hi) {
            *a = a.max(b);
        }
    }

    /// `out ← (out − min)·g − shift`, column by column, with the gains
    /// [`minmax_gain`] of `target`'s span.
    pub(crate) fn apply(&self, out: ArrayViewMut2<'_, f64>, (span, shift): MinMaxTarget) {
        map_columns(out, |j, mut c| {
            let (lo, g) = (self.lo[j], minmax_gain(self.lo[j], self.hi[j], span));
            c.mapv_inplace(|v| (v - lo) * g - shift);
        });
    }
}

/// `f(j, column j)` for every column of `a`, in parallel (rayon, within the
/// thread budget) once `a` holds at least [`PARALLEL_THRESHOLD`] entries;
/// the results in column order.
pub(crate) fn map_columns<T, F>(mut a: ArrayViewMut2<'_, f64>, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize, ArrayViewMut1<'_, f64>) -> T + Sync + Send,
{
    let wanted = a.len() >= PARALLEL_THRESHOLD;
    crate::parallel::within_budget(wanted, |parallel| {
        if parallel {
            a.axis_iter_mut(Axis(1))
                .into_par_iter()
                .enumerate()
                .map(|(j, c)| f(j, c))
                .collect()
        } else {
            a.axis_iter_mut(Axis(1)).enumerate().map(|(j, c)| f(j, c)).collect()
        }
    })
}

/// `out ← Ũ W` for `Ũ = [U, 0.1·1]` (K×(m+1)) and `W` ((m+1)×q), without
/// forming `Ũ`: one BLAS product `U W_{1..m}` into `out`, and the bias row
/// `0.1·w_{m+1}` returned for the caller to add column by column.
///
/// `U` may be sparse (the BLS's samples as a [`Csr`](linalg_core::sparse::Csr)):
/// its product is then [`Csr::matmul_into`](linalg_core::sparse::Csr::matmul_into)'s.
/// The callers give `W` with `m + 1` rows and `out` of `U`'s rows and `W`'s
/// columns.
pub(crate) fn product_with_bias_row(
    u: Samples<'_>,
    w: ArrayView2<'_, f64>,
    out: &mut ArrayViewMut2<'_, f64>,
) -> Array1<f64> {
    let m = u.ncols();
    let top = w.slice_axis(Axis(0), Slice::from(..m));
    match u {
        Samples::Dense(u) => general_mat_mul(1.0, &u, &top, 0.0, out),
        Samples::Sparse(u) => u
            .matmul_into(top, out.view_mut())
            .expect("the callers pass W with a row per input and an output of the right shape"),
    }
    w.row(m).mapv(|v| BIAS_INPUT * v)
}

/// `out ← Ũ W` ([`product_with_bias_row`], the bias added column by column)
/// and, per column, the fold `stat` of its entries from `init`: the one pass
/// each random map of the BLS makes over its products, the same in training
/// on all rows and in every pass of a fit from chunks.
pub(crate) fn biased_product<T, F>(
    u: Samples<'_>,
    w: ArrayView2<'_, f64>,
    mut out: ArrayViewMut2<'_, f64>,
    init: T,
    stat: F,
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, f64) -> T + Sync + Send,
{
    let bias = product_with_bias_row(u, w, &mut out);
    map_columns(out, |j, mut c| {
        let b = bias[j];
        let mut s = init;
        for v in c.iter_mut() {
            *v += b;
            s = stat(s, *v);
        }
        s
    })
}

/// `out ← Ũ W` and its column extremes (a feature group's `A1` and `X̃β`).
pub(crate) fn biased_extremes(u: Samples<'_>, w: ArrayView2<'_, f64>, out: ArrayViewMut2<'_, f64>) -> Extremes {
    let r = biased_product(u, w, out, (f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    Extremes {
        lo: r.iter().map(|r| r.0).collect(),
        hi: r.iter().map(|r| r.1).collect(),
    }
}
