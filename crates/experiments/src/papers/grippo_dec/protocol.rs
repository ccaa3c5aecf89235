//! The protocol of Grippo, Manno & Sciandrone's Sec. VI on this project's
//! data: which file plays which data set, the splits of Table I, the
//! scaling, the targets, and the quick and full runs.

use std::path::PathBuf;

use ndarray::{Array1, Array2, Axis};

use super::published::{DatasetInfo, Task, TABLE_I};
use super::ReproError;
use crate::datasets::{self, shuffled_indices, StandardScaler};

/// Where each of the paper's data sets comes from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The paper's name (Table I).
    pub paper_name: &'static str,
    /// The shipped file of the training part (or of the whole set).
    pub file: &'static str,
    /// The shipped file of the test part, when the set comes split.
    pub test_file: Option<&'static str>,
    /// What differs from the paper's data, in one sentence (empty: nothing).
    pub note: &'static str,
}

/// The eleven sets, in Table I's order.
pub const SOURCES: [Source; 11] = [
    Source {
        paper_name: "cod-rna",
        file: "codrna-train",
        test_file: Some("codrna-rest"),
        note:
            "the paper's test file (LIBSVM cod-rna.t, 271617 rows) was not found; the test set here is \
               LIBSVM's third file cod-rna.r (157413 rows), 2275 of whose distinct rows also occur in the training file",
    },
    Source {
        paper_name: "magic",
        file: "magic",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "ringnorm",
        file: "ringnorm",
        test_file: None,
        note: "KEEL's file, whose values are DELVE's ×1000 stored as integers: divided by 1000 back to DELVE's units",
    },
    Source {
        paper_name: "satellite",
        file: "satellite-train",
        test_file: Some("satellite-test"),
        note: "",
    },
    Source {
        paper_name: "diabetes",
        file: "pima",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "mv",
        file: "mv",
        test_file: None,
        note: "a fresh draw from the DELVE definition (same size), with its 3 categorical inputs one-hot \
               encoded: 12 features for the paper's 10",
    },
    Source {
        paper_name: "california",
        file: "california",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "census",
        file: "census-house16h",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "deltaelv",
        file: "delta-elevators",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "elevators",
        file: "elevators",
        test_file: None,
        note: "",
    },
    Source {
        paper_name: "aileron",
        file: "ailerons",
        test_file: None,
        note: "",
    },
];

/// A run's choices.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The report's directory.
    pub out_dir: PathBuf,
    /// Where finished cells are kept.
    pub cells_dir: PathBuf,
    /// The quick run (capped sizes, one start, the smallest network of
    /// each algorithm).
    pub quick: bool,
    /// Starting points per cell (the paper: 10).
    pub runs: usize,
    /// At most this many training samples (`None`: Table I's).
    pub train_cap: Option<usize>,
    /// At most this many test samples.
    pub test_cap: Option<usize>,
    /// Only these data sets (paper names); `None`: all eleven.
    pub datasets: Option<Vec<String>>,
    /// Start no new cell after this many minutes.
    pub time_budget_min: Option<f64>,
    /// Use the features as given (the default: the paper's reading, see the
    /// module docs); `false` z-scores them with the training part's
    /// statistics.
    pub raw: bool,
}

impl Options {
    /// The paper's protocol: Table I's sizes, 10 runs.
    pub fn full(out_dir: PathBuf) -> Self {
        Self {
            cells_dir: out_dir.join("cells"),
            out_dir,
            quick: false,
            runs: 10,
            train_cap: None,
            test_cap: None,
            datasets: None,
            time_budget_min: None,
            raw: true,
        }
    }

    /// Minutes: every data set capped at 2000 training and 2000 test
    /// samples, 1 run, the first network size of each algorithm.
    pub fn quick(out_dir: PathBuf) -> Self {
        Self {
            quick: true,
            runs: 1,
            train_cap: Some(2000),
            test_cap: Some(2000),
            ..Self::full(out_dir)
        }
    }

    /// Whether the data set `paper_name` is in this run.
    pub fn includes(&self, paper_name: &str) -> bool {
        self.datasets
            .as_ref()
            .is_none_or(|d| d.iter().any(|n| n.eq_ignore_ascii_case(paper_name)))
    }
}

/// A data set ready for the trainers: z-scored features, the targets fitted
/// and the truth the metrics compare with.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Table I's entry.
    pub info: DatasetInfo,
    /// Training features (z-scored with the training part's statistics, or
    /// as given when the options ask for it).
    pub x_train: Array2<f64>,
    /// Test features (the same scaling).
    pub x_test: Array2<f64>,
    /// The targets the network is fitted to: one column `{0, 1}` for two
    /// classes, one-hot for more, the target scaled to `[0, 1]` by the
    /// training part's range for regression.
    pub y_train: Array2<f64>,
    /// Classification: the class of each training sample; regression: the
    /// scaled target.
    pub truth_train: Array1<f64>,
    /// The same for the test part.
    pub truth_test: Array1<f64>,
    /// Classes (classification).
    pub classes: Option<usize>,
    /// Where the test part comes from its own file: the test rows whose
    /// features occur nowhere in the training part (cod-rna's shipped
    /// files share some); `None` when the split is ours, so no row can be
    /// in both.
    pub unshared_test: Option<Vec<usize>>,
}

impl Prepared {
    /// Classification: the share (%) of the test set's most frequent class,
    /// the accuracy of always answering it; `None` for regression.
    pub fn majority_test_rate(&self) -> Option<f64> {
        let classes = self.classes?;
        let mut counts = vec![0usize; classes.max(1)];
        for &c in &self.truth_test {
            if let Some(n) = counts.get_mut(c as usize) {
                *n += 1;
            }
        }
        let most = counts.iter().copied().max().unwrap_or(0);
        Some(100.0 * most as f64 / self.truth_test.len().max(1) as f64)
    }

    /// Test rows that also occur in the training part (features equal bit
    /// for bit), `None` when the split is ours.
    pub fn shared_test_rows(&self) -> Option<usize> {
        Some(self.x_test.nrows() - self.unshared_test.as_ref()?.len())
    }

    /// The test metric of the outputs `phi` on the test rows not in the
    /// training part; `None` when no test row is shared (then it is the
    /// test metric) or every one is.
    pub fn unshared_metric(&self, phi: &Array2<f64>) -> Option<f64> {
        let rows = self.unshared_test.as_ref()?;
        if rows.len() == self.x_test.nrows() || rows.is_empty() {
            return None;
        }
        let phi = phi.select(Axis(0), rows);
        let truth = self.truth_test.select(Axis(0), rows);
        Some(self.metric(&phi, &truth))
    }

    /// `%` accuracy (classification) or RMSE (regression) of the outputs
    /// `phi` against `truth`.
    pub fn metric(&self, phi: &Array2<f64>, truth: &Array1<f64>) -> f64 {
        match self.classes {
            Some(2) => {
                let hits = phi
                    .column(0)
                    .iter()
                    .zip(truth)
                    .filter(|(p, t)| f64::from(u8::from(**p >= 0.5)) == **t)
                    .count();
                100.0 * hits as f64 / truth.len() as f64
            }
            Some(_) => {
                let predicted = datasets::argmax_rows(phi);
                let hits = predicted.iter().zip(truth).filter(|(p, t)| **p as f64 == **t).count();
                100.0 * hits as f64 / truth.len() as f64
            }
            None => {
                let sq: f64 = phi.column(0).iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum();
                (sq / truth.len() as f64).sqrt()
            }
        }
    }
}

/// Load and prepare `source` (Table I's split: the shipped split where the
/// set comes split, else a split of the shuffled rows seeded by the set's
/// position in Table I; then the caps of `opts`).
pub fn prepare(index: usize, source: &Source, opts: &Options) -> Result<Prepared, ReproError> {
    let info = TABLE_I[index];
    let all = datasets::load_shipped(source.file)?;
    let (train, test) = match source.test_file {
        Some(t) => (all, datasets::load_shipped(t)?),
        None => {
            let order = shuffled_indices(all.n_samples(), 20_160_000 + index as u64);
            if info.train + info.test > order.len() {
                return Err(ReproError::Protocol(format!(
                    "{}: Table I asks for {} + {} samples, the file has {}",
                    info.paper_name,
                    info.train,
                    info.test,
                    order.len()
                )));
            }
            let (tr, rest) = order.split_at(info.train);
            (all.select(tr), all.select(&rest[..info.test]))
        }
    };
    let cap = |d: datasets::Dataset, c: Option<usize>| match c {
        Some(c) if c < d.n_samples() => {
            let idx: Vec<usize> = (0..c).collect();
            d.select(&idx)
        }
        _ => d,
    };
    // A shipped split is in file order: take the capped part at random.
    let shuffle = |d: datasets::Dataset, seed: u64| {
        let order = shuffled_indices(d.n_samples(), seed);
        d.select(&order)
    };
    let (train, test) = if opts.train_cap.is_some() && source.test_file.is_some() {
        (shuffle(train, 1), shuffle(test, 2))
    } else {
        (train, test)
    };
    let (train, test) = (cap(train, opts.train_cap), cap(test, opts.test_cap));
    let (mut x_train, mut x_test) = if opts.raw {
        (train.x, test.x)
    } else {
        let scaler = StandardScaler::fit(&train.x)?;
        (scaler.transform(&train.x)?, scaler.transform(&test.x)?)
    };
    if opts.raw && source.paper_name == "ringnorm" {
        // Back to DELVE's units.
        x_train.mapv_inplace(|v| v / 1000.0);
        x_test.mapv_inplace(|v| v / 1000.0);
    }
    let (y_train, truth_train, truth_test, classes) = match info.task {
        Task::Classification => {
            let classes = train.y.iter().fold(0.0_f64, |m, v| m.max(*v)) as usize + 1;
            let y = if classes == 2 {
                train.y.clone().insert_axis(Axis(1))
            } else {
                datasets::one_hot(&train.y, classes)?
            };
            (y, train.y.clone(), test.y.clone(), Some(classes))
        }
        Task::Regression => {
            let lo = train.y.iter().fold(f64::INFINITY, |m, v| m.min(*v));
            let hi = train.y.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v));
            if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
                return Err(ReproError::Protocol(format!(
                    "{}: constant training target",
                    info.paper_name
                )));
            }
            let scale = |y: &Array1<f64>| y.mapv(|v| (v - lo) / (hi - lo));
            let t = scale(&train.y);
            (t.clone().insert_axis(Axis(1)), t, scale(&test.y), None)
        }
    };
    let unshared_test = source.test_file.map(|_| unshared_rows(&x_train, &x_test));
    Ok(Prepared {
        info,
        x_train,
        x_test,
        y_train,
        truth_train,
        truth_test,
        classes,
        unshared_test,
    })
}

/// The rows of `test` whose features (bit for bit) are no row of `train`.
fn unshared_rows(train: &Array2<f64>, test: &Array2<f64>) -> Vec<usize> {
    let key = |r: ndarray::ArrayView1<'_, f64>| r.iter().map(|v| v.to_bits()).collect::<Vec<u64>>();
    let seen: std::collections::HashSet<Vec<u64>> = train.rows().into_iter().map(key).collect();
    test.rows()
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !seen.contains(&key(*r)))
        .map(|(i, _)| i)
        .collect()
}

/// Overrides of the grippo-dec protocol; `None` keeps the protocol's value.
#[derive(Clone, Debug, Default)]
pub struct GrippoDecSettings {
    /// Starting points per cell (quick run 1, full run 10).
    pub runs: Option<usize>,
    /// Only these data sets (the paper's names).
    pub datasets: Option<Vec<String>>,
    /// Start no new cell after this many minutes.
    pub time_budget_min: Option<f64>,
    /// Z-score the features instead of using them as given (the report then
    /// goes to `grippo-dec-zscore/`).
    pub zscore: bool,
}

/// grippo-dec's options: the quick or full protocol with the settings'
/// overrides.
pub fn options_from(s: &crate::papers::Settings, quick: bool) -> Options {
    let g = &s.grippo_dec;
    let out = s
        .results_dir
        .join(if g.zscore { "grippo-dec-zscore" } else { "grippo-dec" });
    let mut o = if quick { Options::quick(out) } else { Options::full(out) };
    if let Some(r) = g.runs {
        o.runs = r.max(1);
    }
    o.datasets = g.datasets.clone();
    o.time_budget_min = g.time_budget_min;
    o.raw = !g.zscore;
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// A test row counts as shared only when every feature is equal bit for
    /// bit to a training row's; the metric without the shared rows is the
    /// metric of the others alone.
    #[test]
    fn shared_test_rows_are_found_and_left_out() {
        let x_train = array![[1.0, 2.0], [3.0, 4.0]];
        let x_test = array![[3.0, 4.0], [5.0, 6.0], [1.0, 2.000_000_1], [1.0, 2.0]];
        let unshared = unshared_rows(&x_train, &x_test);
        assert_eq!(unshared, vec![1, 2]);
        let prep = Prepared {
            info: TABLE_I[0],
            x_train,
            x_test,
            y_train: array![[0.0], [1.0]],
            truth_train: array![0.0, 1.0],
            truth_test: array![1.0, 0.0, 1.0, 0.0],
            classes: Some(2),
            unshared_test: Some(unshared),
        };
        assert_eq!(prep.shared_test_rows(), Some(2));
        // Right on the shared rows (0, 3), right on row 1, wrong on row 2.
        let phi = array![[0.9], [0.1], [0.2], [0.3]];
        assert_eq!(prep.metric(&phi, &prep.truth_test), 75.0);
        assert_eq!(prep.unshared_metric(&phi), Some(50.0));
    }
}
