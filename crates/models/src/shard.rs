//! A process's shard of rows read in chunks, pass after pass, by the fits
//! from chunks and shards (`ElmValidParams::fit_shards`,
//! `BlsValidParams::fit_shards`): the checks every chunk passes, the
//! agreement of every pass's outcome across the processes, and the
//! all-reduce of a pass's statistics.

use linalg_core::collective::{agree, Collective};
use ndarray::ArrayView2;

use crate::error::{ModelError, Result};
use crate::readout::{Readout, ReadoutSolver};
use crate::traits::Chunk;
use crate::validate;

/// A fit from sums solves the ridge system: the readout must be a ridge
/// one (checked), not minimum-norm least squares.
pub(crate) fn ridge_from_sums(readout: &Readout) -> Result<()> {
    readout.check()?;
    if readout.solver() == ReadoutSolver::Lstsq {
        return Err(ModelError::InvalidParameter {
            name: "solver",
            value: readout.solver().to_string(),
            reason: "minimum-norm least squares needs all rows at once; a fit from chunks solves the ridge system",
        });
    }
    Ok(())
}

/// This process's shard of the rows, read in chunks, pass after pass: the
/// checks every chunk passes and the agreement of every pass's outcome.
pub(crate) struct Shard<'w, F> {
    world: &'w dyn Collective,
    chunks: F,
    /// `(d, M)` of the first chunk with a row.
    shape: Option<(usize, usize)>,
    /// Rows read by the first pass (every pass must read as many).
    rows: Option<usize>,
}

impl<'w, F, I> Shard<'w, F>
where
    F: FnMut() -> I,
    I: Iterator<Item = Result<Chunk>>,
{
    /// An unread shard of `world`'s rows, read by calling `chunks`.
    pub(crate) fn new(world: &'w dyn Collective, chunks: F) -> Self {
        Shard {
            world,
            chunks,
            shape: None,
            rows: None,
        }
    }

    pub(crate) fn several(&self) -> bool {
        self.world.size() > 1
    }

    /// One pass over the shard: `visit(x, y)` on every chunk with a row,
    /// after the checks of a whole-matrix fit (finite, `d` inputs and `M`
    /// targets in every chunk). With several processes the pass's outcome is
    /// then agreed ([`agree`]): all fail if one did, so none waits for the
    /// others in a later collective operation; alone, errors keep their type.
    pub(crate) fn pass<V>(&mut self, visit: V) -> Result<()>
    where
        V: FnMut(ArrayView2<'_, f64>, ArrayView2<'_, f64>) -> Result<()>,
    {
        let outcome = self.read(visit);
        if self.several() {
            agree(self.world, outcome.map_err(|e| e.to_string()))?;
            Ok(())
        } else {
            outcome
        }
    }

    fn read<V>(&mut self, mut visit: V) -> Result<()>
    where
        V: FnMut(ArrayView2<'_, f64>, ArrayView2<'_, f64>) -> Result<()>,
    {
        let mut rows = 0usize;
        for chunk in (self.chunks)() {
            let (x, y) = chunk?;
            validate::rows("targets Y", y.view(), x.nrows())?;
            if x.nrows() == 0 {
                continue;
            }
            let (d, m) = *self.shape.get_or_insert((x.ncols(), y.ncols()));
            validate::cols("samples X", x.view(), d)?;
            validate::cols("targets Y", y.view(), m)?;
            validate::finite("samples X", x.view())?;
            validate::finite("targets Y", y.view())?;
            visit(x.view(), y.view())?;
            rows += x.nrows();
        }
        match self.rows {
            _ if rows == 0 => Err(self.empty()),
            None => {
                self.rows = Some(rows);
                Ok(())
            }
            Some(first) if first != rows => Err(linalg_core::Error::Shape {
                what: "samples X (the chunks of a later pass)",
                expected: format!("{first} rows, as the first pass read"),
                found: format!("{rows} rows"),
            }
            .into()),
            Some(_) => Ok(()),
        }
    }

    /// The error of a shard without rows (with several processes, every
    /// shard needs rows: the sums of an empty one would be read as data).
    pub(crate) fn empty(&self) -> ModelError {
        linalg_core::Error::Empty {
            what: if self.several() {
                "samples X (every chunk of this process's shard)"
            } else {
                "samples X (every chunk)"
            },
            rows: 0,
            cols: self.shape.map_or(0, |s| s.0),
        }
        .into()
    }

    /// `(d, M)` after a first pass, the same on every process: the sizes of
    /// the later all-reduces depend on them, so a difference fails every
    /// process here.
    pub(crate) fn agreed_shape(&self) -> Result<(usize, usize)> {
        let (d, m) = self.shape.ok_or_else(|| self.empty())?;
        if self.several() {
            let mut hi = [d as f64, m as f64];
            let mut lo = hi;
            self.world.max(&mut hi)?;
            self.world.min(&mut lo)?;
            if hi != lo {
                return Err(linalg_core::Error::Collective {
                    problem: format!(
                        "the shards' chunks have {} to {} inputs and {} to {} targets; every process needs the same",
                        lo[0], hi[0], lo[1], hi[1]
                    ),
                }
                .into());
            }
        }
        Ok((d, m))
    }
}

/// Replace `values` by the result of the all-reduce `op` on them (one
/// collective call for all the groups of a pass).
pub(crate) fn reduce<'a>(
    values: impl Iterator<Item = &'a mut f64>,
    op: impl FnOnce(&mut [f64]) -> linalg_core::Result<()>,
) -> Result<()> {
    let mut slots: Vec<&mut f64> = values.collect();
    let mut buffer: Vec<f64> = slots.iter().map(|v| **v).collect();
    op(&mut buffer)?;
    for (slot, v) in slots.iter_mut().zip(buffer) {
        **slot = v;
    }
    Ok(())
}
