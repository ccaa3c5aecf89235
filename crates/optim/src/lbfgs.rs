//! Limited-memory BFGS (Liu & Nocedal, *On the limited memory BFGS method
//! for large scale optimization*, Math. Programming 45, 1989): the method
//! Grippo et al. ran per neuron in DEC's Step B and on all weights as their
//! baseline, and Palagi & Seccia per layer in B2LD and as theirs.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use crate::line_search::{LineSearchError, MoreThuente};
use crate::objective::{Counted, Objective};
use crate::report::{Report, Termination};

/// L-BFGS with the Moré–Thuente line search, as Nocedal's `lbfgs.f`: the
/// inverse Hessian approximation is built from the last `m` pairs
/// `sₖ = xₖ₊₁ − xₖ`, `yₖ = ∇fₖ₊₁ − ∇fₖ` by the two-loop recursion, scaled by
/// `γₖ = sₖᵀyₖ / yₖᵀyₖ`; the first step is `1/‖∇f(x₀)‖` along `−∇f(x₀)`, later
/// ones start from the unit step.
///
/// It stops at the first of (checked after every iteration, and the
/// gradient test also at the start):
///
/// - `‖∇f(x)‖ ≤ gtol` — or `‖∇f(x)‖ ≤ gtol · max(1, ‖x‖)` with
///   [`Lbfgs::with_gradient_relative_to_x`], `lbfgs.f`'s test (the one the
///   paper's "accuracy 10⁻²" refers to);
/// - `(f_prev − f) / max(|f_prev|, |f|, 1) ≤ ftol` (off by default);
/// - the iteration, evaluation or time limit;
/// - a line search that finds no strong Wolfe step (the point stays at the
///   last iterate);
/// - the observer asking to stop ([`Lbfgs::minimize_observed`]).
///
/// A pair with `sᵀy ≤ ε·yᵀy` (possible only when the line search failed to
/// meet the curvature condition by rounding) is not stored.
///
/// ```
/// use optim::{Lbfgs, Objective, Termination};
///
/// /// f(x) = Σ i·(xᵢ − 1)², minimized at x = (1, …, 1).
/// struct Bowl;
/// impl Objective for Bowl {
///     fn dim(&self) -> usize { 5 }
///     fn value(&mut self, x: &[f64]) -> f64 {
///         x.iter().enumerate().map(|(i, v)| (i + 1) as f64 * (v - 1.0).powi(2)).sum()
///     }
///     fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
///         for (i, (gi, v)) in g.iter_mut().zip(x).enumerate() {
///             *gi = 2.0 * (i + 1) as f64 * (v - 1.0);
///         }
///     }
/// }
///
/// let mut x = vec![0.0; 5];
/// let report = Lbfgs::default().with_gradient_tolerance(1e-10).minimize(&mut Bowl, &mut x)?;
/// assert_eq!(report.termination, Termination::GradientTolerance);
/// assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-10));
/// # Ok::<(), optim::LbfgsError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Lbfgs {
    memory: usize,
    gtol: f64,
    gradient_relative_to_x: bool,
    ftol: f64,
    max_iterations: usize,
    max_evaluations: usize,
    time_limit: Option<Duration>,
    line_search: MoreThuente,
}

impl Default for Lbfgs {
    /// Memory `m = 5` (inside `lbfgs.f`'s recommended 3–7), `gtol = 10⁻⁵`
    /// (absolute), no relative-decrease test, at most 1000 iterations, no
    /// evaluation or time limit, [`MoreThuente::default`].
    fn default() -> Self {
        Self {
            memory: 5,
            gtol: 1e-5,
            gradient_relative_to_x: false,
            ftol: 0.0,
            max_iterations: 1000,
            max_evaluations: usize::MAX,
            time_limit: None,
            line_search: MoreThuente::default(),
        }
    }
}

/// Why [`Lbfgs`] could not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LbfgsError {
    /// A setting is out of its range.
    InvalidParameter {
        /// The setting's name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must lie in.
        range: &'static str,
    },
    /// `x` does not have the objective's dimension.
    Dimension {
        /// The objective's dimension.
        expected: usize,
        /// The length of `x`.
        found: usize,
    },
    /// `f` or `∇f` is not finite at the starting point.
    NotFiniteAtStart {
        /// `f(x₀)`.
        value: f64,
    },
}

impl std::fmt::Display for LbfgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidParameter { name, value, range } => {
                write!(f, "L-BFGS setting {name} = {value} must lie in {range}")
            }
            Self::Dimension { expected, found } => write!(
                f,
                "starting point of length {found} given for an objective of dimension {expected}"
            ),
            Self::NotFiniteAtStart { value } => write!(
                f,
                "the objective or its gradient is not finite at the starting point (f = {value})"
            ),
        }
    }
}

impl std::error::Error for LbfgsError {}

/// What an observer of [`Lbfgs::minimize_observed`] sees after each
/// iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iterate {
    /// Iterations completed.
    pub iteration: usize,
    /// `f` at the new point.
    pub value: f64,
    /// `‖∇f‖` there.
    pub gradient_norm: f64,
    /// Time since the start of the run.
    pub elapsed: Duration,
}

impl Lbfgs {
    /// The method keeping the last `m ≥ 1` pairs.
    ///
    /// # Errors
    /// [`LbfgsError::InvalidParameter`] for `m = 0`.
    pub fn with_memory(mut self, m: usize) -> Result<Self, LbfgsError> {
        if m == 0 {
            return Err(LbfgsError::InvalidParameter {
                name: "memory m",
                value: 0.0,
                range: "1, 2, …",
            });
        }
        self.memory = m;
        Ok(self)
    }

    /// Stop when `‖∇f‖ ≤ gtol` (`gtol ≥ 0`; `0` turns the test off for
    /// practical purposes). A negative or NaN value is taken as `0`.
    #[must_use]
    pub fn with_gradient_tolerance(mut self, gtol: f64) -> Self {
        self.gtol = if gtol > 0.0 { gtol } else { 0.0 };
        self
    }

    /// Measure the gradient test relative to the point, `‖∇f‖ ≤ gtol ·
    /// max(1, ‖x‖)`, as `lbfgs.f` does.
    #[must_use]
    pub fn with_gradient_relative_to_x(mut self, on: bool) -> Self {
        self.gradient_relative_to_x = on;
        self
    }

    /// Stop when the relative decrease of one iteration is at most `ftol`
    /// (`0`, the default, turns it off). A negative or NaN value is taken as
    /// `0`.
    #[must_use]
    pub fn with_relative_decrease(mut self, ftol: f64) -> Self {
        self.ftol = if ftol > 0.0 { ftol } else { 0.0 };
        self
    }

    /// At most `n` iterations (`n = 0` evaluates the start and stops).
    #[must_use]
    pub fn with_max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// Stop once `n` evaluations (value and gradient) are made; checked
    /// between iterations, so a line search may overrun it by its own limit.
    #[must_use]
    pub fn with_max_evaluations(mut self, n: usize) -> Self {
        self.max_evaluations = n;
        self
    }

    /// Stop once the run has taken `limit` (checked between iterations).
    #[must_use]
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Use `line_search` instead of [`MoreThuente::default`].
    #[must_use]
    pub fn with_line_search(mut self, line_search: MoreThuente) -> Self {
        self.line_search = line_search;
        self
    }

    /// The memory `m`.
    pub fn memory(&self) -> usize {
        self.memory
    }

    /// Minimize `f` from `x`, leaving the last iterate in `x`.
    ///
    /// # Errors
    /// [`LbfgsError::Dimension`] when `x.len() != f.dim()`;
    /// [`LbfgsError::NotFiniteAtStart`] when `f(x)` or `∇f(x)` is not finite.
    /// Every other way of stopping is a [`Report`].
    pub fn minimize<O: Objective + ?Sized>(&self, f: &mut O, x: &mut [f64]) -> Result<Report, LbfgsError> {
        self.minimize_observed(f, x, |_| ControlFlow::Continue(()))
    }

    /// [`Self::minimize`], calling `observer` after every iteration; it
    /// stops the run by returning [`ControlFlow::Break`] (reported as
    /// [`Termination::Interrupted`]).
    ///
    /// # Errors
    /// As [`Self::minimize`].
    pub fn minimize_observed<O: Objective + ?Sized>(
        &self,
        f: &mut O,
        x: &mut [f64],
        mut observer: impl FnMut(&Iterate) -> ControlFlow<()>,
    ) -> Result<Report, LbfgsError> {
        let start = Instant::now();
        let n = f.dim();
        if x.len() != n {
            return Err(LbfgsError::Dimension {
                expected: n,
                found: x.len(),
            });
        }
        let mut f = Counted::new(f);
        let mut g = vec![0.0; n];
        let mut fx = f.value_and_gradient(x, &mut g);
        if !fx.is_finite() || !g.iter().all(|v| v.is_finite()) {
            return Err(LbfgsError::NotFiniteAtStart { value: fx });
        }
        let mut gnorm = norm(&g);
        let mut memory = Memory::new(self.memory.min(n.max(1)), n);
        let (mut d, mut x_new, mut g_new) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut iterations = 0;

        let termination = loop {
            if gnorm <= self.gtol * self.gradient_scale(x) {
                break Termination::GradientTolerance;
            }
            if iterations >= self.max_iterations {
                break Termination::MaxIterations;
            }
            if f.evaluations().gradients >= self.max_evaluations {
                break Termination::MaxEvaluations;
            }
            if self.time_limit.is_some_and(|limit| start.elapsed() >= limit) {
                break Termination::TimeLimit;
            }
            memory.direction(&g, &mut d);
            let mut slope = dot(&g, &d);
            if !(slope < 0.0 && slope.is_finite()) {
                // Not a descent direction (rounding in a badly conditioned
                // memory): forget the pairs and go down the gradient.
                memory.clear();
                memory.direction(&g, &mut d);
                slope = dot(&g, &d);
            }
            let alpha0 = if memory.is_empty() { 1.0 / gnorm } else { 1.0 };
            let step = match self
                .line_search
                .search(&mut f, x, fx, slope, &d, alpha0.min(1e20), &mut x_new, &mut g_new)
            {
                Ok(step) => step,
                Err(LineSearchError::NoWolfeStep { .. } | LineSearchError::NotDescent { .. }) => {
                    break Termination::LineSearchFailed;
                }
                Err(other) => unreachable!("lengths and α₀ were checked: {other}"),
            };
            memory.push(x, &x_new, &g, &g_new);
            x.copy_from_slice(&x_new);
            std::mem::swap(&mut g, &mut g_new);
            let f_prev = fx;
            fx = step.value;
            gnorm = norm(&g);
            iterations += 1;
            let iterate = Iterate {
                iteration: iterations,
                value: fx,
                gradient_norm: gnorm,
                elapsed: start.elapsed(),
            };
            if observer(&iterate).is_break() {
                break Termination::Interrupted;
            }
            if self.ftol > 0.0
                && (f_prev - fx) <= self.ftol * f_prev.abs().max(fx.abs()).max(1.0)
                && gnorm > self.gtol * self.gradient_scale(x)
            {
                break Termination::RelativeDecrease;
            }
        };
        Ok(Report {
            iterations,
            evaluations: f.evaluations(),
            value: fx,
            gradient_norm: gnorm,
            termination,
            elapsed: start.elapsed(),
        })
    }

    fn gradient_scale(&self, x: &[f64]) -> f64 {
        if self.gradient_relative_to_x {
            norm(x).max(1.0)
        } else {
            1.0
        }
    }
}

/// The last `m` pairs `(s, y)` with `ρ = 1/sᵀy`, oldest first from `head`.
struct Memory {
    s: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    rho: Vec<f64>,
    alpha: Vec<f64>,
    head: usize,
    len: usize,
    gamma: f64,
}

impl Memory {
    fn new(m: usize, n: usize) -> Self {
        Self {
            s: vec![vec![0.0; n]; m],
            y: vec![vec![0.0; n]; m],
            rho: vec![0.0; m],
            alpha: vec![0.0; m],
            head: 0,
            len: 0,
            gamma: 1.0,
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn clear(&mut self) {
        self.len = 0;
        self.head = 0;
        self.gamma = 1.0;
    }

    /// Stores `s = x_new − x`, `y = g_new − g` unless `sᵀy ≤ ε·yᵀy`,
    /// overwriting the oldest pair when full.
    fn push(&mut self, x: &[f64], x_new: &[f64], g: &[f64], g_new: &[f64]) {
        let m = self.s.len();
        let slot = (self.head + self.len) % m;
        let (s, y) = (&mut self.s[slot], &mut self.y[slot]);
        for i in 0..x.len() {
            s[i] = x_new[i] - x[i];
            y[i] = g_new[i] - g[i];
        }
        let (sy, yy) = (dot(s, y), dot(y, y));
        let curvature_ok = sy > f64::EPSILON * yy && sy.is_finite();
        if !curvature_ok {
            return;
        }
        self.rho[slot] = 1.0 / sy;
        self.gamma = sy / yy;
        if self.len < m {
            self.len += 1;
        } else {
            self.head = (self.head + 1) % m;
        }
    }

    /// `d = −H∇f` by the two-loop recursion (Nocedal & Wright, Alg. 7.4).
    fn direction(&mut self, g: &[f64], d: &mut [f64]) {
        let m = self.s.len();
        for (di, gi) in d.iter_mut().zip(g) {
            *di = -gi;
        }
        for k in (0..self.len).rev() {
            let i = (self.head + k) % m;
            let a = self.rho[i] * dot(&self.s[i], d);
            self.alpha[i] = a;
            axpy(-a, &self.y[i], d);
        }
        if self.gamma != 1.0 {
            for di in d.iter_mut() {
                *di *= self.gamma;
            }
        }
        for k in 0..self.len {
            let i = (self.head + k) % m;
            let b = self.rho[i] * dot(&self.y[i], d);
            axpy(self.alpha[i] - b, &self.s[i], d);
        }
    }
}

/// `aᵀb` with eight independent partial sums, so that the compiler
/// vectorizes the loop (a single running sum is bound by the latency of one
/// addition after another: 2× slower at n = 10⁴, measured in
/// `lbfgs-report`).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cg::tests::{matvec, spd};
    use crate::problems::{self, ExtendedRosenbrock, SumOfSquares, TestProblem};
    use linalg_core::kernels::{self, Flops, Owned, Tri};
    use proptest::prelude::*;

    /// `f(x) = ½xᵀAx − bᵀx`, gradient `Ax − b`.
    struct Quadratic {
        a: Owned,
        b: Vec<f64>,
        ax: Vec<f64>,
    }

    impl Objective for Quadratic {
        fn dim(&self) -> usize {
            self.b.len()
        }
        fn value(&mut self, x: &[f64]) -> f64 {
            let mut g = vec![0.0; x.len()];
            self.value_and_gradient(x, &mut g)
        }
        fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
            self.value_and_gradient(x, g);
        }
        fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
            matvec(&self.a, x, &mut self.ax);
            for ((gi, ai), bi) in g.iter_mut().zip(&self.ax).zip(&self.b) {
                *gi = ai - bi;
            }
            0.5 * dot(x, &self.ax) - dot(x, &self.b)
        }
    }

    proptest! {
        /// Random strictly convex quadratics (κ up to about 10⁴): L-BFGS
        /// stops on ‖Ax − b‖ ≤ gtol (the smallest a line search on f can
        /// resolve, see below), so ‖x − x*‖ ≤ gtol/λ_min, where x* is the
        /// direct (Cholesky) solution; checked with the direct solve's own
        /// error κ·nε·‖x*‖ added.
        #[test]
        fn minimizes_random_convex_quadratics_to_the_direct_solution(
            seed in any::<u64>(), n in 1usize..40, log_mu in -2.0f64..1.0, m in 1usize..8,
        ) {
            let a = spd(seed, n, 10f64.powf(log_mu));
            let b: Vec<f64> = (0..n).map(|i| ((i * 5 + 1) % 7) as f64 - 3.0).collect();
            let mut fl = Flops::default();
            let w = kernels::syevd(&mut fl, a.clone().as_mut()).unwrap();
            let (lmin, lmax) = (w.iter().cloned().fold(f64::INFINITY, f64::min), w.iter().cloned().fold(0.0, f64::max));
            let mut chol = a.clone();
            kernels::potrf(&mut fl, Tri::Upper, chol.as_mut()).unwrap();
            let mut xd = Owned::from_fn(n, 1, |i, _| b[i]);
            kernels::potrs_upper(&mut fl, chol.as_ref(), xd.as_mut());
            let xs: Vec<f64> = (0..n).map(|i| xd.at(i, 0)).collect();
            // A line search judges steps by f: a decrease ‖g‖²/λ_max below
            // the rounding of f, ε|f*|, cannot be seen, so a gradient below
            // about √(ε|f*|λ_max) is not attainable; ask for 10 times that.
            let fstar = -0.5 * dot(&b, &xs);
            let gtol = (1e-8 * norm(&b)).max(10.0 * (f64::EPSILON * fstar.abs() * lmax).sqrt());
            let mut f = Quadratic { a, b, ax: vec![0.0; n] };
            let mut x = vec![0.0; n];
            let rep = Lbfgs::default()
                .with_memory(m).unwrap()
                .with_gradient_tolerance(gtol)
                .with_max_iterations(20 * n + 100)
                .minimize(&mut f, &mut x)
                .unwrap();
            prop_assert_eq!(rep.termination, Termination::GradientTolerance, "{:?}", rep);
            let err = x.iter().zip(&xs).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
            let bound = gtol / lmin + 4.0 * (lmax / lmin) * n as f64 * f64::EPSILON * norm(&xs);
            prop_assert!(err <= bound, "‖x − x*‖ = {:e} > {:e}", err, bound);
            // The report's gradient norm is the true one at the returned x.
            let mut g = vec![0.0; n];
            let v = f.value_and_gradient(&x, &mut g);
            prop_assert_eq!(rep.value, v);
            prop_assert!((rep.gradient_norm - norm(&g)).abs() <= 1e-12 * norm(&g).max(1e-300) + 1e-300);
        }
    }

    fn solve<P: TestProblem + Clone>(p: P, gtol: f64) -> (Report, Vec<f64>) {
        let mut x = p.start();
        let rep = Lbfgs::default()
            .with_gradient_tolerance(gtol)
            .with_max_iterations(10_000)
            .minimize(&mut SumOfSquares::new(p), &mut x)
            .unwrap();
        (rep, x)
    }

    /// The Moré–Garbow–Hillstrom problems reach their known minima from the
    /// standard starts (Freudenstein–Roth: its local minimum 48.98…).
    #[test]
    fn reaches_the_known_minima_of_the_classic_problems() {
        fn check<P: TestProblem + Clone>(p: P, f_tol: f64, x_tol: f64) {
            let (rep, x) = solve(p.clone(), 1e-10);
            assert!(
                rep.value - p.minimum() <= f_tol * p.minimum().max(1.0),
                "{}: f = {:e} (f* = {}) after {rep:?}",
                p.name(),
                rep.value,
                p.minimum()
            );
            if let Some(xs) = p.minimizer() {
                for (i, (a, b)) in x.iter().zip(&xs).enumerate() {
                    assert!(
                        (a - b).abs() <= x_tol * b.abs().max(1.0),
                        "{}: x[{i}] = {a} vs {b}",
                        p.name()
                    );
                }
            }
        }
        check(problems::Rosenbrock, 1e-18, 1e-8);
        check(problems::FreudensteinRoth, 1e-14, 0.0);
        check(problems::PowellBadlyScaled, 1e-14, 0.0);
        check(problems::Beale, 1e-18, 1e-8);
        check(problems::HelicalValley, 1e-18, 1e-8);
        check(problems::Wood, 1e-18, 1e-8);
        // Singular Hessian at 0: f ~ ‖x‖⁴, so f ≤ 1e-16 means ‖x‖ ≲ 1e-4.
        check(problems::PowellSingular, 1e-16, 1e-3);
        // Brown's f is 10¹² at the start; x₂* = 2e-6 is reached relatively.
        check(problems::BrownBadlyScaled, 1e-12, 1e-8);
    }

    #[test]
    fn extended_rosenbrock_in_a_thousand_variables() {
        let mut f = ExtendedRosenbrock::new(1000);
        let mut x = f.start();
        let rep = Lbfgs::default()
            .with_gradient_tolerance(1e-8)
            .minimize(&mut f, &mut x)
            .unwrap();
        assert_eq!(rep.termination, Termination::GradientTolerance, "{rep:?}");
        assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-6));
        // The pairs are independent, so the iterations are those of n = 2
        // give or take the line search's different scaling.
        assert!(rep.iterations < 200, "{rep:?}");
    }

    #[test]
    fn stopping_rules_and_the_observer() {
        let p = problems::Rosenbrock;
        let run = |l: Lbfgs| {
            let mut x = p.start();
            l.minimize(&mut SumOfSquares::new(p), &mut x).unwrap()
        };
        let r = run(Lbfgs::default().with_max_iterations(3));
        assert_eq!((r.termination, r.iterations), (Termination::MaxIterations, 3));
        let r = run(Lbfgs::default().with_max_iterations(0));
        assert_eq!((r.termination, r.iterations), (Termination::MaxIterations, 0));
        assert_eq!(r.evaluations.gradients, 1);
        let r = run(Lbfgs::default().with_max_evaluations(5));
        assert_eq!(r.termination, Termination::MaxEvaluations);
        assert!(r.evaluations.gradients >= 5);
        let r = run(Lbfgs::default().with_time_limit(Duration::ZERO));
        assert_eq!((r.termination, r.iterations), (Termination::TimeLimit, 0));
        let r = run(Lbfgs::default()
            .with_relative_decrease(1e-3)
            .with_gradient_tolerance(0.0));
        assert_eq!(r.termination, Termination::RelativeDecrease);
        // lbfgs.f's relative gradient test: ‖g‖ ≤ gtol·max(1, ‖x‖).
        let r = run(Lbfgs::default()
            .with_gradient_tolerance(1e-2)
            .with_gradient_relative_to_x(true));
        assert_eq!(r.termination, Termination::GradientTolerance);
        assert!(r.gradient_norm <= 1e-2 * 2f64.sqrt() * 1.01);
        // The observer sees every iteration, with decreasing values, and can stop the run.
        let mut seen = vec![];
        let mut x = p.start();
        let r = Lbfgs::default()
            .minimize_observed(&mut SumOfSquares::new(p), &mut x, |it| {
                seen.push(it.value);
                if it.iteration == 7 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap();
        assert_eq!(
            (r.termination, r.iterations, seen.len()),
            (Termination::Interrupted, 7, 7)
        );
        assert!(seen.windows(2).all(|w| w[1] < w[0]), "{seen:?}");
        assert_eq!(r.value, seen[6]);
        // Started at the minimizer: converged without an iteration.
        let mut x = vec![1.0, 1.0];
        let r = Lbfgs::default().minimize(&mut SumOfSquares::new(p), &mut x).unwrap();
        assert_eq!((r.termination, r.iterations), (Termination::GradientTolerance, 0));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut f = SumOfSquares::new(problems::Rosenbrock);
        assert_eq!(
            Lbfgs::default().minimize(&mut f, &mut [0.0; 3]),
            Err(LbfgsError::Dimension { expected: 2, found: 3 })
        );
        let err = Lbfgs::default().minimize(&mut f, &mut [f64::NAN, 0.0]).unwrap_err();
        assert!(matches!(err, LbfgsError::NotFiniteAtStart { .. }), "{err:?}");
        assert!(err.to_string().contains("not finite"));
        assert!(Lbfgs::default().with_memory(0).is_err());
        // Unbounded below: the line search fails at its step bound and
        // L-BFGS reports it instead of looping.
        struct Linear;
        impl Objective for Linear {
            fn dim(&self) -> usize {
                1
            }
            fn value(&mut self, x: &[f64]) -> f64 {
                -x[0]
            }
            fn gradient(&mut self, _: &[f64], g: &mut [f64]) {
                g[0] = -1.0;
            }
        }
        let r = Lbfgs::default().minimize(&mut Linear, &mut [0.0]).unwrap();
        assert_eq!(r.termination, Termination::LineSearchFailed);
    }
}
