//! `--trainer`, shared by `--model slfn` (dec, lbfgs, elm), `--model
//! dfnn` (b2ld, lbfgs, bling, ig) and `--model bpls` (bpls, adam, nag, sgd,
//! adagrad): one flag whose values are checked against the model, and the
//! SLFN's trainer from it and `--maxiter`, and the SLFN's stopping rules
//! (`--time-limit`, shared with the DFNN, and the command line's tolerance
//! on progress).

use std::time::Duration;

use clap::ValueEnum;
use models::optim::first_order::FirstOrderKind;
use models::{ModelError, ParamGuard, SlfnParams, SlfnTrainer};

use super::common::{defaults, ModelKind};
use super::error::CliError;

/// `--trainer` of `--model slfn` (dec, lbfgs, elm), `--model dfnn` (b2ld,
/// lbfgs, bling, ig) and `--model bpls` (bpls, adam, nag, sgd, adagrad);
/// [`TrainerArg::check_model`] tells which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TrainerArg {
    /// SLFN: DEC, Algorithm 3 of Grippo et al.
    Dec,
    /// SLFN and DFNN: L-BFGS on all weights (each paper's baseline).
    Lbfgs,
    /// SLFN: the paper's ELM, τ = 0, minimum-norm least squares.
    Elm,
    /// DFNN: B2LD, Algorithm 3 of Palagi & Seccia.
    B2ld,
    /// DFNN: BLInG, Algorithm 5 of Palagi & Seccia.
    Bling,
    /// DFNN: incremental gradient on all weights (BLInG's baseline).
    Ig,
    /// BPLS model: back-propagating least squares, Tomic et al.'s
    /// Algorithm 1 (regression) or 2 (classification).
    Bpls,
    /// BPLS model: backprop with Adam (one of Tomic et al.'s baselines).
    Adam,
    /// BPLS model: backprop with Nesterov's accelerated gradient.
    Nag,
    /// BPLS model: backprop with plain stochastic gradient descent.
    Sgd,
    /// BPLS model: backprop with AdaGrad.
    Adagrad,
}

impl TrainerArg {
    /// The value as typed (`dec`, `b2ld`, …).
    pub fn name(self) -> &'static str {
        match self {
            TrainerArg::Dec => "dec",
            TrainerArg::Lbfgs => "lbfgs",
            TrainerArg::Elm => "elm",
            TrainerArg::B2ld => "b2ld",
            TrainerArg::Bling => "bling",
            TrainerArg::Ig => "ig",
            TrainerArg::Bpls => "bpls",
            TrainerArg::Adam => "adam",
            TrainerArg::Nag => "nag",
            TrainerArg::Sgd => "sgd",
            TrainerArg::Adagrad => "adagrad",
        }
    }

    /// The step rule of a backprop trainer of `--model bpls` (adam, nag,
    /// sgd, adagrad); `None` for the others.
    pub fn first_order(self) -> Option<FirstOrderKind> {
        match self {
            TrainerArg::Adam => Some(FirstOrderKind::Adam),
            TrainerArg::Nag => Some(FirstOrderKind::Nag),
            TrainerArg::Sgd => Some(FirstOrderKind::Sgd),
            TrainerArg::Adagrad => Some(FirstOrderKind::AdaGrad),
            _ => None,
        }
    }

    /// Refuse a trainer of the other network (`--trainer b2ld` with
    /// `--model slfn`, `--trainer dec` with `--model dfnn`), naming the
    /// model's trainers. The ELM and the BLS refuse `--trainer` altogether.
    ///
    /// # Errors
    /// [`CliError::Usage`] with that message.
    pub fn check_model(self, model: ModelKind) -> Result<(), CliError> {
        let (fits, trainers) = match model {
            ModelKind::Slfn => (
                matches!(self, TrainerArg::Dec | TrainerArg::Lbfgs | TrainerArg::Elm),
                "dec, lbfgs, elm",
            ),
            ModelKind::Dfnn => (
                matches!(
                    self,
                    TrainerArg::B2ld | TrainerArg::Lbfgs | TrainerArg::Bling | TrainerArg::Ig
                ),
                "b2ld, lbfgs, bling, ig",
            ),
            ModelKind::Bpls => (
                self == TrainerArg::Bpls || self.first_order().is_some(),
                "bpls, adam, nag, sgd, adagrad",
            ),
            ModelKind::Elm | ModelKind::Bls => return Ok(()),
        };
        if fits {
            return Ok(());
        }
        Err(CliError::Usage(format!(
            "--trainer {} does not apply to --model {}: its trainers are {trainers}",
            self.name(),
            model.name()
        )))
    }
}

/// The SLFN's trainer from `--trainer` (one of the SLFN's: checked by
/// [`TrainerArg::check_model`]) and `--maxiter`: DEC(10) by default,
/// DEC(`maxiter`), L-BFGS for `maxiter` iterations (default 1000), the ELM.
///
/// # Errors
/// [`CliError::Usage`] for `--maxiter` with the ELM, or a DFNN trainer.
pub(crate) fn slfn_trainer(trainer: Option<TrainerArg>, maxiter: Option<usize>) -> Result<SlfnTrainer, CliError> {
    Ok(match (trainer, maxiter) {
        (None | Some(TrainerArg::Dec), None) => defaults::SLFN_TRAINER,
        (None | Some(TrainerArg::Dec), Some(maxiter)) => SlfnTrainer::Dec { maxiter },
        (Some(TrainerArg::Lbfgs), iterations) => SlfnTrainer::Lbfgs {
            iterations: iterations.unwrap_or(1000),
        },
        (Some(TrainerArg::Elm), None) => SlfnTrainer::Elm,
        (Some(TrainerArg::Elm), Some(_)) => {
            return Err(CliError::Usage(
                "--maxiter does not apply to --trainer elm: the ELM has no iterations".into(),
            ))
        }
        (
            Some(
                t @ (TrainerArg::B2ld
                | TrainerArg::Bling
                | TrainerArg::Ig
                | TrainerArg::Bpls
                | TrainerArg::Adam
                | TrainerArg::Nag
                | TrainerArg::Sgd
                | TrainerArg::Adagrad),
            ),
            _,
        ) => {
            t.check_model(ModelKind::Slfn)?;
            defaults::SLFN_TRAINER
        }
    })
}

/// The command line's DEC stops after a major iteration that decreased `E`
/// by at most this, relative to `max{E, 1}`, so that a large `--maxiter`
/// ends when progress stalls (the paper's DEC(maxiter) has no such test;
/// the library's default keeps it off).
pub const DEC_RELATIVE_DECREASE: f64 = 1e-5;

/// The command line's L-BFGS (`--model slfn --trainer lbfgs`) stops after an
/// iteration that decreased `E` by at most this, relative to `max{|E|, 1}`:
/// SciPy's L-BFGS-B default `ftol = 10⁷·ε ≈ 2.2·10⁻⁹` (the DFNN's L-BFGS
/// uses it inside too).
pub const LBFGS_RELATIVE_DECREASE: f64 = 1e7 * f64::EPSILON;

/// `--maxiter`'s help, with the command line's tolerances on progress.
pub(crate) fn maxiter_help() -> String {
    format!(
        "DEC: major iterations (the paper's DEC(2), DEC(10)) [default: 10]; L-BFGS: iterations [default: 1000]. \
         Either also stops when progress stalls — DEC after a major iteration, L-BFGS after an iteration that \
         decreased E by at most {DEC_RELATIVE_DECREASE:e} (DEC) or {LBFGS_RELATIVE_DECREASE:.1e} (L-BFGS) times \
         max(E, 1) — or at --time-limit"
    )
}

/// The SLFN's tolerance on progress on the command line: see
/// [`DEC_RELATIVE_DECREASE`], [`LBFGS_RELATIVE_DECREASE`]; none for the ELM.
pub(crate) fn slfn_relative_decrease(trainer: SlfnTrainer) -> Option<f64> {
    match trainer {
        SlfnTrainer::Dec { .. } => Some(DEC_RELATIVE_DECREASE),
        SlfnTrainer::Lbfgs { .. } => Some(LBFGS_RELATIVE_DECREASE),
        SlfnTrainer::Elm => None,
    }
}

/// A refusal of [`SlfnParams::check`] with the flag that set the value in
/// front (`--lambda -1: tau_lambda = -1 is not admissible: …`); other errors
/// as they are.
pub(crate) fn slfn_error(e: ModelError) -> CliError {
    let flag = match &e {
        ModelError::InvalidParameter { name, .. } => match *name {
            "tau_lambda" => Some("--lambda"),
            "tau_w" => Some("--tau-w"),
            "hidden" => Some("--hidden"),
            "maxiter" | "iterations" => Some("--maxiter"),
            "trainer" => Some("--trainer"),
            _ => None,
        },
        _ => None,
    };
    match (flag, &e) {
        (Some(flag), ModelError::InvalidParameter { value, .. }) => CliError::Usage(format!("{flag} {value}: {e}")),
        _ => CliError::Model(e),
    }
}

/// The SLFN's flags checked before any data is read: `--lambda` (`τ_λ`),
/// `--tau-w` and the counts by the model's own checks (refusals name the
/// flag: [`slfn_error`]), and `--time-limit`, which applies to dec and lbfgs
/// (the ELM is one least-squares solve). Returns the time limit.
///
/// # Errors
/// [`CliError::Usage`] naming the flag.
pub(crate) fn slfn_flags(
    hidden: usize,
    trainer: SlfnTrainer,
    lambda: Option<f64>,
    tau_w: Option<f64>,
    time_limit: Option<Duration>,
) -> Result<Option<Duration>, CliError> {
    let mut p = SlfnParams::new(hidden).with_trainer(trainer);
    if let Some(l) = lambda {
        p = p.with_tau_lambda(l);
    }
    if let Some(t) = tau_w {
        p = p.with_tau_w(t);
    }
    p.check().map_err(slfn_error)?;
    if trainer == SlfnTrainer::Elm && time_limit.is_some() {
        return Err(CliError::Usage(
            "--time-limit does not apply to --trainer elm: the ELM is one least-squares solve with nothing to stop \
             (it applies to dec and lbfgs)"
                .into(),
        ));
    }
    Ok(time_limit)
}
