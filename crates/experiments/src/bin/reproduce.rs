//! `reproduce [PAPER] [--quick] [OPTIONS]` — run through `cargo xtask reproduce`.
//! Writes `results/<paper>/` (report.md, CSV, JSON, SVG).
//!
//! Options of `bls-ridge` (after `--` on the xtask command line):
//! `--seeds N` (networks per cell; full run default 1), `--lambdas E,E,…`
//! (λ = 2^E), `--strategies S,S,…`, `--time-budget-min M` (start no new
//! cell after M minutes), `--cells DIR` (where finished cells are kept and
//! reused; default `results/bls-ridge/cells`), `--out DIR`.

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::papers::{bls_ridge, zhu_wei};
use linalg_core::ridge::Strategy;

fn bls_options(args: &[String], quick: bool, root: &std::path::Path) -> Result<bls_ridge::Options, String> {
    let mut out = root.join("results/bls-ridge");
    let mut cells = None;
    let mut seeds = None;
    let mut lambdas = None;
    let mut strategies = None;
    let mut budget = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--quick" => {}
            "--seeds" => seeds = Some(value()?.parse::<usize>().map_err(|e| format!("--seeds: {e}"))?),
            "--lambdas" => {
                lambdas = Some(
                    value()?
                        .split(',')
                        .map(|e| e.trim().parse::<i32>().map_err(|e| format!("--lambdas: {e}")))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            "--strategies" => {
                strategies = Some(
                    value()?
                        .split(',')
                        .map(|s| s.trim().parse::<Strategy>().map_err(|e| format!("--strategies: {e}")))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            "--time-budget-min" => {
                budget = Some(value()?.parse::<f64>().map_err(|e| format!("--time-budget-min: {e}"))?)
            }
            "--cells" => cells = Some(PathBuf::from(value()?)),
            "--out" => out = PathBuf::from(value()?),
            other if other.starts_with("--") => return Err(format!("unknown option {other} for bls-ridge")),
            _ => {}
        }
    }
    let mut o = if quick {
        bls_ridge::Options::quick(out.clone())
    } else {
        bls_ridge::Options::full(out.clone(), 1)
    };
    o.out_dir = out.clone();
    o.cells_dir = cells.unwrap_or_else(|| out.join("cells"));
    if let Some(s) = seeds {
        o.seeds = s;
    }
    if let Some(l) = lambdas {
        o.lambda_exps = l;
    }
    if let Some(s) = strategies {
        o.strategies = s;
    }
    o.time_budget_min = budget;
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let known = ["zhu-wei", "bls-ridge", "dec", "b2ld", "bpls"];
    let papers: Vec<&str> = args.iter().map(String::as_str).filter(|a| known.contains(a)).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wanted = if papers.is_empty() {
        vec!["zhu-wei", "bls-ridge"]
    } else {
        papers
    };
    for paper in wanted {
        let result = match paper {
            "zhu-wei" => {
                let out = root.join("results/zhu-wei");
                let opts = if quick {
                    zhu_wei::Options::quick(out)
                } else {
                    zhu_wei::Options::full(out)
                };
                eprintln!(
                    "reproduce zhu-wei: {} (expected duration: {})",
                    if quick { "quick run" } else { "full protocol" },
                    if quick {
                        "about 15 seconds after the build"
                    } else {
                        "about 18 minutes on 2 cores"
                    }
                );
                zhu_wei::run(&opts)
            }
            "bls-ridge" => {
                let opts = match bls_options(&args, quick, &root) {
                    Ok(o) => o,
                    Err(e) => {
                        eprintln!("reproduce bls-ridge: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                eprintln!(
                    "reproduce bls-ridge: {} (expected duration: {})",
                    if quick { "quick run" } else { "full protocol" },
                    if quick {
                        "about 2 minutes after the build"
                    } else {
                        "about 8 hours per seed on 2 cores; finished cells are kept and skipped when rerun"
                    }
                );
                bls_ridge::run(&opts)
            }
            other => {
                println!("{other}: not reproduced yet (see the open issues)");
                continue;
            }
        };
        match result {
            Ok(path) => println!("{paper}: report written to {}", path.display()),
            Err(e) => {
                eprintln!("reproduce {paper}: error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
