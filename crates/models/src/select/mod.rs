//! Choosing the ridge parameter λ and the number of hidden nodes of an ELM or
//! a BLS: by leave-one-out, by k-fold cross-validation, on a held-out
//! validation set, and by growing the network until the validation error
//! stops improving.
//!
//! - [`folds`] — the seeded folds and validation splits (stratified by class
//!   for classification), in the order of [`crate::rng::shuffled_indices`].
//! - [`lambda`] — λ (and the size) by leave-one-out, k-fold or a validation
//!   fraction, on one hidden layer: [`lambda::select`].
//! - [`scales`] — the hidden layer's scale too: [`lambda::select`] on one
//!   hidden layer per scale of a grid, the best of all
//!   ([`scales::select_over_scales`]).
//! - [`grow`] — grow q nodes at a time with an incremental strategy, score the
//!   validation set after every append, stop after `patience` appends without
//!   improvement and return the network at its best size with the whole curve.
//!
//! Every method scores a candidate by a [`Criterion`] — the mean squared
//! error over samples and outputs, or the classification error of one-hot
//! targets — and reports every candidate it tried as a [`CurvePoint`].

pub mod folds;
pub mod grow;
pub mod lambda;
pub mod scales;

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

/// What a candidate (a λ, a size) is scored by; lower is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Criterion {
    /// Mean over samples and outputs of the squared error.
    MeanSquaredError,
    /// Fraction of samples whose largest output is not in the column of their
    /// target's largest entry (one-hot targets, ties to the first column).
    ClassificationError,
}

impl Criterion {
    /// `mse` or `classification error`.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::MeanSquaredError => "mse",
            Criterion::ClassificationError => "classification error",
        }
    }

    /// The score of `predictions` (K×M) against `targets` (K×M).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if the shapes differ,
    /// [`linalg_core::Error::Empty`] for no rows or no columns.
    pub fn score(self, predictions: ArrayView2<'_, f64>, targets: ArrayView2<'_, f64>) -> Result<f64> {
        if predictions.dim() != targets.dim() {
            return Err(linalg_core::Error::Shape {
                what: "predictions",
                expected: format!("{}×{} (the targets' shape)", targets.nrows(), targets.ncols()),
                found: format!("{}×{}", predictions.nrows(), predictions.ncols()),
            }
            .into());
        }
        let (k, m) = targets.dim();
        if k == 0 || m == 0 {
            return Err(linalg_core::Error::Empty {
                what: "targets",
                rows: k,
                cols: m,
            }
            .into());
        }
        Ok(match self {
            Criterion::MeanSquaredError => {
                let sum: f64 = predictions
                    .iter()
                    .zip(targets.iter())
                    .map(|(p, t)| (p - t) * (p - t))
                    .sum();
                sum / (k * m) as f64
            }
            Criterion::ClassificationError => {
                let wrong = predictions
                    .rows()
                    .into_iter()
                    .zip(targets.rows())
                    .filter(|(p, t)| argmax(p.iter().copied()) != argmax(t.iter().copied()))
                    .count();
                wrong as f64 / k as f64
            }
        })
    }
}

pub(crate) use linalg_core::argmax;

/// One candidate a selection tried and its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The ridge parameter.
    pub lambda: f64,
    /// The number of hidden nodes.
    pub nodes: usize,
    /// The hidden layer's scale as a number (the ELM's `s` of `U[−s, s)`,
    /// the BLS's shrink), where the selection records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// The score ([`Criterion`]): the leave-one-out error, the mean over the
    /// folds, or the validation error. NaN when the candidate could not be
    /// fitted (e.g. `AᵀA + λI` not numerically positive definite).
    pub score: f64,
    /// The standard deviation of the score over the folds (0 for
    /// leave-one-out and a validation set).
    pub spread: f64,
}

/// The index of the best point of `curve`: the lowest score (NaN never
/// wins); among equal scores the first.
///
/// # Errors
/// [`ModelError::InvalidParameter`] naming `candidates` when no score is a
/// number.
pub fn best(curve: &[CurvePoint]) -> Result<usize> {
    let mut chosen: Option<usize> = None;
    for (i, p) in curve.iter().enumerate() {
        if p.score.is_nan() {
            continue;
        }
        if chosen.is_none_or(|c| p.score < curve[c].score) {
            chosen = Some(i);
        }
    }
    chosen.ok_or_else(|| ModelError::InvalidParameter {
        name: "candidates",
        value: format!("{} tried", curve.len()),
        reason: "no candidate could be fitted (every score is NaN)",
    })
}
