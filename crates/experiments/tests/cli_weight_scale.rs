//! `nn fit --weight-scale` (issue 42, first part): the random hidden layer's
//! scale as a flag of the ELM (`unit-variance`, the default; `inverse-sqrt`;
//! a number) and the BLS (the enhancement shrink, default 0.8), reported in
//! the JSON, refused when malformed and by the models without a random
//! hidden layer.

mod common;

use common::{data, fails, run};

/// The JSON of `nn fit` on airfoil with the model flags `model` and `more`.
fn fit(model: &[&str], more: &[&str]) -> serde_json::Value {
    let airfoil = data("airfoil/airfoil.csv.gz");
    let mut args: Vec<&str> = vec!["fit"];
    args.extend(model);
    args.extend(["--task", "regression", "--train", &airfoil, "--test", &airfoil]);
    args.extend(more);
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn the_elm_takes_its_input_scale_from_the_flag() {
    let elm = ["--model", "elm", "--hidden", "30"];
    let default = fit(&elm, &[]);
    assert_eq!(default["weight_scale"], "unit-variance");
    // The default named is the default: the same computation, the same numbers.
    let named = fit(&elm, &["--weight-scale", "unit-variance"]);
    assert_eq!(named["train_metric"], default["train_metric"]);
    let fixed = fit(&elm, &["--weight-scale", "1"]);
    assert_eq!(fixed["weight_scale"], "1");
    let inverse = fit(&elm, &["--weight-scale", "Inverse_Sqrt"]);
    assert_eq!(inverse["weight_scale"], "inverse-sqrt");
    // Different scales are different hidden layers.
    let metric = |j: &serde_json::Value| j["train_metric"].as_f64().expect("a training RMSE");
    assert_ne!(metric(&fixed), metric(&default));
    assert_ne!(metric(&inverse), metric(&default));
}

#[test]
fn the_bls_takes_its_shrink_from_the_flag() {
    let bls = [
        "--model",
        "bls",
        "--feature-groups",
        "2",
        "--feature-nodes",
        "4",
        "--enhancement",
        "30",
    ];
    let default = fit(&bls, &[]);
    assert_eq!(default["weight_scale"], 0.8);
    let half = fit(&bls, &["--weight-scale", "0.5"]);
    assert_eq!(half["weight_scale"], 0.5);
    assert_ne!(half["train_metric"], default["train_metric"]);
}

#[test]
fn malformed_scales_and_other_models_are_refused() {
    let airfoil = data("airfoil/airfoil.csv.gz");
    let base = [
        "fit",
        "--task",
        "regression",
        "--train",
        airfoil.as_str(),
        "--test",
        airfoil.as_str(),
    ];
    for (model, scale, needle) in [
        (
            vec!["--model", "elm", "--hidden", "5"],
            "wide",
            "unit-variance, inverse-sqrt or a number > 0",
        ),
        (
            vec!["--model", "elm", "--hidden", "5"],
            "0",
            "unit-variance, inverse-sqrt or a number > 0",
        ),
        (
            vec!["--model", "elm", "--hidden", "5"],
            "-1",
            "unit-variance, inverse-sqrt or a number > 0",
        ),
        (vec!["--model", "bls"], "unit-variance", "shrink scale is a number > 0"),
        (vec!["--model", "bls"], "inf", "shrink scale is a number > 0"),
        (vec!["--model", "slfn", "--hidden", "5"], "1", "--weight-scale"),
    ] {
        let flag = format!("--weight-scale={scale}"); // `=`: "-1" is a value, not a flag
        let mut args: Vec<&str> = base.to_vec();
        args.extend(&model);
        args.push(&flag);
        let (_, err) = fails(&args);
        assert!(err.contains("--weight-scale"), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
    }
}
