//! Hyper-parameters of an ELM: nodes, activation, seed and the output layer
//! ([`Readout`]: solver and λ), unchecked ([`ElmParams`]) and validated
//! ([`ElmValidParams`]).

use crate::activation::Activation;
use crate::error::Result;
use crate::readout::{Readout, ReadoutSolver};
use crate::traits::ParamGuard;
use crate::validate;

/// The scale `s` of an ELM's random input weights, uniform on `[−s, s)`.
///
/// With z-scored features (unit variance), weights uniform on `[−1, 1)`
/// give a node's input `xᵀw + b` a standard deviation near `√(N/3)` (16 on
/// MNIST's 784 pixels), so most sigmoid nodes saturate and the hidden
/// matrix loses rank in practice. [`InputScale::InverseSqrtInputs`] (the
/// default) keeps that standard deviation near `√(1/3 + 1/3) ≈ 0.8` for any
/// `N`: `cargo xtask fit --model elm` on MNIST with 2000 sigmoid nodes and
/// ridge goes from 90.9% test accuracy (`s = 1`) to 93.1% (`s = 1/√784`).
/// The papers' protocols use [`InputScale::Fixed`]`(1.0)` (MATLAB ELM's
/// `rand*2-1`, Zhu & Wei's experiments) and scale their inputs themselves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputScale {
    /// `s = 1/√N` for `N` inputs (the default).
    InverseSqrtInputs,
    /// A fixed `s > 0` (finite); `Fixed(1.0)` is MATLAB ELM's `rand*2-1`.
    Fixed(f64),
}

impl InputScale {
    /// The factor `s` for `n_inputs` inputs.
    pub fn factor(self, n_inputs: usize) -> f64 {
        match self {
            InputScale::InverseSqrtInputs => 1.0 / (n_inputs.max(1) as f64).sqrt(),
            InputScale::Fixed(s) => s,
        }
    }

    fn check(self) -> Result<()> {
        if let InputScale::Fixed(s) = self {
            validate::finite_scalar("input_scale", s, true, "the input-weight scale must be finite and > 0")?;
        }
        Ok(())
    }
}

/// Validated hyper-parameters of an ELM ([`ElmParams::check`](ParamGuard::check)):
/// `nodes ≥ 1`, an admissible [`Readout`]. They [`Fit`](crate::Fit) an
/// [`Elm`](super::Elm) and start an [`IncrementalElm`](super::IncrementalElm).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElmValidParams {
    nodes: usize,
    activation: Activation,
    readout: Readout,
    seed: u64,
    input_scale: InputScale,
}

impl ElmValidParams {
    /// Number of hidden nodes `l ≥ 1` (for an incremental ELM: the nodes it
    /// starts from).
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// Activation of the hidden nodes.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// The output layer: solver, λ, precision.
    pub fn readout(&self) -> &Readout {
        &self.readout
    }

    /// Ridge parameter λ (Zhu & Wei's `k₀²`; not used by
    /// [`ReadoutSolver::Lstsq`]).
    pub fn lambda(&self) -> f64 {
        self.readout.lambda()
    }

    /// Output-weight solver.
    pub fn solver(&self) -> ReadoutSolver {
        self.readout.solver()
    }

    /// Seed of the random hidden layer.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The scale of the random input weights.
    pub fn input_scale(&self) -> InputScale {
        self.input_scale
    }
}

/// Hyper-parameters of an ELM, unchecked: set them, then
/// [`check`](ParamGuard::check) (or [`fit`](crate::Fit::fit), which checks).
///
/// ```
/// use models::prelude::*;
/// use models::{Activation, ElmParams, ModelError, ReadoutSolver};
/// let params = ElmParams::new(100, Activation::Sigmoid).with_lambda(1e-3).with_seed(42).check()?;
/// assert_eq!(params.solver(), ReadoutSolver::Ridge);
/// assert_eq!(ElmParams::DEFAULT_LAMBDA, 0.1);
/// let err = ElmParams::new(0, Activation::Sigmoid).check().unwrap_err();
/// assert!(matches!(err, ModelError::InvalidParameter { name: "nodes", .. }));
/// # Ok::<(), ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElmParams(ElmValidParams);

impl ElmParams {
    /// The ridge parameter Zhu & Wei use in all their experiments
    /// (`k₀² = 0.1`): the default of every ELM fit (`nn fit --model elm`).
    pub const DEFAULT_LAMBDA: f64 = 0.1;
    /// The default output-weight solver: batch ridge.
    pub const DEFAULT_SOLVER: ReadoutSolver = ReadoutSolver::Ridge;
    /// The default activation: the sigmoid (Zhu & Wei's experiments).
    pub const DEFAULT_ACTIVATION: Activation = Activation::Sigmoid;
    /// The default seed of the hidden layer.
    pub const DEFAULT_SEED: u64 = 0;
    /// The default scale of the input weights: `1/√N` (see [`InputScale`]).
    pub const DEFAULT_INPUT_SCALE: InputScale = InputScale::InverseSqrtInputs;

    /// `nodes` nodes of `activation`, λ = [`Self::DEFAULT_LAMBDA`],
    /// [`Self::DEFAULT_SOLVER`], seed [`Self::DEFAULT_SEED`], input weights
    /// scaled by [`Self::DEFAULT_INPUT_SCALE`].
    pub fn new(nodes: usize, activation: Activation) -> Self {
        Self(ElmValidParams {
            nodes,
            activation,
            readout: Readout::new(Self::DEFAULT_SOLVER, Self::DEFAULT_LAMBDA),
            seed: Self::DEFAULT_SEED,
            input_scale: Self::DEFAULT_INPUT_SCALE,
        })
    }

    crate::readout::field_setters!(
        /// With `nodes` hidden nodes.
        with_nodes(nodes: usize),
        /// With activation `activation`.
        with_activation(activation: Activation),
    );

    crate::readout::readout_setters!();

    crate::readout::field_setters!(
        /// With hidden-layer seed `seed`.
        with_seed(seed: u64),
        /// With the input weights scaled by `input_scale`.
        with_input_scale(input_scale: InputScale),
    );
}

impl ParamGuard for ElmParams {
    type Checked = ElmValidParams;

    /// `nodes ≥ 1`; λ finite and > 0 for every solver that uses it; a fixed
    /// input scale finite and > 0.
    fn check_ref(&self) -> Result<&ElmValidParams> {
        validate::at_least_one("nodes", self.0.nodes, "an ELM needs at least one hidden node")?;
        self.0.readout.check()?;
        self.0.input_scale.check()?;
        Ok(&self.0)
    }

    fn check(self) -> Result<ElmValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}
