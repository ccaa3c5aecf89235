//! `cargo xtask test`: the one command CI and contributors run.
//!
//! After `setup`, it runs the formatting check, clippy with warnings denied,
//! the tests of every target, then the doc tests (`--all-targets` leaves them
//! out), then `cargo package` of the four libraries ([`crate::package`]: each
//! packaged and built from its package alone, against the others' packages,
//! as crates.io would, after removing what earlier runs unpacked), then the Python package's stage ([`crate::python`]: its venv,
//! `maturin develop --release`, pytest), then the MPI stage, stopping at the
//! first failure. At the end it
//! prints one line with the wall time of each stage. OpenBLAS environment
//! variables are left as they are.
//!
//! **MPI** (issue 21's data-parallel fits). When `mpirun`, `mpicc` and
//! libclang are there ([`setup::mpi_ready`]), clippy, the tests and the doc
//! tests all run with `--features experiments/mpi` (so the `distributed`
//! module and the `mpi_fit` example are linted and built with everything
//! else), and a last stage runs `mpirun -np 1, 2, 4` of the example's
//! sharded fits against the one-process fit, then its failure cases (one
//! process's shard empty, one process's reader failing) with 2 and 4
//! processes, where every process must exit with an error naming the
//! failing process; then `nn fit --distributed` itself ([`crate::mpi_cli`]).
//! Each `mpirun` has [`MPI_TIMEOUT`]: a hang is a failure.
//! With Open MPI, `--oversubscribe` lets 4 processes run on fewer cores and
//! `--allow-run-as-root` is passed when running as root. Otherwise the
//! stages run without the feature and the MPI stage prints `MPI tests
//! skipped: mpirun not found (cargo xtask setup --mpi installs it)`.
//!
//! Why one feature set for every stage rather than a separate MPI build:
//! rsmpi's build script (bindgen) turns on features of `syn` that the
//! workspace's derive macros share, so a build with the feature recompiles
//! serde's derives and everything above them — a second build of the whole
//! workspace (minutes on CI's two cores), where one build with the feature
//! costs only the MPI crates (tens of seconds).
//!
//! **In CI** (the environment variable `CI` set and not empty, as `.ci/run`
//! runs under), setup also installs MPI (`cargo xtask setup --mpi`), so the
//! MPI stage runs there. `cargo xtask test --mpi-only` runs setup and the MPI
//! stage alone.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::setup::{self, Tools};
use crate::util;

/// How long one `mpirun` of the MPI stage may take (a run takes about a
/// second; a process waiting for a failed one would wait forever).
pub(crate) const MPI_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs one stage, records its wall time in `timings`, and on failure
/// prints the times so far with the stage's name.
fn timed<'a>(
    timings: &mut Vec<(&'a str, Duration)>,
    name: &'a str,
    stage: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    let start = Instant::now();
    let result = stage();
    timings.push((name, start.elapsed()));
    if result.is_err() {
        eprintln!("xtask test: {} — {name} failed", summary(timings));
    }
    result
}

/// The `cargo package` stage ([`crate::package`]): what earlier runs left
/// removed, then the four libraries packaged and verified.
fn package_stage(root: &Path) -> Result<(), String> {
    for stale in crate::package::clear_stale(root)? {
        eprintln!("xtask test: removed the stale {}", stale.display());
    }
    util::run(&mut util::cargo(root, crate::package::args(root)))
}

/// The message when the MPI stage cannot run.
fn mpi_skipped(missing: &str) -> String {
    if missing.starts_with("mpirun") {
        "MPI tests skipped: mpirun not found (cargo xtask setup --mpi installs it)".to_string()
    } else {
        format!("MPI tests skipped: {missing} not found (cargo xtask setup --mpi installs it)")
    }
}

/// The feature that builds `experiments::distributed` and the `mpi_fit` example.
const MPI_FEATURE: &str = "experiments/mpi";

/// Runs setup and the stages; `test_args` go after `--` of both `cargo
/// test` runs. With `mpi_only`, only the MPI stage (which then fails when
/// `mpirun` is missing); with `python_only` or `package_only`, only that
/// stage.
pub fn run(
    root: &Path,
    test_args: &[String],
    mpi_only: bool,
    python_only: bool,
    package_only: bool,
) -> Result<(), String> {
    setup::run(root, Tools::Required)?;
    if package_only {
        let start = Instant::now();
        package_stage(root)?;
        eprintln!("xtask test: package {} — passed", util::seconds(start.elapsed()));
        return Ok(());
    }
    if python_only {
        let start = Instant::now();
        crate::python::stage(root, &[])?;
        eprintln!("xtask test: python {} — passed", util::seconds(start.elapsed()));
        return Ok(());
    }
    if in_ci() {
        eprintln!("xtask test: CI is set: making sure MPI is installed for the MPI stage");
        setup::ensure_mpi()?;
    }

    let mpi = setup::mpi_ready();
    // The same features for every cargo command (see the module's doc).
    let features: &[&str] = if mpi.is_ok() { &["--features", MPI_FEATURE] } else { &[] };
    let clippy = with(
        &["clippy", "--workspace", "--all-targets"],
        features,
        &["--", "-D", "warnings"],
    );
    let stages: Vec<(&str, Vec<String>)> = if mpi_only {
        match &mpi {
            Ok(()) => vec![("clippy", clippy)],
            Err(missing) => return Err(mpi_skipped(missing)),
        }
    } else {
        vec![
            ("fmt", strings(&["fmt", "--all", "--check"])),
            ("clippy", clippy),
            (
                "tests",
                with_test_args(
                    &with(&["test", "--workspace", "--all-targets"], features, &[]),
                    test_args,
                ),
            ),
            (
                "doctests",
                with_test_args(&with(&["test", "--workspace", "--doc"], features, &[]), test_args),
            ),
        ]
    };

    let mut timings: Vec<(&str, Duration)> = Vec::new();
    for (name, args) in &stages {
        timed(&mut timings, name, || util::run(&mut util::cargo(root, args)))?;
    }
    if !mpi_only {
        timed(&mut timings, "package", || package_stage(root))?;
        timed(&mut timings, "python", || crate::python::stage(root, &[]))?;
    }
    match &mpi {
        Ok(()) => timed(&mut timings, "mpi", || mpi_stage(root))?,
        Err(missing) => eprintln!("xtask test: {}", mpi_skipped(missing)),
    }
    eprintln!("xtask test: {} — all passed", summary(&timings));
    Ok(())
}

/// Whether we run in CI: `CI` set and not empty (GitHub Actions, GitLab and
/// this project's `.ci/run` set `CI=true`).
fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// One `mpirun` of the `mpi_fit` example.
struct MpiRun {
    processes: usize,
    /// `--case` of the example.
    case: &'static str,
}

/// What the MPI stage runs: the sharded fits on 1, 2 and 4 processes, then
/// the failure cases (the last process's shard empty, its reader failing).
const MPI_RUNS: &[MpiRun] = &[
    MpiRun {
        processes: 1,
        case: "fit",
    },
    MpiRun {
        processes: 2,
        case: "fit",
    },
    MpiRun {
        processes: 4,
        case: "fit",
    },
    MpiRun {
        processes: 2,
        case: "empty-shard",
    },
    MpiRun {
        processes: 4,
        case: "empty-shard",
    },
    MpiRun {
        processes: 2,
        case: "reader-error",
    },
    MpiRun {
        processes: 4,
        case: "reader-error",
    },
];

/// The MPI stage: the `mpi_fit` example (built by the tests stage, which
/// had the feature) under `mpirun`.
fn mpi_stage(root: &Path) -> Result<(), String> {
    let mpirun = util::find_on_path("mpirun").ok_or_else(|| mpi_skipped("mpirun"))?;
    let example = build_artifact(root, "--example", "mpi_fit")?;

    let version = util::capture(Command::new(&mpirun).arg("--version")).unwrap_or_default();
    let open_mpi = version.contains("Open MPI") || version.contains("OpenRTE");
    let root_user = util::is_root();
    let mut launcher: Vec<String> = Vec::new();
    if open_mpi {
        // More processes than cores (CI has 2).
        launcher.push("--oversubscribe".into());
        if root_user {
            launcher.push("--allow-run-as-root".into());
        }
    }
    for run in MPI_RUNS {
        run_mpi(&mpirun, &launcher, &example, run)?;
    }
    crate::mpi_cli::nn_stage(root, &mpirun, &launcher)
}

/// Builds the target `name` of kind `kind` (`--example`, `--bin`) with the
/// test profile and the MPI feature, as the tests stage did (nothing is
/// recompiled), and returns its path, read from cargo's JSON messages (so
/// wherever the target directory is).
pub(crate) fn build_artifact(root: &Path, kind: &str, name: &str) -> Result<PathBuf, String> {
    let args = [
        "build",
        "--workspace",
        "--features",
        MPI_FEATURE,
        "--profile",
        "test",
        kind,
        name,
    ];
    build_reporting(root, &args, name)
}

/// Runs `cargo ARGS --message-format json-render-diagnostics` and returns
/// the path of the executable `name` it built, read from cargo's JSON
/// messages (so wherever the target directory is).
pub(crate) fn build_reporting(root: &Path, args: &[&str], name: &str) -> Result<PathBuf, String> {
    let mut cmd = util::cargo(
        root,
        args.iter().chain(&["--message-format", "json-render-diagnostics"]),
    );
    let line = util::display(&cmd);
    eprintln!("$ {line}");
    let output = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not start `{line}`: {e}"))?;
    if !output.status.success() {
        return Err(format!("`{line}` failed"));
    }
    let messages = String::from_utf8_lossy(&output.stdout);
    let tag = format!("\"name\":\"{name}\"");
    messages
        .lines()
        .filter(|m| m.contains("\"reason\":\"compiler-artifact\"") && m.contains(&tag))
        .find_map(|m| {
            let (_, rest) = m.split_once("\"executable\":\"")?;
            let (path, _) = rest.split_once('"')?;
            Some(PathBuf::from(path))
        })
        .ok_or_else(|| format!("`{line}` did not report the {name} executable"))
}

/// Runs `mpirun -np P [launcher…] EXAMPLE --case CASE` with
/// [`MPI_TIMEOUT`] and checks its outcome: for `fit`, success and an `ok:`
/// line from every process; for a failure case, a non-zero exit and an
/// `error:` line from every process (the example checks that the error
/// names the failing process, and prints `wrong …` otherwise).
fn run_mpi(mpirun: &Path, launcher: &[String], example: &Path, run: &MpiRun) -> Result<(), String> {
    let p = run.processes;
    let mut cmd = Command::new(mpirun);
    cmd.arg("-np")
        .arg(p.to_string())
        .args(launcher)
        .arg(example)
        .args(["--case", run.case])
        .stdin(Stdio::null());
    let line = util::display(&cmd);
    eprintln!("$ {line}");
    let (output, timed_out, elapsed) = run_with_timeout(&mut cmd, MPI_TIMEOUT)?;
    let text = output.text;
    // The example's lines first, then mpirun's own messages.
    for l in text.lines() {
        eprintln!("  {l}");
    }
    if timed_out {
        return Err(format!(
            "`{line}` did not end within {} s (a process hangs) and was killed",
            MPI_TIMEOUT.as_secs()
        ));
    }
    let from = |r: usize, what: &str| {
        let prefix = format!("mpi_fit: process {r} of {p}: {what}");
        text.lines().any(|l| l.starts_with(&prefix))
    };
    let missing = |what: &str| -> Vec<String> { (0..p).filter(|&r| !from(r, what)).map(|r| r.to_string()).collect() };
    if run.case == "fit" {
        if !output.success {
            return Err(format!("`{line}` failed ({})", output.status));
        }
        let silent = missing("ok:");
        if !silent.is_empty() {
            return Err(format!(
                "`{line}`: no `ok:` line from process(es) {}",
                silent.join(", ")
            ));
        }
        eprintln!(
            "xtask test: mpirun -np {p} --case fit: every process checked ({})",
            util::seconds(elapsed)
        );
    } else {
        if output.success {
            return Err(format!("`{line}` succeeded; every process should have failed"));
        }
        if let Some(bad) = text
            .lines()
            .find(|l| l.starts_with("mpi_fit: ") && (l.contains(": wrong ") || l.contains(": check failed")))
        {
            return Err(format!("`{line}`: {bad}"));
        }
        let silent = missing("error:");
        if !silent.is_empty() {
            return Err(format!(
                "`{line}`: no error from process(es) {} (ended by mpirun before they failed on their own)",
                silent.join(", ")
            ));
        }
        eprintln!(
            "xtask test: mpirun -np {p} --case {}: every process failed with the error ({})",
            run.case,
            util::seconds(elapsed)
        );
    }
    Ok(())
}

/// What a command printed (stdout then stderr) and how it ended.
pub(crate) struct Output {
    pub(crate) success: bool,
    pub(crate) status: String,
    pub(crate) text: String,
}

/// Runs `cmd` in its own process group with stdout and stderr to temporary
/// files (no pipe for a stray process to hold open); after `timeout`, the
/// group gets SIGTERM (mpirun then ends its processes), then SIGKILL 10 s
/// later. Returns the output, whether it timed out, and the time taken.
pub(crate) fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<(Output, bool, Duration), String> {
    let dir = std::env::temp_dir();
    let tag = format!("xtask-mpi-{}-{}", std::process::id(), unique());
    let (out_path, err_path) = (dir.join(format!("{tag}.out")), dir.join(format!("{tag}.err")));
    let create = |p: &Path| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    cmd.stdout(create(&out_path)?).stderr(create(&err_path)?);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let line = util::display(cmd);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("could not start `{line}`: {e}"))?;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("`{line}`: {e}"))? {
            break status;
        }
        if start.elapsed() > timeout && !timed_out {
            timed_out = true;
            signal_group(child.id(), "TERM");
            let grace = Instant::now();
            while grace.elapsed() < Duration::from_secs(10) {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                thread::sleep(Duration::from_millis(100));
            }
            signal_group(child.id(), "KILL");
            let _ = child.kill();
        }
        thread::sleep(Duration::from_millis(50));
    };
    let elapsed = start.elapsed();
    let read = |p: &Path| {
        let text = fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let _ = fs::remove_file(p);
        text
    };
    let text = read(&out_path) + &read(&err_path);
    let status_text = match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "terminated by a signal".to_string(),
    };
    Ok((
        Output {
            success: status.success(),
            status: status_text,
            text,
        },
        timed_out,
        elapsed,
    ))
}

/// Sends `SIG<signal>` to the process group `pgid` (our child's own).
fn signal_group(pgid: u32, signal: &str) {
    let _ = Command::new("kill")
        .args([format!("-{signal}"), "--".to_string(), format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// A counter for temporary file names within this process.
fn unique() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `fmt 0.4 s, clippy 35.1 s, …`
fn summary(timings: &[(&str, Duration)]) -> String {
    timings
        .iter()
        .map(|(name, elapsed)| format!("{name} {}", util::seconds(*elapsed)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `base`, then `--` and `test_args` if there are any.
fn with_test_args(base: &[String], test_args: &[String]) -> Vec<String> {
    let mut args = base.to_vec();
    if !test_args.is_empty() {
        args.push("--".to_string());
        args.extend(test_args.iter().cloned());
    }
    args
}

/// `base`, `features` and `rest`, owned.
fn with(base: &[&str], features: &[&str], rest: &[&str]) -> Vec<String> {
    strings(&[base, features, rest].concat())
}

/// Owned copies of `args`.
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hanging_command_is_killed_with_its_children_after_the_timeout() {
        // A shell that waits for a child of its own, as mpirun for its processes.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & wait; echo never"]);
        let (output, timed_out, elapsed) = run_with_timeout(&mut cmd, Duration::from_millis(300)).expect("runs");
        assert!(timed_out);
        assert!(!output.success);
        assert!(!output.text.contains("never"));
        assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    }

    #[test]
    fn a_command_within_the_timeout_keeps_its_output_and_status() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let (output, timed_out, _) = run_with_timeout(&mut cmd, Duration::from_secs(30)).expect("runs");
        assert!(!timed_out);
        assert!(!output.success);
        assert_eq!(output.status, "exit code 3");
        assert_eq!(output.text, "out\nerr\n");
    }
}
