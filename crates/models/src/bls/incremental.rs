//! The incremental BLS: the initial network, then increments on added nodes
//! (enhancement nodes, or a feature group with its enhancement nodes), the
//! output weights updated by a ridge strategy instead of re-solved.

use std::time::{Duration, Instant};

use linalg_core::ridge::{IncrementalRidge, Strategy};
use linalg_core::sparse::Samples;
use ndarray::{Array2, ArrayView1, ArrayView2, Axis, ShapeBuilder, Slice};

use super::model::Bls;
use super::nodes::{enhancement_stream, feature_stream, EnhancementGroup, Expansion, FeatureGroup};
use super::params::BlsValidParams;
use crate::error::{ModelError, Result};
use crate::traits::{Dataset, Predict};

/// What an update did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Increment {
    /// The initial network `[Z_1 … Z_G | H_1]` (eq. (13)'s `A`), solved by the
    /// strategy directly.
    Start {
        /// Feature groups `G`.
        feature_groups: usize,
        /// Nodes per feature group `N`.
        feature_nodes: usize,
        /// Enhancement nodes `E`.
        enhancement_nodes: usize,
    },
    /// `p` enhancement nodes fed by all feature nodes (eq. (14)).
    Enhancement {
        /// Nodes added.
        nodes: usize,
    },
    /// A feature group, the enhancement nodes fed by it and additional
    /// enhancement nodes fed by all feature nodes, as one block (eq. (15)).
    FeatureGroup {
        /// Feature nodes of the new group.
        feature_nodes: usize,
        /// Enhancement nodes fed by the new group only.
        fed_enhancement_nodes: usize,
        /// Enhancement nodes fed by all feature nodes.
        extra_enhancement_nodes: usize,
    },
}

impl Increment {
    /// Nodes added (for the start: the initial nodes).
    pub fn nodes_added(&self) -> usize {
        match *self {
            Increment::Start {
                feature_groups,
                feature_nodes,
                enhancement_nodes,
            } => feature_groups
                .saturating_mul(feature_nodes)
                .saturating_add(enhancement_nodes),
            Increment::Enhancement { nodes } => nodes,
            Increment::FeatureGroup {
                feature_nodes,
                fed_enhancement_nodes,
                extra_enhancement_nodes,
            } => feature_nodes
                .saturating_add(fed_enhancement_nodes)
                .saturating_add(extra_enhancement_nodes),
        }
    }
}

/// The record of one update of an [`IncrementalBls`] (the rows of the BLS
/// paper's training-time table, Table VI).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UpdateReport {
    /// What was added.
    pub increment: Increment,
    /// Wall time spent computing the new columns (random maps, sparse
    /// autoencoder, products, activations; gathering their inputs).
    pub columns_time: Duration,
    /// Wall time of the solver's update (`append`; for the start, its
    /// construction).
    pub solver_time: Duration,
    /// Flops of the solver's update, counted by the papers' rule
    /// ([`IncrementalRidge::last_flops`]).
    pub flops: u64,
    /// Nodes after the update.
    pub nodes: usize,
    /// Feature nodes after the update.
    pub feature_nodes: usize,
    /// Enhancement nodes after the update.
    pub enhancement_nodes: usize,
}

impl UpdateReport {
    /// [`columns_time`](Self::columns_time) in seconds.
    pub fn columns_seconds(&self) -> f64 {
        self.columns_time.as_secs_f64()
    }

    /// [`solver_time`](Self::solver_time) in seconds.
    pub fn solver_seconds(&self) -> f64 {
        self.solver_time.as_secs_f64()
    }
}

/// A Broad Learning System grown by increments on added nodes (the BLS
/// paper's Sec. II-B–II-C and its Algorithms; Chen & Liu 2018, Sec. III),
/// the output weights updated by a [`Strategy`] (Orig., Exg-E, Chol-1,
/// Chol-2, R-Inv, D-Rdg, or any other of linalg-core's).
///
/// It owns the training samples `X` (needed to build new feature groups),
/// the targets `Y`, the feature nodes' training outputs `Zⁿ` (K × feature
/// nodes, the input of new enhancement nodes: 82 MB at MNIST's 60000 × 170,
/// against 12 GB for `A`), the node maps ([`Expansion`]: only the small `β`,
/// minima/maxima, `W_h` and scales) and the solver, which holds the expanded
/// matrix `A` (K×nodes) and its factors; `A` itself is not kept here. An
/// increment computes only the new `K×q` block and appends it with one
/// [`IncrementalRidge::append`] call, so the columns of `A` are the blocks in
/// append order (eqs. (14), (15), (17)). Keeping `Zⁿ` rather than reading it
/// back from the solver's `A` keeps the enhancement inputs exact whatever
/// precision the solver stores `A` in.
///
/// Random maps are reproducible: feature group `i` and enhancement group `j`
/// (numbered in creation order) draw from streams that depend only on
/// `(seed, i)` and `(seed, j)`.
///
/// ```
/// use linalg_core::ridge::Strategy;
/// use models::bls::{BlsParams, IncrementalBls};
/// use models::prelude::*;
/// use ndarray::{Array2, Axis};
/// let x = Array2::from_shape_fn((120, 6), |(i, j)| ((i * 7 + j * 3) % 13) as f64 / 6.0 - 1.0);
/// let y = x.sum_axis(Axis(1)).insert_axis(Axis(1)).mapv(f64::sin);
/// let params = BlsParams::new(2, 3, 20).with_lambda(1e-3).with_strategy(Strategy::Chol2).with_seed(5).check()?;
/// let mut bls = IncrementalBls::start(&params, x.clone(), y.clone())?;
/// bls.reserve(10 + 2 + 3 + 4);
/// bls.add_enhancement(10)?;
/// let report = bls.add_feature_group(2, 3, 4)?;
/// assert_eq!((report.nodes, bls.feature_nodes(), bls.enhancement_nodes()), (45, 8, 37));
/// // The weights are the ridge solution on the expanded matrix A of the grown network.
/// let a = bls.hidden_outputs(x.view())?;
/// let direct = Strategy::DRdg.build(a.view(), y.view(), 1e-3, linalg_core::Precision::F64)?;
/// let diff = (&bls.weights() - &direct.weights()).mapv(f64::abs).sum();
/// assert!(diff < 1e-8);
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Debug)]
pub struct IncrementalBls {
    params: BlsValidParams,
    expansion: Expansion,
    solver: Box<dyn IncrementalRidge>,
    x: Array2<f64>,
    y: Array2<f64>,
    /// The feature nodes' training outputs `Zⁿ` (K×feature nodes,
    /// column-major), the input of new enhancement nodes.
    features: Array2<f64>,
    reports: Vec<UpdateReport>,
}

impl Clone for IncrementalBls {
    fn clone(&self) -> Self {
        Self {
            params: self.params,
            expansion: self.expansion.clone(),
            solver: self.solver.clone_box(),
            x: self.x.clone(),
            y: self.y.clone(),
            features: self.features.clone(),
            reports: self.reports.clone(),
        }
    }
}

/// What [`build_initial`] makes: maps, solver, report, feature outputs.
pub(crate) type Initial = (Expansion, Box<dyn IncrementalRidge>, UpdateReport, Array2<f64>);

/// The initial network on `x`, `y`: its node maps, the solver built from
/// `A₀ = [Z_1 … Z_G | H_1]`, the report of the start and the feature nodes'
/// outputs `Zⁿ` (when `keep_features`; otherwise an empty matrix).
pub(crate) fn build_initial(params: &BlsValidParams, data: &Dataset<'_>, keep_features: bool) -> Result<Initial> {
    data.check()?;
    build_initial_of(params, data.features().into(), data.targets(), keep_features)
}

/// [`build_initial`] on checked samples `x` (dense or sparse) and targets `y`.
pub(crate) fn build_initial_of(
    params: &BlsValidParams,
    x: Samples<'_>,
    y: ArrayView2<'_, f64>,
    keep_features: bool,
) -> Result<Initial> {
    let t0 = Instant::now();
    let (expansion, a0) = initial_columns(params, x, None)?;
    let features = expansion.feature_nodes();
    let z = if keep_features {
        let mut z = Array2::<f64>::zeros((a0.nrows(), features).f());
        z.assign(&a0.slice_axis(Axis(1), Slice::from(..features)));
        z
    } else {
        Array2::zeros((0, 0).f())
    };
    let t1 = Instant::now();
    // `a0` is column-major: the solver takes it over without a copy.
    let solver = params.readout().start(a0, y)?;
    let t2 = Instant::now();
    let report = UpdateReport {
        increment: Increment::Start {
            feature_groups: params.feature_groups(),
            feature_nodes: params.feature_nodes(),
            enhancement_nodes: params.enhancement_nodes(),
        },
        columns_time: t1 - t0,
        solver_time: t2 - t1,
        flops: solver.last_flops(),
        nodes: solver.nodes(),
        feature_nodes: expansion.feature_nodes(),
        enhancement_nodes: expansion.enhancement_nodes(),
    };
    Ok((expansion, solver, report, z))
}

/// The node maps and the output weights of the initial network of `params`
/// fitted with sample weights `weights` (> 0, one per row of the checked
/// `data`; rows of weight 0 already left out): the sparse autoencoder's
/// sums weighted, the extremes and maxima over these rows, and the readout
/// solved on the rows of `A` and `Y` scaled by `√w`; with the strategy the
/// readout records.
pub(crate) fn build_weighted(
    params: &BlsValidParams,
    x: Samples<'_>,
    y: ArrayView2<'_, f64>,
    weights: ArrayView1<'_, f64>,
) -> Result<(Expansion, Array2<f64>, Strategy)> {
    let (expansion, mut a0) = initial_columns(params, x, Some(weights))?;
    let root = weights.mapv(f64::sqrt);
    let root = root.view().insert_axis(Axis(1));
    a0 *= &root;
    let y = &y * &root;
    let solver = params.readout().start(a0, y.view())?;
    Ok((
        expansion,
        solver.weights().as_standard_layout().into_owned(),
        solver.strategy(),
    ))
}

/// The node maps of the initial network of `params` on the (checked)
/// training samples `x` and its columns `A₀ = [Z_1 … Z_G | H_1]`
/// (K×(G·N+E), column-major); no solver.
fn initial_columns(
    params: &BlsValidParams,
    x: Samples<'_>,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<(Expansion, Array2<f64>)> {
    let (k, d) = (x.nrows(), x.ncols());
    let (g_count, n, e) = (
        params.feature_groups(),
        params.feature_nodes(),
        params.enhancement_nodes(),
    );
    // `check` refused an overflowing G·N + E.
    let features = g_count * n;
    let mut a0 = Array2::<f64>::zeros((k, features + e).f());
    let mut expansion = Expansion::empty(d);
    {
        let (mut z, h) = a0.view_mut().split_at(Axis(1), features);
        for i in 0..g_count {
            let out = z.slice_axis_mut(Axis(1), Slice::from(i * n..(i + 1) * n));
            let group = FeatureGroup::train(
                x,
                n,
                feature_stream(params.seed(), i),
                (params.sparse_mu(), params.admm_iterations()),
                weights,
                out,
            )?;
            expansion.push_feature(group);
        }
        if e > 0 {
            let group = EnhancementGroup::train(
                z.view(),
                0..features,
                e,
                enhancement_stream(params.seed(), 0),
                params.enhancement_draw(),
                h,
            );
            expansion.push_enhancement(group);
        }
    }
    Ok((expansion, a0))
}

impl IncrementalBls {
    /// The node maps and the expanded input matrix `A` (K×nodes,
    /// column-major) of the network that [`start`](Self::start) on `params`
    /// and `data` followed by `add_enhancement(groups[0])`,
    /// `add_enhancement(groups[1])`, … would have, built from scratch
    /// without a solver (for a batch refit of that network: `select::grow`).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `p` for a group of 0 nodes and
    /// `nodes` if the total overflows; the [`Dataset::check`] errors; the
    /// sparse autoencoder's errors.
    pub(crate) fn columns_from_scratch(
        params: &BlsValidParams,
        data: &Dataset<'_>,
        groups: &[usize],
    ) -> Result<(Expansion, Array2<f64>)> {
        data.check()?;
        if groups.contains(&0) {
            return Err(ModelError::InvalidParameter {
                name: "p",
                value: "0".into(),
                reason: "add at least one enhancement node",
            });
        }
        let total = groups
            .iter()
            .try_fold(params.initial_nodes(), |n, &p| n.checked_add(p))
            .ok_or_else(|| ModelError::InvalidParameter {
                name: "nodes",
                value: format!("{} + {} groups", params.initial_nodes(), groups.len()),
                reason: "the number of nodes overflows",
            })?;
        let (mut expansion, a0) = initial_columns(params, data.features().into(), None)?;
        let (k, n0) = a0.dim();
        let f = expansion.feature_nodes();
        let mut a = Array2::<f64>::zeros((k, total).f());
        a.slice_axis_mut(Axis(1), Slice::from(..n0)).assign(&a0);
        drop(a0);
        let first = expansion.enhancement_groups().len();
        let mut at = n0;
        for (i, &p) in groups.iter().enumerate() {
            let (done, rest) = a.view_mut().split_at(Axis(1), at);
            let group = EnhancementGroup::train(
                done.slice_axis(Axis(1), Slice::from(..f)),
                0..f,
                p,
                enhancement_stream(params.seed(), first + i),
                params.enhancement_draw(),
                {
                    let mut out = rest;
                    out.slice_axis_inplace(Axis(1), Slice::from(..p));
                    out
                },
            );
            expansion.push_enhancement(group);
            at += p;
        }
        Ok((expansion, a))
    }

    /// Build the initial network of `params` (`G` feature groups of `N`
    /// nodes, `E` enhancement nodes fed by all of them) on the training
    /// samples `x` (K×d) with targets `y` (K×M, e.g. one-hot classes), and
    /// solve for its output weights with the strategy of `params.readout()`
    /// (from scratch, at its λ). Takes ownership of `x` and `y` (kept for
    /// the increments, not copied).
    ///
    /// # Errors
    /// [`linalg_core::Error::Empty`], [`linalg_core::Error::NonFinite`],
    /// [`linalg_core::Error::Shape`] for unusable data; the strategy's errors
    /// ([`ModelError::Linalg`]).
    pub fn start(params: &BlsValidParams, x: Array2<f64>, y: Array2<f64>) -> Result<Self> {
        let (expansion, solver, report, features) = build_initial(params, &Dataset::new(x.view(), y.view()), true)?;
        Ok(Self {
            params: *params,
            expansion,
            solver,
            x,
            y,
            features,
            reports: vec![report],
        })
    }

    /// Make room in the solver for `additional` more nodes, so that later
    /// increments do not reallocate `A` or the factors (at MNIST's 60000 ×
    /// 25170 a reallocation would briefly hold two copies of `A`).
    pub fn reserve(&mut self, additional: usize) {
        self.solver.reserve(additional);
    }

    /// [`reserve`](Self::reserve) room for a network of `total_nodes` nodes
    /// (nothing if it already has that many).
    pub fn reserve_total(&mut self, total_nodes: usize) {
        self.reserve(total_nodes.saturating_sub(self.nodes()));
    }

    /// Increment (a), the BLS paper's eq. (14): add `p ≥ 1` enhancement nodes
    /// fed by all current feature nodes, appended as one `K×p` block.
    ///
    /// On a solver error the network keeps exactly the nodes the solver kept
    /// (none of the new ones for the block strategies) and stays usable.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for `p = 0`; the strategy's errors
    /// ([`ModelError::Linalg`]), e.g. Chol-1's or Exg-E's loss of positive
    /// definiteness at tiny λ.
    pub fn add_enhancement(&mut self, p: usize) -> Result<UpdateReport> {
        if p == 0 {
            return Err(ModelError::InvalidParameter {
                name: "p",
                value: "0".into(),
                reason: "add at least one enhancement node",
            });
        }
        let t0 = Instant::now();
        let k = self.x.nrows();
        let f = self.expansion.feature_nodes();
        let mut h = Array2::<f64>::zeros((k, p).f());
        let group = EnhancementGroup::train(
            self.features.view(),
            0..f,
            p,
            enhancement_stream(self.params.seed(), self.expansion.enhancement_groups().len()),
            self.params.enhancement_draw(),
            h.view_mut(),
        );
        let t1 = Instant::now();
        // By value: the solver works in this block's memory (no K×q copy).
        let appended = self.solver.append_owned(h);
        let t2 = Instant::now();
        self.expansion.push_enhancement(group);
        self.commit(appended, Increment::Enhancement { nodes: p }, t1 - t0, t2 - t1, None)
    }

    /// Increment (b), the BLS paper's eq. (15): add a feature group of
    /// `feature_nodes ≥ 1` nodes, `fed` enhancement nodes fed only by the new
    /// group, and `extra` enhancement nodes fed by all feature nodes (the new
    /// group included), appended to the solver as **one** block
    /// `[Z_new | H_fed | H_extra]`. `fed` or `extra` may be 0 (no group).
    ///
    /// The BLS paper's MNIST schedule is 11 × `add_feature_group(10, 750, 1250)`
    /// after a start of 6 × 10 feature and 3000 enhancement nodes.
    ///
    /// On a solver error the network keeps exactly the nodes the solver kept
    /// (none of the new ones for the block strategies) and stays usable.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for `feature_nodes = 0`; the
    /// strategy's errors ([`ModelError::Linalg`]).
    pub fn add_feature_group(&mut self, feature_nodes: usize, fed: usize, extra: usize) -> Result<UpdateReport> {
        if feature_nodes == 0 {
            return Err(ModelError::InvalidParameter {
                name: "feature_nodes",
                value: "0".into(),
                reason: "a feature group needs at least one node",
            });
        }
        let q = feature_nodes
            .checked_add(fed)
            .and_then(|q| q.checked_add(extra))
            .ok_or_else(|| ModelError::InvalidParameter {
                name: "feature_nodes + fed + extra",
                value: format!("{feature_nodes} + {fed} + {extra}"),
                reason: "the number of nodes added overflows",
            })?;
        let t0 = Instant::now();
        let k = self.x.nrows();
        let f0 = self.expansion.feature_nodes();
        let f1 = f0 + feature_nodes;
        let mut h = Array2::<f64>::zeros((k, q).f());
        let mut z_all = Array2::<f64>::zeros((k, f1).f());
        let mut groups = Vec::with_capacity(2);
        let features = {
            let (mut z_new, rest) = h.view_mut().split_at(Axis(1), feature_nodes);
            let (h_fed, h_extra) = rest.split_at(Axis(1), fed);
            let features = FeatureGroup::train(
                self.x.view().into(),
                feature_nodes,
                feature_stream(self.params.seed(), self.expansion.feature_groups().len()),
                (self.params.sparse_mu(), self.params.admm_iterations()),
                None,
                z_new.view_mut(),
            )?;
            let mut next_enhancement = self.expansion.enhancement_groups().len();
            if fed > 0 {
                groups.push(EnhancementGroup::train(
                    z_new.view(),
                    f0..f1,
                    fed,
                    enhancement_stream(self.params.seed(), next_enhancement),
                    self.params.enhancement_draw(),
                    h_fed,
                ));
                next_enhancement += 1;
            }
            z_all.slice_axis_mut(Axis(1), Slice::from(..f0)).assign(&self.features);
            z_all.slice_axis_mut(Axis(1), Slice::from(f0..)).assign(&z_new);
            if extra > 0 {
                groups.push(EnhancementGroup::train(
                    z_all.view(),
                    0..f1,
                    extra,
                    enhancement_stream(self.params.seed(), next_enhancement),
                    self.params.enhancement_draw(),
                    h_extra,
                ));
            }
            features
        };
        let t1 = Instant::now();
        // By value: the solver works in this block's memory (no K×q copy).
        let appended = self.solver.append_owned(h);
        let t2 = Instant::now();
        self.expansion.push_feature(features);
        for g in groups {
            self.expansion.push_enhancement(g);
        }
        let increment = Increment::FeatureGroup {
            feature_nodes,
            fed_enhancement_nodes: fed,
            extra_enhancement_nodes: extra,
        };
        self.commit(appended, increment, t1 - t0, t2 - t1, Some(z_all))
    }

    /// After the new groups were pushed: keep the nodes the solver holds, the
    /// outputs of the feature nodes kept (from `features`, the candidate
    /// `Zⁿ` with the new group's columns) and record the report (on success).
    fn commit(
        &mut self,
        appended: linalg_core::Result<()>,
        increment: Increment,
        columns_time: Duration,
        solver_time: Duration,
        features: Option<Array2<f64>>,
    ) -> Result<UpdateReport> {
        let result = appended.map_err(ModelError::from);
        if result.is_err() {
            // Block strategies changed nothing; column-by-column ones kept
            // the columns before the failing one.
            self.expansion.truncate(self.solver.nodes());
        }
        if let Some(z) = features {
            let f = self.expansion.feature_nodes();
            if f == z.ncols() {
                self.features = z;
            } else if f > self.features.ncols() {
                // A cut group: its kept columns as its cut map computes them
                // (what `hidden_outputs` and `predict` compute), not the
                // candidate's. BLAS does not promise that a column of a
                // product is independent of the product's width (on some
                // kernels they differ in the last bits), and the groups
                // added later must be fed what prediction feeds them.
                let old = self.features.ncols();
                let mut kept = Array2::<f64>::zeros((z.nrows(), f).f());
                kept.slice_axis_mut(Axis(1), Slice::from(..old))
                    .assign(&z.slice_axis(Axis(1), Slice::from(..old)));
                if let Some(cut) = self.expansion.feature_groups().last() {
                    cut.write(self.x.view().into(), kept.slice_axis_mut(Axis(1), Slice::from(old..f)));
                }
                self.features = kept;
            }
        }
        result?;
        debug_assert_eq!(self.expansion.nodes(), self.solver.nodes());
        let report = UpdateReport {
            increment,
            columns_time,
            solver_time,
            flops: self.solver.last_flops(),
            nodes: self.solver.nodes(),
            feature_nodes: self.expansion.feature_nodes(),
            enhancement_nodes: self.expansion.enhancement_nodes(),
        };
        self.reports.push(report);
        Ok(report)
    }

    /// Total nodes (columns of `A`).
    pub fn nodes(&self) -> usize {
        self.solver.nodes()
    }

    /// Feature nodes.
    pub fn feature_nodes(&self) -> usize {
        self.expansion.feature_nodes()
    }

    /// Enhancement nodes.
    pub fn enhancement_nodes(&self) -> usize {
        self.expansion.enhancement_nodes()
    }

    /// Current output weights `W` (nodes×M), row `c` for column `c` of `A`.
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.solver.weights()
    }

    /// The solver (its `A`, flops, memory, …).
    pub fn solver(&self) -> &dyn IncrementalRidge {
        self.solver.as_ref()
    }

    /// The node maps.
    pub fn expansion(&self) -> &Expansion {
        &self.expansion
    }

    /// The parameters the network was started with.
    pub fn params(&self) -> &BlsValidParams {
        &self.params
    }

    /// The update strategy.
    pub fn strategy(&self) -> Strategy {
        self.solver.strategy()
    }

    /// The ridge parameter λ.
    pub fn lambda(&self) -> f64 {
        self.solver.lambda()
    }

    /// The training samples `X` (K×d).
    pub fn samples(&self) -> ArrayView2<'_, f64> {
        self.x.view()
    }

    /// The training targets `Y` (K×M).
    pub fn targets(&self) -> ArrayView2<'_, f64> {
        self.y.view()
    }

    /// The reports of the start and of every successful increment, in order.
    pub fn reports(&self) -> &[UpdateReport] {
        &self.reports
    }

    /// Bytes held: the solver's state ([`IncrementalRidge::memory_bytes`]),
    /// the training samples and targets, the feature outputs `Zⁿ`, and the
    /// node maps' arrays.
    pub fn memory_bytes(&self) -> usize {
        let f64s = |n: usize| n * std::mem::size_of::<f64>();
        let maps: usize = self
            .expansion
            .feature_groups()
            .iter()
            .map(|g| f64s(g.beta().len() + 2 * g.nodes()))
            .chain(
                self.expansion
                    .enhancement_groups()
                    .iter()
                    .map(|g| f64s(g.weights().len())),
            )
            .sum();
        self.solver.memory_bytes() + f64s(self.x.len() + self.y.len() + self.features.len()) + maps
    }

    /// The expanded input matrix `A` (K×nodes) of samples `x` (K×d) with the
    /// stored maps, in append order; on the training samples it equals the
    /// solver's [`hidden`](IncrementalRidge::hidden) bit for bit (the same
    /// operations on the same shapes), except in the columns of a block the
    /// solver kept only part of (a column-by-column strategy that stopped
    /// inside a block): there the map is the block's cut, a product of
    /// another width, which BLAS may round differently in the last bits
    /// (bounded in `tests/bls.rs`, `a_partly_applied_block_…`).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`], [`linalg_core::Error::Empty`] or
    /// [`linalg_core::Error::NonFinite`] for unusable samples.
    pub fn hidden_outputs(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.expansion.hidden_outputs(x)
    }

    /// Predictions `A(x) W` (K×M) of the current network for samples `x`
    /// (K×d) (eq. (13)), accumulated block by block; bit-identical to the
    /// predictions of [`to_bls`](Self::to_bls).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`], [`linalg_core::Error::Empty`] or
    /// [`linalg_core::Error::NonFinite`] for unusable samples.
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.expansion.predict(x.into(), self.solver.weights())
    }

    /// The current network as a fitted [`Bls`] (copies the maps and weights).
    pub fn to_bls(&self) -> Bls {
        Bls::from_raw(
            self.expansion.clone(),
            self.solver.weights().as_standard_layout().into_owned(),
            self.solver.lambda(),
            self.solver.strategy(),
        )
    }

    /// The current network as a fitted [`Bls`], dropping the training data
    /// and the solver.
    pub fn into_bls(self) -> Bls {
        let weights = self.solver.weights().as_standard_layout().into_owned();
        Bls::from_raw(self.expansion, weights, self.solver.lambda(), self.solver.strategy())
    }

    /// Give back the training samples `X` and targets `Y` it owns, dropping
    /// the solver first (no copy: e.g. to start the next network on the same
    /// data without holding two copies).
    pub fn into_data(self) -> (Array2<f64>, Array2<f64>) {
        drop(self.solver);
        (self.x, self.y)
    }
}

impl Predict for IncrementalBls {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        IncrementalBls::predict(self, x)
    }

    fn n_inputs(&self) -> usize {
        self.expansion.n_inputs()
    }

    fn n_outputs(&self) -> usize {
        self.y.ncols()
    }
}
