//! Bad or unusual data files through the `nn` binary (issue 16, data
//! loading): each case ends in a clear error — exit code and the message's
//! pieces — or in a correct result.

mod common;

use common::{idx_images, idx_labels, nn};

use std::path::{Path, PathBuf};
use std::process::Output;

/// A fresh temporary directory, removed when dropped.
struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        Dir(tempfile::Builder::new()
            .prefix("nn-bad-data-")
            .tempdir()
            .expect("a temporary directory"))
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, bytes).expect("write a test file");
        path
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

/// 40 rows of three features in [-1, 1] (a fixed pseudo-random sequence)
/// and the class `a + b > 0`, labelled through `label`.
fn rows(label: impl Fn(usize, bool) -> String) -> Vec<String> {
    let mut state = 12_345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
    };
    (0..40)
        .map(|i| {
            let (a, b, c) = (next(), next(), next());
            format!("{a:.3},{b:.3},{c:.3},{}", label(i, a + b > 0.0))
        })
        .collect()
}

fn csv(header: Option<&str>, rows: &[String]) -> String {
    let mut text = header.map(|h| format!("{h}\n")).unwrap_or_default();
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    text
}

fn binary(_row: usize, positive: bool) -> String {
    if positive { "1" } else { "0" }.to_string()
}

/// `nn fit --model elm --hidden 5 --task TASK --train TRAIN --test TEST` and `extra`.
fn fit(task: &str, train: &Path, test: &Path, extra: &[&str]) -> Output {
    nn().args(["fit", "--model", "elm", "--hidden", "5", "--task", task, "--train"])
        .arg(train)
        .arg("--test")
        .arg(test)
        .args(extra)
        .output()
        .expect("run nn")
}

/// The JSON report of a successful run.
fn report(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "nn failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// The one-line error of a failed run, after checking the exit code and that
/// stdout is empty.
fn error(out: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "exit code; stderr: {err}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let line = err
        .lines()
        .find(|l| l.starts_with("nn: error: "))
        .unwrap_or_else(|| panic!("no error line in: {err}"));
    line.to_string()
}

fn assert_has(message: &str, pieces: &[&str]) {
    for p in pieces {
        assert!(message.contains(p), "{p:?} missing from: {message}");
    }
}

fn predict(model: &Path, data: &Path, extra: &[&str]) -> Output {
    nn().args(["predict", "--model-file"])
        .arg(model)
        .arg("--data")
        .arg(data)
        .args(extra)
        .output()
        .expect("run nn")
}

fn lines(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "nn predict failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

// ------------------------------------------------------------- header rows

#[test]
fn headerless_csv_is_refused_with_the_flag_to_pass() {
    let d = Dir::new();
    let f = d.write("nohdr.csv", csv(None, &rows(binary)));
    let msg = error(&fit("classification", &f, &f, &[]), 1);
    assert_has(
        &msg,
        &[
            "nohdr.csv line 1: the first row looks like data, not a header",
            "pass --no-header",
            "pass --header",
        ],
    );
}

#[test]
fn no_header_reads_every_row() {
    let d = Dir::new();
    let f = d.write("nohdr.csv", csv(None, &rows(binary)));
    let j = report(&fit("classification", &f, &f, &["--no-header"]));
    assert_eq!((j["n_train"].as_u64(), j["n_test"].as_u64()), (Some(40), Some(40)));
    assert_eq!(j["n_features"], 3);
}

#[test]
fn header_flag_keeps_a_header_of_numbers() {
    let d = Dir::new();
    let f = d.write("numhdr.csv", csv(Some("1,2,3,4"), &rows(binary)));
    error(&fit("classification", &f, &f, &[]), 1);
    let j = report(&fit("classification", &f, &f, &["--header"]));
    assert_eq!(j["n_train"], 40);
}

#[test]
fn header_and_no_header_together_are_a_usage_error() {
    let d = Dir::new();
    let f = d.write("t.csv", csv(Some("a,b,c,y"), &rows(binary)));
    let msg = error(&fit("classification", &f, &f, &["--header", "--no-header"]), 2);
    assert_has(&msg, &["--no-header", "--header"]);
}

#[test]
fn predict_needs_no_header_for_a_headerless_file_too() {
    let d = Dir::new();
    let train = d.write("t.csv", csv(Some("a,b,c,y"), &rows(binary)));
    let (model, _) = fit_and_save(&d, &train);
    let f = d.write("nohdr.csv", csv(None, &rows(binary)));
    let msg = error(&predict(&model, &f, &[]), 1);
    assert_has(&msg, &["nohdr.csv line 1", "--no-header"]);
    let with_flag = lines(&predict(&model, &f, &["--no-header"]));
    let with_header = lines(&predict(&model, &train, &[]));
    assert_eq!(with_flag, with_header);
}

// ------------------------------------------------------------ class labels

#[test]
fn string_labels_map_to_classes_and_predict_prints_them() {
    let d = Dir::new();
    let f = d.write(
        "s.csv",
        csv(Some("a,b,c,animal"), &rows(|_, p| if p { "dog" } else { "cat" }.into())),
    );
    let (model, j) = fit_and_save(&d, &f);
    assert_eq!(j["classes"], 2);
    assert!(j["test_metric"].as_f64().expect("accuracy") > 0.8, "{j}");
    let p = lines(&predict(&model, &f, &[]));
    assert_eq!(p.len(), 40);
    assert!(p.iter().all(|l| l == "cat" || l == "dog"), "{p:?}");
    assert!(p.iter().any(|l| l == "cat") && p.iter().any(|l| l == "dog"), "{p:?}");
}

#[test]
fn a_test_label_training_never_saw_names_file_line_and_value() {
    let d = Dir::new();
    let r = rows(|_, p| if p { "dog" } else { "cat" }.into());
    let train = d.write("train.csv", csv(Some("a,b,c,animal"), &r));
    let mut t = r[..7].to_vec();
    t.push("0.1,0.2,0.3,bird".into());
    let test = d.write("test.csv", csv(Some("a,b,c,animal"), &t));
    let msg = error(&fit("classification", &train, &test, &[]), 1);
    assert_has(
        &msg,
        &[
            "test.csv line 9: class label \"bird\" does not occur in the training file",
            "train.csv",
            "its labels: cat, dog",
        ],
    );
}

#[test]
fn an_unseen_integer_label_is_an_error_too() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("train.csv", csv(Some("a,b,c,y"), &r));
    let mut t = r[..3].to_vec();
    t.push("0.1,0.2,0.3,2".into());
    let test = d.write("test.csv", csv(Some("a,b,c,y"), &t));
    let msg = error(&fit("classification", &train, &test, &[]), 1);
    assert_has(
        &msg,
        &["test.csv line 5: class label \"2\" does not occur", "its labels: 0, 1"],
    );
}

#[test]
fn huge_integer_labels_are_two_classes_and_print_back() {
    let d = Dir::new();
    let f = d.write(
        "big.csv",
        csv(
            Some("a,b,c,y"),
            &rows(|_, p| if p { "1000000000000" } else { "-7" }.into()),
        ),
    );
    let (model, j) = fit_and_save(&d, &f);
    assert_eq!(j["classes"], 2);
    let p = lines(&predict(&model, &f, &[]));
    assert!(p.iter().all(|l| l == "1000000000000" || l == "-7"), "{p:?}");
}

#[test]
fn labels_1e18_and_1000000_are_two_classes() {
    let d = Dir::new();
    for big in ["1e18", "1000000"] {
        let f = d.write(
            "big.csv",
            csv(Some("a,b,c,y"), &rows(|_, p| if p { big } else { "0" }.into())),
        );
        let j = report(&fit("classification", &f, &f, &[]));
        assert_eq!(j["classes"], 2, "{big}");
    }
}

#[test]
fn label_1e30_is_too_large() {
    let d = Dir::new();
    let f = d.write(
        "e30.csv",
        csv(Some("a,b,c,y"), &rows(|i, _| if i == 5 { "1e30" } else { "0" }.into())),
    );
    let msg = error(&fit("classification", &f, &f, &[]), 1);
    assert_has(&msg, &["e30.csv line 7: class label \"1e30\" is too large"]);
}

#[test]
fn a_fractional_label_is_not_a_class() {
    let d = Dir::new();
    let f = d.write(
        "frac.csv",
        csv(Some("a,b,c,y"), &rows(|i, _| if i == 2 { "1.5" } else { "0" }.into())),
    );
    let msg = error(&fit("classification", &f, &f, &[]), 1);
    assert_has(
        &msg,
        &[
            "frac.csv line 4: class label \"1.5\" is not an integer",
            "--task regression",
        ],
    );
}

#[test]
fn a_text_target_in_regression_names_line_and_column() {
    let d = Dir::new();
    let f = d.write(
        "r.csv",
        csv(Some("a,b,c,y"), &rows(|i, _| if i == 3 { "abc" } else { "1.5" }.into())),
    );
    let msg = error(&fit("regression", &f, &f, &[]), 1);
    assert_has(&msg, &["r.csv line 5: non-numeric cell \"abc\" in column 4 (\"y\")"]);
}

/// 20 images of 2×2 pixels: bright ones labelled 255, dark ones 0.
fn idx_pair(d: &Dir, stem: &str) -> PathBuf {
    let mut pixels = Vec::new();
    let mut labels = Vec::new();
    for i in 0..20u8 {
        let bright = i % 2 == 0;
        let base = if bright { 200 } else { 20 };
        pixels.extend_from_slice(&[base + i, base, base + 3, base + (i % 5)]);
        labels.push(if bright { 255 } else { 0 });
    }
    d.write(&format!("{stem}-labels-idx1-ubyte"), idx_labels(&labels));
    d.write(&format!("{stem}-images-idx3-ubyte"), idx_images(20, 2, 2, &pixels))
}

#[test]
fn idx_label_255_is_one_of_two_classes() {
    let d = Dir::new();
    let images = idx_pair(&d, "x");
    let (model, j) = fit_and_save(&d, &images);
    assert_eq!(j["classes"], 2);
    assert_eq!(j["test_metric"], 1.0);
    let p = lines(&predict(&model, &images, &[]));
    assert_eq!(p.len(), 20);
    assert!(p.iter().all(|l| l == "255" || l == "0"), "{p:?}");
}

#[test]
fn idx_images_without_labels_predict() {
    let d = Dir::new();
    let images = idx_pair(&d, "x");
    let (model, _) = fit_and_save(&d, &images);
    let bytes = std::fs::read(&images).expect("read images");
    let alone = d.write("new-images-idx3-ubyte", bytes);
    assert_eq!(
        lines(&predict(&model, &alone, &[])),
        lines(&predict(&model, &images, &[]))
    );
    // Fitting still needs the labels, and says which file it looked for.
    let msg = error(&fit("classification", &alone, &alone, &[]), 1);
    assert_has(&msg, &["new-labels-idx1-ubyte", "not found"]);
}

#[test]
fn an_empty_training_set_says_so() {
    let d = Dir::new();
    d.write("e-labels-idx1-ubyte", idx_labels(&[]));
    let images = d.write("e-images-idx3-ubyte", idx_images(0, 2, 2, &[]));
    let msg = error(&fit("classification", &images, &images, &[]), 1);
    assert_has(&msg, &["e-images-idx3-ubyte", "the training file has no samples"]);
}

// ------------------------------------------------------------ widths, delimiters

#[test]
fn a_width_mismatch_names_both_files_and_widths() {
    let d = Dir::new();
    let train = d.write("train.csv", csv(Some("a,b,c,y"), &rows(binary)));
    let two: Vec<String> = rows(binary)
        .iter()
        .map(|r| r.split(',').skip(1).collect::<Vec<_>>().join(","))
        .collect();
    let test = d.write("test.csv", csv(Some("b,c,y"), &two));
    let msg = error(&fit("classification", &train, &test, &[]), 1);
    assert_has(
        &msg,
        &[
            "test.csv has 2 features per sample, but the training file",
            "train.csv has 3",
        ],
    );
}

#[test]
fn a_semicolon_or_tab_file_gets_the_delimiter_named() {
    let d = Dir::new();
    for (sep, name) in [(";", "semicolons (';')"), ("\t", "tabs")] {
        let r: Vec<String> = rows(binary).iter().map(|r| r.replace(',', sep)).collect();
        let f = d.write("semi.csv", csv(Some(&["a", "b", "c", "y"].join(sep)), &r));
        let msg = error(&fit("classification", &f, &f, &[]), 1);
        assert_has(
            &msg,
            &[
                "semi.csv line 1: header has 1 column",
                &format!("seems to be separated by {name}"),
                "comma",
            ],
        );
    }
}

// ------------------------------------------------------------------ LIBSVM

fn svm(rows: &[String], keep: &[usize]) -> String {
    rows.iter()
        .map(|r| {
            let cells: Vec<&str> = r.split(',').collect();
            let features: Vec<String> = keep.iter().map(|&j| format!("{}:{}", j + 1, cells[j])).collect();
            format!("{} {}\n", cells[3], features.join(" "))
        })
        .collect()
}

#[test]
fn a_libsvm_test_file_with_a_lower_largest_index_uses_the_training_width() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("a9a.svm", svm(&r, &[0, 1, 2]));
    let test = d.write("a9a.t.svm", svm(&r, &[0, 1]));
    let j = report(&fit("classification", &train, &test, &[]));
    assert_eq!(j["n_features"], 3);
    let j = report(&fit("classification", &train, &test, &["--n-features", "6"]));
    assert_eq!(j["n_features"], 6);
}

#[test]
fn a_libsvm_test_index_beyond_the_training_width_names_file_and_line() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("train.svm", svm(&r, &[0, 1]));
    let mut text = svm(&r[..2], &[0, 1]);
    text.push_str("1 1:0.5 3:0.25\n");
    let test = d.write("test.svm", text);
    let msg = error(&fit("classification", &train, &test, &[]), 1);
    assert_has(
        &msg,
        &["test.svm line 3: feature index 3 in token \"3:0.25\" is beyond the 2 features expected"],
    );
    let msg = error(&fit("classification", &train, &train, &["--n-features", "1"]), 1);
    assert_has(
        &msg,
        &["train.svm line 1: feature index 2", "beyond the 1 features expected"],
    );
}

#[test]
fn a_huge_libsvm_index_is_refused_before_allocating() {
    let d = Dir::new();
    let train = d.write("huge.svm", "1 1:1\n0 100000000000:1\n");
    let msg = error(&fit("classification", &train, &train, &[]), 1);
    assert_has(
        &msg,
        &[
            "huge.svm: 2 rows × 100000000000 features is too large",
            "the largest feature index, 100000000000, is on line 2",
        ],
    );
}

// ------------------------------------------------------------------ predict

/// A classifier fitted on `train` (as training and test file) and saved in
/// `d`: the model file and the fit's JSON report.
fn fit_and_save(d: &Dir, train: &Path) -> (PathBuf, serde_json::Value) {
    let model = d.path("m.bin");
    let model_arg = model.display().to_string();
    let j = report(&fit("classification", train, train, &["--save", &model_arg]));
    (model, j)
}

#[test]
fn predict_reads_features_only_csv() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("t.csv", csv(Some("a,b,c,y"), &r));
    let (model, _) = fit_and_save(&d, &train);
    let features: Vec<String> = r
        .iter()
        .map(|l| l.rsplit_once(',').map_or(l.clone(), |(f, _)| f.into()))
        .collect();
    let f = d.write("features.csv", csv(Some("a,b,c"), &features));
    assert_eq!(lines(&predict(&model, &f, &[])), lines(&predict(&model, &train, &[])));
}

#[test]
fn predict_on_the_wrong_width_names_file_and_widths() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("t.csv", csv(Some("a,b,c,y"), &r));
    let (model, _) = fit_and_save(&d, &train);
    let wide: Vec<String> = r.iter().map(|l| format!("0,0,{l}")).collect();
    let f = d.write("wide.csv", csv(Some("p,q,a,b,c,y"), &wide));
    let msg = error(&predict(&model, &f, &[]), 1);
    assert_has(
        &msg,
        &[
            "wide.csv: the model",
            "expects 3 feature columns, or 4 with the target last; the file has 6 columns",
        ],
    );
}

#[test]
fn predict_on_features_only_width_with_a_label_column_explains_the_reading() {
    let d = Dir::new();
    let r = rows(binary);
    let train = d.write("t.csv", csv(Some("a,b,c,y"), &r));
    let (model, _) = fit_and_save(&d, &train);
    // Without a header the width decides: the last column is a feature.
    let f = d.write("short.csv", "0.1,0.2,cat\n");
    let msg = error(&predict(&model, &f, &["--no-header"]), 1);
    assert_has(
        &msg,
        &[
            "short.csv line 1: non-numeric cell \"cat\" in column 3",
            "the file has 3 columns, as many as the model has features, so its last column is read as a feature",
        ],
    );
    // With a header the training columns decide (issue 36): `y` is the
    // target, so `c` is missing.
    let f = d.write("short.csv", "a,b,y\n0.1,0.2,cat\n");
    let msg = error(&predict(&model, &f, &[]), 1);
    assert_has(
        &msg,
        &[
            "short.csv: its header does not match the columns the model",
            "(a, b, c, then the target `y`): missing `c` (`y` is the training file's target",
        ],
    );
}

#[test]
fn an_empty_or_header_only_csv_says_what_is_missing() {
    let d = Dir::new();
    let good = d.write("good.csv", csv(Some("a,b,c,y"), &rows(binary)));
    let empty = d.write("empty.csv", "");
    let msg = error(&fit("classification", &empty, &good, &[]), 1);
    assert_has(&msg, &["empty.csv: empty file (no header row)"]);
    let msg = error(&fit("classification", &empty, &good, &["--no-header"]), 1);
    assert_has(&msg, &["empty.csv: empty file (no data rows)"]);
    let header_only = d.write("header.csv", "a,b,c,y\n");
    let msg = error(&fit("classification", &good, &header_only, &[]), 1);
    assert_has(&msg, &["header.csv: no data rows after the header"]);
}
