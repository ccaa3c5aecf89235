//! Table II's epoch times measured interleaved: every method timed once
//! per round, round after round, so that a slow spell of a shared machine
//! costs every method one round instead of one method most of its epochs
//! (the curve runs time each method's 40 epochs back to back).
//!
//! A round runs, in turn: BPLS (Algorithm 2, a whole fit: its time per
//! epoch is its total over its epochs, as Table II counts it), BPLS's
//! Algorithm 1, then for each backprop rule one epoch at the curves' batch
//! size and one epoch at batch 1 (the paper's). BPLS and the batched
//! epochs run on every core's BLAS thread, batch 1 on one (its products
//! have one row). One untimed round first; the report gives the median
//! over the timed rounds.

use serde::{Deserialize, Serialize};

use super::mnist::{self, Images, BPLS_ALG1};
use super::{Options, RULES};
use crate::machine;
use crate::papers::{Blas, ReproError};

/// One method's times, one per timed round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// "BPLS", [`BPLS_ALG1`] or a backprop rule's label.
    pub method: String,
    /// Minibatch size (backprop), `None` for BPLS.
    pub batch: Option<usize>,
    /// BLAS threads it ran on.
    pub threads: usize,
    /// Training images per epoch.
    pub samples: usize,
    /// Seconds per epoch, one per timed round.
    pub seconds_per_epoch: Vec<f64>,
    /// BPLS: the first epoch's seconds, one per timed round (the first
    /// pass is on every image, the later ones on the misses).
    pub first_epoch: Vec<f64>,
}

/// The interleaved timing of Table II: a stored cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingCell {
    /// Timed rounds.
    pub rounds: usize,
    /// The training images of the other methods' epochs (batch 1's times
    /// are scaled to it when it ran on fewer).
    pub train_samples: usize,
    /// Every method timed.
    pub pieces: Vec<Piece>,
}

/// The median of `v` (NaN for none).
pub(super) fn median(v: &[f64]) -> f64 {
    let mut d = v.to_vec();
    d.sort_by(f64::total_cmp);
    match d.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => d[n / 2],
        n => 0.5 * (d[n / 2 - 1] + d[n / 2]),
    }
}

impl TimingCell {
    /// The piece of `method` at `batch`.
    pub fn piece(&self, method: &str, batch: Option<usize>) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.method == method && p.batch == batch)
    }

    /// `method`'s median seconds per epoch over the rounds, scaled to
    /// [`train_samples`](Self::train_samples) images.
    pub fn epoch(&self, method: &str, batch: Option<usize>) -> Option<f64> {
        let p = self.piece(method, batch)?;
        let scale = self.train_samples as f64 / p.samples.max(1) as f64;
        Some(median(&p.seconds_per_epoch) * scale)
    }

    /// BPLS's median first epoch over the rounds.
    pub fn bpls_first_epoch(&self) -> Option<f64> {
        Some(median(&self.piece("BPLS", None)?.first_epoch))
    }
}

/// Rounds timed: 7 in a full run, 2 in a quick one.
pub fn rounds(opts: &Options) -> usize {
    if opts.quick {
        2
    } else {
        7
    }
}

/// Time every method in `rounds(opts)` interleaved rounds after one
/// untimed round; BLAS threads set through `blas`.
///
/// # Errors
/// Model errors.
pub fn run(img: &Images, opts: &Options, blas: &Blas) -> Result<TimingCell, ReproError> {
    let cores = machine::cores();
    let mut pieces: Vec<Piece> = vec![];
    let mut add = |method: &str, batch: Option<usize>, threads: usize, cell: &mnist::RunCell, timed: bool| {
        let i = match pieces.iter().position(|p| p.method == method && p.batch == batch) {
            Some(i) => i,
            None => {
                pieces.push(Piece {
                    method: method.into(),
                    batch,
                    threads,
                    samples: cell.train_samples,
                    seconds_per_epoch: vec![],
                    first_epoch: vec![],
                });
                pieces.len() - 1
            }
        };
        if timed {
            let p = &mut pieces[i];
            p.seconds_per_epoch.push(cell.seconds_per_epoch());
            if batch.is_none() {
                p.first_epoch.extend(cell.epochs.first().map(|e| e.seconds));
            }
        }
    };
    let rounds = rounds(opts);
    for round in 0..=rounds {
        let timed = round > 0;
        let seed = round as u64;
        for algorithm_1 in [false, true] {
            let cell = blas.with(cores, || {
                mnist::run_bpls(img, seed, opts.epochs.max(1), opts.train_samples, algorithm_1)
            })?;
            let name = if algorithm_1 { BPLS_ALG1 } else { "BPLS" };
            add(name, None, cores, &cell, timed);
        }
        for kind in RULES {
            let batched = blas.with(cores, || {
                mnist::run_backprop(img, kind, opts.batch, seed, 1, opts.train_samples)
            })?;
            add(kind.label(), Some(opts.batch), cores, &batched, timed);
            let single = blas.with(1, || mnist::run_backprop(img, kind, 1, seed, 1, opts.batch1_samples))?;
            add(kind.label(), Some(1), 1, &single, timed);
        }
        eprintln!(
            "tomic-bpls: timing round {round} of {rounds} done{}",
            if timed { "" } else { " (untimed)" }
        );
    }
    Ok(TimingCell {
        rounds,
        train_samples: opts.train_samples,
        pieces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Medians of odd and even counts; batch 1's epoch scaled from the
    /// images it ran on to the others'.
    #[test]
    fn epochs_are_medians_scaled_to_the_training_set() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        let cell = TimingCell {
            rounds: 3,
            train_samples: 60_000,
            pieces: vec![
                Piece {
                    method: "Adam".into(),
                    batch: Some(1),
                    threads: 1,
                    samples: 10_000,
                    seconds_per_epoch: vec![1.0, 9.0, 1.2],
                    first_epoch: vec![],
                },
                Piece {
                    method: "BPLS".into(),
                    batch: None,
                    threads: 2,
                    samples: 60_000,
                    seconds_per_epoch: vec![0.3, 0.4, 0.2],
                    first_epoch: vec![0.9, 0.8, 5.0],
                },
            ],
        };
        assert!((cell.epoch("Adam", Some(1)).unwrap() - 7.2).abs() < 1e-12);
        assert_eq!(cell.epoch("BPLS", None), Some(0.3));
        assert_eq!(cell.bpls_first_epoch(), Some(0.9));
        assert_eq!(cell.epoch("Adam", Some(128)), None);
    }
}
