//! Hyper-parameters of a Broad Learning System: the initial network, λ, the
//! output-weight strategy, the seed and the constants of Chen's reference
//! code (shrink scale, sparse-autoencoder μ and iterations).

use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};
use crate::validate;

/// Hyper-parameters of [`IncrementalBls::start`](super::IncrementalBls::start)
/// and [`Bls::fit`](super::Bls::fit): the initial network
/// `A₀ = [Z_1 … Z_G | H_1]` of `G` feature groups of `N` nodes (the BLS
/// paper's eqs. (9)–(10)) and `E` enhancement nodes fed by all of them
/// (eqs. (11)–(12)), the ridge parameter and strategy of the output weights
/// (eqs. (6)–(8), (13)), the seed of every random map, and the constants of
/// Chen & Liu's reference MATLAB code.
///
/// ```
/// use linalg_core::ridge::Strategy;
/// use models::bls::BlsConfig;
/// // The BLS paper's MNIST start: 6 groups of 10 feature nodes, 3000 enhancement nodes.
/// let cfg = BlsConfig::new(6, 10, 3000).with_lambda(1e-8).with_strategy(Strategy::Chol2).with_seed(1);
/// cfg.validate()?;
/// assert_eq!(cfg.shrink, 0.8);
/// assert!(BlsConfig::new(0, 10, 3000).validate().is_err());
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlsConfig {
    /// Number `G ≥ 1` of feature-node groups ("windows") of the initial network.
    pub feature_groups: usize,
    /// Nodes `N ≥ 1` per initial feature group.
    pub feature_nodes: usize,
    /// Enhancement nodes `E ≥ 0` of the initial network, one group fed by all
    /// `G·N` feature nodes.
    pub enhancement_nodes: usize,
    /// Ridge parameter λ > 0 (Chen's `C`; for Orig. and Exg-E only the
    /// initial ridge approximation of the generalized inverse, eq. (8)).
    pub lambda: f64,
    /// How the output weights are computed and updated.
    pub strategy: Strategy,
    /// Seed of every random map (feature group `i` and enhancement group `j`
    /// each draw from their own stream of `(seed, kind, index)`).
    pub seed: u64,
    /// Shrink scale `s > 0` of the enhancement nodes: their input is scaled
    /// so that its largest magnitude on the training data is `s` (Chen's
    /// `s = 0.8`).
    pub shrink: f64,
    /// Weight `μ ≥ 0` of the ℓ₁ penalty of the sparse autoencoder that
    /// fine-tunes each feature group (Chen's `1e-3`).
    pub sparse_mu: f64,
    /// ADMM iterations `≥ 1` of the sparse autoencoder (Chen's 50).
    pub admm_iterations: usize,
    /// Precision the solver stores the expanded matrix `A` in
    /// ([`Precision::F32`] halves its memory and rounds the columns to f32;
    /// see [`linalg_core::hidden_store`]). Default f64.
    pub precision: Precision,
}

impl BlsConfig {
    /// Chen & Liu's ridge parameter `C = 2⁻³⁰` (their ridge approximation of
    /// the generalized inverse).
    pub const DEFAULT_LAMBDA: f64 = 1.0 / (1u64 << 30) as f64;
    /// Chen's shrink scale of the enhancement nodes.
    pub const DEFAULT_SHRINK: f64 = 0.8;
    /// Chen's ℓ₁ weight of the sparse autoencoder.
    pub const DEFAULT_SPARSE_MU: f64 = 1e-3;
    /// Chen's number of ADMM iterations.
    pub const DEFAULT_ADMM_ITERATIONS: usize = 50;

    /// `feature_groups` groups of `feature_nodes` feature nodes and
    /// `enhancement_nodes` enhancement nodes; λ = [`Self::DEFAULT_LAMBDA`],
    /// [`Strategy::Chol2`] (the BLS paper's numerically stable ridge
    /// solution), seed 0, Chen's constants.
    pub fn new(feature_groups: usize, feature_nodes: usize, enhancement_nodes: usize) -> Self {
        Self {
            feature_groups,
            feature_nodes,
            enhancement_nodes,
            lambda: Self::DEFAULT_LAMBDA,
            strategy: Strategy::Chol2,
            seed: 0,
            shrink: Self::DEFAULT_SHRINK,
            sparse_mu: Self::DEFAULT_SPARSE_MU,
            admm_iterations: Self::DEFAULT_ADMM_ITERATIONS,
            precision: Precision::F64,
        }
    }

    /// With the solver's `A` stored in `precision`.
    pub fn with_precision(self, precision: Precision) -> Self {
        Self { precision, ..self }
    }

    /// With ridge parameter `lambda`.
    pub fn with_lambda(self, lambda: f64) -> Self {
        Self { lambda, ..self }
    }

    /// With output-weight strategy `strategy`.
    pub fn with_strategy(self, strategy: Strategy) -> Self {
        Self { strategy, ..self }
    }

    /// With seed `seed`.
    pub fn with_seed(self, seed: u64) -> Self {
        Self { seed, ..self }
    }

    /// With enhancement shrink scale `shrink`.
    pub fn with_shrink(self, shrink: f64) -> Self {
        Self { shrink, ..self }
    }

    /// With sparse-autoencoder ℓ₁ weight `sparse_mu`.
    pub fn with_sparse_mu(self, sparse_mu: f64) -> Self {
        Self { sparse_mu, ..self }
    }

    /// With `admm_iterations` ADMM iterations of the sparse autoencoder.
    pub fn with_admm_iterations(self, admm_iterations: usize) -> Self {
        Self {
            admm_iterations,
            ..self
        }
    }

    /// Total nodes `G·N + E` of the initial network.
    pub fn initial_nodes(&self) -> usize {
        self.feature_groups
            .saturating_mul(self.feature_nodes)
            .saturating_add(self.enhancement_nodes)
    }

    /// Check the configuration: `G ≥ 1`, `N ≥ 1`, λ finite and > 0, shrink
    /// finite and > 0, μ finite and ≥ 0, at least one ADMM iteration.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<()> {
        if self.feature_groups == 0 {
            return Err(ModelError::InvalidParameter {
                name: "feature_groups",
                value: "0".into(),
                reason: "a BLS needs at least one group of feature nodes",
            });
        }
        if self.feature_nodes == 0 {
            return Err(ModelError::InvalidParameter {
                name: "feature_nodes",
                value: "0".into(),
                reason: "a feature group needs at least one node",
            });
        }
        validate::lambda(self.lambda)?;
        shrink(self.shrink)?;
        sparse_mu(self.sparse_mu)?;
        if self.admm_iterations == 0 {
            return Err(ModelError::InvalidParameter {
                name: "admm_iterations",
                value: "0".into(),
                reason: "the sparse autoencoder needs at least one ADMM iteration",
            });
        }
        Ok(())
    }
}

/// The shrink scale is finite and > 0.
pub(crate) fn shrink(shrink: f64) -> Result<()> {
    if !(shrink.is_finite() && shrink > 0.0) {
        return Err(ModelError::InvalidParameter {
            name: "shrink",
            value: format!("{shrink}"),
            reason: "the enhancement shrink scale must be finite and > 0",
        });
    }
    Ok(())
}

/// The ℓ₁ weight is finite and ≥ 0.
pub(crate) fn sparse_mu(mu: f64) -> Result<()> {
    if !(mu.is_finite() && mu >= 0.0) {
        return Err(ModelError::InvalidParameter {
            name: "sparse_mu",
            value: format!("{mu}"),
            reason: "the ℓ₁ weight of the sparse autoencoder must be finite and ≥ 0",
        });
    }
    Ok(())
}
