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

    let mut report = vec!["run", "--release", "-p", "benches", "--bin", "perf-report", "--"];
    if quick {
        report.push("--quick");
    }
    report.extend(["--out", REPORT]);
    util::run(&mut util::cargo(root, report))?;
    eprintln!("xtask bench: report written to {}", root.join(REPORT).display());

    let mut elm = vec!["run", "--release", "-p", "benches", "--bin", "elm-report", "--"];
    if quick {
        elm.push("--quick");
    }
    elm.extend(["--out", ELM_REPORT]);
    util::run(&mut util::cargo(root, elm))?;
    eprintln!("xtask bench: ELM report written to {}", root.join(ELM_REPORT).display());

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
