//! Factor from scratch: the upper inverse Cholesky factor of an SPD matrix
//! (`dpotrf`, then `dtrtri`).

use crate::kernels::{self, Diag, Flops, Owned, Tri};

/// Overwrite the SPD `s` (upper triangle referenced) by its inverse Cholesky
/// factor: `s ← U⁻¹` where `S = UᵀU` (so `U⁻¹U⁻ᵀ = S⁻¹`), lower triangle
/// zeroed. `Err(k)` if the leading minor of order `k` is not positive definite.
pub(crate) fn inverse_cholesky_in_place(fl: &mut Flops, s: &mut Owned) -> std::result::Result<(), usize> {
    kernels::potrf(fl, Tri::Upper, s.as_mut())?;
    kernels::trtri(fl, Tri::Upper, Diag::NonUnit, s.as_mut())?;
    let n = s.rows();
    for j in 0..n {
        for i in j + 1..n {
            s.set(i, j, 0.0);
        }
    }
    Ok(())
}
