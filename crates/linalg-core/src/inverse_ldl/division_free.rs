//! Division-free inverse LDLᵀ factorization (the BLS paper's Appendix F,
//! whose equations were lost in extraction; this is our construction of the
//! same idea, derived and checked here).
//!
//! The inverse LDLᵀ update needs one division per column, `τ = 1/δ`. Keep the
//! factors in the *alternative* form
//!
//! ```text
//! R⁻¹ = Σᵢ uᵢ uᵢᵀ / βᵢ  =  U diag(β)⁻¹ Uᵀ,      U upper triangular (not unit)
//! ```
//!
//! so that `L = U diag(U)⁻¹` and `D = diag(U)² / β` — but never form them.
//! Bordering `R` with `(p, c)` needs `t = −R⁻¹p = −Σ (vᵢ/βᵢ) uᵢ` (`v = Uᵀp`)
//! and `δ = c − Σ vᵢ²/βᵢ`. Multiply both by `B = Πⱼ βⱼ` and use
//! `γᵢ = B/βᵢ = Πⱼ≠ᵢ βⱼ` (prefix × suffix products — multiplications only):
//!
//! ```text
//! ũ  = −Σ γᵢ vᵢ uᵢ = B·t,      Bδ = B·c − Σ γᵢ vᵢ²,
//! u_new = [ũ; B],              β_new = B·(Bδ)
//! ```
//!
//! since `[t; 1][t; 1]ᵀ/δ = u_new u_newᵀ / (B²δ)`. To keep every number
//! bounded, all products carry a separate binary exponent (`frexp`-style
//! mantissa in `[1, 2)`), the common factor `2^E` of `B` is dropped from `ũ`,
//! `B` and `Bδ` alike (exact), and the new column is rescaled by `2^{−k}`
//! with `β_new` by `2^{−2k}` so that `β_new ∈ [1, 4)`. Power-of-two scalings
//! are exact, so the only rounding is that of the multiply-adds: the same
//! `O(n u)` relative error per column as the division form.
//!
//! Cost per appended column: `2n²`-ish flops (`v = Uᵀp`, `ũ = U(γ∘v)`) plus
//! `O(n)` multiplications for the products; no division, no square root.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

use crate::error::{Error, Result};
use crate::kernels::{self, Diag, Flops, Op, Tri};
use crate::store::GrowMat;
use crate::validate;

/// Split a positive normal `x` into `(m, e)` with `x = m·2^e`, `m ∈ [1, 2)`.
/// Bit manipulation only (exact).
fn split(x: f64) -> (f64, i64) {
    debug_assert!(x > 0.0 && x.is_normal());
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    (m, e)
}

/// `2^k` for `|k| ≤ 1022` (exact, built from the exponent bits).
fn pow2(k: i64) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x·2^k`, exact while the result is a normal number.
fn ldexp(mut x: f64, mut k: i64) -> f64 {
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    x * pow2(k)
}

/// A product kept as mantissa × 2^exponent so that it never overflows.
#[derive(Clone, Copy, Debug)]
struct Scaled {
    m: f64,
    e: i64,
}

impl Scaled {
    const ONE: Scaled = Scaled { m: 1.0, e: 0 };
    fn times(self, x: f64) -> Scaled {
        let (m, e) = split(self.m * x);
        Scaled { m, e: self.e + e }
    }
}

/// Division-free inverse LDLᵀ factors: `R⁻¹ = U diag(β)⁻¹ Uᵀ` with upper
/// triangular `U` and `β ∈ [1, 4)`, built and bordered one column at a time
/// with multiplications, additions and exact power-of-two rescaling only.
///
/// ```
/// use linalg_core::DivisionFreeLdl;
/// use ndarray::array;
///
/// let r = array![[4.0, 2.0, 1.0], [2.0, 3.0, 0.5], [1.0, 0.5, 2.0]];
/// let f = DivisionFreeLdl::from_spd(r.view())?;
/// let q = f.inverse();
/// let id = q.dot(&r);
/// for i in 0..3 {
///     for j in 0..3 {
///         assert!((id[[i, j]] - if i == j { 1.0 } else { 0.0 }).abs() < 1e-14);
///     }
/// }
/// # Ok::<(), linalg_core::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DivisionFreeLdl {
    u: GrowMat,
    beta: Vec<f64>,
    last_flops: u64,
}

impl DivisionFreeLdl {
    /// The empty factorization (of a 0×0 matrix).
    pub fn new() -> Self {
        Self {
            u: GrowMat::square(0, 16),
            beta: Vec::new(),
            last_flops: 0,
        }
    }

    /// Factor an SPD matrix column by column (`≈ 2n³/3` flops).
    pub fn from_spd(r: ArrayView2<'_, f64>) -> Result<Self> {
        validate::square_finite("R", &r)?;
        let n = r.nrows();
        let mut f = Self {
            u: GrowMat::square(0, n),
            beta: Vec::with_capacity(n),
            last_flops: 0,
        };
        let mut total = 0;
        for j in 0..n {
            let col: Vec<f64> = r.column(j).iter().take(j).copied().collect();
            f.append_column(&col, r[[j, j]])?;
            total += f.last_flops;
        }
        f.last_flops = total;
        Ok(f)
    }

    /// Size `n`.
    pub fn n(&self) -> usize {
        self.beta.len()
    }

    /// The upper-triangular `U`.
    pub fn u(&self) -> ArrayView2<'_, f64> {
        self.u.view()
    }

    /// The denominators `β` (each in `[1, 4)`).
    pub fn beta(&self) -> ArrayView1<'_, f64> {
        ArrayView1::from(&self.beta[..])
    }

    /// Flops of the last append (or of the whole `from_spd`).
    pub fn last_flops(&self) -> u64 {
        self.last_flops
    }

    /// `R⁻¹ = U diag(β)⁻¹ Uᵀ`, formed explicitly (uses divisions; for checks).
    pub fn inverse(&self) -> Array2<f64> {
        let u = self.u.view();
        let ub = &u / &Array1::from(self.beta.clone());
        ub.dot(&u.t())
    }

    /// The equivalent unit-triangular factors `(L, D)` of [`crate::InverseLdl`]
    /// (`L = U diag(U)⁻¹`, `D = diag(U)²/β`; uses divisions; for checks).
    pub fn to_ldl(&self) -> (Array2<f64>, Array1<f64>) {
        let u = self.u.view();
        let diag: Array1<f64> = u.diag().to_owned();
        let l = &u / &diag;
        let d = &diag * &diag / &Array1::from(self.beta.clone());
        (l, d)
    }

    /// Border `R` with one column: `r12` (length n) above the new diagonal
    /// entry `r22`. No division, no square root.
    pub fn append_column(&mut self, r12: &[f64], r22: f64) -> Result<()> {
        let n = self.n();
        validate::bordering_column(n, r12, r22)?;
        let mut fl = Flops::default();
        // v = Uᵀ p.
        let mut v = r12.to_vec();
        kernels::trmv(&mut fl, Tri::Upper, Op::T, Diag::NonUnit, self.u.as_ref(), &mut v);
        // Prefix products P_i = Π_{j<i} β_j and suffix S_i = Π_{j≥i} β_j.
        let mut prefix = Vec::with_capacity(n + 1);
        prefix.push(Scaled::ONE);
        for &b in &self.beta {
            let last = *prefix.last().expect("prefix starts non-empty");
            prefix.push(last.times(b));
        }
        let mut suffix = vec![Scaled::ONE; n + 1];
        for i in (0..n).rev() {
            suffix[i] = suffix[i + 1].times(self.beta[i]);
        }
        fl.add(2 * n);
        let big_b = prefix[n]; // B = m·2^E
                               // w_i = Γ_i v_i with Γ_i = γ_i 2^{−E} = P_i S_{i+1} 2^{−E}  (∈ (1/4, 2·4)).
        let mut w = v.clone();
        for i in 0..n {
            let g = ldexp(prefix[i].m * suffix[i + 1].m, prefix[i].e + suffix[i + 1].e - big_b.e);
            w[i] *= g;
        }
        fl.add(2 * n);
        // Bδ (scaled by 2^{−E}) = m·c − Σ Γ_i v_i².
        let b_delta = big_b.m * r22 - kernels::dot(&mut fl, &w, &v);
        if !(b_delta > 0.0 && b_delta.is_finite()) {
            return Err(Error::FactorNotPositiveDefinite {
                factorization: "division-free inverse LDLᵀ",
                matrix: "R (its Schur complement)",
                pivot: 1,
                first_node: n,
                end_node: n + 1,
            });
        }
        // ũ = −U w.
        kernels::trmv(&mut fl, Tri::Upper, Op::N, Diag::NonUnit, self.u.as_ref(), &mut w);
        // β_new = m·(Bδ) = μ·2^k; rescale the column by 2^{−⌊k/2⌋}, β by 2^{−2⌊k/2⌋}.
        let (mu, k) = split(big_b.m * b_delta);
        let half = k.div_euclid(2);
        let beta_new = if k.rem_euclid(2) == 0 { mu } else { 2.0 * mu };
        let s = -ldexp(1.0, -half);
        self.u.grow_square(n + 1);
        let mut um = self.u.as_mut();
        let col = um.col_mut(n);
        for (dst, wi) in col[..n].iter_mut().zip(&w) {
            *dst = wi * s;
        }
        col[n] = ldexp(big_b.m, -half);
        self.beta.push(beta_new);
        fl.add(n + 4);
        self.last_flops = fl.0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InverseLdl;
    use ndarray::array;

    #[test]
    fn split_and_ldexp_are_exact() {
        for &x in &[1.0, 1.5, 3.0, 1e-300, 7.25e300, 0.1] {
            let (m, e) = split(x);
            assert!((1.0..2.0).contains(&m));
            assert_eq!(ldexp(m, e), x);
        }
        assert_eq!(ldexp(1.0, -1074 + 52), 2f64.powi(-1022));
    }

    /// Hand case R = [[4, 2], [2, 2]]: first column β = 4 → (μ, k) = (1, 2),
    /// u₁ = 2^{−1}·1 = 1/2, β₁ = 1 (u₁²/β₁ = 1/4 = R₁₁⁻¹ ✓). Second: v = 1,
    /// B = 1, Γ = 1, Bδ = 2 − 1 = 1, ũ = −1/2, β = 1: u₂ = (−1/2, 1).
    /// Q = u₁u₁ᵀ + u₂u₂ᵀ = [[1/2, −1/2], [−1/2, 1]] = R⁻¹ ✓.
    #[test]
    fn two_by_two_by_hand() {
        let f = DivisionFreeLdl::from_spd(array![[4.0, 2.0], [2.0, 2.0]].view()).unwrap();
        assert_eq!(f.u(), array![[0.5, -0.5], [0.0, 1.0]]);
        assert_eq!(f.beta(), array![1.0, 1.0]);
    }

    #[test]
    fn agrees_with_the_division_form_and_keeps_beta_bounded() {
        // A moderately conditioned 40×40 SPD matrix, scaled by 2^600 and by
        // 2^-600 (exact), so products of the β's and their exponents must be
        // handled without overflow or underflow.
        let n = 40;
        let a = Array2::from_shape_fn((n + 5, n), |(i, j)| ((i * 7 + j * 13) % 17) as f64 - 8.0);
        let base = a.t().dot(&a) + Array2::<f64>::eye(n) * 10.0;
        for scale in [pow2(600), 1.0, pow2(-600)] {
            let r = &base * scale;
            let f = DivisionFreeLdl::from_spd(r.view()).unwrap();
            assert!(f.beta().iter().all(|b| (1.0..4.0).contains(b)));
            assert!(f.u().iter().all(|v| v.is_finite()));
            let g = InverseLdl::from_spd(r.view()).unwrap();
            let (l, d) = f.to_ldl();
            // R⁻¹·scale is O(1): compare there (power-of-two scaling is exact).
            let ql = g.inverse() * scale;
            let qf = f.inverse() * scale;
            let fro = |m: &Array2<f64>| m.mapv(|x| x * x).sum().sqrt();
            // Both are backward-stable factorizations of the same R: each
            // inverse is within c·n²·u·κ(R)·√n (relative) of R⁻¹ (n steps of
            // O(n u) backward error, amplified by κ; √n for the Frobenius
            // norm). κ₂(R) ≤ ‖R‖_F·‖R⁻¹‖_F gives a computable upper bound.
            let kappa_bound = fro(&base) * fro(&ql);
            let tol = 2.0 * 2.0 * (n * n) as f64 * f64::EPSILON / 2.0 * kappa_bound * (n as f64).sqrt();
            let rel = fro(&(&ql - &qf)) / fro(&ql);
            assert!(tol < 1e-6, "the bound must be meaningful: {tol}");
            assert!(rel < tol, "relative difference {rel}, bound {tol}");
            assert!(l.diag().iter().all(|&x| (x - 1.0).abs() < 1e-15));
            assert!(d.iter().all(|&x| x > 0.0));
        }
    }
}
