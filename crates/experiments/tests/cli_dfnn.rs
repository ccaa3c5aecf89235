//! `nn fit --model dfnn` (Palagi & Seccia's deep network with B2LD, L-BFGS,
//! BLInG and IG), through the user's door: the JSON and its objective
//! recomputed from the saved model, progress, save and predict, the flags'
//! checks, and a model file whose layers do not chain.

mod common;

use std::path::{Path, PathBuf};

use common::{data, fails, nn, temp_dir};
use experiments::cli::{FittedModel, FittedPipeline};
use models::dfnn::{Bias, Dfnn};
use ndarray::{Array2, Axis};

fn fit_json(args: &[String]) -> (serde_json::Value, String) {
    let out = nn().arg("fit").args(args).output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "nn fit {args:?} failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    (serde_json::from_str(stdout.trim()).expect("one JSON object"), stderr)
}

fn args(file: &str, task: &str, extra: &[&str]) -> Vec<String> {
    ["--train", file, "--test", file, "--task", task]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// The first `rows` samples of the shipped CCPP set (4 features, regression)
/// as a CSV in `dir`, so that every trainer runs in well under a second.
fn ccpp_cut(dir: &Path, rows: usize) -> PathBuf {
    let ccpp = experiments::datasets::shipped("ccpp").expect("ccpp ships");
    let table = experiments::datasets::load_any(&ccpp).expect("ccpp loads");
    let mut text = String::from("AT,V,AP,RH,target\n");
    for (x, y) in table.x.rows().into_iter().zip(&table.y).take(rows) {
        let cells: Vec<String> = x.iter().map(f64::to_string).collect();
        text.push_str(&format!("{},{y}\n", cells.join(",")));
    }
    let path = dir.join("ccpp-cut.csv");
    std::fs::write(&path, text).expect("write the cut");
    path
}

/// The saved network and objective (3) recomputed from it, independently of
/// the trainer: `(1/P) Σ‖net(x_p) − y_p‖² + ρ‖w‖²` on the training file's
/// features scaled and targets standardized as the saved pipeline says.
fn saved_objective(model: &Path, train: &Path, rho: f64) -> (Dfnn, f64) {
    let pipeline = FittedPipeline::load(model).expect("the saved model loads");
    let FittedModel::Dfnn(net) = pipeline.model.clone() else {
        panic!("not a deep network")
    };
    let table = experiments::datasets::load_any(train).expect("training file");
    let x = pipeline.scaler.transform(&table.x).expect("scaled");
    let (mean, std) = pipeline.target_scale.expect("regression");
    let y = table.y.mapv(|v| (v - mean) / std).insert_axis(Axis(1));
    let out: Array2<f64> = net.predict(x.view()).expect("predict");
    let err: f64 = (&out - &y).mapv(|v| v * v).sum() / x.nrows() as f64;
    let norm: f64 = net.weights().iter().map(|w| w.mapv(|v| v * v).sum()).sum();
    (net, err + rho * norm)
}

/// Every trainer on 1200 CCPP samples, a 4-4-1 network, saved: the JSON's
/// fields, the objective equal to the one recomputed from the saved model,
/// one progress line per iteration (B2LD cycle, epoch), a non-increasing
/// trace for the batch methods, and `nn predict` reproducing the training
/// RMSE.
#[test]
fn every_trainer_fits_ccpp_and_reports_the_saved_models_objective() {
    let dir = temp_dir("dfnn");
    let train = ccpp_cut(dir.path(), 1200);
    let file = train.to_str().unwrap();
    for (trainer, extra) in [
        ("b2ld", &["--time-limit", "5"][..]),
        ("b2ld", &["--time-limit", "5", "--exact-last-layer"][..]),
        ("lbfgs", &["--time-limit", "5"][..]),
        ("bling", &["--max-epochs", "3", "--batch-size", "100"][..]),
        ("ig", &["--max-epochs", "3", "--batch-size", "100"][..]),
    ] {
        let model = dir.path().join(format!("{trainer}.bin"));
        let flags = [
            &[
                "--model",
                "dfnn",
                "--layers",
                "4,4",
                "--trainer",
                trainer,
                "--seed",
                "3",
            ][..],
            extra,
            &["--save", model.to_str().unwrap()],
        ]
        .concat();
        let (j, stderr) = fit_json(&args(file, "regression", &flags));
        let what = format!("{trainer} {extra:?}: {j}");
        assert_eq!(j["model"], "dfnn", "{what}");
        assert_eq!(j["solver"], trainer, "{what}");
        assert_eq!(j["activation"], "sigmoid", "{what}");
        assert_eq!((j["hidden"].as_u64(), j["seed"].as_u64()), (Some(8), Some(3)), "{what}");
        assert_eq!(j["layers"], serde_json::json!([4, 4, 1]), "{what}");
        assert!(j["termination"].as_str().is_some_and(|t| !t.is_empty()), "{what}");
        let updates = j["updates_per_layer"].as_array().expect("updates_per_layer");
        assert_eq!(updates.len(), 3, "two hidden layers and the output layer: {what}");
        let iterations = j["iterations"].as_u64().expect("iterations");
        let (objective, gradient) = (j["objective"].as_f64().unwrap(), j["gradient_norm"].as_f64().unwrap());
        assert!(
            objective.is_finite() && objective > 0.0 && gradient.is_finite(),
            "{what}"
        );

        // ρ defaults to the paper's 1e-3 / weights: (4·5 + 4·5 + 1·5) = 45.
        let rho = j["lambda"].as_f64().unwrap();
        assert!((rho - 1e-3 / 45.0).abs() < 1e-18, "{what}");
        let (net, recomputed) = saved_objective(&model, &train, rho);
        assert_eq!((net.widths(), net.bias()), (vec![4, 4, 1], Bias::Every));
        assert!(
            (objective - recomputed).abs() <= 1e-10 * recomputed,
            "{what}: reported {objective}, recomputed {recomputed}"
        );

        let trace = floats(&j["objective_trace"]);
        let seconds = floats(&j["trace_seconds"]);
        assert_eq!(trace.len(), seconds.len(), "{what}");
        assert!(trace[0] > objective, "the fit decreased f: {what}");
        assert!(seconds.windows(2).all(|s| s[1] >= s[0]), "{what}");
        match trainer {
            "b2ld" | "lbfgs" => {
                assert!(trace.windows(2).all(|t| t[1] <= t[0]), "{what}");
                assert!(iterations >= 1, "{what}");
            }
            _ => {
                // 12 minibatches of 100 per epoch, every layer each time.
                assert_eq!(iterations, 3, "{what}");
                assert_eq!(trace.len(), 4, "the start and three epochs: {what}");
                assert!(updates.iter().all(|u| u.as_u64() == Some(36)), "{what}");
                assert_eq!(*trace.last().unwrap(), objective, "{what}");
            }
        }
        if trainer != "lbfgs" {
            let unit = if trainer == "b2ld" { "cycle" } else { "epoch" };
            let lines = stderr.matches(&format!("nn fit: {trainer} {unit} ")).count();
            assert_eq!(lines as u64, iterations, "{stderr}");
        }

        // predict on the training file: the RMSE reported.
        let out = nn()
            .args(["predict", "--model-file", model.to_str().unwrap(), "--data", file])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let predicted: Vec<f64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        let table = experiments::datasets::load_any(&train).unwrap();
        let mse = predicted
            .iter()
            .zip(&table.y)
            .map(|(p, y)| (p - y) * (p - y))
            .sum::<f64>()
            / 1200.0;
        let rmse = j["train_metric"].as_f64().unwrap();
        assert!(
            (mse.sqrt() - rmse).abs() <= 1e-9 * rmse,
            "{what}: {} vs {rmse}",
            mse.sqrt()
        );
    }
}

/// `--time-limit` stops B2LD (here before its first block: 1 µs) and
/// L-BFGS; the trace then ends at the objective reported.
#[test]
fn a_time_limit_stops_the_fit_and_the_trace_ends_at_its_result() {
    let dir = temp_dir("dfnn-time");
    let train = ccpp_cut(dir.path(), 300);
    for trainer in ["b2ld", "lbfgs", "bling"] {
        let (j, _) = fit_json(&args(
            train.to_str().unwrap(),
            "regression",
            &[
                "--model",
                "dfnn",
                "--layers",
                "6,6",
                "--trainer",
                trainer,
                "--time-limit",
                "0.000001",
            ],
        ));
        assert_eq!(j["termination"], "time limit reached", "{trainer}: {j}");
        let trace = floats(&j["objective_trace"]);
        assert_eq!(trace.last().copied(), j["objective"].as_f64(), "{trainer}: {j}");
    }
}

/// Classification (pima, two classes) without biases and with `--lambda`:
/// two outputs, no bias column, ρ as given; the saved model predicts the
/// reported training accuracy.
#[test]
fn classification_without_biases_and_a_given_rho() {
    let dir = temp_dir("dfnn-class");
    let model = dir.path().join("m.bin");
    let pima = data("pima/pima.csv.gz");
    let (j, _) = fit_json(&args(
        &pima,
        "classification",
        &[
            "--model",
            "dfnn",
            "--layers",
            "3",
            "--trainer",
            "bling",
            "--max-epochs",
            "4",
            "--no-bias",
            "--lambda",
            "0.0001",
            "--save",
            model.to_str().unwrap(),
        ],
    ));
    assert_eq!((j["classes"].as_u64(), j["lambda"].as_f64()), (Some(2), Some(1e-4)));
    assert_eq!(j["layers"], serde_json::json!([3, 2]));
    assert_eq!(j["updates_per_layer"].as_array().map(Vec::len), Some(2));
    let pipeline = FittedPipeline::load(&model).unwrap();
    let FittedModel::Dfnn(net) = &pipeline.model else {
        panic!("not a deep network")
    };
    assert_eq!(net.bias(), Bias::None);
    assert_eq!((net.weights()[0].ncols(), net.weights()[1].ncols()), (8, 3));
    let out = nn()
        .args(["predict", "--model-file", model.to_str().unwrap(), "--data", &pima])
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = experiments::datasets::load_any(Path::new(&pima)).unwrap();
    let predicted = String::from_utf8_lossy(&out.stdout);
    let hits = predicted
        .lines()
        .zip(&table.y)
        .filter(|(p, y)| *p == format!("{y}"))
        .count();
    let acc = hits as f64 / table.y.len() as f64;
    assert!(
        (acc - j["train_metric"].as_f64().unwrap()).abs() < 1e-12,
        "{acc} vs {j}"
    );
    assert!(acc > 0.6, "{acc}");
}

/// Every bad combination is one `nn: error:` line naming the flag, before
/// any data is read.
#[test]
fn bad_flags_are_usage_errors_naming_the_flag() {
    let pima = data("pima/pima.csv.gz");
    let run = |model: &str, extra: &[&str]| {
        let mut a = vec!["fit".to_string()];
        a.extend(args(
            &pima,
            "classification",
            &[&["--model", model][..], extra].concat(),
        ));
        fails(&a).1
    };
    let dfnn = |extra: &[&str]| run("dfnn", &[&["--layers", "3"][..], extra].concat());
    let cases: Vec<(String, &str)> = vec![
        (run("dfnn", &["--layers", "0"]), "--layers"),
        (run("dfnn", &["--layers", "0"]), "width 1 is 0"),
        (run("dfnn", &["--layers", "5,,5"]), "--layers"),
        (run("dfnn", &["--layers", "5,,5"]), "width 2 is empty"),
        (run("dfnn", &["--layers", "5,x"]), "'x'"),
        (run("dfnn", &[]), "--layers is required with --model dfnn"),
        (
            dfnn(&["--batch-size", "8"]),
            "--batch-size does not apply to --trainer b2ld",
        ),
        (
            dfnn(&["--trainer", "lbfgs", "--max-epochs", "2"]),
            "--max-epochs does not apply to --trainer lbfgs",
        ),
        (
            dfnn(&["--trainer", "ig", "--exact-last-layer"]),
            "--exact-last-layer does not apply to --trainer ig",
        ),
        (
            dfnn(&["--trainer", "dec"]),
            "--trainer dec does not apply to --model dfnn",
        ),
        (dfnn(&["--trainer", "elm"]), "its trainers are b2ld, lbfgs, bling, ig"),
        (dfnn(&["--trainer", "newton"]), "'newton'"),
        (dfnn(&["--time-limit", "0"]), "--time-limit"),
        (dfnn(&["--time-limit=-1"]), "--time-limit"),
        (dfnn(&["--time-limit", "inf"]), "--time-limit"),
        (dfnn(&["--batch-size", "0", "--trainer", "ig"]), "--batch-size"),
        (dfnn(&["--lambda=-1"]), "--lambda -1: ρ must be finite and ≥ 0"),
        (dfnn(&["--hidden", "3"]), "--hidden does not apply to --model dfnn"),
        (dfnn(&["--maxiter", "3"]), "--maxiter does not apply to --model dfnn"),
        (dfnn(&["--tau-w", "0.1"]), "--tau-w does not apply to --model dfnn"),
        (dfnn(&["--solver", "lstsq"]), "--solver does not apply to --model dfnn"),
        (dfnn(&["--f32"]), "--f32 does not apply to --model dfnn"),
        (
            run("slfn", &["--hidden", "3", "--trainer", "b2ld"]),
            "--trainer b2ld does not apply to --model slfn",
        ),
        (
            run("slfn", &["--hidden", "3", "--trainer", "bling"]),
            "its trainers are dec, lbfgs, elm",
        ),
        (
            run("slfn", &["--hidden", "3", "--layers", "3"]),
            "--layers does not apply to --model slfn",
        ),
        (
            run("elm", &["--hidden", "3", "--time-limit", "1"]),
            "--time-limit does not apply to --model elm",
        ),
        (run("bls", &["--no-bias"]), "--no-bias does not apply to --model bls"),
        (
            run("bls", &["--trainer", "b2ld"]),
            "--trainer does not apply to --model bls",
        ),
    ];
    for (error, wanted) in cases {
        assert!(error.contains(wanted), "{wanted:?} not in {error:?}");
    }
}

/// A model file whose deep network's layers do not chain (as only a crafted
/// file can hold: the checksum is right) is refused by `nn predict`, naming
/// the layer, never a panic.
#[test]
fn a_saved_network_whose_layers_do_not_chain_is_refused() {
    let dir = temp_dir("dfnn-bad");
    let train = ccpp_cut(dir.path(), 200);
    let model = dir.path().join("m.bin");
    fit_json(&args(
        train.to_str().unwrap(),
        "regression",
        &[
            "--model",
            "dfnn",
            "--layers",
            "3,2",
            "--trainer",
            "ig",
            "--max-epochs",
            "1",
            "--save",
            model.to_str().unwrap(),
        ],
    ));
    let mut pipeline = FittedPipeline::load(&model).unwrap();
    let FittedModel::Dfnn(net) = &pipeline.model else {
        panic!("not a deep network")
    };
    #[derive(serde::Serialize)]
    struct Raw {
        weights: Vec<Array2<f64>>,
        bias: Bias,
    }
    let mut weights = net.weights().to_vec();
    weights[1] = Array2::zeros((2, 5)); // 3 units below: 4 columns expected
    let config = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(
        Raw {
            weights,
            bias: Bias::Every,
        },
        config,
    )
    .unwrap();
    let (bad, _): (Dfnn, usize) = bincode::serde::decode_from_slice(&bytes, config).unwrap();
    pipeline.model = FittedModel::Dfnn(bad);
    pipeline.save(&model).unwrap();
    let (_, error) = fails(&[
        "predict",
        "--model-file",
        model.to_str().unwrap(),
        "--data",
        train.to_str().unwrap(),
    ]);
    assert!(
        error.contains("model file is corrupt: layer 2 of the deep network has 5 weight columns for 3 inputs"),
        "{error}"
    );
}

/// `nn fit --help` documents the DFNN's flags and defaults.
#[test]
fn help_lists_the_dfnn_flags() {
    let out = nn().args(["fit", "--help"]).output().expect("run nn");
    let help = String::from_utf8_lossy(&out.stdout);
    for wanted in [
        "--layers",
        "--time-limit",
        "--batch-size",
        "--max-epochs",
        "--exact-last-layer",
        "--no-bias",
        "b2ld",
        "bling",
        "10⁻³ / (number of weights) for dfnn",
        "uniform on [−0.5, 0.5]",
        "[default: 128]",
        "[default: 100]",
        "DFNN (--model dfnn)",
    ] {
        assert!(help.contains(wanted), "{wanted:?} not in {help}");
    }
}

/// B2LD's cycle rule from the command line: `--cycle-tolerance 0
/// --max-cycles 4` runs exactly 4 cycles (the paper's own rules do not
/// stop a fit that short here); a loose rule stops at the first cycle `k`
/// whose window of 5 cycles gained at most `T·f_k`, read off the JSON's
/// objective trace, and not before; the default stops within
/// `--max-cycles`' default of 200.
#[test]
fn the_cycle_rule_and_the_cycle_limit_from_the_command_line() {
    let dir = temp_dir("dfnn-cycles");
    let train = ccpp_cut(dir.path(), 600);
    let file = train.to_str().expect("utf-8 path");
    let run = |extra: &[&str]| {
        let mut flags = vec!["--model", "dfnn", "--layers", "6,4", "--seed", "2"];
        flags.extend_from_slice(extra);
        fit_json(&args(file, "regression", &flags)).0
    };
    let fixed = run(&["--cycle-tolerance", "0", "--max-cycles", "4"]);
    assert_eq!(fixed["iterations"], 4, "{fixed}");
    assert_eq!(fixed["termination"], "iteration limit reached", "{fixed}");
    let loose = run(&["--cycle-tolerance", "0.5", "--max-cycles", "50"]);
    assert_eq!(loose["termination"], "relative decrease below tolerance", "{loose}");
    let f = floats(&loose["objective_trace"]);
    let k = f.len() - 1;
    assert_eq!(loose["iterations"], k, "{loose}");
    let met = |j: usize| j >= 5 && f[j - 5] - f[j] <= 0.5 * f[j];
    assert!(met(k), "the rule holds where the fit stopped: {f:?}");
    assert!((0..k).all(|j| !met(j)), "and at no earlier cycle: {f:?}");
    let default = run(&[]);
    let cycles = default["iterations"].as_u64().expect("iterations");
    assert!((1..=200).contains(&cycles), "{default}");
}
