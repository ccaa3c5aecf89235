//! Seeded folds and validation splits of `0..n`, stratified by class when
//! labels are given.
//!
//! The order is [`shuffled_indices`]`(n, seed)` — the project's one seeded
//! shuffle, so the folds of a seed never change with a dependency — and, when
//! stratified, that order stably sorted by class: each class's samples in
//! shuffled order, one class after another. Fold `f` of `k` then takes the
//! positions `p ≡ f (mod k)` of that order, so every fold gets its share of
//! every class (within one sample) and fold sizes differ by at most one.
//! Without labels the folds are consecutive runs of the shuffled order
//! (`experiments::datasets::k_fold`'s cut).

use crate::error::{ModelError, Result};
use crate::rng::shuffled_indices;

/// Held-out index lists of `0..n`, each sorted; together a partition of `0..n`
/// (k-fold) or one held-out part (a validation split).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folds {
    n: usize,
    held_out: Vec<Vec<usize>>,
}

impl Folds {
    /// `k` folds of `0..n` from `seed`, stratified by `labels` (one class
    /// index per sample) when given.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `k` unless `2 ≤ k ≤ n`, or
    /// `labels` if their number is not `n`.
    pub fn k_fold(n: usize, k: usize, seed: u64, labels: Option<&[usize]>) -> Result<Self> {
        if k < 2 || k > n {
            return Err(ModelError::InvalidParameter {
                name: "k",
                value: format!("{k} (with {n} samples)"),
                reason: "k-fold cross-validation needs 2 ≤ k ≤ the number of samples",
            });
        }
        let order = ordered(n, seed, labels)?;
        let mut held_out: Vec<Vec<usize>> = match labels {
            Some(_) => (0..k)
                .map(|f| order.iter().skip(f).step_by(k).copied().collect())
                .collect(),
            None => {
                let (base, extra) = (n / k, n % k);
                let mut start = 0;
                (0..k)
                    .map(|f| {
                        let end = start + base + usize::from(f < extra);
                        let part = order[start..end].to_vec();
                        start = end;
                        part
                    })
                    .collect()
            }
        };
        held_out.iter_mut().for_each(|f| f.sort_unstable());
        Ok(Self { n, held_out })
    }

    /// One validation part of `round(n·fraction)` samples (at least 1, at
    /// most `n − 1`) from `seed`: the first ones of the shuffled order, or,
    /// stratified by `labels`, evenly spaced positions of the class-sorted
    /// order (so each class gives about `fraction` of its samples).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `fraction` unless it is in
    /// `(0, 1)`, `samples` for `n < 2`, `labels` if their number is not `n`.
    pub fn validation(n: usize, fraction: f64, seed: u64, labels: Option<&[usize]>) -> Result<Self> {
        if !(fraction > 0.0 && fraction < 1.0) {
            return Err(ModelError::InvalidParameter {
                name: "fraction",
                value: fraction.to_string(),
                reason: "the validation fraction must be inside (0, 1)",
            });
        }
        if n < 2 {
            return Err(ModelError::InvalidParameter {
                name: "samples",
                value: n.to_string(),
                reason: "a validation split needs at least 2 samples",
            });
        }
        let n_val = ((n as f64 * fraction).round() as usize).clamp(1, n - 1);
        let order = ordered(n, seed, labels)?;
        let mut part: Vec<usize> = match labels {
            // Position p is taken when ⌊(p+1)·n_val/n⌋ > ⌊p·n_val/n⌋: exactly
            // n_val positions, evenly spread over the classes.
            Some(_) => (0..n)
                .filter(|&p| (p + 1) * n_val / n > p * n_val / n)
                .map(|p| order[p])
                .collect(),
            None => order[..n_val].to_vec(),
        };
        part.sort_unstable();
        Ok(Self {
            n,
            held_out: vec![part],
        })
    }

    /// The number of samples split.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The number of held-out parts (`k`, or 1 for a validation split).
    pub fn len(&self) -> usize {
        self.held_out.len()
    }

    /// Whether there is no held-out part (never, for a constructed value).
    pub fn is_empty(&self) -> bool {
        self.held_out.is_empty()
    }

    /// The held-out indices of part `f`, sorted.
    pub fn held_out(&self, f: usize) -> &[usize] {
        &self.held_out[f]
    }

    /// The training indices of part `f` (every index not held out), sorted.
    pub fn training(&self, f: usize) -> Vec<usize> {
        let mut out = vec![true; self.n];
        for &i in &self.held_out[f] {
            out[i] = false;
        }
        (0..self.n).filter(|&i| out[i]).collect()
    }
}

/// The shuffled order of `0..n`, stably sorted by label when labels are given.
fn ordered(n: usize, seed: u64, labels: Option<&[usize]>) -> Result<Vec<usize>> {
    let mut order = shuffled_indices(n, seed);
    if let Some(labels) = labels {
        if labels.len() != n {
            return Err(ModelError::InvalidParameter {
                name: "labels",
                value: format!("{} labels for {n} samples", labels.len()),
                reason: "stratified folds need one label per sample",
            });
        }
        order.sort_by_key(|&i| labels[i]);
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k-fold parts partition `0..n` with sizes within one; stratified parts
    /// hold every class's share within one; validation sizes and errors.
    #[test]
    fn folds_partition_and_stratify() -> Result<()> {
        let labels: Vec<usize> = (0..103).map(|i| if i % 10 < 7 { 0 } else { 1 + i % 3 }).collect();
        for strat in [None, Some(labels.as_slice())] {
            let f = Folds::k_fold(103, 5, 9, strat)?;
            let mut all: Vec<usize> = (0..5).flat_map(|p| f.held_out(p).to_vec()).collect();
            all.sort_unstable();
            assert_eq!(all, (0..103).collect::<Vec<_>>());
            let sizes: Vec<usize> = (0..5).map(|p| f.held_out(p).len()).collect();
            assert!(sizes.iter().all(|&s| s == 20 || s == 21), "{sizes:?}");
            for p in 0..5 {
                let t = f.training(p);
                assert_eq!(t.len() + f.held_out(p).len(), 103);
                assert!(t.iter().all(|i| !f.held_out(p).contains(i)));
            }
            if let Some(l) = strat {
                for c in 0..4 {
                    let total = l.iter().filter(|&&v| v == c).count();
                    for p in 0..5 {
                        let here = f.held_out(p).iter().filter(|&&i| l[i] == c).count();
                        assert!(here.abs_diff(total / 5) <= 1, "class {c} fold {p}: {here} of {total}");
                    }
                }
            }
        }
        let v = Folds::validation(103, 0.2, 3, Some(&labels))?;
        assert_eq!(v.held_out(0).len(), 21);
        let zeros = v.held_out(0).iter().filter(|&&i| labels[i] == 0).count();
        let total0 = labels.iter().filter(|&&v| v == 0).count();
        assert!((zeros as f64 - 0.2 * total0 as f64).abs() <= 1.0, "{zeros} of {total0}");
        assert_eq!(Folds::validation(10, 0.25, 1, None)?.held_out(0), {
            let mut first = shuffled_indices(10, 1)[..3].to_vec();
            first.sort_unstable();
            first
        });
        assert!(Folds::k_fold(5, 1, 0, None).is_err() && Folds::k_fold(5, 6, 0, None).is_err());
        assert!(Folds::validation(5, 1.0, 0, None).is_err() && Folds::validation(1, 0.5, 0, None).is_err());
        assert!(Folds::k_fold(5, 2, 0, Some(&[0, 1])).is_err());
        Ok(())
    }
}
