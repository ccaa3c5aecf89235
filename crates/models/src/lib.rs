//! # models — networks and their trainers
//!
//! This crate will hold the models of the five papers and the trainers that
//! fit them (a model predicts; a trainer fits):
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
//! Implemented so far: [`activation`] (the activation functions), [`elm`]
//! (random hidden layer, batch and incremental ELM, minimum-norm least
//! squares, save/load) and [`bls`] (the Broad Learning System: feature groups
//! fine-tuned by the sparse autoencoder, enhancement groups, increments on
//! added enhancement nodes or feature groups with any ridge strategy,
//! save/load). Errors are typed ([`ModelError`]); no public function
//! panics on user input.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use linalg_core;
pub use optim;

pub mod activation;
pub mod bls;
pub mod elm;
mod envelope;
mod error;
pub mod rng;
mod validate;

pub use activation::Activation;
pub use bls::{Bls, BlsConfig, IncrementalBls};
pub use elm::{Elm, ElmConfig, HiddenLayer, IncrementalElm, Solver};
pub use error::{ModelError, Result};
