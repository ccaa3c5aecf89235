//! Hyper-parameters of an ELM: nodes, activation, seed and the output layer
//! ([`Readout`]: solver and λ), unchecked ([`ElmParams`]) and validated
//! ([`ElmValidParams`]).

use crate::activation::Activation;
use crate::error::Result;
use crate::readout::{Readout, ReadoutSolver};
use crate::traits::ParamGuard;
use crate::validate;

/// Validated hyper-parameters of an ELM ([`ElmParams::check`](ParamGuard::check)):
/// `nodes ≥ 1`, an admissible [`Readout`]. They [`Fit`](crate::Fit) an
/// [`Elm`](super::Elm) and start an [`IncrementalElm`](super::IncrementalElm).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElmValidParams {
    nodes: usize,
    activation: Activation,
    readout: Readout,
    seed: u64,
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

    /// `nodes` nodes of `activation`, λ = [`Self::DEFAULT_LAMBDA`],
    /// [`Self::DEFAULT_SOLVER`], seed [`Self::DEFAULT_SEED`].
    pub fn new(nodes: usize, activation: Activation) -> Self {
        Self(ElmValidParams {
            nodes,
            activation,
            readout: Readout::new(Self::DEFAULT_SOLVER, Self::DEFAULT_LAMBDA),
            seed: Self::DEFAULT_SEED,
        })
    }

    /// With `nodes` hidden nodes.
    pub fn with_nodes(mut self, nodes: usize) -> Self {
        self.0.nodes = nodes;
        self
    }

    /// With activation `activation`.
    pub fn with_activation(mut self, activation: Activation) -> Self {
        self.0.activation = activation;
        self
    }

    crate::readout::readout_setters!();

    /// With hidden-layer seed `seed`.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
}

impl ParamGuard for ElmParams {
    type Checked = ElmValidParams;

    /// `nodes ≥ 1`; λ finite and > 0 for every solver that uses it.
    fn check_ref(&self) -> Result<&ElmValidParams> {
        validate::at_least_one("nodes", self.0.nodes, "an ELM needs at least one hidden node")?;
        self.0.readout.check()?;
        Ok(&self.0)
    }

    fn check(self) -> Result<ElmValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}
