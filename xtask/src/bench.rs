//! `cargo xtask bench [--quick] [--no-criterion]`: the performance report and
//! the criterion benchmarks of the `benches` package.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::setup::{self, Tools};
use crate::util;

/// Where the performance report is written, relative to the workspace root.
const REPORT: &str = "target/perf-report.md";
/// Where the ELM report (issue 3 §5: MNIST fit and one-node update) goes.
const ELM_REPORT: &str = "target/elm-report.md";
/// Where the L-BFGS report (ours beside argmin's: the Moré–Garbow–Hillstrom
/// problems, per-iteration overhead at large n) goes.
const LBFGS_REPORT: &str = "target/lbfgs-report.md";
/// Where the DEC report (Grippo et al.: DEC on cod-rna against the paper
/// and its floors, our L-BFGS beside scipy's L-BFGS-B) goes.
const DEC_REPORT: &str = "target/dec-report.md";
/// Where the deep-network report (Palagi & Seccia: kernels on [10 x 50]
/// against their floor, full L-BFGS beside scikit-learn) goes.
const DFNN_REPORT: &str = "target/dfnn-report.md";
/// Where the BPLS report (Tomic et al.: one BPLS epoch on MNIST against its
/// floor, backprop per epoch with each rule, Adam beside scikit-learn) goes.
const BPLS_REPORT: &str = "target/bpls-report.md";
/// Where the report on fits beyond one in-memory fit (rows added and
/// forgotten against their floor, a streamed ELM against in memory, peak
/// memory as the rows grow) goes.
const STREAM_REPORT: &str = "target/stream-report.md";
/// Where the report on choosing λ and the size (issue 22: leave-one-out
/// against one fit, growing against refitting) goes.
const SELECT_REPORT: &str = "target/select-report.md";
/// The criterion benchmarks of the `benches` package, run in this order.
const CRITERION_BENCHES: [&str; 2] = ["ridge_append", "lbfgs_overhead"];

/// Runs setup, writes the performance report with `perf-report`, the ELM
/// report with `elm-report`, the L-BFGS report with `lbfgs-report` and the
/// DEC report with `dec-report`, the deep-network report with
/// `dfnn-report`, the BPLS report with `bpls-report`, the report on
/// streamed and updated fits with `stream-report`, the report on choosing
/// λ and the size with `select-report`, then (if `criterion`)
/// runs the criterion benchmarks `ridge_append` and `lbfgs_overhead`;
/// `quick` makes all of them shorter. The reports that compare with Python
/// (`elm-report`: numpy; `dec-report`: scipy; `dfnn-report` and
/// `bpls-report`: scikit-learn) run the `python3` of a virtual environment when
/// [`python_venv`] finds one, else the one on `PATH`.
pub fn run(root: &Path, quick: bool, criterion: bool) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;
    let venv = python_venv(root, std::env::var_os("VIRTUAL_ENV"));
    match &venv {
        Some(v) => eprintln!("xtask bench: Python from the virtual environment {}", v.display()),
        None => eprintln!("xtask bench: no virtual environment found; Python (if any) from PATH"),
    }

    for (binary, out, what) in [
        ("perf-report", REPORT, "report"),
        ("elm-report", ELM_REPORT, "ELM report"),
        ("lbfgs-report", LBFGS_REPORT, "L-BFGS report"),
        ("dec-report", DEC_REPORT, "DEC report"),
        ("dfnn-report", DFNN_REPORT, "deep-network report"),
        ("bpls-report", BPLS_REPORT, "BPLS report"),
        ("stream-report", STREAM_REPORT, "report on streamed and updated fits"),
        ("select-report", SELECT_REPORT, "report on choosing λ and the size"),
    ] {
        let mut args = vec!["run", "--release", "-p", "benches", "--bin", binary, "--"];
        if quick {
            args.push("--quick");
        }
        args.extend(["--out", out]);
        let mut cmd = util::cargo(root, args);
        if let Some(path) = venv.as_deref().and_then(path_with_venv) {
            cmd.env("PATH", path);
        }
        util::run(&mut cmd)?;
        eprintln!("xtask bench: {what} written to {}", root.join(out).display());
    }

    python_report(root, quick)?;

    if criterion {
        for name in CRITERION_BENCHES {
            let mut bench = vec!["bench", "-p", "benches", "--bench", name];
            if quick {
                bench.extend(["--", "--quick"]);
            }
            util::run(&mut util::cargo(root, bench))?;
        }
    } else {
        eprintln!("xtask bench: criterion benchmarks skipped (--no-criterion)");
    }
    Ok(())
}

/// Where the Python package's report (issue 23: wrapper overhead against
/// the Rust command, the ELM beside hpelm and scikit-elm, the trainers beside
/// scikit-learn's MLPClassifier) goes.
const PYTHON_REPORT: &str = "target/python-report.md";

/// The peers the Python package's report compares with, installed into the
/// package's virtual environment when they can be (a peer that does not
/// install is reported as not run). scikit-elm imports dask without
/// requiring it.
const PYTHON_PEERS: &[&str] = &["hpelm", "scikit-elm", "dask[dataframe,distributed]"];

/// `benches/python_estimators.py` in the package's virtual environment
/// ([`crate::python`]: the package built in release), with
/// `OPENBLAS_NUM_THREADS` removed as a Python user's environment has it.
fn python_report(root: &Path, quick: bool) -> Result<(), String> {
    let python = crate::python::ensure_venv(root, &[])?;
    crate::python::install_package(root, &python)?;
    let mut peers = std::process::Command::new(&python);
    peers
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(PYTHON_PEERS);
    if let Err(e) = util::run(&mut peers) {
        eprintln!("xtask bench: the Python peers did not install ({e}); the report says which did not run");
    }
    let mut cmd = std::process::Command::new(&python);
    cmd.arg(root.join("benches").join("python_estimators.py"))
        .arg(root)
        .arg(root.join(PYTHON_REPORT))
        .env_remove("OPENBLAS_NUM_THREADS")
        .current_dir(root);
    if quick {
        cmd.arg("--quick");
    }
    util::run(&mut cmd)?;
    eprintln!(
        "xtask bench: Python package report written to {}",
        root.join(PYTHON_REPORT).display()
    );
    Ok(())
}

/// The virtual environment whose `python3` the reports use: `virtual_env`
/// (`$VIRTUAL_ENV`, an activated one), else `.venv` or `venv` in the
/// workspace, else `venv` beside it; the first that has `bin/python3`.
pub fn python_venv(root: &Path, virtual_env: Option<OsString>) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = virtual_env
        .into_iter()
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .collect();
    candidates.extend([root.join(".venv"), root.join("venv")]);
    if let Some(parent) = root.parent() {
        candidates.push(parent.join("venv"));
    }
    candidates.into_iter().find(|v| v.join("bin").join("python3").is_file())
}

/// `PATH` with `venv/bin` first.
fn path_with_venv(venv: &Path) -> Option<OsString> {
    let mut dirs = vec![venv.join("bin")];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_venv_prefers_the_active_one_then_the_workspace_then_beside_it() {
        let base = std::env::temp_dir().join(format!("xtask-venv-{}", std::process::id()));
        let root = base.join("ws");
        let make = |dir: &Path| {
            std::fs::create_dir_all(dir.join("bin")).unwrap();
            std::fs::write(dir.join("bin").join("python3"), "").unwrap();
        };
        std::fs::create_dir_all(&root).unwrap();
        assert_eq!(python_venv(&root, None), None);
        make(&base.join("venv"));
        assert_eq!(python_venv(&root, None), Some(base.join("venv")));
        make(&root.join(".venv"));
        assert_eq!(python_venv(&root, None), Some(root.join(".venv")));
        let active = base.join("active");
        make(&active);
        assert_eq!(python_venv(&root, Some(active.clone().into())), Some(active));
        // An active environment without python3 is passed over.
        assert_eq!(
            python_venv(&root, Some(base.join("missing").into())),
            Some(root.join(".venv"))
        );
        let path = path_with_venv(&root.join(".venv")).unwrap();
        assert_eq!(
            std::env::split_paths(&path).next(),
            Some(root.join(".venv").join("bin"))
        );
        std::fs::remove_dir_all(&base).unwrap();
    }
}
