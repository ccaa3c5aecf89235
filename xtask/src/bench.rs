//! `cargo xtask bench [--quick] [--no-criterion]`: the performance report and
//! the criterion benchmarks of the `benches` package.

use std::path::Path;

use crate::setup::{self, Tools};
use crate::util;

/// Where the performance report is written, relative to the workspace root.
const REPORT: &str = "target/perf-report.md";
/// Where the ELM report (issue 3 §5: MNIST fit and one-node update) goes.
const ELM_REPORT: &str = "target/elm-report.md";
/// Where the L-BFGS report (ours beside argmin's: the Moré–Garbow–Hillstrom
/// problems, per-iteration overhead at large n) goes.
const LBFGS_REPORT: &str = "target/lbfgs-report.md";
/// The criterion benchmarks of the `benches` package, run in this order.
const CRITERION_BENCHES: [&str; 2] = ["ridge_append", "lbfgs_overhead"];

/// Runs setup, writes the performance report with `perf-report`, the ELM
/// report with `elm-report` and the L-BFGS report with `lbfgs-report`, then
/// (if `criterion`) runs the criterion benchmarks `ridge_append` and
/// `lbfgs_overhead`; `quick` makes all of them shorter.
pub fn run(root: &Path, quick: bool, criterion: bool) -> Result<(), String> {
    setup::run(root, Tools::Optional)?;

    for (binary, out, what) in [
        ("perf-report", REPORT, "report"),
        ("elm-report", ELM_REPORT, "ELM report"),
        ("lbfgs-report", LBFGS_REPORT, "L-BFGS report"),
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
        for name in CRITERION_BENCHES {
            let mut bench = vec!["bench", "-p", "benches", "--bench", name];
            if quick {
                bench.extend(["--", "--quick"]);
            }
            util::run(&mut util::cargo(root, bench))?;
        }
    } else {
        eprintln!("xtask bench: criterion benchmarks skipped (--no-criterion)");
    }
    Ok(())
}
