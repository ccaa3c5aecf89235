//! `cargo xtask reproduce [PAPER] [--quick] [--list]`: rerun the papers'
//! experiments.
//!
//! The reproductions and their registry live in the `experiments` crate,
//! which links BLAS, so xtask does not link it: it runs that crate's
//! `reproduce` binary, which checks the paper name (and every flag after
//! `--`) itself and lists the registry with `--list`. xtask keeps no list of
//! papers of its own.
//!
//! When tomic-bpls runs (named, or as one of all the papers) without a
//! `--data-dir` of its own, it runs a second time on Fashion-MNIST, the
//! paper's second data set (its Fig. 8, Fig. 9, Table II and half of Table
//! I), installed by setup from Debian's `dataset-fashion-mnist`; that report
//! goes to `results/tomic-bpls-fashion-mnist/`. Where the package cannot be
//! installed the second run is skipped with the command that installs it.

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
    util::run(&mut util::cargo(root, binary_args(paper, quick, list, extra)))?;
    if !runs_tomic_on_fashion(paper, list, extra) {
        return Ok(());
    }
    match setup::ensure_fashion_mnist() {
        Ok(dir) => {
            let dir = dir.to_string_lossy().into_owned();
            let with_dir: Vec<String> = extra.iter().cloned().chain(["--data-dir".into(), dir]).collect();
            util::run(&mut util::cargo(
                root,
                binary_args(Some(TOMIC), quick, false, &with_dir),
            ))
        }
        Err(e) => {
            eprintln!("reproduce: tomic-bpls on Fashion-MNIST skipped: {e}");
            Ok(())
        }
    }
}

/// The paper with a second data set.
const TOMIC: &str = "tomic-bpls";

/// Whether tomic-bpls also runs on Fashion-MNIST: it ran (named, or all
/// papers ran) and the user gave no `--data-dir` of their own.
fn runs_tomic_on_fashion(paper: Option<&str>, list: bool, extra: &[String]) -> bool {
    !list
        && paper.is_none_or(|p| p == TOMIC)
        && !extra.iter().any(|a| a == "--data-dir" || a.starts_with("--data-dir="))
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

    /// Fashion-MNIST follows tomic-bpls's run, named or as one of all, not a
    /// run of another paper, a listing, or a run on the user's own data.
    #[test]
    fn fashion_mnist_follows_tomic_only() {
        assert!(runs_tomic_on_fashion(Some("tomic-bpls"), false, &[]));
        assert!(runs_tomic_on_fashion(None, false, &[]));
        assert!(!runs_tomic_on_fashion(Some("zhu-wei"), false, &[]));
        assert!(!runs_tomic_on_fashion(None, true, &[]));
        assert!(!runs_tomic_on_fashion(
            Some("tomic-bpls"),
            false,
            &["--data-dir".into(), "/d".into()]
        ));
        assert!(!runs_tomic_on_fashion(
            Some("tomic-bpls"),
            false,
            &["--data-dir=/d".into()]
        ));
    }
}
