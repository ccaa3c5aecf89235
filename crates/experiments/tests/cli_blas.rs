//! `nn fit` names the BLAS it runs and warns when that BLAS's kernel leaves
//! the CPU's AVX2 or AVX-512 unused (issue 37: Debian's OpenBLAS 0.3.21
//! runs its generic Prescott kernel on an Emerald Rapids Xeon).

mod common;

use common::data;
use linalg_core::blas_info::{cpu_vector_units, AVX2_KERNELS};
use linalg_core::blas_kernel::{self, cpu_has, kernel_for, kernel_needs, Cpu};

/// `nn fit` of a small ELM with `coretype` as `OPENBLAS_CORETYPE` (`None`:
/// the environment's): the JSON's `blas` object and stderr.
fn fit(coretype: Option<&str>) -> (serde_json::Value, String) {
    match coretype {
        Some(c) => run_fit(&[(blas_kernel::CORETYPE, c)], false),
        None => run_fit(&[], false),
    }
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

/// `nn fit` of a small ELM, with `OPENBLAS_CORETYPE` removed from the
/// environment if `remove_coretype`, the variables of
/// [`blas_kernel`] cleared, then `env` set: the JSON's `blas` object and
/// stderr.
fn run_fit(env: &[(&str, &str)], remove_coretype: bool) -> (serde_json::Value, String) {
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
    if remove_coretype {
        cmd.env_remove(blas_kernel::CORETYPE);
    }
    cmd.env_remove(blas_kernel::CHOSEN_MARK);
    cmd.env_remove(blas_kernel::PRETEND_DETECTED);
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        json["hidden"].as_u64(),
        Some(5),
        "the arguments reach the program: {json}"
    );
    (json["blas"].clone(), stderr)
}

/// [`run_fit`]'s `blas` object.
fn fit_with(env: &[(&str, &str)], remove_coretype: bool) -> serde_json::Value {
    run_fit(env, remove_coretype).0
}

fn dynamic_arch(blas: &serde_json::Value) -> bool {
    blas["config"].as_str().is_some_and(|c| c.contains("DYNAMIC_ARCH"))
}

#[test]
fn a_set_coretype_is_never_overridden_even_where_the_kernel_is_generic() {
    for set in ["Prescott", "Haswell", "Core2"] {
        // The pretended generic kernel makes `nn` consider starting again;
        // the set variable must win.
        let blas = fit_with(
            &[
                (blas_kernel::CORETYPE, set),
                (blas_kernel::PRETEND_DETECTED, "Prescott"),
            ],
            false,
        );
        assert_eq!(blas["chosen_by"].as_str(), Some("environment"), "{blas}");
        if dynamic_arch(&blas) {
            assert_eq!(blas["kernel"].as_str(), Some(set), "{blas}");
        }
    }
}

#[test]
fn a_generic_kernel_is_replaced_by_the_one_for_this_cpu() {
    // What the library chose on an Emerald Rapids Xeon, pretended here: `nn`
    // starts again with the kernel `kernel_for` names for this CPU, with the
    // same arguments (the JSON's `hidden`), and says it chose it.
    let blas = fit_with(&[(blas_kernel::PRETEND_DETECTED, "Prescott")], true);
    let expected = Cpu::current().as_ref().and_then(kernel_for);
    match expected {
        Some(k) => {
            assert_eq!(blas["chosen_by"].as_str(), Some("chosen"), "{blas}");
            if dynamic_arch(&blas) {
                assert_eq!(blas["kernel"].as_str(), Some(k), "{blas}");
            }
            let cpu = Cpu::current().expect("x86-64");
            assert!(cpu_has(&cpu, kernel_needs(k).expect("a listed kernel")), "{cpu:?} {k}");
        }
        None => assert_eq!(blas["chosen_by"].as_str(), Some("library"), "{blas}"),
    }
}

#[test]
fn without_the_variable_the_kernel_uses_the_cpus_vector_units() {
    // No pretending: where OpenBLAS knows this CPU it keeps its own kernel
    // (`library`); where it does not (an Emerald Rapids Xeon and 0.3.21), `nn`
    // chose one (`chosen`). Either way an AVX2 kernel runs on a CPU with AVX2.
    let blas = fit_with(&[], true);
    let kernel = blas["kernel"].as_str().unwrap_or_default();
    let fast = AVX2_KERNELS.iter().any(|k| k.eq_ignore_ascii_case(kernel));
    if dynamic_arch(&blas) && cpu_vector_units().is_some() {
        assert!(fast, "{blas}");
    }
    let by = blas["chosen_by"].as_str().unwrap_or_default();
    assert!(by == "library" || by == "chosen", "{blas}");
}
