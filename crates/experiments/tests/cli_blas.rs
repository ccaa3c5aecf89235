//! `nn fit` names the BLAS it runs and warns when that BLAS's kernel leaves
//! the CPU's AVX2 or AVX-512 unused (issue 37: Debian's OpenBLAS 0.3.21
//! runs its generic Prescott kernel on an Emerald Rapids Xeon).

mod common;

use common::data;
use linalg_core::blas_info::{cpu_vector_units, AVX2_KERNELS};

/// `nn fit` of a small ELM with `coretype` as `OPENBLAS_CORETYPE` (`None`:
/// the environment's): the JSON's `blas` object and stderr.
fn fit(coretype: Option<&str>) -> (serde_json::Value, String) {
    let file = data("airfoil/airfoil.csv.gz");
    let mut cmd = common::nn();
    cmd.args([
        "fit",
        "--model",
        "elm",
        "--hidden",
        "5",
        "--task",
        "regression",
        "--train",
        &file,
        "--test",
        &file,
    ]);
    if let Some(c) = coretype {
        cmd.env("OPENBLAS_CORETYPE", c);
    }
    let out = cmd.output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (json["blas"].clone(), stderr)
}

/// The warning is given exactly when the kernel the JSON names is not one
/// of OpenBLAS's AVX2 kernels and the CPU has AVX2.
fn assert_warning_matches(blas: &serde_json::Value, stderr: &str) {
    let kernel = blas["kernel"].as_str().unwrap_or_default();
    assert!(!kernel.is_empty(), "{blas}");
    assert!(
        blas["config"].as_str().is_some_and(|c| c.contains("OpenBLAS")),
        "{blas}"
    );
    let fast = AVX2_KERNELS.iter().any(|k| k.eq_ignore_ascii_case(kernel));
    let warned = stderr.contains("nn: warning: OpenBLAS runs its");
    assert_eq!(warned, !fast && cpu_vector_units().is_some(), "{kernel}: {stderr}");
    if warned {
        assert!(stderr.contains(&format!("its {kernel} kernel")), "{stderr}");
        assert!(stderr.contains("OPENBLAS_CORETYPE"), "{stderr}");
    }
}

#[test]
fn the_report_names_the_blas_kernel_and_a_slow_one_is_warned_of() {
    // As the environment has it.
    let (blas, stderr) = fit(None);
    assert_warning_matches(&blas, &stderr);
    // The generic kernel, which every x86-64 CPU runs: warned of on a CPU
    // with AVX2 (where OpenBLAS honours the variable, the JSON says Prescott).
    let (blas, stderr) = fit(Some("Prescott"));
    assert_warning_matches(&blas, &stderr);
    if blas["config"].as_str().is_some_and(|c| c.contains("DYNAMIC_ARCH")) {
        assert_eq!(blas["kernel"].as_str(), Some("Prescott"), "{blas}");
        if cpu_vector_units().is_some() {
            assert!(stderr.contains("(OPENBLAS_CORETYPE=Prescott is set)"), "{stderr}");
        }
    }
}
