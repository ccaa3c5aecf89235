//! # linalg-core — dense kernels and the incremental ridge engine
//!
//! Every method in this project — the inverse-free ELM (Zhu & Wei), the
//! incremental Broad Learning System (Zhu et al., *two ridge solutions*),
//! DEC's output-weight step (Grippo, Manno & Sciandrone) and B2LD's last
//! layer (Palagi & Seccia) — solves ridge least squares on a hidden-layer
//! matrix `A` (K samples × n nodes) that grows by columns:
//!
//! ```text
//! W = (AᵀA + λI)⁻¹ AᵀY
//! ```
//!
//! This crate owns that problem and nothing about neural networks:
//!
//! - [`InverseCholesky`] — `F Fᵀ = R⁻¹` from an SPD matrix, bordered by one
//!   column or a block (algorithms.md §1);
//! - [`InverseLdl`] — `L D Lᵀ = R⁻¹`, square-root free, and
//!   [`DivisionFreeLdl`], the division-free variant with power-of-two
//!   rescaling (BLS paper Appendix F; algorithms.md §3);
//! - [`ridge`] — the [`IncrementalRidge`] trait, made by
//!   [`Strategy::build`] for every strategy of the papers (D-Rdg, Chol-1,
//!   Chol-2, Exg-E, R-Inv, Orig., Li et al., Zhu–Wei Alg. 1, 2, 3): one
//!   solver type carrying each strategy's own update, reporting the flops of
//!   its last append;
//! - [`kernels`] — flop-counting wrappers over the BLAS/LAPACK calls (system
//!   OpenBLAS), and [`store::GrowMat`], the column-major store that makes
//!   appending columns cheap;
//! - [`lstsq`] — minimum-norm least squares through LAPACK `dgelsd`;
//! - [`sparse`] — [`sparse::Csr`] samples and their products with dense
//!   matrices, and [`sparse::Samples`], a fit's samples dense or sparse;
//! - [`threads`] — OpenBLAS thread control.
//!
//! Notation (algorithms.md): `R = AᵀA + λI`, `Q = R⁻¹`, `H` the K×q block of
//! new columns, `Y` the K×M targets. Zhu & Wei write `k₀²` for λ and store
//! everything transposed.
//!
//! Errors are typed ([`Error`]): non-finite input, shape mismatch, empty
//! input, λ ≤ 0, and loss of positive definiteness (which names the
//! strategy and what to use instead). No public function panics on user
//! input.

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

extern crate blas_src;

mod alloc;
mod argmax;
pub use argmax::argmax;
pub mod blas_info;
pub mod blas_kernel;
pub mod collective;
mod error;
mod ffi;
pub mod hidden_store;
pub mod inverse_cholesky;
pub mod inverse_ldl;
pub mod kernels;
pub mod lstsq;
pub mod product;
pub mod ridge;
pub mod sparse;
pub mod store;
pub mod threads;
pub mod validate;

pub use error::{Error, Result};
pub use hidden_store::Precision;
pub use inverse_cholesky::InverseCholesky;
pub use inverse_ldl::{DivisionFreeLdl, InverseLdl};
pub use ridge::{IncrementalRidge, Strategy};

/// This crate's README example, compiled and run as a doc test so that the
/// code a user copies from crates.io cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
