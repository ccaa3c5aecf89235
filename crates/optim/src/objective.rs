//! The function an optimizer minimizes: value, gradient, or both at once,
//! with the evaluations counted.
//!
//! The trainers of the papers minimize smooth functions of many variables:
//! one neuron's weights (DEC, Grippo et al., Algorithm 3, Step B), one
//! layer's block (B2LD, Palagi & Seccia, Algorithm 3), or all weights (the
//! full L-BFGS baselines). Each can compute its value and gradient together
//! for about the price of the gradient alone (one forward and one backward
//! pass), so [`Objective::value_and_gradient`] is the method optimizers call
//! by default; [`Objective::value`] alone serves line searches that probe a
//! point before deciding to need its gradient.
//!
//! Points and gradients are plain slices: a network's weights live in one
//! contiguous buffer, and an optimizer's vectors (L-BFGS keeps `2m` of them)
//! need nothing more than BLAS-1 arithmetic.

/// A smooth function `f: ℝⁿ → ℝ` to minimize.
///
/// Methods take `&mut self` so that an objective may keep work between calls
/// (a network's forward activations, reused by the gradient at the same
/// point).
///
/// ```
/// use optim::Objective;
///
/// /// f(x) = ½‖x − c‖².
/// struct Distance { c: Vec<f64> }
///
/// impl Objective for Distance {
///     fn dim(&self) -> usize { self.c.len() }
///     fn value(&mut self, x: &[f64]) -> f64 {
///         0.5 * x.iter().zip(&self.c).map(|(a, b)| (a - b).powi(2)).sum::<f64>()
///     }
///     fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
///         for ((gi, a), b) in g.iter_mut().zip(x).zip(&self.c) { *gi = a - b; }
///     }
/// }
///
/// let mut f = Distance { c: vec![1.0, 2.0] };
/// let mut g = [0.0; 2];
/// assert_eq!(f.value_and_gradient(&[1.0, 0.0], &mut g), 2.0);
/// assert_eq!(g, [0.0, -2.0]);
/// ```
pub trait Objective {
    /// The number of variables `n`.
    fn dim(&self) -> usize;

    /// `f(x)`; `x.len() == self.dim()`.
    fn value(&mut self, x: &[f64]) -> f64;

    /// `∇f(x)` written into `g` (`g.len() == self.dim()`).
    fn gradient(&mut self, x: &[f64], g: &mut [f64]);

    /// `f(x)`, with `∇f(x)` written into `g`. The default calls
    /// [`Self::value`] and [`Self::gradient`]; override it when the two share
    /// work.
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        let f = self.value(x);
        self.gradient(x, g);
        f
    }
}

impl<O: Objective + ?Sized> Objective for &mut O {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn value(&mut self, x: &[f64]) -> f64 {
        (**self).value(x)
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        (**self).gradient(x, g)
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        (**self).value_and_gradient(x, g)
    }
}

/// How many times an objective was evaluated.
///
/// A call of [`Objective::value_and_gradient`] counts as one value and one
/// gradient, the way the papers count "function and gradient evaluations".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evaluations {
    /// Evaluations of `f`.
    pub values: usize,
    /// Evaluations of `∇f`.
    pub gradients: usize,
}

/// An objective that counts its evaluations ([`Evaluations`]).
///
/// ```
/// use optim::{Counted, Evaluations, Objective};
/// # struct Square;
/// # impl Objective for Square {
/// #     fn dim(&self) -> usize { 1 }
/// #     fn value(&mut self, x: &[f64]) -> f64 { x[0] * x[0] }
/// #     fn gradient(&mut self, x: &[f64], g: &mut [f64]) { g[0] = 2.0 * x[0]; }
/// # }
/// let mut f = Counted::new(Square);
/// let mut g = [0.0];
/// f.value(&[3.0]);
/// f.value_and_gradient(&[3.0], &mut g);
/// assert_eq!(f.evaluations(), Evaluations { values: 2, gradients: 1 });
/// ```
#[derive(Clone, Debug)]
pub struct Counted<O> {
    inner: O,
    count: Evaluations,
}

impl<O: Objective> Counted<O> {
    /// Wrap `inner` with both counts at zero.
    pub fn new(inner: O) -> Self {
        Self {
            inner,
            count: Evaluations::default(),
        }
    }

    /// The evaluations so far.
    pub fn evaluations(&self) -> Evaluations {
        self.count
    }

    /// The wrapped objective.
    pub fn inner(&self) -> &O {
        &self.inner
    }

    /// The wrapped objective, unwrapped.
    pub fn into_inner(self) -> O {
        self.inner
    }
}

impl<O: Objective> Objective for Counted<O> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn value(&mut self, x: &[f64]) -> f64 {
        self.count.values += 1;
        self.inner.value(x)
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        self.count.gradients += 1;
        self.inner.gradient(x, g)
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        self.count.values += 1;
        self.count.gradients += 1;
        self.inner.value_and_gradient(x, g)
    }
}

/// The largest difference between an objective's gradient at `x` and its
/// central finite difference, relative to the gradient's size:
///
/// ```text
/// max_i |g_i − (f(x + h eᵢ) − f(x − h eᵢ)) / 2h|  /  max(1, ‖g‖∞)
/// ```
///
/// with the step `h = ε^{1/3} · max(1, |xᵢ|)`, which balances the
/// difference's truncation error `O(h²)` against its rounding error
/// `O(ε/h)`. For a correct gradient of a smooth function the result is
/// `O(ε^{2/3}) ≈ 4e-11` times the size of the third derivative; a wrong sign
/// or a missing term gives `O(1)`. Costs `2n + 1` evaluations: meant for
/// tests of hand-written gradients (the networks of Grippo et al. and
/// Palagi & Seccia).
///
/// ```
/// use optim::{objective::gradient_error, Objective};
/// struct Cubic;
/// impl Objective for Cubic {
///     fn dim(&self) -> usize { 2 }
///     fn value(&mut self, x: &[f64]) -> f64 { x[0].powi(3) + x[0] * x[1] }
///     fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
///         g[0] = 3.0 * x[0] * x[0] + x[1];
///         g[1] = x[0];
///     }
/// }
/// assert!(gradient_error(&mut Cubic, &[0.7, -1.3]) < 1e-8);
/// ```
pub fn gradient_error<O: Objective + ?Sized>(f: &mut O, x: &[f64]) -> f64 {
    let n = f.dim();
    assert_eq!(
        x.len(),
        n,
        "gradient_error: x has {} entries, the objective {n}",
        x.len()
    );
    let mut g = vec![0.0; n];
    f.gradient(x, &mut g);
    let scale = g.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let mut probe = x.to_vec();
    let step = f64::EPSILON.cbrt();
    let mut worst = 0.0_f64;
    for i in 0..n {
        let h = step * x[i].abs().max(1.0);
        probe[i] = x[i] + h;
        let up = f.value(&probe);
        probe[i] = x[i] - h;
        let down = f.value(&probe);
        probe[i] = x[i];
        // The actual step (x ± h is rounded), as in Numerical Recipes §5.7.
        let width = (x[i] + h) - (x[i] - h);
        worst = worst.max((g[i] - (up - down) / width).abs());
    }
    worst / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rosenbrock function `100(x₂ − x₁²)² + (1 − x₁)²`.
    struct Rosenbrock;

    impl Objective for Rosenbrock {
        fn dim(&self) -> usize {
            2
        }
        fn value(&mut self, x: &[f64]) -> f64 {
            100.0 * (x[1] - x[0] * x[0]).powi(2) + (1.0 - x[0]).powi(2)
        }
        fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
            g[0] = -400.0 * x[0] * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]);
            g[1] = 200.0 * (x[1] - x[0] * x[0]);
        }
    }

    /// Rosenbrock with the sign of one gradient term flipped.
    struct WrongSign;

    impl Objective for WrongSign {
        fn dim(&self) -> usize {
            2
        }
        fn value(&mut self, x: &[f64]) -> f64 {
            Rosenbrock.value(x)
        }
        fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
            Rosenbrock.gradient(x, g);
            g[0] = -400.0 * x[0] * (x[1] - x[0] * x[0]) + 2.0 * (1.0 - x[0]);
        }
    }

    #[test]
    fn gradient_error_is_within_its_derived_bound_for_a_correct_gradient() {
        let eps = f64::EPSILON;
        for x in [[-1.2, 1.0], [0.0, 0.0], [2.5, -3.0], [10.0, 50.0]] {
            let e = gradient_error(&mut Rosenbrock, &x);
            // The central difference errs by h²/6·|∂³f/∂xᵢ³| (truncation;
            // ∂³f/∂x₁³ = 2400x₁, ∂³f/∂x₂³ = 0) plus about ε|f|/h (rounding of
            // f), with h = ε^{1/3} max(1, |xᵢ|); twice that, relative to
            // max(1, ‖g‖∞), is the bound.
            let f = Rosenbrock.value(&x);
            let mut g = [0.0; 2];
            Rosenbrock.gradient(&x, &mut g);
            let third = [2400.0 * x[0].abs(), 0.0];
            let bound = (0..2)
                .map(|i| {
                    let h = eps.cbrt() * x[i].abs().max(1.0);
                    h * h / 6.0 * third[i] + eps * f.abs().max(1.0) / h
                })
                .fold(0.0, f64::max)
                * 2.0
                / g.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
            assert!(
                bound < 1e-4,
                "the bound {bound:e} at {x:?} would not catch a wrong term"
            );
            assert!(
                e <= bound,
                "relative gradient error {e:e} above its bound {bound:e} at {x:?}"
            );
        }
    }

    #[test]
    fn gradient_error_catches_a_wrong_sign() {
        // At (0.5, 0.5) the flipped term 2(1 − x₁) = 1 against ‖g‖∞ = 51.
        let e = gradient_error(&mut WrongSign, &[0.5, 0.5]);
        assert!(e > 1e-2, "a wrong sign went unnoticed: {e:e}");
    }

    #[test]
    fn counted_counts_each_kind_and_forwards_values() {
        let mut f = Counted::new(Rosenbrock);
        let mut g = [0.0; 2];
        let v = f.value_and_gradient(&[-1.2, 1.0], &mut g);
        // By hand: 100(1 − 1.44)² + 2.2² = 24.2; ∇ = (480·(−0.44) − 4.4, 200·(−0.44)).
        assert!((v - 24.2).abs() < 1e-12, "{v}");
        assert!((g[0] + 215.6).abs() < 1e-12 && (g[1] + 88.0).abs() < 1e-12, "{g:?}");
        f.value(&[1.0, 1.0]);
        f.gradient(&[1.0, 1.0], &mut g);
        assert_eq!(g, [0.0, 0.0]);
        assert_eq!(
            f.evaluations(),
            Evaluations {
                values: 2,
                gradients: 2
            }
        );
        // Through the `&mut O` implementation, the same counter advances.
        fn probe(mut o: impl Objective) -> f64 {
            o.value(&[0.0, 0.0])
        }
        assert_eq!(probe(&mut f), 1.0);
        assert_eq!(f.evaluations().values, 3);
    }
}
