//! `nn` — the user's command line (run through `cargo xtask fit|predict|update`).
//! See [`experiments::cli`] for the commands and `nn fit --help` for the flags.
//!
//! Every error — a bad flag, an unreadable file, a failed fit — is one line
//! `nn: error: …` on stderr and a non-zero exit (2 for command-line errors,
//! 1 for the rest); stdout carries only the JSON report or the predictions.

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};
use experiments::cli::{self, Cli, CliError, Command, FitArgs, FitFlags};
use linalg_core::threads::set_blas_threads;

/// Why a command failed: an error still to print, or one already printed.
enum Failure {
    /// Printed by `main` as `nn: error: …`.
    Error(CliError),
    /// Printed already (`--distributed`: by every process before a barrier).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    Printed,
}

impl From<CliError> for Failure {
    fn from(e: CliError) -> Self {
        Failure::Error(e)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        Failure::Error(e.into())
    }
}

#[cfg(feature = "mpi")]
impl From<linalg_core::Error> for Failure {
    fn from(e: linalg_core::Error) -> Self {
        Failure::Error(e.into())
    }
}

fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return clap_exit(&e),
    };
    let result = match Cli::from_arg_matches(&matches) {
        Err(e) => return clap_exit(&e),
        Ok(Cli {
            command: Command::Fit(flags),
        }) => run_fit(*flags, &matches),
        Ok(Cli {
            command: Command::Update(flags),
        }) => {
            set_blas_threads(cli::args::threads_or_all(flags.threads));
            cli::update(&flags)
                .and_then(|report| serde_json::to_string(&report).map_err(CliError::from))
                .map(|json| println!("{json}"))
                .map_err(Failure::from)
        }
        Ok(Cli {
            command: Command::Predict(flags),
        }) => {
            set_blas_threads(cli::args::threads_or_all(flags.threads));
            cli::predict(&flags)
                .map(|preds| {
                    for p in preds {
                        println!("{p}");
                    }
                })
                .map_err(Failure::from)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Printed) => ExitCode::FAILURE,
        Err(Failure::Error(e)) => {
            print_error(&e);
            ExitCode::FAILURE
        }
    }
}

/// `nn fit`: resolve the flags, set the BLAS threads, fit, print the JSON.
fn run_fit(flags: FitFlags, matches: &clap::ArgMatches) -> Result<(), Failure> {
    let threads = cli::args::threads_or_all(flags.threads);
    let sub = matches
        .subcommand_matches("fit")
        .ok_or_else(|| CliError::Usage("`fit` subcommand expected".into()))?;
    let requested = flags.threads;
    let args = FitArgs::resolve(flags, sub)?;
    set_blas_threads(threads);
    #[cfg(feature = "mpi")]
    if args.scale_out.distributed {
        return run_distributed(&args, requested);
    }
    let _ = requested;
    let report = cli::fit(&args)?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

/// `nn fit --distributed` under `mpirun`: the streamed fit over the
/// processes of `MPI_COMM_WORLD`; rank 0 prints the report. Without
/// `--threads`, the cores are shared between the processes on this machine
/// (Open MPI's `OMPI_COMM_WORLD_LOCAL_SIZE`). Every process prints the
/// error of a failed fit (they all fail with the same message) before a
/// barrier, so that every message is out before `mpirun` ends the job.
#[cfg(feature = "mpi")]
fn run_distributed(args: &FitArgs, requested: Option<usize>) -> Result<(), Failure> {
    use linalg_core::collective::Collective;
    let (world, _mpi) = experiments::distributed::MpiWorld::init()?;
    if requested.is_none() {
        let local = std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(1)
            .max(1);
        set_blas_threads((cli::args::threads_or_all(None) / local).max(1));
    }
    let outcome = cli::stream::fit(args, &world).and_then(|report| {
        if world.rank() == 0 {
            println!("{}", serde_json::to_string(&report)?);
        }
        Ok(())
    });
    match outcome {
        Ok(()) => {
            world.barrier();
            Ok(())
        }
        Err(e) if agreed(&e) => {
            // Every process failed with this error; each prints it before
            // any exits, since `mpirun` ends the others when one exits with
            // an error (a process killed before printing would leave its
            // user without the message).
            print_error(&e);
            world.barrier();
            Err(Failure::Printed)
        }
        // A failure on this process alone: the others may wait in a
        // collective operation, so exit at once (`mpirun` then ends them).
        Err(e) => Err(e.into()),
    }
}

/// Whether `e` is a failure every process reached together
/// ([`linalg_core::collective::agree`]), so that all of them can meet at a
/// barrier before exiting.
#[cfg(feature = "mpi")]
fn agreed(e: &CliError) -> bool {
    use linalg_core::Error;
    matches!(
        e,
        CliError::Linalg(Error::Collective { .. })
            | CliError::Model(models::ModelError::Linalg(Error::Collective { .. }))
    )
}

/// `nn: error: …` on stderr in one write, so that the lines of several
/// processes under `mpirun` do not interleave.
fn print_error(e: &CliError) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("nn: error: {e}\n").as_bytes());
}

/// Help and version to stdout with success; a parse error as one line
/// (clap's message without its usage block) with exit code 2.
fn clap_exit(e: &clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .take_while(|l| {
            let l = l.trim_start();
            !(l.starts_with("Usage:") || l.starts_with("tip:") || l.starts_with("For more information"))
        })
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    eprintln!("nn: error: {message} (see `nn --help`)");
    ExitCode::from(2)
}
