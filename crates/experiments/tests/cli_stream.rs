//! `nn fit --chunk-rows R` through the user's door: the streamed fit's
//! report and saved model against the in-memory fit's on the same files
//! (CSV, gzipped CSV, LIBSVM, IDX; regression and classification; the ELM
//! and the BLS; chunks of 1 row to more than the file), `--updatable` with
//! it, the errors of a bad line reported as the in-memory fit reports
//! them, and the flags' checks.

mod common;

use std::path::Path;

use common::{data, fails, nn, temp_dir, toy_idx};
use experiments::cli::{FittedModel, FittedPipeline};
use experiments::datasets::{load_any, read_table, ReadOptions};

fn fit_json(args: &[&str]) -> serde_json::Value {
    let out = nn().arg("fit").args(args).output().expect("run nn");
    assert!(
        out.status.success(),
        "nn fit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("one JSON object")
}

/// The predictions of two saved models on `file` (scaled by each one's own
/// scaler), and the largest difference.
fn largest_difference(a: &Path, b: &Path, file: &str) -> f64 {
    let table = read_table(file, &ReadOptions::default()).expect("read");
    let (pa, pb) = (FittedPipeline::load(a).expect("a"), FittedPipeline::load(b).expect("b"));
    let raw = |p: &FittedPipeline| {
        let x = p.scaler.transform(&table.x).expect("scale");
        match &p.model {
            FittedModel::Elm(m) => m.predict(x.view()).expect("predict"),
            FittedModel::Bls(m) => m.predict(x.view()).expect("predict"),
            FittedModel::OnlineElm(m) => m.model().predict(x.view()).expect("predict"),
            _ => panic!("not an ELM or BLS"),
        }
    };
    let (ya, yb) = (raw(&pa), raw(&pb));
    ya.iter().zip(&yb).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

/// The streamed fit of `args` with chunks of each size in `chunks` gives
/// the in-memory fit's metrics (to `digits` significant digits: the sums
/// only change order) and its model's outputs (within `tol`).
fn same_as_in_memory(args: &[&str], chunks: &[usize], tol: f64, digits: i32) {
    let dir = temp_dir("stream");
    let whole_model = dir.path().join("whole.bin");
    let mut a: Vec<&str> = args.to_vec();
    a.extend(["--save", whole_model.to_str().unwrap()]);
    let whole = fit_json(&a);
    let train = args[args.iter().position(|&s| s == "--train").unwrap() + 1];
    for &rows in chunks {
        let model = dir.path().join(format!("c{rows}.bin"));
        let r = rows.to_string();
        let mut b: Vec<&str> = args.to_vec();
        b.extend(["--chunk-rows", &r, "--save", model.to_str().unwrap()]);
        let streamed = fit_json(&b);
        assert_eq!(streamed["chunk_rows"].as_u64(), Some(rows as u64));
        assert_eq!(streamed["n_train"], whole["n_train"]);
        assert_eq!(streamed["n_test"], whole["n_test"]);
        for key in ["test_metric", "train_metric"] {
            let (s, w) = (streamed[key].as_f64().unwrap(), whole[key].as_f64().unwrap());
            assert!(
                (s - w).abs() <= 10f64.powi(-digits) * w.abs().max(1e-3),
                "{key}: streamed {s} vs {w} (chunks of {rows})"
            );
        }
        let d = largest_difference(&whole_model, &model, train);
        assert!(d <= tol, "chunks of {rows}: outputs differ by {d:.3e} > {tol:.1e}");
    }
}

#[test]
fn the_elm_from_chunks_is_the_in_memory_fit() {
    // Regression (gzipped CSV): airfoil, 1503 rows.
    let (train, test) = (data("airfoil/airfoil.csv.gz"), data("boston/boston.csv.gz"));
    let _ = test;
    same_as_in_memory(
        &[
            "--model",
            "elm",
            "--hidden",
            "80",
            "--lambda",
            "1e-3",
            "--task",
            "regression",
            "--train",
            &train,
            "--test",
            &train,
        ],
        &[1, 7, 500, 100_000],
        1e-8,
        9,
    );
    // Classification with named labels (CSV): pima.
    let pima = data("pima/pima.csv.gz");
    same_as_in_memory(
        &[
            "--model",
            "elm",
            "--hidden",
            "40",
            "--task",
            "classification",
            "--train",
            &pima,
            "--test",
            &pima,
            "--scale",
            "minmax",
        ],
        &[13, 1000],
        1e-8,
        12,
    );
}

#[test]
fn the_bls_from_chunks_and_other_formats() {
    let pima = data("pima/pima.csv.gz");
    same_as_in_memory(
        &[
            "--model",
            "bls",
            "--feature-groups",
            "2",
            "--feature-nodes",
            "4",
            "--enhancement",
            "30",
            "--lambda",
            "1e-4",
            "--task",
            "classification",
            "--train",
            &pima,
            "--test",
            &pima,
        ],
        &[50, 10_000],
        1e-6,
        6,
    );
    // IDX (a toy set of images and labels).
    let dir = temp_dir("stream-idx");
    let (images, _) = toy_idx(dir.path(), 40);
    let img = images.to_str().unwrap();
    same_as_in_memory(
        &[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--task",
            "classification",
            "--train",
            img,
            "--test",
            img,
        ],
        &[3, 64],
        1e-8,
        12,
    );
    // LIBSVM.
    let svm = dir.path().join("toy.libsvm");
    let table = load_any(Path::new(&pima)).expect("pima");
    let mut text = String::new();
    for (i, row) in table.x.rows().into_iter().enumerate() {
        text += &format!("{}", table.y[i]);
        for (j, v) in row.iter().enumerate() {
            if *v != 0.0 {
                text += &format!(" {}:{v}", j + 1);
            }
        }
        text += "\n";
    }
    std::fs::write(&svm, text).expect("write");
    let s = svm.to_str().unwrap();
    same_as_in_memory(
        &[
            "--model",
            "elm",
            "--hidden",
            "30",
            "--task",
            "classification",
            "--train",
            s,
            "--test",
            s,
        ],
        &[100],
        1e-8,
        12,
    );
}

#[test]
fn updatable_streamed_and_errors() {
    let dir = temp_dir("stream-errors");
    let airfoil = data("airfoil/airfoil.csv.gz");
    let model = dir.path().join("m.bin");
    let mo = model.to_str().unwrap();
    let r = fit_json(&[
        "--model",
        "elm",
        "--hidden",
        "20",
        "--task",
        "regression",
        "--train",
        &airfoil,
        "--test",
        &airfoil,
        "--chunk-rows",
        "100",
        "--updatable",
        "--save",
        mo,
    ]);
    assert_eq!(r["n_train"].as_u64(), Some(1503));
    let p = FittedPipeline::load(&model).expect("load");
    let FittedModel::OnlineElm(online) = &p.model else {
        panic!("not updatable")
    };
    assert_eq!(online.rows(), 1503);

    // A bad cell deep in the file: the same message as the in-memory fit.
    let bad = dir.path().join("bad.csv");
    let mut text = String::from("a,b,target\n");
    for i in 0..50 {
        text += &format!("{i},{},{}\n", i * 2, i % 3);
    }
    text += "7,x,1\n";
    std::fs::write(&bad, &text).expect("write");
    let b = bad.to_str().unwrap();
    let base = [
        "--model",
        "elm",
        "--hidden",
        "5",
        "--task",
        "regression",
        "--train",
        b,
        "--test",
        b,
    ];
    let (_, whole) = fails(&[&["fit"][..], &base].concat());
    let (_, streamed) = fails(&[&["fit"][..], &base, &["--chunk-rows", "8"]].concat());
    assert!(whole.contains("line 52"), "{whole}");
    assert_eq!(streamed, whole, "the streamed error is the in-memory one");

    // The flags' checks.
    let fit = |extra: &[&str]| {
        let base = ["fit", "--task", "regression", "--train", &airfoil, "--test", &airfoil];
        fails(&[&base[..], extra].concat()).1
    };
    assert!(fit(&["--model", "slfn", "--hidden", "3", "--chunk-rows", "10"])
        .contains("--chunk-rows does not apply to --model slfn"));
    assert!(fit(&[
        "--model",
        "elm",
        "--hidden",
        "3",
        "--solver",
        "alg3",
        "--chunk-rows",
        "10"
    ])
    .contains("--solver ridge"));
    assert!(fit(&["--model", "bls", "--increments", "e5", "--chunk-rows", "10"]).contains("no --increments"));
    assert!(fit(&["--model", "elm", "--hidden", "3", "--chunk-rows", "0"]).contains("0"));
    // --distributed: an error naming the missing feature in a build without
    // MPI; with it, outside mpirun, a world of one process (Open MPI's
    // singleton) that fits as --chunk-rows does.
    #[cfg(not(feature = "mpi"))]
    assert!(fit(&["--model", "elm", "--hidden", "3", "--distributed"]).contains("without MPI"));
    #[cfg(feature = "mpi")]
    {
        let r = fit_json(&[
            "--model",
            "elm",
            "--hidden",
            "3",
            "--task",
            "regression",
            "--train",
            &airfoil,
            "--test",
            &airfoil,
            "--distributed",
        ]);
        assert_eq!(
            (r["n_train"].as_u64(), r["chunk_rows"].as_u64()),
            (Some(1503), Some(10_000)),
            "{r}"
        );
    }
}
