//! `nn` — the user's command line (run through `cargo xtask fit|predict|update`).
//! See [`experiments::cli`] for the commands and `nn fit --help` for the flags.
//!
//! Every error — a bad flag, an unreadable file, a failed fit — is one line
//! `nn: error: …` on stderr and a non-zero exit (2 for command-line errors,
//! 1 for the rest); stdout carries only the JSON report or the predictions.
//!
//! Output that cannot be written: when the reader of stdout goes away (a
//! closed pipe, as in `nn predict … | head -1`), `nn` stops quietly, with
//! nothing on stderr and exit code 141 — what the shell reports for a
//! program ended by SIGPIPE, so that `set -o pipefail` sees `nn` as it sees
//! `cat` or `seq` (Rust ignores SIGPIPE: the write fails with EPIPE
//! instead). Any other failed write (a full disk) is `nn: error: cannot
//! write to stdout: …` and exit 1. A model saved by `--save` is written
//! before the report is printed.

use std::io::{BufWriter, Write};
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
    /// Writing to stdout failed: `cannot write to stdout: …`.
    Stdout(std::io::Error),
    /// The reader of stdout has gone (EPIPE): a quiet exit.
    BrokenPipe,
}

/// The exit code after a closed pipe on stdout: 128 + SIGPIPE (13).
const BROKEN_PIPE_EXIT: u8 = 141;

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
    // Before anything else: OpenBLAS chose its kernel when it was loaded; if
    // that is a generic one on a CPU with AVX2 or AVX-512 and
    // OPENBLAS_CORETYPE is unset, start again with a kernel for this CPU
    // (issue 37). Returns only when nothing is to change or the new start
    // failed.
    if let Err(e) = linalg_core::blas_kernel::reexec_with_chosen_kernel() {
        print_line(&format!(
            "nn: warning: could not start again with a kernel for this CPU ({e}); OpenBLAS keeps its own\n"
        ));
    }
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return clap_exit(&e),
    };
    let result = match Cli::from_arg_matches(&matches) {
        Err(e) => return clap_exit(&e),
        Ok(Cli {
            command: Command::Fit(flags),
        }) => run_fit(*flags),
        Ok(Cli {
            command: Command::Update(flags),
        }) => {
            set_blas_threads(cli::args::threads_or_all(flags.threads));
            cli::update(&flags)
                .and_then(|report| serde_json::to_string(&report).map_err(CliError::from))
                .map_err(Failure::from)
                .and_then(|json| write_stdout(|out| writeln!(out, "{json}")))
        }
        Ok(Cli {
            command: Command::Export(flags),
        }) => cli::export(&flags)
            .and_then(|report| serde_json::to_string(&report).map_err(CliError::from))
            .map_err(Failure::from)
            .and_then(|json| write_stdout(|out| writeln!(out, "{json}"))),
        Ok(Cli {
            command: Command::Predict(flags),
        }) => {
            set_blas_threads(cli::args::threads_or_all(flags.threads));
            cli::predict(&flags).map_err(Failure::from).and_then(|preds| {
                write_stdout(|out| {
                    for p in preds {
                        writeln!(out, "{p}")?;
                    }
                    Ok(())
                })
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Printed) => ExitCode::FAILURE,
        Err(Failure::Error(e)) => {
            print_error(&e);
            exit_code(&e)
        }
        Err(Failure::Stdout(e)) => {
            print_line(&format!("nn: error: cannot write to stdout: {e}\n"));
            ExitCode::FAILURE
        }
        Err(Failure::BrokenPipe) => ExitCode::from(BROKEN_PIPE_EXIT),
    }
}

/// One line on stderr when OpenBLAS runs a kernel that leaves the CPU's
/// AVX2 or AVX-512 unused (issue 37: Debian's 0.3.21 falls back to its
/// generic Prescott kernel on CPUs newer than itself, at about a fifth of
/// the DGEMM rate), with the variable that chooses another.
fn warn_of_a_slow_kernel() {
    let blas = linalg_core::blas_info::BlasInfo::current();
    if let Some(units) = blas.slow_kernel() {
        let set = std::env::var("OPENBLAS_CORETYPE")
            .map(|v| format!(" (OPENBLAS_CORETYPE={v} is set)"))
            .unwrap_or_default();
        print_line(&format!(
            "nn: warning: OpenBLAS runs its {} kernel{set}, which leaves this CPU's {units} unused: BLAS runs at a \
             fraction of its speed; OPENBLAS_CORETYPE chooses another (Haswell for AVX2, SkylakeX for AVX-512 on \
             Intel)\n",
            blas.kernel
        ));
    }
}

/// 2 for a command-line error ([`CliError::Usage`]: a flag that is
/// malformed, missing, inapplicable or asks for more than the machine has),
/// 1 for the rest (data, files, a failed fit).
fn exit_code(e: &CliError) -> ExitCode {
    match e {
        CliError::Usage(_) => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    }
}

/// Write the command's output to stdout through one buffer, flushed and
/// checked: a closed pipe is [`Failure::BrokenPipe`], any other error
/// [`Failure::Stdout`] (`println!` would panic on either).
fn write_stdout(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    write(&mut out).and_then(|()| out.flush()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Stdout(e)
        }
    })
}

/// `nn fit`: resolve the flags, set the BLAS threads, fit, print the JSON.
fn run_fit(flags: FitFlags) -> Result<(), Failure> {
    let threads = cli::args::threads_or_all(flags.common.threads);
    let requested = flags.common.threads;
    let args = FitArgs::resolve(flags)?;
    set_blas_threads(threads);
    warn_of_a_slow_kernel();
    #[cfg(feature = "mpi")]
    if args.scale_out.distributed {
        return run_distributed(&args, requested);
    }
    let _ = requested;
    let report = cli::fit(&args)?;
    let json = serde_json::to_string(&report)?;
    write_stdout(|out| writeln!(out, "{json}"))
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
    match cli::stream::fit(args, &world) {
        Ok(report) => {
            let printed = if world.rank() == 0 {
                serde_json::to_string(&report)
                    .map_err(Failure::from)
                    .and_then(|json| write_stdout(|out| writeln!(out, "{json}")))
            } else {
                Ok(())
            };
            world.barrier();
            printed
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
    print_line(&format!("nn: error: {e}\n"));
}

/// `line` on stderr in one write; a failure to write it is ignored (there
/// is nowhere left to report it).
fn print_line(line: &str) {
    let _ = std::io::stderr().write_all(line.as_bytes());
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
    let message = negative_value(e, std::env::args().collect::<Vec<_>>().as_slice()).unwrap_or(message.to_string());
    print_line(&format!("nn: error: {message} (see `nn --help`)\n"));
    ExitCode::from(2)
}

/// clap reads `--maxiter -1` as the flag without its value and an unknown
/// argument `-1`: for an unknown argument that is a negative number after a
/// flag, the message names the flag and says what is wrong with the value.
fn negative_value(e: &clap::Error, args: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    if arg.parse::<f64>().is_err() {
        return None;
    }
    let at = args.iter().position(|a| a == arg)?;
    let flag = args.get(at.checked_sub(1)?).filter(|f| f.starts_with("--"))?;
    Some(format!("{flag} {arg}: negative values are not accepted"))
}
