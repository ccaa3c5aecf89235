//! `nn fit --select-lambda loo|kfold:K|val:FRAC` and `--grow-until-val`
//! through the user's door: the JSON reports the candidate with the lowest
//! score of its curve, and the model fitted there predicts as a plain fit
//! with those λ and nodes (the test metric); `--plot` writes an SVG; bad
//! combinations are refused with one error line.

mod common;

use common::{data, fails, run, temp_dir};
use serde_json::Value;

fn fit(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, Some(0), "{stderr}");
    serde_json::from_str(&stdout).expect("one JSON object")
}

fn base(model: &str, task: &str, file: &str) -> Vec<String> {
    let f = data(file);
    let mut v: Vec<String> = ["fit", "--model", model, "--task", task, "--train", &f, "--test", &f]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if model == "elm" {
        v.extend(["--hidden".into(), "120".into()]);
    }
    v
}

fn with(mut v: Vec<String>, extra: &[&str]) -> Vec<String> {
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The selection's choice is the curve's first lowest score, and the JSON's
/// `lambda` and `hidden` are it.
fn chosen(report: &Value) -> (f64, usize) {
    let sel = &report["selection"];
    let curve = sel["curve"].as_array().expect("curve");
    let best = curve
        .iter()
        .filter(|p| p["score"].is_f64())
        .min_by(|a, b| {
            a["score"]
                .as_f64()
                .unwrap_or(f64::NAN)
                .total_cmp(&b["score"].as_f64().unwrap_or(f64::NAN))
        })
        .expect("a scored candidate");
    let (lambda, nodes) = (
        sel["lambda"].as_f64().expect("λ"),
        sel["nodes"].as_u64().expect("nodes") as usize,
    );
    assert_eq!(best["score"], sel["score"], "the choice is the lowest score");
    assert_eq!(report["lambda"].as_f64(), Some(lambda));
    (lambda, nodes)
}

/// ELM, regression (airfoil): LOO, 5-fold with sizes and a validation
/// fraction each report their curve's minimum; the test RMSE of the model
/// chosen equals a plain fit at the chosen λ and size (LOO's weights come
/// from the eigendecomposition: 9 digits), and --plot writes an SVG.
#[test]
fn elm_select_lambda_reports_and_fits_the_choice() {
    let dir = temp_dir("select");
    let svg = dir.path().join("curve.svg");
    let svg_arg = svg.display().to_string();
    for (extra, points) in [
        (
            vec![
                "--select-lambda",
                "loo",
                "--lambda-grid",
                "1e-8:1e2:11",
                "--plot",
                &svg_arg,
            ],
            11,
        ),
        (
            vec![
                "--select-lambda",
                "kfold:5",
                "--select-sizes",
                "30,60,120",
                "--lambda-grid",
                "1e-6:1:4",
            ],
            12,
        ),
        (vec!["--select-lambda", "val:0.25", "--lambda-grid", "1e-6:1:4"], 4),
    ] {
        let args = with(base("elm", "regression", "airfoil/airfoil.csv.gz"), &extra);
        let report = fit(&strs(&args));
        assert_eq!(
            report["selection"]["curve"].as_array().map(Vec::len),
            Some(points),
            "{extra:?}"
        );
        let (lambda, nodes) = chosen(&report);
        assert_eq!(report["hidden"].as_u64(), Some(nodes as u64));
        let plain = fit(&strs(
            &with(
                base("elm", "regression", "airfoil/airfoil.csv.gz"),
                &["--lambda", &lambda.to_string()],
            )
            .into_iter()
            .map(|s| if s == "120" { nodes.to_string() } else { s })
            .collect::<Vec<_>>(),
        ));
        let (a, b) = (
            report["test_metric"].as_f64().unwrap_or(f64::NAN),
            plain["test_metric"].as_f64().unwrap_or(f64::NAN),
        );
        assert!(
            (a - b).abs() <= 1e-9 * b.abs(),
            "{extra:?}: test RMSE {a} vs a plain fit's {b}"
        );
    }
    let text = std::fs::read_to_string(&svg).expect("the plot");
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{}",
        &text[..text.len().min(80)]
    );
    assert!(text.contains("log10 λ"));
}

/// ELM and BLS growth: the JSON's size is the curve's minimum, growth stops
/// by patience or at --max-hidden, and every size is on the schedule (fixed
/// steps: --growth 0).
#[test]
fn grow_until_val_reports_the_best_size() {
    let dir = temp_dir("grow");
    let svg = dir.path().join("grow.svg");
    let svg_arg = svg.display().to_string();
    let report = fit(&strs(&with(
        base("elm", "regression", "airfoil/airfoil.csv.gz"),
        &[
            "--plot",
            &svg_arg,
            "--grow-until-val",
            "--step",
            "20",
            "--growth",
            "0",
            "--patience",
            "2",
            "--max-hidden",
            "300",
            "--initial-nodes",
            "20",
        ],
    )));
    let text = std::fs::read_to_string(&svg).expect("the plot");
    assert!(
        text.contains("hidden nodes") && text.contains("grow-until-val"),
        "{}",
        &text[..text.len().min(200)]
    );
    let (_, nodes) = chosen(&report);
    let curve = report["selection"]["curve"].as_array().expect("curve");
    assert!(curve
        .iter()
        .all(|p| p["nodes"].as_u64().is_some_and(|n| n % 20 == 0 && n <= 300)));
    assert_eq!(report["hidden"].as_u64(), Some(nodes as u64));
    let stopped = report["selection"]["stopped"].as_str().expect("stopped");
    let last = curve.last().and_then(|p| p["nodes"].as_u64()).unwrap_or(0) as usize;
    match stopped {
        "patience" => assert_eq!(last, nodes + 2 * 20),
        "max-nodes" => assert_eq!(last, 300),
        other => panic!("stopped: {other}"),
    }
    let bls = fit(&strs(&with(
        base("bls", "classification", "pima/pima.csv.gz"),
        &["--grow-until-val", "--step", "10", "--patience", "3"],
    )));
    let (_, nodes) = chosen(&bls);
    assert_eq!(
        bls["feature_nodes"].as_u64().unwrap_or(0) + bls["enhancement_nodes"].as_u64().unwrap_or(0),
        nodes as u64
    );
}

/// Refused: another model, a malformed grid, sizes with LOO, --plot alone,
/// sizes chosen by both modes at once.
#[test]
fn select_errors() {
    let elm = base("elm", "regression", "airfoil/airfoil.csv.gz");
    for (extra, want) in [
        (
            vec!["--select-lambda", "loo", "--lambda-grid", "1:0.1:3"],
            "--lambda-grid",
        ),
        (vec!["--select-lambda", "loo", "--select-sizes", "10"], "--select-sizes"),
        (vec!["--select-lambda", "kfold:1"], "kfold:K"),
        (vec!["--plot", "x.svg"], "--plot"),
        (
            vec!["--select-lambda", "loo", "--grow-until-val", "--select-sizes", "10"],
            "--select-sizes",
        ),
        (vec!["--select-lambda", "kfold:3", "--select-sizes", "500"], "sizes"),
        (
            vec!["--select-lambda", "loo", "--chunk-rows", "100"],
            "drop --chunk-rows",
        ),
    ] {
        let (_, line) = fails(&strs(&with(elm.clone(), &extra)));
        assert!(line.contains(want), "{extra:?}: {line}");
    }
    let mut slfn = base("slfn", "regression", "airfoil/airfoil.csv.gz");
    slfn.extend(["--hidden".into(), "3".into(), "--select-lambda".into(), "loo".into()]);
    let (_, line) = fails(&strs(&slfn));
    assert!(line.contains("--model elm and --model bls"), "{line}");
}
