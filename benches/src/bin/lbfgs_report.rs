//! `lbfgs-report`: our L-BFGS beside argmin's (the L-BFGS part of
//! `cargo xtask bench`).
//!
//! 1. **The Moré–Garbow–Hillstrom problems** of `optim::problems` and the
//!    extended Rosenbrock function in 100 variables, from their standard
//!    starts: iterations, evaluations, final value, distance to the known
//!    minimizer and why each stopped, for `optim::Lbfgs` and argmin's
//!    `LBFGS` with `MoreThuenteLineSearch` under the same memory, line-search
//!    constants, gradient tolerance and iteration limit.
//! 2. **Per-iteration overhead excluding the objective** on the extended
//!    Rosenbrock function in n = 10⁴ and 10⁶ variables (`--quick`: 10⁴ and
//!    10⁵): a fixed number of iterations with the gradient test off, the
//!    time inside the objective's calls subtracted, median of several
//!    repetitions; beside the floor of the two-loop recursion's memory
//!    traffic, `(4m + 2)·n` doubles at a measured read bandwidth.
//!
//! One thread throughout (L-BFGS is BLAS-1 work in plain Rust).
//!
//! Usage: `lbfgs-report [--quick] [--out FILE] [--reps N]`.

#[path = "../lbfgs_timing.rs"]
#[allow(dead_code)]
mod lbfgs_timing;

use std::cell::Cell;
use std::fmt::Write as _;
use std::rc::Rc;
use std::time::Instant;

use argmin::core::{CostFunction, Executor, Gradient, State, TerminationReason};
use benches::{median, report_header, ReportArgs};
use lbfgs_timing::{argmin_solver, ours, time_argmin, time_ours, TimedRun, C1, C2, MEMORY};
use optim::argmin_bridge::ArgminObjective;
use optim::problems::{self, ExtendedRosenbrock, SumOfSquares, TestProblem};
use optim::Objective;

/// The absolute gradient tolerance of the problem table.
const GTOL: f64 = 1e-10;
/// The iteration limit of the problem table.
const MAX_ITERATIONS: usize = 10_000;
/// Iterations per timed run.
const TIMED_ITERATIONS: usize = 30;

/// Runs our L-BFGS and argmin's on the MGH problems and times their
/// per-iteration overhead at large n.
#[derive(clap::Parser)]
#[command(name = "lbfgs-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
}

fn main() {
    let cli: Args = benches::start();
    benches::finish("lbfgs-report", run(&cli.report));
}

/// One problem of the table.
struct Case<O> {
    name: String,
    make: Box<dyn Fn() -> O>,
    start: Vec<f64>,
    minimum: f64,
    minimizer: Option<Vec<f64>>,
}

fn mgh<P: TestProblem + Clone + 'static>(p: P) -> Case<SumOfSquares<P>> {
    Case {
        name: p.name().to_string(),
        start: p.start(),
        minimum: p.minimum(),
        minimizer: p.minimizer(),
        make: Box::new(move || SumOfSquares::new(p.clone())),
    }
}

/// How one solver ended on one problem.
struct Outcome {
    iterations: usize,
    values: usize,
    gradients: usize,
    /// `f` and `‖∇f‖` at the point the solver returns, recomputed.
    value: f64,
    gradient_norm: f64,
    x: Vec<f64>,
    stopped: String,
}

fn evaluate<O: Objective>(f: &mut O, x: &[f64]) -> (f64, f64) {
    let mut g = vec![0.0; x.len()];
    let v = f.value_and_gradient(x, &mut g);
    (v, g.iter().map(|a| a * a).sum::<f64>().sqrt())
}

fn run_ours<O: Objective>(case: &Case<O>) -> Outcome {
    let mut f = (case.make)();
    let mut x = case.start.clone();
    match ours(GTOL, MAX_ITERATIONS).minimize(&mut f, &mut x) {
        Ok(r) => {
            let (value, gradient_norm) = evaluate(&mut (case.make)(), &x);
            Outcome {
                iterations: r.iterations,
                values: r.evaluations.values,
                gradients: r.evaluations.gradients,
                value,
                gradient_norm,
                x,
                stopped: r.termination.to_string(),
            }
        }
        Err(e) => Outcome {
            iterations: 0,
            values: 0,
            gradients: 0,
            value: f64::NAN,
            gradient_norm: f64::NAN,
            x,
            stopped: format!("error: {e}"),
        },
    }
}

/// What [`Guarded`] saw, kept outside the problem: argmin drops its
/// problem when a line search ends in an error, counts included.
#[derive(Default)]
struct GuardStats {
    values: Cell<usize>,
    gradients: Cell<usize>,
    /// The iteration-independent index (1-based, values and gradients
    /// together) of the first call at a point that is not finite.
    first_non_finite: Cell<Option<usize>>,
}

/// An argmin problem that counts its calls and fails once there have been
/// [`EVALUATION_CAP`] of them: argmin's Moré–Thuente line search has no
/// iteration limit, and loops for ever once its point is NaN.
struct Guarded<P> {
    inner: P,
    stats: Rc<GuardStats>,
}

/// Calls (values and gradients) after which [`Guarded`] fails.
const EVALUATION_CAP: usize = 40 * MAX_ITERATIONS;

impl<P> Guarded<P> {
    fn count(&self, counter: &Cell<usize>, x: &[f64]) -> Result<(), argmin::core::Error> {
        counter.set(counter.get() + 1);
        let calls = self.stats.values.get() + self.stats.gradients.get();
        if self.stats.first_non_finite.get().is_none() && !x.iter().all(|v| v.is_finite()) {
            self.stats.first_non_finite.set(Some(calls));
        }
        if calls > EVALUATION_CAP {
            return Err(argmin::core::ArgminError::ConditionViolated {
                text: format!("evaluation cap {EVALUATION_CAP} of lbfgs-report reached"),
            }
            .into());
        }
        Ok(())
    }
}

impl<P: CostFunction<Param = Vec<f64>>> CostFunction for Guarded<P> {
    type Param = Vec<f64>;
    type Output = P::Output;
    fn cost(&self, x: &Vec<f64>) -> Result<P::Output, argmin::core::Error> {
        self.count(&self.stats.values, x)?;
        self.inner.cost(x)
    }
}

impl<P: Gradient<Param = Vec<f64>>> Gradient for Guarded<P> {
    type Param = Vec<f64>;
    type Gradient = P::Gradient;
    fn gradient(&self, x: &Vec<f64>) -> Result<P::Gradient, argmin::core::Error> {
        self.count(&self.stats.gradients, x)?;
        self.inner.gradient(x)
    }
}

fn run_argmin<O: Objective>(case: &Case<O>) -> Outcome {
    let stats = Rc::new(GuardStats::default());
    let problem = Guarded {
        inner: ArgminObjective::new((case.make)()),
        stats: Rc::clone(&stats),
    };
    let start = case.start.clone();
    let result = Executor::new(problem, argmin_solver(GTOL))
        .configure(|s| s.param(start).max_iters(MAX_ITERATIONS as u64))
        .run();
    let (values, gradients) = (stats.values.get(), stats.gradients.get());
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            return Outcome {
                iterations: 0,
                values,
                gradients,
                value: f64::NAN,
                gradient_norm: f64::NAN,
                x: case.start.clone(),
                stopped: format!("error: {e}"),
            }
        }
    };
    let state = result.state();
    // argmin hands back its best point (`get_best_param`, what its examples
    // read); say so when the last iterate differs from it.
    let x = state
        .get_best_param()
        .or(state.get_param())
        .cloned()
        .unwrap_or_else(|| case.start.clone());
    let (value, gradient_norm) = evaluate(&mut (case.make)(), &x);
    let mut stopped = match state.get_termination_reason() {
        Some(TerminationReason::SolverConverged) => "converged (‖∇f‖ < gtol; the cost test is off)".to_string(),
        Some(TerminationReason::MaxItersReached) => "iteration limit reached".to_string(),
        Some(reason) => format!("{reason}"),
        None => "not terminated".to_string(),
    };
    let capped = values + gradients > EVALUATION_CAP;
    match (stats.first_non_finite.get(), capped) {
        (Some(at), true) => {
            stopped = format!(
                "**hung**: from evaluation {at} on its points were NaN, and a Moré–Thuente line \
                 search (it has no iteration limit) never ended; stopped by lbfgs-report's cap of \
                 {EVALUATION_CAP} evaluations (counted in the columns)"
            );
        }
        (None, true) => {
            stopped =
                format!("**hung** in a line search; stopped by lbfgs-report's cap of {EVALUATION_CAP} evaluations");
        }
        (Some(at), false) => {
            let _ = write!(stopped, "; its points were NaN from evaluation {at} on");
        }
        (None, false) => {}
    }
    if let Some(last) = state.get_param() {
        if last != &x {
            let (lv, lg) = evaluate(&mut (case.make)(), last);
            let _ = write!(
                stopped,
                "; its last iterate differs from the best: f = {lv:.3e}, ‖∇f‖ = {lg:.1e}"
            );
        }
    }
    Outcome {
        iterations: state.get_iter() as usize,
        values,
        gradients,
        value,
        gradient_norm,
        x,
        stopped,
    }
}

/// Best time of `reps` to read `data` once on this thread, with 8
/// independent accumulators (as `benches::read_once_seconds`, which spawns a
/// thread per pass: about as long as reading the n = 10⁴ buffer itself).
fn read_seconds(data: &[f64], reps: usize) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        let mut acc = [0.0f64; 8];
        for chunk in std::hint::black_box(data).chunks_exact(8) {
            for i in 0..8 {
                acc[i] += chunk[i];
            }
        }
        std::hint::black_box(acc);
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn distance(x: &[f64], xs: &Option<Vec<f64>>) -> String {
    match xs {
        Some(xs) => {
            let d = x.iter().zip(xs).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            format!("{d:.1e}")
        }
        None => "—".into(),
    }
}

fn table_row<O: Objective>(out: &mut String, case: &Case<O>) {
    eprintln!("lbfgs-report: {}…", case.name);
    for (solver, o) in [("optim", run_ours(case)), ("argmin", run_argmin(case))] {
        // A non-zero minimum (Freudenstein–Roth's local one): the gap shows
        // what three digits would hide.
        let value = if case.minimum == 0.0 {
            format!("{:.3e}", o.value)
        } else {
            format!("{:.6e} (f − f* = {:.1e})", o.value, o.value - case.minimum)
        };
        let _ = writeln!(
            out,
            "| {} ({}) | {solver} | {} | {} | {} | {value} | {:.1e} | {} | {} |",
            case.name,
            case.minimum,
            o.iterations,
            o.values,
            o.gradients,
            o.gradient_norm,
            distance(&o.x, &case.minimizer),
            o.stopped
        );
    }
}

/// Writes the report's header, then its two sections (the MGH problems,
/// the per-iteration overhead) and the total run time.
fn run(args: &ReportArgs) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let reps = args.reps_or(if args.quick { 3 } else { 7 });
    let sizes: [usize; 2] = if args.quick {
        [10_000, 100_000]
    } else {
        [10_000, 1_000_000]
    };

    let mut out = report_header(
        "L-BFGS: `optim::Lbfgs` beside argmin 0.11",
        "lbfgs-report",
        args.quick,
        &format!("1 thread; {reps} repetitions per timing (median)"),
    );
    let _ = writeln!(
        out,
        "- Both: memory m = {MEMORY}, Moré–Thuente with c₁ = {C1:e}, c₂ = {C2}; argmin's `LBFGS` with \
         `MoreThuenteLineSearch` on `Vec<f64>` through `optim::argmin_bridge::ArgminObjective`, \
         `with_tolerance_cost(0.0)` so that only its gradient test stops it\n"
    );

    mgh_section(&mut out);
    overhead_section(&mut out, &sizes, reps);
    let _ = writeln!(out, "\nTotal run time: {:.0} s.", started.elapsed().as_secs_f64());
    benches::write_report("lbfgs-report", &out, args.out.as_deref())
}

/// Section 1: runs our L-BFGS and argmin's on every MGH problem and the
/// extended Rosenbrock function in 100 variables from their standard
/// starts, and writes the table of how each ended.
fn mgh_section(out: &mut String) {
    let _ = writeln!(
        out,
        "### Moré–Garbow–Hillstrom problems, standard starts\n\n\
         Gradient tolerance ‖∇f‖ ≤ {GTOL:e} (absolute; argmin's `with_tolerance_grad`), at most \
         {MAX_ITERATIONS} iterations. Value and gradient evaluations are counted at the objective \
         (ours evaluates both at every line-search trial; argmin calls `cost` and `gradient` \
         separately). Final f and ‖∇f‖ are recomputed at the point each returns (argmin: its best \
         point).\n"
    );
    let _ = writeln!(
        out,
        "| problem (f*) | solver | iterations | values | gradients | final f | final ‖∇f‖ | ‖x − x*‖ | stopped |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---|");
    macro_rules! rows {
        ($($p:expr),* $(,)?) => {$(
            table_row(out, &mgh($p));
        )*};
    }
    rows!(
        problems::Rosenbrock,
        problems::FreudensteinRoth,
        problems::PowellBadlyScaled,
        problems::BrownBadlyScaled,
        problems::Beale,
        problems::HelicalValley,
        problems::PowellSingular,
        problems::Wood,
    );
    let ext = ExtendedRosenbrock::new(100);
    table_row(
        out,
        &Case {
            name: "extended Rosenbrock, n = 100".into(),
            start: ext.start(),
            minimum: 0.0,
            minimizer: Some(vec![1.0; 100]),
            make: Box::new(move || ext),
        },
    );
}

/// Section 2: times the per-iteration overhead of both solvers, objective
/// excluded, on the extended Rosenbrock function at every n of `sizes`,
/// and writes its table and the memory-traffic floor of each n.
fn overhead_section(out: &mut String, sizes: &[usize], reps: usize) {
    let _ = writeln!(
        out,
        "\n### Per-iteration overhead, objective excluded\n\n\
         Extended Rosenbrock from its standard start, {TIMED_ITERATIONS} iterations with the \
         gradient test off; overhead = (wall time of the run − time inside the objective's calls) \
         / iterations, setup (allocating the solver's vectors) included. argmin's problem is \
         timed twice: inside the objective (its overhead, as ours) and around each `cost`/`gradient` \
         call of the bridge (which adds a `Vec` per gradient, as argmin's `Gradient` returns one). \
         Floor: the two-loop recursion reads the m pairs (s, y) twice and g once and writes d, \
         (4m + 2)·n doubles, at the read bandwidth measured on a buffer of (2m + 2)·n doubles \
         (the pairs, g and d: the footprint of the recursion) by a plain read loop on this thread, \
         best of 5 to 200 passes, median over the repetitions.\n"
    );
    let _ = writeln!(
        out,
        "| n | solver | iterations | values / gradients per run | objective per iteration (µs) | overhead per iteration: median (min) (µs) | × floor | argmin alone, bridge calls excluded (µs) | argmin / ours |"
    );
    let _ = writeln!(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut floors = vec![];
    for &n in sizes {
        floors.push(overhead_rows(out, n, reps));
    }
    let _ = writeln!(out);
    for (n, bandwidth, floor) in floors {
        let _ = writeln!(
            out,
            "- n = {n}: read bandwidth on {:.1} MB {:.1} GB/s; floor (4m + 2)·n·8 B = {:.1} MB per iteration: **{:.0} µs**",
            ((2 * MEMORY + 2) * n * 8) as f64 / 1e6,
            bandwidth / 1e9,
            ((4 * MEMORY + 2) * n * 8) as f64 / 1e6,
            floor * 1e6
        );
    }
}

/// Times `reps` runs of each solver at `n` (after a warm-up), each beside a
/// measure of the read bandwidth, and writes their two rows of the overhead
/// table. Returns `(n, bandwidth, floor)`: the median bandwidth (B/s) and
/// the two-loop recursion's floor per iteration at it (seconds).
fn overhead_rows(out: &mut String, n: usize, reps: usize) -> (usize, f64, f64) {
    eprintln!("lbfgs-report: overhead at n = {n}…");
    let f = ExtendedRosenbrock::new(n);
    let x0 = f.start();
    let buffer = vec![1.0; (2 * MEMORY + 2) * n];
    let (mut ours_runs, mut theirs_runs, mut bandwidths) = (vec![], vec![], vec![]);
    // Warm-up (page faults of the first large allocations, code paths).
    let _ = time_ours(f, &x0, 2);
    let _ = time_argmin(f, &x0, 2);
    for _ in 0..reps {
        // Enough passes for the best to be a warm one at every size.
        let passes = (100_000_000 / (8 * buffer.len())).clamp(5, 200);
        let seconds = read_seconds(&buffer, passes);
        bandwidths.push(std::mem::size_of_val(buffer.as_slice()) as f64 / seconds);
        ours_runs.push(time_ours(f, &x0, TIMED_ITERATIONS));
        theirs_runs.push(time_argmin(f, &x0, TIMED_ITERATIONS));
    }
    let bandwidth = median(bandwidths);
    let floor = ((4 * MEMORY + 2) * n * 8) as f64 / bandwidth;
    let ours_med = median(ours_runs.iter().map(TimedRun::overhead_per_iteration).collect());
    for (solver, runs) in [("optim", &ours_runs), ("argmin", &theirs_runs)] {
        let per_it: Vec<f64> = runs.iter().map(TimedRun::overhead_per_iteration).collect();
        let min = per_it.iter().copied().fold(f64::INFINITY, f64::min);
        let med = median(per_it);
        let r = &runs[0];
        let objective = median(
            runs.iter()
                .map(|r| r.objective.as_secs_f64() / r.iterations.max(1) as f64)
                .collect(),
        );
        let solver_only = if solver == "argmin" {
            format!(
                "{:.0}",
                median(runs.iter().map(TimedRun::solver_only_per_iteration).collect()) * 1e6
            )
        } else {
            "—".into()
        };
        let ratio = if solver == "argmin" {
            format!("**{:.2}×**", med / ours_med)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {n} | {solver} | {} | {} / {} | {:.0} | **{:.0}** ({:.0}) | {:.2} | {solver_only} | {ratio} |",
            r.iterations,
            r.values,
            r.gradients,
            objective * 1e6,
            med * 1e6,
            min * 1e6,
            med / floor,
        );
    }
    (n, bandwidth, floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_runs_count_iterations_and_split_the_time() {
        let f = ExtendedRosenbrock::new(100);
        let x0 = f.start();
        let ours = time_ours(f, &x0, 5);
        assert_eq!(ours.iterations, 5);
        assert!(ours.values >= 6 && ours.gradients == ours.values, "{ours:?}");
        assert!(ours.objective <= ours.total && ours.calls == ours.objective);
        let theirs = time_argmin(f, &x0, 5);
        assert_eq!(theirs.iterations, 5);
        // argmin evaluates the gradient once more at each accepted point.
        assert!(theirs.gradients >= theirs.values + 5, "{theirs:?}");
        assert!(theirs.objective <= theirs.calls && theirs.calls <= theirs.total);
        assert!(ours.overhead_per_iteration() > 0.0 && theirs.solver_only_per_iteration() > 0.0);
    }

    #[test]
    fn both_solve_rosenbrock_to_the_tolerance() {
        let case = mgh(problems::Rosenbrock);
        for o in [run_ours(&case), run_argmin(&case)] {
            assert!(o.gradient_norm <= GTOL, "{}", o.stopped);
            assert!(
                o.stopped.contains("gradient norm below") || o.stopped.starts_with("converged"),
                "{}",
                o.stopped
            );
            assert_eq!(
                distance(&o.x, &case.minimizer).parse::<f64>().map(|d| d < 1e-9),
                Ok(true)
            );
        }
    }

    /// What docs/optim.md reports of argmin 0.11 on Freudenstein–Roth: its
    /// iterates turn NaN at the local minimum and a line search never ends;
    /// the cap ends the run. (If a new argmin fixes this, update the doc.)
    #[test]
    fn argmins_hang_on_freudenstein_roth_is_cut_by_the_cap() {
        let o = run_argmin(&mgh(problems::FreudensteinRoth));
        assert!(o.stopped.starts_with("**hung**"), "{}", o.stopped);
        assert!(o.values + o.gradients > EVALUATION_CAP);
        // Its best point is still the local minimum.
        assert!(
            (o.value - problems::FreudensteinRoth.minimum()).abs() < 1e-10,
            "{}",
            o.value
        );
    }

    #[test]
    fn read_seconds_is_positive() {
        assert!(read_seconds(&vec![1.0; 1 << 12], 3) > 0.0);
    }
}
