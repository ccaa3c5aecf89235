//! # optim — the optimizers behind the decomposition trainers
//!
//! The generic optimization machinery the papers' trainers need, knowing
//! nothing about layers or networks.
//!
//! Here now:
//!
//! - [`objective`]: the [`Objective`] trait (value, gradient, both at once),
//!   evaluation counting ([`Counted`]) and a finite-difference gradient check
//!   ([`objective::gradient_error`]) for the networks' hand-written gradients;
//! - [`report`]: the [`Report`] every optimizer run ends with (iterations,
//!   evaluations, final value and gradient norm, [`Termination`]: why it
//!   stopped);
//! - [`line_search`]: [`Armijo`] backtracking exactly as Grippo et al.'s
//!   Algorithm 2;
//! - [`cg`]: [`ConjugateGradient`] for SPD systems given as an operator,
//!   stopped by DEC's rule (38) on the true residual;
//! - [`incremental`]: the step rules of BLInG and IG ([`DiminishingStep`],
//!   [`NormalizedStep`]).
//!
//! To come with the DEC and block-layer issues, one file per algorithm
//! (argmin's layout): Moré–Thuente in `line_search/`, and `lbfgs.rs` (per
//! neuron in **DEC**, Algorithm 3, Step B; per layer in **B2LD**; on all
//! weights for the baselines).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use linalg_core;

#[cfg(feature = "argmin")]
pub mod argmin_bridge;
pub mod cg;
pub mod incremental;
pub mod lbfgs;
pub mod line_search;
pub mod objective;
pub mod problems;
pub mod report;

pub use cg::{CgError, CgReport, ConjugateGradient, FnOperator, LinearOperator};
pub use incremental::{DiminishingStep, NormalizedStep, StepRuleError};
pub use lbfgs::{Iterate, Lbfgs, LbfgsError};
pub use line_search::{Armijo, LineSearchError, MoreThuente, Step, WolfeStep};
pub use objective::{Counted, Evaluations, Objective};
pub use report::{Report, Termination};
