//! `cargo xtask fit …` and `cargo xtask predict …`: the user's commands.
//!
//! Training links BLAS, so xtask does not: it runs the `experiments` crate's
//! `nn` binary (release build) with the same arguments. That binary prints
//! exactly one JSON object (or the predictions) on stdout and its progress on
//! stderr; setup messages also go to stderr, so stdout stays machine-readable.

use std::path::Path;

use crate::setup::{self, Tools};
use crate::util;

/// Where the binary's source lives (it is built on first use).
const NN_BIN: &str = "crates/experiments/src/bin/nn.rs";

/// Runs setup, then `nn SUBCOMMAND ARGS…` in release mode.
pub fn run(root: &Path, subcommand: &str, args: &[String]) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;
    if !root.join(NN_BIN).is_file() {
        return Err(format!("`{subcommand}` is not available yet: {NN_BIN} has not landed"));
    }
    let mut cargo_args = vec![
        "run",
        "--release",
        "--quiet",
        "-p",
        "experiments",
        "--bin",
        "nn",
        "--",
        subcommand,
    ];
    cargo_args.extend(args.iter().map(String::as_str));
    util::run(&mut util::cargo(root, cargo_args))
}
