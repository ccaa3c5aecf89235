//! `nn fit --model slfn` (Grippo et al.'s network): its flags (exactly the
//! ones that apply to it), their resolution into [`SlfnArgs`], and its
//! [`ModelCommand`] — DEC, L-BFGS or the paper's ELM, with progress on
//! stderr.

use std::time::{Duration, Instant};

use clap::Args;
use models::slfn::SlfnReport;
use models::{Activation, Dataset, Slfn, SlfnParams, SlfnTrainer, SlfnValidParams};
use ndarray::Array2;
use serde::Serialize;

use super::budget::FitSize;
use super::common::{at_least_one, defaults, CommonFlags, ModelKind};
use super::error::CliError;
use super::model_command::{details_of, FitContext, ModelCommand, ModelFlags, Resolved, Trained};
use super::shared_flags::{HiddenFlag, TimeLimitFlag, TrainerFlag};
use super::trainer;
use nn_data::pipeline::FittedModel;

const HEADING: &str = "SLFN (--model slfn)";

/// The flags of `nn fit --model slfn` besides the common ones
/// ([`CommonFlags`]; `--lambda` is `τ_λ`): exactly the flags that apply to
/// the SLFN, so that any other is refused ([`FitFlags`](crate::cli::FitFlags)).
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

/// The resolved SLFN settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SlfnArgs {
    /// Hidden units (`--hidden`).
    pub hidden: usize,
    /// The trainer (`--trainer` with `--maxiter`; DEC(10) by default).
    pub trainer: SlfnTrainer,
    /// `τ_λ`, the output weights' ridge parameter (`--lambda`).
    pub tau_lambda: f64,
    /// `τ_w` (`--tau-w`; `None`: the paper's `10⁻²/(n·N)`).
    pub tau_w: Option<f64>,
    /// `--time-limit` (dec and lbfgs).
    pub time_limit: Option<Duration>,
    /// `--seed`.
    pub seed: u64,
}

/// Resolve the SLFN's flags.
///
/// # Errors
/// [`CliError::Usage`] naming the flag: a trainer of another model, no
/// `--hidden`, `--maxiter`, `--tau-w`, `--lambda` or `--time-limit` with the
/// ELM trainer, values the SLFN's params refuse.
pub(crate) fn resolve(
    flags: &SlfnFlags,
    common: &CommonFlags,
    typed: &dyn Fn(&str) -> bool,
) -> Result<SlfnArgs, CliError> {
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
    let time_limit = trainer::slfn_flags(
        hidden,
        slfn_trainer,
        common.lambda,
        flags.tau_w,
        flags.time_limit.time_limit,
    )?;
    Ok(SlfnArgs {
        hidden,
        trainer: slfn_trainer,
        tau_lambda: common.lambda.unwrap_or(defaults::SLFN_LAMBDA),
        tau_w: flags.tau_w,
        time_limit,
        seed: common.seed,
    })
}

impl ModelFlags for SlfnFlags {
    type Settings = SlfnArgs;
    const KIND: ModelKind = ModelKind::Slfn;

    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<SlfnArgs>, CliError> {
        resolve(self, common, typed).map(Resolved::alone)
    }
}

impl SlfnArgs {
    /// The SLFN's hyper-parameters (`--lambda` is `τ_λ`), with
    /// `--time-limit` and the command line's tolerance on progress
    /// ([`trainer::slfn_relative_decrease`]), checked (a refusal names the
    /// flag).
    fn params(&self) -> Result<SlfnValidParams, CliError> {
        let mut p = SlfnParams::new(self.hidden)
            .with_trainer(self.trainer)
            .with_tau_lambda(self.tau_lambda)
            .with_seed(self.seed);
        if let Some(t) = self.tau_w {
            p = p.with_tau_w(t);
        }
        if let Some(t) = self.time_limit {
            p = p.with_time_limit(t);
        }
        if let Some(tol) = trainer::slfn_relative_decrease(self.trainer) {
            p = p.with_relative_decrease(tol);
        }
        models::ParamGuard::check(p).map_err(trainer::slfn_error)
    }

    /// A fit whose `E` or weights are not finite failed. The features are
    /// finite by then, so the cause is a ridge parameter too large for the
    /// trainer (`--lambda`, `--tau-w`: named when set) or, with neither set,
    /// inputs too large (`--scale none`).
    ///
    /// # Errors
    /// [`CliError::Usage`] saying what is not finite and what to change.
    fn check_finite(&self, report: &SlfnReport, net: &Slfn) -> Result<(), CliError> {
        let weights_finite = net.weights().iter().chain(net.output_weights()).all(|v| v.is_finite());
        if report.objective.is_finite() && weights_finite {
            return Ok(());
        }
        let bad = if report.objective.is_finite() {
            "a weight".to_string()
        } else {
            format!("E = {}", report.objective)
        };
        let trainer = self.trainer;
        let default_tau_w = 1e-2 / (net.n_inputs().max(1) as f64 * self.hidden.max(1) as f64);
        let mut flags = Vec::new();
        if self.tau_lambda != defaults::SLFN_LAMBDA {
            flags.push(format!(
                "--lambda {:e} (τ_λ, the output weights' ridge parameter)",
                self.tau_lambda
            ));
        }
        if let Some(t) = self.tau_w {
            flags.push(format!("--tau-w {t:e} (τ_w, the input weights')"));
        }
        Err(CliError::Usage(if flags.is_empty() {
            format!(
                "the {trainer} fit failed ({bad} is not finite) with the default τ_λ and τ_w: rescale the inputs \
                 (--scale zscore)"
            )
        } else {
            format!(
                "{}: the {trainer} fit failed ({bad} is not finite): too large for {trainer}; use smaller values \
                 (defaults: --lambda {:e}, --tau-w the paper's 10⁻²/(n·N) = {default_tau_w:e})",
                flags.join(", "),
                defaults::SLFN_LAMBDA
            )
        }))
    }
}

/// The SLFN's own fields of the JSON report.
#[derive(Serialize)]
struct SlfnJson {
    /// The training error `E(λ, w)` of Grippo et al.'s eq. (5) at the end
    /// (on the scaled data and targets the model was fitted to).
    objective: f64,
    /// Major iterations (DEC), iterations (L-BFGS), 1 (ELM).
    iterations: usize,
    /// Evaluations (DEC: of one unit's error; L-BFGS: of the whole error
    /// and gradient).
    evaluations: usize,
    /// Why the fit stopped (dec, lbfgs).
    #[serde(skip_serializing_if = "Option::is_none")]
    termination: Option<String>,
    /// DEC: the objective after every major iteration.
    #[serde(skip_serializing_if = "Option::is_none")]
    objective_trace: Option<Vec<f64>>,
}

impl ModelCommand for SlfnArgs {
    fn kind(&self) -> ModelKind {
        ModelKind::Slfn
    }

    fn hidden_units(&self) -> usize {
        self.hidden
    }

    fn activation_name(&self) -> String {
        Activation::Sigmoid.to_string()
    }

    fn solver_name(&self) -> String {
        self.trainer.to_string()
    }

    fn describe(&self, _outputs: usize) -> String {
        format!(
            "SLFN with {} sigmoid units, trainer {}, τ_λ = {:e}",
            self.hidden, self.trainer, self.tau_lambda
        )
    }

    /// Two K × n arrays (DEC: Hᵀ and its working copy of X; L-BFGS: H and
    /// the backward product D; the ELM: H and LAPACK's copy), a copy of the
    /// features, the test outputs.
    fn fit_bytes(&self, size: FitSize) -> Option<u128> {
        let (k, kt, n_in, n) = (
            size.train as u128,
            size.test as u128,
            size.features as u128,
            size.nodes as u128,
        );
        k.checked_mul(n)?
            .checked_mul(16)?
            .checked_add(k.checked_mul(n_in)?.checked_mul(8)?)?
            .checked_add(kt.checked_mul(n)?.checked_mul(8)?)
    }

    fn smaller_fit_flags(&self) -> String {
        "fewer hidden nodes (--hidden)".into()
    }

    fn train(&self, _ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError> {
        let params = self.params()?;
        let trainer = params.trainer();
        // DEC prints its first 20 major iterations, then (as L-BFGS
        // throughout) one line every 2 s at most.
        let mut last = Instant::now();
        let (net, report) = params.fit_with_report(&Dataset::new(x.view(), y.view()), |p| {
            let major = matches!(trainer, SlfnTrainer::Dec { .. }) && p.iteration <= 20;
            if major || last.elapsed() >= Duration::from_secs(2) {
                last = Instant::now();
                say!(
                    "nn fit: {trainer} iteration {}: E = {:.6e} ({:.2} s)",
                    p.iteration,
                    p.objective,
                    p.elapsed.as_secs_f64()
                );
            }
        })?;
        if let Some(t) = report.termination {
            say!(
                "nn fit: {trainer} stopped after {} iteration(s) ({t}): E = {:.6e}",
                report.iterations,
                report.objective
            );
        }
        self.check_finite(&report, &net)?;
        let details = details_of(&SlfnJson {
            objective: report.objective,
            iterations: report.iterations,
            evaluations: report.evaluations.gradients.max(report.evaluations.values),
            termination: report.termination.map(|t| t.to_string()),
            objective_trace: report
                .dec
                .as_ref()
                .map(|d| d.trace.iter().map(|t| t.objective).collect()),
        })?;
        Ok(Trained {
            model: FittedModel::Slfn(net),
            hidden: self.hidden,
            lambda: (self.trainer != SlfnTrainer::Elm).then_some(self.tau_lambda),
            selection: None,
            details,
        })
    }
}
