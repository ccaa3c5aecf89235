//! `cargo xtask setup`: make sure what the build needs outside Cargo is there.
//!
//! The workspace links the system OpenBLAS (which includes LAPACK). On Debian
//! and Ubuntu that is the package `libopenblas-dev`; the linker needs its
//! unversioned `libopenblas.so`, so that file is the primary check and
//! `pkg-config` / `ldconfig` only add evidence (the detection works without
//! them). When the library is missing and we may use `apt-get` (as root or
//! through password-less `sudo`), it is installed; otherwise the error says
//! which command to run. Running setup when everything is present changes
//! nothing. The `rustfmt` and `clippy` components are checked too, and
//! `python3` (the Python package's build script and tests need it; installed
//! with apt-get, `python3 python3-venv python3-pip`, under the same rules).
//!
//! `cargo xtask setup --mpi` ([`ensure_mpi`]) also makes sure of what the
//! `mpi` feature of the `experiments` crate needs (rsmpi, issue 21's
//! data-parallel fits): Open MPI's `mpirun` and `mpicc` (packages
//! `openmpi-bin`, `libopenmpi-dev`) and libclang for rsmpi's bindgen
//! (`libclang-dev`), installed with apt-get under the same rules as
//! OpenBLAS. `cargo xtask test` calls it when the environment variable `CI`
//! is set, so CI runs the MPI tests.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util;

/// Directories searched for the unversioned `libopenblas.so`.
const LIB_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread",
];

/// Where `libopenblas-dev` (or a hand-built OpenBLAS) puts `cblas.h`.
const HEADERS: &[&str] = &[
    "/usr/include/x86_64-linux-gnu/cblas.h",
    "/usr/include/cblas.h",
    "/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h",
    "/usr/include/aarch64-linux-gnu/cblas.h",
];

/// The file the linker needs.
const LIB_FILE: &str = "libopenblas.so";

/// The command a user without root rights should run.
const MANUAL_INSTALL: &str = "sudo apt-get update && sudo apt-get install -y libopenblas-dev pkg-config";

/// The command a user without root rights should run for `--mpi`.
const MANUAL_INSTALL_MPI: &str =
    "sudo apt-get update && sudo apt-get install -y libopenmpi-dev openmpi-bin libclang-dev";

/// The MPI packages `setup --mpi` installs (Open MPI's launcher and wrapper
/// compiler, libclang and its headers for bindgen).
const MPI_PACKAGES: &[&str] = &["libopenmpi-dev", "openmpi-bin", "libclang-dev"];

/// How the commands that build the workspace need the optional cargo components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tools {
    /// `rustfmt` and `clippy` are required: missing ones are an error.
    Required,
    /// `rustfmt` and `clippy` are nice to have: missing ones are a warning.
    Optional,
}

/// Ensures OpenBLAS is installed (installing it with apt-get if allowed) and
/// checks the `rustfmt` / `clippy` components according to `tools`.
pub fn run(root: &Path, tools: Tools) -> Result<(), String> {
    ensure_openblas()?;
    ensure_python()?;
    ensure_components(root, tools)
}

/// The Debian packages that give a Python 3 with its `venv` module: the
/// build of `crates/python` (PyO3's build script) runs `python3`, and the
/// package's tests make a virtual environment.
const PYTHON_PACKAGES: &[&str] = &["python3", "python3-venv", "python3-pip"];

/// Ensures `python3` is on `PATH`, installing it with apt-get when it is
/// missing and we may (as for OpenBLAS); does nothing when it is there.
fn ensure_python() -> Result<(), String> {
    if let Some(python) = util::find_on_path("python3") {
        eprintln!("setup: python3 found at {}", python.display());
        return Ok(());
    }
    let why = "python3 not found (the Python package's build and tests need it)";
    eprintln!("setup: {why}");
    let sudo = install_rights().map_err(|reason| {
        format!(
            "{why} and cannot be installed automatically ({reason}); install it with: sudo apt-get update && \
             sudo apt-get install -y {}",
            PYTHON_PACKAGES.join(" ")
        )
    })?;
    eprintln!("setup: installing {} with apt-get", PYTHON_PACKAGES.join(" "));
    util::run(&mut apt_get(sudo, &["update"]))?;
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(PYTHON_PACKAGES);
    util::run(&mut apt_get(sudo, &install))?;
    util::find_on_path("python3").map(|_| ()).ok_or_else(|| {
        format!(
            "apt-get installed {} but python3 is still not on PATH",
            PYTHON_PACKAGES.join(" ")
        )
    })
}

/// What the OpenBLAS detection found.
#[derive(Debug, Default)]
struct Detection {
    /// The unversioned `libopenblas.so` (the dev symlink the linker uses).
    library: Option<PathBuf>,
    /// A `cblas.h` from the development package.
    header: Option<PathBuf>,
    /// `pkg-config --modversion openblas`, if `pkg-config --exists openblas` succeeds.
    pkg_config: Option<String>,
    /// Whether `ldconfig -p` lists some `libopenblas.so*` (possibly only the runtime one).
    in_ld_cache: bool,
}

impl Detection {
    /// The extra evidence, e.g. `pkg-config openblas 0.3.21, ldconfig, cblas.h at …`.
    fn evidence(&self) -> String {
        let mut parts = Vec::new();
        if let Some(version) = &self.pkg_config {
            parts.push(format!("pkg-config openblas {version}"));
        }
        if self.in_ld_cache {
            parts.push("in the ldconfig cache".to_string());
        }
        if let Some(header) = &self.header {
            parts.push(format!("cblas.h at {}", header.display()));
        }
        parts.join(", ")
    }
}

/// Looks for OpenBLAS without changing anything.
fn detect() -> Detection {
    let mut detection = Detection::default();

    let mut dirs: Vec<PathBuf> = LIB_DIRS.iter().map(PathBuf::from).collect();
    if util::succeeds(Command::new("pkg-config").args(["--exists", "openblas"])) {
        let version = util::capture(Command::new("pkg-config").args(["--modversion", "openblas"]))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "(unknown version)".to_string());
        detection.pkg_config = Some(version);
        if let Some(libdir) = util::capture(Command::new("pkg-config").args(["--variable=libdir", "openblas"])) {
            let libdir = libdir.trim();
            if !libdir.is_empty() {
                dirs.push(PathBuf::from(libdir));
            }
        }
    }

    if let Some(cache) = ld_cache() {
        for line in cache.lines().filter(|line| line.contains(LIB_FILE)) {
            detection.in_ld_cache = true;
            // Lines look like "\tlibopenblas.so (libc6,x86-64) => /usr/lib/…/libopenblas.so".
            let name = line.split_whitespace().next().unwrap_or("");
            if name == LIB_FILE {
                if let Some((_, path)) = line.split_once("=> ") {
                    if let Some(dir) = Path::new(path.trim()).parent() {
                        dirs.push(dir.to_path_buf());
                    }
                }
            }
        }
    }

    // `exists` follows symlinks, so a dangling dev symlink does not count.
    detection.library = dirs.iter().map(|dir| dir.join(LIB_FILE)).find(|file| file.exists());
    detection.header = HEADERS.iter().map(PathBuf::from).find(|h| h.exists());
    detection
}

/// The output of `ldconfig -p` (ldconfig is often outside a user's `$PATH`).
fn ld_cache() -> Option<String> {
    ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .iter()
        .find_map(|program| util::capture(Command::new(program).arg("-p")))
}

/// Reports OpenBLAS if present, otherwise installs it or explains how to.
fn ensure_openblas() -> Result<(), String> {
    let detection = detect();
    if let Some(library) = &detection.library {
        report_found(library, &detection);
        return Ok(());
    }

    let why = if detection.pkg_config.is_some() || detection.in_ld_cache {
        format!("OpenBLAS runtime is present but the development file {LIB_FILE} (package libopenblas-dev) is missing")
    } else {
        format!("OpenBLAS ({LIB_FILE}, package libopenblas-dev) not found")
    };
    eprintln!("setup: {why}");

    let sudo = match install_rights() {
        Ok(sudo) => sudo,
        Err(reason) => {
            return Err(format!(
                "{why} and cannot be installed automatically ({reason}); install it with: \
                 {MANUAL_INSTALL}  (Fedora: sudo dnf install openblas-devel; macOS is not supported yet)"
            ))
        }
    };

    eprintln!("setup: installing libopenblas-dev with apt-get");
    util::run(&mut apt_get(sudo, &["update"]))?;
    util::run(&mut apt_get(
        sudo,
        &[
            "install",
            "-y",
            "--no-install-recommends",
            "libopenblas-dev",
            "pkg-config",
        ],
    ))?;

    let detection = detect();
    match &detection.library {
        Some(library) => {
            report_found(library, &detection);
            Ok(())
        }
        None => Err(format!(
            "apt-get installed libopenblas-dev but {LIB_FILE} is still not found in {} \
             (nor via pkg-config or ldconfig)",
            LIB_DIRS.join(", ")
        )),
    }
}

/// What the MPI detection found: `mpirun`, `mpicc` and libclang.
#[derive(Debug, Default)]
struct MpiDetection {
    mpirun: Option<PathBuf>,
    mpicc: Option<PathBuf>,
    libclang: Option<PathBuf>,
}

impl MpiDetection {
    /// The names of what is missing, e.g. `["mpicc", "libclang"]`.
    fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.mpirun.is_none() {
            missing.push("mpirun");
        }
        if self.mpicc.is_none() {
            missing.push("mpicc");
        }
        if self.libclang.is_none() {
            missing.push("libclang (libclang.so)");
        }
        missing
    }
}

/// Looks for `mpirun`, `mpicc` (on `$PATH`) and libclang without changing
/// anything.
fn detect_mpi() -> MpiDetection {
    MpiDetection {
        mpirun: util::find_on_path("mpirun"),
        mpicc: util::find_on_path("mpicc"),
        libclang: find_libclang(),
    }
}

/// The library bindgen loads: in `$LIBCLANG_PATH` (as bindgen reads it)
/// any `libclang*.so*` but `libclang-cpp`; otherwise the unversioned
/// `libclang.so` of `libclang-dev` (which brings clang's own headers, which
/// bindgen needs too) in an LLVM directory or a system library directory.
fn find_libclang() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("LIBCLANG_PATH") {
        let dir = PathBuf::from(dir);
        if dir.is_file() {
            return Some(dir);
        }
        let found = std::fs::read_dir(&dir).ok().and_then(|entries| {
            entries.flatten().map(|e| e.path()).find(|p| {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                name.starts_with("libclang") && !name.starts_with("libclang-cpp") && name.contains(".so")
            })
        });
        if found.is_some() {
            return found;
        }
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(libdir) = util::capture(Command::new("llvm-config").arg("--libdir")) {
        dirs.push(PathBuf::from(libdir.trim()));
    }
    // /usr/lib/llvm-N/lib, newest first.
    let mut llvm: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("llvm-")))
                .map(|p| p.join("lib"))
                .collect()
        })
        .unwrap_or_default();
    llvm.sort();
    dirs.extend(llvm.into_iter().rev());
    dirs.extend(LIB_DIRS.iter().map(PathBuf::from));
    dirs.iter()
        .map(|dir| dir.join("libclang.so"))
        .find(|file| file.exists())
}

/// `Ok(())` when `mpirun`, `mpicc` and libclang are all there (the `mpi`
/// feature builds and its tests can run), otherwise what is missing.
pub fn mpi_ready() -> Result<(), String> {
    let missing = detect_mpi().missing();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing.join(", "))
    }
}

/// Reports Open MPI and libclang if present, otherwise installs them
/// (`libopenmpi-dev openmpi-bin libclang-dev`) with apt-get or explains how
/// to, under the same rules as OpenBLAS (root or password-less `sudo`).
pub fn ensure_mpi() -> Result<(), String> {
    let detection = detect_mpi();
    let missing = detection.missing();
    if missing.is_empty() {
        report_mpi(&detection);
        return Ok(());
    }
    let why = format!("MPI tools for the `mpi` feature not found: {}", missing.join(", "));
    eprintln!("setup: {why}");
    let sudo = install_rights().map_err(|reason| {
        format!(
            "{why} and cannot be installed automatically ({reason}); install them with: \
             {MANUAL_INSTALL_MPI}  (Fedora: sudo dnf install openmpi-devel clang-devel, then `module load mpi`)"
        )
    })?;
    eprintln!("setup: installing {} with apt-get", MPI_PACKAGES.join(" "));
    util::run(&mut apt_get(sudo, &["update"]))?;
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(MPI_PACKAGES);
    util::run(&mut apt_get(sudo, &install))?;
    let detection = detect_mpi();
    let missing = detection.missing();
    if missing.is_empty() {
        report_mpi(&detection);
        Ok(())
    } else {
        Err(format!(
            "apt-get installed {} but {} still not found (mpirun and mpicc on $PATH, \
             libclang.so in /usr/lib/llvm-*/lib or {}, or set LIBCLANG_PATH)",
            MPI_PACKAGES.join(" "),
            missing.join(", "),
            LIB_DIRS.join(", ")
        ))
    }
}

/// Prints `setup: MPI found: mpirun at …, mpicc at …, libclang at …`.
fn report_mpi(detection: &MpiDetection) {
    let show = |p: &Option<PathBuf>| p.as_ref().map_or_else(String::new, |p| p.display().to_string());
    eprintln!(
        "setup: MPI found: mpirun at {}, mpicc at {}, libclang at {}",
        show(&detection.mpirun),
        show(&detection.mpicc),
        show(&detection.libclang)
    );
}

/// Prints `setup: OpenBLAS found at …`.
fn report_found(library: &Path, detection: &Detection) {
    let evidence = detection.evidence();
    if evidence.is_empty() {
        eprintln!("setup: OpenBLAS found at {}", library.display());
    } else {
        eprintln!("setup: OpenBLAS found at {} ({evidence})", library.display());
    }
}

/// Whether apt-get may be run: `Ok(false)` as root, `Ok(true)` through
/// `sudo -n`, or the reason why not.
fn install_rights() -> Result<bool, String> {
    if util::find_on_path("apt-get").is_none() {
        return Err("apt-get is not available".to_string());
    }
    if util::is_root() {
        return Ok(false);
    }
    if util::find_on_path("sudo").is_some() && util::succeeds(Command::new("sudo").args(["-n", "true"])) {
        return Ok(true);
    }
    Err("not root and password-less sudo is not available".to_string())
}

/// A non-interactive `apt-get` command, through `sudo -n env …` when `sudo`.
fn apt_get(sudo: bool, args: &[&str]) -> Command {
    let mut cmd = if sudo {
        // sudo resets the environment, so pass the variable through `env`.
        let mut cmd = Command::new("sudo");
        cmd.args(["-n", "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]);
        cmd
    } else {
        let mut cmd = Command::new("apt-get");
        cmd.env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    cmd.args(args);
    cmd
}

/// Checks `cargo fmt` and `cargo clippy`, adding them with rustup if needed.
fn ensure_components(root: &Path, tools: Tools) -> Result<(), String> {
    let missing = missing_components(root);
    if missing.is_empty() {
        eprintln!("setup: cargo fmt and cargo clippy are available");
        return Ok(());
    }

    let names = missing.join(" ");
    let problem = if util::find_on_path("rustup").is_some() {
        match util::run(Command::new("rustup").args(["component", "add", "rustfmt", "clippy"])) {
            Ok(()) => {
                let still = missing_components(root);
                if still.is_empty() {
                    eprintln!("setup: cargo fmt and cargo clippy are available");
                    return Ok(());
                }
                format!(
                    "`rustup component add rustfmt clippy` ran but {} still missing",
                    still.join(" and ")
                )
            }
            Err(e) => e,
        }
    } else {
        format!("the cargo component(s) {names} are missing and rustup is not installed")
    };

    let message = format!(
        "{problem}; install rustfmt and clippy for your toolchain (with rustup: `rustup component add rustfmt clippy`)"
    );
    match tools {
        Tools::Required => Err(message),
        Tools::Optional => {
            eprintln!("xtask: warning: {message}");
            Ok(())
        }
    }
}

/// The components among `rustfmt` and `clippy` whose cargo subcommand fails.
fn missing_components(root: &Path) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if !util::succeeds(&mut util::cargo(root, ["fmt", "--version"])) {
        missing.push("rustfmt");
    }
    if !util::succeeds(&mut util::cargo(root, ["clippy", "--version"])) {
        missing.push("clippy");
    }
    missing
}

/// Where Debian's `dataset-fashion-mnist` puts Fashion-MNIST's IDX files
/// (MIT licence, Zalando SE): Tomic et al.'s second data set.
pub const FASHION_MNIST_DIR: &str = "/usr/share/datasets/fashion-mnist";

/// The Debian package with Fashion-MNIST.
const FASHION_MNIST_PACKAGE: &str = "dataset-fashion-mnist";

/// The directory of Fashion-MNIST's IDX files, installing Debian's
/// `dataset-fashion-mnist` with apt-get when they are missing (under the
/// same rules as OpenBLAS: root or password-less `sudo`).
///
/// # Errors
/// What is missing and the command that installs it, when it cannot be
/// installed here.
pub fn ensure_fashion_mnist() -> Result<std::path::PathBuf, String> {
    let dir = Path::new(FASHION_MNIST_DIR);
    let present =
        || dir.join("train-images-idx3-ubyte.gz").is_file() && dir.join("t10k-labels-idx1-ubyte.gz").is_file();
    if present() {
        eprintln!("setup: Fashion-MNIST found in {FASHION_MNIST_DIR}");
        return Ok(dir.to_path_buf());
    }
    let why = format!("Fashion-MNIST (for tomic-bpls) not found in {FASHION_MNIST_DIR}");
    eprintln!("setup: {why}");
    let sudo = install_rights().map_err(|reason| {
        format!(
            "{why} and cannot be installed automatically ({reason}); install it with: sudo apt-get update && \
             sudo apt-get install -y {FASHION_MNIST_PACKAGE}"
        )
    })?;
    eprintln!("setup: installing {FASHION_MNIST_PACKAGE} with apt-get");
    util::run(&mut apt_get(sudo, &["update"]))?;
    util::run(&mut apt_get(
        sudo,
        &["install", "-y", "--no-install-recommends", FASHION_MNIST_PACKAGE],
    ))?;
    if present() {
        Ok(dir.to_path_buf())
    } else {
        Err(format!(
            "apt-get installed {FASHION_MNIST_PACKAGE} but {FASHION_MNIST_DIR} has no IDX files"
        ))
    }
}
