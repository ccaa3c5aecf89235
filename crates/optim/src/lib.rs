//! # optim — the optimizers behind the decomposition trainers
//!
//! This crate will hold the generic optimization machinery the trainers of the
//! papers need, knowing nothing about layers or networks:
//!
//! - an `Objective` trait (value, gradient, both at once);
//! - Armijo backtracking and a Wolfe (Moré–Thuente) line search;
//! - L-BFGS, used per neuron by **DEC** (Grippo, Manno & Sciandrone 2016,
//!   Algorithm 3, Step B) and per layer by **B2LD** (Palagi & Seccia);
//! - matrix-free conjugate gradient for SPD systems (DEC's Step A, the ridge
//!   problem in the output weights, stopped at `‖H̃λ − u‖/‖u‖ ≤ 1e−6`);
//! - incremental gradient with diminishing and normalized steps (**BLInG** and
//!   the IG baseline of Palagi & Seccia);
//! - a small termination report (iterations, evaluations, final gradient
//!   norm, why it stopped).
//!
//! Nothing is implemented yet: the foundation issue builds `linalg-core` first.
//! The crate compiles and links the layer below so the workspace's dependency
//! arrows (`optim → linalg-core`) are in place.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use linalg_core;
