//! The Broad Learning System (BLS; Chen & Liu 2018) with increments on added
//! nodes, as used by Zhu et al., *two ridge solutions for the incremental
//! BLS* (the "BLS paper", Sec. II; algorithms.md §4).
//!
//! A BLS maps the samples `X` (K×d) to an expanded input matrix `A`, then fits
//! only the output weights `W` by ridge least squares:
//!
//! ```text
//! X̃   = [X, 0.1·1]
//! Z_i = minmax₀₁(X̃ β_i)                      feature group i, N_i nodes      (eq. (9))
//!       β_i = sparse autoencoder of the random map X̃ W_ei     (lasso, ADMM)
//! Zⁿ  = [Z_1 … Z_n]                                                           (eq. (10))
//! H_j = tanh(s_j [Z_F, 0.1·1] W_hj)          enhancement group j, fed by F  (eq. (11))
//! A   = the groups' columns in append order, W = (AᵀA + λI)⁻¹AᵀY           (eqs. (6), (13))
//! ```
//!
//! Increments (eqs. (14), (15), (17)): (a) `p` enhancement nodes fed by all
//! feature nodes, `A' = [A | H]`; (b) a feature group with the enhancement
//! nodes fed by it and additional enhancement nodes fed by all feature
//! nodes, `A' = [A | Z_new H_fed H_extra]`, appended as one block. `W` is
//! updated by a [`linalg_core::ridge::Strategy`] (Orig., Exg-E, Chol-1,
//! Chol-2, R-Inv, D-Rdg, …), never re-solved here.
//!
//! - [`BlsParams`] → [`BlsValidParams`] — initial network, output layer
//!   ([`Readout`](crate::Readout): strategy, λ, precision), seed, Chen's
//!   constants, unchecked and validated;
//! - [`IncrementalBls`] — start, increments, [`UpdateReport`]s, predictions;
//! - [`Bls`] — the fitted model (maps + weights), batch [`Fit`](crate::Fit),
//!   save/load ([`Persist`](crate::Persist), [`io`]);
//! - [`Expansion`], [`FeatureGroup`], [`EnhancementGroup`], [`Block`] — the
//!   node maps and the column order of `A`;
//! - [`lasso_admm`] — the sparse autoencoder's ADMM (Chen's `sparse_bls`);
//! - [`BlsValidParams::fit_chunks`], [`BlsValidParams::fit_shards`] — the
//!   initial network fitted from chunks of rows ([`Chunk`]), on one process
//!   or on shards over several, without holding all the rows.
//!
//! Construction details follow Chen's reference MATLAB code (`bls_train.m`
//! and its incremental variants), with these documented choices: the random
//! map `A1` of a feature group is min–max scaled per column (Chen: per row),
//! the enhancement shrink uses the largest magnitude (Chen: the largest
//! value), the enhancement weights are uniform as the paper states and
//! orthonormalized as Chen's code does (`orth`) only on request
//! ([`EnhancementWeights`]), and every group draws from its own seeded
//! stream.
//!
//! Notation: samples are rows (`X` K×d, `Y` K×M, `A` K×n, `W` n×M).

mod columns;
mod incremental;
pub mod io;
mod model;
mod nodes;
mod orth;
mod params;
mod sparse;
mod stream;

pub use incremental::{Increment, IncrementalBls, UpdateReport};
pub use model::Bls;
pub use nodes::{Block, EnhancementGroup, Expansion, FeatureGroup, BIAS_INPUT};
pub use orth::EnhancementWeights;
pub use params::{BlsParams, BlsValidParams};
pub use sparse::{lasso_admm, soft_threshold};
pub use stream::Chunk;
