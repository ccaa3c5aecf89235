//! The Moré–Thuente line search for the strong Wolfe conditions
//! (Moré & Thuente, *Line search algorithms with guaranteed sufficient
//! decrease*, ACM TOMS 20(3), 1994; MINPACK-2's `dcsrch`/`dcstep`, the search
//! inside Nocedal's `lbfgs.f` that Grippo et al. ran for DEC's Step B).

use super::LineSearchError;
use crate::objective::Objective;

/// A step satisfying the strong Wolfe conditions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WolfeStep {
    /// The step length `α`.
    pub alpha: f64,
    /// `f(x + αd)`.
    pub value: f64,
    /// `∇f(x + αd)ᵀd`.
    pub slope: f64,
    /// Objective evaluations (each a value and a gradient) the search made.
    pub evaluations: usize,
}

/// Moré and Thuente's line search: finds `α > 0` with
///
/// ```text
/// f(x + αd) ≤ f(x) + c₁ α ∇f(x)ᵀd          (sufficient decrease)
/// |∇f(x + αd)ᵀd| ≤ c₂ |∇f(x)ᵀd|            (curvature, strong form)
/// ```
///
/// by safeguarded cubic and quadratic interpolation inside an interval of
/// uncertainty that provably contains such steps (their Theorem 2.2): while
/// `ψ(α) = f(x + αd) − f(x) − c₁α∇f(x)ᵀd` has not yet shown both a
/// non-positive value and a non-negative slope the search works on `ψ`,
/// afterwards on `f` itself. Each trial costs one value and gradient
/// evaluation.
///
/// The defaults are those of Nocedal's `lbfgs.f`: `c₁ = 10⁻⁴`, `c₂ = 0.9`,
/// relative interval width `xtol = ε`, steps in `[10⁻²⁰, 10²⁰]`, at most 20
/// evaluations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoreThuente {
    c1: f64,
    c2: f64,
    xtol: f64,
    step_min: f64,
    step_max: f64,
    max_evaluations: usize,
}

impl Default for MoreThuente {
    fn default() -> Self {
        Self {
            c1: 1e-4,
            c2: 0.9,
            xtol: f64::EPSILON,
            step_min: 1e-20,
            step_max: 1e20,
            max_evaluations: 20,
        }
    }
}

/// Safeguards of `dcsrch`: an extrapolated step lies in
/// `[α + 1.1(α − α_l), α + 4(α − α_l)]`.
const EXTRAPOLATE_LOW: f64 = 1.1;
const EXTRAPOLATE_HIGH: f64 = 4.0;

impl MoreThuente {
    /// The search with sufficient-decrease constant `c₁` and curvature
    /// constant `c₂`, `0 < c₁ < c₂ < 1` (other settings at their defaults).
    ///
    /// # Errors
    /// [`LineSearchError::InvalidParameter`] when the constants are out of
    /// that range.
    pub fn new(c1: f64, c2: f64) -> Result<Self, LineSearchError> {
        if !(c1 > 0.0 && c1 < 1.0) {
            return Err(LineSearchError::InvalidParameter {
                name: "c₁",
                value: c1,
                range: "(0, 1)",
            });
        }
        if !(c2 > c1 && c2 < 1.0) {
            return Err(LineSearchError::InvalidParameter {
                name: "c₂",
                value: c2,
                range: "(c₁, 1)",
            });
        }
        Ok(Self {
            c1,
            c2,
            ..Self::default()
        })
    }

    /// Steps are kept in `[step_min, step_max]`, `0 ≤ step_min < step_max`.
    ///
    /// # Errors
    /// [`LineSearchError::InvalidParameter`] for bounds out of order or not
    /// finite.
    pub fn with_bounds(mut self, step_min: f64, step_max: f64) -> Result<Self, LineSearchError> {
        if !(step_min >= 0.0 && step_min.is_finite()) {
            return Err(LineSearchError::InvalidParameter {
                name: "step_min",
                value: step_min,
                range: "[0, step_max)",
            });
        }
        if !(step_max > step_min && step_max.is_finite()) {
            return Err(LineSearchError::InvalidParameter {
                name: "step_max",
                value: step_max,
                range: "(step_min, ∞)",
            });
        }
        self.step_min = step_min;
        self.step_max = step_max;
        Ok(self)
    }

    /// The search gives up after `n ≥ 1` evaluations.
    #[must_use]
    pub fn with_max_evaluations(mut self, n: usize) -> Self {
        self.max_evaluations = n.max(1);
        self
    }

    /// The sufficient-decrease constant `c₁`.
    pub fn c1(&self) -> f64 {
        self.c1
    }

    /// The curvature constant `c₂`.
    pub fn c2(&self) -> f64 {
        self.c2
    }

    /// Search along `d` from `x`, where `f(x) = fx` and `∇f(x)ᵀd = slope`,
    /// starting with the step `alpha0` (clamped into the step bounds).
    ///
    /// On success `point` holds `x + αd` and `gradient` holds `∇f(x + αd)`
    /// (both resized to `x.len()`); on failure they hold the last trial.
    ///
    /// # Errors
    /// [`LineSearchError::Dimension`] when `x` or `d` does not have the
    /// objective's length; [`LineSearchError::NotDescent`] when `slope` is not
    /// negative and finite; [`LineSearchError::InvalidParameter`] for an
    /// `alpha0` that is not positive and finite;
    /// [`LineSearchError::NoWolfeStep`] when no step satisfying both
    /// conditions was found (the evaluation limit, the interval of
    /// uncertainty shrunk to rounding, or a step bound reached).
    #[allow(clippy::too_many_arguments)]
    pub fn search<O: Objective + ?Sized>(
        &self,
        f: &mut O,
        x: &[f64],
        fx: f64,
        slope: f64,
        d: &[f64],
        alpha0: f64,
        point: &mut Vec<f64>,
        gradient: &mut Vec<f64>,
    ) -> Result<WolfeStep, LineSearchError> {
        let n = f.dim();
        super::check_inputs(n, x, d, slope)?;
        if !(alpha0 > 0.0 && alpha0.is_finite()) {
            return Err(LineSearchError::InvalidParameter {
                name: "α₀",
                value: alpha0,
                range: "(0, ∞)",
            });
        }
        point.resize(n, 0.0);
        gradient.resize(n, 0.0);

        let (finit, ginit) = (fx, slope);
        let gtest = self.c1 * ginit;
        let stp0 = alpha0.clamp(self.step_min, self.step_max);
        let mut state = Search {
            lo: Trial {
                step: 0.0,
                value: finit,
                slope: ginit,
            },
            hi: Trial {
                step: 0.0,
                value: finit,
                slope: ginit,
            },
            bracketed: false,
            stage1: true,
            stmin: 0.0,
            stmax: stp0 + EXTRAPOLATE_HIGH * stp0,
            width: self.step_max - self.step_min,
            width1: 2.0 * (self.step_max - self.step_min),
            cap: f64::INFINITY,
        };
        let mut stp = stp0;
        let fail = |evaluations, reason, lo: Trial| LineSearchError::NoWolfeStep {
            evaluations,
            reason,
            best_alpha: lo.step,
            best_value: lo.value,
        };

        for evaluations in 1..=self.max_evaluations {
            for ((p, xi), di) in point.iter_mut().zip(x).zip(d) {
                *p = xi + stp * di;
            }
            let value = f.value_and_gradient(point, gradient);
            let g = dot(gradient, d);
            if !(value.is_finite() && g.is_finite()) {
                // Outside the domain where f is finite no interpolation is
                // possible: step back halfway towards the best step, and keep
                // later steps below this one.
                state.cap = stp;
                stp = state.lo.step + 0.5 * (stp - state.lo.step);
                if stp <= self.step_min || stp == state.lo.step {
                    return Err(fail(evaluations, WolfeFailure::NotFinite, state.lo));
                }
                continue;
            }
            let trial = Trial {
                step: stp,
                value,
                slope: g,
            };
            let ftest = finit + stp * gtest;
            if state.stage1 && value <= ftest && g >= 0.0 {
                state.stage1 = false;
            }
            if value <= ftest && g.abs() <= self.c2 * (-ginit) {
                return Ok(WolfeStep {
                    alpha: stp,
                    value,
                    slope: g,
                    evaluations,
                });
            }
            if let Some(reason) = self.failure(&state, trial, ftest, gtest, evaluations) {
                return Err(fail(evaluations, reason, state.lo));
            }
            stp = self.next_step(&mut state, trial, ftest, gtest);
        }
        // `max_evaluations ≥ 1`, so the loop returned.
        Err(fail(self.max_evaluations, WolfeFailure::Evaluations, state.lo))
    }

    /// Why the search must stop after the finite `trial` that failed the
    /// Wolfe conditions (`ftest = f(0) + αc₁f'(0)`, `gtest = c₁f'(0)`), if it
    /// must: `dcsrch`'s tests, in its order.
    fn failure(
        &self,
        state: &Search,
        trial: Trial,
        ftest: f64,
        gtest: f64,
        evaluations: usize,
    ) -> Option<WolfeFailure> {
        let (stp, value, g) = (trial.step, trial.value, trial.slope);
        if state.bracketed && (stp <= state.stmin || stp >= state.stmax) {
            return Some(WolfeFailure::Rounding);
        }
        if state.bracketed && state.stmax - state.stmin <= self.xtol * state.stmax {
            return Some(WolfeFailure::IntervalWidth);
        }
        if stp == self.step_max && value <= ftest && g <= gtest {
            return Some(WolfeFailure::StepMax);
        }
        if stp == self.step_min && (value > ftest || g >= gtest) {
            return Some(WolfeFailure::StepMin);
        }
        (evaluations == self.max_evaluations).then_some(WolfeFailure::Evaluations)
    }

    /// The next trial step after `trial`: the interval of uncertainty
    /// updated by [`step`] (on ψ in the first stage, on f after), shrunk by
    /// bisection when it shrank too slowly, clamped to the step bounds and
    /// below the first step whose value was not finite.
    fn next_step(&self, state: &mut Search, trial: Trial, ftest: f64, gtest: f64) -> f64 {
        let mut stp;
        if state.stage1 && trial.value <= state.lo.value && trial.value > ftest {
            // Work on ψ(α) = f(α) − f(0) − c₁αf'(0), whose values and
            // slopes are the modified ones below.
            let modify = |t: Trial| Trial {
                step: t.step,
                value: t.value - t.step * gtest,
                slope: t.slope - gtest,
            };
            let (mut mlo, mut mhi) = (modify(state.lo), modify(state.hi));
            stp = step(
                &mut mlo,
                &mut mhi,
                modify(trial),
                &mut state.bracketed,
                state.stmin,
                state.stmax,
            );
            let restore = |t: Trial| Trial {
                step: t.step,
                value: t.value + t.step * gtest,
                slope: t.slope + gtest,
            };
            state.lo = restore(mlo);
            state.hi = restore(mhi);
        } else {
            stp = step(
                &mut state.lo,
                &mut state.hi,
                trial,
                &mut state.bracketed,
                state.stmin,
                state.stmax,
            );
        }
        let (lo, hi) = (state.lo, state.hi);
        if state.bracketed {
            // Force a sufficient shrink of the interval (bisect when two
            // steps shrank it by less than a factor 0.66 each).
            if (hi.step - lo.step).abs() >= 0.66 * state.width1 {
                stp = lo.step + 0.5 * (hi.step - lo.step);
            }
            state.width1 = state.width;
            state.width = (hi.step - lo.step).abs();
            state.stmin = lo.step.min(hi.step);
            state.stmax = lo.step.max(hi.step);
        } else {
            state.stmin = stp + EXTRAPOLATE_LOW * (stp - lo.step);
            state.stmax = stp + EXTRAPOLATE_HIGH * (stp - lo.step);
        }
        stp = stp.clamp(self.step_min, self.step_max);
        if stp >= state.cap {
            stp = lo.step + 0.5 * (state.cap - lo.step);
        }
        if state.bracketed && (stp <= state.stmin || stp >= state.stmax) {
            if state.stmax - state.stmin <= self.xtol * state.stmax {
                // With rounding in the way, fall back to the best step
                // so far (the next round then reports the failure), as
                // `dcsrch` does.
                stp = lo.step;
            } else {
                // An interpolation outside the interval (possible after
                // the switch from ψ to f, when the far end has the lower
                // f): bisect instead, where `dcsrch` would give up.
                stp = state.stmin + 0.5 * (state.stmax - state.stmin);
            }
        }
        stp
    }
}

/// The state of one search: the best step so far (`lo`, dcsrch's `x`) and
/// the other end of the interval (`hi`, its `y`), whether a minimizer is
/// bracketed, the stage (ψ or f), the bounds of the next step, the last two
/// widths of the interval, and the first step whose value was not finite.
struct Search {
    lo: Trial,
    hi: Trial,
    bracketed: bool,
    stage1: bool,
    stmin: f64,
    stmax: f64,
    width: f64,
    width1: f64,
    cap: f64,
}

/// Why [`MoreThuente::search`] found no step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WolfeFailure {
    /// The evaluation limit was reached.
    Evaluations,
    /// Rounding errors prevent progress (the new step fell outside the
    /// interval of uncertainty).
    Rounding,
    /// The interval of uncertainty is narrower than `xtol` relative to its
    /// end.
    IntervalWidth,
    /// The step reached its upper bound with `f` still decreasing fast: `f`
    /// may be unbounded below along `d`.
    StepMax,
    /// The step reached its lower bound without sufficient decrease.
    StepMin,
    /// `f` or its slope was not finite and halving towards the last good
    /// step did not help.
    NotFinite,
}

impl std::fmt::Display for WolfeFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Evaluations => "evaluation limit reached",
            Self::Rounding => "rounding errors prevent progress",
            Self::IntervalWidth => "interval of uncertainty below xtol",
            Self::StepMax => "step at its upper bound (f unbounded below along d?)",
            Self::StepMin => "step at its lower bound",
            Self::NotFinite => "f not finite along d",
        })
    }
}

/// One evaluated step: `α`, `f(x + αd)`, `∇f(x + αd)ᵀd`.
#[derive(Clone, Copy, Debug)]
struct Trial {
    step: f64,
    value: f64,
    slope: f64,
}

/// `dcstep`: from the interval ends `lo` (the best step so far) and `hi` and
/// a new trial, the next step by safeguarded interpolation (their four cases,
/// §4), and the updated interval.
fn step(lo: &mut Trial, hi: &mut Trial, t: Trial, bracketed: &mut bool, stpmin: f64, stpmax: f64) -> f64 {
    let (stx, fx, dx) = (lo.step, lo.value, lo.slope);
    let (sty, dy) = (hi.step, hi.slope);
    let (stp, fp, dp) = (t.step, t.value, t.slope);
    let sgnd = dp * dx.signum();

    let next = if fp > fx {
        // Case 1: a higher value; the minimizer is bracketed. Cubic or the
        // midpoint of cubic and quadratic, whichever is closer to stx.
        let (theta, mut gamma) = cubic(fx, dx, fp, dp, stx, stp);
        if stp < stx {
            gamma = -gamma;
        }
        let p = (gamma - dx) + theta;
        let q = ((gamma - dx) + gamma) + dp;
        let stpc = stx + p / q * (stp - stx);
        let stpq = stx + (dx / ((fx - fp) / (stp - stx) + dx)) / 2.0 * (stp - stx);
        *bracketed = true;
        if (stpc - stx).abs() < (stpq - stx).abs() {
            stpc
        } else {
            stpc + (stpq - stpc) / 2.0
        }
    } else if sgnd < 0.0 {
        // Case 2: lower value, slopes of opposite sign; bracketed. Cubic or
        // secant, whichever is farther from stp.
        let (theta, mut gamma) = cubic(fx, dx, fp, dp, stx, stp);
        if stp > stx {
            gamma = -gamma;
        }
        let p = (gamma - dp) + theta;
        let q = ((gamma - dp) + gamma) + dx;
        let stpc = stp + p / q * (stx - stp);
        let stpq = stp + dp / (dp - dx) * (stx - stp);
        *bracketed = true;
        if (stpc - stp).abs() > (stpq - stp).abs() {
            stpc
        } else {
            stpq
        }
    } else if dp.abs() < dx.abs() {
        // Case 3: lower value, same slope sign, slope decreasing in size.
        let (theta, mut gamma) = cubic(fx, dx, fp, dp, stx, stp);
        if stp > stx {
            gamma = -gamma;
        }
        let p = (gamma - dp) + theta;
        let q = (gamma + (dx - dp)) + gamma;
        let r = p / q;
        let stpc = if r < 0.0 && gamma != 0.0 {
            stp + r * (stx - stp)
        } else if stp > stx {
            stpmax
        } else {
            stpmin
        };
        let stpq = stp + dp / (dp - dx) * (stx - stp);
        if *bracketed {
            let closer = if (stpc - stp).abs() < (stpq - stp).abs() {
                stpc
            } else {
                stpq
            };
            let limit = stp + 0.66 * (sty - stp);
            if stp > stx {
                closer.min(limit)
            } else {
                closer.max(limit)
            }
        } else {
            let farther = if (stpc - stp).abs() > (stpq - stp).abs() {
                stpc
            } else {
                stpq
            };
            farther.clamp(stpmin, stpmax)
        }
    } else if *bracketed {
        // Case 4: lower value, same slope sign, slope not decreasing: cubic
        // with the other end.
        let fy = hi.value;
        let (theta, mut gamma) = cubic(fp, dp, fy, dy, stp, sty);
        if stp > sty {
            gamma = -gamma;
        }
        let p = (gamma - dp) + theta;
        let q = ((gamma - dp) + gamma) + dy;
        stp + p / q * (sty - stp)
    } else if stp > stx {
        stpmax
    } else {
        stpmin
    };

    // The new interval.
    if fp > fx {
        *hi = t;
    } else {
        if sgnd < 0.0 {
            *hi = *lo;
        }
        *lo = t;
    }
    next
}

/// The cubic interpolating `f` and `f'` at the steps `sa` and `sb`:
/// `θ = 3(f_a − f_b)/(s_b − s_a) + d_a + d_b` and `|γ| = √(θ² − d_a d_b)`,
/// computed scaled by `max(|θ|, |d_a|, |d_b|)` against overflow (`dcstep`).
fn cubic(fa: f64, da: f64, fb: f64, db: f64, sa: f64, sb: f64) -> (f64, f64) {
    let theta = 3.0 * (fa - fb) / (sb - sa) + da + db;
    let s = theta.abs().max(da.abs()).max(db.abs());
    let gamma = s * ((theta / s).powi(2) - (da / s) * (db / s)).max(0.0).sqrt();
    (theta, gamma)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_search::test_functions::Wavy;
    use crate::objective::Counted;
    use proptest::prelude::*;

    fn start(f: &mut impl Objective, t0: f64) -> (f64, f64) {
        let mut g = [0.0];
        let fx = f.value_and_gradient(&[t0], &mut g);
        (fx, g[0])
    }

    proptest! {
        /// On random smooth 1-D functions bounded below, from random starts
        /// and first steps, along the negative gradient: a step is found, and
        /// it satisfies both strong Wolfe conditions, recomputed here from
        /// the objective; `point` and `gradient` hold x + αd and its
        /// gradient.
        #[test]
        fn finds_a_strong_wolfe_step_on_random_smooth_functions(
            c2 in 0.01f64..10.0, c1 in -5.0f64..5.0, s in 0.0f64..3.0, w in 0.1f64..10.0,
            t0 in -5.0f64..5.0, alpha0 in 1e-3f64..1e3,
            wolfe in (1e-4f64..0.5).prop_flat_map(|c1| (Just(c1), (c1 + 1e-3)..0.99)),
        ) {
            let mut f = Counted::new(Wavy { c2, c1, s, w });
            let (fx, g0) = start(&mut f, t0);
            prop_assume!(g0.abs() > 1e-6);
            let d = [-g0.signum()];
            let slope = -g0.abs();
            let (mu, eta) = wolfe;
            let search = MoreThuente::new(mu, eta).unwrap().with_max_evaluations(100);
            let (mut point, mut gradient) = (vec![], vec![]);
            let step = search
                .search(&mut f, &[t0], fx, slope, &d, alpha0, &mut point, &mut gradient)
                .unwrap();
            let t = t0 + step.alpha * d[0];
            prop_assert_eq!(point[0], t);
            let mut g = [0.0];
            let value = f.inner().clone_value_and_gradient(t, &mut g);
            prop_assert_eq!(step.value, value);
            prop_assert_eq!(gradient[0], g[0]);
            prop_assert_eq!(step.slope, g[0] * d[0]);
            prop_assert!(value <= fx + mu * step.alpha * slope, "sufficient decrease fails");
            prop_assert!((g[0] * d[0]).abs() <= eta * slope.abs(), "curvature fails");
            prop_assert!(step.alpha > 0.0);
            prop_assert_eq!(f.evaluations().gradients, 1 + step.evaluations);
        }
    }

    impl Wavy {
        fn clone_value_and_gradient(&self, t: f64, g: &mut [f64]) -> f64 {
            let mut copy = Wavy { ..*self };
            copy.value_and_gradient(&[t], g)
        }
    }

    /// On a quadratic `½a t² − b t`, the exact minimizer satisfies strong Wolfe
    /// for any `c₂`; with `c₂` tiny, only steps near it do, and the search
    /// finds one in a handful of evaluations (cubic interpolation is exact on
    /// a quadratic).
    #[test]
    fn exact_on_a_quadratic() {
        let mut f = Wavy {
            c2: 1.5,
            c1: -6.0,
            s: 0.0,
            w: 1.0,
        };
        // Minimizer t* = 6 / 3 = 2; from 0 the slope is −6 along d = 1.
        let search = MoreThuente::new(1e-7, 1e-6).unwrap();
        let (mut p, mut g) = (vec![], vec![]);
        let step = search
            .search(&mut f, &[0.0], 0.0, -6.0, &[1.0], 1.0, &mut p, &mut g)
            .unwrap();
        assert!((step.alpha - 2.0).abs() < 1e-6 * 2.0, "{step:?}");
        assert!(step.evaluations <= 4, "{step:?}");
    }

    /// The unit step is taken when it already satisfies both conditions:
    /// one evaluation (what makes L-BFGS cheap near a minimizer).
    #[test]
    fn accepts_the_first_step_when_it_is_good() {
        let mut f = Wavy {
            c2: 0.5,
            c1: 0.0,
            s: 0.0,
            w: 1.0,
        };
        // f = ½t², from t = 1 along d = −1 the unit step lands on 0.
        let step = MoreThuente::default()
            .search(&mut f, &[1.0], 0.5, -1.0, &[-1.0], 1.0, &mut vec![], &mut vec![])
            .unwrap();
        assert_eq!((step.alpha, step.evaluations), (1.0, 1));
    }

    /// Where f is not finite beyond a point (a log barrier), the search steps
    /// back from the non-finite trials and still finds a Wolfe step.
    #[test]
    fn steps_back_from_values_that_are_not_finite() {
        struct Barrier;
        impl Objective for Barrier {
            fn dim(&self) -> usize {
                1
            }
            // f(t) = −t − ln(1 − t), finite for t < 1 only; minimum at t = 0.
            fn value(&mut self, x: &[f64]) -> f64 {
                let v = -x[0] - (1.0 - x[0]).ln();
                if v.is_nan() {
                    f64::INFINITY
                } else {
                    v
                }
            }
            fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
                g[0] = -1.0 + 1.0 / (1.0 - x[0]);
            }
        }
        let mut f = Barrier;
        let t0 = -0.9;
        let (fx, g0) = start(&mut f, t0);
        let (mut p, mut g) = (vec![], vec![]);
        let step = MoreThuente::default()
            .search(&mut f, &[t0], fx, -g0.abs(), &[1.0], 100.0, &mut p, &mut g)
            .unwrap();
        assert!(p[0] < 1.0 && step.value.is_finite());
        assert!(step.value <= fx + 1e-4 * step.alpha * -g0.abs());
        assert!(step.slope.abs() <= 0.9 * g0.abs());
    }

    #[test]
    fn failures_are_errors_with_their_reason() {
        // Unbounded below along d: the step runs into its upper bound.
        let mut line = Wavy {
            c2: 0.0,
            c1: -1.0,
            s: 0.0,
            w: 1.0,
        };
        let err = MoreThuente::default()
            .with_bounds(0.0, 1e3)
            .unwrap()
            .search(&mut line, &[0.0], 0.0, -1.0, &[1.0], 1.0, &mut vec![], &mut vec![])
            .unwrap_err();
        match err {
            LineSearchError::NoWolfeStep {
                reason: WolfeFailure::StepMax,
                best_alpha,
                ..
            } => assert!(best_alpha > 0.0),
            other => panic!("{other:?}"),
        }
        // The evaluation limit.
        let mut f = Wavy {
            c2: 1.5,
            c1: -6.0,
            s: 0.0,
            w: 1.0,
        };
        let err = MoreThuente::new(1e-13, 1e-12)
            .unwrap()
            .with_max_evaluations(1)
            .search(&mut f, &[0.0], 0.0, -6.0, &[1.0], 1e-3, &mut vec![], &mut vec![])
            .unwrap_err();
        assert!(
            matches!(
                err,
                LineSearchError::NoWolfeStep {
                    evaluations: 1,
                    reason: WolfeFailure::Evaluations,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("strong Wolfe"));
        // Parameters and inputs.
        for (c1, c2, name) in [(0.0, 0.9, "c₁"), (0.5, 0.4, "c₂"), (1e-4, 1.0, "c₂")] {
            match MoreThuente::new(c1, c2) {
                Err(LineSearchError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{other:?}"),
            }
        }
        assert!(MoreThuente::default().with_bounds(1.0, 1.0).is_err());
        let search = MoreThuente::default();
        let (mut p, mut g) = (vec![], vec![]);
        assert_eq!(
            search.search(&mut f, &[0.0], 0.0, 6.0, &[1.0], 1.0, &mut p, &mut g),
            Err(LineSearchError::NotDescent { slope: 6.0 })
        );
        assert!(matches!(
            search.search(&mut f, &[0.0], 0.0, -6.0, &[1.0], f64::NAN, &mut p, &mut g),
            Err(LineSearchError::InvalidParameter { name: "α₀", .. })
        ));
        assert_eq!(
            search.search(&mut f, &[0.0], 0.0, -6.0, &[1.0, 2.0], 1.0, &mut p, &mut g),
            Err(LineSearchError::Dimension { expected: 1, found: 2 })
        );
    }
}
