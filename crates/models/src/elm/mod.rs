//! The extreme learning machine (ELM), batch and incremental (Zhu & Wei,
//! *Efficient inverse-free algorithms for extreme learning machine*, Sec. II–V;
//! algorithms.md §3).
//!
//! An ELM is a single-hidden-layer network whose input weights and biases are
//! drawn at random and fixed; only the output weights are fitted, by ridge
//! least squares on the hidden-layer matrix `A` (K samples × l nodes):
//!
//! ```text
//! A = f(X W_in + 1 bᵀ),      W = (AᵀA + λI)⁻¹ AᵀY        (Zhu & Wei (5), (10), transposed)
//! ```
//!
//! - [`HiddenLayer`] — the random layer, reproducible and growable node by
//!   node from a seed;
//! - [`ElmParams`] → [`ElmValidParams`] — the hyper-parameters, unchecked
//!   and validated (linfa's `ParamGuard`);
//! - [`Elm`] — the batch fit ([`Fit`](crate::Fit) on a
//!   [`Dataset`](crate::Dataset)), the output weights solved by the
//!   [`Readout`](crate::Readout): Cholesky ridge, minimum-norm least squares
//!   ([`lstsq`] is the pure-Rust reference) or any of linalg-core's strategies;
//! - [`IncrementalElm`] — nodes added a few at a time, the weights updated by
//!   a [`linalg_core::ridge::Strategy`] (Zhu & Wei's Alg. 1–3, Li et al., the
//!   BLS paper's strategies);
//! - [`ElmValidParams::fit_chunks`] — the same ridge fit from chunks of
//!   rows, keeping only the Gram sums of the hidden outputs (memory
//!   independent of the number of rows);
//! - save/load of an [`Elm`] ([`Persist`](crate::Persist), [`io`]).
//!
//! Notation: samples are rows (`X` is K×N, `Y` K×M, `A` K×l, `W` l×M); Zhu &
//! Wei store the transposes.

mod hidden;
mod incremental;
pub mod io;
pub mod lstsq;
mod model;
mod params;
mod stream;

pub use hidden::HiddenLayer;
pub use incremental::IncrementalElm;
pub use model::Elm;
pub use params::{ElmParams, ElmValidParams, InputScale};
pub use stream::Chunk;
