//! Issue 36, second round of bad inputs, for `--model slfn` (Grippo et al.'s
//! network, DEC) and `--model dfnn` (Palagi & Seccia's network): a huge
//! `--maxiter` ends (at `--time-limit`, or when progress stalls), a `--lambda`
//! that makes a fit diverge is named as the cause (not a data row), and every
//! parameter error names its flag. Each case goes through the binary; every
//! failure is a clean one (`common::fails`: one `nn: error:` line, no panic).

mod common;

use std::time::{Duration, Instant};

use common::{data, fails, nn};

fn fit_args(file: &str, task: &str, extra: &[&str]) -> Vec<String> {
    ["fit", "--train", file, "--test", file, "--task", task]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// `nn fit ARGS…` that must succeed: its JSON, and how long it took.
fn fit_json(args: &[String]) -> (serde_json::Value, Duration) {
    let started = Instant::now();
    let out = nn().args(args).output().expect("run nn");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "nn {args:?} failed: {stderr}");
    let json = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("one JSON object");
    (json, took)
}

/// `nn fit ARGS…` must fail cleanly with a message naming `flag`; the
/// message is returned.
fn fails_naming(args: &[String], flag: &str) -> String {
    let (_, line) = fails(args);
    assert!(line.contains(flag), "{args:?}: the error does not name {flag}: {line}");
    line
}

/// `--maxiter 1000000000 --time-limit 1` ends after about a second with a
/// result, for DEC and for the SLFN's L-BFGS (on CCPP, where neither stalls
/// within the second); the JSON says why it stopped and the objective trace
/// still never rises.
#[test]
fn slfn_huge_maxiter_stops_at_the_time_limit() {
    let ccpp = data("ccpp/ccpp.csv.gz");
    for trainer in ["dec", "lbfgs"] {
        let (j, took) = fit_json(&fit_args(
            &ccpp,
            "regression",
            &[
                "--model",
                "slfn",
                "--hidden",
                "5",
                "--trainer",
                trainer,
                "--maxiter",
                "1000000000",
                "--time-limit",
                "1",
            ],
        ));
        assert!(took < Duration::from_secs(6), "{trainer}: took {took:?}");
        let seconds = j["train_seconds"].as_f64().expect("train_seconds");
        assert!((1.0..3.0).contains(&seconds), "{trainer}: {seconds} s");
        assert_eq!(j["termination"], "time limit reached", "{trainer}: {j}");
        assert!(j["objective"].as_f64().is_some_and(f64::is_finite), "{j}");
        assert!(j["test_metric"].as_f64().is_some_and(f64::is_finite), "{j}");
        assert!(j["iterations"].as_u64().is_some_and(|i| i >= 1), "{j}");
        if trainer == "dec" {
            let trace: Vec<f64> = j["objective_trace"]
                .as_array()
                .expect("DEC's trace")
                .iter()
                .map(|v| v.as_f64().expect("a number"))
                .collect();
            assert_eq!(trace.len() as u64, j["iterations"].as_u64().unwrap_or(0));
            // E never rises (up to the rounding of recomputing it from the
            // stored outputs after a partial sweep).
            assert!(trace.windows(2).all(|t| t[1] <= t[0] * (1.0 + 1e-12)), "{trace:?}");
            assert_eq!(j["objective"].as_f64(), trace.last().copied());
        }
    }
}

/// Without `--time-limit`, a huge `--maxiter` still ends: the command line's
/// DEC and L-BFGS stop when progress stalls (documented in `--help`).
#[test]
fn slfn_huge_maxiter_stops_when_progress_stalls() {
    let pima = data("pima/pima.csv.gz");
    for trainer in ["dec", "lbfgs"] {
        let (j, took) = fit_json(&fit_args(
            &pima,
            "classification",
            &[
                "--model",
                "slfn",
                "--hidden",
                "3",
                "--trainer",
                trainer,
                "--maxiter",
                "1000000000",
            ],
        ));
        assert!(took < Duration::from_secs(20), "{trainer}: took {took:?}");
        assert_eq!(j["termination"], "relative decrease below tolerance", "{trainer}: {j}");
        assert!(j["iterations"].as_u64().is_some_and(|i| i < 1_000_000), "{j}");
    }
    // The paper's DEC(maxiter) is unchanged when it does not stall.
    let (j, _) = fit_json(&fit_args(
        &pima,
        "classification",
        &["--model", "slfn", "--hidden", "3", "--maxiter", "4"],
    ));
    assert_eq!(j["iterations"].as_u64(), Some(4), "{j}");
    assert_eq!(j["termination"], "iteration limit reached", "{j}");
    let help = nn().args(["fit", "--help"]).output().expect("run nn");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("stops when progress stalls"), "{help}");
    assert!(
        help.contains(&format!("{:e}", experiments::cli::trainer::DEC_RELATIVE_DECREASE)),
        "{help}"
    );
    assert!(help.contains("slfn: dec"), "--time-limit's help names the SLFN: {help}");
}

/// `--time-limit` applies to dec and lbfgs; the ELM (one solve) refuses it
/// by name, as it refuses a bad value, with the dfnn's own parser.
#[test]
fn slfn_time_limit_is_checked_by_name() {
    let pima = data("pima/pima.csv.gz");
    let slfn = |extra: &[&str]| {
        fit_args(
            &pima,
            "classification",
            &[&["--model", "slfn", "--hidden", "3"], extra].concat(),
        )
    };
    let e = fails_naming(&slfn(&["--trainer", "elm", "--time-limit", "1"]), "--time-limit");
    assert!(e.contains("does not apply to --trainer elm"), "{e}");
    for bad in ["0", "-1", "nan", "soon", "1e300"] {
        let e = fails_naming(&slfn(&["--time-limit", bad]), "--time-limit");
        assert!(e.len() < 300, "one short line: {e}");
    }
}

/// `--model dfnn --lambda 1e300`: a gradient norm that overflows is a failed
/// fit, not `"gradient_norm": null` with exit 0; the error names `--lambda`,
/// says it is ρ (with every trainer) and what to do.
#[test]
fn dfnn_lambda_that_overflows_is_named() {
    let airfoil = data("airfoil/airfoil.csv.gz");
    for trainer in ["b2ld", "lbfgs"] {
        let e = fails_naming(
            &fit_args(
                &airfoil,
                "regression",
                &[
                    "--model",
                    "dfnn",
                    "--layers",
                    "3",
                    "--trainer",
                    trainer,
                    "--lambda",
                    "1e300",
                ],
            ),
            "--lambda 1e300",
        );
        assert!(e.contains("is ρ") && e.contains("use a smaller --lambda"), "{e}");
        assert!(e.contains(&format!("the {trainer} fit failed")), "{e}");
    }
}

/// `--trainer bling --lambda 1e300` (and ig, and a ρ that is merely large):
/// the divergence is blamed on `--lambda`, not on a data row.
#[test]
fn dfnn_minibatch_divergence_blames_lambda_not_a_row() {
    let airfoil = data("airfoil/airfoil.csv.gz");
    for (trainer, rho) in [("bling", "1e300"), ("ig", "1e300"), ("bling", "1e10")] {
        let e = fails_naming(
            &fit_args(
                &airfoil,
                "regression",
                &[
                    "--model",
                    "dfnn",
                    "--layers",
                    "3",
                    "--trainer",
                    trainer,
                    "--lambda",
                    rho,
                ],
            ),
            &format!("--lambda {rho}"),
        );
        assert!(!e.contains("line ") && !e.contains("row"), "blames the data: {e}");
        assert!(e.contains("not finite") && e.contains("use a smaller --lambda"), "{e}");
    }
}

/// Parameter errors of both models name the flag first (`--lambda -1: …`),
/// whatever the model's own name for the value (τ_λ, τ_w, ρ).
#[test]
fn slfn_and_dfnn_parameter_errors_name_the_flag() {
    let pima = data("pima/pima.csv.gz");
    let slfn = |extra: &[&str]| {
        fit_args(
            &pima,
            "classification",
            &[&["--model", "slfn", "--hidden", "3"], extra].concat(),
        )
    };
    // A negative value after a space is the flag's value, not a flag.
    let line = fails_naming(&slfn(&["--lambda", "-1"]), "--lambda");
    assert!(line.starts_with("nn: error: --lambda -1: "), "{line}");
    fails_naming(&slfn(&["--tau-w", "-1"]), "--tau-w -1");
    for bad in ["-1", "nan", "inf", "-inf"] {
        let line = fails_naming(&slfn(&[&format!("--lambda={bad}")]), "--lambda");
        let value: f64 = bad.parse().unwrap_or(f64::NAN);
        assert!(line.starts_with(&format!("nn: error: --lambda {value}: ")), "{line}");
        assert!(line.contains("τ_λ must be finite and ≥ 0"), "{line}");
        let line = fails_naming(&slfn(&[&format!("--tau-w={bad}")]), "--tau-w");
        assert!(line.starts_with("nn: error: --tau-w "), "{line}");
        for trainer in ["lbfgs", "dec"] {
            let line = fails_naming(&slfn(&["--trainer", trainer, &format!("--lambda={bad}")]), "--lambda");
            assert!(line.starts_with("nn: error: --lambda "), "{line}");
        }
    }
    let no_hidden = |extra: &[&str]| fit_args(&pima, "classification", &[&["--model", "slfn"], extra].concat());
    fails_naming(&no_hidden(&["--hidden", "0"]), "--hidden");
    fails_naming(&no_hidden(&[]), "--hidden");
    fails_naming(&slfn(&["--maxiter", "0"]), "--maxiter");
    let dfnn = |extra: &[&str]| {
        fit_args(
            &pima,
            "classification",
            &[&["--model", "dfnn", "--layers", "3"], extra].concat(),
        )
    };
    let line = fails_naming(&dfnn(&["--lambda", "-1"]), "--lambda -1: ");
    assert!(line.contains("ρ must be finite"), "{line}");
    for bad in ["-1", "nan", "inf"] {
        let line = fails_naming(&dfnn(&[&format!("--lambda={bad}")]), "--lambda");
        assert!(line.starts_with("nn: error: --lambda ") && line.contains("ρ"), "{line}");
    }
    fails_naming(&dfnn(&["--trainer", "bling", "--batch-size", "0"]), "--batch-size");
    fails_naming(&dfnn(&["--trainer", "ig", "--max-epochs", "0"]), "--max-epochs");
    let no_layers = |extra: &[&str]| fit_args(&pima, "classification", &[&["--model", "dfnn"], extra].concat());
    fails_naming(&no_layers(&["--layers", "3,0"]), "--layers");
    fails_naming(&no_layers(&[]), "--layers");
}
