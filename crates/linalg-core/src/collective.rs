//! Collective operations for fits whose rows are split over several
//! processes (shards): every process computes partial sums over its own
//! rows, and a [`Collective`] combines them so that every process ends with
//! the same totals — the sums of [`GramAccumulator`](crate::ridge::GramAccumulator),
//! of standardization statistics, extremes of columns.
//!
//! The trait is what a fit needs and nothing more; [`Local`] is the
//! one-process implementation (every operation is the identity). An MPI
//! implementation (`MPI_Allreduce`, `MPI_Allgather`) lives behind the
//! `mpi` feature of the `experiments` crate, so this crate needs no MPI.
//!
//! **Every process must call the same operations in the same order**, or
//! the processes wait for each other forever. Failures are therefore not
//! returned early from one process alone: a phase ends with [`agree`],
//! which every process calls with its own outcome, and which fails on every
//! process when it failed on any, naming the processes and their messages.
//!
//! ```
//! use linalg_core::collective::{agree, Collective, Local};
//! let world = Local;
//! let mut sums = vec![1.0, 2.0];
//! world.sum(&mut sums)?; // one process: unchanged
//! assert_eq!(sums, [1.0, 2.0]);
//! let ok: Result<u32, String> = Ok(3);
//! assert_eq!(agree(&world, ok)?, 3);
//! let failed: Result<u32, String> = Err("shard.csv: no rows".into());
//! assert!(agree(&world, failed).unwrap_err().to_string().contains("process 0: shard.csv: no rows"));
//! # Ok::<(), linalg_core::Error>(())
//! ```

use crate::error::{Error, Result};

/// The collective operations over the processes of a sharded fit. Every
/// process gets the same result from every operation.
pub trait Collective {
    /// This process's index, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of processes.
    fn size(&self) -> usize;

    /// Element-wise sum over all processes, in place.
    ///
    /// # Errors
    /// [`Error::Collective`] if the communication failed.
    fn sum(&self, values: &mut [f64]) -> Result<()>;

    /// Element-wise maximum over all processes, in place.
    ///
    /// # Errors
    /// [`Error::Collective`] if the communication failed.
    fn max(&self, values: &mut [f64]) -> Result<()>;

    /// Every process's bytes, in rank order (for small things: label sets,
    /// error messages).
    ///
    /// # Errors
    /// [`Error::Collective`] if the communication failed.
    fn gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>>;

    /// Element-wise minimum over all processes, in place (the maximum of
    /// the negated values).
    ///
    /// # Errors
    /// [`Error::Collective`] if the communication failed.
    fn min(&self, values: &mut [f64]) -> Result<()> {
        values.iter_mut().for_each(|v| *v = -*v);
        self.max(values)?;
        values.iter_mut().for_each(|v| *v = -*v);
        Ok(())
    }
}

/// One process: every collective operation is the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Local;

impl Collective for Local {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        1
    }

    fn sum(&self, _values: &mut [f64]) -> Result<()> {
        Ok(())
    }

    fn max(&self, _values: &mut [f64]) -> Result<()> {
        Ok(())
    }

    fn gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        Ok(vec![mine.to_vec()])
    }
}

/// End a phase of a sharded fit: every process passes its own outcome; the
/// value comes back on the processes where it succeeded if it succeeded on
/// all of them, and otherwise every process gets [`Error::Collective`]
/// listing each failed process and its message (so none waits for the
/// others in a later operation).
///
/// # Errors
/// [`Error::Collective`] when any process failed or the exchange did.
pub fn agree<T>(world: &dyn Collective, outcome: std::result::Result<T, String>) -> Result<T> {
    let mine = match &outcome {
        Ok(_) => Vec::new(),
        Err(message) => {
            // A failed process sends its message, never empty.
            let mut m = message.clone().into_bytes();
            if m.is_empty() {
                m.extend_from_slice(b"failed");
            }
            m
        }
    };
    let all = world.gather(&mine)?;
    let failures: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(rank, m)| format!("process {rank}: {}", String::from_utf8_lossy(m)))
        .collect();
    match outcome {
        Ok(value) if failures.is_empty() => Ok(value),
        _ => Err(Error::Collective {
            problem: if failures.is_empty() {
                "a process failed without a message".to_string()
            } else {
                failures.join("; ")
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_min_negates_back() -> Result<()> {
        let mut v = [3.0, -1.0];
        Local.min(&mut v)?;
        assert_eq!(v, [3.0, -1.0]);
        Ok(())
    }
}
