//! Hyper-parameters of a Broad Learning System: the initial network, the
//! output layer ([`Readout`]: strategy, λ, precision), the seed and the
//! constants of Chen's reference code (shrink scale, sparse-autoencoder μ
//! and iterations); unchecked ([`BlsParams`]) and validated
//! ([`BlsValidParams`]).

use linalg_core::ridge::Strategy;

use super::orth::EnhancementWeights;
use crate::error::{ModelError, Result};
use crate::readout::{Readout, ReadoutSolver};
use crate::traits::ParamGuard;
use crate::validate;

/// Validated hyper-parameters of a BLS ([`BlsParams::check`](ParamGuard::check)).
/// They [`Fit`](crate::Fit) a [`Bls`](super::Bls) and start an
/// [`IncrementalBls`](super::IncrementalBls): the initial network
/// `A₀ = [Z_1 … Z_G | H_1]` of `G` feature groups of `N` nodes (the BLS
/// paper's eqs. (9)–(10)) and `E` enhancement nodes fed by all of them
/// (eqs. (11)–(12)), the output layer (eqs. (6)–(8), (13)), the seed of
/// every random map, and the constants of Chen & Liu's reference MATLAB code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlsValidParams {
    feature_groups: usize,
    feature_nodes: usize,
    enhancement_nodes: usize,
    readout: Readout,
    seed: u64,
    shrink: f64,
    enhancement_weights: EnhancementWeights,
    sparse_mu: f64,
    admm_iterations: usize,
}

impl BlsValidParams {
    /// Number `G ≥ 1` of feature-node groups ("windows") of the initial network.
    pub fn feature_groups(&self) -> usize {
        self.feature_groups
    }

    /// Nodes `N ≥ 1` per initial feature group.
    pub fn feature_nodes(&self) -> usize {
        self.feature_nodes
    }

    /// Enhancement nodes `E ≥ 0` of the initial network, one group fed by all
    /// `G·N` feature nodes.
    pub fn enhancement_nodes(&self) -> usize {
        self.enhancement_nodes
    }

    /// Total nodes `G·N + E` of the initial network (checked not to overflow).
    pub fn initial_nodes(&self) -> usize {
        self.feature_groups * self.feature_nodes + self.enhancement_nodes
    }

    /// The output layer: the solver (a strategy, or ridge grown as D-Rdg),
    /// λ, and the precision the solver stores `A` in.
    pub fn readout(&self) -> &Readout {
        &self.readout
    }

    /// Ridge parameter λ > 0 (Chen's `C`; for Orig. and Exg-E only the
    /// initial ridge approximation of the generalized inverse, eq. (8)).
    pub fn lambda(&self) -> f64 {
        self.readout.lambda()
    }

    /// Seed of every random map (feature group `i` and enhancement group `j`
    /// each draw from their own stream of `(seed, kind, index)`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Shrink scale `s > 0` of the enhancement nodes: their input is scaled
    /// so that its largest magnitude on the training data is `s`.
    pub fn shrink(&self) -> f64 {
        self.shrink
    }

    /// How the enhancement weights `W_h` are drawn (uniform, or
    /// orthonormalized as Chen's code does).
    pub fn enhancement_weights(&self) -> EnhancementWeights {
        self.enhancement_weights
    }

    /// The shrink scale and the kind of draw, as the enhancement groups take
    /// them.
    pub(crate) fn enhancement_draw(&self) -> (f64, EnhancementWeights) {
        (self.shrink, self.enhancement_weights)
    }

    /// Weight `μ ≥ 0` of the ℓ₁ penalty of the sparse autoencoder that
    /// fine-tunes each feature group.
    pub fn sparse_mu(&self) -> f64 {
        self.sparse_mu
    }

    /// ADMM iterations `≥ 1` of the sparse autoencoder.
    pub fn admm_iterations(&self) -> usize {
        self.admm_iterations
    }
}

/// Hyper-parameters of a BLS, unchecked: set them, then
/// [`check`](ParamGuard::check) (or [`fit`](crate::Fit::fit), which checks).
///
/// ```
/// use linalg_core::ridge::Strategy;
/// use models::bls::BlsParams;
/// use models::prelude::*;
/// use models::ModelError;
/// // The BLS paper's MNIST start: 6 groups of 10 feature nodes, 3000 enhancement nodes.
/// let params = BlsParams::new(6, 10, 3000).with_lambda(1e-8).with_strategy(Strategy::Chol2).with_seed(1).check()?;
/// assert_eq!(params.shrink(), 0.8);
/// assert_eq!(BlsParams::DEFAULT_LAMBDA, 2f64.powi(-30));
/// let err = BlsParams::new(0, 10, 3000).check().unwrap_err();
/// assert!(matches!(err, ModelError::InvalidParameter { name: "feature_groups", .. }));
/// # Ok::<(), ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlsParams(BlsValidParams);

impl BlsParams {
    /// The default ridge parameter `λ = 2⁻³⁰`: Chen & Liu's `C = 2⁻³⁰`, the
    /// value of their BLS code and the smallest λ of the ridge-solutions
    /// paper's grid. With the default strategy Chol-2 (stable for tiny λ)
    /// and features scaled onto [0, 1], `nn fit --model bls` on MNIST with
    /// 6 × 10 feature and 3000 enhancement nodes reaches 98.1% test accuracy
    /// at 2⁻³⁰ against 95.3% at 2⁻¹⁰ (the command line's default before the
    /// model seam; measured 2026-11-23). The paper reproduction sets λ
    /// explicitly for each cell.
    pub const DEFAULT_LAMBDA: f64 = 1.0 / (1u64 << 30) as f64;
    /// The default strategy: Chol-2, the BLS paper's numerically stable
    /// ridge solution.
    pub const DEFAULT_STRATEGY: Strategy = Strategy::Chol2;
    /// The default number of feature groups of the initial network.
    pub const DEFAULT_FEATURE_GROUPS: usize = 10;
    /// The default number of nodes per feature group.
    pub const DEFAULT_FEATURE_NODES: usize = 10;
    /// The default number of enhancement nodes of the initial network.
    pub const DEFAULT_ENHANCEMENT_NODES: usize = 1000;
    /// The default seed.
    pub const DEFAULT_SEED: u64 = 0;
    /// Chen's shrink scale of the enhancement nodes.
    pub const DEFAULT_SHRINK: f64 = 0.8;
    /// Chen's ℓ₁ weight of the sparse autoencoder.
    pub const DEFAULT_SPARSE_MU: f64 = 1e-3;
    /// Chen's number of ADMM iterations.
    pub const DEFAULT_ADMM_ITERATIONS: usize = 50;

    /// `feature_groups` groups of `feature_nodes` feature nodes and
    /// `enhancement_nodes` enhancement nodes; λ = [`Self::DEFAULT_LAMBDA`],
    /// [`Self::DEFAULT_STRATEGY`], f64, seed 0, Chen's constants.
    pub fn new(feature_groups: usize, feature_nodes: usize, enhancement_nodes: usize) -> Self {
        Self(BlsValidParams {
            feature_groups,
            feature_nodes,
            enhancement_nodes,
            readout: Readout::new(ReadoutSolver::Strategy(Self::DEFAULT_STRATEGY), Self::DEFAULT_LAMBDA),
            seed: Self::DEFAULT_SEED,
            shrink: Self::DEFAULT_SHRINK,
            enhancement_weights: EnhancementWeights::Uniform,
            sparse_mu: Self::DEFAULT_SPARSE_MU,
            admm_iterations: Self::DEFAULT_ADMM_ITERATIONS,
        })
    }

    crate::readout::readout_setters!();

    /// With output-weight strategy `strategy` (the solver
    /// [`ReadoutSolver::Strategy`]; [`ReadoutSolver::Ridge`] grows as D-Rdg,
    /// and [`ReadoutSolver::Lstsq`] is refused by the check: the BLS grows
    /// its output weights).
    pub fn with_strategy(self, strategy: Strategy) -> Self {
        self.with_solver(ReadoutSolver::Strategy(strategy))
    }

    crate::readout::field_setters!(
        /// With seed `seed`.
        with_seed(seed: u64),
        /// With enhancement shrink scale `shrink`.
        with_shrink(shrink: f64),
        /// With the enhancement weights drawn as `enhancement_weights` says
        /// (default [`EnhancementWeights::Uniform`], the paper's text;
        /// [`EnhancementWeights::Orthonormal`] is Chen's code).
        with_enhancement_weights(enhancement_weights: EnhancementWeights),
        /// With sparse-autoencoder ℓ₁ weight `sparse_mu`.
        with_sparse_mu(sparse_mu: f64),
        /// With `admm_iterations` ADMM iterations of the sparse autoencoder.
        with_admm_iterations(admm_iterations: usize),
    );
}

impl Default for BlsParams {
    /// The network of `nn fit --model bls` without flags:
    /// [`Self::DEFAULT_FEATURE_GROUPS`] × [`Self::DEFAULT_FEATURE_NODES`]
    /// feature nodes and [`Self::DEFAULT_ENHANCEMENT_NODES`] enhancement nodes.
    fn default() -> Self {
        Self::new(
            Self::DEFAULT_FEATURE_GROUPS,
            Self::DEFAULT_FEATURE_NODES,
            Self::DEFAULT_ENHANCEMENT_NODES,
        )
    }
}

/// The checked parameters back as settable ones (to change one and check
/// again: `BlsParams::from(valid).with_shrink(0.5).check()`).
impl From<BlsValidParams> for BlsParams {
    fn from(valid: BlsValidParams) -> Self {
        Self(valid)
    }
}

impl ParamGuard for BlsParams {
    type Checked = BlsValidParams;

    /// `G ≥ 1`, `N ≥ 1`, `G·N + E` representable, λ finite and > 0, a solver
    /// that grows (not least squares), shrink finite and > 0, μ finite and
    /// ≥ 0, at least one ADMM iteration.
    fn check_ref(&self) -> Result<&BlsValidParams> {
        let p = &self.0;
        validate::at_least_one(
            "feature_groups",
            p.feature_groups,
            "a BLS needs at least one group of feature nodes",
        )?;
        validate::at_least_one(
            "feature_nodes",
            p.feature_nodes,
            "a feature group needs at least one node",
        )?;
        p.feature_groups
            .checked_mul(p.feature_nodes)
            .and_then(|f| f.checked_add(p.enhancement_nodes))
            .ok_or_else(|| ModelError::InvalidParameter {
                name: "feature_groups × feature_nodes + enhancement_nodes",
                value: format!("{} × {} + {}", p.feature_groups, p.feature_nodes, p.enhancement_nodes),
                reason: "the number of nodes overflows",
            })?;
        p.readout.check()?;
        p.readout.strategy()?;
        shrink(p.shrink)?;
        sparse_mu(p.sparse_mu)?;
        validate::at_least_one(
            "admm_iterations",
            p.admm_iterations,
            "the sparse autoencoder needs at least one ADMM iteration",
        )?;
        Ok(p)
    }

    fn check(self) -> Result<BlsValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}

/// The shrink scale is finite and > 0.
pub(crate) fn shrink(shrink: f64) -> Result<()> {
    validate::finite_scalar(
        "shrink",
        shrink,
        true,
        "the enhancement shrink scale must be finite and > 0",
    )
}

/// The ℓ₁ weight is finite and ≥ 0.
pub(crate) fn sparse_mu(mu: f64) -> Result<()> {
    validate::finite_scalar(
        "sparse_mu",
        mu,
        false,
        "the ℓ₁ weight of the sparse autoencoder must be finite and ≥ 0",
    )
}
