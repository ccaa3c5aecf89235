//! The user's command (`nn`, behind `cargo xtask fit|predict`): one JSON
//! object on stdout with the documented keys, metrics that agree with an
//! independent recomputation from `predict`, and readable errors.

mod common;

use common::{data, nn};

use std::path::PathBuf;
use test_support::assert_contains_all;

use experiments::datasets;

/// A path `name` in a fresh temporary directory, which is removed when the
/// returned guard drops.
fn temp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("nn-cli-test-")
        .tempdir()
        .expect("a temporary directory");
    let path = dir.path().join(name);
    (dir, path)
}

/// A BLS of 2 × 3 feature nodes and 10 enhancement nodes.
const SMALL_BLS: [&str; 8] = [
    "--model",
    "bls",
    "--feature-groups",
    "2",
    "--feature-nodes",
    "3",
    "--enhancement",
    "10",
];

/// `--train pima --test pima --task classification` followed by `args`.
fn pima(args: &[&str]) -> Vec<String> {
    let file = data("pima/pima.csv.gz");
    let base = ["--train", &file, "--test", &file, "--task", "classification"];
    base.iter().chain(args).map(|s| s.to_string()).collect()
}

fn run_fit<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> serde_json::Value {
    let out = nn().arg("fit").args(args).output().expect("run nn");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "nn fit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "exactly one line on stdout: {stdout}");
    serde_json::from_str(stdout.trim()).expect("stdout is one JSON object")
}

fn predictions(model: &PathBuf, file: &str) -> Vec<f64> {
    let out = nn()
        .args(["predict", "--model-file"])
        .arg(model)
        .args(["--data", file])
        .output()
        .expect("run nn");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().expect("a number per line"))
        .collect()
}

#[test]
fn regression_fit_prints_the_documented_json_and_predict_agrees() {
    let file = data("airfoil/airfoil.csv.gz");
    let (_tmp_model, model) = temp("airfoil.model");
    let j = run_fit(&[
        "--model",
        "elm",
        "--train",
        &file,
        "--test",
        &file,
        "--task",
        "regression",
        "--hidden",
        "60",
        "--activation",
        "gaussian",
        "--seed",
        "3",
        "--save",
        model.to_str().expect("utf-8 path"),
    ]);
    for key in [
        "model",
        "task",
        "n_train",
        "n_test",
        "hidden",
        "train_seconds",
        "test_metric_name",
        "test_metric",
        "train_metric",
    ] {
        assert!(j.get(key).is_some(), "missing key {key}: {j}");
    }
    assert_eq!(j["model"], "elm");
    assert_eq!(j["task"], "regression");
    assert_eq!(j["n_train"], 1503);
    assert_eq!(j["hidden"], 60);
    assert_eq!(j["test_metric_name"], "rmse");
    // Recompute the RMSE independently from `predict` and the file's targets.
    let truth = datasets::load_any(&file).expect("load");
    let p = predictions(&model, &file);
    assert_eq!(p.len(), 1503);
    let rmse = (p
        .iter()
        .zip(truth.y.iter())
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        / 1503.0)
        .sqrt();
    let reported = j["test_metric"].as_f64().expect("number");
    assert!(
        (rmse - reported).abs() <= 1e-9 * reported,
        "predict gives {rmse}, fit reported {reported}"
    );
    // The airfoil target has a standard deviation of about 6.9 dB; 60
    // Gaussian nodes must do clearly better than predicting the mean.
    assert!(reported < 6.0, "rmse {reported}");
}

#[test]
fn classification_with_an_incremental_strategy_matches_the_ridge_fit() {
    let ridge = run_fit(&pima(&["--model", "elm", "--hidden", "40"]));
    let inc = run_fit(&pima(&["--model", "elm", "--hidden", "40", "--solver", "alg3"]));
    assert_eq!(ridge["test_metric_name"], "accuracy");
    assert_eq!(ridge["classes"], 2);
    assert_eq!(inc["solver"], "alg3");
    // Same seed, same 40 nodes: the incremental weights equal the batch
    // ridge weights to rounding, so the accuracies agree to within a sample.
    let (a, b) = (
        ridge["test_metric"].as_f64().unwrap(),
        inc["test_metric"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1.0 / 768.0 + 1e-12, "{a} vs {b}");
    assert!(a > 0.7, "accuracy {a}");
}

#[test]
fn errors_are_one_readable_line_and_a_failure_exit() {
    let file = data("pima/pima.csv.gz");
    let out = nn()
        .args([
            "fit", "--model", "elm", "--train", &file, "--test", &file, "--hidden", "5",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("required") && err.contains("--task <TASK>"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(out.stdout.is_empty());

    let (_tmp_bad, bad) = temp("bad.csv");
    std::fs::write(&bad, "a,b,target\n1,2,3\n4,x,6\n").unwrap();
    let bad_s = bad.to_str().unwrap();
    let out = nn()
        .args([
            "fit",
            "--model",
            "elm",
            "--train",
            bad_s,
            "--test",
            bad_s,
            "--task",
            "regression",
            "--hidden",
            "3",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.csv") && err.contains("line 3"), "{err}");

    let out = nn()
        .args(["predict", "--model-file", bad_s, "--data", &file])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a model file"));
}

/// `--model bls`: the one-line JSON with the BLS keys, one update record per
/// increment, test accuracy recomputed from `predict` on the saved model,
/// and the same network grown by increments predicting like the one fitted
/// with the whole schedule by another strategy (both are the ridge solution
/// on the same expanded matrix).
#[test]
fn bls_fit_with_increments_prints_updates_and_predict_agrees() {
    let file = data("pima/pima.csv.gz");
    let (_tmp_model, model) = temp("pima-bls.model");
    let base = [
        "--model",
        "bls",
        "--train",
        &file,
        "--test",
        &file,
        "--task",
        "classification",
        "--feature-groups",
        "3",
        "--feature-nodes",
        "4",
        "--enhancement",
        "30",
        "--increments",
        "e20,f4:10:6x2",
        "--lambda",
        "0.01",
        "--seed",
        "5",
    ];
    let mut with_save = base.to_vec();
    with_save.extend(["--strategy", "chol2", "--save", model.to_str().expect("utf-8 path")]);
    let j = run_fit(&with_save);
    assert_eq!(j["model"], "bls");
    assert_eq!(j["solver"], "Chol-2");
    // 12 + 30 initial, +20, then two × (4 + 10 + 6).
    assert_eq!(j["hidden"], 12 + 30 + 20 + 40);
    assert_eq!(j["feature_nodes"], 12 + 8);
    assert_eq!(j["enhancement_nodes"], 30 + 20 + 32);
    let updates = j["updates"].as_array().expect("updates");
    assert_eq!(updates.len(), 4);
    assert_eq!(updates[0]["kind"], "start");
    assert_eq!(updates[1]["kind"], "enhancement");
    assert_eq!(updates[3]["kind"], "feature-group");
    assert_eq!(updates[3]["nodes"], 102);
    let truth = datasets::load_any(&file).expect("load");
    let p = predictions(&model, &file);
    let acc = p.iter().zip(truth.y.iter()).filter(|(a, b)| a == b).count() as f64 / p.len() as f64;
    let reported = j["test_metric"].as_f64().expect("number");
    assert!(
        (acc - reported).abs() < 1e-12,
        "predict gives {acc}, fit reported {reported}"
    );
    assert!(reported > 0.7, "accuracy {reported}");

    let mut direct = base.to_vec();
    direct.extend(["--strategy", "d-rdg"]);
    let d = run_fit(&direct);
    let b = d["test_metric"].as_f64().expect("number");
    assert!((b - reported).abs() <= 1.0 / 768.0 + 1e-12, "{b} vs {reported}");
}

#[test]
fn bls_flags_are_checked() {
    let fit_err = |extra: &[&str]| {
        let out = nn().arg("fit").args(pima(extra)).output().expect("run nn");
        assert!(!out.status.success(), "{extra:?} should fail");
        assert!(out.stdout.is_empty());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let bls = |extra: &[&str]| fit_err(&[&["--model", "bls"], extra].concat());
    assert!(bls(&["--hidden", "5"]).contains("--hidden does not apply to --model bls"));
    assert!(bls(&["--increments", "q5"]).contains("`q5`"));
    assert!(bls(&["--increments", "f3:4"]).contains("three numbers"));
    assert!(bls(&["--increments", "e0"]).contains("adds no nodes"));
    let e = bls(&["--strategy", "magic"]);
    assert!(
        e.contains("'magic'") && e.contains("possible values: d-rdg, chol1"),
        "{e}"
    );
    assert!(bls(&["--enhancement", "0"]).contains("at least 1"));
    assert!(bls(&["--initial-nodes", "3"]).contains("--initial-nodes does not apply to --model bls"));
    assert!(bls(&["--f32", "--activation", "tanh"]).contains("--activation does not apply"));
    let e = fit_err(&["--model", "elm", "--hidden", "5", "--enhancement", "3"]);
    assert!(e.contains("--enhancement does not apply to --model elm"), "{e}");
}

/// Unknown flags and stray arguments are errors (one line, exit code 2),
/// never ignored; so is a missing subcommand.
#[test]
fn unknown_flags_and_stray_arguments_are_errors() {
    let base = pima(&["--model", "elm", "--hidden", "3"]);
    for extra in [&["--hiden", "3"][..], &["stray"], &["--seed"], &["--seed", "-1"]] {
        let out = nn().arg("fit").args(&base).args(extra).output().expect("run nn");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(out.stdout.is_empty());
        assert_eq!(err.lines().count(), 1, "{extra:?}: one line: {err}");
        assert!(err.starts_with("nn: error: "), "{err}");
    }
    let out = nn()
        .args(["predict", "--model-file", "m", "--data", "d", "--extra"])
        .output()
        .expect("run nn");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'--extra'"));
    let out = nn().arg("train").output().expect("run nn");
    assert_eq!(out.status.code(), Some(2));
}

/// `nn fit --help` lists every flag, the BLS ones included, with its default.
#[test]
fn help_lists_every_flag_with_its_default() {
    let out = nn().args(["fit", "--help"]).output().expect("run nn");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert_contains_all(
        "nn fit --help",
        &help,
        &[
            "--model",
            "--train",
            "--test",
            "--task",
            "--hidden",
            "--lambda",
            "--activation",
            "--solver",
            "--seed",
            "--initial-nodes",
            "--save",
            "--scale",
            "--threads",
            "--feature-groups",
            "--feature-nodes",
            "--enhancement",
            "--strategy",
            "--increments",
            "--f32",
        ],
    );
    assert_contains_all(
        "nn fit --help",
        &help,
        &[
            "[default: 10]",
            "[default: 1000]",
            "[default: chol2]",
            "[default: ridge]",
            "[default: sigmoid]",
            "[default: 2]",
            "[default: 0]",
            "0.1 for elm",
            "2^-30 for bls",
            "zscore for elm",
            "every core",
        ],
    );
    assert!(help.contains("f10:750:1250x11") && help.contains("li-et-al"), "{help}");
}

/// `--threads` and `--scale` are reported in the JSON; each model's default
/// scaling is the one its method expects (z-scores for the ELM, [0, 1] for
/// the BLS), and the BLS's default λ is `BlsParams::DEFAULT_LAMBDA`.
#[test]
fn threads_and_scale_are_reported() {
    let elm = ["--model", "elm", "--hidden", "10"];
    let j = run_fit(&pima(&[&elm[..], &["--threads", "1"]].concat()));
    assert_eq!(j["threads"], 1);
    assert_eq!(j["scale"], "zscore");
    let j = run_fit(&pima(&[&elm[..], &["--scale", "minmax"]].concat()));
    assert_eq!(j["scale"], "minmax");
    assert!(j["threads"].as_u64().expect("threads") >= 1);
    let bls = SMALL_BLS;
    let j = run_fit(&pima(&bls));
    assert_eq!(j["scale"], "minmax");
    // serde_json's default parser is not correctly rounded (its
    // `float_roundtrip` feature is off), so compare to the last bits.
    let lambda = j["lambda"].as_f64().expect("lambda");
    let default = models::BlsParams::DEFAULT_LAMBDA;
    assert!((lambda - default).abs() <= 4.0 * f64::EPSILON * default, "{lambda}");
    assert_eq!(
        run_fit(&pima(&[&bls[..], &["--scale", "none"]].concat()))["scale"],
        "none"
    );
}

/// A model saved by `--scale minmax` predicts through its own scaler:
/// predictions equal those of the fit's report (the accuracy recomputed).
#[test]
fn a_saved_minmax_model_predicts_with_its_scaler() {
    let (_tmp_model, model) = temp("pima-minmax.model");
    let path = model.to_str().expect("utf-8 path");
    let j = run_fit(&pima(&[
        "--model", "elm", "--hidden", "25", "--scale", "minmax", "--save", path,
    ]));
    let file = data("pima/pima.csv.gz");
    let truth = datasets::load_any(&file).expect("load");
    let p = predictions(&model, &file);
    let acc = p.iter().zip(truth.y.iter()).filter(|(a, b)| a == b).count() as f64 / p.len() as f64;
    assert_eq!(acc, j["test_metric"].as_f64().expect("number"));
}

/// When stderr is not a terminal, progress is one plain line per BLS
/// update (no progress bar, no terminal escapes).
#[test]
fn progress_is_plain_lines_off_a_terminal() {
    let args = pima(&[&SMALL_BLS[..], &["--increments", "e5x2"]].concat());
    let out = nn().arg("fit").args(&args).output().expect("run nn");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for update in ["nn fit: update 1/2: 21 nodes", "nn fit: update 2/2: 26 nodes"] {
        assert_eq!(err.lines().filter(|l| l.starts_with(update)).count(), 1, "{err}");
    }
    assert!(!err.contains('\x1b'), "{err}");
}
