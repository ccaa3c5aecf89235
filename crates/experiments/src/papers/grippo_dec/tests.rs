//! The protocol's pieces against hand computations, and a small end-to-end
//! run that resumes from its cells.

use ndarray::{array, Array1};

use super::published::{self, Task, TABLE_I};
use super::*;
use models::slfn::SlfnTrainer;

#[test]
fn algorithm_names_map_to_trainers() {
    assert_eq!(trainer("DEC(2)").unwrap(), SlfnTrainer::Dec { maxiter: 2 });
    assert_eq!(
        trainer("lbfgs (1000)").unwrap(),
        SlfnTrainer::Lbfgs { iterations: 1000 }
    );
    assert_eq!(trainer("elm").unwrap(), SlfnTrainer::Elm);
    assert!(trainer("newton").is_err());
    // Every published row names a trainer.
    for rows in published::RESULTS {
        for r in rows {
            trainer(r.algorithm).unwrap();
        }
    }
}

#[test]
fn the_quick_run_takes_the_first_network_of_each_algorithm() {
    for (i, rows) in published::RESULTS.iter().enumerate() {
        let quick = rows_to_run(i, true);
        assert_eq!(quick.len(), 5, "{}", TABLE_I[i].paper_name);
        for q in &quick {
            let first = rows.iter().find(|r| r.algorithm == q.algorithm).unwrap();
            assert_eq!(q, first);
        }
        assert_eq!(rows_to_run(i, false), rows.to_vec());
    }
}

/// The paper's own tables, counted by the report's rule, give the paper's
/// stated 9 / 9 / 7 (Sec. VI-C).
#[test]
fn the_claim_rule_reproduces_the_papers_count() {
    let mut count = [0usize; 3];
    for (i, rows) in published::RESULTS.iter().enumerate() {
        let get = |a: &str| {
            rows.iter()
                .find(|r| r.algorithm == a)
                .map(|r| (r.train_time, r.test_metric))
                .unwrap()
        };
        let (f, a) = report::dec10_vs_lbfgs(TABLE_I[i].task, get("DEC(10)"), [get("lbfgs(500)"), get("lbfgs(1000)")]);
        for (k, v) in [f, a, f && a].into_iter().enumerate() {
            count[k] += usize::from(v);
        }
    }
    let (t, a, b) = published::CLAIM_DEC10_BEATS_LBFGS;
    assert_eq!(count, [t, a, b]);
}

fn opts(dir: &std::path::Path) -> Options {
    let mut o = Options::quick(dir.to_path_buf());
    o.cells_dir = dir.join("cells");
    o
}

/// Table I's split sizes, the targets (one {0, 1} column for two classes,
/// one-hot for six, [0, 1]-scaled regression targets) and the metrics.
#[test]
fn prepared_data_follow_table_i_and_the_metrics_are_the_papers() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.train_cap = None;
    o.test_cap = None;
    let diabetes = protocol::prepare(4, &SOURCES[4], &o).unwrap();
    assert_eq!(
        (diabetes.x_train.nrows(), diabetes.x_test.nrows()),
        (TABLE_I[4].train, TABLE_I[4].test)
    );
    assert_eq!((diabetes.y_train.ncols(), diabetes.classes), (1, Some(2)));
    assert!(diabetes.y_train.iter().all(|v| *v == 0.0 || *v == 1.0));
    let sat = protocol::prepare(3, &SOURCES[3], &o).unwrap();
    assert_eq!(
        (sat.x_train.nrows(), sat.x_test.nrows(), sat.y_train.ncols()),
        (4435, 2000, 6)
    );
    let delta = protocol::prepare(8, &SOURCES[8], &o).unwrap();
    assert_eq!(TABLE_I[8].task, Task::Regression);
    assert_eq!((delta.x_train.nrows(), delta.x_test.nrows()), (7614, 1903));
    let (lo, hi) = delta
        .truth_train
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    assert_eq!((lo, hi), (0.0, 1.0));
    // Metrics by hand: accuracy in percent with the 0.5 threshold, argmax, RMSE.
    let t: Array1<f64> = array![1.0, 0.0, 1.0, 0.0];
    assert_eq!(diabetes.metric(&array![[0.7], [0.2], [0.4], [0.5]], &t), 50.0);
    let t3: Array1<f64> = array![2.0, 0.0];
    assert_eq!(
        sat.metric(
            &array![[0.1, 0.2, 0.9, 0.0, 0.0, 0.0], [0.3, 0.5, 0.1, 0.0, 0.0, 0.0]],
            &t3
        ),
        50.0
    );
    let r = delta.metric(&array![[0.5], [0.1]], &array![0.2, 0.5]);
    assert!((r - (0.125f64).sqrt()).abs() < 1e-15);
    assert!(protocol::prepare(0, &SOURCES[0], &Options { datasets: None, ..o }).is_ok());
}

/// A quick run on diabetes writes the report with our figures beside the
/// paper's, and a second run reuses every cell instead of training again.
#[test]
fn a_run_writes_its_report_and_resumes_from_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.datasets = Some(vec!["diabetes".into()]);
    let report = run(&o, &crate::papers::Blas::none()).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("## Table VI — diabetes"), "{text}");
    assert!(text.contains("| DEC(10) | 20 |"));
    assert!(text.contains("## The ELM's least-squares cut"), "{text}");
    // The five rows of the quick run and its ELM row at every other cut.
    let cells: Vec<_> = std::fs::read_dir(&o.cells_dir).unwrap().collect();
    assert_eq!(cells.len(), 5 + ELM_CUTS.len());
    let stamps = |d: &std::path::Path| -> Vec<(std::path::PathBuf, std::time::SystemTime)> {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.path(), e.metadata().unwrap().modified().unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let before = stamps(&o.cells_dir);
    let report = run(&o, &crate::papers::Blas::none()).unwrap();
    assert!(report.exists());
    assert_eq!(stamps(&o.cells_dir), before, "cells were retrained");
    o.datasets = Some(vec!["iris".into()]);
    assert!(run(&o, &crate::papers::Blas::none())
        .unwrap_err()
        .to_string()
        .contains("unknown data set"));
}
