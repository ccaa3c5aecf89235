//! The ELM fitted from chunks of rows (issue 21, part 1, library side): the
//! hidden layer's outputs are computed chunk by chunk and only their Gram
//! sums are kept ([`GramAccumulator`]), so memory is `O(l² + l·M)` plus one
//! chunk, whatever the number of rows. It solves the same ridge system as
//! the in-memory fit ([`Fit`](crate::Fit) on a
//! [`Dataset`](crate::Dataset)); only the order of the sums differs.

use linalg_core::collective::{Collective, Local};
use linalg_core::ridge::GramAccumulator;
use ndarray::ArrayView2;

use super::hidden::HiddenLayer;
use super::model::Elm;
use super::params::{ElmValidParams, InputScale};
use crate::error::Result;
use crate::shard::{ridge_from_sums, Shard};

pub use crate::traits::Chunk;

/// The input scale's statistics over chunks: `max |x|` and the scaled sum
/// of squares (LAPACK's `dnrm2` way: no overflow for any finite input), so
/// that [`InputScale::UnitVariance`]'s factor needs no whole matrix.
#[derive(Clone, Copy, Debug, Default)]
struct SquareSums {
    rows: usize,
    max: f64,
    /// Σ (v / max)².
    scaled: f64,
}

impl SquareSums {
    fn add(&mut self, x: ArrayView2<'_, f64>) {
        for &v in x {
            let a = v.abs();
            if a > self.max {
                self.scaled *= (self.max / a) * (self.max / a);
                self.max = a;
            }
            if self.max > 0.0 {
                self.scaled += (a / self.max) * (a / self.max);
            }
        }
        self.rows += x.nrows();
    }

    /// `InputScale::factor` of all the rows added, for `n` inputs.
    fn factor(&self, scale: InputScale, n: usize) -> f64 {
        let inverse_sqrt = 1.0 / (n.max(1) as f64).sqrt();
        match scale {
            InputScale::UnitVariance => {
                if !(self.max > 0.0 && self.max.is_finite()) {
                    return inverse_sqrt;
                }
                let mean_sq = self.scaled / self.rows.max(1) as f64;
                (3.0 / mean_sq).sqrt() / self.max
            }
            InputScale::InverseSqrtInputs => inverse_sqrt,
            InputScale::Fixed(s) => s,
        }
    }
}

impl SquareSums {
    /// Combine the sums of every process of `world` (a max, then a sum of
    /// the sums rescaled to the common max).
    fn allreduce(&mut self, world: &dyn Collective) -> Result<()> {
        let mut max = [self.max];
        world.max(&mut max)?;
        let rescale = if max[0] > 0.0 { self.max / max[0] } else { 0.0 };
        let mut sums = [self.scaled * rescale * rescale, self.rows as f64];
        world.sum(&mut sums)?;
        (self.max, self.scaled, self.rows) = (max[0], sums[0], sums[1] as usize);
        Ok(())
    }
}

impl ElmValidParams {
    /// Fit from chunks of rows: `chunks()` is called once to compute the
    /// input scale when it depends on the data ([`InputScale::UnitVariance`],
    /// the default), then once more for the Gram sums of the hidden outputs
    /// (with a data-independent scale, once). Every chunk is checked as a
    /// whole-matrix fit checks its data (non-empty overall, finite, `N`
    /// inputs and `M` targets in every chunk). [`fit_shards`](Self::fit_shards)
    /// with [`Local`] (one process).
    ///
    /// ```
    /// use models::prelude::*;
    /// use models::{Activation, ElmParams};
    /// use ndarray::{s, Array2};
    /// let x = Array2::from_shape_fn((300, 2), |(i, j)| ((i * 7 + j * 3) % 17) as f64 / 17.0);
    /// let y = x.map_axis(ndarray::Axis(1), |r| r[0] * r[1]).insert_axis(ndarray::Axis(1));
    /// let p = ElmParams::new(40, Activation::Sigmoid).with_lambda(1e-6).check()?;
    /// let whole = p.fit(&Dataset::new(x.view(), y.view()))?;
    /// let chunks = || (0..3).map(|c| Ok((x.slice(s![c * 100..(c + 1) * 100, ..]).to_owned(), y.slice(s![c * 100..(c + 1) * 100, ..]).to_owned())));
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
    /// had a row) and from the solve.
    pub fn fit_chunks<I>(&self, chunks: impl FnMut() -> I) -> Result<Elm>
    where
        I: Iterator<Item = Result<Chunk>>,
    {
        self.fit_shards(&Local, chunks)
    }

    /// Fit on rows split over the processes of `world`, each process
    /// reading its own shard in chunks (`chunks()`, called as in
    /// [`fit_chunks`](Self::fit_chunks)): the input scale's statistics and
    /// the Gram sums of every shard are combined by `world` (one all-reduce
    /// each, [`GramAccumulator::allreduce`]), so every process returns the
    /// same network — the one [`fit_chunks`](Self::fit_chunks) gives on all
    /// the rows, up to the order of the sums.
    ///
    /// Every process must call this with the same parameters. A failure on
    /// one process (a reader's error, a bad chunk, a shard with no rows when
    /// there are several processes) fails every process with
    /// [`linalg_core::Error::Collective`] naming it, after the phase in
    /// which it happened.
    ///
    /// # Errors
    /// As [`fit_chunks`](Self::fit_chunks); with several processes, the
    /// errors of any of them as [`linalg_core::Error::Collective`].
    pub fn fit_shards<I>(&self, world: &dyn Collective, chunks: impl FnMut() -> I) -> Result<Elm>
    where
        I: Iterator<Item = Result<Chunk>>,
    {
        let readout = self.readout();
        ridge_from_sums(readout)?;
        let mut shard = Shard::new(world, chunks);
        let scale = match self.input_scale() {
            InputScale::UnitVariance => {
                let mut sums = SquareSums::default();
                shard.pass(|x, _| {
                    sums.add(x);
                    Ok(())
                })?;
                let (n, _) = shard.agreed_shape()?;
                sums.allreduce(world)?;
                Some(sums.factor(InputScale::UnitVariance, n))
            }
            _ => None,
        };
        let mut hidden: Option<HiddenLayer> = None;
        let mut acc: Option<GramAccumulator> = None;
        shard.pass(|x, y| {
            let layer = hidden.get_or_insert_with(|| {
                let s = scale.unwrap_or_else(|| self.input_scale().factor(x));
                HiddenLayer::random_scaled(x.ncols(), self.nodes(), self.activation(), self.seed(), s)
            });
            let a = layer.outputs(x)?;
            acc.get_or_insert_with(|| GramAccumulator::new(self.nodes(), y.ncols()))
                .add(a.view(), y)?;
            Ok(())
        })?;
        shard.agreed_shape()?;
        let (Some(hidden), Some(mut acc)) = (hidden, acc) else {
            return Err(shard.empty());
        };
        acc.allreduce(world)?;
        let weights = acc.solve(readout.lambda())?.weights;
        Ok(Elm::from_raw(
            hidden,
            weights,
            readout.fitted_lambda(),
            readout.solver(),
        ))
    }
}
