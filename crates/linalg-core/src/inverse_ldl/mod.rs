//! Inverse LDLᵀ factors of an SPD matrix `R`: unit upper-triangular `L` and
//! diagonal `D` with `L D Lᵀ = R⁻¹` (Zhu & Wei, eqs. (31)–(36); algorithms.md
//! §3). It is the inverse Cholesky factor without square roots:
//! `F = L D^{1/2}`.
//!
//! Bordering `R` with one column (`p = r12`, `c = r22`):
//!
//! ```text
//! t̃ = −L D Lᵀ p,   τ = 1/(c + pᵀt̃),   L' = [L t̃; 0 1],   D' = diag(D, τ)
//! ```
//!
//! and with a block of `q` columns `L12 = −(L D Lᵀ R12) L22`, where `L22, D22`
//! are the inverse LDLᵀ factors of the Schur complement
//! `S = R22 − R12ᵀ L D Lᵀ R12`.
//!
//! [`DivisionFreeLdl`] is the variant of the BLS paper's Appendix F for
//! hardware without fast division.

mod division_free;

pub use division_free::DivisionFreeLdl;

use ndarray::{Array1, ArrayView1, ArrayView2};

use crate::error::{Error, Result};
use crate::inverse_cholesky::inverse_cholesky_in_place;
use crate::inverse_cholesky::update::{border, upper_t_times, upper_times};
use crate::kernels::{self, Diag, Flops, Op, Owned, Tri};
use crate::store::GrowMat;
use crate::validate;

fn not_pd(pivot: usize, first_node: usize, end_node: usize) -> Error {
    Error::FactorNotPositiveDefinite {
        factorization: "inverse LDLᵀ factorization",
        matrix: "R (or its Schur complement)",
        pivot,
        first_node,
        end_node,
    }
}

/// Overwrite the SPD `s` (upper triangle referenced) by its inverse LDLᵀ
/// factor `L` (unit upper) and return `D`: `L D Lᵀ = S⁻¹`, through the inverse
/// Cholesky factor. `Err(k)` as [`inverse_cholesky_in_place`].
pub(crate) fn inverse_ldl_in_place(fl: &mut Flops, s: &mut Owned) -> std::result::Result<Vec<f64>, usize> {
    inverse_cholesky_in_place(fl, s)?;
    Ok(ldl_from_inverse_cholesky(fl, s))
}

/// Convert an inverse Cholesky factor `F` (upper, in place) into inverse
/// LDLᵀ factors: `D = diag(F)²`, `L = F diag(F)⁻¹`. Returns `D`.
pub(crate) fn ldl_from_inverse_cholesky(fl: &mut Flops, f: &mut Owned) -> Vec<f64> {
    let n = f.rows();
    let mut d = Vec::with_capacity(n);
    for j in 0..n {
        let fjj = f.at(j, j);
        d.push(fjj * fjj);
        let inv = 1.0 / fjj;
        for i in 0..j {
            f.set(i, j, f.at(i, j) * inv);
        }
        f.set(j, j, 1.0);
    }
    fl.add(n * n / 2 + n);
    d
}

/// Inverse LDLᵀ factors of an SPD matrix (`L D Lᵀ = R⁻¹`), grown as `R` is
/// bordered by new rows and columns.
///
/// ```
/// use linalg_core::InverseLdl;
/// use ndarray::array;
///
/// // R = [[2, 1], [1, 2]]: built column by column without square roots.
/// let mut f = InverseLdl::from_spd(array![[2.0]].view())?;
/// f.append_column(&[1.0], 2.0)?;
/// // R⁻¹ = [[2, −1], [−1, 2]] / 3
/// let q = f.inverse();
/// assert!((q[[0, 0]] - 2.0 / 3.0).abs() < 1e-15);
/// assert!((q[[0, 1]] + 1.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct InverseLdl {
    l: GrowMat,
    d: Vec<f64>,
    last_flops: u64,
}

impl InverseLdl {
    /// Factor an SPD matrix from scratch (through `dpotrf`/`dtrtri` and the
    /// identity `F = L D^{1/2}`).
    pub fn from_spd(r: ArrayView2<'_, f64>) -> Result<Self> {
        validate::square_finite("R", &r)?;
        let mut fl = Flops::default();
        let mut f = Owned::from_view(r);
        let d = inverse_ldl_in_place(&mut fl, &mut f).map_err(|k| not_pd(k, 0, r.nrows()))?;
        let n = f.rows();
        Ok(Self {
            l: GrowMat::from_ref(f.as_ref(), n),
            d,
            last_flops: fl.0,
        })
    }

    /// Size `n`.
    pub fn n(&self) -> usize {
        self.d.len()
    }

    /// The unit upper-triangular factor `L`.
    pub fn l(&self) -> ArrayView2<'_, f64> {
        self.l.view()
    }

    /// The diagonal of `D`.
    pub fn d(&self) -> ArrayView1<'_, f64> {
        ArrayView1::from(&self.d[..])
    }

    /// Flops of the last factorization or append.
    pub fn last_flops(&self) -> u64 {
        self.last_flops
    }

    /// `R⁻¹ = L D Lᵀ`, formed explicitly (for checks; `O(n³)`).
    pub fn inverse(&self) -> ndarray::Array2<f64> {
        let l = self.l.view();
        let ld = &l * &Array1::from(self.d.clone());
        ld.dot(&l.t())
    }

    /// Border `R` with one column (square-root free; one division for `τ`).
    /// `2n²` flops.
    pub fn append_column(&mut self, r12: &[f64], r22: f64) -> Result<()> {
        let n = self.n();
        validate::bordering_column(n, r12, r22)?;
        let mut fl = Flops::default();
        // t̃ = −L D Lᵀ p.
        let mut t = r12.to_vec();
        kernels::trmv(&mut fl, Tri::Upper, Op::T, Diag::Unit, self.l.as_ref(), &mut t);
        for (ti, di) in t.iter_mut().zip(&self.d) {
            *ti *= -di;
        }
        kernels::trmv(&mut fl, Tri::Upper, Op::N, Diag::Unit, self.l.as_ref(), &mut t);
        let delta = r22 + kernels::dot(&mut fl, r12, &t);
        if !(delta > 0.0 && delta.is_finite()) {
            return Err(not_pd(1, n, n + 1));
        }
        self.l.grow_square(n + 1);
        let mut lm = self.l.as_mut();
        lm.col_mut(n)[..n].copy_from_slice(&t);
        lm.set(n, n, 1.0);
        self.d.push(1.0 / delta);
        self.last_flops = fl.0 + 2 * n as u64;
        Ok(())
    }

    /// Border `R` with `q` columns `r12` (n×q) and the SPD block `r22` (q×q).
    pub fn append_block(&mut self, r12: ArrayView2<'_, f64>, r22: ArrayView2<'_, f64>) -> Result<()> {
        let n = self.n();
        let q = validate::bordering_block(n, &r12, &r22)?;
        let mut fl = Flops::default();
        let p = Owned::from_view(r12);
        // X = D Lᵀ P;  QP = L X;  S = R22 − Pᵀ QP.
        let mut qp = p.clone();
        upper_t_times(&mut fl, Diag::Unit, self.l.as_ref(), qp.as_mut());
        scale_rows(&mut fl, &mut qp, &self.d);
        upper_times(&mut fl, Diag::Unit, self.l.as_ref(), qp.as_mut());
        let mut s = Owned::from_view(r22);
        kernels::gemm(&mut fl, -1.0, p.as_ref(), Op::T, qp.as_ref(), Op::N, 1.0, s.as_mut());
        let d22 = inverse_ldl_in_place(&mut fl, &mut s).map_err(|k| not_pd(k, n, n + q))?;
        // L12 = −QP L22.
        border(&mut fl, &mut self.l, Diag::Unit, &mut qp, &s);
        self.d.extend(d22);
        self.last_flops = fl.0;
        Ok(())
    }
}

/// `X ← diag(d) X` (`nq` flops).
pub(crate) fn scale_rows(fl: &mut Flops, x: &mut Owned, d: &[f64]) {
    let (n, q) = (x.rows(), x.cols());
    debug_assert_eq!(n, d.len());
    for j in 0..q {
        let col = &mut x.data_mut()[j * n..(j + 1) * n];
        for (v, di) in col.iter_mut().zip(d) {
            *v *= di;
        }
    }
    fl.add(n * q);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Hand case: R = [[4, 2], [2, 2]]. R⁻¹ = [[1/2, −1/2], [−1/2, 1]]
    /// = L D Lᵀ with L = [[1, −1], [0, 1]], D = diag(1/4, 1/2)... check:
    /// L D Lᵀ = [[1/4 + 1/2, −1/2], [−1/2, 1/2]] — no: τ = 1/(2 − 2·2/4) = 1,
    /// t̃ = −(1/4)·2 = −1/2, so L = [[1, −1/2], [0, 1]], D = diag(1/4, 1) and
    /// L D Lᵀ = [[1/4 + 1/4, −1/2], [−1/2, 1]] = R⁻¹. ✓
    #[test]
    fn two_by_two_by_hand() {
        let mut f = InverseLdl::from_spd(array![[4.0]].view()).unwrap();
        f.append_column(&[2.0], 2.0).unwrap();
        let l = f.l();
        assert_eq!((l[[0, 0]], l[[1, 0]], l[[1, 1]]), (1.0, 0.0, 1.0));
        assert!((l[[0, 1]] + 0.5).abs() < 1e-15);
        assert!((f.d()[0] - 0.25).abs() < 1e-15 && (f.d()[1] - 1.0).abs() < 1e-15);
        let g = InverseLdl::from_spd(array![[4.0, 2.0], [2.0, 2.0]].view()).unwrap();
        for (a, b) in g.l().iter().zip(f.l().iter()) {
            assert!((a - b).abs() < 1e-15);
        }
        for (a, b) in g.d().iter().zip(f.d().iter()) {
            assert!((a - b).abs() < 1e-15);
        }
    }

    #[test]
    fn indefinite_border_is_a_typed_error() {
        let mut f = InverseLdl::from_spd(array![[1.0]].view()).unwrap();
        assert!(matches!(
            f.append_column(&[2.0], 1.0),
            Err(Error::FactorNotPositiveDefinite { .. })
        ));
        assert!(matches!(
            f.append_block(array![[2.0]].view(), array![[1.0]].view()),
            Err(Error::FactorNotPositiveDefinite { .. })
        ));
        assert_eq!(f.n(), 1);
    }
}
