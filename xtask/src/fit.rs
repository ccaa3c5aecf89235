//! `cargo xtask fit …` and `cargo xtask predict …`: the user's commands.
//!
//! Training links BLAS, so xtask does not: it runs the `experiments` crate's
//! `nn` binary (release build) with the same arguments. That binary prints
//! exactly one JSON object (or the predictions) on stdout and its progress on
//! stderr; setup messages also go to stderr, so stdout stays machine-readable.
//!
//! `nn` runs in the directory the user ran `cargo xtask` from (cargo keeps
//! it for the alias), so relative paths in `--train`, `--save`, … mean what
//! they mean in the user's shell; the workspace is named by its manifest.
//! `nn`'s exit status is the command's: its one-line error is the message,
//! and xtask adds none of its own.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::setup::{self, Tools};
use crate::util;

/// Where the binary's source lives (it is built on first use).
const NN_BIN: &str = "crates/experiments/src/bin/nn.rs";

/// Runs setup, then `nn SUBCOMMAND ARGS…` in release mode in the user's
/// directory; returns `nn`'s exit status (or cargo's, if the build fails).
pub fn run(root: &Path, subcommand: &str, args: &[String]) -> Result<ExitCode, String> {
    setup::run(root, Tools::Optional)?;
    if !root.join(NN_BIN).is_file() {
        return Err(format!("`{subcommand}` is not available yet: {NN_BIN} has not landed"));
    }
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    util::run_status(&mut nn_command(root, &here, subcommand, args))
}

/// `cargo run … --bin nn -- SUBCOMMAND ARGS…` for the workspace at `root`,
/// run in the user's directory `here`.
fn nn_command(root: &Path, here: &Path, subcommand: &str, args: &[String]) -> Command {
    let mut cmd = util::cargo(root, ["run", "--release", "--quiet", "--manifest-path"]);
    cmd.arg(root.join("Cargo.toml"))
        .args(["-p", "experiments", "--bin", "nn", "--", subcommand])
        .args(args)
        .current_dir(here);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cd data && cargo xtask fit --train reg.csv --save m.bin` reads and
    /// writes in `data/`: nn runs there, and cargo finds the workspace by
    /// its manifest, not by the directory.
    #[test]
    fn nn_runs_in_the_users_directory_with_the_arguments_unchanged() {
        let root = Path::new("/ws");
        let here = Path::new("/ws/data");
        let args = ["--train".to_string(), "reg.csv".to_string()];
        let cmd = nn_command(root, here, "fit", &args);
        assert_eq!(cmd.get_current_dir(), Some(here));
        let words: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let tail = [
            "--manifest-path",
            "/ws/Cargo.toml",
            "-p",
            "experiments",
            "--bin",
            "nn",
            "--",
            "fit",
            "--train",
            "reg.csv",
        ];
        assert!(words.ends_with(&tail.map(String::from)), "{words:?}");
    }
}
