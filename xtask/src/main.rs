//! `cargo xtask` — project automation for this workspace, following
//! matklad's xtask convention (<https://github.com/matklad/cargo-xtask>).
//!
//! Run it through the alias in `.cargo/config.toml`:
//! `cargo xtask setup [--mpi] | test | reproduce | bench | wheel | fmt`. The commands are
//! declared in [`flags`]; each one has its own module. xtask depends on the
//! standard library only and links no BLAS, so it builds in seconds even on a
//! machine where OpenBLAS is not installed yet (`cargo xtask setup` installs it).

mod bench;
mod fit;
mod flags;
mod mpi_cli;
mod package;
mod python;
mod reproduce;
mod setup;
mod test;
mod util;
mod wheel;

use std::env;
use std::process::ExitCode;

use flags::Command;

/// Runs the command and turns an error into `xtask: error: …` and exit code
/// 1; `fit`, `predict` and `update` exit with `nn`'s status.
fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the arguments and dispatches to the command's module.
fn try_main() -> Result<ExitCode, String> {
    let command = flags::parse(env::args_os().skip(1))?;
    if command == Command::Help {
        print!("{}", flags::usage());
        return Ok(ExitCode::SUCCESS);
    }
    let root = util::workspace_root()?;
    match command {
        Command::Fit { args } => fit::run(&root, "fit", &args),
        Command::Predict { args } => fit::run(&root, "predict", &args),
        Command::Update { args } => fit::run(&root, "update", &args),
        Command::Export { args } => fit::run(&root, "export", &args),
        other => run(&root, other).map(|()| ExitCode::SUCCESS),
    }
}

/// Runs a command whose failure is xtask's own error.
fn run(root: &std::path::Path, command: Command) -> Result<(), String> {
    match command {
        Command::Help => Ok(()),
        Command::Setup { mpi } => {
            setup::run(root, setup::Tools::Required)?;
            if mpi {
                setup::ensure_mpi()?;
            }
            Ok(())
        }
        Command::Test {
            test_args,
            mpi_only,
            python_only,
            package_only,
        } => test::run(root, &test_args, mpi_only, python_only, package_only),
        Command::Reproduce {
            paper,
            quick,
            list,
            extra,
        } => reproduce::run(root, paper.as_deref(), quick, list, &extra),
        Command::Bench { quick, criterion } => bench::run(root, quick, criterion),
        Command::Wheel { check } => wheel::run(root, check),
        Command::Fit { .. } | Command::Predict { .. } | Command::Update { .. } | Command::Export { .. } => Ok(()),
        Command::Fmt { check } => {
            let mut args = vec!["fmt", "--all"];
            if check {
                args.push("--check");
            }
            util::run(&mut util::cargo(root, args))
        }
    }
}
