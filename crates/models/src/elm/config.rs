//! Hyper-parameters of an ELM fit: nodes, activation, λ, output-weight solver,
//! seed.

use std::fmt;
use std::str::FromStr;

use linalg_core::ridge::Strategy;
use serde::{Deserialize, Serialize};

use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::validate;

/// How the output weights are solved for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Solver {
    /// Ridge solution `(AᵀA + λI)⁻¹AᵀY` by a Cholesky factorization of
    /// `AᵀA + λI` (linalg-core's D-Rdg, [`Strategy::DRdg`]); Zhu & Wei's
    /// eq. (10).
    Ridge,
    /// Minimum-norm least squares `A⁺Y` (Zhu & Wei's eq. (9), λ = 0) by a
    /// SVD (LAPACK `dgelsd` through [`linalg_core::lstsq::min_norm_lstsq`]);
    /// λ is not used. ([`crate::elm::lstsq`] is a pure-Rust rank-revealing QR
    /// kept as an independent reference.)
    Lstsq,
    /// The output weights computed by one of the papers' incremental
    /// strategies. [`Elm::fit`](crate::elm::Elm::fit) builds the solver from
    /// all the columns at once (the ridge solution, for every strategy);
    /// [`IncrementalElm`](crate::elm::IncrementalElm) grows it node by node,
    /// where Orig. and Exg-E use λ only for their initial solution and tend
    /// to the least-squares one.
    Incremental(Strategy),
}

impl Solver {
    /// Whether this solver uses λ (all but [`Solver::Lstsq`]).
    pub fn uses_lambda(self) -> bool {
        !matches!(self, Solver::Lstsq)
    }
}

impl fmt::Display for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Solver::Ridge => f.write_str("ridge"),
            Solver::Lstsq => f.write_str("lstsq"),
            Solver::Incremental(s) => f.write_str(s.cli_name()),
        }
    }
}

impl FromStr for Solver {
    type Err = ModelError;
    /// `ridge`, `lstsq`, or a strategy name accepted by [`Strategy`]'s
    /// `FromStr` (`d-rdg`, `chol2`, `alg3`, …), case-insensitively.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ridge" => Ok(Solver::Ridge),
            "lstsq" | "pinv" | "least-squares" => Ok(Solver::Lstsq),
            _ => s
                .parse::<Strategy>()
                .map(Solver::Incremental)
                .map_err(|_| ModelError::UnknownSolver(s.to_string())),
        }
    }
}

/// Hyper-parameters of [`Elm::fit`](crate::elm::Elm::fit).
///
/// ```
/// use models::{elm::{ElmConfig, Solver}, Activation};
/// let cfg = ElmConfig::new(100, Activation::Sigmoid).with_lambda(1e-3).with_seed(42);
/// assert_eq!(cfg.solver, Solver::Ridge);
/// cfg.validate()?;
/// assert!(ElmConfig::new(0, Activation::Sigmoid).validate().is_err());
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElmConfig {
    /// Number of hidden nodes `l ≥ 1`.
    pub nodes: usize,
    /// Activation of the hidden nodes.
    pub activation: Activation,
    /// Ridge parameter λ > 0 (Zhu & Wei's `k₀²`); ignored by [`Solver::Lstsq`].
    pub lambda: f64,
    /// Output-weight solver.
    pub solver: Solver,
    /// Seed of the random hidden layer.
    pub seed: u64,
}

impl ElmConfig {
    /// The ridge parameter Zhu & Wei use in all their experiments (`k₀² = 0.1`).
    pub const DEFAULT_LAMBDA: f64 = 0.1;

    /// `nodes` nodes of `activation`, λ = [`Self::DEFAULT_LAMBDA`],
    /// [`Solver::Ridge`], seed 0.
    pub fn new(nodes: usize, activation: Activation) -> Self {
        Self {
            nodes,
            activation,
            lambda: Self::DEFAULT_LAMBDA,
            solver: Solver::Ridge,
            seed: 0,
        }
    }

    /// With ridge parameter `lambda`.
    pub fn with_lambda(self, lambda: f64) -> Self {
        Self { lambda, ..self }
    }

    /// With output-weight solver `solver`.
    pub fn with_solver(self, solver: Solver) -> Self {
        Self { solver, ..self }
    }

    /// With hidden-layer seed `seed`.
    pub fn with_seed(self, seed: u64) -> Self {
        Self { seed, ..self }
    }

    /// Check the configuration: `nodes ≥ 1`; λ finite and > 0 for every
    /// solver that uses it.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<()> {
        if self.nodes == 0 {
            return Err(ModelError::InvalidParameter {
                name: "nodes",
                value: "0".into(),
                reason: "an ELM needs at least one hidden node",
            });
        }
        if self.solver.uses_lambda() {
            validate::lambda(self.lambda)?;
        }
        Ok(())
    }
}
