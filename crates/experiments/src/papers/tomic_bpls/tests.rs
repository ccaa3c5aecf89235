//! The protocol end to end on a synthetic MNIST-style directory (so that
//! the test needs no shipped data and runs in a debug build), the options,
//! and the run summaries the report is made of.

use std::path::Path;

use super::mnist::{EpochPoint, RunCell};
use super::*;

/// Big-endian header words, then the body.
fn idx(header: &[u32], body: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = header.iter().flat_map(|w| w.to_be_bytes()).collect();
    out.extend_from_slice(body);
    out
}

/// `n` 4×4 "images" of 10 classes: class `c` lights pixel `c` (and a
/// little noise), so that a network can learn them.
fn write_set(dir: &Path, stem: &str, n: usize) {
    let mut pixels = vec![0u8; n * 16];
    let mut labels = vec![0u8; n];
    for i in 0..n {
        let c = (i * 7 + i / 3) % 10;
        labels[i] = c as u8;
        pixels[i * 16 + c] = 255;
        pixels[i * 16 + 10 + i % 6] = 60;
    }
    let images = idx(&[0x0803, n as u32, 4, 4], &pixels);
    let labels = idx(&[0x0801, n as u32], &labels);
    std::fs::write(dir.join(format!("{stem}-images-idx3-ubyte")), images).expect("write images");
    std::fs::write(dir.join(format!("{stem}-labels-idx1-ubyte")), labels).expect("write labels");
}

#[test]
fn a_tiny_protocol_runs_end_to_end_and_reuses_its_cells() {
    let root = std::env::temp_dir().join(format!("tomic-bpls-test-{}", std::process::id()));
    let data = root.join("fashion-tiny");
    std::fs::create_dir_all(&data).expect("dir");
    write_set(&data, "train", 300);
    write_set(&data, "t10k", 100);
    let mut o = Options::quick(root.join("out"));
    o.data_dir = data.clone();
    o.dataset = Options::dataset_name(&data);
    assert_eq!(o.dataset, "Fashion-MNIST");
    o.toy_runs = 2;
    o.sigmas = vec![0.0, 0.2];
    o.toy_epochs = 5;
    o.train_samples = 300;
    o.test_samples = 100;
    o.batch1_samples = 50;
    o.epochs = 3;
    let report = run(&o, &crate::papers::Blas::none()).expect("run");
    let md = std::fs::read_to_string(&report).expect("report");
    for needle in [
        "Fig. 4",
        "Fig. 5",
        "Table I",
        "Table II",
        "Fashion-MNIST",
        "83.99",
        "3578",
        "s/epoch batch 1 (interleaved)",
    ] {
        assert!(md.contains(needle), "report lacks {needle}");
    }
    for file in [
        "table1.csv",
        "table2.csv",
        "epochs.csv",
        "runs.json",
        // A Fashion-MNIST directory: the accuracy curves are the paper's
        // Fig. 8 (Fig. 7 is MNIST's).
        "fig8_test_batch128.svg",
        "fig8_train_batch1.svg",
        "fig9_test_vs_time_batch1.svg",
    ] {
        assert!(o.out_dir.join(file).is_file(), "{file}");
    }
    // BPLS learns the lit pixel.
    let runs_json = std::fs::read_to_string(o.out_dir.join("runs.json")).expect("json");
    let v: serde_json::Value = serde_json::from_str(&runs_json).expect("decode");
    let bpls = v["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| r["method"] == "BPLS")
        .expect("a BPLS run");
    let last = bpls["epochs"].as_array().and_then(|e| e.last()).expect("epochs");
    assert!(last["test_accuracy"].as_f64().expect("number") > 90.0, "{last}");
    // The second run reads every cell back.
    let again = run(&o, &crate::papers::Blas::none()).expect("rerun");
    let md2 = std::fs::read_to_string(again).expect("report");
    // BPLS runs (Algorithms 2 and 1), batch-128 runs, batch-1 runs, the
    // three toy cells (two problems and the clipping sweep) and the
    // interleaved timing.
    let cells = 2 * 2 + 4 + 4 + 3 + 1;
    assert!(
        md2.contains(&format!("{cells} cells read back")),
        "{}",
        md2.lines().nth(2).unwrap_or("")
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_directory_is_named() {
    let out = std::env::temp_dir().join(format!("tomic-bpls-missing-{}", std::process::id()));
    let mut o = Options::quick(out.clone());
    o.data_dir = "/nonexistent/fashion".into();
    o.toy_runs = 1;
    o.toy_epochs = 1;
    o.sigmas = vec![0.0];
    let err = run(&o, &crate::papers::Blas::none()).expect_err("no data").to_string();
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        err.contains("/nonexistent/fashion") && err.contains("train-images-idx3-ubyte"),
        "{err}"
    );
}

#[test]
fn settings_override_the_protocol() {
    let mut s = crate::papers::Settings {
        results_dir: "/r".into(),
        ..crate::papers::Settings::default()
    };
    let o = crate::papers::tomic_bpls_options(&s, true);
    assert_eq!(
        (o.out_dir.clone(), o.dataset.clone()),
        ("/r/tomic-bpls".into(), "MNIST".into())
    );
    assert_eq!((o.bpls_runs, o.backprop_runs, o.epochs), (2, 1, 5));
    let f = crate::papers::tomic_bpls_options(&s, false);
    assert_eq!((f.bpls_runs, f.backprop_runs, f.epochs, f.toy_runs), (10, 5, 40, 1000));
    s.tomic_bpls.data_dir = Some("/d/Fashion-MNIST".into());
    s.tomic_bpls.runs = Some(3);
    let o = crate::papers::tomic_bpls_options(&s, false);
    assert_eq!(o.out_dir, Path::new("/r/tomic-bpls-fashion-mnist"));
    assert_eq!(
        (o.dataset.as_str(), o.bpls_runs, o.backprop_runs),
        ("Fashion-MNIST", 3, 3)
    );
}

#[test]
fn run_summaries() {
    let e = |epoch, seconds, train_accuracy, test_accuracy| EpochPoint {
        epoch,
        seconds,
        train_accuracy,
        test_accuracy,
    };
    let c = RunCell {
        method: "Adam".into(),
        batch: Some(128),
        seed: 0,
        train_samples: 100,
        epochs: vec![e(1, 1.0, 80.0, 79.0), e(2, 2.5, 90.0, 85.0), e(3, 3.0, 88.0, 86.0)],
        best_epoch: None,
        threads: 1,
    };
    assert_eq!(c.seconds_per_epoch(), 1.0);
    // Epoch times 1.0, 1.5, 0.5.
    assert_eq!(c.median_epoch_seconds(), 1.0);
    assert_eq!(c.best(), (90.0, 86.0));
    assert_eq!(c.seconds_to(85.0), Some(2.5));
    assert_eq!(c.seconds_to(87.0), None);
}
