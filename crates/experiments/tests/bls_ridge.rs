//! `reproduce bls-ridge` on a tiny schedule: the report and its files are
//! written, the ridge strategies agree with each other, finished cells are
//! reused on a second run, and the cells hold what the tables are made of.

use experiments::papers::bls_ridge::{run, Cell, Options, Schedule};
use experiments::papers::Blas;
use linalg_core::ridge::Strategy;
use test_support::{assert_contains_all, assert_files};

#[test]
fn tiny_schedule_writes_the_report_and_reuses_cells() {
    let tmp = tempfile::Builder::new()
        .prefix("bls-ridge-test-")
        .tempdir()
        .expect("a temporary directory");
    let dir = tmp.path().to_path_buf();
    let mut opts = Options::quick(dir.clone());
    opts.schedule = Schedule {
        train: 600,
        test: 300,
        feature_groups: 2,
        feature_nodes: 5,
        enhancement: 40,
        updates: 2,
        fed: 10,
        extra: 15,
    };
    opts.seeds = 1;
    opts.lambda_exps = vec![-20, -5];
    opts.strategies = vec![Strategy::Chol2, Strategy::DRdg, Strategy::Orig];
    let report = run(&opts, &Blas::none()).expect("reproduction runs");
    let md = std::fs::read_to_string(&report).expect("report");
    assert_contains_all(
        "the report",
        &md,
        &[
            "### λ = 2^-20",
            "### λ = 2^-5",
            "Chol-2",
            "D-Rdg",
            "Orig.",
            "analogue of Table VI",
            "NORB",
        ],
    );
    assert_files(
        &dir,
        &[
            "accuracy.csv",
            "times.csv",
            "cells.json",
            "fig1_max_accuracy.svg",
            "accuracy_vs_nodes.svg",
        ],
    );
    let cells: Vec<Cell> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cells.json")).expect("cells")).expect("json");
    assert_eq!(cells.len(), 2 * 3);
    for c in &cells {
        assert_eq!(c.accuracy.len(), 3);
        assert_eq!(c.solver_seconds.len(), 3);
        assert!(c.flops.iter().all(|&f| f > 0));
        assert!(c.failure.is_none(), "{c:?}");
        // 10 classes: far above chance on 300 test images.
        assert!(c.accuracy.iter().flatten().all(|&a| a > 50.0), "{:?}", c.accuracy);
    }
    // Two ridge solutions of the same network at a moderate λ: same
    // predictions up to rounding, so the accuracies agree within a sample.
    let acc = |s: Strategy, e: i32| {
        cells
            .iter()
            .find(|c| c.strategy == s && c.lambda_exp == e)
            .map(|c| c.accuracy.clone())
            .expect("cell")
    };
    for (a, b) in acc(Strategy::Chol2, -5).iter().zip(acc(Strategy::DRdg, -5).iter()) {
        let (a, b) = (a.expect("ran"), b.expect("ran"));
        assert!((a - b).abs() <= 100.0 / 300.0 + 1e-9, "{a} vs {b}");
    }
    // A second run finds every cell and runs none.
    let stamp = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).expect("mtime");
    let cell_files: Vec<_> = std::fs::read_dir(dir.join("cells"))
        .expect("cells dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(cell_files.len(), 6);
    let before: Vec<_> = cell_files.iter().map(|p| stamp(p)).collect();
    run(&opts, &Blas::none()).expect("second run");
    let after: Vec<_> = cell_files.iter().map(|p| stamp(p)).collect();
    assert_eq!(before, after, "finished cells must be reused, not rerun");
}
