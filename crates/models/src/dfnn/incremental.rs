//! BLInG, Palagi & Seccia's Block Layer Incremental Gradient (Algorithm
//! 5), and its non-decomposed counterpart IG: minibatches in a fixed
//! order; per minibatch BLInG steps every layer's block in turn (backward
//! order, as B2LD) along its own negative block gradient, IG steps all
//! weights at once; both with the normalized step `αᵏ / max{β, min{γ,
//! ‖d‖}}` and the diminishing `αᵏ⁺¹ = αᵏ(1 − εαᵏ)`.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use ndarray::Array2;
use optim::{DiminishingStep, NormalizedStep, Termination};

use super::objective::{squared_norm, Objective3, Workspace};
use super::train::{final_state, Progress, TracePoint, TrainReport};
use crate::error::Result;
use crate::validate;

/// BLInG or IG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncrementalKind {
    /// Block Layer Incremental Gradient: per minibatch, each layer's block
    /// in turn from the output back, the activations below the block
    /// reused.
    Bling,
    /// Incremental gradient: per minibatch, one step on all weights.
    Ig,
}

/// The minibatch methods' settings. The paper fixes `α⁰` (IG 0.5, BLInG
/// `0.5 / max{1, L − 2}`), `ε = 5·10⁻³`, the clamps `β = 10⁻³`, `γ =
/// 10⁶` and a 60 s limit, but not the minibatch size (ours: 128). Its
/// minibatches are used "in an order fixed a priori": here the rows are
/// put in one random order at the start (`shuffle`), then cut into
/// minibatches visited in the same order every epoch; in the file's own
/// order a set sorted by class (as UCI's MAGIC is) ends every epoch on one
/// class and an incremental method forgets the other.
#[derive(Clone, Debug, PartialEq)]
pub struct Incremental {
    /// BLInG or IG.
    pub kind: IncrementalKind,
    /// Samples per minibatch; the last may be smaller.
    pub batch_size: usize,
    /// `α⁰`; `None` for the paper's value of the kind.
    pub alpha0: Option<f64>,
    /// The `ε` of `αᵏ⁺¹ = αᵏ(1 − εαᵏ)` (paper: 5·10⁻³).
    pub epsilon: f64,
    /// The clamps `β`, `γ` of the normalization (paper: 10⁻³, 10⁶).
    pub step: NormalizedStep,
    /// Stop after this much training time (paper: 60 s), checked after
    /// every minibatch.
    pub time_limit: Option<Duration>,
    /// Stop after this many passes over the data.
    pub max_epochs: usize,
    /// The seed of the one random order of the rows made at the start;
    /// `None`: the rows as given.
    pub shuffle: Option<u64>,
}

impl Incremental {
    /// The paper's settings for `kind`, no time limit, at most 100 epochs.
    pub fn new(kind: IncrementalKind) -> Self {
        Self {
            kind,
            batch_size: 128,
            alpha0: None,
            epsilon: 5e-3,
            step: NormalizedStep::PAPER,
            time_limit: None,
            max_epochs: 100,
            shuffle: Some(0),
        }
    }

    /// `bling` or `ig`.
    pub fn name(&self) -> &'static str {
        match self.kind {
            IncrementalKind::Bling => "bling",
            IncrementalKind::Ig => "ig",
        }
    }

    /// `α⁰` for a network of `layers` layers.
    pub fn initial_step(&self, layers: usize) -> f64 {
        self.alpha0.unwrap_or(match self.kind {
            IncrementalKind::Ig => 0.5,
            IncrementalKind::Bling => 0.5 / (layers.saturating_sub(2).max(1)) as f64,
        })
    }

    /// At least one sample per minibatch and one epoch (the step-size
    /// rule's settings are checked when it is built, at the start of a fit).
    ///
    /// # Errors
    /// [`crate::ModelError::InvalidParameter`] naming the setting.
    pub fn check(&self) -> Result<()> {
        validate::at_least_one("batch_size", self.batch_size, "a minibatch needs at least one sample")?;
        validate::at_least_one("max_epochs", self.max_epochs, "the fit needs at least one epoch")?;
        Ok(())
    }

    pub(crate) fn run(
        &self,
        objective: Objective3<'_>,
        weights: &mut [Array2<f64>],
        mut progress: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<TrainReport> {
        self.check()?;
        let big_l = weights.len();
        let mut alpha = DiminishingStep::new(self.initial_step(big_l), self.epsilon).map_err(|e| {
            crate::ModelError::InvalidParameter {
                name: "step",
                value: e.to_string(),
                reason: "the diminishing step needs 0 < α⁰, 0 < ε < 1, εα⁰ < 1",
            }
        })?;
        let p = objective.samples();
        // The rows in the fixed order the minibatches are cut from.
        let (xs, ys);
        let ordered = match self.shuffle {
            Some(seed) => {
                let order = permutation(p, seed);
                xs = objective.x().select(ndarray::Axis(0), &order);
                ys = objective.y().select(ndarray::Axis(0), &order);
                Objective3::new(xs.view(), ys.view(), objective.rho())?
            }
            None => Objective3::new(objective.x(), objective.y(), objective.rho())?,
        };
        let b = self.batch_size.min(p);
        let ranges: Vec<_> = (0..p).step_by(b).map(|s| s..(s + b).min(p)).collect();
        let mut ws_full = ordered.rows(0..b).workspace(weights);
        let mut ws_tail = ranges
            .last()
            .filter(|r| r.len() < b)
            .map(|r| ordered.rows(r.clone()).workspace(weights));
        let mut grads = weights.to_vec();
        let mut eval_ws = objective.workspace(weights);
        let mut updates = vec![0; big_l];

        let mut trained = Duration::ZERO;
        objective.forward(weights, &mut eval_ws);
        let mut trace = vec![TracePoint {
            seconds: 0.0,
            objective: objective.value(weights, &eval_ws),
        }];
        let mut epochs = 0;
        let termination = 'epochs: loop {
            if epochs >= self.max_epochs {
                break Termination::MaxIterations;
            }
            let clock = Instant::now();
            for r in &ranges {
                let batch = ordered.rows(r.clone());
                let ws = match &mut ws_tail {
                    Some(tail) if r.len() < b => tail,
                    _ => &mut ws_full,
                };
                self.minibatch_step(&batch, ws, weights, &mut grads, alpha.alpha(), &mut updates);
                alpha.advance();
                if self.time_limit.is_some_and(|t| trained + clock.elapsed() >= t) {
                    trained += clock.elapsed();
                    epochs += 1;
                    break 'epochs Termination::TimeLimit;
                }
            }
            trained += clock.elapsed();
            epochs += 1;
            objective.forward(weights, &mut eval_ws);
            let f = objective.value(weights, &eval_ws);
            trace.push(TracePoint {
                seconds: trained.as_secs_f64(),
                objective: f,
            });
            if !f.is_finite() {
                break Termination::LineSearchFailed;
            }
            let flow = progress(&Progress {
                iteration: epochs,
                elapsed: trained,
                objective: f,
                gradient_norm: None,
            });
            if flow.is_break() {
                break Termination::Interrupted;
            }
        };
        let (objective_value, gradient_norm) = final_state(&objective, weights);
        if trace.last().is_some_and(|t| t.seconds < trained.as_secs_f64()) {
            trace.push(TracePoint {
                seconds: trained.as_secs_f64(),
                objective: objective_value,
            });
        }
        Ok(TrainReport {
            trainer: self.name(),
            objective: objective_value,
            gradient_norm,
            iterations: epochs,
            evaluations: 0,
            updates_per_layer: updates,
            termination,
            seconds: trained.as_secs_f64(),
            trace,
        })
    }

    /// One minibatch: a forward pass, then BLInG's block steps (layer `L`
    /// down to 1, each after a forward pass from the block just updated
    /// and a backward pass stopped at the next block) or IG's one step.
    fn minibatch_step(
        &self,
        batch: &Objective3<'_>,
        ws: &mut Workspace,
        weights: &mut [Array2<f64>],
        grads: &mut [Array2<f64>],
        alpha: f64,
        updates: &mut [usize],
    ) {
        let big_l = weights.len();
        batch.forward(weights, ws);
        match self.kind {
            IncrementalKind::Bling => {
                for l in (0..big_l).rev() {
                    if l + 1 < big_l {
                        batch.forward_from(weights, ws, l + 1);
                    }
                    batch.block_gradient(weights, ws, l, &mut grads[l]);
                    let norm = grads[l].iter().map(|v| v * v).sum::<f64>().sqrt();
                    let factor = self.step.factor(alpha, norm);
                    weights[l].scaled_add(-factor, &grads[l]);
                    updates[l] += 1;
                }
            }
            IncrementalKind::Ig => {
                batch.gradient(weights, ws, 0, grads);
                let factor = self.step.factor(alpha, squared_norm(grads).sqrt());
                for (w, g) in weights.iter_mut().zip(grads.iter()) {
                    w.scaled_add(-factor, g);
                }
                updates.iter_mut().for_each(|u| *u += 1);
            }
        }
    }
}

/// A random permutation of `0..n` from `seed` (Fisher–Yates on SplitMix64;
/// the modulo bias is below 2⁻⁴⁰ for any realistic `n`).
pub(crate) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = crate::rng::SplitMix64::new(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}
