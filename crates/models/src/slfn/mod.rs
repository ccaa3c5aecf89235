//! The single-hidden-layer network of Grippo, Manno & Sciandrone,
//! *Decomposition techniques for multilayer perceptron training*, IEEE TNNLS
//! 27(11), 2016 (algorithms.md §5), and its three trainers.
//!
//! - [`Slfn`] — `φ(x) = Σⱼ λⱼ g(wⱼᵀx̃)`, sigmoid units, the bias as the
//!   weight of a constant input `−1`, `M ≥ 1` linear outputs;
//! - [`ErrorFunction`] — the training error (5) and its gradients (9)–(11);
//!   [`FullObjective`] is it as an [`optim::Objective`] in all weights;
//! - trainers ([`SlfnTrainer`]): **DEC** (Algorithm 3: Step A, the ridge
//!   problem in `λ` by CG to rule (38), then for each unit Step B — Armijo
//!   along `−∇_{w_j}E`, L-BFGS from there accepted under (25)–(26) — and the
//!   closed-form `λ_j`, with the outputs kept by (27)–(28) so that a unit
//!   step costs `O(P·n)`); **L-BFGS** on all weights (the paper's
//!   baseline); the paper's **ELM** (`τ = 0`, minimum-norm least squares);
//! - [`SlfnParams`] → [`SlfnValidParams`] ([`ParamGuard`](crate::ParamGuard)),
//!   [`Fit`](crate::Fit), save/load ([`Persist`](crate::Persist)).

mod dec;
mod error_fn;
mod network;
mod neuron;
mod params;

pub use dec::{DecIteration, DecReport, DecSettings, UnitPoint, UnitStep};
pub use error_fn::{ErrorFunction, FullObjective};
pub use network::{Slfn, MAGIC};
pub use params::{Progress, SlfnParams, SlfnReport, SlfnTrainer, SlfnValidParams};

#[cfg(test)]
mod tests;
