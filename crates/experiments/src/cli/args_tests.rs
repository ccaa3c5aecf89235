//! Unit tests of [`super`] (`cli/args.rs`), kept apart from the code.

use super::*;
use clap::CommandFactory;
use linalg_core::ridge::Strategy;
use models::{Activation, BlsParams, ElmParams, ReadoutSolver as Solver};

fn resolve(args: &[&str]) -> Result<FitArgs, String> {
    resolve_fit(args)
}

fn elm(args: &FitArgs) -> Result<&ElmArgs, String> {
    match &args.model {
        ModelArgs::Elm(m) => Ok(m),
        other => Err(format!("not the ELM: {other:?}")),
    }
}

fn bls(args: &FitArgs) -> Result<&BlsArgs, String> {
    match &args.model {
        ModelArgs::Bls(m) => Ok(m),
        other => Err(format!("not the BLS: {other:?}")),
    }
}

const BASE: [&str; 6] = ["--train", "a.csv", "--test", "b.csv", "--task", "regression"];

#[test]
fn the_command_is_well_formed() {
    Cli::command().debug_assert();
}

#[test]
fn defaults_come_from_the_model_constants() -> Result<(), String> {
    let a = resolve(&[&BASE[..], &["--model", "elm", "--hidden", "7"]].concat())?;
    let e = elm(&a)?;
    assert_eq!(e.lambda, ElmParams::DEFAULT_LAMBDA);
    assert_eq!((a.scale, e.solver, e.initial_nodes), (Scale::Zscore, Solver::Ridge, 2));
    let a = resolve(&[&BASE[..], &["--model", "bls"]].concat())?;
    let b = bls(&a)?;
    assert_eq!(b.lambda, BlsParams::DEFAULT_LAMBDA);
    assert_eq!(a.scale, Scale::Minmax);
    assert_eq!(*b, BlsArgs::default());
    assert_eq!(a.model.command().hidden_units(), 10 * 10 + 1000);
    Ok(())
}

#[test]
fn names_and_aliases_parse_case_insensitively() -> Result<(), String> {
    for s in Strategy::ALL {
        let name = strategy_names(s).0;
        let a = resolve(&[&BASE[..], &["--model", "bls", "--strategy", name]].concat())?;
        assert_eq!(bls(&a)?.strategy, s);
        let b = resolve(
            &[
                &BASE[..],
                &["--model", "elm", "--hidden", "3", "--solver", s.paper_name()],
            ]
            .concat(),
        )?;
        assert_eq!(elm(&b)?.solver, Solver::Strategy(s));
    }
    let a = resolve(
        &[
            &BASE[..],
            &[
                "--model",
                "elm",
                "--hidden",
                "3",
                "--activation",
                "RBF",
                "--solver",
                "pinv",
            ],
        ]
        .concat(),
    )?;
    assert_eq!(
        (elm(&a)?.activation, elm(&a)?.solver),
        (Activation::Gaussian, Solver::Lstsq)
    );
    Ok(())
}

#[test]
fn foreign_and_missing_flags_are_errors() {
    let e = resolve(&[&BASE[..], &["--model", "elm", "--hidden", "3", "--f32"]].concat());
    assert_eq!(
        e,
        Err("--f32 does not apply to --model elm: it is a flag of --model bls".into())
    );
    let e = resolve(&[&BASE[..], &["--model", "bls", "--initial-nodes", "3"]].concat());
    assert_eq!(
        e,
        Err("--initial-nodes does not apply to --model bls: it is a flag of --model elm".into())
    );
    let e = resolve(&[&BASE[..], &["--model", "elm"]].concat());
    assert_eq!(e, Err("--hidden is required with --model elm".into()));
    let e = resolve(&[&BASE[..], &["--model", "elm", "--hidden", "3", "--initial-nodes", "4"]].concat());
    assert_eq!(e, Err("--initial-nodes must be in 1..=3".into()));
    assert!(resolve(&[&BASE[..], &["--model", "elm", "--hidden", "0"]].concat()).is_err());
    assert!(resolve(&[&BASE[..], &["--model", "elm", "--hidden", "3", "stray"]].concat()).is_err());
}

/// Applicability comes from the models' flag structs: a shared flag is
/// refused with a model that does not declare it and the error names every
/// model that does; a flag declared by the chosen model passes.
#[test]
fn a_flag_of_other_models_names_the_models_it_belongs_to() {
    let e = resolve(&[&BASE[..], &["--model", "elm", "--hidden", "3", "--time-limit", "1"]].concat());
    assert_eq!(
        e,
        Err(
            "--time-limit does not apply to --model elm: it is a flag of --model slfn, --model dfnn and --model bpls"
                .into()
        )
    );
    let e = resolve(&[&BASE[..], &["--model", "bpls", "--layers", "3", "--hidden", "3"]].concat());
    assert_eq!(
        e,
        Err("--hidden does not apply to --model bpls: it is a flag of --model elm and --model slfn".into())
    );
    let a = resolve(&[&BASE[..], &["--model", "bpls", "--layers", "3", "--activation", "tanh"]].concat());
    assert_eq!(
        a.map(|a| a.model.command().activation_name()),
        Ok(Activation::Tanh.to_string())
    );
}
