//! DEC, Grippo, Manno & Sciandrone (2016), Algorithm 3: block decomposition
//! of the error (5) into the output weights (Step A) and one hidden unit's
//! input weights at a time (Step B).

use std::time::{Duration, Instant};

use ndarray::{Array2, ArrayView2};
use optim::{Armijo, ConjugateGradient, Counted, Evaluations, FnOperator, Lbfgs, Objective, Termination};

use super::error_fn::ErrorFunction;
use super::neuron::NeuronObjective;
use crate::error::{ModelError, Result};

/// The settings of DEC (Algorithm 3) that the paper fixes or leaves open.
///
/// Fixed by the paper (§VI-B): Step A with `h = 0` solves the ridge problem
/// in `λ` by conjugate gradient to `‖∇_λE‖ ≤ 10⁻⁶ ‖H̃ᵀu‖` (rule (38), read on
/// the normal equations: CG's residual); Step B's `ŵ_j` comes from L-BFGS
/// with at most 100 iterations and accuracy `10⁻²` (`lbfgs.f`'s test
/// `‖∇‖ ≤ 10⁻² max(1, ‖w_j‖)`), started at the Armijo point so that (25)
/// holds whenever it decreases.
///
/// Left open by the paper and chosen here: Armijo's `a = 1`, `γ = 10⁻⁴`,
/// `δ = 0.5`; the skip test's `θ = 0.5` (`‖∇_{w_j}E‖ ≤ θᵏ`, which after the
/// first sweep skips only units already stationary to rounding); `τ = 10⁻⁶`
/// in the acceptance test (26).
///
/// Beyond the paper (both off by default, so that DEC(maxiter) is the
/// paper's): a test on progress, the algorithm model's "termination test"
/// (Algorithm 1, DAM) read as a relative decrease of `E` over a major
/// iteration, and a time limit.
#[derive(Clone, Debug, PartialEq)]
pub struct DecSettings {
    /// `maxiter ≥ 1`: the number of full Step A solves; `maxiter − 1` sweeps
    /// over the hidden units run between them (DEC(2): one sweep).
    pub maxiter: usize,
    /// Armijo's method (the paper's Algorithm 2).
    pub armijo: Armijo,
    /// `θ ∈ (0, 1)` of the skip test.
    pub theta: f64,
    /// `τ > 0` of the acceptance test (26).
    pub tau: f64,
    /// The inner L-BFGS.
    pub lbfgs: Lbfgs,
    /// CG's relative tolerance in Step A (rule (38)).
    pub cg_tolerance: f64,
    /// Stop after a major iteration that decreased `E` by at most this,
    /// relative to `max{E, 1}` (`(E_{k−1} − E_k) ≤ tol·max{E_{k−1}, 1}`,
    /// checked after every Step A with `h = 0` from the second on). `None`,
    /// the default: the paper's DEC, which stops after `maxiter` Step A
    /// solves only.
    pub relative_decrease: Option<f64>,
    /// Stop once training has taken this long, checked before every unit's
    /// Step B (the inner L-BFGS gets the time that is left), so that a run
    /// overruns it by at most one unit step or one Step A with `h = 0` (the
    /// first always runs: it gives the output weights). A sweep cut short
    /// leaves the network consistent (each unit's `λ_j` is set right after
    /// its `w_j`); its `E` ends the trace. `None`, the default: no limit.
    pub time_limit: Option<Duration>,
}

impl DecSettings {
    /// The settings above with `maxiter` major iterations.
    pub fn new(maxiter: usize) -> Self {
        Self {
            maxiter,
            armijo: Armijo::new(1.0, 1e-4, 0.5).expect("constant parameters in range"),
            theta: 0.5,
            tau: 1e-6,
            lbfgs: Lbfgs::default()
                .with_max_iterations(100)
                .with_gradient_tolerance(1e-2)
                .with_gradient_relative_to_x(true),
            cg_tolerance: 1e-6,
            relative_decrease: None,
            time_limit: None,
        }
    }
}

/// One major iteration of DEC as the observer and the report see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecIteration {
    /// Major iterations completed (`1..=maxiter`); the last of a run stopped
    /// by the time limit inside a sweep counts that partial sweep.
    pub iteration: usize,
    /// `E(λ, w)` after it.
    pub objective: f64,
    /// Time since the start of training.
    pub elapsed: Duration,
}

/// What a DEC run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecReport {
    /// `E` after every major iteration (the first: after the first Step A).
    pub trace: Vec<DecIteration>,
    /// Step B's on a hidden unit (skipped ones included).
    pub unit_steps: usize,
    /// Units skipped by the test `‖∇_{w_j}E‖ ≤ θᵏ`.
    pub skipped: usize,
    /// Algorithm 3's counter `k` at the end: one per Step A with `h = 0`
    /// and one per unit's Step B (a Step A with `h = j` does not count), so
    /// `maxiter + (maxiter − 1)·N` after a run to `maxiter`.
    pub k: usize,
    /// Steps that took L-BFGS's point (it satisfied (25)–(26)).
    pub lbfgs_accepted: usize,
    /// Steps that took the Armijo point instead.
    pub armijo_taken: usize,
    /// Steps where Armijo found no decrease (a unit stationary to rounding;
    /// its weights were kept).
    pub no_decrease: usize,
    /// Evaluations of the one-unit error in Step B (each `O(P·n)`).
    pub unit_evaluations: Evaluations,
    /// L-BFGS iterations over all units.
    pub lbfgs_iterations: usize,
    /// CG iterations over all Step A solves (all outputs).
    pub cg_iterations: usize,
    /// Step A solves (one per output) that stopped at CG's iteration limit
    /// (`10·N + 100`) before rule (38) held: possible only when `τ_λ = 0`
    /// and `H` is (nearly) rank deficient. Their `λ` still decreased `E`.
    pub cg_unconverged: usize,
    /// Time spent in Step B (the unit steps with their Step A updates).
    pub unit_time: Duration,
    /// Every unit step that moved the weights, in order.
    pub unit_records: Vec<UnitStep>,
    /// `E` after every step `k` of Algorithm 3 (each Step A with `h = 0`,
    /// each unit's Step B, each Step A with `h = j`), computed from the
    /// stored outputs: the sequence the paper proves non-increasing (31).
    pub steps: Vec<f64>,
    /// Why DEC stopped: [`Termination::MaxIterations`] after `maxiter`
    /// Step A solves (the paper's rule), [`Termination::RelativeDecrease`]
    /// or [`Termination::TimeLimit`] ([`DecSettings`]); `None` only in a
    /// report not made by a run.
    pub termination: Option<Termination>,
}

/// Which point a unit step took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitPoint {
    /// L-BFGS's point `ŵ_j`, which satisfied (25) and (26).
    Lbfgs,
    /// The Armijo point `w_j + α d_j`.
    Armijo,
}

/// One unit step of Step B, in the one-unit error's values (which differ
/// from `E` by a constant): what the acceptance tests (25)–(26) and the
/// bound (29) compare.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitStep {
    /// The unit `j`.
    pub unit: usize,
    /// The error at `w_j^k`.
    pub before: f64,
    /// The error at the Armijo point.
    pub armijo: f64,
    /// The error at L-BFGS's point `ŵ_j`, when L-BFGS ran.
    pub lbfgs: Option<f64>,
    /// The point taken.
    pub taken: UnitPoint,
    /// The error at the point taken.
    pub after: f64,
    /// `‖w_j^{k+1} − w_j^k‖²`.
    pub moved_sq: f64,
}

/// The trained weights and the report.
pub(crate) struct DecOutcome {
    pub(crate) w: Array2<f64>,
    pub(crate) lambda: Array2<f64>,
    pub(crate) report: DecReport,
}

/// Runs DEC from the input weights `w0` (N×(n+1)) and `λ = 0`, calling
/// `observer` after each major iteration.
pub(crate) fn train(
    error: &ErrorFunction<'_>,
    w0: Array2<f64>,
    settings: &DecSettings,
    mut observer: impl FnMut(&DecIteration),
) -> Result<DecOutcome> {
    let start = Instant::now();
    let x = error.x().as_standard_layout().into_owned();
    let y = error.y().as_standard_layout().into_owned();
    let (p, n, m) = (x.nrows(), x.ncols(), y.ncols());
    let units = w0.nrows();
    let mut state = State {
        w: w0,
        lambda: Array2::zeros((units, m)),
        ht: Array2::zeros((units, p)),
        phi: Array2::zeros((p, m)),
    };
    let x_flat = x.as_slice().expect("standard layout");
    // Hᵀ, one row per unit.
    for j in 0..units {
        let obj = NeuronObjective {
            x: x_flat,
            n,
            b: &[],
            lambda: &[],
            tau_w: 0.0,
        };
        let w_j = state.w.row(j).to_vec();
        obj.activations(&w_j, state.ht.row_mut(j).as_slice_mut().expect("standard layout"));
    }
    let mut report = DecReport::default();
    let mut k: i32 = 0;
    let mut b = vec![0.0; p * m];
    let mut w_j = vec![0.0; n + 1];
    let mut grad = vec![0.0; n + 1];
    let mut d = vec![0.0; n + 1];
    let mut trial = Vec::new();
    let out_of_time = || settings.time_limit.is_some_and(|t| start.elapsed() >= t);
    let mut termination = Termination::MaxIterations;
    'major: for iteration in 1..=settings.maxiter.max(1) {
        // Step A, h = 0: the ridge problem in λ by CG, then φ = Hλ.
        let (iterations, unconverged) = step_a_full(error, &mut state, &y, settings.cg_tolerance)?;
        report.cg_iterations += iterations;
        report.cg_unconverged += unconverged;
        k = k.saturating_add(1);
        let objective = state.objective(error, &y);
        report.steps.push(objective);
        let it = DecIteration {
            iteration,
            objective,
            elapsed: start.elapsed(),
        };
        observer(&it);
        let previous = report.trace.last().map(|t| t.objective);
        report.trace.push(it);
        if iteration >= settings.maxiter {
            break;
        }
        if let (Some(tol), Some(prev)) = (settings.relative_decrease, previous) {
            if prev - objective <= tol * prev.max(1.0) {
                termination = Termination::RelativeDecrease;
                break;
            }
        }
        let sweep = Instant::now();
        for j in 0..units {
            if out_of_time() {
                termination = Termination::TimeLimit;
                if j > 0 {
                    // A partial sweep: its E ends the trace.
                    let it = DecIteration {
                        iteration: iteration + 1,
                        objective: state.objective(error, &y),
                        elapsed: start.elapsed(),
                    };
                    observer(&it);
                    report.trace.push(it);
                }
                report.unit_time += sweep.elapsed();
                break 'major;
            }
            // Step B on unit j: b = φ − g_j λ_jᵀ − Y.
            state.residual_without(j, &y, &mut b);
            let lam_j = state.lambda.row(j).to_vec();
            w_j.copy_from_slice(state.w.row(j).as_slice().expect("standard layout"));
            let mut obj = Counted::new(NeuronObjective {
                x: x_flat,
                n,
                b: &b,
                lambda: &lam_j,
                tau_w: error.tau_w(),
            });
            report.unit_steps += 1;
            let f0 = obj.value_and_gradient(&w_j, &mut grad);
            let gnorm = norm(&grad);
            if gnorm <= settings.theta.powi(k) {
                report.skipped += 1;
            } else {
                let mut search = UnitSearch {
                    w_j: &mut w_j,
                    grad: &grad,
                    d: &mut d,
                    trial: &mut trial,
                };
                search.run(&mut obj, j, f0, gnorm, settings, start, &mut report);
            }
            report.unit_evaluations.values += obj.evaluations().values;
            report.unit_evaluations.gradients += obj.evaluations().gradients;
            k = k.saturating_add(1);
            // (27): the new g_j and φ = b + Y + g_j λ_jᵀ.
            state
                .w
                .row_mut(j)
                .as_slice_mut()
                .expect("standard layout")
                .copy_from_slice(&w_j);
            {
                let obj = NeuronObjective {
                    x: x_flat,
                    n,
                    b: &b,
                    lambda: &lam_j,
                    tau_w: 0.0,
                };
                obj.activations(&w_j, state.ht.row_mut(j).as_slice_mut().expect("standard layout"));
            }
            state.refresh_phi(j, &y, &b);
            report.steps.push(state.objective(error, &y));
            // Step A, h = j: λ_j in closed form, then (28). Algorithm 3
            // sets k = k + 1 after Step A with h = 0 and after each Step B,
            // not after this one: k counts N + 1 per sweep.
            state.solve_lambda_j(j, &b, error.tau_lambda());
            state.refresh_phi(j, &y, &b);
            report.steps.push(state.objective(error, &y));
        }
        report.unit_time += sweep.elapsed();
    }
    report.termination = Some(termination);
    report.k = usize::try_from(k).unwrap_or(0);
    Ok(DecOutcome {
        w: state.w,
        lambda: state.lambda,
        report,
    })
}

/// Step B's search on one unit (Algorithm 3, (i)–(iv)): an Armijo step
/// along `−∇`, then L-BFGS from the Armijo point, whose point is taken
/// only under (25) and (26); `w_j` becomes the point taken.
struct UnitSearch<'a> {
    w_j: &'a mut [f64],
    grad: &'a [f64],
    d: &'a mut [f64],
    trial: &'a mut Vec<f64>,
}

impl UnitSearch<'_> {
    /// Search from `w_j` with value `f0` and gradient norm `gnorm` (L-BFGS
    /// gets the time left of the fit started at `start`); record the step
    /// in `report`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        obj: &mut Counted<NeuronObjective<'_>>,
        j: usize,
        f0: f64,
        gnorm: f64,
        settings: &DecSettings,
        start: Instant,
        report: &mut DecReport,
    ) {
        for (di, gi) in self.d.iter_mut().zip(self.grad) {
            *di = -gi;
        }
        match settings
            .armijo
            .search(obj, self.w_j, f0, -gnorm * gnorm, self.d, self.trial)
        {
            Ok(step) => {
                // (iii) L-BFGS from the Armijo point; (iv) accepted
                // only under (25) and (26).
                let mut w_hat = self.trial.clone();
                let w_j = &*self.w_j;
                let dist = |a: &[f64]| a.iter().zip(w_j).map(|(p, q)| (p - q) * (p - q)).sum::<f64>();
                let limited;
                let lbfgs = match settings.time_limit {
                    Some(t) => {
                        limited = settings
                            .lbfgs
                            .clone()
                            .with_time_limit(t.saturating_sub(start.elapsed()));
                        &limited
                    }
                    None => &settings.lbfgs,
                };
                let lbfgs_value = match lbfgs.minimize(obj, &mut w_hat) {
                    Ok(r) => {
                        report.lbfgs_iterations += r.iterations;
                        Some(r.value)
                    }
                    Err(_) => None,
                };
                let accepted = lbfgs_value.is_some_and(|v| v <= step.value && v <= f0 - settings.tau * dist(&w_hat));
                let (taken, after, moved_sq) = if accepted {
                    report.lbfgs_accepted += 1;
                    (UnitPoint::Lbfgs, lbfgs_value.unwrap_or(step.value), dist(&w_hat))
                } else {
                    report.armijo_taken += 1;
                    w_hat.copy_from_slice(self.trial);
                    (UnitPoint::Armijo, step.value, dist(self.trial))
                };
                self.w_j.copy_from_slice(&w_hat);
                report.unit_records.push(UnitStep {
                    unit: j,
                    before: f0,
                    armijo: step.value,
                    lbfgs: lbfgs_value,
                    taken,
                    after,
                    moved_sq,
                });
            }
            Err(_) => report.no_decrease += 1,
        }
    }
}

/// The network's state between steps: weights, `Hᵀ` (N×P) and the outputs
/// `φ` (P×M) kept current by (27)–(28).
struct State {
    w: Array2<f64>,
    lambda: Array2<f64>,
    ht: Array2<f64>,
    phi: Array2<f64>,
}

impl State {
    /// `b = φ − g_j λ_jᵀ − Y` (P×M, row-major): the residual without unit
    /// `j`, the right-hand side of Step B on it.
    fn residual_without(&self, j: usize, y: &Array2<f64>, b: &mut [f64]) {
        let m = y.ncols();
        let g = self.ht.row(j);
        let lam = self.lambda.row(j);
        for (pp, bp) in b.chunks_exact_mut(m).enumerate() {
            for (q, bq) in bp.iter_mut().enumerate() {
                *bq = self.phi[[pp, q]] - g[pp] * lam[q] - y[[pp, q]];
            }
        }
    }

    /// `φ = b + Y + g_j λ_jᵀ` ((27) after a new `g_j`, (28) after a new
    /// `λ_j`).
    fn refresh_phi(&mut self, j: usize, y: &Array2<f64>, b: &[f64]) {
        let m = y.ncols();
        let g = self.ht.row(j);
        let lam = self.lambda.row(j);
        for (pp, bp) in b.chunks_exact(m).enumerate() {
            for (q, bq) in bp.iter().enumerate() {
                self.phi[[pp, q]] = bq + y[[pp, q]] + g[pp] * lam[q];
            }
        }
    }

    /// Step A on unit `j` (`h = j`): `λ_j = −bᵀ g_j / (‖g_j‖² + τ_λ)`
    /// column by column (0 where the denominator is 0).
    fn solve_lambda_j(&mut self, j: usize, b: &[f64], tau_lambda: f64) {
        let (p, m) = (self.phi.nrows(), self.phi.ncols());
        let g = self.ht.row(j);
        let gg: f64 = g.iter().map(|v| v * v).sum::<f64>() + tau_lambda;
        for q in 0..m {
            let num: f64 = -(0..p).map(|pp| b[pp * m + q] * g[pp]).sum::<f64>();
            self.lambda[[j, q]] = if gg > 0.0 { num / gg } else { 0.0 };
        }
    }

    /// `E(λ, w)` from the stored outputs.
    fn objective(&self, error: &ErrorFunction<'_>, y: &Array2<f64>) -> f64 {
        let sq = |a: ArrayView2<'_, f64>| a.iter().map(|v| v * v).sum::<f64>();
        0.5 * self.phi.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()
            + 0.5 * error.tau_lambda() * sq(self.lambda.view())
            + 0.5 * error.tau_w() * sq(self.w.view())
    }
}

/// Step A with `h = 0`: `(HᵀH + τ_λI) λ = HᵀY` by CG from the current `λ`,
/// one output at a time, on the Gram matrix `HᵀH` (formed once: `P·N²`
/// flops, against `2PN` per CG iteration matrix-free); then `φ = Hλ`.
/// Returns the CG iterations and the number of outputs whose solve stopped
/// at the iteration limit.
fn step_a_full(error: &ErrorFunction<'_>, state: &mut State, y: &Array2<f64>, tol: f64) -> Result<(usize, usize)> {
    let units = state.w.nrows();
    let gram = state.ht.dot(&state.ht.t());
    let rhs = state.ht.dot(y);
    let tau = error.tau_lambda();
    let cg = ConjugateGradient::new(tol, 10 * units + 100).map_err(|e| ModelError::Training {
        trainer: "DEC",
        reason: e.to_string(),
    })?;
    let (mut iterations, mut unconverged) = (0, 0);
    for q in 0..y.ncols() {
        let mut op = FnOperator::new(units, |v: &[f64], out: &mut [f64]| {
            for (i, o) in out.iter_mut().enumerate() {
                *o = gram.row(i).iter().zip(v).map(|(a, b)| a * b).sum::<f64>() + tau * v[i];
            }
        });
        let b: Vec<f64> = rhs.column(q).to_vec();
        let mut lam: Vec<f64> = state.lambda.column(q).to_vec();
        let r = cg.solve(&mut op, &b, &mut lam).map_err(|e| ModelError::Training {
            trainer: "DEC",
            reason: format!("Step A (ridge problem in λ, output {q}): {e}"),
        })?;
        iterations += r.iterations;
        unconverged += usize::from(!r.converged);
        state.lambda.column_mut(q).assign(&ndarray::Array1::from(lam));
    }
    state.phi = state.ht.t().dot(&state.lambda);
    Ok((iterations, unconverged))
}

fn norm(a: &[f64]) -> f64 {
    a.iter().map(|v| v * v).sum::<f64>().sqrt()
}
