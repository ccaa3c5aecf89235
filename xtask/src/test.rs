//! `cargo xtask test`: the one command CI and contributors run.
//!
//! After `setup`, it runs the formatting check, clippy with warnings denied,
//! the tests of every target, then the doc tests (`--all-targets` leaves them
//! out), stopping at the first failure. At the end it prints one line with
//! the wall time of each stage. OpenBLAS environment variables are left as
//! they are.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::setup::{self, Tools};
use crate::util;

/// Runs setup and the four stages; `test_args` go after `--` of both
/// `cargo test` runs.
pub fn run(root: &Path, test_args: &[String], mpi_only: bool) -> Result<(), String> {
    let _ = mpi_only;
    setup::run(root, Tools::Required)?;

    let stages: Vec<(&str, Vec<String>)> = vec![
        ("fmt", strings(&["fmt", "--all", "--check"])),
        (
            "clippy",
            strings(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]),
        ),
        (
            "tests",
            with_test_args(&["test", "--workspace", "--all-targets"], test_args),
        ),
        ("doctests", with_test_args(&["test", "--workspace", "--doc"], test_args)),
    ];

    let mut timings: Vec<(&str, Duration)> = Vec::new();
    for (name, args) in &stages {
        let start = Instant::now();
        let result = util::run(&mut util::cargo(root, args));
        timings.push((name, start.elapsed()));
        if let Err(e) = result {
            eprintln!("xtask test: {} — {name} failed", summary(&timings));
            return Err(e);
        }
    }
    eprintln!("xtask test: {} — all passed", summary(&timings));
    Ok(())
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
fn with_test_args(base: &[&str], test_args: &[String]) -> Vec<String> {
    let mut args = strings(base);
    if !test_args.is_empty() {
        args.push("--".to_string());
        args.extend(test_args.iter().cloned());
    }
    args
}

/// Owned copies of `args`.
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}
