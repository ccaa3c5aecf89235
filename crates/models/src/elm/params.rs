//! Hyper-parameters of an ELM: nodes, activation, seed and the output layer
//! ([`Readout`]: solver and λ), unchecked ([`ElmParams`]) and validated
//! ([`ElmValidParams`]).

use linalg_core::sparse::Samples;
use ndarray::{ArrayView1, ArrayView2};

use crate::activation::Activation;
use crate::error::{ModelError, Result};
use crate::readout::{Readout, ReadoutSolver};
use crate::traits::ParamGuard;
use crate::validate;

/// The scale `s` of an ELM's random input weights, uniform on `[−s, s)`.
///
/// A weight uniform on `[−s, s)` has variance `s²/3`, so a node's
/// pre-activation `xᵀw` (before its bias) has variance `s²‖x‖²/3` over the
/// draw of `w`. With `s = 1` and z-scored features (`‖x‖² ≈ N`) that is
/// `N/3` (a standard deviation of 16 on MNIST's 784 pixels): most sigmoid
/// nodes saturate and the hidden matrix loses rank in practice; with `s`
/// too small every node is nearly linear and the network little more than
/// a linear model.
///
/// [`InputScale::UnitVariance`] (the default) takes `s = √(3 / mean ‖x_k‖²)`
/// over the training samples `x_k`, so that the pre-activation has variance
/// 1 on average whatever the features' scaling: `≈ 1.7/√N` for z-scored
/// features, `≈ 5.2/√N` for MNIST's pixels on `[0, 1]`.
/// [`InputScale::InverseSqrtInputs`] (`s = 1/√N`, the earlier default) is
/// right for z-scored features only. The papers' protocols use
/// [`InputScale::Fixed`]`(1.0)` (MATLAB ELM's `rand*2-1`, Zhu & Wei's
/// experiments) and scale their inputs themselves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputScale {
    /// `s = √(3 / mean_k ‖x_k‖²)` from the training samples: unit
    /// pre-activation variance on average (the default). Falls back to
    /// `1/√N` when every training feature is 0.
    UnitVariance,
    /// `s = 1/√N` for `N` inputs.
    InverseSqrtInputs,
    /// A fixed `s > 0` (finite); `Fixed(1.0)` is MATLAB ELM's `rand*2-1`.
    Fixed(f64),
}

impl InputScale {
    /// The factor `s` for the training samples `x` (K×N, one row each).
    /// Computed without overflow for finite `x` of any magnitude.
    pub fn factor(self, x: ArrayView2<'_, f64>) -> f64 {
        self.factor_weighted(x, None)
    }

    /// The factor `s` for samples `x` weighted by `weights` (`None`: all 1):
    /// the weighted mean `Σ w_k‖x_k‖² / Σ w_k`, so that integer weights give
    /// the factor of the rows repeated and a 0 weight that of the row left
    /// out (the maximum that keeps the sums in range is taken over the
    /// rows of positive weight). `weights` has one entry per row, finite,
    /// ≥ 0, not all 0 (checked by the weighted fits).
    pub fn factor_weighted(self, x: ArrayView2<'_, f64>, weights: Option<ArrayView1<'_, f64>>) -> f64 {
        self.factor_of(x.into(), weights)
    }

    /// [`factor_weighted`](Self::factor_weighted) for dense or sparse
    /// samples (a sparse row's absent entries are zeros, which add nothing
    /// to its norm or its largest magnitude).
    pub fn factor_of(self, x: Samples<'_>, weights: Option<ArrayView1<'_, f64>>) -> f64 {
        let inverse_sqrt = 1.0 / (x.ncols().max(1) as f64).sqrt();
        match self {
            InputScale::UnitVariance => {
                let weight = |k: usize| weights.map_or(1.0, |w| w[k]);
                // mean ‖x_k‖² = m² · mean ‖x_k/m‖² with m = max |x| (rows of weight > 0).
                let m = (0..x.nrows())
                    .filter(|&k| weight(k) > 0.0)
                    .fold(0.0f64, |m, k| x.fold_row(k, m, |m, v| m.max(v.abs())));
                if !(m > 0.0 && m.is_finite()) {
                    return inverse_sqrt;
                }
                let (mut sum, mut total) = (0.0, 0.0);
                for k in 0..x.nrows() {
                    let w = weight(k);
                    if w > 0.0 {
                        sum += w * x.fold_row(k, 0.0, |acc, v| acc + (v / m) * (v / m));
                        total += w;
                    }
                }
                let mean_sq = sum / total;
                (3.0 / mean_sq).sqrt() / m
            }
            InputScale::InverseSqrtInputs => inverse_sqrt,
            InputScale::Fixed(s) => s,
        }
    }

    /// The names [`FromStr`](std::str::FromStr) reads and
    /// [`Display`](std::fmt::Display) writes: `unit-variance`,
    /// `inverse-sqrt`, or the fixed scale as a number.
    pub const NAMES: &'static str = "unit-variance, inverse-sqrt or a number > 0";

    fn check(self) -> Result<()> {
        if let InputScale::Fixed(s) = self {
            validate::finite_scalar("input_scale", s, true, "the input-weight scale must be finite and > 0")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for InputScale {
    /// `unit-variance`, `inverse-sqrt`, or the fixed scale (`1`, `0.25`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputScale::UnitVariance => f.write_str("unit-variance"),
            InputScale::InverseSqrtInputs => f.write_str("inverse-sqrt"),
            InputScale::Fixed(s) => write!(f, "{s}"),
        }
    }
}

impl std::str::FromStr for InputScale {
    type Err = ModelError;

    /// `unit-variance`, `inverse-sqrt` (case and `_`/`-` ignored) or a
    /// finite number > 0 (a fixed scale).
    ///
    /// ```
    /// use models::InputScale;
    /// assert_eq!("unit-variance".parse::<InputScale>()?, InputScale::UnitVariance);
    /// assert_eq!("Inverse_Sqrt".parse::<InputScale>()?, InputScale::InverseSqrtInputs);
    /// assert_eq!("0.5".parse::<InputScale>()?, InputScale::Fixed(0.5));
    /// assert!("0".parse::<InputScale>().is_err() && "wide".parse::<InputScale>().is_err());
    /// # Ok::<(), models::ModelError>(())
    /// ```
    fn from_str(text: &str) -> Result<Self> {
        let name = text.trim().to_ascii_lowercase().replace('_', "-");
        let scale = match name.as_str() {
            "unit-variance" => InputScale::UnitVariance,
            "inverse-sqrt" => InputScale::InverseSqrtInputs,
            _ => match name.parse::<f64>() {
                Ok(s) => InputScale::Fixed(s),
                Err(_) => {
                    return Err(ModelError::InvalidParameter {
                        name: "input_scale",
                        value: text.to_string(),
                        reason: "the input-weight scale is unit-variance, inverse-sqrt or a number > 0",
                    })
                }
            },
        };
        scale.check()?;
        Ok(scale)
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
    /// The default scale of the input weights: unit pre-activation variance
    /// on the training samples (see [`InputScale`]).
    pub const DEFAULT_INPUT_SCALE: InputScale = InputScale::UnitVariance;

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

/// The checked parameters back as settable ones (to change one and check
/// again: `ElmParams::from(valid).with_lambda(1e-3).check()`).
impl From<ElmValidParams> for ElmParams {
    fn from(valid: ElmValidParams) -> Self {
        Self(valid)
    }
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
