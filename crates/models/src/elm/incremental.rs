//! The incremental ELM: hidden nodes added a few at a time, the output
//! weights updated by one of the papers' strategies instead of re-solved.

use std::time::{Duration, Instant};

use linalg_core::ridge::{IncrementalRidge, Strategy};
use ndarray::{Array2, ArrayView2};

use super::hidden::HiddenLayer;
use super::model::Elm;
use super::params::ElmValidParams;
use crate::error::{ModelError, Result};
use crate::readout::ReadoutSolver;
use crate::traits::{Dataset, Predict};
use crate::validate;

/// An ELM grown node by node (Zhu & Wei, Sec. III–IV; their experiments
/// start from 2 nodes and add one at a time up to 500).
///
/// It keeps the training samples `X`, the [`HiddenLayer`] (grown with the
/// same seed, so node `j` is the node `j` of a batch [`Elm`] with that seed)
/// and a boxed [`IncrementalRidge`] solver, which owns the hidden matrix `A`,
/// the targets and the factors of the [`Strategy`] the
/// [`Readout`](crate::Readout) grows by. Adding `q` nodes computes only their
/// `K×q` outputs and appends them.
///
/// ```
/// use linalg_core::ridge::Strategy;
/// use models::prelude::*;
/// use models::{Activation, ElmParams, IncrementalElm, ReadoutSolver};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((50, 2), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0);
/// let y = x.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1)).mapv(f64::sin);
/// let data = Dataset::new(x.view(), y.view());
/// let params = ElmParams::new(10, Activation::Sigmoid).with_seed(9);
/// // Start from 2 nodes (Zhu & Wei's start), grow by Alg. 3.
/// let start = params.with_nodes(2).with_solver(ReadoutSolver::Strategy(Strategy::Alg3)).check()?;
/// let mut inc = IncrementalElm::start(&start, &data)?;
/// for _ in 0..8 {
///     inc.add_nodes(1)?;
/// }
/// let batch = params.fit(&data)?;
/// let diff = (&inc.weights() - &batch.output_weights()).mapv(f64::abs).sum();
/// assert!(diff < 1e-10);
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Debug)]
pub struct IncrementalElm {
    hidden: HiddenLayer,
    solver: Box<dyn IncrementalRidge>,
    x: Array2<f64>,
    seed: u64,
    /// The factor of the input weights (for the nodes added later).
    scale: f64,
    last_hidden_time: Duration,
    last_update_time: Duration,
}

impl Clone for IncrementalElm {
    fn clone(&self) -> Self {
        Self {
            hidden: self.hidden.clone(),
            solver: self.solver.clone_box(),
            x: self.x.clone(),
            seed: self.seed,
            scale: self.scale,
            last_hidden_time: self.last_hidden_time,
            last_update_time: self.last_update_time,
        }
    }
}

impl IncrementalElm {
    /// Start from `params.nodes()` random nodes (the initial network; Zhu &
    /// Wei start from 2) of `params.activation()` and seed `params.seed()`
    /// on the samples and targets of `data`, the output weights solved by
    /// the strategy the [`Readout`](crate::Readout) grows by
    /// ([`ReadoutSolver::strategy`]: the strategy itself, D-Rdg for ridge)
    /// at its λ and precision. Later nodes come from
    /// [`add_nodes`](Self::add_nodes).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `solver` for
    /// [`ReadoutSolver::Lstsq`] (no incremental form);
    /// [`linalg_core::Error::Empty`], [`linalg_core::Error::NonFinite`],
    /// [`linalg_core::Error::Shape`] for unusable data; the strategy's errors.
    pub fn start(params: &ElmValidParams, data: &Dataset<'_>) -> Result<Self> {
        params.readout().strategy()?;
        data.check()?;
        let (x, y, seed) = (data.features(), data.targets(), params.seed());
        let scale = params.input_scale().factor(x);
        let hidden = HiddenLayer::random_scaled(x.ncols(), params.nodes(), params.activation(), seed, scale);
        let t0 = Instant::now();
        let a = hidden.outputs(x)?;
        let t1 = Instant::now();
        let solver = params.readout().start(a, y)?;
        let t2 = Instant::now();
        Ok(Self {
            hidden,
            solver,
            x: x.to_owned(),
            seed,
            scale,
            last_hidden_time: t1 - t0,
            last_update_time: t2 - t1,
        })
    }

    /// Add `q ≥ 1` nodes: draw them (nodes `l..l+q` of the seed's layer),
    /// compute their outputs on the training samples and append them to the
    /// solver.
    ///
    /// On a solver error the model keeps the nodes the solver kept (all the
    /// old ones for the block strategies; for the column-by-column ones also
    /// the new nodes before the failing one) and stays usable.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for `q = 0`; the strategy's errors
    /// ([`ModelError::Linalg`]), e.g. loss of positive definiteness.
    pub fn add_nodes(&mut self, q: usize) -> Result<()> {
        if q == 0 {
            return Err(ModelError::InvalidParameter {
                name: "q",
                value: "0".into(),
                reason: "add at least one node",
            });
        }
        let l = self.hidden.nodes();
        self.hidden.extend_scaled(q, self.seed, self.scale);
        let t0 = Instant::now();
        let h = match self.hidden.outputs_range(self.x.view(), l..l + q) {
            Ok(h) => h,
            Err(e) => {
                self.hidden.truncate(l);
                return Err(e);
            }
        };
        let t1 = Instant::now();
        let appended = self.solver.append(h.view());
        let t2 = Instant::now();
        self.last_hidden_time = t1 - t0;
        self.last_update_time = t2 - t1;
        // Keep exactly the nodes the solver holds.
        self.hidden.truncate(self.solver.nodes());
        appended.map_err(ModelError::from)
    }

    /// Make room for `additional` more nodes in the solver (no reallocation
    /// on the next appends).
    pub fn reserve(&mut self, additional: usize) {
        self.solver.reserve(additional);
    }

    /// Number of hidden nodes `l`.
    pub fn nodes(&self) -> usize {
        self.solver.nodes()
    }

    /// Current output weights `W` (l×M).
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.solver.weights()
    }

    /// Flops of the last update (or of the start), counted by the papers' rule.
    pub fn last_flops(&self) -> u64 {
        self.solver.last_flops()
    }

    /// Wall time spent computing the new nodes' outputs in the last
    /// [`add_nodes`](Self::add_nodes) (or all outputs in [`start`](Self::start)).
    pub fn last_hidden_time(&self) -> Duration {
        self.last_hidden_time
    }

    /// Wall time of the solver's last update (or of its construction).
    pub fn last_update_time(&self) -> Duration {
        self.last_update_time
    }

    /// The update strategy.
    pub fn strategy(&self) -> Strategy {
        self.solver.strategy()
    }

    /// The ridge parameter λ.
    pub fn lambda(&self) -> f64 {
        self.solver.lambda()
    }

    /// The seed of the hidden layer.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hidden layer.
    pub fn hidden(&self) -> &HiddenLayer {
        &self.hidden
    }

    /// The solver (its hidden matrix `A`, memory use, …).
    pub fn solver(&self) -> &dyn IncrementalRidge {
        self.solver.as_ref()
    }

    /// The training samples `X` (K×N).
    pub fn samples(&self) -> ArrayView2<'_, f64> {
        self.x.view()
    }

    /// Predictions `h(X)ᵀW` (K×M) of the current model for samples `x` (K×N).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns,
    /// [`linalg_core::Error::NonFinite`] if it holds NaN or ±∞.
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        validate::cols("samples X", x, self.hidden.n_inputs())?;
        validate::finite("samples X", x)?;
        Ok(self.hidden.outputs(x)?.dot(&self.solver.weights()))
    }

    /// The current model as a batch [`Elm`] (copies the layer and weights).
    pub fn to_elm(&self) -> Elm {
        Elm::from_raw(
            self.hidden.clone(),
            self.solver.weights().to_owned(),
            self.solver.lambda(),
            ReadoutSolver::Strategy(self.solver.strategy()),
        )
    }

    /// The current model as a batch [`Elm`], dropping the training data and
    /// the solver's factors.
    pub fn into_elm(self) -> Elm {
        let weights = self.solver.weights().to_owned();
        Elm::from_raw(
            self.hidden,
            weights,
            self.solver.lambda(),
            ReadoutSolver::Strategy(self.solver.strategy()),
        )
    }
}

impl Predict for IncrementalElm {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        IncrementalElm::predict(self, x)
    }

    fn n_inputs(&self) -> usize {
        self.hidden.n_inputs()
    }

    fn n_outputs(&self) -> usize {
        self.solver.weights().ncols()
    }
}
