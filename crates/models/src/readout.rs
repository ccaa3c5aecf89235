//! The output layer (readout) shared by every model that solves for output
//! weights: given the hidden matrix `A` (K×n, one row per sample) and the
//! targets `Y` (K×M), find `W` (n×M) with `A W ≈ Y`.
//!
//! - [`ReadoutSolver`] — *how*: the batch ridge solution
//!   `(AᵀA + λI)⁻¹AᵀY` (Zhu & Wei's eq. (10); the BLS paper's eq. (6)), the
//!   minimum-norm least-squares solution `A⁺Y` (Zhu & Wei's eq. (9)), or any
//!   of linalg-core's incremental [`Strategy`]s by name;
//! - [`Readout`] — the output layer's hyper-parameters: the solver, λ and the
//!   precision the incremental solver stores `A` in. [`Readout::solve`]
//!   computes the weights once (batch); [`Readout::start`] starts an
//!   [`IncrementalRidge`] solver that later appends columns (new nodes).
//!
//! The ELM ([`crate::elm`]) and the BLS ([`crate::bls`]) both take a
//! [`Readout`]; the next models (the single-hidden-layer net trained by DEC,
//! the deep net's last layer, BPLS's layer solves) are meant to.
//!
//! ```
//! use models::readout::{Readout, ReadoutSolver};
//! use ndarray::array;
//! let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
//! let y = array![[1.0], [2.0], [3.0]];
//! // λ = 0 is refused by the ridge solvers; least squares does not use it.
//! assert!(Readout::new(ReadoutSolver::Ridge, 0.0).check().is_err());
//! let w = Readout::new(ReadoutSolver::Lstsq, 0.0).solve(a.clone(), y.view())?;
//! assert!((w[[0, 0]] - 1.0).abs() < 1e-12 && (w[[1, 0]] - 2.0).abs() < 1e-12);
//! // The same readout by name, as the command line and the saved files spell it.
//! let chol2: ReadoutSolver = "chol2".parse()?;
//! let mut solver = Readout::new(chol2, 1e-3).start(a, y.view())?;
//! solver.append(array![[1.0], [1.0], [0.0]].view())?;
//! assert_eq!(solver.nodes(), 3);
//! # Ok::<(), models::ModelError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use linalg_core::ridge::{IncrementalRidge, Strategy};
use linalg_core::Precision;
use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};
use crate::validate;

/// How the output weights are solved for.
///
/// Saved ELM files encode this enum by variant index (ridge 0, lstsq 1, a
/// strategy 2 then the strategy's index): the order of the variants is part
/// of the file format (the `elm::Solver` of format version 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReadoutSolver {
    /// Ridge solution `(AᵀA + λI)⁻¹AᵀY` by a Cholesky factorization of
    /// `AᵀA + λI` ([`linalg_core::ridge::ridge_solve`]); Zhu & Wei's eq. (10).
    /// Grown incrementally, it is D-Rdg ([`Strategy::DRdg`]: the same ridge
    /// solution re-solved at every update).
    Ridge,
    /// Minimum-norm least squares `A⁺Y` (Zhu & Wei's eq. (9), λ = 0) by a
    /// SVD (LAPACK `dgelsd` through [`linalg_core::lstsq::min_norm_lstsq`]);
    /// λ is not used. It has no incremental form.
    /// ([`crate::elm::lstsq`] is a pure-Rust rank-revealing QR kept as an
    /// independent reference.)
    Lstsq,
    /// One of the papers' incremental strategies. Solved in one batch
    /// ([`Readout::solve`]) it is the strategy's solution on all the columns
    /// at once (the ridge solution, for every strategy); grown
    /// ([`Readout::start`]), Orig. and Exg-E use λ only for their initial
    /// solution and tend to the least-squares one.
    Strategy(Strategy),
}

impl ReadoutSolver {
    /// Whether this solver uses λ (all but [`ReadoutSolver::Lstsq`]).
    pub fn uses_lambda(self) -> bool {
        !matches!(self, ReadoutSolver::Lstsq)
    }

    /// The incremental strategy that grows this readout: the strategy itself,
    /// D-Rdg for [`ReadoutSolver::Ridge`], none for
    /// [`ReadoutSolver::Lstsq`].
    pub fn strategy(self) -> Option<Strategy> {
        match self {
            ReadoutSolver::Ridge => Some(Strategy::DRdg),
            ReadoutSolver::Lstsq => None,
            ReadoutSolver::Strategy(s) => Some(s),
        }
    }
}

impl From<Strategy> for ReadoutSolver {
    fn from(s: Strategy) -> Self {
        ReadoutSolver::Strategy(s)
    }
}

impl fmt::Display for ReadoutSolver {
    /// `ridge`, `lstsq` or the strategy's command-line name (`chol2`, …).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadoutSolver::Ridge => f.write_str("ridge"),
            ReadoutSolver::Lstsq => f.write_str("lstsq"),
            ReadoutSolver::Strategy(s) => f.write_str(s.cli_name()),
        }
    }
}

impl FromStr for ReadoutSolver {
    type Err = ModelError;
    /// `ridge`, `lstsq` (or `pinv`, `least-squares`), or a strategy name
    /// accepted by [`Strategy`]'s `FromStr` (`d-rdg`, `chol2`, `alg3`, `Chol-2`,
    /// …), case-insensitively.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ridge" => Ok(ReadoutSolver::Ridge),
            "lstsq" | "pinv" | "least-squares" => Ok(ReadoutSolver::Lstsq),
            _ => s
                .parse::<Strategy>()
                .map(ReadoutSolver::Strategy)
                .map_err(|_| ModelError::UnknownSolver(s.to_string())),
        }
    }
}

/// The output layer's hyper-parameters: the [`ReadoutSolver`], the ridge
/// parameter λ and the [`Precision`] an incremental solver stores `A` in.
///
/// The models hold one inside their validated parameters, so a fit never
/// starts with an inadmissible λ; [`solve`](Self::solve) and
/// [`start`](Self::start) check it again for direct use.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Readout {
    solver: ReadoutSolver,
    lambda: f64,
    precision: Precision,
}

impl Readout {
    /// `solver` with ridge parameter `lambda`, `A` stored in f64.
    pub fn new(solver: ReadoutSolver, lambda: f64) -> Self {
        Self {
            solver,
            lambda,
            precision: Precision::F64,
        }
    }

    /// With the solver `solver`.
    pub fn with_solver(self, solver: ReadoutSolver) -> Self {
        Self { solver, ..self }
    }

    /// With ridge parameter `lambda`.
    pub fn with_lambda(self, lambda: f64) -> Self {
        Self { lambda, ..self }
    }

    /// With the incremental solver's `A` stored in `precision`
    /// ([`Precision::F32`] halves its memory and rounds the columns to f32;
    /// see [`linalg_core::hidden_store`]). The batch solvers
    /// ([`ReadoutSolver::Ridge`], [`ReadoutSolver::Lstsq`]) work in f64.
    pub fn with_precision(self, precision: Precision) -> Self {
        Self { precision, ..self }
    }

    /// The solver.
    pub fn solver(&self) -> ReadoutSolver {
        self.solver
    }

    /// The ridge parameter λ as given (see [`fitted_lambda`](Self::fitted_lambda)).
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The ridge parameter the weights are computed with: λ, or 0 for
    /// [`ReadoutSolver::Lstsq`] (which does not use it).
    pub fn fitted_lambda(&self) -> f64 {
        if self.solver.uses_lambda() {
            self.lambda
        } else {
            0.0
        }
    }

    /// The precision of the incremental solver's `A`.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// λ finite and > 0 for every solver that uses it.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `lambda`.
    pub fn check(&self) -> Result<()> {
        if self.solver.uses_lambda() {
            validate::lambda(self.lambda)?;
        }
        Ok(())
    }

    /// The output weights `W` (n×M) for the hidden matrix `a` (K×n, taken by
    /// value: a column-major `a` becomes a strategy's copy without being
    /// copied) and targets `y` (K×M), in one batch.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for an inadmissible λ; the solver's
    /// errors ([`ModelError::Linalg`]) for unusable matrices or a breakdown.
    pub fn solve(&self, a: Array2<f64>, y: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.check()?;
        Ok(match self.solver {
            ReadoutSolver::Ridge => linalg_core::ridge::ridge_solve(a.view(), y, self.lambda)?.weights,
            ReadoutSolver::Lstsq => linalg_core::lstsq::min_norm_lstsq(a.view(), y, None)?.solution,
            ReadoutSolver::Strategy(s) => s.build(a, y, self.lambda, self.precision)?.weights().to_owned(),
        })
    }

    /// Start an incremental solver on the first block of columns `a` (K×n₀,
    /// by value as in [`solve`](Self::solve)) and targets `y` (K×M): the
    /// solver's [`strategy`](ReadoutSolver::strategy) at λ and the precision.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `solver` for
    /// [`ReadoutSolver::Lstsq`] (no incremental form) or `lambda`; the
    /// strategy's errors ([`ModelError::Linalg`]).
    pub fn start(&self, a: Array2<f64>, y: ArrayView2<'_, f64>) -> Result<Box<dyn IncrementalRidge>> {
        self.check()?;
        let strategy = self.strategy()?;
        Ok(strategy.build(a, y, self.lambda, self.precision)?)
    }

    /// The incremental strategy of [`start`](Self::start).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `solver` for
    /// [`ReadoutSolver::Lstsq`].
    pub fn strategy(&self) -> Result<Strategy> {
        self.solver.strategy().ok_or_else(|| ModelError::InvalidParameter {
            name: "solver",
            value: self.solver.to_string(),
            reason: "minimum-norm least squares has no incremental form; grow with ridge or a strategy",
        })
    }
}

/// The output-layer setters (`with_lambda`, `with_solver`, `with_precision`,
/// `with_readout`) of a params newtype `XParams(XValidParams)` whose
/// validated params hold the field `readout: Readout`: every model's params
/// set their readout the same way.
macro_rules! readout_setters {
    () => {
        /// With ridge parameter `lambda` (see [`Readout`](crate::Readout)).
        pub fn with_lambda(mut self, lambda: f64) -> Self {
            self.0.readout = self.0.readout.with_lambda(lambda);
            self
        }

        /// With output-weight solver `solver` (see
        /// [`ReadoutSolver`](crate::ReadoutSolver)).
        pub fn with_solver(mut self, solver: $crate::readout::ReadoutSolver) -> Self {
            self.0.readout = self.0.readout.with_solver(solver);
            self
        }

        /// With the incremental solver's `A` stored in `precision` (see
        /// [`Readout::with_precision`](crate::Readout::with_precision)).
        pub fn with_precision(mut self, precision: linalg_core::Precision) -> Self {
            self.0.readout = self.0.readout.with_precision(precision);
            self
        }

        /// With the output layer `readout` (solver, λ, precision).
        pub fn with_readout(mut self, readout: $crate::readout::Readout) -> Self {
            self.0.readout = readout;
            self
        }
    };
}
pub(crate) use readout_setters;

/// Builder setters of a `…Params(…ValidParams)` newtype, one per field:
/// `field_setters!(/// doc\n with_seed(seed: u64), …)` gives
/// `pub fn with_seed(mut self, seed: u64) -> Self` setting `self.0.seed`.
macro_rules! field_setters {
    ($($(#[$doc:meta])* $setter:ident($field:ident: $ty:ty)),* $(,)?) => {
        $(
            $(#[$doc])*
            pub fn $setter(mut self, $field: $ty) -> Self {
                self.0.$field = $field;
                self
            }
        )*
    };
}
pub(crate) use field_setters;
