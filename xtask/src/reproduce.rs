//! `cargo xtask reproduce [PAPER] [--quick]`: rerun the papers' experiments.
//!
//! The reproductions live in the `experiments` crate, which links BLAS, so
//! xtask does not link it: it runs that crate's `reproduce` binary instead,
//! once the binary exists. Paper names are checked here first, against
//! [`PAPERS`].

use std::path::Path;

use crate::setup::{self, Tools};
use crate::util;

/// The papers a reproduction is planned for, as `(name, description)`.
///
/// Keep in step with `experiments::papers()` as reproductions land.
pub const PAPERS: &[(&str, &str)] = &[
    ("zhu-wei", "inverse-free extreme learning machine (Zhu & Wei)"),
    (
        "bls-ridge",
        "ridge solutions for the Broad Learning System (Zhu et al.)",
    ),
    (
        "dec",
        "single-hidden-layer network trained by DEC (Grippo, Manno & Sciandrone)",
    ),
    ("b2ld", "deep network trained by B2LD (Palagi & Seccia)"),
    ("bpls", "deep network trained by BPLS (Tomic et al.)"),
];

/// Where the `reproduce` binary of the `experiments` crate will live.
const REPRODUCE_BIN: &str = "crates/experiments/src/bin/reproduce.rs";

/// Validates `paper`, runs setup, then runs the `experiments` crate's
/// `reproduce` binary in release mode if it exists (otherwise says so and
/// succeeds).
pub fn run(root: &Path, paper: Option<&str>, quick: bool, extra: &[String]) -> Result<(), String> {
    if let Some(paper) = paper {
        if !PAPERS.iter().any(|(name, _)| *name == paper) {
            let valid: Vec<&str> = PAPERS.iter().map(|(name, _)| *name).collect();
            return Err(format!("unknown paper `{paper}`; valid names: {}", valid.join(", ")));
        }
    }

    setup::run(root, Tools::Optional)?;

    if !root.join(REPRODUCE_BIN).is_file() {
        println!("nothing to reproduce yet: no paper's reproduction has landed (see the open issues)");
        return Ok(());
    }

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
    args.extend(paper);
    if quick {
        args.push("--quick");
    }
    args.extend(extra.iter().map(String::as_str));
    util::run(&mut util::cargo(root, args))
}
