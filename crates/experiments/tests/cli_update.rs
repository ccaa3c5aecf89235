//! `nn fit … --updatable` then `nn update --add/--forget`, through the
//! user's door: the updated weights solve the normal equations of the rows
//! kept (formed here by plain loops from the saved hidden layer, scaler and
//! target scale), for the ELM and the BLS, regression and classification
//! with named labels; a file's rows forgotten return to the first fit; the
//! errors name the file and leave the model file as it was.

mod common;

use std::path::{Path, PathBuf};

use common::{data, fails, nn, temp_dir};
use experiments::cli::{FittedModel, FittedPipeline, TaskKind};
use experiments::datasets::{load_any, one_hot, read_table, ReadOptions};
use models::LinearReadout;
use ndarray::{concatenate, Array2, Axis};

/// The first `n` data lines of a shipped CSV after `skip`, with its header,
/// written to `dir/name`.
fn part(dir: &Path, source: &str, name: &str, skip: usize, n: usize) -> PathBuf {
    part_labelled(dir, source, name, skip, n, |v| format!("{v:e}"))
}

/// [`part`] with each target written as `label` says (names for classes).
fn part_labelled(dir: &Path, source: &str, name: &str, skip: usize, n: usize, label: fn(f64) -> String) -> PathBuf {
    let table = load_any(Path::new(source)).expect("shipped file");
    let header: Vec<String> = table
        .feature_names
        .clone()
        .unwrap_or_default()
        .into_iter()
        .chain(["target".to_string()])
        .collect();
    let mut text = header.join(",") + "\n";
    for i in skip..skip + n {
        let row: Vec<String> = table.x.row(i).iter().map(|v| format!("{v:e}")).collect();
        text += &format!("{},{}\n", row.join(","), label(table.y[i]));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write part");
    path
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = nn().args(args).output().expect("run nn");
    assert!(
        out.status.success(),
        "nn {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("one JSON object")
}

/// `(A, Y, W, λ)` of a saved updatable model on the rows of `files`: hidden
/// outputs of the scaled features, the targets as fitted (one-hot, or
/// standardized), the saved weights.
fn system(model: &Path, files: &[&Path]) -> (Array2<f64>, Array2<f64>, Array2<f64>, f64) {
    let p = FittedPipeline::load(model).expect("load");
    // The hidden outputs of scaled features, the weights and λ.
    type Readout<'a> = &'a dyn Fn(&Array2<f64>) -> (Array2<f64>, Array2<f64>, f64);
    let readout: Readout<'_> = &|x| match &p.model {
        FittedModel::OnlineElm(m) => (
            m.model().hidden_outputs(x.view()).expect("h"),
            m.model().output_weights().to_owned(),
            m.model().lambda(),
        ),
        FittedModel::OnlineBls(m) => (
            m.model().hidden_outputs(x.view()).expect("h"),
            LinearReadout::output_weights(m.model()).to_owned(),
            LinearReadout::lambda(m.model()),
        ),
        _ => panic!("not an updatable model"),
    };
    let (mut a_all, mut y_all, mut w_lambda) = (Vec::new(), Vec::new(), None);
    for f in files {
        let table = read_table(f, &ReadOptions::default()).expect("read");
        let x = p.scaler.transform(&table.x).expect("scale");
        let y = match (p.task, &p.labels) {
            (TaskKind::Classification, Some(labels)) => {
                one_hot(&labels.encode(&table, None).expect("labels"), labels.len()).expect("one-hot")
            }
            _ => {
                let (mean, std) = p.target_scale.expect("target scale");
                table
                    .numeric_targets()
                    .expect("targets")
                    .mapv(|v| (v - mean) / std)
                    .insert_axis(Axis(1))
            }
        };
        let (a, w, lambda) = readout(&x);
        a_all.push(a);
        y_all.push(y);
        w_lambda = Some((w, lambda));
    }
    let views: Vec<_> = a_all.iter().map(|a| a.view()).collect();
    let yv: Vec<_> = y_all.iter().map(|y| y.view()).collect();
    let (w, lambda) = w_lambda.expect("a file");
    (
        concatenate(Axis(0), &views).expect("A"),
        concatenate(Axis(0), &yv).expect("Y"),
        w,
        lambda,
    )
}

/// `‖(AᵀA + λI)W − AᵀY‖_F` with the products by plain loops, and its
/// bound: a backward-stable solve of a system formed in floating point
/// leaves a residual of at most `γ(‖A‖²‖W‖ + ‖A‖‖Y‖)` for each formation
/// (the program's and this test's, γ = (K + n)ε; `‖·‖₂ ≤ ‖·‖_F`), plus
/// `γλ‖W‖` — no condition number enters a residual.
fn residual_and_bound(a: &Array2<f64>, y: &Array2<f64>, w: &Array2<f64>, lambda: f64) -> (f64, f64) {
    let (k, n) = a.dim();
    let m = y.ncols();
    let mut res = 0.0;
    for i in 0..n {
        for c in 0..m {
            let mut s = 0.0;
            for j in 0..n {
                let mut g = 0.0;
                for r in 0..k {
                    g += a[[r, i]] * a[[r, j]];
                }
                if i == j {
                    g += lambda;
                }
                s += g * w[[j, c]];
            }
            let mut b = 0.0;
            for r in 0..k {
                b += a[[r, i]] * y[[r, c]];
            }
            res += (s - b) * (s - b);
        }
    }
    let fro = |m: &Array2<f64>| m.iter().map(|v| v * v).sum::<f64>().sqrt();
    let gamma = (k + n) as f64 * f64::EPSILON;
    let bound = 2.0 * 2.0 * gamma * (fro(a) * fro(a) * fro(w) + fro(a) * fro(y) + lambda * fro(w));
    (res.sqrt(), bound)
}

/// Whether the saved weights solve the ridge system of the rows of `files`
/// (the residual and its bound, for the message).
fn solves(model: &Path, files: &[&Path]) -> (bool, f64, f64) {
    let (a, y, w, lambda) = system(model, files);
    let (r, bound) = residual_and_bound(&a, &y, &w, lambda);
    (r <= bound, r, bound)
}

fn check_solves(model: &Path, files: &[&Path], what: &str) {
    let (ok, r, bound) = solves(model, files);
    assert!(ok, "{what}: residual {r:.3e} > {bound:.3e}");
}

#[test]
fn elm_regression_rows_added_then_forgotten() {
    let dir = temp_dir("update-elm");
    let src = data("airfoil/airfoil.csv.gz");
    let first = part(dir.path(), &src, "first.csv", 0, 600);
    let more = part(dir.path(), &src, "more.csv", 600, 400);
    let test = part(dir.path(), &src, "test.csv", 1000, 300);
    let model = dir.path().join("m.bin");
    let (f, m, t, mo) = (
        first.to_str().unwrap(),
        more.to_str().unwrap(),
        test.to_str().unwrap(),
        model.to_str().unwrap(),
    );
    run_json(&[
        "fit",
        "--model",
        "elm",
        "--hidden",
        "60",
        "--task",
        "regression",
        "--train",
        f,
        "--test",
        t,
        "--updatable",
        "--save",
        mo,
    ]);
    check_solves(&model, &[&first], "first fit");
    // The check can fail: the first fit's weights do not solve the system
    // of more rows.
    let (ok, r, bound) = solves(&model, &[&first, &more]);
    assert!(
        !ok,
        "the first fit solves the union's system? residual {r:.3e} ≤ {bound:.3e}"
    );
    let r = run_json(&[
        "update",
        "--model-file",
        mo,
        "--add",
        m,
        "--test",
        t,
        "--chunk-rows",
        "37",
    ]);
    assert_eq!(
        (r["rows_before"].as_u64(), r["rows_after"].as_u64()),
        (Some(600), Some(1000)),
        "{r}"
    );
    assert_eq!(r["steps"][0]["rows"].as_u64(), Some(400));
    assert!(r["test_metric"].as_f64().is_some_and(f64::is_finite), "{r}");
    check_solves(&model, &[&first, &more], "after --add");
    // Predictions through `nn predict` are the updated model's.
    let out = nn()
        .args(["predict", "--model-file", mo, "--data", t])
        .output()
        .expect("predict");
    assert!(out.status.success());
    let r = run_json(&["update", "--model-file", mo, "--forget", m, "--chunk-rows", "50"]);
    assert_eq!(r["rows_after"].as_u64(), Some(600), "{r}");
    check_solves(&model, &[&first], "after --forget");
}

#[test]
fn bls_and_labelled_classification_update() {
    let dir = temp_dir("update-bls");
    let src = data("pima/pima.csv.gz");
    let name = |v: f64| {
        if v > 0.5 {
            "diabetic".to_string()
        } else {
            "healthy".to_string()
        }
    };
    let first = part_labelled(dir.path(), &src, "first.csv", 0, 400, name);
    let more = part_labelled(dir.path(), &src, "more.csv", 400, 200, name);
    let test = part_labelled(dir.path(), &src, "test.csv", 600, 160, name);
    let model = dir.path().join("m.bin");
    let out2 = dir.path().join("m2.bin");
    let (f, m, t, mo, o2) = (
        first.to_str().unwrap(),
        more.to_str().unwrap(),
        test.to_str().unwrap(),
        model.to_str().unwrap(),
        out2.to_str().unwrap(),
    );
    run_json(&[
        "fit",
        "--model",
        "bls",
        "--feature-groups",
        "2",
        "--feature-nodes",
        "4",
        "--enhancement",
        "40",
        "--lambda",
        "1e-4",
        "--task",
        "classification",
        "--train",
        f,
        "--test",
        t,
        "--updatable",
        "--save",
        mo,
    ]);
    let before = std::fs::read(&model).expect("model bytes");
    let r = run_json(&["update", "--model-file", mo, "--add", m, "--save", o2, "--test", t]);
    assert_eq!(r["model"].as_str(), Some("bls"));
    assert_eq!(
        std::fs::read(&model).expect("model bytes"),
        before,
        "--save leaves --model-file alone"
    );
    check_solves(&out2, &[&first, &more], "BLS after --add");
    let p = FittedPipeline::load(&out2).expect("load");
    assert_eq!(p.labels.as_ref().and_then(|l| l.label(0)).as_deref(), Some("diabetic"));
    // A label the model does not know is named with its line.
    let odd = dir.path().join("odd.csv");
    let text = std::fs::read_to_string(&more)
        .expect("text")
        .replacen("healthy", "unknown", 1);
    std::fs::write(&odd, text).expect("write");
    let (_, e) = fails(&["update", "--model-file", o2, "--add", odd.to_str().unwrap()]);
    assert!(e.contains("class label \"unknown\"") && e.contains("line"), "{e}");
}

#[test]
fn update_errors_are_named_and_change_nothing() {
    let dir = temp_dir("update-errors");
    let src = data("airfoil/airfoil.csv.gz");
    let first = part(dir.path(), &src, "first.csv", 0, 300);
    let test = part(dir.path(), &src, "test.csv", 300, 100);
    let plain = dir.path().join("plain.bin");
    let model = dir.path().join("m.bin");
    let (f, t, p, mo) = (
        first.to_str().unwrap(),
        test.to_str().unwrap(),
        plain.to_str().unwrap(),
        model.to_str().unwrap(),
    );
    run_json(&[
        "fit",
        "--model",
        "elm",
        "--hidden",
        "30",
        "--task",
        "regression",
        "--train",
        f,
        "--test",
        t,
        "--save",
        p,
    ]);
    let (_, e) = fails(&["update", "--model-file", p, "--add", t]);
    assert!(e.contains("was not saved with --updatable"), "{e}");
    run_json(&[
        "fit",
        "--model",
        "elm",
        "--hidden",
        "30",
        "--task",
        "regression",
        "--train",
        f,
        "--test",
        t,
        "--updatable",
        "--save",
        mo,
    ]);
    let before = std::fs::read(&model).expect("bytes");
    let (_, e) = fails(&["update", "--model-file", mo]);
    assert!(e.contains("nothing to update"), "{e}");
    // Rows never added, far larger than any in the fit: indefinite.
    let big = dir.path().join("big.csv");
    let text = std::fs::read_to_string(&test).expect("test text");
    let scaled: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.to_string()
            } else {
                l.split(',')
                    .map(|c| format!("{:e}", 1e3 * c.parse::<f64>().expect("number")))
                    .collect::<Vec<_>>()
                    .join(",")
            }
        })
        .collect();
    std::fs::write(&big, scaled.join("\n") + "\n").expect("write");
    let (_, e) = fails(&["update", "--model-file", mo, "--forget", big.to_str().unwrap()]);
    assert!(e.contains("not positive definite"), "{e}");
    // A file of another width names both.
    let (_, e) = fails(&["update", "--model-file", mo, "--add", &data("boston/boston.csv.gz")]);
    assert!(e.contains("boston"), "{e}");
    assert_eq!(
        std::fs::read(&model).expect("bytes"),
        before,
        "a failed update leaves the model file as it was"
    );
    // --updatable: only the ELM's and BLS's ridge readouts, with --save.
    let fit = |extra: &[&str]| {
        let base = [
            "fit",
            "--task",
            "regression",
            "--train",
            f,
            "--test",
            t,
            "--hidden",
            "5",
        ];
        fails(&[&base[..], extra].concat()).1
    };
    let e = fit(&["--model", "slfn", "--updatable", "--save", mo]);
    assert!(e.contains("--updatable does not apply to --model slfn"), "{e}");
    let e = fit(&["--model", "elm", "--solver", "lstsq", "--updatable", "--save", mo]);
    assert!(e.contains("--updatable needs a ridge readout"), "{e}");
    let e = fit(&["--model", "elm", "--updatable"]);
    assert!(e.contains("--save"), "{e}");
}
