//! `nn fit --select-scales` and `--select-lambda … --grow-until-val`
//! (issue 42) through the user's door: the JSON reports the scale, λ and
//! size of its curve's lowest score, the model fitted there predicts as a
//! plain fit with that `--weight-scale` and `--lambda`; both selections in
//! one command grow at the λ and scale chosen first; bad combinations are
//! refused with one error line.

mod common;

use common::{data, fails, run, temp_dir};
use serde_json::Value;

fn fit(args: &[String]) -> Value {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// `nn fit --model MODEL` on a shipped file (train = test) with `extra`.
fn args(model: &[&str], task: &str, file: &str, extra: &[&str]) -> Vec<String> {
    let f = data(file);
    let mut v: Vec<String> = ["fit", "--task", task, "--train", &f, "--test", &f]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(model.iter().chain(extra).map(|s| s.to_string()));
    v
}

/// The lowest score of a curve (the first of equal ones).
fn lowest(curve: &[Value]) -> &Value {
    curve
        .iter()
        .filter(|p| p["score"].is_f64())
        .fold(None::<&Value>, |best, p| match best {
            Some(b) if b["score"].as_f64() <= p["score"].as_f64() => Some(b),
            _ => Some(p),
        })
        .expect("a scored candidate")
}

const ELM: [&str; 4] = ["--model", "elm", "--hidden", "80"];

#[test]
fn elm_scale_is_chosen_with_lambda_and_fits_as_a_plain_fit() {
    let scales = ["unit-variance", "0.05", "inverse-sqrt", "6"];
    let report = fit(&args(
        &ELM,
        "regression",
        "airfoil/airfoil.csv.gz",
        &[
            "--select-lambda",
            "kfold:3",
            "--lambda-grid",
            "1e-6:1:4",
            "--select-scales",
            &scales.join(","),
        ],
    ));
    let sel = &report["selection"];
    let curve = sel["curve"].as_array().expect("curve");
    assert_eq!(curve.len(), 4 * 4);
    let best = lowest(curve);
    assert_eq!(best["score"], sel["score"]);
    assert_eq!(best["scale"], sel["scale_factor"]);
    let scale = sel["scale"].as_str().expect("the scale chosen");
    assert!(scales.contains(&scale), "{scale}");
    assert_eq!(report["weight_scale"], scale);
    // Four scales, four distinct factors on the curve.
    let mut factors: Vec<f64> = curve.iter().filter_map(|p| p["scale"].as_f64()).collect();
    factors.sort_by(f64::total_cmp);
    factors.dedup();
    assert_eq!(factors.len(), 4, "{factors:?}");
    // The model: a plain fit at the chosen scale and λ, to the digits the
    // two computations share (one Cholesky of the same normal equations,
    // summed in a different order).
    let lambda = sel["lambda"].as_f64().expect("λ");
    let plain = fit(&args(
        &ELM,
        "regression",
        "airfoil/airfoil.csv.gz",
        &["--weight-scale", scale, "--lambda", &lambda.to_string()],
    ));
    let (a, b) = (
        report["test_metric"].as_f64().unwrap_or(f64::NAN),
        plain["test_metric"].as_f64().unwrap_or(f64::NAN),
    );
    assert!((a - b).abs() <= 1e-9 * b.abs(), "test RMSE {a} vs a plain fit's {b}");
}

/// `--select-scales auto`: the seven scales of `elm_scale_grid` (u/4 … 4u,
/// 1, 1/√N), their factors on the curve; the choice one of them.
#[test]
fn elm_auto_scales_are_the_grid() {
    let report = fit(&args(
        &ELM,
        "classification",
        "pima/pima.csv.gz",
        &[
            "--select-lambda",
            "kfold:3",
            "--lambda-grid",
            "1e-4:1:3",
            "--select-scales",
            "auto",
        ],
    ));
    let sel = &report["selection"];
    let curve = sel["curve"].as_array().expect("curve");
    assert_eq!(curve.len(), 7 * 3);
    let mut factors: Vec<f64> = curve.iter().filter_map(|p| p["scale"].as_f64()).collect();
    factors.dedup();
    assert_eq!(factors.len(), 7, "{factors:?}");
    let u = factors[0];
    for (f, c) in factors[1..5].iter().zip([0.25, 0.5, 2.0, 4.0]) {
        assert!((f - c * u).abs() <= 1e-15 * f, "{f} vs {c}·{u}");
    }
    assert_eq!(factors[5], 1.0);
    assert!(
        (factors[6] - 1.0 / 8f64.sqrt()).abs() <= 1e-15,
        "1/√N for pima's 8 inputs"
    );
    assert_eq!(lowest(curve)["score"], sel["score"]);
    assert_eq!(report["weight_scale"], sel["scale"]);
}

#[test]
fn bls_shrink_is_chosen_and_reported() {
    let bls = [
        "--model",
        "bls",
        "--feature-groups",
        "2",
        "--feature-nodes",
        "4",
        "--enhancement",
        "40",
    ];
    let report = fit(&args(
        &bls,
        "classification",
        "pima/pima.csv.gz",
        &[
            "--select-lambda",
            "loo",
            "--lambda-grid",
            "1e-6:1:3",
            "--select-scales",
            "0.1,0.8,5",
        ],
    ));
    let sel = &report["selection"];
    let best = lowest(sel["curve"].as_array().expect("curve"));
    assert_eq!(best["score"], sel["score"]);
    let shrink = sel["scale_factor"].as_f64().expect("the shrink");
    assert!([0.1, 0.8, 5.0].contains(&shrink));
    assert_eq!(report["weight_scale"].as_f64(), Some(shrink));
    assert_eq!(sel["scale"].as_str().map(|s| s.parse::<f64>().ok()), Some(Some(shrink)));
}

/// `--select-lambda kfold:3 --grow-until-val`: λ and the scale from the
/// selection on the `--hidden`-node network, then growth at them: the
/// growth's curve carries that λ, the report both curves and the method of
/// both; `--plot` draws both.
#[test]
fn lambda_then_growth_in_one_command() {
    let dir = temp_dir("select-grow");
    let svg = dir.path().join("curve.svg");
    let svg_arg = svg.display().to_string();
    let report = fit(&args(
        &["--model", "elm", "--hidden", "200"],
        "regression",
        "airfoil/airfoil.csv.gz",
        &[
            "--select-lambda",
            "kfold:3",
            "--lambda-grid",
            "1e-8:1:5",
            "--select-scales",
            "unit-variance,0.2",
            "--grow-until-val",
            "--initial-nodes",
            "20",
            "--step",
            "20",
            "--patience",
            "3",
            "--plot",
            &svg_arg,
        ],
    ));
    let sel = &report["selection"];
    assert_eq!(sel["method"], "kfold:3 + grow-until-val");
    let first = sel["lambda_curve"].as_array().expect("the selection's curve");
    assert_eq!(first.len(), 2 * 5);
    let chosen_first = lowest(first);
    let lambda = chosen_first["lambda"].as_f64().expect("λ");
    assert_eq!(sel["lambda"].as_f64(), Some(lambda));
    assert_eq!(sel["scale_factor"], chosen_first["scale"]);
    let growth = sel["curve"].as_array().expect("the growth's curve");
    assert!(growth.iter().all(|p| p["lambda"].as_f64() == Some(lambda)));
    // The default schedule: max(--step, 10% of the size) per step, to --hidden.
    let sizes: Vec<u64> = growth.iter().filter_map(|p| p["nodes"].as_u64()).collect();
    assert_eq!(sizes[0], 20);
    for w in sizes.windows(2) {
        assert_eq!(w[1], (w[0] + 20.max(w[0].div_ceil(10))).min(200), "{sizes:?}");
    }
    assert_eq!(lowest(growth)["score"], sel["score"]);
    assert_eq!(report["hidden"], sel["nodes"]);
    assert!(["patience", "max-nodes"].contains(&sel["stopped"].as_str().unwrap_or("")));
    for path in [svg.clone(), dir.path().join("curve-lambda.svg")] {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.contains("<svg"), "{}", path.display());
    }
}

#[test]
fn scale_and_combination_errors() {
    for (model, extra, want) in [
        (
            &ELM[..],
            vec!["--select-scales", "1,2"],
            "--select-scales applies to --select-lambda",
        ),
        (
            &ELM[..],
            vec!["--select-lambda", "loo", "--select-scales", "0"],
            "input-weight scale",
        ),
        (
            &ELM[..],
            vec!["--select-lambda", "loo", "--select-scales", "wide"],
            "input-weight scale",
        ),
        (
            &ELM[..],
            vec!["--select-lambda", "loo", "--select-scales", "1", "--weight-scale", "2"],
            "drop --weight-scale",
        ),
        (
            &ELM[..],
            vec!["--select-lambda", "kfold:3", "--select-sizes", "40", "--grow-until-val"],
            "both choose the size",
        ),
        (
            &["--model", "bls"][..],
            vec!["--select-lambda", "loo", "--select-scales", "unit-variance"],
            "shrink scale",
        ),
        (
            &["--model", "bls"][..],
            vec!["--select-lambda", "loo", "--select-scales", "auto"],
            "shrink scale",
        ),
        (
            &ELM[..],
            vec!["--grow-until-val", "--growth", "11"],
            "--growth 11 must be",
        ),
        (
            &ELM[..],
            vec!["--grow-until-val", "--growth", "-1"],
            "negative values are not accepted",
        ),
        (
            &ELM[..],
            vec!["--growth", "0.2"],
            "--growth applies to --grow-until-val",
        ),
    ] {
        let a = args(model, "regression", "airfoil/airfoil.csv.gz", &extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (_, line) = fails(&a);
        assert!(line.contains(want), "{extra:?}: {line}");
    }
}
