//! `nn fit --model elm|bls --weight-column NAME` (issue 41, item 4): a column of
//! sample weights in the training CSV, taken out of the features (and out of
//! the test file when it has one), weighting the fit, the input scaling and
//! the targets' standardization alike, so that integer weights fit what the
//! rows repeated fit; and its refusals.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{data, nn, run, temp_dir};

/// airfoil's rows as text: the header and the rows (target last).
fn airfoil() -> (Vec<String>, Vec<Vec<String>>) {
    let file = std::fs::File::open(data("airfoil/airfoil.csv.gz")).expect("shipped airfoil");
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip");
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().expect("a header").split(',').map(String::from).collect();
    let rows = lines.map(|l| l.split(',').map(String::from).collect()).collect();
    (header, rows)
}

/// Writes `header` and `rows` as a CSV file.
fn write_csv(path: &Path, header: &[String], rows: &[Vec<String>]) {
    let mut text = header.join(",") + "\n";
    for r in rows {
        text += &(r.join(",") + "\n");
    }
    std::fs::write(path, text).expect("write CSV");
}

/// `rows` with a weight column `w` inserted before the target.
fn with_weights(header: &[String], rows: &[Vec<String>], weights: &[String]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut h = header.to_vec();
    h.insert(h.len() - 1, "w".into());
    let rows = rows
        .iter()
        .zip(weights)
        .map(|(r, w)| {
            let mut r = r.clone();
            r.insert(r.len() - 1, w.clone());
            r
        })
        .collect();
    (h, rows)
}

/// airfoil's rows in `dir` three ways: with a weight column `w` of `count(i)`
/// for row `i`, each row repeated `count(i)` times, and as they are.
fn three_files(dir: &Path, count: impl Fn(usize) -> usize) -> (PathBuf, PathBuf, PathBuf) {
    let (header, rows) = airfoil();
    let counts: Vec<usize> = (0..rows.len()).map(count).collect();
    let (wh, wrows) = with_weights(
        &header,
        &rows,
        &counts.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
    );
    let weighted = dir.join("weighted.csv");
    write_csv(&weighted, &wh, &wrows);
    let repeated_rows: Vec<Vec<String>> = rows
        .iter()
        .zip(&counts)
        .flat_map(|(r, &c)| std::iter::repeat_n(r.clone(), c))
        .collect();
    let repeated = dir.join("repeated.csv");
    write_csv(&repeated, &header, &repeated_rows);
    let plain = dir.join("plain.csv");
    write_csv(&plain, &header, &rows);
    (weighted, repeated, plain)
}

/// The test RMSE of `nn fit --model elm --hidden 40` on `train` (extra flags
/// `more`), tested on the shipped airfoil file; and the JSON.
fn test_rmse(train: &Path, more: &[&str]) -> (f64, serde_json::Value) {
    test_rmse_of(&["--model", "elm", "--hidden", "40"], train, more)
}

/// [`test_rmse`] of the model `model` (its flags).
fn test_rmse_of(model: &[&str], train: &Path, more: &[&str]) -> (f64, serde_json::Value) {
    let test = data("airfoil/airfoil.csv.gz");
    let out = nn()
        .arg("fit")
        .args(model)
        .args(["--task", "regression", "--train"])
        .arg(train)
        .args(["--test", &test])
        .args(more)
        .output()
        .expect("run nn");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (json["test_metric"].as_f64().expect("a test RMSE"), json)
}

/// `nn fit --model elm --hidden 10 --task regression --train TRAIN --test
/// TEST` and `more`.
fn small_fit(train: &str, test: &str, more: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "fit",
        "--model",
        "elm",
        "--hidden",
        "10",
        "--task",
        "regression",
        "--train",
        train,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(["--test".to_string(), test.to_string()]);
    args.extend(more.iter().map(|s| s.to_string()));
    args
}

#[test]
fn integer_weights_fit_what_the_repeated_rows_fit() {
    let dir = temp_dir("weights");
    let (weighted_file, repeated_file, plain_file) = three_files(dir.path(), |i| (i * 7 + 2) % 4);

    for scale in ["zscore", "minmax"] {
        let (weighted, json) = test_rmse(&weighted_file, &["--weight-column", "w", "--scale", scale]);
        assert_eq!(json["weight_column"], "w");
        assert_eq!(json["n_features"], 5, "the weight column is not a feature: {json}");
        let (repeated, _) = test_rmse(&repeated_file, &["--scale", scale]);
        let (plain, _) = test_rmse(&plain_file, &["--scale", scale]);
        // The weights move the fit (the unweighted one is elsewhere) and the
        // weighted fit lands where the repeated rows' does: the two differ by
        // rounding only (the library's tests bound it), here a millionth of
        // what the weights change.
        assert!(
            (weighted - plain).abs() > 1e-3 * plain,
            "{scale}: {weighted} vs unweighted {plain}"
        );
        assert!(
            (weighted - repeated).abs() <= 1e-6 * (weighted - plain).abs(),
            "{scale}: weighted {weighted}, repeated {repeated}, unweighted {plain}"
        );
    }
}

/// The BLS takes the column as the ELM does: the weighted fit lands where
/// the repeated rows' does, away from the unweighted one.
#[test]
fn the_bls_weighs_its_rows_too() {
    let dir = temp_dir("weights-bls");
    let (weighted_file, repeated_file, plain_file) = three_files(dir.path(), |i| (i * 5 + 1) % 3);
    let bls = [
        "--model",
        "bls",
        "--feature-groups",
        "3",
        "--feature-nodes",
        "5",
        "--enhancement",
        "40",
        "--lambda",
        "1e-3",
    ];
    let (weighted, json) = test_rmse_of(&bls, &weighted_file, &["--weight-column", "w"]);
    assert_eq!(json["weight_column"], "w");
    assert_eq!(json["n_features"], 5, "the weight column is not a feature: {json}");
    let (repeated, _) = test_rmse_of(&bls, &repeated_file, &[]);
    let (plain, _) = test_rmse_of(&bls, &plain_file, &[]);
    assert!(
        (weighted - plain).abs() > 1e-3 * plain,
        "{weighted} vs unweighted {plain}"
    );
    assert!(
        (weighted - repeated).abs() <= 1e-6 * (weighted - plain).abs(),
        "weighted {weighted}, repeated {repeated}, unweighted {plain}"
    );
    let (code, _, err) = run(&[
        "fit",
        "--model",
        "bls",
        "--task",
        "regression",
        "--train",
        &weighted_file.display().to_string(),
        "--test",
        &data("airfoil/airfoil.csv.gz"),
        "--weight-column",
        "w",
        "--increments",
        "e10",
    ]);
    assert_ne!(code, Some(0));
    assert!(
        err.contains("--weight-column w") && err.contains("not with --increments"),
        "{err}"
    );
}

#[test]
fn the_test_files_weight_column_is_dropped_when_it_has_one() {
    let dir = temp_dir("weights-test-file");
    let (header, rows) = airfoil();
    let ones = vec!["1".to_string(); rows.len()];
    let (wh, wrows) = with_weights(&header, &rows, &ones);
    let file = dir.path().join("w.csv");
    write_csv(&file, &wh, &wrows);
    let f = file.display().to_string();
    let (code, out, err) = run(&small_fit(&f, &f, &["--weight-column", "w"]));
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    // All weights 1, tested on its own rows: the test RMSE is the training one.
    assert_eq!(json["test_metric"], json["train_metric"]);
}

#[test]
fn bad_weights_and_flags_are_refused_with_the_reason() {
    let dir = temp_dir("weights-bad");
    let (header, rows) = airfoil();
    let mut weights = vec!["1".to_string(); rows.len()];
    weights[4] = "-2".into();
    let (wh, wrows) = with_weights(&header, &rows, &weights);
    let bad = dir.path().join("bad.csv");
    write_csv(&bad, &wh, &wrows);
    let zeros = dir.path().join("zeros.csv");
    let (zh, zrows) = with_weights(&header, &rows, &vec!["0".to_string(); rows.len()]);
    write_csv(&zeros, &zh, &zrows);
    let test = data("airfoil/airfoil.csv.gz");
    let fit = |train: &Path, more: &[&str]| run(&small_fit(&train.display().to_string(), &test, more));
    let cases: Vec<(&Path, Vec<&str>, Vec<&str>)> = vec![
        (
            &bad,
            vec!["--weight-column", "w"],
            vec!["line 6", "weight -2", "\"w\"", ">= 0"],
        ),
        (
            &zeros,
            vec!["--weight-column", "w"],
            vec!["every weight in column \"w\" is 0"],
        ),
        (
            &bad,
            vec!["--weight-column", "weight"],
            vec!["no feature column named \"weight\"", "frequency_hz"],
        ),
        (&bad, vec!["--weight-column", "target"], vec!["it is the target"]),
        (
            &bad,
            vec!["--weight-column", "w", "--select-lambda", "loo"],
            vec!["--weight-column w", "not with --select-lambda or --grow-until-val"],
        ),
        (
            &bad,
            vec!["--weight-column", "w", "--solver", "chol2"],
            vec!["--weight-column w", "an incremental --solver"],
        ),
        (
            &bad,
            vec!["--weight-column", "w", "--updatable", "--save", "unused.bin"],
            vec!["not with --updatable or --chunk-rows"],
        ),
    ];
    for (train, more, needles) in cases {
        let (code, _, err) = fit(train, &more);
        assert_ne!(code, Some(0), "{more:?} must fail");
        for n in needles {
            assert!(err.contains(n), "{more:?}: {n:?} not in: {err}");
        }
    }
    // The flag is the ridge readouts': another model refuses it.
    let t = bad.display().to_string();
    let (code, _, err) = run(&[
        "fit",
        "--model",
        "slfn",
        "--hidden",
        "5",
        "--task",
        "regression",
        "--train",
        &t,
        "--test",
        &test,
        "--weight-column",
        "w",
    ]);
    assert_ne!(code, Some(0));
    assert!(err.contains("--weight-column"), "{err}");
}
