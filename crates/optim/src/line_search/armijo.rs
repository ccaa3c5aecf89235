//! Armijo backtracking, Grippo, Manno & Sciandrone (2016), Algorithm 2.

use super::{LineSearchError, Step};
use crate::objective::Objective;

/// Armijo's method as the paper's Algorithm 2 states it: start from
/// `α = a`, and while
///
/// ```text
/// f(x + α d) > f(x) + γ α ∇f(x)ᵀd
/// ```
///
/// set `α ← δ α`. Along the paper's direction `d = −∇f(x)` the right-hand
/// side is its `E(w) − γ α ‖∇E(w)‖²`; any descent direction is accepted
/// here. A trial point where `f` is not finite counts as not decreasing.
/// The search gives up when the step no longer moves `x` in floating point
/// (`x + αd == x`), or after [`Armijo::max_trials`] trials (the paper's loop
/// is finite for a smooth `f` and a descent direction, but rounding can
/// defeat it near a minimizer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Armijo {
    a: f64,
    gamma: f64,
    delta: f64,
    max_trials: usize,
}

impl Armijo {
    /// The method with initial step `a > 0`, sufficient-decrease factor
    /// `γ ∈ (0, 1)` and reduction factor `δ ∈ (0, 1)`; at most 1000 trials.
    ///
    /// # Errors
    /// [`LineSearchError::InvalidParameter`] when a parameter is out of its
    /// range (or not finite).
    pub fn new(a: f64, gamma: f64, delta: f64) -> Result<Self, LineSearchError> {
        let check = |name, value: f64, ok: bool, range| {
            if ok && value.is_finite() {
                Ok(())
            } else {
                Err(LineSearchError::InvalidParameter { name, value, range })
            }
        };
        check("a", a, a > 0.0, "(0, ∞)")?;
        check("γ", gamma, gamma > 0.0 && gamma < 1.0, "(0, 1)")?;
        check("δ", delta, delta > 0.0 && delta < 1.0, "(0, 1)")?;
        Ok(Self {
            a,
            gamma,
            delta,
            max_trials: 1000,
        })
    }

    /// The same method giving up after `n ≥ 1` trials.
    #[must_use]
    pub fn with_max_trials(mut self, n: usize) -> Self {
        self.max_trials = n.max(1);
        self
    }

    /// The most trials before [`LineSearchError::NoStep`].
    pub fn max_trials(&self) -> usize {
        self.max_trials
    }

    /// Search along `d` from `x`, where `f(x) = fx` and `∇f(x)ᵀd = slope`.
    /// `trial` is scratch space (resized to `x.len()`); on success it holds
    /// `x + αd`.
    ///
    /// # Errors
    /// [`LineSearchError::Dimension`] when `x` or `d` does not have the
    /// objective's length; [`LineSearchError::NotDescent`] when `slope` is not
    /// negative and finite; [`LineSearchError::NoStep`] after
    /// [`Self::max_trials`] rejected trials.
    pub fn search<O: Objective + ?Sized>(
        &self,
        f: &mut O,
        x: &[f64],
        fx: f64,
        slope: f64,
        d: &[f64],
        trial: &mut Vec<f64>,
    ) -> Result<Step, LineSearchError> {
        let n = f.dim();
        super::check_inputs(n, x, d, slope)?;
        trial.resize(n, 0.0);
        let mut alpha = self.a;
        for backtracks in 0..self.max_trials {
            for ((t, xi), di) in trial.iter_mut().zip(x).zip(d) {
                *t = xi + alpha * di;
            }
            if trial.as_slice() == x {
                return Err(LineSearchError::NoStep {
                    tried: backtracks,
                    last_alpha: alpha,
                });
            }
            let value = f.value(trial);
            if value.is_finite() && value <= fx + self.gamma * alpha * slope {
                return Ok(Step {
                    alpha,
                    value,
                    backtracks,
                });
            }
            alpha *= self.delta;
        }
        Err(LineSearchError::NoStep {
            tried: self.max_trials,
            last_alpha: alpha / self.delta,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_search::test_functions::Wavy;
    use crate::objective::Counted;
    use crate::problems::{Rosenbrock, SumOfSquares};
    use proptest::prelude::*;

    proptest! {
        /// On random smooth 1-D functions, along the negative gradient (the
        /// paper's direction): the accepted step satisfies the condition,
        /// is a·δ^backtracks, every longer step of the sequence violates
        /// it, and f decreased (the paper's (22)).
        #[test]
        fn accepts_the_first_step_of_the_sequence_that_decreases_enough(
            c2 in 0.01f64..10.0, c1 in -5.0f64..5.0, s in 0.0f64..3.0, w in 0.1f64..10.0,
            t0 in -5.0f64..5.0, a in 0.01f64..10.0, gamma in 0.01f64..0.9, delta in 0.1f64..0.9,
        ) {
            let mut f = Wavy { c2, c1, s, w };
            let x = [t0];
            let mut g = [0.0];
            let fx = f.value_and_gradient(&x, &mut g);
            prop_assume!(g[0].abs() > 1e-6);
            let d = [-g[0]];
            let slope = -g[0] * g[0];
            let armijo = Armijo::new(a, gamma, delta).unwrap();
            let mut trial = vec![];
            let step = armijo.search(&mut f, &x, fx, slope, &d, &mut trial).unwrap();
            prop_assert_eq!(step.alpha, (0..step.backtracks).fold(a, |al, _| al * delta));
            prop_assert_eq!(trial[0], t0 + step.alpha * d[0]);
            prop_assert_eq!(step.value, f.value(&trial));
            prop_assert!(step.value <= fx + gamma * step.alpha * slope);
            prop_assert!(step.value < fx);
            let mut longer = a;
            for _ in 0..step.backtracks {
                let v = f.value(&[t0 + longer * d[0]]);
                prop_assert!(v > fx + gamma * longer * slope, "a longer step {longer} was acceptable");
                longer *= delta;
            }
        }
    }

    /// Rosenbrock from the classic start (−1.2, 1) along −∇f: a step is
    /// found, f decreases by at least γα‖∇f‖², and each trial is one value
    /// evaluation (no gradients).
    #[test]
    fn rosenbrock_step_along_the_negative_gradient() {
        let mut f = Counted::new(SumOfSquares::new(Rosenbrock));
        let x = [-1.2, 1.0];
        let mut g = [0.0; 2];
        let fx = f.value_and_gradient(&x, &mut g);
        let d = [-g[0], -g[1]];
        let g2 = g[0] * g[0] + g[1] * g[1];
        let (gamma, delta) = (1e-4, 0.5);
        let step = Armijo::new(1.0, gamma, delta)
            .unwrap()
            .search(&mut f, &x, fx, -g2, &d, &mut vec![])
            .unwrap();
        assert!(step.value <= fx - gamma * step.alpha * g2);
        assert!(step.backtracks > 0, "the unit step is far too long here");
        assert_eq!(f.evaluations().values, 1 + step.backtracks + 1);
        assert_eq!(f.evaluations().gradients, 1);
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        for (a, gamma, delta, name) in [
            (0.0, 0.5, 0.5, "a"),
            (f64::NAN, 0.5, 0.5, "a"),
            (1.0, 1.0, 0.5, "γ"),
            (1.0, 0.0, 0.5, "γ"),
            (1.0, 0.5, 1.0, "δ"),
            (1.0, 0.5, -0.1, "δ"),
        ] {
            match Armijo::new(a, gamma, delta) {
                Err(LineSearchError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
                other => panic!("({a}, {gamma}, {delta}): {other:?}"),
            }
        }
        let armijo = Armijo::new(1.0, 0.5, 0.5).unwrap();
        let mut f = Wavy {
            c2: 1.0,
            c1: 0.0,
            s: 0.0,
            w: 1.0,
        };
        let mut trial = vec![];
        // An ascent direction.
        let err = armijo.search(&mut f, &[1.0], 1.0, 2.0, &[1.0], &mut trial).unwrap_err();
        assert_eq!(err, LineSearchError::NotDescent { slope: 2.0 });
        assert!(err.to_string().contains("not a descent direction"));
        // Wrong lengths.
        let err = armijo
            .search(&mut f, &[1.0, 2.0], 1.0, -2.0, &[1.0], &mut trial)
            .unwrap_err();
        assert_eq!(err, LineSearchError::Dimension { expected: 1, found: 2 });
        // A function that is never finite away from x: NoStep after the limit.
        struct Cliff;
        impl Objective for Cliff {
            fn dim(&self) -> usize {
                1
            }
            fn value(&mut self, x: &[f64]) -> f64 {
                if x[0] == 0.0 {
                    0.0
                } else {
                    f64::NAN
                }
            }
            fn gradient(&mut self, _: &[f64], g: &mut [f64]) {
                g[0] = 1.0;
            }
        }
        let err = armijo
            .with_max_trials(5)
            .search(&mut Cliff, &[0.0], 0.0, -1.0, &[-1.0], &mut trial)
            .unwrap_err();
        assert_eq!(
            err,
            LineSearchError::NoStep {
                tried: 5,
                last_alpha: 0.0625
            }
        );
    }
}
