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
/// The features the report binaries are built with: `faer`, so that the
/// DGEMM table of `perf-report` and `elm-report` (`benches::dgemm_peers`,
/// issue 37) measures faer beside the project's BLAS and numpy's.
const REPORT_FEATURES: &str = "faer";
/// The reports that measure numpy's DGEMM beside the project's (and
/// `elm-report` its ELM fit), and so get a Python with numpy
/// ([`numpy_venv`]).
const NUMPY_REPORTS: [&str; 2] = ["perf-report", "elm-report"];

/// Runs setup, writes the performance report with `perf-report`, the ELM
/// report with `elm-report`, the L-BFGS report with `lbfgs-report` and the
/// DEC report with `dec-report`, the deep-network report with
/// `dfnn-report`, the BPLS report with `bpls-report`, the report on
/// streamed and updated fits with `stream-report`, the report on choosing
/// λ and the size with `select-report`, then (if `criterion`)
/// runs the criterion benchmarks `ridge_append` and `lbfgs_overhead`;
/// `quick` makes all of them shorter. The report binaries are built with
/// the `faer` feature ([`REPORT_FEATURES`]). The reports that compare with
/// Python (`dec-report`: scipy; `dfnn-report` and `bpls-report`:
/// scikit-learn; …) run the `python3` of a virtual environment when
/// [`python_venv`] finds one, else the one on `PATH`; `perf-report` and
/// `elm-report`, which measure numpy beside the project, run the one
/// [`numpy_venv`] gives: that environment if it has numpy, else the
/// package's ([`crate::python::ensure_venv`], which installs numpy).
pub fn run(root: &Path, quick: bool, criterion: bool) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;
    let venv = python_venv(root, std::env::var_os("VIRTUAL_ENV"));
    match &venv {
        Some(v) => eprintln!("xtask bench: Python from the virtual environment {}", v.display()),
        None => eprintln!("xtask bench: no virtual environment found; Python (if any) from PATH"),
    }
    let with_numpy = numpy_venv(root, venv.as_deref());

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
        let mut args = vec![
            "run",
            "--release",
            "-p",
            "benches",
            "--features",
            REPORT_FEATURES,
            "--bin",
            binary,
            "--",
        ];
        if quick {
            args.push("--quick");
        }
        args.extend(["--out", out]);
        let mut cmd = util::cargo(root, args);
        let env = if NUMPY_REPORTS.contains(&binary) {
            with_numpy.as_deref()
        } else {
            venv.as_deref()
        };
        if let Some(path) = env.and_then(path_with_venv) {
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
    crate::python::install_package(root)?;
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
    let mut sparse = std::process::Command::new(&python);
    sparse
        .arg(root.join("benches").join("sparse_inputs.py"))
        .arg(root.join(SPARSE_REPORT))
        .env_remove("OPENBLAS_NUM_THREADS")
        .current_dir(root);
    if quick {
        sparse.arg("--quick");
    }
    util::run(&mut sparse)?;
    eprintln!(
        "xtask bench: sparse-samples report written to {}",
        root.join(SPARSE_REPORT).display()
    );
    Ok(())
}

/// Where the sparse-samples report (issue 41: the ELM and the BLS on dense
/// and CSR samples of a text-like set, beside a scipy ELM) goes.
const SPARSE_REPORT: &str = "target/sparse-report.md";

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

/// The virtual environment `perf-report` and `elm-report` run Python from,
/// so that they measure numpy beside the project: `venv` (what
/// [`python_venv`] found) when its `python3` imports numpy; else the Python
/// package's environment, made or completed by
/// [`crate::python::ensure_venv`] (numpy, and threadpoolctl through
/// scikit-learn, which the numpy DGEMM script reads the BLAS kernel
/// from); else, when that cannot be made (no `python3`, no network), `venv`
/// as it is, and the reports say numpy was not run.
fn numpy_venv(root: &Path, venv: Option<&Path>) -> Option<PathBuf> {
    if let Some(v) = venv {
        let imports = std::process::Command::new(v.join("bin").join("python3"))
            .args(["-c", "import numpy"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if imports {
            return Some(v.to_path_buf());
        }
        eprintln!("xtask bench: {} has no numpy", v.display());
    }
    match crate::python::ensure_venv(root, &[]) {
        Ok(_) => {
            let dir = crate::python::venv_dir(root);
            eprintln!(
                "xtask bench: perf-report and elm-report run numpy from the package's virtual environment {}",
                dir.display()
            );
            Some(dir)
        }
        Err(e) => {
            eprintln!("xtask bench: no Python with numpy ({e}); perf-report and elm-report will say numpy was not run");
            venv.map(Path::to_path_buf)
        }
    }
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
