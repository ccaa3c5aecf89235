//! `cargo xtask reproduce [PAPER] [--quick] [--list]`: rerun the papers'
//! experiments.
//!
//! The reproductions and their registry live in the `experiments` crate,
//! which links BLAS, so xtask does not link it: it runs that crate's
//! `reproduce` binary, which checks the paper name (and every flag after
//! `--`) itself and lists the registry with `--list`. xtask keeps no list of
//! papers of its own.

use std::path::Path;

use crate::setup::{self, Tools};
use crate::util;

/// Where the `reproduce` binary of the `experiments` crate lives.
const REPRODUCE_BIN: &str = "crates/experiments/src/bin/reproduce.rs";

/// Runs setup, then the `experiments` crate's `reproduce` binary in release
/// mode (with `--list` when `list`), if it exists (otherwise says so and
/// succeeds). An unknown `paper` is reported by the binary, with the valid
/// names.
pub fn run(root: &Path, paper: Option<&str>, quick: bool, list: bool, extra: &[String]) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;

    if !root.join(REPRODUCE_BIN).is_file() {
        println!("nothing to reproduce yet: no paper's reproduction has landed (see the open issues)");
        return Ok(());
    }
    util::run(&mut util::cargo(root, binary_args(paper, quick, list, extra)))
}

/// The cargo arguments that run the `reproduce` binary with xtask's flags.
fn binary_args<'a>(paper: Option<&'a str>, quick: bool, list: bool, extra: &'a [String]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--release",
        "--quiet",
        "-p",
        "experiments",
        "--bin",
        "reproduce",
        "--",
    ];
    if list {
        args.push("--list");
    }
    args.extend(paper);
    if quick {
        args.push("--quick");
    }
    args.extend(extra.iter().map(String::as_str));
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_passed_to_the_binary() {
        let extra = vec!["--seeds".to_string(), "2".into()];
        let args = binary_args(Some("bls-ridge"), true, false, &extra);
        assert_eq!(args[7..], ["--", "bls-ridge", "--quick", "--seeds", "2"]);
        assert_eq!(binary_args(None, false, true, &[])[7..], ["--", "--list"]);
    }
}
