//! The step rules of incremental gradient methods: the diminishing step and
//! the normalized step of BLInG (Palagi & Seccia, Algorithm 5) and of its
//! non-decomposed baseline IG.
//!
//! BLInG updates each layer's block on each minibatch by
//! `w̃ ← w̃ + αᵏ / max{β, min{γ, ‖d‖}} · d` (step 9) and, after every
//! minibatch (step 13 is inside Algorithm 5's loop over the minibatches,
//! beside `k = k + 1`), `αᵏ⁺¹ = αᵏ (1 − ε αᵏ)`. The paper's text gives "γ and β …
//! fixed to 10⁻³ and 10⁶ respectively", which would make the clamp empty
//! (`max{β, min{γ, ·}}` needs β ≤ γ); the reading here is the one that
//! makes it a clamp, β = 10⁻³ below and γ = 10⁶ above
//! ([`NormalizedStep::PAPER`]). The loops over minibatches and layers belong
//! to the trainers (`models`); these are the rules they share.

use std::fmt;

/// A step-rule parameter out of its range.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRuleError {
    /// The parameter's name in the paper's notation.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// What it must satisfy.
    pub requirement: &'static str,
}

impl fmt::Display for StepRuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "step rule parameter {} = {} must satisfy {}",
            self.name, self.value, self.requirement
        )
    }
}

impl std::error::Error for StepRuleError {}

/// `Ok` if `ok`, else the error naming `name = value` and `requirement`.
pub(crate) fn require(
    ok: bool,
    name: &'static str,
    value: f64,
    requirement: &'static str,
) -> Result<(), StepRuleError> {
    if ok {
        Ok(())
    } else {
        Err(StepRuleError {
            name,
            value,
            requirement,
        })
    }
}

/// The diminishing step `αᵏ⁺¹ = αᵏ (1 − ε αᵏ)`: positive, decreasing, and
/// with `Σ αᵏ = ∞`, `Σ (αᵏ)² < ∞` (it behaves as `1/(ε k)`), the
/// conditions of the convergence theory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiminishingStep {
    alpha: f64,
    epsilon: f64,
}

impl DiminishingStep {
    /// Start at `α⁰ > 0` with `ε ∈ (0, 1)` and `ε α⁰ < 1` (otherwise the
    /// second step would not be positive). The paper: `ε = 5·10⁻³`, `α⁰ =
    /// 0.5` (IG) or `0.5 / max{1, L − 2}` (BLInG, `L` layers).
    ///
    /// # Errors
    /// [`StepRuleError`] naming the parameter out of range.
    pub fn new(alpha0: f64, epsilon: f64) -> Result<Self, StepRuleError> {
        require(alpha0 > 0.0 && alpha0.is_finite(), "α⁰", alpha0, "0 < α⁰ < ∞")?;
        require(epsilon > 0.0 && epsilon < 1.0, "ε", epsilon, "0 < ε < 1")?;
        require(
            epsilon * alpha0 < 1.0,
            "ε·α⁰",
            epsilon * alpha0,
            "ε·α⁰ < 1 (the steps must stay positive)",
        )?;
        Ok(Self { alpha: alpha0, epsilon })
    }

    /// The current step `αᵏ`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Move to `αᵏ⁺¹ = αᵏ (1 − ε αᵏ)` and return it.
    pub fn advance(&mut self) -> f64 {
        self.alpha *= 1.0 - self.epsilon * self.alpha;
        self.alpha
    }
}

/// The normalized step factor `α / max{β, min{γ, ‖d‖}}`: along `d` the
/// step has length `α` whenever `β ≤ ‖d‖ ≤ γ`, is shorter for huge
/// directions and longer (at most `α‖d‖/β`) for tiny ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormalizedStep {
    beta: f64,
    gamma: f64,
}

impl NormalizedStep {
    /// The paper's clamps: β = 10⁻³, γ = 10⁶ (see the module doc).
    pub const PAPER: Self = Self { beta: 1e-3, gamma: 1e6 };

    /// Clamps `0 < β ≤ γ < ∞`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming the parameter out of range.
    pub fn new(beta: f64, gamma: f64) -> Result<Self, StepRuleError> {
        require(beta > 0.0 && beta.is_finite(), "β", beta, "0 < β < ∞")?;
        require(gamma >= beta && gamma.is_finite(), "γ", gamma, "β ≤ γ < ∞")?;
        Ok(Self { beta, gamma })
    }

    /// The factor multiplying `d` for step `alpha` and `‖d‖ = norm_d`.
    pub fn factor(&self, alpha: f64, norm_d: f64) -> f64 {
        alpha / self.beta.max(self.gamma.min(norm_d))
    }

    /// `w ← w + factor·d`, with `‖d‖` computed here; returns the factor.
    pub fn apply(&self, alpha: f64, d: &[f64], w: &mut [f64]) -> f64 {
        assert_eq!(d.len(), w.len(), "NormalizedStep::apply: lengths");
        let norm = d.iter().map(|v| v * v).sum::<f64>().sqrt();
        let factor = self.factor(alpha, norm);
        for (wi, di) in w.iter_mut().zip(d) {
            *wi += factor * di;
        }
        factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diminishing_step_follows_its_recursion_and_behaves_as_one_over_eps_k() {
        let mut s = DiminishingStep::new(0.5, 5e-3).unwrap();
        let mut want = 0.5f64;
        let mut prev = s.alpha();
        for k in 1..=200_000u32 {
            want *= 1.0 - 5e-3 * want;
            let a = s.advance();
            assert_eq!(a, want);
            assert!(a > 0.0 && a < prev, "step {k}: {a} not in (0, {prev})");
            prev = a;
        }
        // αᵏ ≈ 1 / (ε k + 1/α⁰) for large k.
        let approx = 1.0 / (5e-3 * 200_000.0 + 2.0);
        assert!((prev / approx - 1.0).abs() < 0.01, "{prev} vs {approx}");
    }

    #[test]
    fn normalized_step_has_length_alpha_between_the_clamps() {
        let n = NormalizedStep::PAPER;
        for norm in [1e-3, 0.1, 1.0, 7.5, 1e6] {
            let d = [norm * 0.6, norm * 0.8];
            let mut w = [1.0, -1.0];
            let f = n.apply(0.25, &d, &mut w);
            let len = ((w[0] - 1.0).powi(2) + (w[1] + 1.0).powi(2)).sqrt();
            assert!((len - 0.25).abs() <= 1e-12 * 0.25, "‖d‖ = {norm}: step length {len}");
            assert!((f - 0.25 / norm).abs() <= 1e-15 * f);
        }
        // Below β the factor is α/β; above γ it is α/γ.
        assert_eq!(n.factor(0.5, 1e-9), 0.5 / 1e-3);
        assert_eq!(n.factor(0.5, 1e9), 0.5 / 1e6);
    }

    #[test]
    fn parameters_out_of_range_are_errors() {
        assert_eq!(DiminishingStep::new(0.0, 0.1).unwrap_err().name, "α⁰");
        assert_eq!(DiminishingStep::new(0.5, 1.0).unwrap_err().name, "ε");
        assert_eq!(DiminishingStep::new(300.0, 5e-3).unwrap_err().name, "ε·α⁰");
        assert_eq!(NormalizedStep::new(0.0, 1.0).unwrap_err().name, "β");
        let e = NormalizedStep::new(1e6, 1e-3).unwrap_err();
        assert_eq!(e.name, "γ");
        assert!(e.to_string().contains("β ≤ γ"));
    }
}
