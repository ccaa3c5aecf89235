//! The second round of bad inputs through the `nn` binary (issue 36): flags
//! that were ignored or gave unclear messages, sizes outside the memory
//! estimate, data that was silently misread, and the exit codes (2 for a
//! command-line error, 1 for the rest). Each case ends in one clear error
//! line or a correct result.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{data, fails, run, temp_dir};

/// The shipped airfoil file (regression: 5 features and `target`, with a
/// header), decompressed: its header and rows.
fn airfoil_text() -> (String, Vec<String>) {
    let file = std::fs::File::open(data("airfoil/airfoil.csv.gz")).expect("airfoil");
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gunzip airfoil");
    let mut lines = text.lines().map(str::to_string);
    let header = lines.next().expect("a header");
    (header, lines.collect())
}

/// A CSV in `dir` named `name` from `header` and `rows`.
fn write_csv(dir: &Path, name: &str, header: &str, rows: &[String]) -> PathBuf {
    let path = dir.join(name);
    let mut text = format!("{header}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(&path, text).expect("write a test file");
    path
}

/// `nn fit` on airfoil (train = test) with `extra` flags.
fn airfoil(extra: &[&str]) -> Vec<String> {
    let file = data("airfoil/airfoil.csv.gz");
    let base = ["fit", "--train", &file, "--test", &file, "--task", "regression"];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// `nn fit --train F --test F` with `extra` flags.
fn fit_on(file: &Path, task: &str, extra: &[&str]) -> Vec<String> {
    let f = file.display().to_string();
    let base = ["fit", "--train", &f, "--test", &f, "--task", task];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// The JSON report of a run that must succeed.
fn report(args: &[String]) -> serde_json::Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    serde_json::from_str(stdout.trim()).expect("one JSON object")
}

/// A failure with exit code `code` whose one error line holds every piece.
fn refused(args: &[String], code: i32, pieces: &[&str]) -> String {
    let (got, err) = fails(args);
    assert_eq!(got, code, "{args:?}: {err}");
    for p in pieces {
        assert!(err.contains(p), "{p:?} missing from: {err}");
    }
    err
}

/// Usage errors found after parsing exit with 2, as clap's own do; errors
/// of the data or the fit with 1.
#[test]
fn command_line_errors_exit_2_and_the_others_1() {
    refused(
        &airfoil(&["--model", "slfn", "--hidden", "3", "--layers", "3"]),
        2,
        &["--layers does not apply to --model slfn"],
    );
    refused(
        &airfoil(&[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--select-lambda",
            "loo",
            "--lambda-grid",
            "1:0:5",
        ]),
        2,
        &["--lambda-grid `1:0:5`"],
    );
    refused(
        &airfoil(&[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--grow-until-val",
            "--val-fraction",
            "0",
        ]),
        2,
        &["--val-fraction 0"],
    );
    // A test file narrower than the training file: the data, exit 1.
    let dir = temp_dir("round2-codes");
    let (header, rows) = airfoil_text();
    let narrow: Vec<String> = rows[..50]
        .iter()
        .map(|r| r.split(',').skip(1).collect::<Vec<_>>().join(","))
        .collect();
    let narrow_header = header.split(',').skip(1).collect::<Vec<_>>().join(",");
    let test = write_csv(dir.path(), "narrow.csv", &narrow_header, &narrow);
    let mut args = airfoil(&["--model", "elm", "--hidden", "10"]);
    let at = args.iter().position(|a| a == "--test").expect("--test") + 1;
    args[at] = test.display().to_string();
    refused(&args, 1, &["narrow.csv has 4 features per sample", "has 5"]);
    // The same streamed names the file too (it said only "the input scaling
    // (StandardScaler) was fitted on 5 feature columns").
    args.extend(["--chunk-rows".to_string(), "100".to_string()]);
    refused(&args, 1, &["narrow.csv has 4 features per sample", "has 5"]);
}

/// Flags that applied to nothing were ignored without a word where their
/// neighbours are refused.
#[test]
fn flags_that_would_be_ignored_are_refused() {
    for (flag, value, needs) in [
        ("--lambda-grid", "1e-3:1:3", "--select-lambda"),
        ("--step", "5", "--grow-until-val"),
        ("--patience", "2", "--grow-until-val"),
        ("--val-fraction", "0.2", "--grow-until-val"),
        ("--max-hidden", "50", "--grow-until-val"),
    ] {
        refused(
            &airfoil(&["--model", "elm", "--hidden", "10", flag, value]),
            2,
            &[&format!("{flag} applies to {needs} only")],
        );
    }
    // Each selection's flags with the other.
    refused(
        &airfoil(&[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--grow-until-val",
            "--lambda-grid",
            "1e-3:1:3",
        ]),
        2,
        &["--lambda-grid applies to --select-lambda only"],
    );
    refused(
        &airfoil(&[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--select-lambda",
            "val:0.2",
            "--val-fraction",
            "0.3",
        ]),
        2,
        &["--val-fraction applies to --grow-until-val only"],
    );
    refused(
        &airfoil(&["--model", "slfn", "--hidden", "3", "--trainer", "elm", "--tau-w", "0.1"]),
        2,
        &["--tau-w does not apply to --trainer elm"],
    );
    // --n-features sets a LIBSVM file's width: on a CSV of another width it is refused, of the same
    // width it is consistent and accepted.
    refused(
        &airfoil(&["--model", "elm", "--hidden", "10", "--n-features", "3"]),
        2,
        &["--n-features 3", "has 5 feature columns"],
    );
    let ok = report(&airfoil(&["--model", "elm", "--hidden", "10", "--n-features", "5"]));
    assert_eq!(ok["n_features"], 5);
}

/// Messages that did not name their flag, showed a number 301 digits long
/// or a saturated byte count.
#[test]
fn messages_name_the_flag_and_the_real_figure() {
    for model in [&["--model", "elm", "--hidden", "10"][..], &["--model", "bls"][..]] {
        for value in ["NaN", "-1", "inf"] {
            refused(
                &airfoil(&[model, &["--lambda", value]].concat()),
                2,
                &[&format!("--lambda {value}"), "must be finite and > 0"],
            );
        }
    }
    refused(
        &airfoil(&["--model", "slfn", "--hidden", "3", "--maxiter", "-1"]),
        2,
        &["--maxiter -1: negative values are not accepted"],
    );
    // 10¹¹ nodes need about 1.3e17 bytes (the 60000×… terms): shown as
    // such, not as the 2⁶⁴ bytes a u64 saturates at.
    let err = refused(
        &airfoil(&["--model", "elm", "--hidden", "100000000000"]),
        2,
        &["this fit needs about", "--hidden"],
    );
    assert!(!err.contains("18446744073.7 GB"), "{err}");
}

/// λ grids of 10⁸ values (10.6 GB before the first score) and of 2⁶⁴ − 1
/// (a panic) are refused at once.
#[test]
fn huge_lambda_grids_are_refused() {
    for n in ["100000000", "18446744073709551615", "18446744073709551616"] {
        let grid = format!("1e-3:1e3:{n}");
        refused(
            &airfoil(&[
                "--model",
                "elm",
                "--hidden",
                "10",
                "--select-lambda",
                "loo",
                "--lambda-grid",
                &grid,
            ]),
            2,
            &["--lambda-grid", "N ≤ 10000"],
        );
    }
}

/// Growth to sizes the machine cannot hold is refused before it starts,
/// with the size it may reach and the flags that reduce it (it aborted
/// allocating 51 TB and 4 TB).
#[test]
fn growth_is_sized_before_it_starts() {
    refused(
        &airfoil(&["--model", "bls", "--grow-until-val", "--step", "100000000000"]),
        2,
        &["this fit needs about", "--step", "--max-hidden"],
    );
    refused(
        &airfoil(&[
            "--model",
            "elm",
            "--hidden",
            "10",
            "--grow-until-val",
            "--max-hidden",
            "1000000000000",
            "--step",
            "100000000000",
        ]),
        2,
        &["this fit needs about", "1000000000000 nodes", "--max-hidden"],
    );
    // Within memory, --max-hidden beyond --hidden is a size growth may reach: it runs.
    let j = report(&airfoil(&[
        "--model",
        "elm",
        "--hidden",
        "10",
        "--grow-until-val",
        "--max-hidden",
        "40",
        "--step",
        "10",
    ]));
    assert!(j["selection"]["nodes"].as_u64().is_some_and(|n| n <= 40), "{j}");
}

/// Leave-one-out on one training row scored 0 for every λ; k-fold and
/// validation refuse it, and so does leave-one-out now.
#[test]
fn leave_one_out_on_one_row_is_refused() {
    let dir = temp_dir("round2-loo");
    let (header, rows) = airfoil_text();
    let one = write_csv(dir.path(), "one.csv", &header, &rows[..1]);
    refused(
        &fit_on(
            &one,
            "regression",
            &["--model", "elm", "--hidden", "3", "--select-lambda", "loo"],
        ),
        1,
        &["leave-one-out needs at least 2 samples"],
    );
}

/// Features around 1e-270 (whose squared deviations underflow) are
/// z-scored, not taken for constant columns (the bug: a constant's fit,
/// RMSE 7.07 against 1.80). The features are the plain rows times 2⁻⁹⁰⁰,
/// an exact scaling, and the column statistics are computed in units of a
/// power of two near each column's largest magnitude, so the z-scores are
/// those of the plain rows exactly and every fit is the plain fit; the
/// tolerance is only the ordinary relative rounding of the RMSE's print.
#[test]
fn tiny_features_are_z_scored() {
    let dir = temp_dir("round2-tiny");
    let (header, rows) = airfoil_text();
    let rows = &rows[..200];
    let tiny: Vec<String> = rows
        .iter()
        .map(|r| {
            let cells: Vec<&str> = r.split(',').collect();
            let (features, target) = cells.split_at(cells.len() - 1);
            let scaled: Vec<String> = features
                .iter()
                .map(|c| format!("{:e}", c.parse::<f64>().expect("a number") * 2f64.powi(-900)))
                .collect();
            format!("{},{}", scaled.join(","), target[0])
        })
        .collect();
    let plain = write_csv(dir.path(), "plain.csv", &header, rows);
    let small = write_csv(dir.path(), "tiny.csv", &header, &tiny);
    let targets: Vec<f64> = rows
        .iter()
        .map(|r| r.rsplit(',').next().and_then(|t| t.parse().ok()).expect("a target"))
        .collect();
    let mean = targets.iter().sum::<f64>() / targets.len() as f64;
    let constant = (targets.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / targets.len() as f64).sqrt();
    for model in [
        &["--model", "bpls", "--layers", "5"][..],
        &["--model", "slfn", "--hidden", "5", "--maxiter", "2"][..],
        &["--model", "dfnn", "--layers", "5"][..],
        &["--model", "elm", "--hidden", "20"][..],
    ] {
        let a = report(&fit_on(&plain, "regression", model))["train_metric"]
            .as_f64()
            .expect("rmse");
        let b = report(&fit_on(&small, "regression", model))["train_metric"]
            .as_f64()
            .expect("rmse");
        assert!(
            a < 0.9 * constant,
            "{model:?}: the plain fit {a} vs a constant's {constant}"
        );
        assert!(
            (a - b).abs() <= 1e-12 * a,
            "{model:?}: tiny features give RMSE {b}, plain {a}"
        );
    }
}

/// `nn predict` on a file that lacks a feature column but has the target
/// read the target as the missing feature (exit 0); the saved model knows
/// its training columns and checks a header against them.
#[test]
fn predict_checks_the_header_against_the_training_columns() {
    let dir = temp_dir("round2-columns");
    let model = dir.path().join("m.bin");
    let mut args = airfoil(&["--model", "elm", "--hidden", "10", "--save"]);
    args.push(model.display().to_string());
    report(&args);
    let (header, rows) = airfoil_text();
    let columns: Vec<&str> = header.split(',').collect();
    let pick = |name: &str, keep: &[usize]| {
        let head: Vec<&str> = keep.iter().map(|&j| columns[j]).collect();
        let body: Vec<String> = rows[..20]
            .iter()
            .map(|r| {
                let cells: Vec<&str> = r.split(',').collect();
                keep.iter().map(|&j| cells[j]).collect::<Vec<_>>().join(",")
            })
            .collect();
        write_csv(dir.path(), name, &head.join(","), &body)
    };
    let predict = |file: &Path| {
        vec![
            "predict".to_string(),
            "--model-file".to_string(),
            model.display().to_string(),
            "--data".to_string(),
            file.display().to_string(),
        ]
    };
    // Four features and the target: refused, naming the missing column.
    refused(
        &predict(&pick("four.csv", &[0, 1, 2, 3, 5])),
        1,
        &[
            "four.csv",
            "missing `suction_side_displacement_thickness_m`",
            "`target` is the training file's target",
        ],
    );
    // Reordered features: refused.
    refused(&predict(&pick("moved.csv", &[1, 0, 2, 3, 4])), 1, &["another order"]);
    // The features alone, or with the target: accepted, the same predictions.
    let (code, alone, err) = run(&predict(&pick("features.csv", &[0, 1, 2, 3, 4])));
    assert_eq!(code, Some(0), "{err}");
    let (code, with, err) = run(&predict(&pick("all.csv", &[0, 1, 2, 3, 4, 5])));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(alone.lines().count(), 20);
    assert_eq!(alone, with);
}

/// An empty label cell became a class `""` (an empty feature cell is
/// refused).
#[test]
fn an_empty_class_label_is_refused() {
    let dir = temp_dir("round2-label");
    let rows: Vec<String> = (0..12)
        .map(|i| {
            let label = match i {
                4 => "",
                _ if i % 2 == 0 => "yes",
                _ => "no",
            };
            format!("{},{},{label}", i, (i * 7) % 5)
        })
        .collect();
    let file = write_csv(dir.path(), "labels.csv", "a,b,y", &rows);
    refused(
        &fit_on(&file, "classification", &["--model", "elm", "--hidden", "3"]),
        1,
        &["labels.csv line 6", "the class label (last column) is empty"],
    );
}

/// `nn update --forget` of rows never added was accepted, and the model
/// predicted about −1e300 after. Refused now, the model file untouched.
#[test]
fn forgetting_rows_never_added_is_refused() {
    let dir = temp_dir("round2-forget");
    let (header, rows) = airfoil_text();
    let first = write_csv(dir.path(), "first.csv", &header, &rows[..750]);
    let other = write_csv(dir.path(), "other.csv", &header, &rows[750..760]);
    let model = dir.path().join("u.bin");
    let mut args = fit_on(
        &first,
        "regression",
        &["--model", "elm", "--hidden", "50", "--updatable", "--save"],
    );
    args.push(model.display().to_string());
    report(&args);
    let before = std::fs::read(&model).expect("the model");
    let update = |what: &str, file: &Path| {
        vec![
            "update".to_string(),
            "--model-file".to_string(),
            model.display().to_string(),
            what.to_string(),
            file.display().to_string(),
        ]
    };
    refused(
        &update("--forget", &other),
        1,
        &["forgetting 10 row(s)", "the rows were not all added before"],
    );
    assert_eq!(
        std::fs::read(&model).expect("the model"),
        before,
        "the model file changed"
    );
    // Rows that were added are forgotten.
    let added = write_csv(dir.path(), "added.csv", &header, &rows[..10]);
    let j = report(&update("--forget", &added));
    assert_eq!(
        (j["rows_before"].as_u64(), j["rows_after"].as_u64()),
        (Some(750), Some(740))
    );
}

/// Targets near 1e300: the streamed RMSE was `inf` where the in-memory fit
/// gives a finite one (its squared errors overflow). Both now give the
/// same to 9 digits (the sums only change order, as in `cli_stream`).
#[test]
fn the_streamed_rmse_of_huge_targets_is_finite() {
    let dir = temp_dir("round2-huge-targets");
    let (header, rows) = airfoil_text();
    let huge: Vec<String> = rows[..300]
        .iter()
        .map(|r| {
            let (features, target) = r.rsplit_once(',').expect("a target");
            format!("{features},{:e}", target.parse::<f64>().expect("a number") * 1e296)
        })
        .collect();
    let file = write_csv(dir.path(), "huge.csv", &header, &huge);
    let base = ["--model", "elm", "--hidden", "20"];
    let whole = report(&fit_on(&file, "regression", &base))["train_metric"]
        .as_f64()
        .expect("rmse");
    let streamed = report(&fit_on(
        &file,
        "regression",
        &[&base[..], &["--chunk-rows", "7"]].concat(),
    ))["train_metric"]
        .as_f64()
        .expect("rmse");
    assert!(whole > 1e296 && whole.is_finite(), "{whole}");
    assert!(
        (streamed - whole).abs() <= 1e-9 * whole,
        "streamed {streamed} vs {whole}"
    );
}

/// A BLS on 1e300 features with `--scale none`: its hidden outputs
/// overflow; the message named neither the file nor the fix.
#[test]
fn overflowing_hidden_outputs_name_the_file_and_the_fix() {
    let dir = temp_dir("round2-overflow");
    let rows: Vec<String> = (0..40)
        .map(|i| {
            let (a, b) = ((i % 7) as f64 - 3.0, (i % 5) as f64 - 2.0);
            format!("{:e},{:e},{}", a * 1e300, b * 1e300, a + b)
        })
        .collect();
    let file = write_csv(dir.path(), "huge.csv", "a,b,y", &rows);
    refused(
        &fit_on(&file, "regression", &["--model", "bls", "--scale", "none"]),
        1,
        &["huge.csv", "hidden outputs are not finite", "--scale zscore"],
    );
}

/// Binary files given as CSV were shown as escaped bytes with a guess
/// about columns.
#[test]
fn binary_files_are_named_for_what_they_are() {
    let dir = temp_dir("round2-binary");
    let labels = dir.path().join("t10k-labels-idx1-ubyte");
    std::fs::write(&labels, common::idx_labels(&[1, 2, 3, 4, 5, 6])).expect("write");
    refused(
        &fit_on(&labels, "classification", &["--model", "elm", "--hidden", "3"]),
        1,
        &["an IDX labels file", "idx3-ubyte"],
    );
    let nul = dir.path().join("nul.csv");
    std::fs::write(&nul, b"a,b\n1,\0\n2,1\n").expect("write");
    refused(
        &fit_on(&nul, "classification", &["--model", "elm", "--hidden", "3"]),
        1,
        &["nul.csv", "binary data (a NUL byte at offset 6)"],
    );
}

/// The BPLS model's backprop trainers ran --max-epochs 10⁹ to the end (no
/// stop on progress); `--time-limit` stops them after the epoch it ends in,
/// with a result. With `--trainer bpls` (a fixed number of passes) it is
/// refused.
#[test]
fn backprop_stops_at_its_time_limit() {
    let dir = temp_dir("round2-backprop-time");
    let (header, rows) = airfoil_text();
    let file = write_csv(dir.path(), "a.csv", &header, &rows[..200]);
    let j = report(&fit_on(
        &file,
        "regression",
        &[
            "--model",
            "bpls",
            "--layers",
            "5",
            "--trainer",
            "adam",
            "--max-epochs",
            "1000000000",
            "--time-limit",
            "0.5",
        ],
    ));
    let termination = j["termination"].as_str().unwrap_or_default();
    assert!(termination.starts_with("time limit reached (--time-limit)"), "{j}");
    assert!(j["test_metric"].as_f64().is_some_and(f64::is_finite), "{j}");
    refused(
        &fit_on(
            &file,
            "regression",
            &["--model", "bpls", "--layers", "5", "--time-limit", "1"],
        ),
        2,
        &["--time-limit does not apply to --trainer bpls"],
    );
}

/// Progress on a stderr that cannot be written (`2>/dev/full`) panicked at
/// the first line; the fit now goes on and its report is on stdout, and a
/// failure still exits 1 or 2 (its error line is lost with stderr).
#[test]
fn a_full_stderr_does_not_stop_the_fit() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this machine");
        return;
    };
    let args = airfoil(&["--model", "elm", "--hidden", "10"]);
    let out = common::nn()
        .args(&args)
        .stderr(full.try_clone().expect("/dev/full"))
        .output()
        .expect("run nn");
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(json["test_metric"].as_f64().is_some_and(f64::is_finite), "{json}");
    let out = common::nn()
        .args(airfoil(&["--model", "elm"]))
        .stderr(full)
        .output()
        .expect("run nn");
    assert_eq!(out.status.code(), Some(2), "--hidden missing: a usage error");
}
