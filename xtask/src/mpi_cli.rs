//! The `nn fit --distributed` part of `cargo xtask test`'s MPI stage: the
//! command a user types, under `mpirun`.
//!
//! - `nn fit --distributed` on 1, 2 and 4 processes (every P-th chunk of
//!   one file per process) must report the one-process streamed fit's
//!   numbers (`n_train`, `n_test`, and the training and test metrics to 9
//!   significant digits) for the ELM (regression, airfoil) and the BLS
//!   (classification with class labels, pima). This checks the wiring —
//!   shards, the all-reduce of the scaler's statistics, the label sets and
//!   the metrics' sums —, whose mistakes move the metrics in the third
//!   digit or more; the weights' agreement within the bound derived from κ
//!   is checked by the `mpi_fit` example.
//! - `--train 'part-{rank}.csv.gz'` with the file of process 2 missing
//!   (3 processes): every process must exit non-zero with the error naming
//!   process 2, within the timeout.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::test::{build_artifact, run_with_timeout, MPI_TIMEOUT};
use crate::util;

/// One fit: the model's flags and the shipped file it trains and tests on.
struct Case {
    name: &'static str,
    file: &'static str,
    flags: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "ELM, regression",
        file: "data/airfoil/airfoil.csv.gz",
        flags: &[
            "--model",
            "elm",
            "--hidden",
            "60",
            "--lambda",
            "1e-3",
            "--task",
            "regression",
        ],
    },
    Case {
        name: "BLS, classification",
        file: "data/pima/pima.csv.gz",
        flags: &[
            "--model",
            "bls",
            "--feature-groups",
            "2",
            "--feature-nodes",
            "4",
            "--enhancement",
            "30",
            "--lambda",
            "1e-3",
            "--task",
            "classification",
        ],
    },
];

/// The numbers of a report compared across runs.
const KEYS: [&str; 4] = ["n_train", "n_test", "train_metric", "test_metric"];

/// The number after `"key":` in a one-line JSON report.
fn number(json: &str, key: &str) -> Option<f64> {
    let (_, rest) = json.split_once(&format!("\"{key}\":"))?;
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].trim().parse().ok()
}

/// The JSON line of a run's output.
fn report(text: &str) -> Option<&str> {
    text.lines().find(|l| l.trim_start().starts_with('{'))
}

/// Runs the stage with `mpirun` and its `launcher` flags.
pub fn nn_stage(root: &Path, mpirun: &Path, launcher: &[String]) -> Result<(), String> {
    let nn = build_artifact(root, "--bin", "nn")?;
    for case in CASES {
        let file = root.join(case.file);
        let file = file.to_string_lossy();
        let base: Vec<&str> = [case.flags, &["--train", &file, "--test", &file, "--chunk-rows", "100"]].concat();
        let mut one = Command::new(&nn);
        one.arg("fit").args(&base);
        let (out, _, _) = run_with_timeout(&mut one, MPI_TIMEOUT)?;
        let expected = report(&out.text)
            .filter(|_| out.success)
            .ok_or_else(|| format!("nn fit {} (one process) failed:\n{}", case.name, out.text))?
            .to_string();
        for p in [1usize, 2, 4] {
            let mut cmd = Command::new(mpirun);
            cmd.arg("-np")
                .arg(p.to_string())
                .args(launcher)
                .arg(&nn)
                .arg("fit")
                .args(&base)
                .arg("--distributed");
            let line = util::display(&cmd);
            eprintln!("$ {line}");
            let (out, timed_out, elapsed) = run_with_timeout(&mut cmd, MPI_TIMEOUT)?;
            if timed_out || !out.success {
                return Err(format!("`{line}` failed (timed out: {timed_out}):\n{}", out.text));
            }
            let got = report(&out.text).ok_or_else(|| format!("`{line}` printed no report:\n{}", out.text))?;
            for key in KEYS {
                let (a, b) = (number(&expected, key), number(got, key));
                let close = matches!((a, b), (Some(a), Some(b)) if (a - b).abs() <= 1e-9 * a.abs().max(1e-12));
                if !close {
                    return Err(format!("`{line}`: {key} {b:?}, one process {a:?}"));
                }
            }
            if p > 1 && number(got, "processes") != Some(p as f64) {
                return Err(format!("`{line}`: the report does not say {p} processes: {got}"));
            }
            eprintln!(
                "xtask test: mpirun -np {p} nn fit --distributed ({}): the one-process numbers ({})",
                case.name,
                util::seconds(elapsed)
            );
        }
    }
    missing_shard(&nn, mpirun, launcher, root)
}

/// Three processes, `part-{rank}.csv.gz` with process 2's file missing:
/// every process must fail naming it.
fn missing_shard(nn: &Path, mpirun: &Path, launcher: &[String], root: &Path) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("xtask-nn-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let source = root.join(CASES[0].file);
    for r in 0..2 {
        let to = dir.join(format!("part-{r}.csv.gz"));
        std::fs::copy(&source, &to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    let pattern: PathBuf = dir.join("part-{rank}.csv.gz");
    let pattern = pattern.to_string_lossy();
    let test = source.to_string_lossy();
    let mut cmd = Command::new(mpirun);
    cmd.args(["-np", "3"])
        .args(launcher)
        .arg(nn)
        .arg("fit")
        .args(CASES[0].flags)
        .args(["--train", &pattern, "--test", &test, "--distributed"]);
    let line = util::display(&cmd);
    eprintln!("$ {line}");
    let (out, timed_out, elapsed) = run_with_timeout(&mut cmd, MPI_TIMEOUT)?;
    let _ = std::fs::remove_dir_all(&dir);
    if timed_out {
        return Err(format!(
            "`{line}` hung and was killed after {} s",
            MPI_TIMEOUT.as_secs()
        ));
    }
    let errors = out
        .text
        .lines()
        .filter(|l| l.starts_with("nn: error: process 2: ") && l.contains("part-2.csv.gz"))
        .count();
    if out.success || errors != 3 {
        return Err(format!(
            "`{line}`: expected every one of 3 processes to fail naming process 2's file, got {errors} such errors (exit {}):\n{}",
            out.status, out.text
        ));
    }
    eprintln!(
        "xtask test: mpirun -np 3 nn fit --distributed with a missing shard: every process failed naming it ({})",
        util::seconds(elapsed)
    );
    Ok(())
}
