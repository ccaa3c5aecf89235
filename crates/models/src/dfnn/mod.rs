//! The deep feedforward network of Palagi & Seccia, *Block layer
//! decomposition schemes for training deep neural networks* (algorithms.md
//! §6): any list of layer widths, sigmoid hidden layers, a linear output
//! layer, and the objective (3) with its gradient, whole or one layer's
//! block at a time — what B2LD and BLInG decompose.
//!
//! Here so far: [`Dfnn`] (the network: weights per layer, biases in the last
//! column), [`Objective3`] (eq. (3) on a data set: a forward pass that keeps
//! every layer's activations, a backward pass that stops at a given layer,
//! batched as matrix products over all samples), [`FullObjective`] (all
//! weights, for the L-BFGS baseline) and [`BlockObjective`] (one layer's
//! block with the others fixed, reusing the activations below it). The
//! trainers (B2LD, BLInG, IG) come with issue 19.

mod network;
mod objective;

pub use network::Dfnn;
pub use objective::{BlockObjective, Forward, FullObjective, Objective3};

#[cfg(test)]
mod tests;
