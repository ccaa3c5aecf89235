//! Growing an ELM or a BLS until the validation error stops improving, and
//! the comparison that refits from scratch at every size.
//!
//! [`ElmValidParams::grow_until_val`] starts the network the parameters
//! describe ([`IncrementalElm::start`]: `params.nodes()` nodes, output
//! weights by the strategy the readout grows by — D-Rdg for plain ridge) and
//! appends nodes ([`IncrementalElm::add_nodes`]: at least `step`, and at
//! least a fraction `growth` of the size, see [`GrowOptions`]); after the
//! start and after every append it scores the validation set with the
//! current weights. The validation set's hidden outputs `A_val` (K_val×l)
//! grow by the same columns as the training ones: an append computes only the
//! `K_val×q` outputs of the new nodes, and the score costs the prediction
//! `A_val W` (K_val·l·M). Growth stops after `patience` appends without a
//! strictly lower score ([`Stop::Patience`]) or when it reaches `max_nodes`
//! ([`Stop::MaxNodes`]; the last step is shorter if `max_nodes` is not on the
//! schedule; growth never goes past it). The output weights are copied at
//! every new best (l×M), and the network returned is the one of the best size:
//! node `j` of an ELM depends only on `(seed, j)`, so it is the prefix of the
//! grown hidden layer with the weights of that size — exactly the network a
//! batch ELM of that size draws, the weights those of the strategy grown the
//! same way.
//!
//! [`BlsValidParams::grow_until_val`] does the same with
//! [`IncrementalBls::add_enhancement`] (`step` enhancement nodes fed by all
//! feature nodes per append). The validation outputs of an added group only
//! are computed, from the validation feature outputs `Zⁿ_val` (computed once)
//! and the group's stored map.
//!
//! [`refit_elm_curve`] and [`refit_bls_curve`] are the comparison (hpelm's
//! way): a fresh batch fit from scratch at every size of the same schedule
//! ([`GrowOptions::sizes`] up to `max_nodes`, no early stop), scored on
//! the same validation set, so that a caller can compare the time and the
//! size chosen. To refit exactly the sizes growth tried, pass the options
//! with `max_nodes` set to the last size of the grown curve.
//!
//! The best point is the lowest score, the first of equal ones (a NaN score
//! never wins), as [`best`].

use std::iter;
use std::time::Instant;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, ShapeBuilder, Slice};

use super::{best, Criterion, CurvePoint};
use crate::bls::{Bls, BlsValidParams, IncrementalBls};
use crate::elm::{Elm, ElmParams, ElmValidParams, IncrementalElm};
use crate::error::{ModelError, Result};
use crate::readout::ReadoutSolver;
use crate::traits::{Dataset, Fit, ParamGuard};
use crate::validate;

/// How to grow: each append adds `max(step, ⌈growth · l⌉)` nodes to a
/// network of `l` nodes; stop after `patience` appends without improvement
/// or at `max_nodes` nodes, scored by `criterion` on the validation set.
///
/// **Why the step grows with the size** (issue 42). With a fixed step,
/// `patience` appends cover `patience · step` nodes whatever the size: at
/// 1000 nodes, 5 steps of 10 nodes move the validation error by less than
/// its noise, and growth stops on noise (a 26-class set stopped at 1,002
/// nodes, 93.65%, where 3,000 nodes reach 96.38%). A step of a fixed
/// fraction of the size makes the sizes geometric from where that fraction
/// exceeds `step` on: `patience` appends then look `(1 + growth)^patience`
/// times further (1.61× the size for 10% and 5 appends), the window over
/// which the error must improve grows with the size as the error's
/// improvements spread out, and reaching `L` nodes takes about
/// `log(L/l₀)/log(1 + growth)` appends instead of `L/step`.
/// `growth = 0` is the fixed step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrowOptions {
    /// The smallest number of nodes an append adds (`≥ 1`; the last append
    /// may add fewer, to stop at `max_nodes`).
    pub step: usize,
    /// An append adds at least this fraction of the network's size
    /// (finite, `0 ≤ growth ≤ 10`; 0: always `step`).
    pub growth: f64,
    /// Appends without a strictly lower validation score after which growth
    /// stops (`≥ 1`).
    pub patience: usize,
    /// The largest network tried (`≥` the start size).
    pub max_nodes: usize,
    /// What the validation set is scored by.
    pub criterion: Criterion,
}

impl GrowOptions {
    /// The smallest step by default (`nn fit --step`, the estimators' `grow_step`).
    pub const DEFAULT_STEP: usize = 10;
    /// The fraction of the size an append adds at least, by default
    /// (`nn fit --growth`): 10%.
    pub const DEFAULT_GROWTH: f64 = 0.1;
    /// Appends without improvement before stopping, by default (`--patience`).
    pub const DEFAULT_PATIENCE: usize = 5;
    /// The fraction of the training samples held out to score growth, by
    /// default (`--val-fraction`).
    pub const DEFAULT_VAL_FRACTION: f64 = 0.2;

    /// At least `step` nodes and [`DEFAULT_GROWTH`](Self::DEFAULT_GROWTH)
    /// of the size per append, `patience` appends without improvement, at
    /// most `max_nodes` nodes, scored by `criterion`.
    pub fn new(step: usize, patience: usize, max_nodes: usize, criterion: Criterion) -> Self {
        Self {
            step,
            growth: Self::DEFAULT_GROWTH,
            patience,
            max_nodes,
            criterion,
        }
    }

    /// With appends of at least `growth` times the size (0: fixed steps of
    /// `step` nodes).
    pub fn with_growth(self, growth: f64) -> Self {
        Self { growth, ..self }
    }

    /// The options' own constraints and the start size's: `step ≥ 1`,
    /// `0 ≤ growth ≤ 10`, `patience ≥ 1`, `max_nodes ≥ start`.
    fn check(&self, start: usize) -> Result<()> {
        validate::at_least_one("step", self.step, "grow by at least one node per append")?;
        if !(self.growth.is_finite() && (0.0..=10.0).contains(&self.growth)) {
            return Err(ModelError::InvalidParameter {
                name: "growth",
                value: self.growth.to_string(),
                reason: "the fraction of the size an append adds must be a number in [0, 10]",
            });
        }
        validate::at_least_one(
            "patience",
            self.patience,
            "stop after at least one append without improvement",
        )?;
        if self.max_nodes < start {
            return Err(ModelError::InvalidParameter {
                name: "max_nodes",
                value: format!("{} (the network starts with {start} nodes)", self.max_nodes),
                reason: "max_nodes must be at least the number of nodes the network starts with",
            });
        }
        Ok(())
    }

    /// The nodes the append after `n` nodes adds: `max(step, ⌈growth·n⌉)`,
    /// cut to reach `max_nodes` exactly (0 at `max_nodes`).
    pub fn next_step(&self, n: usize) -> usize {
        // ⌈growth·n⌉ is below 10n + 1 (checked growth ≤ 10): no overflow
        // before the cut to what is left.
        let relative = (self.growth * n as f64).ceil() as usize;
        self.step.max(relative).min(self.max_nodes.saturating_sub(n))
    }

    /// The sizes of the schedule: `start`, then each size plus
    /// [`next_step`](Self::next_step), up to `max_nodes`. Requires
    /// `start ≤ max_nodes` and `step ≥ 1` ([`check`](Self::check)).
    pub fn sizes(&self, start: usize) -> impl Iterator<Item = usize> {
        let opts = *self;
        iter::successors(Some(start), move |&n| {
            (n < opts.max_nodes).then(|| n + opts.next_step(n))
        })
    }
}

/// Why growth stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// `patience` appends in a row did not lower the validation score.
    Patience,
    /// The network reached `max_nodes` first (always for the refit curves).
    MaxNodes,
}

/// The network at the best size a growth (or a refit curve) found, with
/// everything it tried.
#[derive(Clone, Debug, PartialEq)]
pub struct Grown<M> {
    /// The network at its best size.
    pub model: M,
    /// Its number of nodes.
    pub nodes: usize,
    /// Its validation score.
    pub score: f64,
    /// Every size tried, in order: λ, nodes, validation score, spread 0.
    pub curve: Vec<CurvePoint>,
    /// Why growth stopped.
    pub stop: Stop,
    /// Wall time of the whole search (fits, validation outputs, scores,
    /// snapshots), in seconds.
    pub seconds: f64,
}

/// Training and validation sets usable together: both non-empty and finite,
/// the validation set with the training set's numbers of inputs and outputs.
fn check_data(train: &Dataset<'_>, val: &Dataset<'_>) -> Result<()> {
    train.check()?;
    let (xv, yv) = (val.features(), val.targets());
    validate::matrix("validation samples X", xv)?;
    validate::matrix("validation targets Y", yv)?;
    validate::rows("validation targets Y", yv, xv.nrows())?;
    validate::cols("validation samples X", xv, train.features().ncols())?;
    validate::cols("validation targets Y", yv, train.targets().ncols())
}

/// The validation set's hidden outputs `A_val` (K_val×l, column-major),
/// grown by columns with spare capacity (doubling, so the copies are
/// amortized O(K_val·l) in all).
struct ValColumns {
    a: Array2<f64>,
    filled: usize,
}

impl ValColumns {
    fn new(first: Array2<f64>) -> Self {
        let filled = first.ncols();
        let mut a = Array2::zeros((first.nrows(), filled).f());
        a.assign(&first);
        Self { a, filled }
    }

    /// Room for `q` more columns; the next `q` columns, to be written and
    /// then [`commit`](Self::commit)ted.
    fn next_mut(&mut self, q: usize) -> ArrayViewMut2<'_, f64> {
        let need = self.filled + q;
        if need > self.a.ncols() {
            let cap = need.max(self.a.ncols().saturating_mul(2));
            let mut grown = Array2::zeros((self.a.nrows(), cap).f());
            grown
                .slice_axis_mut(Axis(1), Slice::from(..self.filled))
                .assign(&self.a.slice_axis(Axis(1), Slice::from(..self.filled)));
            self.a = grown;
        }
        self.a.slice_axis_mut(Axis(1), Slice::from(self.filled..need))
    }

    fn commit(&mut self, q: usize) {
        self.filled += q;
    }

    /// Predictions `A_val W` (K_val×M) of the output weights `w` (l×M).
    fn predict(&self, w: ArrayView2<'_, f64>) -> Array2<f64> {
        self.a.slice_axis(Axis(1), Slice::from(..self.filled)).dot(&w)
    }
}

/// A network being grown, with the validation outputs of its nodes.
trait Grower {
    /// Its number of nodes.
    fn nodes(&self) -> usize;
    /// Its current output weights (nodes×M).
    fn weights(&self) -> ArrayView2<'_, f64>;
    /// Add `q` nodes and write their validation outputs into `val`.
    fn add(&mut self, q: usize, val: &mut ValColumns) -> Result<()>;
}

/// What [`grow`] found: the curve, the index of its best point, that point's
/// output weights and why growth stopped.
struct Run {
    curve: Vec<CurvePoint>,
    best: usize,
    weights: Array2<f64>,
    stop: Stop,
}

impl Run {
    /// The size of the best point.
    fn best_nodes(&self) -> usize {
        self.curve[self.best].nodes
    }

    /// The outcome with `model` (the network cut to the best size), timed
    /// from `t0`.
    fn into_grown<M>(self, model: M, t0: Instant) -> Grown<M> {
        let point = &self.curve[self.best];
        Grown {
            model,
            nodes: point.nodes,
            score: point.score,
            stop: self.stop,
            seconds: t0.elapsed().as_secs_f64(),
            curve: self.curve,
        }
    }
}

/// Score the start, then append `step` nodes at a time and score after each
/// append, copying the weights at every new best, until `patience` appends
/// in a row bring no improvement or the network has `max_nodes` nodes.
fn grow(
    g: &mut impl Grower,
    val: &mut ValColumns,
    targets: ArrayView2<'_, f64>,
    lambda: f64,
    opts: &GrowOptions,
) -> Result<Run> {
    let mut curve = Vec::new();
    let mut snapshot: Option<(usize, Array2<f64>)> = None;
    let mut score_point = |g: &dyn Grower, val: &ValColumns, curve: &mut Vec<CurvePoint>| -> Result<bool> {
        let w = g.weights();
        let score = opts.criterion.score(val.predict(w).view(), targets)?;
        curve.push(CurvePoint {
            lambda,
            nodes: g.nodes(),
            scale: None,
            score,
            spread: 0.0,
        });
        let improved = !score.is_nan() && snapshot.as_ref().is_none_or(|(i, _)| score < curve[*i].score);
        if improved {
            snapshot = Some((curve.len() - 1, w.as_standard_layout().into_owned()));
        }
        Ok(improved)
    };
    score_point(g, val, &mut curve)?;
    let mut since_best = 0;
    let mut stop = Stop::MaxNodes;
    while g.nodes() < opts.max_nodes {
        let q = opts.next_step(g.nodes());
        g.add(q, val)?;
        if score_point(g, val, &mut curve)? {
            since_best = 0;
        } else {
            since_best += 1;
        }
        if since_best >= opts.patience {
            stop = Stop::Patience;
            break;
        }
    }
    // `best` gives the error when every score is NaN (no snapshot).
    let chosen = best(&curve)?;
    match snapshot {
        Some((i, weights)) => {
            debug_assert_eq!(i, chosen);
            Ok(Run {
                curve,
                best: i,
                weights,
                stop,
            })
        }
        None => Err(ModelError::InvalidParameter {
            name: "candidates",
            value: format!("{} tried", curve.len()),
            reason: "no candidate could be scored (every score is NaN)",
        }),
    }
}

/// An [`IncrementalElm`] and the samples of the validation set.
struct ElmGrower<'a> {
    inc: IncrementalElm,
    x_val: ArrayView2<'a, f64>,
}

impl Grower for ElmGrower<'_> {
    fn nodes(&self) -> usize {
        self.inc.nodes()
    }

    fn weights(&self) -> ArrayView2<'_, f64> {
        self.inc.weights()
    }

    fn add(&mut self, q: usize, val: &mut ValColumns) -> Result<()> {
        let l = self.inc.nodes();
        self.inc.add_nodes(q)?;
        let h = self.inc.hidden().outputs_range(self.x_val, l..l + q)?;
        val.next_mut(q).assign(&h);
        val.commit(q);
        Ok(())
    }
}

/// An [`IncrementalBls`] and the validation set's feature outputs `Zⁿ_val`
/// (the input of every enhancement group added).
struct BlsGrower {
    inc: IncrementalBls,
    z_val: Array2<f64>,
}

impl Grower for BlsGrower {
    fn nodes(&self) -> usize {
        self.inc.nodes()
    }

    fn weights(&self) -> ArrayView2<'_, f64> {
        self.inc.weights()
    }

    fn add(&mut self, q: usize, val: &mut ValColumns) -> Result<()> {
        self.inc.add_enhancement(q)?;
        // An internal invariant, not an input: a successful
        // `add_enhancement` appended its group last.
        let g = self
            .inc
            .expansion()
            .enhancement_groups()
            .last()
            .expect("add_enhancement appends an enhancement group");
        g.write(self.z_val.slice_axis(Axis(1), Slice::from(g.inputs())), val.next_mut(q));
        val.commit(q);
        Ok(())
    }
}

impl ElmValidParams {
    /// Grow the ELM of these parameters on `train`, `opts.step` nodes at a
    /// time by the strategy its readout grows by, scoring `val` after every
    /// append; stop after `opts.patience` appends without improvement or at
    /// `opts.max_nodes` nodes, and return the network at its best size (see
    /// the [module documentation](self)). The returned [`Elm`] is the prefix
    /// of the grown hidden layer (the layer a batch ELM of that size draws)
    /// with the weights of that size; its solver is recorded as the strategy
    /// ([`IncrementalElm::to_elm`]'s convention), its λ the readout's.
    ///
    /// ```
    /// use models::prelude::*;
    /// use models::select::grow::GrowOptions;
    /// use models::select::Criterion;
    /// use models::{Activation, ElmParams};
    /// use ndarray::{Array2, Axis};
    /// let xs = |k: usize, off: f64| Array2::from_shape_fn((k, 2), |(i, j)| ((i as f64 + off) * (0.37 + 0.2 * j as f64)).sin());
    /// let f = |x: &Array2<f64>| x.sum_axis(Axis(1)).insert_axis(Axis(1)).mapv(|v| (2.0 * v).sin());
    /// let (x, xv) = (xs(80, 0.0), xs(40, 0.5));
    /// let (y, yv) = (f(&x), f(&xv));
    /// let params = ElmParams::new(2, Activation::Sigmoid).with_lambda(1e-6).with_seed(3).check()?;
    /// let opts = GrowOptions::new(2, 3, 40, Criterion::MeanSquaredError);
    /// let grown = params.grow_until_val(&Dataset::new(x.view(), y.view()), &Dataset::new(xv.view(), yv.view()), &opts)?;
    /// assert_eq!(grown.model.nodes(), grown.nodes);
    /// assert!(grown.curve.iter().all(|p| p.score >= grown.score && p.nodes <= 40));
    /// # Ok::<(), models::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `step` or `patience` (0),
    /// `max_nodes` (below `self.nodes()`), `solver`
    /// ([`ReadoutSolver::Lstsq`] has no incremental form) or `candidates`
    /// (no score is a number); [`linalg_core::Error::Shape`] naming
    /// `validation samples X` / `validation targets Y` when the validation
    /// set has other numbers of inputs or outputs than `train`, and the
    /// [`Dataset::check`] errors of either set; the strategy's errors during
    /// growth ([`ModelError::Linalg`], e.g. loss of positive definiteness).
    pub fn grow_until_val(&self, train: &Dataset<'_>, val: &Dataset<'_>, opts: &GrowOptions) -> Result<Grown<Elm>> {
        let t0 = Instant::now();
        opts.check(self.nodes())?;
        check_data(train, val)?;
        let inc = IncrementalElm::start(self, train)?;
        let mut columns = ValColumns::new(inc.hidden().outputs(val.features())?);
        let lambda = inc.lambda();
        let mut g = ElmGrower {
            inc,
            x_val: val.features(),
        };
        let mut run = grow(&mut g, &mut columns, val.targets(), lambda, opts)?;
        let mut hidden = g.inc.hidden().clone();
        hidden.truncate(run.best_nodes());
        let weights = std::mem::take(&mut run.weights);
        let model = Elm::from_parts(hidden, weights, lambda, ReadoutSolver::Strategy(g.inc.strategy()))?;
        Ok(run.into_grown(model, t0))
    }
}

impl BlsValidParams {
    /// Grow the BLS of these parameters on `train` by enhancement groups of
    /// `opts.step` nodes ([`IncrementalBls::add_enhancement`]), scoring
    /// `val` after every append; stop after `opts.patience` appends without
    /// improvement or at `opts.max_nodes` nodes (feature and enhancement
    /// nodes), and return the network at its best size: the grown network's
    /// maps up to that size with the weights of that size — what
    /// [`IncrementalBls::to_bls`] gives for a network started from these
    /// parameters and grown the same way to that size.
    ///
    /// # Errors
    /// As [`ElmValidParams::grow_until_val`] (`max_nodes` below
    /// [`initial_nodes`](Self::initial_nodes)).
    pub fn grow_until_val(&self, train: &Dataset<'_>, val: &Dataset<'_>, opts: &GrowOptions) -> Result<Grown<Bls>> {
        let t0 = Instant::now();
        opts.check(self.initial_nodes())?;
        check_data(train, val)?;
        let inc = IncrementalBls::start(self, train.features().to_owned(), train.targets().to_owned())?;
        let mut columns = ValColumns::new(inc.hidden_outputs(val.features())?);
        let z_val = inc.expansion().feature_outputs(val.features())?;
        let lambda = inc.lambda();
        let mut g = BlsGrower { inc, z_val };
        let mut run = grow(&mut g, &mut columns, val.targets(), lambda, opts)?;
        let mut expansion = g.inc.expansion().clone();
        expansion.truncate(run.best_nodes());
        let weights = std::mem::take(&mut run.weights);
        let model = Bls::from_parts(expansion, weights, lambda, g.inc.strategy())?;
        Ok(run.into_grown(model, t0))
    }
}

/// Keep the candidate of the lowest score (the first of equal ones; NaN
/// never wins) while fitting a curve.
struct Keeper<M> {
    curve: Vec<CurvePoint>,
    best: Option<(usize, M)>,
}

impl<M> Keeper<M> {
    /// Score `predictions` of `model` (at `nodes`, `lambda`) on `val` and
    /// keep the point (and the model when it is the best so far).
    fn score(
        &mut self,
        criterion: Criterion,
        val: &Dataset<'_>,
        nodes: usize,
        lambda: f64,
        predictions: Array2<f64>,
        model: M,
    ) -> Result<()> {
        let score = criterion.score(predictions.view(), val.targets())?;
        let point = CurvePoint {
            lambda,
            nodes,
            scale: None,
            score,
            spread: 0.0,
        };
        self.push(point, model);
        Ok(())
    }

    fn push(&mut self, point: CurvePoint, model: M) {
        let improved = !point.score.is_nan()
            && self
                .best
                .as_ref()
                .is_none_or(|(i, _)| point.score < self.curve[*i].score);
        self.curve.push(point);
        if improved {
            self.best = Some((self.curve.len() - 1, model));
        }
    }

    fn finish(self, t0: Instant) -> Result<Grown<M>> {
        let chosen = best(&self.curve)?;
        let (i, model) = self.best.ok_or_else(|| ModelError::InvalidParameter {
            name: "candidates",
            value: format!("{} tried", self.curve.len()),
            reason: "no candidate could be scored (every score is NaN)",
        })?;
        debug_assert_eq!(i, chosen);
        let point = &self.curve[i];
        Ok(Grown {
            model,
            nodes: point.nodes,
            score: point.score,
            curve: self.curve,
            stop: Stop::MaxNodes,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }
}

/// Refit at every size (hpelm's way): at every size of the schedule of
/// `opts` (`params.nodes()`, `+step`, … up to `opts.max_nodes`; patience is
/// not used, [`Stop::MaxNodes`]), a fresh batch [`Elm`] of that size
/// ([`Fit`] with `params` at `nodes` = that size: the same seed, input scale
/// and readout), scored on `val`; the best one and the whole curve. Any
/// readout fits, [`ReadoutSolver::Lstsq`] included.
///
/// # Errors
/// As [`ElmValidParams::grow_until_val`] (but for `solver`), with the batch
/// fit's errors.
pub fn refit_elm_curve(
    params: &ElmValidParams,
    train: &Dataset<'_>,
    val: &Dataset<'_>,
    opts: &GrowOptions,
) -> Result<Grown<Elm>> {
    let t0 = Instant::now();
    opts.check(params.nodes())?;
    check_data(train, val)?;
    let mut keeper = Keeper {
        curve: Vec::new(),
        best: None,
    };
    for n in opts.sizes(params.nodes()) {
        let elm = ElmParams::new(n, params.activation())
            .with_readout(*params.readout())
            .with_seed(params.seed())
            .with_input_scale(params.input_scale())
            .check()?
            .fit(train)?;
        let (predictions, lambda) = (elm.predict(val.features())?, elm.lambda());
        keeper.score(opts.criterion, val, n, lambda, predictions, elm)?;
    }
    keeper.finish(t0)
}

/// Refit at every size: at every size of the schedule of `opts`
/// (`params.initial_nodes()`, `+step`, … up to `opts.max_nodes`; patience is
/// not used, [`Stop::MaxNodes`]), the network that
/// [`BlsValidParams::grow_until_val`] has at that size — the initial network
/// and enhancement groups of `step` nodes, each drawn from its own stream —
/// built from scratch on `train` (every map and the whole expanded matrix
/// `A`) and its output weights solved in one batch by the readout
/// ([`Readout::solve`](crate::Readout::solve): the strategy's solution on
/// all the columns at once), scored on `val`; the best one and the whole
/// curve.
///
/// (A fresh [`BlsParams`](crate::BlsParams) network with more enhancement
/// nodes in its one initial group would be another random network — its
/// enhancement map is drawn as one matrix — so its curve would mix the
/// effect of the size with that of the draw.)
///
/// # Errors
/// As [`BlsValidParams::grow_until_val`], with the batch solve's errors.
pub fn refit_bls_curve(
    params: &BlsValidParams,
    train: &Dataset<'_>,
    val: &Dataset<'_>,
    opts: &GrowOptions,
) -> Result<Grown<Bls>> {
    let t0 = Instant::now();
    let start = params.initial_nodes();
    opts.check(start)?;
    check_data(train, val)?;
    let strategy = params.readout().strategy()?;
    let mut keeper = Keeper {
        curve: Vec::new(),
        best: None,
    };
    let (mut groups, mut previous) = (Vec::new(), start);
    for n in opts.sizes(start) {
        if n > previous {
            groups.push(n - previous);
            previous = n;
        }
        let (expansion, a) = IncrementalBls::columns_from_scratch(params, train, &groups)?;
        let weights = params.readout().solve(a, train.targets())?;
        let bls = Bls::from_parts(
            expansion,
            weights.as_standard_layout().into_owned(),
            params.lambda(),
            strategy,
        )?;
        let predictions = bls.predict(val.features())?;
        keeper.score(opts.criterion, val, n, params.lambda(), predictions, bls)?;
    }
    keeper.finish(t0)
}
