//! The deep feedforward network of Palagi & Seccia, *Block layer
//! decomposition schemes for training deep neural networks* (algorithms.md
//! §6): any list of layer widths, sigmoid hidden layers, a linear output
//! layer, the objective (3) with its gradient, whole or one layer's block
//! at a time, and the trainers that decompose it.
//!
//! - [`Dfnn`]: the network (weights per layer, biases in the last column
//!   or none: [`Bias`]);
//! - [`Objective3`]: eq. (3) on a data set, a forward pass that keeps
//!   every layer's activations and a backward pass that stops at a given
//!   layer, batched as matrix products over all samples into a
//!   [`Workspace`] made once per fit; [`FullObjective`] (all weights) and
//!   [`BlockObjective`] (one layer's block, the activations below reused)
//!   for `optim`;
//! - trainers ([`DfnnTrainer`], run by [`Dfnn::fit`]): [`B2ld`] (Algorithm
//!   3), [`FullLbfgs`] (its baseline), [`Incremental`] for BLInG
//!   (Algorithm 5) and IG; each ends with a [`TrainReport`] (objective,
//!   gradient norm, updates per layer — the paper's Table 5 —, time, the
//!   objective's history).

mod b2ld;
mod incremental;
mod lbfgs;
mod network;
mod objective;
mod params;
mod train;

pub use b2ld::{B2ld, StallRule};
pub use incremental::{Incremental, IncrementalKind};
pub use lbfgs::FullLbfgs;
pub use network::{Bias, Dfnn, MAGIC};
pub use objective::{BlockObjective, FullObjective, Objective3, Workspace};
pub use params::{DfnnParams, DfnnValidParams};
pub use train::{DfnnTrainer, Progress, TracePoint, TrainReport};

/// The starting weights' default range `[−INIT_SCALE, INIT_SCALE]`
/// ([`Dfnn::random`]'s `scale`). Palagi & Seccia do not state theirs; 0.5
/// is Grippo, Manno & Sciandrone's `w⁰ ~ U[−0.5, 0.5]`, the same school's
/// choice for the same sigmoid networks.
pub const INIT_SCALE: f64 = 0.5;

#[cfg(test)]
mod tests;
