//! The SLFN's part of `nn fit --model slfn` (Grippo et al.'s network): its
//! flags (exactly the ones that apply to it) and how they become the
//! resolved [`FitArgs`].

use clap::Args;
use models::SlfnTrainer;

use super::args::{at_least_one, CommonFlags, FitArgs, ModelKind};
use super::shared_flags::{HiddenFlag, TimeLimitFlag, TrainerFlag};
use super::{trainer, CliError};

const HEADING: &str = "SLFN (--model slfn)";

/// The flags of `nn fit --model slfn` besides the common ones
/// ([`CommonFlags`]; `--lambda` is `τ_λ`): exactly the flags that apply to
/// the SLFN, so that any other is refused ([`super::args::FitFlags`]).
#[derive(Clone, Debug, Args)]
pub struct SlfnFlags {
    /// `--hidden` (required; shared with `--model elm`).
    #[command(flatten)]
    pub hidden: HiddenFlag,
    /// `--trainer`: dec, lbfgs or elm.
    #[command(flatten)]
    pub trainer: TrainerFlag,
    /// DEC: major iterations (the paper's DEC(2), DEC(10)) [default: 10];
    /// L-BFGS: iterations [default: 1000]; either also stops when progress
    /// stalls ([`trainer::DEC_RELATIVE_DECREASE`],
    /// [`trainer::LBFGS_RELATIVE_DECREASE`]).
    #[arg(long, value_name = "K", value_parser = at_least_one, help_heading = HEADING, help = trainer::maxiter_help(), long_help = trainer::maxiter_help())]
    pub maxiter: Option<usize>,
    /// Regularization τ_w of the input weights [default: 10⁻²/(n·N), the
    /// paper's]; τ_λ is --lambda.
    #[arg(long, value_name = "T", allow_negative_numbers = true, help_heading = HEADING)]
    pub tau_w: Option<f64>,
    /// `--time-limit` (dec and lbfgs).
    #[command(flatten)]
    pub time_limit: TimeLimitFlag,
}

/// Resolve the SLFN's flags into `args` (already holding the common ones).
///
/// # Errors
/// [`CliError::Usage`] naming the flag: a trainer of another model, no
/// `--hidden`, `--maxiter`, `--tau-w`, `--lambda` or `--time-limit` with the
/// ELM trainer, values the SLFN's params refuse.
pub(crate) fn resolve(
    flags: &SlfnFlags,
    common: &CommonFlags,
    typed: &dyn Fn(&str) -> bool,
    args: &mut FitArgs,
) -> Result<(), CliError> {
    if let Some(t) = flags.trainer.trainer {
        t.check_model(ModelKind::Slfn)?;
    }
    let hidden = flags
        .hidden
        .hidden
        .ok_or_else(|| CliError::Usage("--hidden is required with --model slfn".into()))?;
    let slfn_trainer = trainer::slfn_trainer(flags.trainer.trainer, flags.maxiter)?;
    if let Some(t) = flags.tau_w {
        if !(t.is_finite() && t >= 0.0) {
            return Err(CliError::Usage(format!("--tau-w {t}: must be finite and ≥ 0")));
        }
    }
    if slfn_trainer == SlfnTrainer::Elm && typed("tau_w") {
        return Err(CliError::Usage(
            "--tau-w does not apply to --trainer elm: the paper's ELM draws its input weights and does not \
             train them"
                .into(),
        ));
    }
    if slfn_trainer == SlfnTrainer::Elm && typed("lambda") {
        return Err(CliError::Usage(
            "--lambda does not apply to --trainer elm: the paper's ELM is minimum-norm least squares (τ = 0)".into(),
        ));
    }
    args.slfn_time_limit = trainer::slfn_flags(
        hidden,
        slfn_trainer,
        common.lambda,
        flags.tau_w,
        flags.time_limit.time_limit,
    )?;
    args.hidden = hidden;
    args.trainer = slfn_trainer;
    args.tau_w = flags.tau_w;
    Ok(())
}
