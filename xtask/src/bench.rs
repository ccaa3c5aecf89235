//! `cargo xtask bench [--quick] [--no-criterion]`: the performance report and
//! the criterion benchmarks of the `benches` package.

use std::path::Path;

use crate::setup::{self, Tools};
use crate::util;

/// Where the performance report is written, relative to the workspace root.
const REPORT: &str = "target/perf-report.md";
/// Where the ELM report (issue 3 §5: MNIST fit and one-node update) goes.
const ELM_REPORT: &str = "target/elm-report.md";

/// Runs setup, writes the performance report with `perf-report` and the ELM
/// report with `elm-report`, then (if
/// `criterion`) runs the `ridge_append` criterion benchmark; `quick` makes
/// both shorter.
pub fn run(root: &Path, quick: bool, criterion: bool) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;

    for (binary, out, what) in [
        ("perf-report", REPORT, "report"),
        ("elm-report", ELM_REPORT, "ELM report"),
    ] {
        let mut args = vec!["run", "--release", "-p", "benches", "--bin", binary, "--"];
        if quick {
            args.push("--quick");
        }
        args.extend(["--out", out]);
        util::run(&mut util::cargo(root, args))?;
        eprintln!("xtask bench: {what} written to {}", root.join(out).display());
    }

    if criterion {
        let mut bench = vec!["bench", "-p", "benches", "--bench", "ridge_append"];
        if quick {
            bench.extend(["--", "--quick"]);
        }
        util::run(&mut util::cargo(root, bench))?;
    } else {
        eprintln!("xtask bench: criterion benchmarks skipped (--no-criterion)");
    }
    Ok(())
}
