//! `nn fit --model bpls` (Tomic et al.'s fully connected network trained by
//! BPLS, or by backprop with Adam, NAG, SGD or AdaGrad), through the user's
//! door: the JSON and its per-epoch records, the metrics recomputed from
//! the saved weights by an independent forward pass, `nn predict`
//! reproducing them, every input format, progress lines, the flags' checks,
//! and a model file whose layers do not chain.

mod common;

use std::path::Path;

use common::{data, fails, nn, temp_dir};
use experiments::cli::{FittedModel, FittedPipeline};
use models::mlp::{Mlp, OutputActivation};
use models::Activation;
use ndarray::{Array2, Axis};

fn fit_json(args: &[String]) -> (serde_json::Value, String) {
    let out = nn().arg("fit").args(args).output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "nn fit {args:?} failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one line on stdout: {stdout}");
    (serde_json::from_str(stdout.trim()).expect("one JSON object"), stderr)
}

fn args(train: &str, test: &str, task: &str, extra: &[&str]) -> Vec<String> {
    ["--train", train, "--test", test, "--task", task, "--model", "bpls"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// `nn predict` on `file`: one line per sample.
fn predict(model: &Path, file: &str) -> Vec<String> {
    let out = nn()
        .args(["predict", "--model-file", model.to_str().unwrap(), "--data", file])
        .output()
        .expect("run nn");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The saved network's outputs on `file`, by a forward pass written here
/// from the weights alone (bias in the last row of each layer), on the
/// features scaled as the saved pipeline says.
fn forward_by_hand(model: &Path, file: &str) -> (Mlp, FittedPipeline, Array2<f64>) {
    let pipeline = FittedPipeline::load(model).expect("the saved model loads");
    let FittedModel::Mlp(net) = pipeline.model.clone() else {
        panic!("not a BPLS network")
    };
    let table = experiments::datasets::load_any(Path::new(file)).expect("the file loads");
    let mut a = pipeline.scaler.transform(&table.x).expect("scaled");
    let last = net.weights().len() - 1;
    for (l, w) in net.weights().iter().enumerate() {
        let n = w.nrows() - 1;
        let mut z = a.dot(&w.slice(ndarray::s![..n, ..])) + w.row(n);
        if l < last {
            let f = net
                .hidden_activation()
                .elementwise()
                .expect("an element-wise hidden layer");
            z.mapv_inplace(|v| f.value(v));
        } else {
            match net.output_activation() {
                OutputActivation::Linear => {}
                OutputActivation::Sigmoid => z.mapv_inplace(|v| 1.0 / (1.0 + (-v).exp())),
                OutputActivation::Softmax => {
                    for mut row in z.rows_mut() {
                        let m = row.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                        row.mapv_inplace(|v| (v - m).exp());
                        let s = row.sum();
                        row /= s;
                    }
                }
            }
        }
        a = z;
    }
    (net, pipeline, a)
}

fn argmax(row: ndarray::ArrayView1<'_, f64>) -> usize {
    let mut best = 0;
    for (j, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = j;
        }
    }
    best
}

fn epochs(j: &serde_json::Value) -> Vec<serde_json::Value> {
    j["epochs"].as_array().unwrap_or_else(|| panic!("epochs: {j}")).clone()
}

/// Pima (two classes) by BPLS, Algorithm 2, saved: the JSON's fields, one
/// record and one stderr line per epoch, misses decreasing up to the best
/// epoch whose accuracy is the reported one, the accuracy recomputed from
/// the saved weights, and `nn predict` printing the same classes.
#[test]
fn bpls_classifies_pima_and_predict_reproduces_the_fit() {
    let dir = temp_dir("bpls");
    let model = dir.path().join("m.bin");
    let pima = data("pima/pima.csv.gz");
    let (j, stderr) = fit_json(&args(
        &pima,
        &pima,
        "classification",
        &["--layers", "20", "--seed", "1", "--save", model.to_str().unwrap()],
    ));
    assert_eq!(
        (j["model"].as_str(), j["solver"].as_str()),
        (Some("bpls"), Some("bpls"))
    );
    assert_eq!(j["layers"], serde_json::json!([20, 2]));
    assert_eq!((j["hidden"].as_u64(), j["classes"].as_u64()), (Some(20), Some(2)));
    assert_eq!(j["activation"], "sigmoid");
    assert_eq!(j["output_activation"], "softmax");
    assert_eq!(j["algorithm"], "Algorithm 2 (τ_max = 39)");
    assert_eq!(j["lambda"].as_f64(), Some(models::mlp::DEFAULT_LAMBDA));
    assert_eq!((j["scale"].as_str(), j["seed"].as_u64()), (Some("zscore"), Some(1)));
    assert!(j.get("learning_rate").is_none() && j.get("batch_size").is_none(), "{j}");
    let records = epochs(&j);
    let iterations = j["iterations"].as_u64().unwrap() as usize;
    assert!((1..=40).contains(&iterations) && records.len() == iterations, "{j}");
    let best = j["best_epoch"].as_u64().unwrap() as usize;
    assert!((1..=iterations).contains(&best), "{j}");
    assert!(j["termination"].as_str().is_some_and(|t| !t.is_empty()), "{j}");
    let misses: Vec<u64> = records.iter().map(|r| r["misses"].as_u64().unwrap()).collect();
    assert!(misses[..best].windows(2).all(|m| m[1] < m[0]), "{misses:?}");
    assert_eq!(records[0]["samples"].as_u64(), Some(768));
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["epoch"].as_u64(), Some(i as u64 + 1));
        assert!(
            r["seconds"].as_f64().unwrap() >= 0.0 && r["train_mse"].as_f64().unwrap() > 0.0,
            "{r}"
        );
        let acc = 1.0 - misses[i] as f64 / 768.0;
        assert!((r["train_accuracy"].as_f64().unwrap() - acc).abs() < 1e-12, "{r}");
    }
    let train = j["train_metric"].as_f64().unwrap();
    assert!(
        (records[best - 1]["train_accuracy"].as_f64().unwrap() - train).abs() < 1e-12,
        "the best epoch's weights are returned: {j}"
    );
    assert!(train > 0.72, "{j}");
    assert_eq!(j["test_metric"], j["train_metric"]);
    assert_eq!(stderr.matches("nn fit: bpls epoch ").count(), iterations, "{stderr}");
    assert!(
        stderr.contains("misses (") && stderr.contains("% train accuracy"),
        "{stderr}"
    );

    let (net, _, out) = forward_by_hand(&model, &pima);
    assert_eq!(
        (net.hidden_widths(), net.hidden_activation()),
        (vec![20], Activation::Sigmoid.into())
    );
    let table = experiments::datasets::load_any(Path::new(&pima)).unwrap();
    let by_hand: Vec<String> = out.rows().into_iter().map(|r| argmax(r).to_string()).collect();
    let printed = predict(&model, &pima);
    assert_eq!(printed, by_hand, "nn predict prints the saved network's classes");
    let hits = printed
        .iter()
        .zip(&table.y)
        .filter(|(p, y)| **p == format!("{y}"))
        .count();
    assert!((hits as f64 / 768.0 - train).abs() < 1e-12, "{hits} vs {j}");
}

/// Satellite (six classes, its own test file): a sensible test accuracy,
/// and `--iterations 0` is the first pass only.
#[test]
fn bpls_on_satellite_and_the_first_pass_only() {
    let (train, test) = (
        data("satellite/satellite_train.csv.gz"),
        data("satellite/satellite_test.csv.gz"),
    );
    let (j, _) = fit_json(&args(&train, &test, "classification", &["--layers", "30"]));
    assert_eq!((j["classes"].as_u64(), j["n_test"].as_u64()), (Some(6), Some(2000)));
    assert!(j["test_metric"].as_f64().unwrap() > 0.78, "{j}");
    let (j, stderr) = fit_json(&args(
        &train,
        &test,
        "classification",
        &["--layers", "30", "--iterations", "0"],
    ));
    assert_eq!(j["algorithm"], "Algorithm 2 (τ_max = 0)");
    assert_eq!(
        (j["iterations"].as_u64(), j["best_epoch"].as_u64()),
        (Some(1), Some(1)),
        "{j}"
    );
    assert_eq!(stderr.matches("nn fit: bpls epoch ").count(), 1, "{stderr}");
}

/// Airfoil regression: Algorithm 1 (one epoch) with a linear output, an
/// RMSE well below the targets' standard deviation (predicting the mean),
/// equal to the one recomputed from the saved weights and to `nn
/// predict`'s; tanh hidden units through `--activation`.
#[test]
fn bpls_regression_on_airfoil_beats_the_mean_and_predict_agrees() {
    let dir = temp_dir("bpls-reg");
    let model = dir.path().join("m.bin");
    let airfoil = data("airfoil/airfoil.csv.gz");
    for activation in ["sigmoid", "tanh"] {
        let (j, stderr) = fit_json(&args(
            &airfoil,
            &airfoil,
            "regression",
            &[
                "--layers",
                "30",
                "--activation",
                activation,
                "--save",
                model.to_str().unwrap(),
            ],
        ));
        assert_eq!(j["algorithm"], "Algorithm 1", "{j}");
        assert_eq!(
            (j["output_activation"].as_str(), j["activation"].as_str()),
            (Some("linear"), Some(activation))
        );
        assert_eq!(
            (j["iterations"].as_u64(), j["best_epoch"].as_u64()),
            (Some(1), Some(1)),
            "{j}"
        );
        let records = epochs(&j);
        assert!(records[0].get("misses").is_none() && records[0]["train_mse"].as_f64().unwrap() > 0.0);
        assert_eq!(stderr.matches("nn fit: bpls epoch ").count(), 1, "{stderr}");
        let table = experiments::datasets::load_any(Path::new(&airfoil)).unwrap();
        let mean = table.y.mean().unwrap();
        let sd = table.y.mapv(|v| (v - mean) * (v - mean)).mean().unwrap().sqrt();
        let rmse = j["train_metric"].as_f64().unwrap();
        assert!(rmse < 0.8 * sd, "{activation}: RMSE {rmse} vs the mean's {sd}");

        let (_, pipeline, out) = forward_by_hand(&model, &airfoil);
        let (m, s) = pipeline.target_scale.expect("regression");
        let by_hand = out.index_axis(Axis(1), 0).mapv(|v| v * s + m);
        let printed: Vec<f64> = predict(&model, &airfoil).iter().map(|l| l.parse().unwrap()).collect();
        assert_eq!(printed.len(), by_hand.len());
        for (p, h) in printed.iter().zip(&by_hand) {
            assert!((p - h).abs() <= 1e-9 * h.abs().max(1.0), "{p} vs {h}");
        }
        let mse = printed
            .iter()
            .zip(&table.y)
            .map(|(p, y)| (p - y) * (p - y))
            .sum::<f64>()
            / printed.len() as f64;
        assert!((mse.sqrt() - rmse).abs() <= 1e-9 * rmse, "{} vs {rmse}", mse.sqrt());
    }
}

/// Every backprop trainer for two epochs of minibatches of 64 on pima: the
/// JSON's trainer fields, two records with loss and misses, one stderr line
/// per epoch, no BPLS fields; and Adam on a regression (squared error).
#[test]
fn every_backprop_trainer_runs_two_epochs() {
    let pima = data("pima/pima.csv.gz");
    for trainer in ["adam", "nag", "sgd", "adagrad"] {
        let (j, stderr) = fit_json(&args(
            &pima,
            &pima,
            "classification",
            &[
                "--layers",
                "8,6",
                "--trainer",
                trainer,
                "--max-epochs",
                "2",
                "--batch-size",
                "64",
                "--learning-rate",
                "0.01",
            ],
        ));
        let what = format!("{trainer}: {j}");
        assert_eq!(j["solver"], trainer, "{what}");
        assert_eq!(j["layers"], serde_json::json!([8, 6, 2]), "{what}");
        assert_eq!(
            (
                j["learning_rate"].as_f64(),
                j["batch_size"].as_u64(),
                j["loss_function"].as_str()
            ),
            (Some(0.01), Some(64), Some("cross-entropy")),
            "{what}"
        );
        assert!(
            j.get("lambda").is_none() && j.get("best_epoch").is_none() && j.get("algorithm").is_none(),
            "{what}"
        );
        assert_eq!(j["iterations"].as_u64(), Some(2), "{what}");
        let records = epochs(&j);
        assert_eq!(records.len(), 2, "{what}");
        for r in &records {
            assert!(r["loss"].as_f64().is_some_and(f64::is_finite), "{what}");
            assert!(r["misses"].as_u64().is_some() && r.get("samples").is_none(), "{what}");
        }
        let acc = j["train_metric"].as_f64().unwrap();
        assert!(
            (records[1]["train_accuracy"].as_f64().unwrap() - acc).abs() < 1e-12,
            "{what}"
        );
        assert_eq!(
            stderr.matches(&format!("nn fit: {trainer} epoch ")).count(),
            2,
            "{stderr}"
        );
    }
    let airfoil = data("airfoil/airfoil.csv.gz");
    let (j, _) = fit_json(&args(
        &airfoil,
        &airfoil,
        "regression",
        &["--layers", "10", "--trainer", "adam", "--max-epochs", "2"],
    ));
    assert_eq!(
        (j["loss_function"].as_str(), j["batch_size"].as_u64()),
        (Some("squared-error"), Some(128))
    );
    assert_eq!(j["learning_rate"].as_f64(), Some(1e-3));
    assert!(epochs(&j).iter().all(|r| r.get("misses").is_none()), "{j}");
}

/// The same command reads LIBSVM text and IDX images (the loaders are the
/// other models'): a two-class LIBSVM set and a four-class 2×2-pixel IDX
/// set (scaled to [0, 1] by default, as images are for every model).
#[test]
fn reads_libsvm_and_idx_inputs() {
    let dir = temp_dir("bpls-formats");
    // LIBSVM: class by the sign of x1 + x3, sparse lines.
    let mut text = String::new();
    for i in 0..200 {
        let (a, b) = (((i * 7) % 13) as f64 / 6.0 - 1.0, ((i * 5) % 11) as f64 / 5.0 - 1.0);
        let label = if a + b > 0.0 { "+1" } else { "-1" };
        text.push_str(&format!("{label} 1:{a} 3:{b}\n"));
    }
    let svm = dir.path().join("toy.svm");
    std::fs::write(&svm, text).unwrap();
    let svm = svm.to_str().unwrap();
    let (j, _) = fit_json(&args(svm, svm, "classification", &["--layers", "6"]));
    assert_eq!((j["n_features"].as_u64(), j["classes"].as_u64()), (Some(3), Some(2)));
    assert!(j["test_metric"].as_f64().unwrap() > 0.9, "{j}");
    // IDX: 80 images of 2×2 pixels, the class is the brightest pixel.
    let (images, labels) = common::toy_idx(dir.path(), 80);
    let images = images.to_str().unwrap();
    let model = dir.path().join("idx.bin");
    let (j, _) = fit_json(&args(
        images,
        images,
        "classification",
        &["--layers", "8", "--save", model.to_str().unwrap()],
    ));
    assert_eq!((j["n_features"].as_u64(), j["classes"].as_u64()), (Some(4), Some(4)));
    assert_eq!(j["scale"], "minmax");
    assert!(j["train_metric"].as_f64().unwrap() > 0.9, "{j}");
    let printed = predict(&model, images);
    let hits = printed
        .iter()
        .zip(&labels)
        .filter(|(p, l)| **p == l.to_string())
        .count();
    assert!(
        (hits as f64 / 80.0 - j["train_metric"].as_f64().unwrap()).abs() < 1e-12,
        "{printed:?}"
    );
}

/// Every bad input is one `nn: error:` line naming the flag and why.
#[test]
fn bad_flags_are_usage_errors_naming_the_flag() {
    let pima = data("pima/pima.csv.gz");
    let run = |task: &str, model: &str, extra: &[&str]| {
        let mut a = vec!["fit".to_string()];
        a.extend(
            ["--train", &pima, "--test", &pima, "--task", task, "--model", model]
                .iter()
                .chain(extra)
                .map(|s| s.to_string()),
        );
        fails(&a).1
    };
    let c = |extra: &[&str]| run("classification", "bpls", &[&["--layers", "5"][..], extra].concat());
    let r = |extra: &[&str]| run("regression", "bpls", &[&["--layers", "5"][..], extra].concat());
    let cases: Vec<(String, &str)> = vec![
        (
            run("classification", "bpls", &[]),
            "--layers is required with --model bpls",
        ),
        (run("classification", "bpls", &["--layers", "0"]), "width 1 is 0"),
        (run("classification", "bpls", &["--layers", "5,,5"]), "width 2 is empty"),
        (run("classification", "bpls", &["--layers", "5,x"]), "'x'"),
        (run("classification", "bpls", &["--layers", ""]), "--layers"),
        (
            c(&["--activation", "relu"]),
            "--activation relu does not apply to --model bpls",
        ),
        (c(&["--activation", "gaussian"]), "sigmoid, tanh or linear"),
        (c(&["--activation", "swish"]), "'swish'"),
        (
            r(&["--iterations", "5"]),
            "--iterations does not apply to a regression task",
        ),
        (r(&["--iterations", "5"]), "misclassified"),
        (
            r(&["--output-activation", "softmax"]),
            "--output-activation softmax does not apply to a regression task",
        ),
        (r(&["--output-activation", "sigmoid"]), "standardized"),
        (c(&["--output-activation", "relu"]), "--output-activation"),
        (c(&["--trainer", "newton"]), "'newton'"),
        (
            c(&["--trainer", "b2ld"]),
            "--trainer b2ld does not apply to --model bpls",
        ),
        (
            c(&["--trainer", "dec"]),
            "its trainers are bpls, adam, nag, sgd, adagrad",
        ),
        (
            c(&["--batch-size", "1"]),
            "--batch-size does not apply to --trainer bpls",
        ),
        (
            c(&["--max-epochs", "3"]),
            "--max-epochs does not apply to --trainer bpls",
        ),
        (
            c(&["--learning-rate", "0.1"]),
            "--learning-rate does not apply to --trainer bpls",
        ),
        (
            c(&["--trainer", "adam", "--iterations", "3"]),
            "--iterations does not apply to --trainer adam",
        ),
        (
            c(&["--trainer", "sgd", "--lambda", "0.1"]),
            "--lambda does not apply to --trainer sgd",
        ),
        (c(&["--trainer", "nag", "--learning-rate", "0"]), "--learning-rate"),
        (c(&["--trainer", "nag", "--learning-rate", "nan"]), "--learning-rate"),
        (c(&["--trainer", "adagrad", "--batch-size", "0"]), "--batch-size"),
        (c(&["--iterations=-1"]), "--iterations"),
        (c(&["--lambda", "0"]), "--lambda 0: BPLS's λ must be finite and > 0"),
        (c(&["--hidden", "5"]), "--hidden does not apply to --model bpls"),
        // --time-limit stops the backprop trainers (cli_bad_flags); BPLS itself runs its passes.
        (
            c(&["--time-limit", "1"]),
            "--time-limit does not apply to --trainer bpls",
        ),
        (c(&["--no-bias"]), "--no-bias does not apply to --model bpls"),
        (c(&["--solver", "ridge"]), "--solver does not apply to --model bpls"),
        (c(&["--maxiter", "3"]), "--maxiter does not apply to --model bpls"),
        (c(&["--f32"]), "--f32 does not apply to --model bpls"),
        (
            run("classification", "dfnn", &["--layers", "3", "--iterations", "2"]),
            "--iterations does not apply to --model dfnn",
        ),
        (
            run("classification", "dfnn", &["--layers", "3", "--trainer", "adam"]),
            "--trainer adam does not apply to --model dfnn",
        ),
        (
            run("classification", "elm", &["--hidden", "3", "--learning-rate", "0.1"]),
            "--learning-rate does not apply to --model elm",
        ),
        (
            run(
                "classification",
                "slfn",
                &["--hidden", "3", "--output-activation", "linear"],
            ),
            "--output-activation does not apply to --model slfn",
        ),
        (
            run("classification", "slfn", &["--hidden", "3", "--trainer", "bpls"]),
            "--trainer bpls does not apply to --model slfn",
        ),
    ];
    for (error, wanted) in cases {
        assert!(error.contains(wanted), "{wanted:?} not in {error:?}");
    }
}

/// A model file whose network's layers do not chain (as only a crafted
/// file can hold: the checksum is right) is refused by `nn predict`, naming
/// the layer, never a panic.
#[test]
fn a_saved_network_whose_layers_do_not_chain_is_refused() {
    let dir = temp_dir("bpls-bad");
    let model = dir.path().join("m.bin");
    let pima = data("pima/pima.csv.gz");
    fit_json(&args(
        &pima,
        &pima,
        "classification",
        &["--layers", "4", "--iterations", "0", "--save", model.to_str().unwrap()],
    ));
    let mut pipeline = FittedPipeline::load(&model).unwrap();
    let FittedModel::Mlp(net) = &pipeline.model else {
        panic!("not a BPLS network")
    };
    #[derive(serde::Serialize)]
    struct Raw {
        weights: Vec<Array2<f64>>,
        hidden: Activation,
        output: OutputActivation,
    }
    let raw = Raw {
        weights: vec![net.weights()[0].clone(), Array2::zeros((7, 2))], // 4 units below: 5 rows expected
        hidden: Activation::Sigmoid,
        output: OutputActivation::Softmax,
    };
    let config = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(raw, config).unwrap();
    let (bad, _): (Mlp, usize) = bincode::serde::decode_from_slice(&bytes, config).unwrap();
    pipeline.model = FittedModel::Mlp(bad);
    pipeline.save(&model).unwrap();
    let (_, error) = fails(&["predict", "--model-file", model.to_str().unwrap(), "--data", &pima]);
    assert!(
        error.contains("model file is corrupt") && error.contains("layer 2 of shape 7×2"),
        "{error}"
    );
}

/// `nn fit --help` documents the BPLS flags and defaults.
#[test]
fn help_lists_the_bpls_flags() {
    let out = nn().args(["fit", "--help"]).output().expect("run nn");
    let help = String::from_utf8_lossy(&out.stdout);
    for wanted in [
        "bpls",
        "--iterations",
        "--output-activation",
        "--learning-rate",
        "[default: 39, at most 40 epochs]",
        "[default: 128; Tomic et al. used 1",
        "[default: 40, Tomic et al.'s]",
        "[default: 0.001, Tomic et al.'s]",
        "1e-6 for bpls",
        "adagrad",
        "BPLS (--model bpls)",
    ] {
        assert!(help.contains(wanted), "{wanted:?} not in {help}");
    }
}
