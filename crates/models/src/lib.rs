//! # models — networks and their trainers
//!
//! The models of the five papers and the trainers that fit them (a model
//! predicts; a trainer fits); the last three come with their issues:
//!
//! - activations (value, derivative, inverse where it exists);
//! - the extreme learning machine, batch and incremental (**Zhu & Wei**,
//!   inverse-free ELM, Algorithms 1–3 and Li et al.), taking any
//!   [`linalg_core::ridge::Strategy`] for its output weights;
//! - the Broad Learning System with feature and enhancement groups and
//!   increments on added nodes (**Zhu et al.**, ridge solutions for the BLS);
//! - the single-hidden-layer network trained by **DEC** (Grippo et al.);
//! - the deep feedforward network trained by **B2LD**, **BLInG**, full L-BFGS and
//!   IG (Palagi & Seccia), and by **BPLS** (Tomic et al.).
//!
//! The seam every model plugs into ([`traits`]): hyper-parameters checked
//! before fitting ([`ParamGuard`]: `ElmParams` → `ElmValidParams`), [`Fit`]
//! on a [`Dataset`], [`Predict`], and save/load through one versioned
//! envelope ([`Persist`]); the output weights of every model come from one
//! output layer ([`readout`]: batch ridge, least squares or any
//! linalg-core strategy, batch or incremental).
//!
//! Implemented so far: [`activation`] (the activation functions), [`elm`]
//! (random hidden layer, batch and incremental ELM, minimum-norm least
//! squares, save/load) and [`bls`] (the Broad Learning System: feature groups
//! fine-tuned by the sparse autoencoder, enhancement groups, increments on
//! added enhancement nodes or feature groups with any ridge strategy,
//! save/load) and [`slfn`] (Grippo et al.'s single-hidden-layer network:
//! the error (5) with its gradients, DEC, L-BFGS on all weights and the
//! paper's ELM, save/load). Errors are typed ([`ModelError`]); no public function
//! panics on user input.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use linalg_core;
pub use linalg_core::sparse::{Csr, Samples};
pub use optim;

pub mod activation;
pub mod bls;
pub mod dfnn;
pub mod elm;
pub mod envelope;
mod error;
pub mod mlp;
pub mod online;
mod parallel;
pub mod readout;
pub mod rng;
pub mod select;
mod shard;
pub mod slfn;
pub mod traits;
mod validate;
pub mod verify;

pub use activation::Activation;
pub use bls::{Bls, BlsParams, BlsValidParams, IncrementalBls};
pub use elm::{Elm, ElmParams, ElmValidParams, HiddenLayer, IncrementalElm, InputScale};
pub use error::{ModelError, Result};
pub use mlp::{BplsParams, Mlp};
pub use online::{LinearReadout, OnlineFit};
pub use readout::{Readout, ReadoutSolver};
pub use slfn::{Slfn, SlfnParams, SlfnTrainer, SlfnValidParams};
pub use traits::{Chunk, Dataset, Fit, ParamGuard, Persist, Predict};

/// The traits and the dataset view, for `use models::prelude::*`.
pub mod prelude {
    pub use crate::traits::{Dataset, Fit, ParamGuard, Persist, Predict};
}

/// This crate's README example, compiled and run as a doc test so that the
/// code a user copies from crates.io cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
