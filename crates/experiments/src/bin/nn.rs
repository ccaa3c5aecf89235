//! `nn` — the user's command line (run through `cargo xtask fit|predict`).
//! See [`experiments::cli`] for the arguments.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("fit") => experiments::cli::FitArgs::parse(&args[1..])
            .and_then(|a| experiments::cli::fit(&a))
            .and_then(|report| {
                serde_json::to_string(&report)
                    .map(|json| println!("{json}"))
                    .map_err(|e| experiments::cli::CliError::Usage(e.to_string()))
            }),
        Some("predict") => experiments::cli::predict(&args[1..]).map(|preds| {
            for p in preds {
                println!("{p}");
            }
        }),
        _ => Err(experiments::cli::CliError::Usage(
            "usage: nn fit --model elm --train TRAIN --test TEST --task classification|regression --hidden N \
             [--lambda L] [--activation NAME] [--solver ridge|lstsq|STRATEGY] [--seed S] [--initial-nodes N0] \
             [--save FILE]\n       nn predict --model-file FILE --data DATA"
                .into(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nn: error: {e}");
            ExitCode::FAILURE
        }
    }
}
