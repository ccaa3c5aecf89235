//! The Zhu & Wei reproduction pipeline end to end on the shipped data, in a
//! tiny configuration (1 fold, 10 nodes, no timing): every output file is
//! written, Table II has a row per dataset, and the figures are sane.

use experiments::papers::zhu_wei::{run, Options, DATASETS};
use experiments::papers::Blas;
use test_support::assert_files;

#[test]
fn tiny_run_writes_the_report_the_tables_and_the_figures() {
    let tmp = tempfile::Builder::new()
        .prefix("zhu-wei-test-")
        .tempdir()
        .expect("a temporary directory");
    let out = tmp.path().to_path_buf();
    let opts = Options {
        folds: 1,
        max_nodes: 10,
        timing_reps: 1,
        out_dir: out.clone(),
        mnist: None,
        scaling_study: true,
        threads: 1,
        mnist_threads: 2,
    };
    let report = run(&opts, &Blas::none()).expect("the reproduction runs");
    let md = std::fs::read_to_string(&report).expect("report.md");
    assert!(md.contains("## Table II") && md.contains("## Table III"));
    for (_, label, _) in DATASETS {
        assert!(md.contains(label), "{label} missing from the report");
    }
    assert_files(
        &out,
        &[
            "table2.csv",
            "table3.csv",
            "results.json",
            "weight_error_vs_nodes.svg",
            "time_per_node_vs_nodes.svg",
        ],
    );
    assert!(
        md.contains("Protein + Triangular, z-scored features"),
        "scaling study missing"
    );
    assert!(
        md.contains("Protein + Triangular, features in [−1, 1]"),
        "[−1, 1] reading missing"
    );
    // (4 datasets + protein under the two other scalings) × 1 checkpoint
    // (3 nodes) × (3 error kinds × 4 algorithms + MSE + condition number) rows.
    let csv = std::fs::read_to_string(out.join("table2.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6 * 14);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    for row in json["table2"].as_array().expect("rows") {
        for key in ["weight_error", "output_error_train", "output_error_test"] {
            for v in row[key].as_array().unwrap() {
                let v = v.as_f64().unwrap();
                assert!(v.is_finite() && v >= 0.0, "{key} = {v}");
            }
        }
        // Targets are scaled to [0, 1] on the training folds: a fitted
        // model's testing MSE must lie well inside (0, 1).
        let mse = row["test_mse"].as_f64().unwrap();
        assert!(mse > 0.0 && mse < 0.5, "testing MSE {mse}");
        // κ(AᵀA + λI) ≥ 1, and at most 1 + ‖A‖²/λ ≤ 1 + K·l/λ for hidden
        // outputs bounded by 1 in magnitude (all four activations here; K ≤ 45730).
        let kappa = row["kappa"].as_f64().unwrap();
        assert!((1.0..=1.0 + 45_730.0 * 3.0 / 0.1).contains(&kappa), "κ = {kappa}");
    }
    let study = json["table2_zscore_protein"].as_array().expect("study rows");
    assert_eq!(study.len(), 2);
    // Table IV: every network grown node by node by Li et al. and Alg. 1–3
    // predicts as the standard ELM fitted at once (the paper's claim that
    // they "achieve the same performance"), on every set and activation.
    assert!(md.contains("### The same networks grown node by node"));
    let rows = json["table4"]["rows"].as_array().expect("table IV rows");
    assert_eq!(rows.len(), 4 * 5);
    for row in rows {
        let standard = row["standard_fold1_test_acc"].as_f64().unwrap();
        for g in row["grown_fold1_test_acc"].as_array().unwrap() {
            assert_eq!(g.as_f64().unwrap(), standard, "{}", row["dataset"]);
        }
    }
}
