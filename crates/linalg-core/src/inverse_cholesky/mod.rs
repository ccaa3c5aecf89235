//! The inverse Cholesky factor `F` (upper triangular, `F Fᵀ = R⁻¹`) of an
//! SPD matrix `R`, and its updates when `R` grows by a bordering block
//! (algorithms.md §1; Zhu et al., ridge solutions for the incremental BLS,
//! Sec. III and Appendix D; the column version is Zhu et al. 2011).
//!
//! Appending `q` rows/columns to `R`,
//!
//! ```text
//! R' = [ R    R12 ]      P   = Fᵀ R12                 (n×q)
//!      [ R12ᵀ R22 ]      S   = R22 − PᵀP              (q×q Schur complement)
//!                        F22 = inverse Cholesky factor of S
//!                        F12 = −F P F22
//! F' = [ F  F12 ]
//!      [ 0  F22 ]
//! ```
//!
//! Cost of a block append: `2n²q` (two triangular products) `+ nq² (PᵀP) +
//! 2q³/3 + nq²` flops.

mod factor;
pub(crate) mod update;

use ndarray::{Array2, ArrayView2};

pub(crate) use factor::inverse_cholesky_in_place;
use update::{border, upper_t_times, upper_times};

use crate::error::{Error, Result};
use crate::kernels::{self, Diag, Flops, Op, Owned};
use crate::store::GrowMat;
use crate::validate;

fn not_pd(pivot: usize, first_node: usize, end_node: usize) -> Error {
    Error::FactorNotPositiveDefinite {
        factorization: "inverse Cholesky factorization",
        matrix: "R (or its Schur complement)",
        pivot,
        first_node,
        end_node,
    }
}

/// Upper-triangular inverse Cholesky factor `F` of an SPD matrix `R`:
/// `F Fᵀ = R⁻¹`, grown by [`append_column`](Self::append_column) and
/// [`append_block`](Self::append_block) as `R` gains rows and columns.
///
/// ```
/// use linalg_core::InverseCholesky;
/// use ndarray::array;
///
/// let r = array![[4.0, 2.0], [2.0, 3.0]];
/// let mut f = InverseCholesky::from_spd(r.view())?;
/// // Border R with a third row/column: R' = [[4,2,1],[2,3,0],[1,0,2]].
/// f.append_column(&[1.0, 0.0], 2.0)?;
/// let r3 = array![[4.0, 2.0, 1.0], [2.0, 3.0, 0.0], [1.0, 0.0, 2.0]];
/// let ffr = f.factor().dot(&f.factor().t()).dot(&r3);
/// for i in 0..3 {
///     for j in 0..3 {
///         let id = if i == j { 1.0 } else { 0.0 };
///         assert!((ffr[[i, j]] - id).abs() < 1e-14);
///     }
/// }
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct InverseCholesky {
    f: GrowMat,
    last_flops: u64,
}

impl InverseCholesky {
    /// Factor an SPD matrix from scratch: `R = UᵀU` (LAPACK `dpotrf`), then
    /// `F = U⁻¹` (`dtrtri`). `n³/3 + n³/3` flops.
    pub fn from_spd(r: ArrayView2<'_, f64>) -> Result<Self> {
        validate::square_finite("R", &r)?;
        let mut fl = Flops::default();
        let mut s = Owned::from_view(r);
        inverse_cholesky_in_place(&mut fl, &mut s).map_err(|k| not_pd(k, 0, r.nrows()))?;
        let n = s.rows();
        Ok(Self {
            f: GrowMat::from_ref(s.as_ref(), n),
            last_flops: fl.0,
        })
    }

    /// Size `n` of `R` (and `F`).
    pub fn n(&self) -> usize {
        self.f.rows()
    }

    /// The factor `F` (n×n, upper triangular).
    pub fn factor(&self) -> ArrayView2<'_, f64> {
        self.f.view()
    }

    /// Flops of the last factorization or append.
    pub fn last_flops(&self) -> u64 {
        self.last_flops
    }

    /// Border `R` with one column: `r12` its off-diagonal part (length n) and
    /// `r22` the new diagonal entry. `F22 = 1/√s`, `F12 = −F p/√s` with
    /// `p = Fᵀ r12`, `s = r22 − pᵀp`. `2n²` flops.
    pub fn append_column(&mut self, r12: &[f64], r22: f64) -> Result<()> {
        let n = self.n();
        validate::bordering_column(n, r12, r22)?;
        let r12 = ndarray::ArrayView2::from_shape((n, 1), r12).expect("n×1 view of a length-n slice");
        let r22 = ndarray::arr2(&[[r22]]);
        self.append_block(r12, r22.view())
    }

    /// Border `R` with `q` columns: `r12` (n×q) and the SPD block `r22` (q×q).
    pub fn append_block(&mut self, r12: ArrayView2<'_, f64>, r22: ArrayView2<'_, f64>) -> Result<()> {
        let n = self.n();
        let q = validate::bordering_block(n, &r12, &r22)?;
        let mut fl = Flops::default();
        let mut p = Owned::from_view(r12);
        // P = Fᵀ R12.
        upper_t_times(&mut fl, Diag::NonUnit, self.f.as_ref(), p.as_mut());
        // S = R22 − PᵀP.
        let mut s = Owned::from_view(r22);
        kernels::syrk(&mut fl, -1.0, p.as_ref(), Op::T, 1.0, s.as_mut());
        inverse_cholesky_in_place(&mut fl, &mut s).map_err(|k| not_pd(k, n, n + q))?;
        // D = F P;  F12 = −D F22.
        upper_times(&mut fl, Diag::NonUnit, self.f.as_ref(), p.as_mut());
        border(&mut fl, &mut self.f, Diag::NonUnit, &mut p, &s);
        self.last_flops = fl.0;
        Ok(())
    }

    /// `F` as an owned array.
    pub fn to_array(&self) -> Array2<f64> {
        self.f.view().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Hand case: R = [[4, 2], [2, 2]] = UᵀU with U = [[2, 1], [0, 1]],
    /// so F = U⁻¹ = [[1/2, −1/2], [0, 1]].
    #[test]
    fn two_by_two_by_hand() {
        let f = InverseCholesky::from_spd(array![[4.0, 2.0], [2.0, 2.0]].view()).unwrap();
        let want = array![[0.5, -0.5], [0.0, 1.0]];
        for (a, b) in f.factor().iter().zip(want.iter()) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
        // Column by column: start from [4], border with (2; 2).
        let mut g = InverseCholesky::from_spd(array![[4.0]].view()).unwrap();
        assert!((g.factor()[[0, 0]] - 0.5).abs() < 1e-15);
        g.append_column(&[2.0], 2.0).unwrap();
        for (a, b) in g.factor().iter().zip(want.iter()) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
    }

    #[test]
    fn indefinite_border_is_a_typed_error_and_leaves_the_factor_unchanged() {
        let mut f = InverseCholesky::from_spd(array![[1.0]].view()).unwrap();
        // [[1, 2], [2, 1]] is indefinite: Schur complement 1 − 4 < 0.
        let err = f.append_column(&[2.0], 1.0).unwrap_err();
        assert!(
            matches!(
                err,
                Error::FactorNotPositiveDefinite {
                    pivot: 1,
                    first_node: 1,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(f.n(), 1);
        assert!(matches!(f.append_column(&[1.0, 2.0], 1.0), Err(Error::Shape { .. })));
        assert!(matches!(
            f.append_column(&[f64::NAN], 1.0),
            Err(Error::NonFinite { .. })
        ));
        assert!(matches!(
            InverseCholesky::from_spd(array![[1.0, 0.0]].view()),
            Err(Error::Shape { .. })
        ));
    }
}
