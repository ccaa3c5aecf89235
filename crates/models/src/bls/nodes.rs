//! The node maps of a BLS: feature groups (random map fine-tuned by the
//! sparse autoencoder, then scaled), enhancement groups (random map, shrink,
//! tanh) and the order of their columns in the expanded input matrix `A`.

use std::ops::Range;

use linalg_core::sparse::Samples;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut2, Axis, ShapeBuilder, Slice};
use serde::{Deserialize, Serialize};

use super::columns::{
    biased_extremes, biased_product, map_columns, minmax_gain, product_with_bias_row, Extremes, Z_TARGET,
};
use super::orth::{enhancement_weights, EnhancementWeights};
use super::sparse::{autoencoder_sums, lasso_admm_gram};
use crate::error::{ModelError, Result};
use crate::rng::{mix64, node_stream, SplitMix64};
use crate::validate;

/// The constant of the bias column appended to the inputs of every random
/// map: `X̃ = [X, 0.1·1]` and `[Z_F, 0.1·1]` (Chen's `.1 * ones(...)`).
pub const BIAS_INPUT: f64 = 0.1;

/// Domain separation of the seed streams of the two kinds of groups.
const FEATURE_STREAM: u64 = 0x4253_4C46_4541_5455; // "BLSFEATU"
const ENHANCEMENT_STREAM: u64 = 0x4253_4C45_4E48_414E; // "BLSENHAN"

/// The random stream of feature group `index` drawn from `seed`.
pub(crate) fn feature_stream(seed: u64, index: usize) -> SplitMix64 {
    node_stream(mix64(seed ^ FEATURE_STREAM), index as u64)
}

/// The random stream of enhancement group `index` drawn from `seed`.
pub(crate) fn enhancement_stream(seed: u64, index: usize) -> SplitMix64 {
    node_stream(mix64(seed ^ ENHANCEMENT_STREAM), index as u64)
}

/// A `rows×cols` matrix i.i.d. uniform on `[−1, 1)` (MATLAB's `2*rand-1`),
/// filled row by row from `rng`.
pub(crate) fn draw_uniform(rows: usize, cols: usize, rng: &mut SplitMix64) -> Array2<f64> {
    let mut w = Array2::zeros((rows, cols));
    for i in 0..rows {
        for j in 0..cols {
            w[[i, j]] = rng.symmetric();
        }
    }
    w
}

/// One group of feature nodes (the BLS paper's eq. (9), `Z_i = φ(X W_ei +
/// β_ei)`, as Chen's reference code computes it):
///
/// ```text
/// X̃ = [X, 0.1·1]                         K×(d+1)
/// A1 = X̃ W_e,  W_e ~ U[−1, 1]^{(d+1)×N}, each column min–max scaled to [−1, 1]
/// B  = argmin ½‖A1 B − X̃‖² + μ‖B‖₁      (sparse autoencoder, ADMM; N×(d+1))
/// β  = Bᵀ                                 (d+1)×N
/// Z  = (X̃ β − 1 minᵀ) diag(1/(max − min))  each column min–max scaled to [0, 1]
/// ```
///
/// `min`, `max` are the column extremes of `X̃β` on the training samples,
/// stored and reused for every other input (MATLAB's `mapminmax('apply')`);
/// a constant column (`max = min`) gets gain 1, as in MATLAB.
///
/// Scaling `A1` **per column** (over the samples) is this crate's choice:
/// Chen's MATLAB calls `mapminmax(A1)`, which scales each *row* (sample) of
/// `A1` across the N nodes — a known quirk of the reference code that makes
/// the fine-tuning depend on how many nodes a group has. Either way `A1`
/// only shapes the autoencoder's `β`; the group's map is `X̃ ↦ X̃β` followed
/// by the stored scaling. Since that map is affine in `X`, all feature
/// columns lie in the span of `[X, 1]`: more than `d + 1` feature nodes in
/// total are linearly dependent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureGroup {
    /// `β` ((d+1)×N): rows `0..d` multiply `X`, row `d` the bias column 0.1.
    beta: Array2<f64>,
    /// Column minima of `X̃β` on the training samples (N).
    min: Array1<f64>,
    /// Column maxima of `X̃β` on the training samples (N).
    max: Array1<f64>,
}

impl FeatureGroup {
    /// Draw group `W_e` from `rng`, fine-tune it on the training samples `x`
    /// (K×d) and write the group's `K×nodes` outputs `Z` into `out`.
    pub(crate) fn train(
        x: Samples<'_>,
        nodes: usize,
        mut rng: SplitMix64,
        (mu, iterations): (f64, usize),
        weights: Option<ArrayView1<'_, f64>>,
        mut out: ArrayViewMut2<'_, f64>,
    ) -> Result<Self> {
        let (k, d) = (x.nrows(), x.ncols());
        let we = draw_uniform(d + 1, nodes, &mut rng);
        // A1 = X̃ W_e, each column scaled to [−1, 1]; the lasso's sums
        // (weighted by the rows' sample weights, if any).
        let mut a1 = Array2::<f64>::zeros((k, nodes).f());
        let range = biased_extremes(x, we.view(), a1.view_mut());
        let (gram, atb) = autoencoder_sums(a1.view_mut(), &range, x, weights);
        drop(a1);
        let beta = Self::fine_tune(gram, atb.view(), mu, iterations)?;
        // Z = X̃β, the training extremes recorded, then scaled to [0, 1].
        let range = biased_extremes(x, beta.view(), out.view_mut());
        range.apply(out, Z_TARGET);
        Ok(Self::from_stats(beta, range))
    }

    /// The random map `W_e` ((d+1)×N, uniform on [−1, 1)) that feature
    /// group `index` of a network seeded `seed` draws for `n_inputs` inputs
    /// and `nodes` nodes: the sparse autoencoder fine-tunes `A1 = X̃W_e`.
    pub fn random_map(seed: u64, index: usize, n_inputs: usize, nodes: usize) -> Array2<f64> {
        draw_uniform(n_inputs + 1, nodes, &mut feature_stream(seed, index))
    }

    /// `β` ((d+1)×N) from the sparse autoencoder's sums over all the
    /// training rows ([`autoencoder_sums`]): the lasso by ADMM, transposed.
    pub(crate) fn fine_tune(
        gram: Array2<f64>,
        atb: ArrayView2<'_, f64>,
        mu: f64,
        iterations: usize,
    ) -> Result<Array2<f64>> {
        let b = lasso_admm_gram(gram, atb, mu, iterations)?;
        Ok(b.t().as_standard_layout().into_owned())
    }

    /// The group of the fine-tuned map `beta` and the column extremes `z`
    /// of `X̃β` over all the training rows.
    pub(crate) fn from_stats(beta: Array2<f64>, z: Extremes) -> Self {
        Self {
            beta,
            min: Array1::from(z.lo),
            max: Array1::from(z.hi),
        }
    }

    /// Write the group's outputs `Z` (K×N) for samples `x` (K×d) into `out`:
    /// the same floating-point operations as [`train`](Self::train), so the
    /// training samples give bit-identical columns.
    pub(crate) fn write(&self, x: Samples<'_>, mut out: ArrayViewMut2<'_, f64>) {
        let bias = product_with_bias_row(x, self.beta.view(), &mut out);
        let gains = self.gains();
        map_columns(out, |j, mut c| {
            let (b, lo, g) = (bias[j], self.min[j], gains[j]);
            c.mapv_inplace(|v| ((v + b) - lo) * g);
        });
    }

    /// The scaling gains `1/(max − min)` (1 for a constant column): the
    /// group's outputs are `((X̃β)_j − min_j)·gain_j`.
    pub fn gains(&self) -> Vec<f64> {
        self.min
            .iter()
            .zip(self.max.iter())
            .map(|(&lo, &hi)| minmax_gain(lo, hi, 1.0))
            .collect()
    }

    /// Number of nodes `N`.
    pub fn nodes(&self) -> usize {
        self.beta.ncols()
    }

    /// Number of inputs `d`.
    pub fn n_inputs(&self) -> usize {
        self.beta.nrows().saturating_sub(1)
    }

    /// The fine-tuned map `β` ((d+1)×N; the last row multiplies the bias
    /// column 0.1).
    pub fn beta(&self) -> ArrayView2<'_, f64> {
        self.beta.view()
    }

    /// Column minima of `X̃β` on the training samples (N).
    pub fn min(&self) -> ArrayView1<'_, f64> {
        self.min.view()
    }

    /// Column maxima of `X̃β` on the training samples (N).
    pub fn max(&self) -> ArrayView1<'_, f64> {
        self.max.view()
    }

    /// Keep the first `nodes` nodes.
    fn truncate(&mut self, nodes: usize) {
        if nodes < self.nodes() {
            self.beta = self.beta.slice_axis(Axis(1), Slice::from(..nodes)).to_owned();
            self.min = self.min.slice_axis(Axis(0), Slice::from(..nodes)).to_owned();
            self.max = self.max.slice_axis(Axis(0), Slice::from(..nodes)).to_owned();
        }
    }

    /// Consistent shapes for `d` inputs, finite values, at least one node.
    fn check(&self, d: usize) -> Result<()> {
        let n = self.nodes();
        if self.beta.nrows() != d + 1 || n == 0 || self.min.len() != n || self.max.len() != n {
            return Err(linalg_core::Error::Shape {
                what: "feature group",
                expected: format!("β of {}×N with N ≥ 1 and N minima and maxima", d + 1),
                found: format!(
                    "β {}×{}, {} minima, {} maxima",
                    self.beta.nrows(),
                    n,
                    self.min.len(),
                    self.max.len()
                ),
            }
            .into());
        }
        validate::finite("feature group β", self.beta.view())?;
        validate::finite("feature group minima", self.min.view().insert_axis(Axis(0)))?;
        validate::finite("feature group maxima", self.max.view().insert_axis(Axis(0)))
    }
}

/// One group of enhancement nodes (the BLS paper's eq. (11), `H_j =
/// ξ(Zⁿ W_hj + β_hj)` with `ξ = tanh`, as Chen's reference code computes it):
///
/// ```text
/// H = tanh(s · [Z_F, 0.1·1] W_h),   W_h ~ U[−1, 1]^{(|F|+1)×p},   s = shrink / max|[Z_F, 0.1·1] W_h|
/// ```
///
/// where `Z_F` are the feature nodes `F` feeding the group — all feature nodes
/// existing when it was created (eq. (11)), or only the columns of one feature
/// group (the enhancement nodes "corresponding to" added feature nodes,
/// eq. (15)); feature nodes are numbered in creation order, so `F` is a range.
/// The max is over the training samples and stored (Chen's
/// `l2 = s/max(max(T2))`, here of the absolute value; a zero max gives
/// `s = shrink`). The BLS paper describes the weights as uniform on
/// [−1, 1], which is what is drawn by default; Chen's code also
/// orthonormalizes `W_h` (`orth`), which [`EnhancementWeights::Orthonormal`]
/// does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnhancementGroup {
    /// First feature node feeding the group.
    inputs_start: usize,
    /// One past the last feature node feeding the group.
    inputs_end: usize,
    /// `W_h` ((|F|+1)×p): the last row multiplies the bias column 0.1.
    weights: Array2<f64>,
    /// The shrink factor `s`.
    scale: f64,
}

impl EnhancementGroup {
    /// Draw `W_h` from `rng` as `kind` says for `p` nodes fed by the feature
    /// nodes `inputs` whose training outputs are `z` (K×|inputs|), set the
    /// scale from the training samples and write the group's outputs `H`
    /// (K×p) into `out`.
    pub(crate) fn train(
        z: ArrayView2<'_, f64>,
        inputs: Range<usize>,
        p: usize,
        mut rng: SplitMix64,
        (shrink, kind): (f64, EnhancementWeights),
        mut out: ArrayViewMut2<'_, f64>,
    ) -> Self {
        debug_assert_eq!(z.ncols(), inputs.len());
        let weights = enhancement_weights(z.ncols() + 1, p, &mut rng, kind);
        let max = Self::input_max(z, weights.view(), out.view_mut());
        let group = Self::from_stats(inputs, weights, shrink, max);
        let scale = group.scale;
        map_columns(out, |_, mut c| c.mapv_inplace(|v| (scale * v).tanh()));
        group
    }

    /// The group's input `[Z_F, 0.1·1] W_h` of the feature outputs `z`
    /// written into `out`, and its largest magnitude over these rows (a fit
    /// from chunks takes the largest over its chunks).
    pub(crate) fn input_max(z: ArrayView2<'_, f64>, weights: ArrayView2<'_, f64>, out: ArrayViewMut2<'_, f64>) -> f64 {
        biased_product(z.into(), weights, out, 0.0f64, |m, v| m.max(v.abs()))
            .into_iter()
            .fold(0.0f64, f64::max)
    }

    /// The group of `weights` fed by the feature nodes `inputs`, whose input
    /// has the largest magnitude `max` over all the training rows: `s =
    /// shrink / max` (`shrink` itself for a zero or non-finite max).
    pub(crate) fn from_stats(inputs: Range<usize>, weights: Array2<f64>, shrink: f64, max: f64) -> Self {
        let scale = if max > 0.0 && max.is_finite() {
            shrink / max
        } else {
            shrink
        };
        Self {
            inputs_start: inputs.start,
            inputs_end: inputs.end,
            weights,
            scale,
        }
    }

    /// Write the group's outputs `H` (K×p) for feature outputs `z`
    /// (K×|inputs|) into `out`: the same floating-point operations as
    /// [`train`](Self::train).
    pub(crate) fn write(&self, z: ArrayView2<'_, f64>, mut out: ArrayViewMut2<'_, f64>) {
        let bias = product_with_bias_row(z.into(), self.weights.view(), &mut out);
        let s = self.scale;
        map_columns(out, |j, mut c| {
            let b = bias[j];
            c.mapv_inplace(|v| (s * (v + b)).tanh());
        });
    }

    /// Number of nodes `p`.
    pub fn nodes(&self) -> usize {
        self.weights.ncols()
    }

    /// The feature nodes feeding the group (indices in feature-creation order).
    pub fn inputs(&self) -> Range<usize> {
        self.inputs_start..self.inputs_end
    }

    /// The random weights `W_h` ((|F|+1)×p; the last row multiplies the bias
    /// column 0.1).
    pub fn weights(&self) -> ArrayView2<'_, f64> {
        self.weights.view()
    }

    /// The shrink factor `s` (`shrink / max|[Z_F, 0.1]W_h|` on the training data).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Keep the first `nodes` nodes.
    fn truncate(&mut self, nodes: usize) {
        if nodes < self.nodes() {
            self.weights = self.weights.slice_axis(Axis(1), Slice::from(..nodes)).to_owned();
        }
    }

    /// Consistent shapes, inputs among the first `features` feature nodes,
    /// finite weights and a finite positive scale.
    fn check(&self, features: usize) -> Result<()> {
        let f = self.inputs_end.saturating_sub(self.inputs_start);
        if self.inputs_start >= self.inputs_end || self.inputs_end > features {
            return Err(ModelError::InvalidParameter {
                name: "enhancement group inputs",
                value: format!("{}..{}", self.inputs_start, self.inputs_end),
                reason: "an enhancement group is fed by a non-empty range of the feature nodes created before it",
            });
        }
        if self.weights.nrows() != f + 1 || self.weights.ncols() == 0 {
            return Err(linalg_core::Error::Shape {
                what: "enhancement group weights",
                expected: format!("{}×p with p ≥ 1 (|F| + 1 rows)", f + 1),
                found: format!("{}×{}", self.weights.nrows(), self.weights.ncols()),
            }
            .into());
        }
        validate::finite("enhancement group weights", self.weights.view())?;
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(ModelError::InvalidParameter {
                name: "enhancement group scale",
                value: format!("{}", self.scale),
                reason: "the shrink factor must be finite and > 0",
            });
        }
        Ok(())
    }
}

/// A block of columns of the expanded input matrix `A`: one group's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Block {
    /// The nodes of feature group `i` (index into
    /// [`Expansion::feature_groups`]).
    Feature(usize),
    /// The nodes of enhancement group `j` (index into
    /// [`Expansion::enhancement_groups`]).
    Enhancement(usize),
}

/// The map from samples `X` to the expanded input matrix `A`: the columns of
/// all groups' nodes (the BLS paper's `[Zⁿ | Hᵐ]`, eqs. (10), (12), (13)),
/// **in the order the groups were appended** (eqs. (14), (15)), not
/// regrouped by kind: the initial network is
/// `[Z_1 … Z_G | H_1]`, an enhancement increment appends `H`, a
/// feature increment appends `[Z_new | H_fed | H_extra]`. Column `c` of `A` is
/// the node the solver's weight row `c` belongs to.
///
/// Feature nodes are numbered in creation order (group by group); an
/// enhancement group is fed by a range of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ExpansionData")]
pub struct Expansion {
    n_inputs: usize,
    features: Vec<FeatureGroup>,
    enhancements: Vec<EnhancementGroup>,
    blocks: Vec<Block>,
}

impl Expansion {
    /// An expansion with no groups yet, for `n_inputs` inputs.
    pub(crate) fn empty(n_inputs: usize) -> Self {
        Self {
            n_inputs,
            features: Vec::new(),
            enhancements: Vec::new(),
            blocks: Vec::new(),
        }
    }

    /// Append a feature group as the next block.
    pub(crate) fn push_feature(&mut self, group: FeatureGroup) {
        self.blocks.push(Block::Feature(self.features.len()));
        self.features.push(group);
    }

    /// Append an enhancement group as the next block.
    pub(crate) fn push_enhancement(&mut self, group: EnhancementGroup) {
        self.blocks.push(Block::Enhancement(self.enhancements.len()));
        self.enhancements.push(group);
    }

    /// Number of inputs `d`.
    pub fn n_inputs(&self) -> usize {
        self.n_inputs
    }

    /// Total nodes (columns of `A`).
    pub fn nodes(&self) -> usize {
        self.feature_nodes() + self.enhancement_nodes()
    }

    /// Total feature nodes.
    pub fn feature_nodes(&self) -> usize {
        self.features.iter().map(FeatureGroup::nodes).sum()
    }

    /// Total enhancement nodes.
    pub fn enhancement_nodes(&self) -> usize {
        self.enhancements.iter().map(EnhancementGroup::nodes).sum()
    }

    /// The feature groups, in creation order.
    pub fn feature_groups(&self) -> &[FeatureGroup] {
        &self.features
    }

    /// The enhancement groups, in creation order.
    pub fn enhancement_groups(&self) -> &[EnhancementGroup] {
        &self.enhancements
    }

    /// The blocks of `A`, in column order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Number of nodes of `block` (one of [`blocks`](Self::blocks)).
    fn block_nodes(&self, block: Block) -> usize {
        match block {
            Block::Feature(i) => self.features[i].nodes(),
            Block::Enhancement(j) => self.enhancements[j].nodes(),
        }
    }

    /// Every block with its columns in `A`, in column order.
    pub fn columns(&self) -> Vec<(Block, Range<usize>)> {
        let mut at = 0;
        self.blocks
            .iter()
            .map(|&b| {
                let n = self.block_nodes(b);
                at += n;
                (b, at - n..at)
            })
            .collect()
    }

    /// The feature nodes (indices in feature-creation order) of feature group `i`.
    fn feature_range(&self, i: usize) -> Range<usize> {
        let start: usize = self.features[..i].iter().map(FeatureGroup::nodes).sum();
        start..start + self.features[i].nodes()
    }

    /// Samples `x` have `d` columns, at least one row, and are finite.
    fn check_samples(&self, x: Samples<'_>) -> Result<()> {
        validate::sample_cols("samples X", x, self.n_inputs)?;
        Ok(x.check("samples X")?)
    }

    /// The feature nodes' outputs `Zⁿ` (K×(feature nodes), column-major) of
    /// samples `x` (K×d, dense or sparse), in feature-creation order (eq. (10)).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`], [`linalg_core::Error::Empty`] or
    /// [`linalg_core::Error::NonFinite`] for unusable samples.
    pub fn feature_outputs<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        let x = x.into();
        self.check_samples(x)?;
        Ok(self.features_unchecked(x))
    }

    fn features_unchecked(&self, x: Samples<'_>) -> Array2<f64> {
        let mut z = Array2::zeros((x.nrows(), self.feature_nodes()).f());
        let mut at = 0;
        for g in &self.features {
            let n = g.nodes();
            g.write(x, z.slice_axis_mut(Axis(1), Slice::from(at..at + n)));
            at += n;
        }
        z
    }

    /// The expanded input matrix `A` (K×nodes, column-major) of samples `x`
    /// (K×d): every block computed with the stored maps, in append order.
    /// On the training samples it is bit-identical to the `A` the solver
    /// was given, but in the columns of a block cut by
    /// `truncate` (see `IncrementalBls::hidden_outputs`).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`], [`linalg_core::Error::Empty`] or
    /// [`linalg_core::Error::NonFinite`] for unusable samples.
    pub fn hidden_outputs<'s>(&self, x: impl Into<Samples<'s>>) -> Result<Array2<f64>> {
        let x = x.into();
        self.check_samples(x)?;
        let z = self.features_unchecked(x);
        let mut a = Array2::zeros((x.nrows(), self.nodes()).f());
        for (b, cols) in self.columns() {
            let out = a.slice_axis_mut(Axis(1), Slice::from(cols));
            match b {
                Block::Feature(i) => {
                    let mut out = out;
                    out.assign(&z.slice_axis(Axis(1), Slice::from(self.feature_range(i))));
                }
                Block::Enhancement(j) => {
                    let g = &self.enhancements[j];
                    g.write(z.slice_axis(Axis(1), Slice::from(g.inputs())), out);
                }
            }
        }
        Ok(a)
    }

    /// Predictions `A W` (K×M) for samples `x` (K×d) and output weights `w`
    /// (nodes×M), accumulated block by block (`A` is never formed whole).
    pub(crate) fn predict(&self, x: Samples<'_>, w: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.check_samples(x)?;
        validate::rows("output weights", w, self.nodes())?;
        // One layout for every caller (row-major), so that a model and its
        // copy predict bit-identically.
        let w = w.as_standard_layout();
        let k = x.nrows();
        let z = self.features_unchecked(x);
        let mut out = Array2::zeros((k, w.ncols()));
        for (b, cols) in self.columns() {
            let wb = w.slice_axis(Axis(0), Slice::from(cols.clone()));
            match b {
                Block::Feature(i) => {
                    let zi = z.slice_axis(Axis(1), Slice::from(self.feature_range(i)));
                    general_mat_mul(1.0, &zi, &wb, 1.0, &mut out);
                }
                Block::Enhancement(j) => {
                    let g = &self.enhancements[j];
                    let mut h = Array2::zeros((k, cols.len()).f());
                    g.write(z.slice_axis(Axis(1), Slice::from(g.inputs())), h.view_mut());
                    general_mat_mul(1.0, &h, &wb, 1.0, &mut out);
                }
            }
        }
        Ok(out)
    }

    /// Keep the first `nodes` columns of `A`: later blocks are dropped, a
    /// block cut in the middle keeps its first nodes (used when a
    /// column-by-column solver kept part of a failing append). The prefix is
    /// consistent because every enhancement group comes after its inputs.
    pub(crate) fn truncate(&mut self, nodes: usize) {
        let mut kept = 0;
        let mut blocks = Vec::new();
        let (mut n_feat, mut n_enh) = (0, 0);
        for b in self.blocks.clone() {
            if kept >= nodes {
                break;
            }
            let take = self.block_nodes(b).min(nodes - kept);
            match b {
                Block::Feature(i) => {
                    self.features[i].truncate(take);
                    n_feat = i + 1;
                }
                Block::Enhancement(j) => {
                    self.enhancements[j].truncate(take);
                    n_enh = j + 1;
                }
            }
            blocks.push(b);
            kept += take;
        }
        self.blocks = blocks;
        self.features.truncate(n_feat);
        self.enhancements.truncate(n_enh);
    }

    /// The invariants a decoded expansion must satisfy: every group
    /// consistent, each group in exactly one block, groups of each kind in
    /// creation order, every enhancement group fed by feature nodes placed
    /// before it.
    pub(crate) fn check(&self) -> Result<()> {
        if self.n_inputs == 0 {
            return Err(ModelError::InvalidParameter {
                name: "n_inputs",
                value: "0".into(),
                reason: "a BLS has at least one input",
            });
        }
        let (mut next_f, mut next_e, mut features) = (0, 0, 0);
        for &b in &self.blocks {
            match b {
                Block::Feature(i) => {
                    if i != next_f || i >= self.features.len() {
                        return Err(block_order_error(b));
                    }
                    self.features[i].check(self.n_inputs)?;
                    features += self.features[i].nodes();
                    next_f += 1;
                }
                Block::Enhancement(j) => {
                    if j != next_e || j >= self.enhancements.len() {
                        return Err(block_order_error(b));
                    }
                    self.enhancements[j].check(features)?;
                    next_e += 1;
                }
            }
        }
        if next_f != self.features.len() || next_e != self.enhancements.len() || next_f == 0 {
            return Err(ModelError::InvalidParameter {
                name: "blocks",
                value: format!("{} blocks", self.blocks.len()),
                reason: "every group must appear in exactly one block, with at least one feature group",
            });
        }
        Ok(())
    }
}

fn block_order_error(b: Block) -> ModelError {
    ModelError::InvalidParameter {
        name: "blocks",
        value: format!("{b:?}"),
        reason: "the groups of each kind must appear once each, in creation order",
    }
}

/// The serialized form of an [`Expansion`], checked when deserialized.
#[derive(Deserialize)]
struct ExpansionData {
    n_inputs: usize,
    features: Vec<FeatureGroup>,
    enhancements: Vec<EnhancementGroup>,
    blocks: Vec<Block>,
}

impl TryFrom<ExpansionData> for Expansion {
    type Error = ModelError;
    fn try_from(d: ExpansionData) -> Result<Self> {
        let e = Expansion {
            n_inputs: d.n_inputs,
            features: d.features,
            enhancements: d.enhancements,
            blocks: d.blocks,
        };
        e.check()?;
        Ok(e)
    }
}
