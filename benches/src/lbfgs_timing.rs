//! The L-BFGS comparison shared by `lbfgs-report` and the criterion bench
//! `lbfgs_overhead`: both solvers with the same settings, objectives that
//! time themselves, and one timed run of each.
//!
//! Included by path (`#[path = "../lbfgs_timing.rs"] mod lbfgs_timing;`) in
//! both rather than made a module of the `benches` library, so that the
//! library (and its dependencies' build) stays as the other benches use it.
//!
//! Settings, the same for both solvers: memory `m = 5`, Moré–Thuente with
//! `c₁ = 10⁻⁴`, `c₂ = 0.9`, an absolute gradient tolerance, and argmin's
//! cost-change test off (`with_tolerance_cost(0.0)`), so that only the
//! gradient test and the iteration limit stop either. The rest is each
//! library's default (see `docs/optim.md` for what differs).

use std::cell::Cell;
use std::time::{Duration, Instant};

use argmin::core::{CostFunction, Error, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use optim::argmin_bridge::ArgminObjective;
use optim::{Counted, Lbfgs, MoreThuente, Objective};

/// The memory `m` of both solvers.
pub const MEMORY: usize = 5;
/// Sufficient-decrease constant of both line searches.
pub const C1: f64 = 1e-4;
/// Curvature constant of both line searches.
pub const C2: f64 = 0.9;

/// Our L-BFGS with the comparison's settings.
pub fn ours(gtol: f64, max_iterations: usize) -> Lbfgs {
    Lbfgs::default()
        .with_memory(MEMORY)
        .expect("m ≥ 1")
        .with_line_search(MoreThuente::new(C1, C2).expect("0 < c₁ < c₂ < 1"))
        .with_gradient_tolerance(gtol)
        .with_max_iterations(max_iterations)
}

/// argmin's L-BFGS on `Vec<f64>`.
pub type ArgminLbfgs = LBFGS<MoreThuenteLineSearch<Vec<f64>, Vec<f64>, f64>, Vec<f64>, Vec<f64>, f64>;

/// argmin's L-BFGS with the comparison's settings (its iteration limit is
/// the executor's `max_iters`).
pub fn argmin_solver(gtol: f64) -> ArgminLbfgs {
    let line_search = MoreThuenteLineSearch::new().with_c(C1, C2).expect("0 < c₁ < c₂ < 1");
    LBFGS::new(line_search, MEMORY)
        .with_tolerance_grad(gtol)
        .expect("gtol ≥ 0")
        .with_tolerance_cost(0.0)
        .expect("0 ≥ 0")
}

/// An objective that adds up the wall time spent inside its calls.
#[derive(Clone, Debug)]
pub struct Timed<O> {
    inner: O,
    spent: Duration,
}

impl<O: Objective> Timed<O> {
    /// Wrap `inner` with nothing spent yet.
    pub fn new(inner: O) -> Self {
        Self {
            inner,
            spent: Duration::ZERO,
        }
    }

    /// Time spent inside `value`, `gradient` and `value_and_gradient`.
    pub fn spent(&self) -> Duration {
        self.spent
    }
}

impl<O: Objective> Objective for Timed<O> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn value(&mut self, x: &[f64]) -> f64 {
        let t = Instant::now();
        let v = self.inner.value(x);
        self.spent += t.elapsed();
        v
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        let t = Instant::now();
        self.inner.gradient(x, g);
        self.spent += t.elapsed();
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let t = Instant::now();
        let v = self.inner.value_and_gradient(x, g);
        self.spent += t.elapsed();
        v
    }
}

/// An argmin problem that adds up the time spent inside its `cost` and
/// `gradient` calls: with [`ArgminObjective`] inside, that is the objective
/// plus the bridge (a length check, a `RefCell` borrow, and the gradient's
/// new `Vec`, which argmin's `Gradient` trait returns by value).
pub struct TimedCalls<P> {
    inner: P,
    spent: Cell<Duration>,
}

impl<P> TimedCalls<P> {
    /// Wrap `inner` with nothing spent yet.
    pub fn new(inner: P) -> Self {
        Self {
            inner,
            spent: Cell::new(Duration::ZERO),
        }
    }

    fn timed<T>(&self, call: impl FnOnce(&P) -> T) -> T {
        let t = Instant::now();
        let out = call(&self.inner);
        self.spent.set(self.spent.get() + t.elapsed());
        out
    }
}

impl<P: CostFunction> CostFunction for TimedCalls<P> {
    type Param = P::Param;
    type Output = P::Output;
    fn cost(&self, x: &Self::Param) -> Result<Self::Output, Error> {
        self.timed(|p| p.cost(x))
    }
}

impl<P: Gradient> Gradient for TimedCalls<P> {
    type Param = P::Param;
    type Gradient = P::Gradient;
    fn gradient(&self, x: &Self::Param) -> Result<Self::Gradient, Error> {
        self.timed(|p| p.gradient(x))
    }
}

/// One timed run of a fixed number of iterations.
#[derive(Clone, Copy, Debug)]
pub struct TimedRun {
    /// Iterations completed.
    pub iterations: usize,
    /// Evaluations of `f`.
    pub values: usize,
    /// Evaluations of `∇f`.
    pub gradients: usize,
    /// Wall time of the whole run (setup included, the caller's copy of the
    /// start excluded).
    pub total: Duration,
    /// Time inside the objective's own calls.
    pub objective: Duration,
    /// Time inside the solver's calls of its problem: for ours the same as
    /// `objective`; for argmin the objective plus the bridge.
    pub calls: Duration,
}

impl TimedRun {
    /// `(total − objective) / iterations`, in seconds.
    pub fn overhead_per_iteration(&self) -> f64 {
        self.total.saturating_sub(self.objective).as_secs_f64() / self.iterations.max(1) as f64
    }

    /// `(total − calls) / iterations`, in seconds: argmin's own work, without
    /// what the bridge adds.
    pub fn solver_only_per_iteration(&self) -> f64 {
        self.total.saturating_sub(self.calls).as_secs_f64() / self.iterations.max(1) as f64
    }
}

/// Ours, `iterations` iterations from `x0` with the gradient test off.
pub fn time_ours<O: Objective>(f: O, x0: &[f64], iterations: usize) -> TimedRun {
    let mut f = Timed::new(f);
    let mut x = x0.to_vec();
    let solver = ours(0.0, iterations);
    let t = Instant::now();
    let report = solver.minimize(&mut f, &mut x).expect("a valid start");
    let total = t.elapsed();
    std::hint::black_box(&x);
    TimedRun {
        iterations: report.iterations,
        values: report.evaluations.values,
        gradients: report.evaluations.gradients,
        total,
        objective: f.spent(),
        calls: f.spent(),
    }
}

/// argmin's, `iterations` iterations from `x0` with the gradient test off,
/// on `f` through [`ArgminObjective`].
pub fn time_argmin<O: Objective>(f: O, x0: &[f64], iterations: usize) -> TimedRun {
    let problem = TimedCalls::new(ArgminObjective::new(Counted::new(Timed::new(f))));
    let x = x0.to_vec();
    let solver = argmin_solver(0.0);
    let t = Instant::now();
    let result = Executor::new(problem, solver)
        .configure(|s| s.param(x).max_iters(iterations as u64))
        .run()
        .expect("argmin's L-BFGS ran");
    let total = t.elapsed();
    let done = result.state().get_iter() as usize;
    let mut problem = result.problem;
    let calls = problem.take_problem().expect("the problem is handed back");
    let counted = calls.inner.into_inner();
    let evaluations = counted.evaluations();
    TimedRun {
        iterations: done,
        values: evaluations.values,
        gradients: evaluations.gradients,
        total,
        objective: counted.inner().spent(),
        calls: calls.spent.get(),
    }
}
