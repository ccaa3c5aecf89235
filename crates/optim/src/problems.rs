//! Classic unconstrained test problems from Moré, Garbow & Hillstrom,
//! *Testing unconstrained optimization software*, ACM TOMS 7(1), 1981
//! (numbered as there), each with its standard start and known minimum.
//!
//! Every one is a sum of squares `f(x) = Σᵢ rᵢ(x)²` with gradient
//! `2 J(x)ᵀ r(x)`; they test optimizers on curved valleys (Rosenbrock),
//! bad scaling (Powell, Brown), a singular Hessian at the solution (Powell
//! singular) and more. The benches use [`ExtendedRosenbrock`] for the
//! per-iteration overhead of L-BFGS at large `n`.

use crate::objective::Objective;

/// A sum-of-squares problem: residuals and their Jacobian.
pub trait LeastSquaresProblem {
    /// Number of variables `n`.
    fn variables(&self) -> usize;
    /// Number of residuals `m`.
    fn residuals(&self) -> usize;
    /// `r(x)` into `r` (length `m`).
    fn residual(&self, x: &[f64], r: &mut [f64]);
    /// `∂rᵢ/∂xⱼ` into `jac[i·n + j]` (row-major `m×n`, zeroed by the caller).
    fn jacobian(&self, x: &[f64], jac: &mut [f64]);
}

/// A test problem: a name, a start, and the known minimum value.
pub trait TestProblem: LeastSquaresProblem {
    /// The name used in tables ("Rosenbrock", …).
    fn name(&self) -> &'static str;
    /// The standard starting point.
    fn start(&self) -> Vec<f64>;
    /// The minimum value `f*` from the standard start (a local one where MGH
    /// note several).
    fn minimum(&self) -> f64;
    /// A minimizer, when it is known in closed form.
    fn minimizer(&self) -> Option<Vec<f64>>;
}

/// Any [`LeastSquaresProblem`] as an [`Objective`].
#[derive(Clone, Debug)]
pub struct SumOfSquares<P> {
    problem: P,
    r: Vec<f64>,
    jac: Vec<f64>,
}

impl<P: LeastSquaresProblem> SumOfSquares<P> {
    /// The objective `Σ rᵢ(x)²` of `problem`.
    pub fn new(problem: P) -> Self {
        let (m, n) = (problem.residuals(), problem.variables());
        Self {
            problem,
            r: vec![0.0; m],
            jac: vec![0.0; m * n],
        }
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }
}

impl<P: LeastSquaresProblem> Objective for SumOfSquares<P> {
    fn dim(&self) -> usize {
        self.problem.variables()
    }
    fn value(&mut self, x: &[f64]) -> f64 {
        self.problem.residual(x, &mut self.r);
        self.r.iter().map(|v| v * v).sum()
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        self.value_and_gradient(x, g);
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let n = self.problem.variables();
        self.problem.residual(x, &mut self.r);
        self.jac.fill(0.0);
        self.problem.jacobian(x, &mut self.jac);
        g.fill(0.0);
        for (row, ri) in self.jac.chunks_exact(n).zip(&self.r) {
            for (gj, jij) in g.iter_mut().zip(row) {
                *gj += 2.0 * ri * jij;
            }
        }
        self.r.iter().map(|v| v * v).sum()
    }
}

/// MGH 1, Rosenbrock: `r = (10(x₂ − x₁²), 1 − x₁)`; start `(−1.2, 1)`,
/// minimum 0 at `(1, 1)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rosenbrock;

impl LeastSquaresProblem for Rosenbrock {
    fn variables(&self) -> usize {
        2
    }
    fn residuals(&self) -> usize {
        2
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = 10.0 * (x[1] - x[0] * x[0]);
        r[1] = 1.0 - x[0];
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        j[0] = -20.0 * x[0];
        j[1] = 10.0;
        j[2] = -1.0;
    }
}

impl TestProblem for Rosenbrock {
    fn name(&self) -> &'static str {
        "Rosenbrock"
    }
    fn start(&self) -> Vec<f64> {
        vec![-1.2, 1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![1.0, 1.0])
    }
}

/// MGH 2, Freudenstein & Roth; start `(0.5, −2)`, global minimum 0 at
/// `(5, 4)` and a local one, 48.9842…, at `(11.41…, −0.8968…)`, which
/// descent methods from the standard start usually reach.
#[derive(Clone, Copy, Debug, Default)]
pub struct FreudensteinRoth;

impl LeastSquaresProblem for FreudensteinRoth {
    fn variables(&self) -> usize {
        2
    }
    fn residuals(&self) -> usize {
        2
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = -13.0 + x[0] + ((5.0 - x[1]) * x[1] - 2.0) * x[1];
        r[1] = -29.0 + x[0] + ((x[1] + 1.0) * x[1] - 14.0) * x[1];
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        j[0] = 1.0;
        j[1] = 10.0 * x[1] - 3.0 * x[1] * x[1] - 2.0;
        j[2] = 1.0;
        j[3] = 3.0 * x[1] * x[1] + 2.0 * x[1] - 14.0;
    }
}

impl TestProblem for FreudensteinRoth {
    fn name(&self) -> &'static str {
        "Freudenstein–Roth"
    }
    fn start(&self) -> Vec<f64> {
        vec![0.5, -2.0]
    }
    fn minimum(&self) -> f64 {
        // MGH give 48.9842…; the digits below are this function's value at
        // its local minimizer, found by Newton's method on ∇f = 0.
        48.984_253_679_240_2
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        None
    }
}

/// MGH 3, Powell badly scaled: `r = (10⁴x₁x₂ − 1, e^{−x₁} + e^{−x₂} −
/// 1.0001)`; start `(0, 1)`, minimum 0 at `(1.098…·10⁻⁵, 9.106…)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PowellBadlyScaled;

impl LeastSquaresProblem for PowellBadlyScaled {
    fn variables(&self) -> usize {
        2
    }
    fn residuals(&self) -> usize {
        2
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = 1e4 * x[0] * x[1] - 1.0;
        r[1] = (-x[0]).exp() + (-x[1]).exp() - 1.0001;
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        j[0] = 1e4 * x[1];
        j[1] = 1e4 * x[0];
        j[2] = -(-x[0]).exp();
        j[3] = -(-x[1]).exp();
    }
}

impl TestProblem for PowellBadlyScaled {
    fn name(&self) -> &'static str {
        "Powell badly scaled"
    }
    fn start(&self) -> Vec<f64> {
        vec![0.0, 1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        None
    }
}

/// MGH 4, Brown badly scaled: `r = (x₁ − 10⁶, x₂ − 2·10⁻⁶, x₁x₂ − 2)`;
/// start `(1, 1)`, minimum 0 at `(10⁶, 2·10⁻⁶)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BrownBadlyScaled;

impl LeastSquaresProblem for BrownBadlyScaled {
    fn variables(&self) -> usize {
        2
    }
    fn residuals(&self) -> usize {
        3
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = x[0] - 1e6;
        r[1] = x[1] - 2e-6;
        r[2] = x[0] * x[1] - 2.0;
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        j[0] = 1.0;
        j[3] = 1.0;
        j[4] = x[1];
        j[5] = x[0];
    }
}

impl TestProblem for BrownBadlyScaled {
    fn name(&self) -> &'static str {
        "Brown badly scaled"
    }
    fn start(&self) -> Vec<f64> {
        vec![1.0, 1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![1e6, 2e-6])
    }
}

/// MGH 5, Beale: `rᵢ = yᵢ − x₁(1 − x₂ⁱ)`, `y = (1.5, 2.25, 2.625)`; start
/// `(1, 1)`, minimum 0 at `(3, 0.5)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Beale;

impl LeastSquaresProblem for Beale {
    fn variables(&self) -> usize {
        2
    }
    fn residuals(&self) -> usize {
        3
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        for (i, (ri, y)) in r.iter_mut().zip([1.5, 2.25, 2.625]).enumerate() {
            *ri = y - x[0] * (1.0 - x[1].powi(i as i32 + 1));
        }
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        for i in 0..3 {
            let p = i as i32 + 1;
            j[2 * i] = -(1.0 - x[1].powi(p));
            j[2 * i + 1] = x[0] * f64::from(p) * x[1].powi(p - 1);
        }
    }
}

impl TestProblem for Beale {
    fn name(&self) -> &'static str {
        "Beale"
    }
    fn start(&self) -> Vec<f64> {
        vec![1.0, 1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![3.0, 0.5])
    }
}

/// MGH 7, helical valley: `r = (10(x₃ − 10θ), 10(√(x₁² + x₂²) − 1), x₃)`
/// with `2πθ = atan2(x₂, x₁)` taken in `(−π/2, 3π/2)`; start `(−1, 0, 0)`,
/// minimum 0 at `(1, 0, 0)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HelicalValley;

impl LeastSquaresProblem for HelicalValley {
    fn variables(&self) -> usize {
        3
    }
    fn residuals(&self) -> usize {
        3
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        let tau = std::f64::consts::TAU;
        let mut theta = (x[1] / x[0]).atan() / tau;
        if x[0] < 0.0 {
            theta += 0.5;
        }
        r[0] = 10.0 * (x[2] - 10.0 * theta);
        r[1] = 10.0 * ((x[0] * x[0] + x[1] * x[1]).sqrt() - 1.0);
        r[2] = x[2];
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        let tau = std::f64::consts::TAU;
        let rr = x[0] * x[0] + x[1] * x[1];
        let rad = rr.sqrt();
        // ∂θ/∂x₁ = −x₂ / (2π r²), ∂θ/∂x₂ = x₁ / (2π r²).
        j[0] = 100.0 * x[1] / (tau * rr);
        j[1] = -100.0 * x[0] / (tau * rr);
        j[2] = 10.0;
        j[3] = 10.0 * x[0] / rad;
        j[4] = 10.0 * x[1] / rad;
        j[8] = 1.0;
    }
}

impl TestProblem for HelicalValley {
    fn name(&self) -> &'static str {
        "helical valley"
    }
    fn start(&self) -> Vec<f64> {
        vec![-1.0, 0.0, 0.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![1.0, 0.0, 0.0])
    }
}

/// MGH 13, Powell singular: `r = (x₁ + 10x₂, √5(x₃ − x₄), (x₂ − 2x₃)²,
/// √10(x₁ − x₄)²)`; start `(3, −1, 0, 1)`, minimum 0 at the origin, where
/// the Hessian is singular (convergence is only linear).
#[derive(Clone, Copy, Debug, Default)]
pub struct PowellSingular;

impl LeastSquaresProblem for PowellSingular {
    fn variables(&self) -> usize {
        4
    }
    fn residuals(&self) -> usize {
        4
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = x[0] + 10.0 * x[1];
        r[1] = 5f64.sqrt() * (x[2] - x[3]);
        r[2] = (x[1] - 2.0 * x[2]).powi(2);
        r[3] = 10f64.sqrt() * (x[0] - x[3]).powi(2);
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        j[0] = 1.0;
        j[1] = 10.0;
        j[6] = 5f64.sqrt();
        j[7] = -(5f64.sqrt());
        let a = 2.0 * (x[1] - 2.0 * x[2]);
        j[9] = a;
        j[10] = -2.0 * a;
        let b = 2.0 * 10f64.sqrt() * (x[0] - x[3]);
        j[12] = b;
        j[15] = -b;
    }
}

impl TestProblem for PowellSingular {
    fn name(&self) -> &'static str {
        "Powell singular"
    }
    fn start(&self) -> Vec<f64> {
        vec![3.0, -1.0, 0.0, 1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![0.0; 4])
    }
}

/// MGH 14, Wood: start `(−3, −1, −3, −1)`, minimum 0 at `(1, 1, 1, 1)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wood;

impl LeastSquaresProblem for Wood {
    fn variables(&self) -> usize {
        4
    }
    fn residuals(&self) -> usize {
        6
    }
    fn residual(&self, x: &[f64], r: &mut [f64]) {
        r[0] = 10.0 * (x[1] - x[0] * x[0]);
        r[1] = 1.0 - x[0];
        r[2] = 90f64.sqrt() * (x[3] - x[2] * x[2]);
        r[3] = 1.0 - x[2];
        r[4] = 10f64.sqrt() * (x[1] + x[3] - 2.0);
        r[5] = (x[1] - x[3]) / 10f64.sqrt();
    }
    fn jacobian(&self, x: &[f64], j: &mut [f64]) {
        let (s90, s10) = (90f64.sqrt(), 10f64.sqrt());
        j[0] = -20.0 * x[0];
        j[1] = 10.0;
        j[4] = -1.0;
        j[2 * 4 + 2] = -2.0 * s90 * x[2];
        j[2 * 4 + 3] = s90;
        j[3 * 4 + 2] = -1.0;
        j[4 * 4 + 1] = s10;
        j[4 * 4 + 3] = s10;
        j[5 * 4 + 1] = 1.0 / s10;
        j[5 * 4 + 3] = -1.0 / s10;
    }
}

impl TestProblem for Wood {
    fn name(&self) -> &'static str {
        "Wood"
    }
    fn start(&self) -> Vec<f64> {
        vec![-3.0, -1.0, -3.0, -1.0]
    }
    fn minimum(&self) -> f64 {
        0.0
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![1.0; 4])
    }
}

/// MGH 21, extended Rosenbrock in `n` (even) variables: `n/2` independent
/// Rosenbrock pairs; start `(−1.2, 1, −1.2, 1, …)`, minimum 0 at `(1, …, 1)`.
///
/// Implemented directly (not through a dense Jacobian) so that it costs
/// `O(n)` per evaluation: the benches run it at `n = 10⁶`.
#[derive(Clone, Copy, Debug)]
pub struct ExtendedRosenbrock {
    n: usize,
}

impl ExtendedRosenbrock {
    /// The problem in `n` variables; an odd `n` is rounded up to even, and
    /// `n = 0` to 2.
    pub fn new(n: usize) -> Self {
        Self {
            n: n.max(2).div_ceil(2) * 2,
        }
    }

    /// The standard start.
    pub fn start(&self) -> Vec<f64> {
        (0..self.n).map(|i| if i % 2 == 0 { -1.2 } else { 1.0 }).collect()
    }
}

impl Objective for ExtendedRosenbrock {
    fn dim(&self) -> usize {
        self.n
    }
    fn value(&mut self, x: &[f64]) -> f64 {
        x.chunks_exact(2)
            .map(|p| 100.0 * (p[1] - p[0] * p[0]).powi(2) + (1.0 - p[0]).powi(2))
            .sum()
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        self.value_and_gradient(x, g);
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let mut f = 0.0;
        for (p, gp) in x.chunks_exact(2).zip(g.chunks_exact_mut(2)) {
            let t = p[1] - p[0] * p[0];
            let u = 1.0 - p[0];
            f += 100.0 * t * t + u * u;
            gp[0] = -400.0 * p[0] * t - 2.0 * u;
            gp[1] = 200.0 * t;
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::gradient_error;

    fn check<P: TestProblem + Clone>(p: P) {
        let mut f = SumOfSquares::new(p.clone());
        for x in [p.start(), p.start().iter().map(|v| 0.7 * v + 0.3).collect()] {
            let e = gradient_error(&mut f, &x);
            // Truncation O(h²) (small for these low-degree residuals) plus
            // the rounding of f, ε|f|/h with h = ε^{1/3}·max(1, |xᵢ|),
            // relative to ‖g‖∞ (Brown's f is 10¹² at its start).
            let mut g = vec![0.0; x.len()];
            let fx = f.value_and_gradient(&x, &mut g);
            let xmin = x.iter().fold(f64::INFINITY, |m, v| m.min(v.abs().max(1.0)));
            let rounding = 4.0 * f64::EPSILON * fx.abs().max(1.0) / (f64::EPSILON.cbrt() * xmin);
            let bound = 1e-6 + rounding / g.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
            assert!(e < bound, "{}: gradient error {e:e} at {x:?} above {bound:e}", p.name());
        }
        if let Some(xs) = p.minimizer() {
            assert!(f.value(&xs).abs() <= 1e-20, "{}: f(x*) = {}", p.name(), f.value(&xs));
        }
    }

    /// Each hand-written Jacobian agrees with central differences (a wrong
    /// entry gives an O(1) error), and f vanishes at the known minimizers.
    #[test]
    fn jacobians_match_finite_differences() {
        check(Rosenbrock);
        check(FreudensteinRoth);
        check(PowellBadlyScaled);
        check(BrownBadlyScaled);
        check(Beale);
        check(HelicalValley);
        check(PowellSingular);
        check(Wood);
        let mut e = ExtendedRosenbrock::new(6);
        let x0 = e.start();
        assert!(gradient_error(&mut e, &x0) < 1e-8);
        assert_eq!(e.value(&[1.0; 6]), 0.0);
        // The extended problem is n/2 copies of MGH 1.
        assert!((e.value(&x0) - 3.0 * SumOfSquares::new(Rosenbrock).value(&[-1.2, 1.0])).abs() < 1e-12);
    }

    /// The Freudenstein–Roth local minimum stated above: ∇f vanishes there
    /// (Newton on ∇f = 0 from MGH's rounded minimizer).
    #[test]
    fn freudenstein_roth_local_minimum() {
        let mut f = SumOfSquares::new(FreudensteinRoth);
        let mut x = [11.41, -0.8968];
        let mut g = [0.0; 2];
        for _ in 0..20 {
            // Hessian by central differences of the exact gradient.
            let h = 1e-6;
            let mut hess = [[0.0; 2]; 2];
            for j in 0..2 {
                let (mut up, mut dn) = (x, x);
                up[j] += h;
                dn[j] -= h;
                let (mut gu, mut gd) = ([0.0; 2], [0.0; 2]);
                f.gradient(&up, &mut gu);
                f.gradient(&dn, &mut gd);
                for i in 0..2 {
                    hess[i][j] = (gu[i] - gd[i]) / (2.0 * h);
                }
            }
            f.gradient(&x, &mut g);
            let det = hess[0][0] * hess[1][1] - hess[0][1] * hess[1][0];
            x[0] -= (hess[1][1] * g[0] - hess[0][1] * g[1]) / det;
            x[1] -= (-hess[1][0] * g[0] + hess[0][0] * g[1]) / det;
        }
        let v = f.value_and_gradient(&x, &mut g);
        assert!(g[0].abs() + g[1].abs() < 1e-8, "{g:?}");
        assert!((v - FreudensteinRoth.minimum()).abs() < 1e-12 * v, "{v:.15}");
    }
}
