//! Bad inputs to `nn fit --model bpls` and the DFNN's exact last layer,
//! second round (issue 36), through the `nn` binary: a huge epoch count
//! (it panicked on "capacity overflow" or aborted on a 24 GB reservation),
//! diverging backprop for classification as for regression (it exited 0 with
//! a loss of 2.9e300 or a training MSE of 1.6e19), and layers wider than the
//! samples (a (width+1)² matrix: 28.8 GB aborted, 3.2 GB and minutes) —
//! each one clean error line naming the flag, or a correct result in little
//! memory.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fails, temp_dir};

/// `rows` samples of 3 features in `[−1, 1]` (a fixed sequence), with a
/// class label `i % 3` (`classes`) or the target `a + 2b − c`.
fn small_csv(dir: &Path, name: &str, rows: usize, classes: bool) -> String {
    let mut text = String::from("a,b,c,y\n");
    for i in 0..rows {
        let v = |j: usize| (((i * 7 + j * 13) % 23) as f64 / 11.0) - 1.0;
        let (a, b, c) = (v(0), v(1), v(2));
        let y = if classes { (i % 3) as f64 } else { a + 2.0 * b - c };
        text.push_str(&format!("{a},{b},{c},{y}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the data");
    path.display().to_string()
}

/// `nn fit --model bpls` on `file` (train = test) with `extra`.
fn bpls(file: &str, task: &str, extra: &[&str]) -> Vec<String> {
    let base = [
        "fit", "--train", file, "--test", file, "--task", task, "--model", "bpls",
    ];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// The address space `nn` gets in [`limited`]: 2 GB, less than any of the
/// (width+1)² matrices these fits used to allocate (3.2 GB and up), far
/// more than they need now (under 200 MB resident).
const ADDRESS_SPACE_KB: u64 = 2_000_000;

/// `nn ARGS…` with its address space limited to [`ADDRESS_SPACE_KB`]
/// (`ulimit -v`): an allocation beyond it aborts the run instead of
/// swapping the machine. Exit code, stdout, stderr.
fn limited(args: &[String]) -> (Option<i32>, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE_KB} && exec \"$0\" \"$@\""))
        .arg(PathBuf::from(env!("CARGO_BIN_EXE_nn")))
        .args(args)
        .output()
        .expect("run nn under sh");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON of a [`limited`] run that must succeed.
fn limited_json(args: &[String]) -> serde_json::Value {
    let (code, stdout, stderr) = limited(args);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    serde_json::from_str(stdout.trim()).expect("one JSON object")
}

/// A message of a diverged run: the flag, the verdict, a smaller value.
fn assert_names_the_learning_rate(error: &str, eta: &str) {
    for piece in [
        "backprop training failed: the steps of".to_string(),
        format!("with η = {eta} diverged"),
        "use a smaller learning rate (e.g. --learning-rate 1e-3)".to_string(),
    ] {
        assert!(error.contains(&piece), "{piece:?} not in {error}");
    }
}

/// `--max-epochs 18446744073709551615` panicked ("capacity overflow") and
/// `--max-epochs 1000000000` aborted reserving 24 GB before the first
/// epoch: now nothing is reserved by the count, and the run goes on until
/// something stops it — here a learning rate that diverges at once, so
/// the test ends in an epoch or two, with the divergence's error.
#[test]
fn a_huge_epoch_count_reserves_nothing() {
    let dir = temp_dir("bad-bpls-epochs");
    let file = small_csv(dir.path(), "c.csv", 80, true);
    for (trainer, epochs) in [("adam", "18446744073709551615"), ("sgd", "1000000000")] {
        let args = bpls(
            &file,
            "classification",
            &[
                "--layers",
                "5",
                "--trainer",
                trainer,
                "--max-epochs",
                epochs,
                "--learning-rate",
                "1e300",
            ],
        );
        let (code, error) = fails(&args);
        assert_eq!(code, 1, "{error}");
        assert_names_the_learning_rate(&error, "1e300");
    }
}

/// A diverged run is an error for every trainer, for classification (the
/// cross-entropy stays finite: 2.9e300 was accepted) as for regression
/// (SGD at η = 1000: a finite training MSE of 1.6e19 was accepted), naming
/// --learning-rate and a smaller value.
#[test]
fn diverged_backprop_is_an_error_naming_the_learning_rate() {
    let dir = temp_dir("bad-bpls-eta");
    let classes = small_csv(dir.path(), "c.csv", 80, true);
    let targets = small_csv(dir.path(), "r.csv", 80, false);
    for trainer in ["adam", "nag", "sgd", "adagrad"] {
        for (file, task) in [(&classes, "classification"), (&targets, "regression")] {
            let args = bpls(
                file,
                task,
                &[
                    "--layers",
                    "5",
                    "--trainer",
                    trainer,
                    "--max-epochs",
                    "3",
                    "--learning-rate",
                    "1e300",
                ],
            );
            let (code, error) = fails(&args);
            assert_eq!(code, 1, "{trainer} {task}: {error}");
            assert_names_the_learning_rate(&error, "1e300");
        }
    }
    // Finite all along, far above the start: refused when it passes 10⁶×.
    let (_, error) = fails(&bpls(
        &targets,
        "regression",
        &["--layers", "5", "--trainer", "sgd", "--learning-rate", "1000"],
    ));
    assert_names_the_learning_rate(&error, "1e3");
    assert!(error.contains("more than 10⁶ times"), "{error}");
    // A reasonable rate still fits.
    let json = limited_json(&bpls(
        &targets,
        "regression",
        &[
            "--layers",
            "5",
            "--trainer",
            "sgd",
            "--learning-rate",
            "0.01",
            "--max-epochs",
            "3",
        ],
    ));
    assert!(json["train_metric"].as_f64().is_some_and(f64::is_finite), "{json}");
}

/// Layers wider than the samples: BPLS solves such a layer in the K×K dual
/// form. `--layers 60000` on 80 rows (a 60001² Gram matrix, 28.8 GB,
/// aborted) and `--layers 3` on 30 rows of 20000 features (20001², 3.2 GB
/// and over two minutes) both fit in a 2 GB address space, in seconds, and
/// fit their training data (more unknowns than samples: a near-exact fit).
#[test]
fn layers_wider_than_the_samples_fit_in_little_memory() {
    let dir = temp_dir("bad-bpls-wide");
    let targets = small_csv(dir.path(), "r.csv", 80, false);
    let json = limited_json(&bpls(&targets, "regression", &["--layers", "60000"]));
    let rmse = json["train_metric"].as_f64().unwrap_or(f64::NAN);
    assert!(rmse.is_finite() && rmse < 1e-3, "{json}");
    let mut text: String = (0..20000).map(|j| format!("f{j},")).collect();
    text.push_str("y\n");
    for i in 0..30usize {
        for j in 0..20000usize {
            let v = ((i * 31 + j * 17) % 101) as f64 / 50.0 - 1.0;
            text.push_str(&format!("{v},"));
        }
        text.push_str(&format!("{}\n", i % 2));
    }
    let wide = dir.path().join("wide.csv");
    std::fs::write(&wide, text).expect("write the data");
    let wide = wide.display().to_string();
    let json = limited_json(&bpls(&wide, "classification", &["--layers", "3", "--iterations", "0"]));
    assert_eq!(json["n_features"].as_u64(), Some(20000), "{json}");
    assert!(json["train_metric"].as_f64().is_some_and(|a| a >= 0.9), "{json}");
}

/// The DFNN's exact last layer solves a ridge problem on the (width+1)
/// columns of the last hidden layer: its Gram matrix is counted, so
/// `--layers 1000000 --exact-last-layer` (8 TB) is refused before anything
/// is allocated (the estimate without it, some 4 GB, let it through to the
/// allocator), naming the flags that reduce it.
#[test]
fn the_exact_last_layer_is_counted_before_allocating() {
    let dir = temp_dir("bad-dfnn-exact");
    let targets = small_csv(dir.path(), "r.csv", 80, false);
    let base = [
        "fit",
        "--train",
        &targets,
        "--test",
        &targets,
        "--task",
        "regression",
        "--model",
        "dfnn",
        "--layers",
        "1000000",
        "--exact-last-layer",
    ];
    let args: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    let (code, stdout, stderr) = limited(&args);
    assert_eq!(code, Some(2), "a command-line error: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nn: error: ")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    for piece in ["this fit needs about", "--layers", "or no --exact-last-layer"] {
        assert!(errors[0].contains(piece), "{piece:?} not in {}", errors[0]);
    }
}
