//! `reproduce [PAPER] [--quick]` — run through `cargo xtask reproduce`.
//! Writes `results/<paper>/` (report.md, CSV, JSON, SVG).

use std::path::PathBuf;
use std::process::ExitCode;

use experiments::papers::zhu_wei;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let papers: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wanted = if papers.is_empty() { vec!["zhu-wei"] } else { papers };
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
