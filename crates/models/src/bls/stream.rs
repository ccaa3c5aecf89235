//! The BLS fitted from chunks of rows, and from shards of rows on several
//! processes (issue 21): the initial network of
//! [`Fit`](crate::Fit) on a [`Dataset`](crate::Dataset) without ever
//! holding all the rows. Every data-dependent statistic of the initial
//! network combines over rows, so the data is read in five passes, each
//! keeping only sums or extremes (memory `O(nodes² + G·N·d)` plus one chunk's
//! `O(chunk·nodes)`, whatever the number of rows):
//!
//! | pass | per chunk, per group                         | combined by | gives                      |
//! |------|----------------------------------------------|-------------|----------------------------|
//! | 1    | column extremes of `X̃W_e`                    | min, max    | `A1`'s scaling             |
//! | 2    | `A1ᵀA1`, `A1ᵀX̃` of the scaled `A1`           | sum         | the lasso → `β`            |
//! | 3    | column extremes of `X̃β`                      | min, max    | `Z`'s scaling (the group)  |
//! | 4    | `max \|[Z, 0.1]W_h\|` (skipped without `E`)  | max         | the enhancement scale      |
//! | 5    | `AᵀA`, `AᵀY` of `A = [Z \| H]`               | sum         | the output weights (ridge) |
//!
//! The random maps are drawn from the same streams as the in-memory fit,
//! and each pass computes its chunk's products with the functions the
//! in-memory fit uses on all the rows: extremes and maxima combine exactly
//! (they do not depend on the order), sums differ only in their order. The
//! products of a row themselves may round differently in a chunk than among
//! all the rows (BLAS kernels depend on the shape of the product), so the
//! two fits agree to rounding, not bit for bit.

use linalg_core::collective::{Collective, Local};
use linalg_core::ridge::GramAccumulator;
use ndarray::{Array2, ShapeBuilder};

use super::columns::{biased_extremes, Extremes};
use super::model::Bls;
use super::nodes::{enhancement_stream, EnhancementGroup, Expansion, FeatureGroup};
use super::orth::enhancement_weights;
use super::params::BlsValidParams;
use super::sparse::autoencoder_sums;
use crate::error::Result;
use crate::shard::{reduce, ridge_from_sums, Shard};
pub use crate::traits::Chunk;

/// Every process's column extremes combined (minima by min, maxima by max).
fn reduce_extremes(world: &dyn Collective, ranges: &mut [Extremes]) -> Result<()> {
    if world.size() > 1 {
        reduce(ranges.iter_mut().flat_map(|r| r.lo.iter_mut()), |v| world.min(v))?;
        reduce(ranges.iter_mut().flat_map(|r| r.hi.iter_mut()), |v| world.max(v))?;
    }
    Ok(())
}

impl BlsValidParams {
    /// Fit the initial network from chunks of rows: `chunks()` is called
    /// once per pass (four, five with enhancement nodes; module docs) and
    /// must yield the same rows each time. Every chunk is checked as a
    /// whole-matrix fit checks its data (non-empty overall, finite, `d`
    /// inputs and `M` targets in every chunk). The result is the
    /// [`Fit`](crate::Fit) of these parameters on all the rows, up to
    /// rounding (the same random maps and steps; sums in another order,
    /// products of a row in other shapes: module docs).
    /// [`fit_shards`](Self::fit_shards) with [`Local`].
    ///
    /// The output weights are the ridge solution `(AᵀA + λI)⁻¹AᵀY` from the
    /// Gram sums of `A` ([`GramAccumulator`]), which is what every solver of
    /// a BLS computes for the initial network (the strategies'
    /// [`build`](linalg_core::ridge::Strategy::build)); the model records the
    /// strategy the readout grows by, as the in-memory fit does. The sums
    /// are formed in f64 whatever the readout's precision (which is the
    /// precision an incremental solver stores `A` in; no `A` is stored here).
    ///
    /// ```
    /// use models::bls::BlsParams;
    /// use models::prelude::*;
    /// use ndarray::{s, Array2, Axis};
    /// let x = Array2::from_shape_fn((200, 3), |(i, j)| ((i * 13 + j * 7) % 29) as f64 / 14.0 - 1.0);
    /// let y = x.map_axis(Axis(1), |r| r[0] * r[1] - r[2]).insert_axis(Axis(1));
    /// let p = BlsParams::new(2, 4, 30).with_lambda(1e-4).check()?;
    /// let whole = p.fit(&Dataset::new(x.view(), y.view()))?;
    /// let chunks = || (0..4).map(|c| Ok((x.slice(s![c * 50..(c + 1) * 50, ..]).to_owned(), y.slice(s![c * 50..(c + 1) * 50, ..]).to_owned())));
    /// let streamed = p.fit_chunks(chunks)?;
    /// let (a, b) = (whole.predict(x.view())?, streamed.predict(x.view())?);
    /// assert!(a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-8));
    /// # Ok::<(), models::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`](crate::ModelError::InvalidParameter) naming `solver` for minimum-norm
    /// least squares (it needs all rows at once); the first error a chunk
    /// yields (a reader's error, passed through); [`linalg_core::Error`]s
    /// for unusable chunks (shape, non-finite values; `Empty` if no chunk
    /// had a row; `Shape` if a later pass read other rows than the first)
    /// and from the solves.
    pub fn fit_chunks<I>(&self, chunks: impl FnMut() -> I) -> Result<Bls>
    where
        I: Iterator<Item = Result<Chunk>>,
    {
        self.fit_shards(&Local, chunks)
    }

    /// Fit the initial network on rows split over the processes of `world`,
    /// each process reading its own shard in chunks (`chunks()`, called as
    /// in [`fit_chunks`](Self::fit_chunks)): after each pass, its extremes
    /// (min and max) or sums are combined over the processes, so every
    /// process returns the same network — the one
    /// [`fit_chunks`](Self::fit_chunks) gives on all the rows, up to
    /// rounding (the order of the sums, the shapes of the products).
    ///
    /// Every process must call this with the same parameters. A failure on
    /// one process (a reader's error, a bad chunk, a shard with no rows when
    /// there are several processes, chunks of another width than the other
    /// shards') fails every process with [`linalg_core::Error::Collective`]
    /// naming it, after the pass in which it happened.
    ///
    /// # Errors
    /// As [`fit_chunks`](Self::fit_chunks); with several processes, the
    /// errors of any of them as [`linalg_core::Error::Collective`].
    pub fn fit_shards<I>(&self, world: &dyn Collective, chunks: impl FnMut() -> I) -> Result<Bls>
    where
        I: Iterator<Item = Result<Chunk>>,
    {
        let readout = self.readout();
        ridge_from_sums(readout)?;
        let strategy = readout.strategy()?;
        let (groups, n, e) = (self.feature_groups(), self.feature_nodes(), self.enhancement_nodes());
        let mut shard = Shard::new(world, chunks);

        // Pass 1: the extremes of each group's random map X̃W_e.
        let mut maps: Vec<Array2<f64>> = Vec::new();
        let mut a1_ranges = vec![Extremes::none(n); groups];
        shard.pass(|x, _| {
            if maps.is_empty() {
                maps = (0..groups)
                    .map(|i| FeatureGroup::random_map(self.seed(), i, x.ncols(), n))
                    .collect();
            }
            let mut a1 = Array2::<f64>::zeros((x.nrows(), n).f());
            for (we, range) in maps.iter().zip(&mut a1_ranges) {
                range.merge(&biased_extremes(x.into(), we.view(), a1.view_mut()));
            }
            Ok(())
        })?;
        let (d, m) = shard.agreed_shape()?;
        reduce_extremes(world, &mut a1_ranges)?;

        // Pass 2: the sparse autoencoder's sums of the scaled A1, then β.
        let mut sums: Vec<Option<(Array2<f64>, Array2<f64>)>> = vec![None; groups];
        shard.pass(|x, _| {
            let mut a1 = Array2::<f64>::zeros((x.nrows(), n).f());
            for ((we, range), sum) in maps.iter().zip(&a1_ranges).zip(&mut sums) {
                biased_extremes(x.into(), we.view(), a1.view_mut());
                let (gram, atb) = autoencoder_sums(a1.view_mut(), range, x.into(), None);
                match sum {
                    Some((g, b)) => {
                        *g += &gram;
                        *b += &atb;
                    }
                    None => *sum = Some((gram, atb)),
                }
            }
            Ok(())
        })?;
        let mut sums: Vec<(Array2<f64>, Array2<f64>)> = sums.into_iter().flatten().collect();
        if world.size() > 1 {
            reduce(
                sums.iter_mut().flat_map(|(g, b)| g.iter_mut().chain(b.iter_mut())),
                |v| world.sum(v),
            )?;
        }
        // Every process holds the same sums, so a failing lasso fails all.
        let betas = sums
            .into_iter()
            .map(|(gram, atb)| FeatureGroup::fine_tune(gram, atb.view(), self.sparse_mu(), self.admm_iterations()))
            .collect::<Result<Vec<_>>>()?;

        // Pass 3: the extremes of X̃β, which make the feature groups.
        let mut z_ranges = vec![Extremes::none(n); groups];
        shard.pass(|x, _| {
            let mut z = Array2::<f64>::zeros((x.nrows(), n).f());
            for (beta, range) in betas.iter().zip(&mut z_ranges) {
                range.merge(&biased_extremes(x.into(), beta.view(), z.view_mut()));
            }
            Ok(())
        })?;
        reduce_extremes(world, &mut z_ranges)?;
        let mut expansion = Expansion::empty(d);
        for (beta, range) in betas.into_iter().zip(z_ranges) {
            expansion.push_feature(FeatureGroup::from_stats(beta, range));
        }

        // Pass 4: the largest magnitude of the enhancement group's input.
        if e > 0 {
            let features = expansion.feature_nodes();
            let weights = enhancement_weights(
                features + 1,
                e,
                &mut enhancement_stream(self.seed(), 0),
                self.enhancement_weights(),
            );
            let mut max = [0.0f64];
            shard.pass(|x, _| {
                let z = expansion.feature_outputs(x)?;
                let mut h = Array2::<f64>::zeros((x.nrows(), e).f());
                max[0] = max[0].max(EnhancementGroup::input_max(z.view(), weights.view(), h.view_mut()));
                Ok(())
            })?;
            world.max(&mut max)?;
            expansion.push_enhancement(EnhancementGroup::from_stats(
                0..features,
                weights,
                self.shrink(),
                max[0],
            ));
        }

        // Pass 5: the Gram sums of A = [Z | H], then the ridge solve.
        let mut acc = GramAccumulator::new(expansion.nodes(), m);
        shard.pass(|x, y| {
            let a = expansion.hidden_outputs(x)?;
            Ok(acc.add(a.view(), y)?)
        })?;
        acc.allreduce(world)?;
        let weights = acc.solve(readout.lambda())?.weights;
        Ok(Bls::from_raw(expansion, weights, self.lambda(), strategy))
    }
}
