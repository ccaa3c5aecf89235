//! Bad model files and non-finite results through `nn` (issue 16): a
//! damaged, truncated or extended `--save` file, and a pipeline whose scaler,
//! target scale, classes or task do not fit its model, end in one clear error
//! line and exit code 1; targets near 1e200 give finite metrics; a prediction
//! that overflows is an error naming the file and line, never a non-finite
//! value with exit code 0.

mod common;

use common::nn;

use std::path::{Path, PathBuf};
use std::process::Output;
use test_support::FlipCounts;

use experiments::cli::{FittedPipeline, InputScaler, TaskKind};
use experiments::datasets::{self, MinMaxScaler, StandardScaler};
use ndarray::Array2;

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("nn-bad-models-")
        .tempdir()
        .expect("a temporary directory")
}

/// A CSV of `rows` samples of 3 features and a target (`f(row)`), with a
/// header; `extra` rows are appended as written.
fn write_csv(path: &Path, rows: usize, target: impl Fn(usize, &[f64; 3]) -> f64, extra: &[&str]) {
    let mut text = String::from("a,b,c,target\n");
    for i in 0..rows {
        let x = [i as f64 / 10.0, ((i * 7) % 13) as f64 / 5.0, ((i * 3) % 5) as f64 - 2.0];
        text.push_str(&format!("{},{},{},{}\n", x[0], x[1], x[2], target(i, &x)));
    }
    for line in extra {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(path, text).expect("write CSV");
}

fn smooth(_: usize, x: &[f64; 3]) -> f64 {
    x[0] + 2.0 * x[1] - x[2] * x[0] + 0.5
}

fn class(i: usize, _: &[f64; 3]) -> f64 {
    (i % 3) as f64
}

fn run(args: &[&str]) -> Output {
    nn().args(args).output().expect("run nn")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}

/// `nn fit … --save MODEL` must succeed; returns the JSON report.
fn fit_ok(args: &[&str]) -> serde_json::Value {
    let out = run(&[&["fit"], args].concat());
    assert!(out.status.success(), "nn fit failed: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// A failure with exit code 1, nothing on stdout and, after `nn fit`'s
/// progress lines (`nn fit: …`), one line on stderr starting `nn: error: `;
/// returns that line.
fn fails(out: &Output) -> String {
    let all = stderr(out);
    assert_eq!(out.status.code(), Some(1), "exit code: {all}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let rest: Vec<&str> = all.lines().filter(|l| !l.starts_with("nn fit: ")).collect();
    assert_eq!(rest.len(), 1, "one error line: {all}");
    assert!(rest[0].starts_with("nn: error: "), "{all}");
    rest[0].to_string()
}

fn predict(model: &Path, data: &Path) -> Output {
    nn().args(["predict", "--model-file"])
        .arg(model)
        .arg("--data")
        .arg(data)
        .output()
        .expect("run nn")
}

fn predictions(model: &Path, data: &Path) -> Vec<f64> {
    let out = predict(model, data);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().expect("a number per line"))
        .collect()
}

struct Saved {
    _dir: tempfile::TempDir,
    train: PathBuf,
    model: PathBuf,
}

/// A pipeline fitted on 30 samples of `target` (as training and test file)
/// with `task` and the model flags `model_flags`, saved as `name`.
fn saved(name: &str, target: fn(usize, &[f64; 3]) -> f64, task: &str, model_flags: &[&str]) -> Saved {
    let dir = tempdir();
    let train = dir.path().join("train.csv");
    let model = dir.path().join(name);
    write_csv(&train, 30, target, &[]);
    let (t, m) = (train.to_str().expect("UTF-8 path"), model.to_str().expect("UTF-8 path"));
    let common = ["--train", t, "--test", t, "--task", task, "--threads", "1", "--save", m];
    fit_ok(&[model_flags, &common[..]].concat());
    Saved {
        _dir: dir,
        train,
        model,
    }
}

/// A saved ELM regression pipeline (5 tanh nodes) on 30 samples.
fn saved_elm_regression() -> Saved {
    let elm = ["--model", "elm", "--hidden", "5", "--activation", "tanh"];
    saved("elm.model", smooth, "regression", &elm)
}

/// A saved BLS classification pipeline (1 × 2 feature nodes, 3 enhancement
/// nodes, 3 classes) on 30 samples.
fn saved_bls_classifier() -> Saved {
    let bls = [
        "--model",
        "bls",
        "--feature-groups",
        "1",
        "--feature-nodes",
        "2",
        "--enhancement",
        "3",
    ];
    saved("bls.model", class, "classification", &bls)
}

/// Every single-byte change (each byte replaced by each of the 255 other
/// values) of the saved pipeline, loaded as `nn predict` loads it.
fn flip_every_byte(saved: &Saved) -> FlipCounts {
    let bytes = std::fs::read(&saved.model).expect("read model");
    let x = datasets::load_any(&saved.train).expect("load data").x;
    let path = saved.model.as_path();
    test_support::flip_every_byte(&bytes, |b| {
        FittedPipeline::from_bytes(path, b).map(|p| p.predict(&x).ok())
    })
}

#[test]
fn every_single_byte_change_of_a_saved_pipeline_is_refused() {
    for saved in [saved_elm_regression(), saved_bls_classifier()] {
        let counts = flip_every_byte(&saved);
        let len = std::fs::metadata(&saved.model).expect("metadata").len() as usize;
        eprintln!("{}: {counts:?}", saved.model.display());
        assert_eq!(counts.changes, len * 255);
        assert_eq!(counts.different_predictions, 0, "{counts:?}");
        assert_eq!(counts.refused, counts.changes, "{counts:?}");
    }
}

#[test]
fn nn_predict_refuses_damaged_truncated_and_extended_files() {
    let saved = saved_elm_regression();
    let bytes = std::fs::read(&saved.model).expect("read model");
    let expected = predictions(&saved.model, &saved.train);
    let dir = tempdir();
    let bad = dir.path().join("bad.model");
    let checksum = format!(
        "nn: error: {}: model file is corrupt: checksum mismatch (file damaged or truncated)",
        bad.display()
    );
    // A changed byte anywhere after the header: the checksum says so.
    for i in (13..bytes.len()).step_by(5) {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x04;
        std::fs::write(&bad, &damaged).expect("write");
        assert_eq!(fails(&predict(&bad, &saved.train)), checksum, "byte {i}");
    }
    // In the header: not a model file, another format, or the checksum.
    for i in 0..13 {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x01;
        std::fs::write(&bad, &damaged).expect("write");
        let err = fails(&predict(&bad, &saved.train));
        assert!(
            err.contains("not a model file")
                || err.contains("format version")
                || err.contains("model file is corrupt: "),
            "byte {i}: {err}"
        );
        assert!(
            !err.contains("OtherString") && !err.contains("UnexpectedEnd"),
            "byte {i}: {err}"
        );
    }
    for cut in [9, 12, 13, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&bad, &bytes[..cut]).expect("write");
        assert_eq!(fails(&predict(&bad, &saved.train)), checksum, "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"abc");
    std::fs::write(&bad, &longer).expect("write");
    assert_eq!(
        fails(&predict(&bad, &saved.train)),
        format!(
            "nn: error: {}: model file is corrupt: 3 trailing byte(s) after the model",
            bad.display()
        )
    );
    // The intact file still predicts as before.
    std::fs::write(&bad, &bytes).expect("write");
    assert_eq!(predictions(&bad, &saved.train), expected);
}

/// A format-5 file (before the checksum and the column names): the
/// pipeline's fields of format 5, no checksum.
struct FormatFive<'a> {
    magic: [u8; 8],
    format_version: u32,
    pipeline: &'a FittedPipeline,
}

impl serde::Serialize for FormatFive<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = self.pipeline;
        let mut file = serializer.serialize_struct("FormatFive", 3)?;
        file.serialize_field("magic", &self.magic)?;
        file.serialize_field("format_version", &self.format_version)?;
        // Format 5's fields in order (format 7 appended the column names).
        file.serialize_field(
            "pipeline",
            &(&p.task, &p.classes, &p.scaler, &p.target_scale, &p.model, &p.labels),
        )?;
        file.end()
    }
}

fn write_format_5(path: &Path, pipeline: &FittedPipeline) {
    let file = FormatFive {
        magic: *b"DNNPIPE\0",
        format_version: 5,
        pipeline,
    };
    let bytes = bincode::serde::encode_to_vec(&file, bincode::config::standard()).expect("encode");
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn format_5_files_without_checksum_still_load_but_trailing_bytes_do_not() {
    let saved = saved_elm_regression();
    let pipeline = FittedPipeline::load(&saved.model).expect("load");
    let dir = tempdir();
    let old = dir.path().join("old.model");
    write_format_5(&old, &pipeline);
    assert_eq!(predictions(&old, &saved.train), predictions(&saved.model, &saved.train));
    let mut bytes = std::fs::read(&old).expect("read");
    bytes.push(7);
    std::fs::write(&old, &bytes).expect("write");
    assert!(fails(&predict(&old, &saved.train)).ends_with("model file is corrupt: 1 trailing byte(s) after the model"));
}

/// Loaded pipelines are validated: each inconsistent pipeline, saved with a
/// valid checksum (and in format 5, which has none), is refused by name.
#[test]
fn inconsistent_pipelines_are_refused_naming_what_is_wrong() {
    let regression = saved_elm_regression();
    let classifier = saved_bls_classifier();
    let reg = FittedPipeline::load(&regression.model).expect("load");
    let cls = FittedPipeline::load(&classifier.model).expect("load");
    let with_inf = Array2::from_shape_fn((4, 3), |(i, j)| {
        if i == 2 && j == 1 {
            f64::INFINITY
        } else {
            (i + j) as f64
        }
    });
    let narrow = Array2::from_shape_fn((4, 2), |(i, j)| (i * j) as f64);

    let mut cases: Vec<(FittedPipeline, &str, &Saved)> = Vec::new();
    let mut p = reg.clone();
    p.scaler = InputScaler::Zscore(StandardScaler::fit(&with_inf).expect("fit"));
    cases.push((p, "the z-score scaler's mean of column 2 is inf", &regression));
    let mut p = reg.clone();
    p.scaler = InputScaler::Minmax(MinMaxScaler::fit(&with_inf).expect("fit"));
    cases.push((p, "the min-max scaler's range of column 2 is [1, inf]", &regression));
    let mut p = reg.clone();
    p.scaler = InputScaler::Zscore(StandardScaler::fit(&narrow).expect("fit"));
    cases.push((
        p,
        "the z-score scaler has 2 and 2 statistics for a model of 3 inputs",
        &regression,
    ));
    let mut p = reg.clone();
    p.target_scale = Some((1.0, 0.0));
    cases.push((p, "the target scale is mean 1, standard deviation 0", &regression));
    let mut p = reg.clone();
    p.target_scale = Some((f64::NAN, 1.0));
    cases.push((p, "the target scale is mean NaN", &regression));
    let mut p = reg.clone();
    p.task = TaskKind::Classification;
    p.classes = Some(2);
    p.target_scale = None;
    cases.push((p, "a classifier of 2 classes with a model of 1 outputs", &regression));
    let mut p = cls.clone();
    p.classes = Some(4);
    cases.push((p, "3 class labels for a classification model of 4 classes", &classifier));
    let mut p = cls.clone();
    p.classes = Some(4);
    p.labels = None;
    cases.push((p, "a classifier of 4 classes with a model of 3 outputs", &classifier));
    let mut p = cls.clone();
    p.task = TaskKind::Regression;
    p.classes = None;
    cases.push((p, "3 class labels for a regression model of no classes", &classifier));
    let mut p = cls.clone();
    p.task = TaskKind::Regression;
    p.classes = None;
    p.labels = None;
    cases.push((p, "a regression model of 3 outputs (one expected)", &classifier));
    let mut p = cls.clone();
    p.classes = None;
    p.labels = None;
    cases.push((p, "a classifier without its number of classes", &classifier));

    let dir = tempdir();
    let bad = dir.path().join("inconsistent.model");
    for (pipeline, expected, saved) in &cases {
        pipeline.save(&bad).expect("save");
        let err = fails(&predict(&bad, &saved.train));
        assert!(
            err.contains("model file is corrupt: ") && err.contains(expected),
            "{expected}: {err}"
        );
        write_format_5(&bad, pipeline);
        let err = fails(&predict(&bad, &saved.train));
        assert!(err.contains(expected), "format 5, {expected}: {err}");
    }
}

#[test]
fn targets_near_1e200_give_finite_metrics_and_predictions() {
    let dir = tempdir();
    let plain = dir.path().join("plain.csv");
    let huge = dir.path().join("huge.csv");
    write_csv(&plain, 40, smooth, &[]);
    write_csv(&huge, 40, |i, x| smooth(i, x) * 1e200, &[]);
    let model = dir.path().join("huge.model");
    let fit = |file: &Path, save: Option<&Path>| {
        let f = file.to_str().expect("UTF-8 path");
        let mut args = vec![
            "--model",
            "elm",
            "--train",
            f,
            "--test",
            f,
            "--task",
            "regression",
            "--hidden",
            "8",
            "--threads",
            "1",
        ];
        if let Some(s) = save {
            args.extend(["--save", s.to_str().expect("UTF-8 path")]);
        }
        fit_ok(&args)
    };
    let plain_model = dir.path().join("plain.model");
    let small = fit(&plain, Some(&plain_model));
    let big = fit(&huge, Some(&model));
    for key in ["test_metric", "train_metric"] {
        let (s, b) = (small[key].as_f64(), big[key].as_f64());
        let (Some(s), Some(b)) = (s, b) else {
            panic!("{key} must be a number: {small} / {big}");
        };
        // The same fit in units 1e200 times larger.
        assert!(((b / 1e200) / s - 1.0).abs() < 1e-6, "{key}: {b} vs {s}·1e200");
    }
    // The saved model predicts 1e200 times what the plain one does.
    let values = predictions(&model, &huge);
    let reference = predictions(&plain_model, &plain);
    assert_eq!(values.len(), 40);
    let largest = reference.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    for (v, r) in values.iter().zip(&reference) {
        assert!(
            v.is_finite() && (v / 1e200 - r).abs() <= 1e-6 * largest,
            "{v} vs {r}·1e200"
        );
    }
}

/// Rows whose prediction overflows: the first beyond the z-score scaling
/// (1.7e308 becomes ∞), the second beyond the model's output mapped back to
/// the targets' units (8e307: finite after scaling, ±∞ after). Both under
/// `linear` and `relu`, through `nn fit` (test file) and `nn predict`.
#[test]
fn predictions_that_overflow_are_errors_naming_file_and_line() {
    let dir = tempdir();
    let train = dir.path().join("train.csv");
    let test = dir.path().join("test.csv");
    write_csv(&train, 40, smooth, &[]);
    write_csv(&test, 5, smooth, &[]);
    let cases = [
        (
            "scaled.csv",
            "1.7e308,-1.7e308,1e308,1",
            "feature 2 (-1.7e308) becomes -inf (not finite) after zscore scaling",
        ),
        (
            "output.csv",
            "8e307,-8e307,8e307,1",
            "the row's largest feature is 8e307 in magnitude",
        ),
    ];
    let t = train.to_str().expect("UTF-8");
    for activation in ["linear", "relu"] {
        let model = dir.path().join(format!("{activation}.model"));
        fit_ok(&[
            "--model",
            "elm",
            "--train",
            t,
            "--test",
            test.to_str().expect("UTF-8"),
            "--task",
            "regression",
            "--hidden",
            "20",
            "--activation",
            activation,
            "--threads",
            "1",
            "--save",
            model.to_str().expect("UTF-8"),
        ]);
        for (name, row, cause) in cases {
            // Line 7: the header, 5 rows, then this one.
            let huge = dir.path().join(name);
            write_csv(&huge, 5, smooth, &[row, "0.1,0.2,0.3,1"]);
            let h = huge.to_str().expect("UTF-8");
            let out = run(&[
                "fit",
                "--model",
                "elm",
                "--train",
                t,
                "--test",
                h,
                "--task",
                "regression",
                "--hidden",
                "20",
                "--activation",
                activation,
                "--threads",
                "1",
            ]);
            let err = fails(&out);
            let start = format!("nn: error: {h}: line 7: ");
            assert!(
                err.starts_with(&start) && err.contains("not finite"),
                "{activation}: {err}"
            );
            assert!(err.contains(cause), "{activation}: {err}");
            let err = fails(&predict(&model, &huge));
            assert!(err.starts_with(&start) && err.contains(cause), "{activation}: {err}");
        }
    }
}

/// Training features near the largest f64: z-scores are computed without
/// overflow (the fit succeeds with finite metrics); min-max scaling of a
/// column spanning ±1.7e308 overflows and is refused naming the line.
#[test]
fn huge_training_features_are_scaled_or_refused_by_line() {
    let dir = tempdir();
    let train = dir.path().join("train.csv");
    let test = dir.path().join("test.csv");
    // Lines 22 and 23: the header, 20 rows, then these.
    write_csv(&train, 20, smooth, &["1.7e308,1,1,1", "-1.7e308,1,1,1"]);
    write_csv(&test, 10, smooth, &[]);
    let (t, v) = (train.to_str().expect("UTF-8"), test.to_str().expect("UTF-8"));
    let base = [
        "--model",
        "elm",
        "--train",
        t,
        "--test",
        v,
        "--task",
        "regression",
        "--hidden",
        "10",
        "--threads",
        "1",
    ];
    let report = fit_ok(&[&base[..], &["--scale", "zscore"]].concat());
    assert!(report["test_metric"].as_f64().is_some_and(f64::is_finite), "{report}");
    let err = fails(&run(&[&["fit"], &base[..], &["--scale", "minmax"]].concat()));
    assert_eq!(
        err,
        format!(
            "nn: error: {t}: line 22: feature 1 (1.7e308) becomes inf (not finite) after minmax scaling; rescale \
             the column or choose another --scale"
        )
    );
}

mod fuzz {
    //! The pipeline reader on arbitrary and mutated bytes: an `Err` (or, for
    //! a mutated file of format 5, which has no checksum, possibly a model
    //! that predicts), never a panic, an abort or a huge allocation.

    use std::path::Path;

    use experiments::cli::{FittedModel, FittedPipeline, InputScaler, Scale, TaskKind};
    use models::prelude::*;
    use models::{Activation, ElmParams};
    use ndarray::Array2;
    use proptest::prelude::*;

    fn inputs() -> Array2<f64> {
        Array2::from_shape_fn((10, 2), |(i, j)| ((i * 5 + j * 3) % 7) as f64 / 3.0)
    }

    fn pipeline() -> FittedPipeline {
        let x = inputs();
        let y = Array2::from_shape_fn((10, 1), |(i, _)| x[[i, 0]] - x[[i, 1]]);
        let scaler = InputScaler::fit(Scale::Zscore, &x).expect("scaler");
        let z = scaler.transform(&x).expect("scaled");
        let elm = ElmParams::new(3, Activation::Tanh)
            .with_seed(1)
            .fit(&Dataset::new(z.view(), y.view()))
            .expect("fit");
        FittedPipeline {
            task: TaskKind::Regression,
            classes: None,
            scaler,
            target_scale: Some((0.5, 2.0)),
            model: FittedModel::Elm(elm),
            labels: None,
            columns: None,
        }
    }

    fn format_5(p: &FittedPipeline) -> Vec<u8> {
        bincode::serde::encode_to_vec(
            super::FormatFive {
                magic: *b"DNNPIPE\0",
                format_version: 5,
                pipeline: p,
            },
            bincode::config::standard(),
        )
        .expect("encode")
    }

    use test_support::mutate;

    #[test]
    fn a_huge_length_prefix_is_refused() {
        let bytes = format_5(&pipeline());
        for at in 9..bytes.len().min(60) {
            let mut huge = bytes[..at].to_vec();
            huge.push(253); // varint tag of a u64
            huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
            huge.extend_from_slice(&bytes[at..]);
            assert!(FittedPipeline::from_bytes(Path::new("huge"), &huge).is_err(), "at {at}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_bytes_are_an_error(version in 0u8..8, body in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut bytes = b"DNNPIPE\0".to_vec();
            bytes.push(version);
            bytes.extend_from_slice(&body);
            prop_assert!(FittedPipeline::from_bytes(Path::new("fuzz"), &bytes).is_err());
        }

        #[test]
        fn mutated_files_never_panic(
            writes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
            insert in proptest::option::of((any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 1..10))),
            cut in any::<prop::sample::Index>(),
        ) {
            let p = pipeline();
            let x = inputs();
            // Format 6: anything changed is refused by the checksum.
            let original = p.to_bytes(Path::new("fuzz")).expect("encode");
            let mut bytes = original.clone();
            mutate(&mut bytes, writes.clone(), insert.clone(), cut);
            let got = FittedPipeline::from_bytes(Path::new("fuzz"), &bytes);
            if bytes == original {
                prop_assert!(got.is_ok());
            } else {
                prop_assert!(got.is_err());
            }
            // Format 5 has no checksum: whatever loads is a validated
            // pipeline that predicts or errs without panicking.
            let mut bytes = format_5(&p);
            mutate(&mut bytes, writes, insert, cut);
            if let Ok(loaded) = FittedPipeline::from_bytes(Path::new("fuzz"), &bytes) {
                if let Ok(values) = loaded.predict(&x) {
                    prop_assert!(values.iter().all(|v| v.is_finite()));
                }
            }
        }
    }
}
