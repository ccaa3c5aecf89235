//! Run [argmin](https://argmin-rs.org)'s solvers on this crate's objectives
//! (feature `argmin`).
//!
//! [`ArgminObjective`] wraps any [`Objective`] as an argmin problem with
//! `Vec<f64>` parameters (argmin's plain `vec` math backend, which needs no
//! second LAPACK). argmin's problem traits take `&self`, ours `&mut self`
//! (an objective may keep work between calls), so the wrapper holds the
//! objective in a [`RefCell`]; the cost is one borrow check and one vector
//! allocation per call, which argmin's `Vec` backend makes anyway.
//!
//! ```
//! use argmin::core::{Executor, State};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use optim::argmin_bridge::ArgminObjective;
//! use optim::problems::{Rosenbrock, SumOfSquares, TestProblem};
//!
//! let problem = ArgminObjective::new(SumOfSquares::new(Rosenbrock));
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5).with_tolerance_grad(1e-10)?;
//! let result = Executor::new(problem, solver)
//!     .configure(|s| s.param(Rosenbrock.start()).max_iters(200))
//!     .run()?;
//! let x = result.state().get_best_param().unwrap();
//! assert!((x[0] - 1.0).abs() < 1e-6 && (x[1] - 1.0).abs() < 1e-6);
//! # Ok::<(), argmin::core::Error>(())
//! ```

use std::cell::RefCell;

use argmin::core::{CostFunction, Error, Gradient};

use crate::objective::Objective;

/// An [`Objective`] as an argmin problem ([`CostFunction`] and
/// [`Gradient`] on `Vec<f64>`).
#[derive(Debug)]
pub struct ArgminObjective<O> {
    inner: RefCell<O>,
}

impl<O: Objective> ArgminObjective<O> {
    /// Wrap `objective`.
    pub fn new(objective: O) -> Self {
        Self {
            inner: RefCell::new(objective),
        }
    }

    /// The wrapped objective.
    pub fn into_inner(self) -> O {
        self.inner.into_inner()
    }

    fn check(&self, len: usize) -> Result<(), Error> {
        let n = self.inner.borrow().dim();
        if len == n {
            Ok(())
        } else {
            Err(argmin::core::ArgminError::InvalidParameter {
                text: format!("parameter of length {len} for an objective of dimension {n}"),
            }
            .into())
        }
    }
}

impl<O: Objective> CostFunction for ArgminObjective<O> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        self.check(x.len())?;
        Ok(self.inner.borrow_mut().value(x))
    }
}

impl<O: Objective> Gradient for ArgminObjective<O> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, x: &Vec<f64>) -> Result<Vec<f64>, Error> {
        self.check(x.len())?;
        let mut g = vec![0.0; x.len()];
        self.inner.borrow_mut().gradient(x, &mut g);
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::Counted;
    use crate::problems::{Beale, SumOfSquares};

    #[test]
    fn forwards_values_gradients_and_counts_and_rejects_wrong_lengths() {
        let p = ArgminObjective::new(Counted::new(SumOfSquares::new(Beale)));
        let x = vec![1.0, 1.0];
        let mut direct = SumOfSquares::new(Beale);
        let mut g = vec![0.0; 2];
        let v = direct.value_and_gradient(&x, &mut g);
        assert_eq!(p.cost(&x).unwrap(), v);
        assert_eq!(p.gradient(&x).unwrap(), g);
        assert!(p.cost(&vec![1.0]).is_err());
        let counted = p.into_inner();
        assert_eq!((counted.evaluations().values, counted.evaluations().gradients), (1, 1));
    }
}
