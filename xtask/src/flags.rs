//! The command line of `cargo xtask`: every command and flag is declared here,
//! in [`Command`] (what the other modules receive) and [`usage`] (what
//! `cargo xtask --help` prints). The parser is hand-written so that xtask stays
//! dependency-free.

use std::ffi::OsString;

/// One parsed invocation of `cargo xtask`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `cargo xtask`, `cargo xtask --help`, `cargo xtask help`: print usage.
    Help,
    /// `cargo xtask setup [--mpi]`: make sure system libraries and cargo components exist.
    Setup {
        /// Also Open MPI and libclang, for the `mpi` feature of `experiments`.
        mpi: bool,
    },
    /// `cargo xtask test [--mpi-only | --python-only | --package-only] [-- ARGS…]`: fmt
    /// check, clippy, tests, doc tests, the Python package's tests, then the
    /// MPI tests when `mpirun` is there.
    Test {
        /// Arguments after `--`, passed to both `cargo test` runs (after their own `--`).
        test_args: Vec<String>,
        /// Only the MPI stage (clippy with `--features mpi`, the `mpirun` runs).
        mpi_only: bool,
        /// Only the Python package's stage (venv, maturin, pytest).
        python_only: bool,
        /// Only the `cargo package` stage of the four libraries.
        package_only: bool,
    },
    /// `cargo xtask reproduce [PAPER] [--quick] [--list] [-- ARGS…]`: rerun the
    /// papers' experiments (ARGS go to the reproduction, e.g. `--seeds 2`).
    Reproduce {
        /// One paper to reproduce; all of them when `None`.
        paper: Option<String>,
        /// Smaller, faster runs.
        quick: bool,
        /// List the reproductions instead of running them.
        list: bool,
        /// Arguments after `--`, passed to the reproduction.
        extra: Vec<String>,
    },
    /// `cargo xtask bench [--quick] [--no-criterion]`: performance report and benchmarks.
    Bench {
        /// Smaller, faster runs (also passed to criterion).
        quick: bool,
        /// Run the criterion benchmarks after the report (off with `--no-criterion`).
        criterion: bool,
    },
    /// `cargo xtask fit ARGS…`: train a model on the user's data (forwarded
    /// to the `experiments` crate's `nn` binary; prints one JSON object).
    Fit {
        /// Everything after `fit`.
        args: Vec<String>,
    },
    /// `cargo xtask predict ARGS…`: predictions of a saved model.
    Predict {
        /// Everything after `predict`.
        args: Vec<String>,
    },
    /// `cargo xtask update ARGS…`: add rows to and forget rows from a model
    /// saved with `--updatable`.
    Update {
        /// Everything after `update`.
        args: Vec<String>,
    },
    /// `cargo xtask export ARGS…`: a saved model as an ONNX file.
    Export {
        /// Everything after `export`.
        args: Vec<String>,
    },
    /// `cargo xtask wheel [--check]`: the Python package as a manylinux
    /// wheel with OpenBLAS bundled; `--check` installs it into a fresh venv
    /// and fits from outside the build tree.
    Wheel {
        /// Install and check the wheel after building it.
        check: bool,
    },
    /// `cargo xtask fmt [--check]`: format the whole workspace.
    Fmt {
        /// Only check formatting (`cargo fmt --all --check`).
        check: bool,
    },
}

/// The text printed by `cargo xtask --help` (and by `cargo xtask` alone).
pub fn usage() -> String {
    String::from(
        "\
cargo xtask — project automation (std only; links no BLAS)

USAGE:
    cargo xtask <COMMAND> [OPTIONS]

COMMANDS:
    setup [--mpi]               Make sure the system OpenBLAS (libopenblas-dev) and the
                                rustfmt/clippy components are installed; installs them
                                with apt-get / rustup when possible. No-op if present.
                                --mpi: also Open MPI and libclang (libopenmpi-dev
                                openmpi-bin libclang-dev), for `--features mpi`.
    test [--mpi-only | --python-only | --package-only] [-- ARGS…]
                                setup (with --mpi when $CI is set), then stop at the
                                first failure of:
                                  cargo fmt --all --check
                                  cargo clippy --workspace --all-targets [F] -- -D warnings
                                  cargo test --workspace --all-targets [F] [-- ARGS…]
                                  cargo test --workspace --doc [F] [-- ARGS…]
                                  cargo package --allow-dirty --target-dir target/package-check
                                    -p decomp-nn-linalg -p decomp-nn-optim -p decomp-nn-models
                                    -p decomp-nn-data (after removing the previous run's
                                    unpacked copies and build records of those four)
                                  the Python package: a venv in target/python-venv with
                                  maturin, numpy, scikit-learn, pytest (pip); maturin
                                  develop --release; pytest crates/python/tests; then
                                  cargo xtask wheel --check
                                  the mpi_fit example under mpirun -np 1, 2, 4 and its
                                  failure cases (120 s timeout each)
                                where, when mpirun, mpicc and libclang are there, F is
                                `--features experiments/mpi`; otherwise F is empty and the
                                mpirun runs are skipped (with a message).
                                --mpi-only: setup, clippy [F], then the mpirun runs.
                                --python-only: setup, then the Python package's stage.
                                --package-only: setup, then the cargo package stage.
    reproduce [PAPER] [--quick] [-- ARGS…]
                                setup, then reproduce one paper (or all of them); ARGS
                                go to the reproduction (`-- --help` lists them).
    reproduce --list            setup, then list the papers that can be reproduced.
    bench [--quick] [--no-criterion]
                                setup, then write the performance reports to
                                target/perf-report.md, elm-report.md, lbfgs-report.md,
                                dec-report.md, dfnn-report.md and bpls-report.md and run
                                the criterion benchmarks (skipped with --no-criterion).
    fit --model elm|bls|slfn|dfnn|bpls --train TRAIN --test TEST --task classification|regression [FLAGS]
                                setup, then train on TRAIN (CSV, target last; MNIST IDX
                                images; LIBSVM), evaluate on TEST, print one JSON object;
                                `cargo xtask fit --help` lists every flag with its default.
                                Paths are relative to your directory; the exit status is nn's.
    predict --model-file FILE --data DATA [FLAGS]
                                setup, then print the saved model's predictions (DATA may
                                hold features only); `cargo xtask predict --help` lists the flags.
    update --model-file FILE [--add DATA]… [--forget DATA]… [FLAGS]
                                setup, then add rows to / remove rows from a model saved by
                                `fit … --updatable --save FILE` (exact ridge update); prints JSON.
    export --model-file FILE --onnx OUT [--onnx-dtype f64|f32]
                                setup, then write the saved model as an ONNX graph (the
                                saved scaling inside); prints JSON.
    wheel [--check]             setup, then build the Python package as a wheel for
                                CPython >= 3.9 with OpenBLAS bundled (maturin build
                                --release --auditwheel repair) into target/wheels/;
                                --check installs it into a fresh venv and fits and
                                predicts with it from outside the build tree.
    fmt [--check]               cargo fmt --all [--check]
    help                        Print this message (also -h, --help).

EXAMPLES:
    cargo xtask setup
    cargo xtask setup --mpi
    cargo xtask test -- --nocapture
    cargo xtask test --mpi-only
    cargo xtask test --python-only
    cargo xtask test --package-only
    cargo xtask reproduce bls-ridge --quick
    cargo xtask bench --quick --no-criterion
    cargo xtask wheel --check
",
    )
}

/// Parses the arguments that follow the program name.
///
/// Returns an error message (without the `xtask: error:` prefix) for unknown
/// commands, unknown flags and superfluous arguments. Paper names are checked
/// by the `reproduce` binary, not here.
pub fn parse<I>(args: I) -> Result<Command, String>
where
    I: IntoIterator<Item = OsString>,
{
    let mut args = args
        .into_iter()
        .map(|arg| {
            arg.into_string()
                .map_err(|bad| format!("argument {bad:?} is not valid UTF-8"))
        })
        .collect::<Result<Vec<String>, String>>()?
        .into_iter();

    let Some(command) = args.next() else {
        return Ok(Command::Help);
    };
    let rest: Vec<String> = args.collect();

    match command.as_str() {
        "help" | "-h" | "--help" => Ok(Command::Help),
        "setup" => {
            if wants_help(&rest) {
                return Ok(Command::Help);
            }
            let [mpi] = switches("setup", &rest, ["--mpi"])?;
            Ok(Command::Setup { mpi })
        }
        "test" => {
            let (own, passed) = match rest.iter().position(|arg| arg == "--") {
                Some(i) => (&rest[..i], rest[i + 1..].to_vec()),
                None => (&rest[..], Vec::new()),
            };
            if wants_help(own) {
                return Ok(Command::Help);
            }
            let [mpi_only, python_only, package_only] =
                switches("test", own, ["--mpi-only", "--python-only", "--package-only"]).map_err(|e| {
                    format!(
                        "{e} (pass arguments to the test binaries after `--`, e.g. `cargo xtask test -- --nocapture`)"
                    )
                })?;
            if [mpi_only, python_only, package_only].iter().filter(|&&on| on).count() > 1 {
                return Err("test: --mpi-only, --python-only and --package-only exclude each other".into());
            }
            Ok(Command::Test {
                test_args: passed,
                mpi_only,
                python_only,
                package_only,
            })
        }
        "reproduce" => {
            let (own, extra) = match rest.iter().position(|arg| arg == "--") {
                Some(i) => (rest[..i].to_vec(), rest[i + 1..].to_vec()),
                None => (rest.clone(), Vec::new()),
            };
            if wants_help(&own) {
                return Ok(Command::Help);
            }
            let mut paper = None;
            let mut quick = false;
            let mut list = false;
            for arg in own {
                match arg.as_str() {
                    "--quick" => quick = true,
                    "--list" => list = true,
                    flag if flag.starts_with('-') => return Err(format!("unknown flag `{flag}` for `reproduce`")),
                    _ if paper.is_some() => {
                        return Err(format!(
                            "`reproduce` takes at most one PAPER, got a second one: `{arg}`"
                        ))
                    }
                    _ => paper = Some(arg),
                }
            }
            Ok(Command::Reproduce {
                paper,
                quick,
                list,
                extra,
            })
        }
        "bench" => {
            if wants_help(&rest) {
                return Ok(Command::Help);
            }
            let [quick, no_criterion] = switches("bench", &rest, ["--quick", "--no-criterion"])?;
            let criterion = !no_criterion;
            Ok(Command::Bench { quick, criterion })
        }
        "wheel" => {
            if wants_help(&rest) {
                return Ok(Command::Help);
            }
            let [check] = switches("wheel", &rest, ["--check"])?;
            Ok(Command::Wheel { check })
        }
        "fit" => Ok(Command::Fit { args: rest }),
        "predict" => Ok(Command::Predict { args: rest }),
        "update" => Ok(Command::Update { args: rest }),
        "export" => Ok(Command::Export { args: rest }),
        "fmt" => {
            if wants_help(&rest) {
                return Ok(Command::Help);
            }
            let [check] = switches("fmt", &rest, ["--check"])?;
            Ok(Command::Fmt { check })
        }
        other => Err(format!(
            "unknown command `{other}` (run `cargo xtask --help` for the list)"
        )),
    }
}

/// True if `-h` or `--help` is among `args`.
fn wants_help(args: &[String]) -> bool {
    args.iter().any(|arg| arg == "-h" || arg == "--help")
}

/// Which of the boolean flags `names` are among `args`; any other argument
/// is an error naming `command`.
fn switches<const N: usize>(command: &str, args: &[String], names: [&str; N]) -> Result<[bool; N], String> {
    let mut on = [false; N];
    for arg in args {
        match names.iter().position(|name| name == arg) {
            Some(i) => on[i] = true,
            None => return Err(format!("unexpected argument `{arg}` for `{command}`")),
        }
    }
    Ok(on)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn no_arguments_means_help() {
        assert_eq!(parse_strs(&[]), Ok(Command::Help));
        assert_eq!(parse_strs(&["--help"]), Ok(Command::Help));
        assert_eq!(parse_strs(&["bench", "-h"]), Ok(Command::Help));
    }

    #[test]
    fn test_passes_arguments_after_double_dash() {
        assert_eq!(
            parse_strs(&["test", "--", "--nocapture", "--", "x"]),
            Ok(Command::Test {
                test_args: vec!["--nocapture".into(), "--".into(), "x".into()],
                mpi_only: false,
                python_only: false,
                package_only: false,
            })
        );
        assert!(parse_strs(&["test", "--nocapture"]).is_err());
        assert_eq!(
            parse_strs(&["test", "--mpi-only"]),
            Ok(Command::Test {
                test_args: vec![],
                mpi_only: true,
                python_only: false,
                package_only: false,
            })
        );
        assert_eq!(
            parse_strs(&["test", "--package-only"]),
            Ok(Command::Test {
                test_args: vec![],
                mpi_only: false,
                python_only: false,
                package_only: true,
            })
        );
        assert!(parse_strs(&["test", "--package-only", "--python-only"]).is_err());
        assert_eq!(parse_strs(&["setup", "--mpi"]), Ok(Command::Setup { mpi: true }));
        assert_eq!(parse_strs(&["setup"]), Ok(Command::Setup { mpi: false }));
        assert!(parse_strs(&["setup", "--mpich"]).is_err());
    }

    #[test]
    fn reproduce_and_bench_flags() {
        assert_eq!(
            parse_strs(&["reproduce", "--quick", "dec"]),
            Ok(Command::Reproduce {
                paper: Some("dec".into()),
                quick: true,
                list: false,
                extra: vec![]
            })
        );
        assert_eq!(
            parse_strs(&["reproduce", "bls-ridge", "--", "--seeds", "2"]),
            Ok(Command::Reproduce {
                paper: Some("bls-ridge".into()),
                quick: false,
                list: false,
                extra: vec!["--seeds".into(), "2".into()]
            })
        );
        assert!(parse_strs(&["reproduce", "dec", "bpls"]).is_err());
        assert_eq!(
            parse_strs(&["bench", "--no-criterion"]),
            Ok(Command::Bench {
                quick: false,
                criterion: false
            })
        );
        assert!(parse_strs(&["frobnicate"]).is_err());
    }
}
