//! # optim — the optimizers behind the decomposition trainers
//!
//! The generic optimization machinery the papers' trainers need, knowing
//! nothing about layers or networks.
//!
//! - [`objective`]: the [`Objective`] trait (value, gradient, both at once),
//!   evaluation counting ([`Counted`]) and a finite-difference gradient check
//!   ([`objective::gradient_error`]) for the networks' hand-written gradients;
//! - [`report`]: the [`Report`] every optimizer run ends with (iterations,
//!   evaluations, final value and gradient norm, [`Termination`]: why it
//!   stopped);
//! - [`line_search`]: [`Armijo`] backtracking exactly as Grippo et al.'s
//!   Algorithm 2, and the strong-Wolfe search [`MoreThuente`] (`dcsrch`);
//! - [`lbfgs`]: [`Lbfgs`], L-BFGS as Nocedal's `lbfgs.f` (per neuron in
//!   **DEC**, Algorithm 3, Step B; per layer in **B2LD**; on all weights for
//!   the baselines), with an observer called after every iteration;
//! - [`cg`]: [`ConjugateGradient`] for SPD systems given as an operator,
//!   stopped by DEC's rule (38) on the true residual;
//! - [`incremental`]: the step rules of BLInG and IG ([`DiminishingStep`],
//!   [`NormalizedStep`]);
//! - [`first_order`]: the back-propagation optimizers Tomic et al. compare
//!   **BPLS** against, one [`FirstOrder`] step per minibatch: [`Sgd`],
//!   [`Nag`] (Nesterov in Sutskever et al.'s sense), [`Adam`] (Kingma & Ba,
//!   Algorithm 1) and [`AdaGrad`] (Duchi et al., diagonal), chosen by
//!   [`FirstOrderKind`];
//! - [`problems`]: the Moré–Garbow–Hillstrom test problems and the extended
//!   Rosenbrock function, for tests and benchmarks;
//! - `argmin_bridge` (feature `argmin`): run argmin's solvers on these
//!   objectives.
//!
//! ## Why not just argmin
//!
//! [argmin](https://argmin-rs.org) has L-BFGS, Moré–Thuente, CG and more,
//! but not what the papers specify. DEC needs the paper's exact Armijo rule
//! (Grippo et al., Algorithm 2: [`Armijo`]) and, in its trainer (crate
//! `models`), the acceptance tests (25)–(26) around an inner L-BFGS started
//! at the Armijo point and stopped by `lbfgs.f`'s relative gradient test
//! ([`Lbfgs::with_gradient_relative_to_x`]); its output weights need CG
//! stopped by the paper's rule (38) on the *true* residual
//! ([`ConjugateGradient`]), and BLInG a normalized step
//! `α/max{β, min{γ, ‖d‖}}` ([`NormalizedStep`]) that no library has. Our
//! objectives take `&mut self` and slices, so a network keeps its
//! activations between calls and nothing is allocated per evaluation
//! (argmin's traits take `&self` and return owned values). `docs/optim.md`
//! compares [`Lbfgs`] with argmin's L-BFGS on the Moré–Garbow–Hillstrom
//! problems and in per-iteration overhead.
//!
//! To use argmin's solvers anyway, enable the feature `argmin`:
//! `argmin_bridge::ArgminObjective` wraps any [`Objective`] as an argmin
//! problem on `Vec<f64>`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use linalg_core;

#[cfg(feature = "argmin")]
pub mod argmin_bridge;
pub mod cg;
pub mod first_order;
pub mod incremental;
pub mod lbfgs;
pub mod line_search;
pub mod objective;
pub mod problems;
pub mod report;

pub use cg::{CgError, CgReport, ConjugateGradient, FnOperator, LinearOperator};
pub use first_order::{AdaGrad, Adam, FirstOrder, FirstOrderKind, Nag, Sgd, UnknownFirstOrder};
pub use incremental::{DiminishingStep, NormalizedStep, StepRuleError};
pub use lbfgs::{Iterate, Lbfgs, LbfgsError};
pub use line_search::{Armijo, LineSearchError, MoreThuente, Step, WolfeStep};
pub use objective::{Counted, Evaluations, Objective};
pub use report::{Report, Termination};

/// This crate's README example, compiled and run as a doc test so that the
/// code a user copies from crates.io cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
