//! The ELM's least-squares cut: every ELM row of Tables II–XII run again
//! at each cut of [`ELM_CUTS`], from the same starting points, beside the
//! default (`max(K, n)·ε`, MATLAB's `pinv`) and the paper's row.
//!
//! The paper computes the ELM's output weights with LAPACK's DGELSS and
//! does not give its `RCOND`: singular values of `H` below `RCOND·σ_max`
//! count as zero. With the features as given, the sigmoids saturate and
//! `H` is nearly rank-deficient, so the cut decides how many of its
//! directions the solution uses, and the directions barely spanned fit the
//! training set's noise with huge weights that blow up on new rows.

use std::fmt::Write as _;

use super::cell::{CellResult, ELM_CUTS};
use super::protocol::{Options, SOURCES};
use super::published::{self, PublishedRow, Task, TABLE_I};
use super::report::ours;
use super::rows_to_run;
use crate::report::Table;

/// Whether our test metric `ours` is the paper's `paper` within a point
/// (accuracy, %) or 10% (RMSE).
pub(super) fn near_paper(task: Task, ours: f64, paper: f64) -> bool {
    match task {
        Task::Classification => (ours - paper).abs() <= 1.0,
        Task::Regression => (ours - paper).abs() <= 0.1 * paper,
    }
}

/// A blow-up: a test RMSE more than twice the training RMSE (regression
/// only).
pub(super) fn blows_up(task: Task, train: f64, test: f64) -> bool {
    task == Task::Regression && test > 2.0 * train
}

/// The cuts in the table's order: the default, then [`ELM_CUTS`].
fn cuts() -> Vec<&'static str> {
    std::iter::once("elm").chain(ELM_CUTS).collect()
}

/// How the cut's name reads in the report.
pub(super) fn label(cut: &str) -> String {
    match cut {
        "elm" => "max(K, n)·ε (ours)".into(),
        "elm(eps)" => "ε (DGELSS, RCOND < 0)".into(),
        c => c.trim_start_matches("elm(").trim_end_matches(')').to_string(),
    }
}

/// Per cut (in [`cuts`]' order): `(cut, rows near the paper's test figure,
/// regression rows that blow up, rows run, regression rows run)`.
pub(super) fn counts(opts: &Options, cells: &[CellResult]) -> Vec<(&'static str, usize, usize, usize, usize)> {
    cuts()
        .into_iter()
        .map(|cut| {
            let (mut near, mut blown, mut rows, mut regression) = (0, 0, 0, 0);
            for (index, source) in SOURCES.iter().enumerate() {
                if !opts.includes(source.paper_name) {
                    continue;
                }
                let task = TABLE_I[index].task;
                for row in rows_to_run(index, opts.quick).iter().filter(|r| r.algorithm == "elm") {
                    let Some(o) = ours(cells, source.paper_name, &PublishedRow { algorithm: cut, ..*row }) else {
                        continue;
                    };
                    rows += 1;
                    regression += usize::from(task == Task::Regression);
                    near += usize::from(near_paper(task, o.test_metric.0, row.test_metric));
                    blown += usize::from(blows_up(task, o.train_metric.0, o.test_metric.0));
                }
            }
            (cut, near, blown, rows, regression)
        })
        .collect()
}

/// The mean rank the cut kept over a row's runs, when the cells record it.
fn mean_rank(cells: &[CellResult], dataset: &str, algorithm: &str, neurons: usize) -> Option<f64> {
    let ranks: Vec<f64> = cells
        .iter()
        .filter(|c| c.dataset == dataset && c.algorithm == algorithm && c.neurons == neurons)
        .map(|c| c.elm_rank.map(|r| r as f64))
        .collect::<Option<_>>()?;
    (!ranks.is_empty()).then(|| ranks.iter().sum::<f64>() / ranks.len() as f64)
}

/// The section: the rule, the counts per cut, and one table row per data
/// set and size with every cut's training and test metric and rank.
pub(super) fn section(md: &mut String, opts: &Options, cells: &[CellResult]) {
    let counted = counts(opts, cells);
    if counted.iter().skip(1).all(|c| c.3 == 0) {
        return;
    }
    let _ = writeln!(
        md,
        "## The ELM's least-squares cut\n\n\
         The paper solves the ELM's least squares with LAPACK's DGELSS and does not give its `RCOND`, below which \
         (relative to the largest) a singular value of `H` counts as zero. Ours (DGELSD) cuts at `max(K, n)·ε` \
         by default, MATLAB's `pinv`; DGELSS called with `RCOND < 0` cuts at `ε`. Every ELM row was run again at \
         each cut below from the same starting points. A row is *near the paper* when its mean test metric is \
         within a point (accuracy) or 10% (RMSE) of the paper's; it *blows up* when its test RMSE is more than \
         twice its training RMSE.\n"
    );
    let mut summary = Table::new(&[
        "cut",
        "rows near the paper's test figure",
        "rows that blow up (regression)",
    ]);
    for (cut, near, blown, rows, regression) in &counted {
        summary.push(vec![
            label(cut),
            format!("{near} of {rows}"),
            format!("{blown} of {regression}"),
        ]);
    }
    let _ = writeln!(md, "{}", summary.markdown());
    let mut head = vec!["data set".to_string(), "N".into(), "paper train / test".into()];
    head.extend(cuts().iter().map(|c| label(c)));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for (index, source) in SOURCES.iter().enumerate() {
        if !opts.includes(source.paper_name) {
            continue;
        }
        let task = TABLE_I[index].task;
        let fmt = |v: f64| match task {
            Task::Classification => format!("{v:.2}"),
            Task::Regression if v.abs() >= 10.0 => format!("{v:.3e}"),
            Task::Regression => format!("{v:.4}"),
        };
        for row in published::RESULTS[index].iter().filter(|r| r.algorithm == "elm") {
            if !rows_to_run(index, opts.quick).contains(row) {
                continue;
            }
            let mut line = vec![
                source.paper_name.to_string(),
                row.neurons.to_string(),
                format!("{} / {}", fmt(row.train_metric), fmt(row.test_metric)),
            ];
            for cut in cuts() {
                let o = ours(cells, source.paper_name, &PublishedRow { algorithm: cut, ..*row });
                line.push(o.map_or_else(
                    || "—".into(),
                    |o| {
                        let rank = mean_rank(cells, source.paper_name, cut, row.neurons)
                            .map_or_else(String::new, |r| format!(" (rank {r:.0})"));
                        format!("{} / {}{rank}", fmt(o.train_metric.0), fmt(o.test_metric.0))
                    },
                ));
            }
            t.push(line);
        }
    }
    let _ = writeln!(
        md,
        "Training / test metric (means over the starting points) and the mean rank the cut kept:\n\n{}",
        t.markdown()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn cell(dataset: &str, algorithm: &str, neurons: usize, train: f64, test: f64) -> CellResult {
        CellResult {
            elm_rank: Some(10),
            ..super::super::cell::fixture(dataset, algorithm, neurons, (0.1, 0.01), (train, test))
        }
    }

    /// california's ELM rows (paper: 0.2050, 0.2000, 0.1980 test): the
    /// default cut blowing up on all three, the widest near the paper on
    /// all three; moving one cell moves both counts.
    #[test]
    fn the_counts_are_computed_from_the_cells() {
        let opts = Options {
            datasets: Some(vec!["california".into()]),
            ..Options::full(PathBuf::from("/nonexistent"))
        };
        let widest = ELM_CUTS[ELM_CUTS.len() - 1];
        let mut cells = vec![];
        for n in [100, 200, 500] {
            cells.push(cell("california", "elm", n, 0.23, 6e4));
            cells.push(cell("california", widest, n, 0.23, 0.21));
        }
        let c = counts(&opts, &cells);
        assert_eq!(c[0], ("elm", 0, 3, 3, 3));
        assert_eq!(*c.last().unwrap(), (widest, 3, 0, 3, 3));
        assert_eq!(c[1].3, 0, "a cut without cells counts no rows");
        cells[1].test_metric = 0.5;
        let c = counts(&opts, &cells);
        assert_eq!(*c.last().unwrap(), (widest, 2, 1, 3, 3));
        let mut md = String::new();
        section(&mut md, &opts, &cells);
        assert!(md.contains("| 2 of 3 | 1 of 3 |"), "{md}");
        assert!(md.contains("(rank 10)"), "{md}");
    }
}
