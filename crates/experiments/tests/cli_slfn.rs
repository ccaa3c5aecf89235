//! `nn fit --model slfn` (Grippo et al.'s network with DEC, L-BFGS and their
//! ELM), through the user's door: the JSON, progress, save and predict, the
//! flags' checks, and every shipped CSV data set.

mod common;

use common::{data, nn, temp_dir};

fn fit_json(args: &[String]) -> (serde_json::Value, String) {
    let out = nn().arg("fit").args(args).output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "nn fit {args:?} failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    (serde_json::from_str(stdout.trim()).expect("one JSON object"), stderr)
}

fn args(file: &str, test: &str, task: &str, extra: &[&str]) -> Vec<String> {
    ["--train", file, "--test", test, "--task", task]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// DEC on pima: the JSON carries the objective, its trace (non-increasing,
/// one value per major iteration, printed on stderr too), and the saved
/// model's predictions reproduce the reported training accuracy.
#[test]
fn dec_fit_reports_its_objective_and_predicts_as_saved() {
    let dir = temp_dir("slfn");
    let model = dir.path().join("m.bin");
    let pima = data("pima/pima.csv.gz");
    let (j, stderr) = fit_json(&args(
        &pima,
        &pima,
        "classification",
        &[
            "--model",
            "slfn",
            "--hidden",
            "5",
            "--maxiter",
            "3",
            "--save",
            model.to_str().unwrap(),
        ],
    ));
    assert_eq!(j["model"], "slfn");
    assert_eq!(j["solver"], "DEC(3)");
    assert_eq!(j["activation"], "sigmoid");
    assert_eq!(j["lambda"], 1e-3);
    assert_eq!(j["iterations"], 3);
    let trace: Vec<f64> = j["objective_trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(trace.len(), 3);
    assert!(trace.windows(2).all(|t| t[1] <= t[0]), "{trace:?}");
    assert_eq!(j["objective"].as_f64().unwrap(), trace[2]);
    assert_eq!(stderr.matches("DEC(3) iteration").count(), 3, "{stderr}");
    // predict on the training file: the accuracy reported.
    let out = nn()
        .args(["predict", "--model-file", model.to_str().unwrap(), "--data", &pima])
        .output()
        .unwrap();
    assert!(out.status.success());
    let predicted: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let table = experiments::datasets::load_any(std::path::Path::new(&pima)).unwrap();
    let labels: Vec<String> = table.y.iter().map(|v| format!("{v}")).collect();
    let hits = predicted.iter().zip(&labels).filter(|(a, b)| a == b).count();
    let acc = hits as f64 / labels.len() as f64;
    assert!(
        (acc - j["train_metric"].as_f64().unwrap()).abs() < 1e-12,
        "{acc} vs {}",
        j["train_metric"]
    );
}

/// The two baselines run through the same door: L-BFGS for exactly the
/// iterations asked (E reported), the ELM without λ.
#[test]
fn lbfgs_and_elm_trainers() {
    let airfoil = data("airfoil/airfoil.csv.gz");
    let (j, _) = fit_json(&args(
        &airfoil,
        &airfoil,
        "regression",
        &[
            "--model",
            "slfn",
            "--hidden",
            "6",
            "--trainer",
            "lbfgs",
            "--maxiter",
            "40",
        ],
    ));
    assert_eq!(
        (j["solver"].as_str(), j["iterations"].as_u64()),
        (Some("lbfgs(40)"), Some(40))
    );
    assert!(j["objective"].as_f64().unwrap() > 0.0 && j.get("objective_trace").is_none());
    let (j, _) = fit_json(&args(
        &airfoil,
        &airfoil,
        "regression",
        &["--model", "slfn", "--hidden", "6", "--trainer", "elm"],
    ));
    assert_eq!(j["solver"], "elm");
    assert!(j.get("lambda").is_none());
}

#[test]
fn slfn_flags_are_checked() {
    let pima = data("pima/pima.csv.gz");
    let err = |extra: &[&str]| {
        let out = nn()
            .arg("fit")
            .args(args(&pima, &pima, "classification", extra))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?} should fail");
        assert!(out.stdout.is_empty());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let slfn = |extra: &[&str]| err(&[&["--model", "slfn", "--hidden", "3"], extra].concat());
    assert!(err(&["--model", "slfn"]).contains("--hidden is required with --model slfn"));
    assert!(slfn(&["--trainer", "elm", "--maxiter", "3"]).contains("--maxiter does not apply to --trainer elm"));
    assert!(slfn(&["--trainer", "elm", "--lambda", "0.1"]).contains("--lambda does not apply to --trainer elm"));
    assert!(slfn(&["--solver", "lstsq"]).contains("--solver does not apply to --model slfn"));
    assert!(slfn(&["--enhancement", "3"]).contains("--enhancement does not apply to --model slfn"));
    assert!(slfn(&["--tau-w=-1"]).contains("--tau-w -1: must be finite and ≥ 0"));
    assert!(slfn(&["--maxiter", "0"]).contains("at least 1"));
    assert!(slfn(&["--trainer", "newton"]).contains("'newton'"));
    let e = slfn(&["--lambda=-2"]);
    assert!(e.contains("tau_lambda = -2 is not admissible"), "{e}");
    let e = err(&["--model", "elm", "--hidden", "3", "--trainer", "dec"]);
    assert!(e.contains("--trainer does not apply to --model elm"), "{e}");
    let e = err(&["--model", "bls", "--maxiter", "3"]);
    assert!(e.contains("--maxiter does not apply to --model bls"), "{e}");
}

/// `nn fit --model slfn` on every shipped CSV file (DEC(2), 3 units), each
/// with its task: a finite metric and objective, no error.
#[test]
fn fits_every_shipped_csv_set() {
    let classification = [
        "magic",
        "musk1",
        "pima",
        "adult-train",
        "codrna-train",
        "ringnorm",
        "satellite-train",
    ];
    for name in experiments::datasets::names() {
        if name.starts_with("mnist") || name.ends_with("-test") || *name == "codrna-rest" {
            continue;
        }
        let file = experiments::datasets::shipped(name).unwrap();
        let file = file.to_str().unwrap();
        let task = if classification.contains(name) {
            "classification"
        } else {
            "regression"
        };
        let (j, _) = fit_json(&args(
            file,
            file,
            task,
            &["--model", "slfn", "--hidden", "3", "--maxiter", "2"],
        ));
        let (m, e) = (j["test_metric"].as_f64().unwrap(), j["objective"].as_f64().unwrap());
        assert!(m.is_finite() && e.is_finite() && e >= 0.0, "{name}: {j}");
    }
}

/// The same command reads LIBSVM text and IDX images (the loaders are the
/// other models'): a small two-class LIBSVM set and a four-class 2×2-pixel
/// IDX set, each fitted by DEC with a finite metric and a decreasing trace.
#[test]
fn reads_libsvm_and_idx_inputs() {
    let dir = temp_dir("slfn-formats");
    // LIBSVM: class by the sign of x1·x2, sparse lines.
    let mut text = String::new();
    for i in 0..120 {
        let (a, b) = (((i * 7) % 13) as f64 / 6.0 - 1.0, ((i * 5) % 11) as f64 / 5.0 - 1.0);
        let label = if a * b > 0.0 { "+1" } else { "-1" };
        text.push_str(&format!("{label} 1:{a} 3:{b}\n"));
    }
    let svm = dir.path().join("toy.svm");
    std::fs::write(&svm, text).unwrap();
    let svm = svm.to_str().unwrap();
    let (j, _) = fit_json(&args(
        svm,
        svm,
        "classification",
        &["--model", "slfn", "--hidden", "4", "--maxiter", "3"],
    ));
    assert_eq!((j["n_features"].as_u64(), j["classes"].as_u64()), (Some(3), Some(2)));
    assert!(j["test_metric"].as_f64().unwrap() > 0.5, "{j}");
    // IDX: 40 images of 2×2 pixels, the class is the brightest pixel.
    let (images, _) = common::toy_idx(dir.path(), 40);
    let images = images.to_str().unwrap();
    let (j, _) = fit_json(&args(
        images,
        images,
        "classification",
        &["--model", "slfn", "--hidden", "6", "--maxiter", "3"],
    ));
    assert_eq!((j["n_features"].as_u64(), j["classes"].as_u64()), (Some(4), Some(4)));
    let trace: Vec<f64> = j["objective_trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(trace.windows(2).all(|t| t[1] <= t[0]), "{trace:?}");
    assert!(j["train_metric"].as_f64().unwrap() > 0.5, "{j}");
}
