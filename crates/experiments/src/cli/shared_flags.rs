//! The flags that more than one model takes, each declared once as a small
//! clap `Args` struct that the models' own flag structs flatten: a model's
//! flag struct lists exactly the flags that apply to it, so that which flag
//! applies to which model is read from the types ([`FitFlags`](crate::cli::FitFlags)).
//!
//! - `--hidden`: the ELM and the SLFN;
//! - `--activation`: the ELM and the BPLS model;
//! - `--trainer`: the SLFN, the DFNN and the BPLS model;
//! - `--time-limit`: the SLFN, the DFNN and the BPLS model;
//! - `--layers`, `--batch-size`, `--max-epochs`: the DFNN and the BPLS model;
//! - `--weight-column`, `--weight-scale`: the ELM and the BLS (the ridge
//!   readouts and their random hidden layers).

use std::time::Duration;

use clap::Args;
use models::dfnn::{B2ld, FullLbfgs, Incremental, IncrementalKind};
use models::Activation;

use super::common::{at_least_one, ActivationArg};
use super::trainer::TrainerArg;

/// The heading of the flags the DFNN and the BPLS model share.
const LAYERED: &str = "DFNN and BPLS (--model dfnn, bpls)";
/// The heading of the flags the SLFN, the DFNN and the BPLS model share.
const TRAINED: &str = "SLFN, DFNN and BPLS (--model slfn, dfnn, bpls)";

/// `--hidden` (the ELM and the SLFN).
#[derive(Clone, Copy, Debug, Args)]
pub struct HiddenFlag {
    /// Hidden nodes (required with --model elm and --model slfn).
    #[arg(long, value_name = "N", value_parser = at_least_one, help_heading = "ELM and SLFN (--model elm, slfn)")]
    pub hidden: Option<usize>,
}

/// `--weight-column` (the ELM and the BLS: a weighted ridge readout).
#[derive(Clone, Debug, Args)]
pub struct WeightColumnFlag {
    /// The training file's column (CSV header name) of sample weights, ≥ 0:
    /// each row's squared error weighted (integer weights fit what
    /// repeating rows fits). Not a feature: a test file's column of that
    /// name is dropped too. The batch fit only (ELM: --solver ridge or
    /// lstsq; BLS: no --increments, --f32).
    #[arg(long, value_name = "NAME", help_heading = "ELM and BLS (--model elm, bls)")]
    pub weight_column: Option<String>,
}

impl WeightColumnFlag {
    /// The column, unless a flag that fits otherwise than the batch fit is
    /// given: `other` names it.
    ///
    /// # Errors
    /// [`CliError::Usage`](super::error::CliError::Usage) naming the column and `other`.
    pub fn resolve(&self, other: Option<String>) -> Result<Option<String>, super::error::CliError> {
        match (&self.weight_column, other) {
            (Some(name), Some(other)) => Err(super::error::CliError::Usage(format!(
                "--weight-column {name}: sample weights are taken by the batch fit, not with {other}"
            ))),
            (column, _) => Ok(column.clone()),
        }
    }
}

/// `--weight-scale` (the ELM and the BLS: the scale of the random hidden
/// layer, issue 42).
#[derive(Clone, Debug, Args)]
pub struct WeightScaleFlag {
    /// The scale of the random hidden layer. ELM: the input weights are
    /// uniform on [−s, s) with s = unit-variance (√(3 / mean ‖x‖²): unit
    /// pre-activation variance, the default), inverse-sqrt (1/√N), or a
    /// number (1: MATLAB ELM's rand*2−1). BLS: the enhancement nodes' shrink
    /// scale, a number [default: 0.8, Chen's].
    #[arg(long, value_name = "SCALE", help_heading = "ELM and BLS (--model elm, bls)")]
    pub weight_scale: Option<String>,
}

/// The BLS's enhancement shrink scale: a finite number > 0
/// (`--weight-scale`, `--select-scales`).
pub(crate) fn parse_shrink(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s > 0.0)
}

impl WeightScaleFlag {
    /// The ELM's input scale ([`models::InputScale`]; its default when not given).
    ///
    /// # Errors
    /// [`CliError::Usage`](super::error::CliError::Usage) naming the flag and what it takes.
    pub fn input_scale(&self) -> Result<models::InputScale, super::error::CliError> {
        match &self.weight_scale {
            None => Ok(models::ElmParams::DEFAULT_INPUT_SCALE),
            Some(text) => text.parse().map_err(|_| {
                super::error::CliError::Usage(format!(
                    "--weight-scale {text}: the ELM's input-weight scale is {}",
                    models::InputScale::NAMES
                ))
            }),
        }
    }

    /// The BLS's shrink scale (its default when not given).
    ///
    /// # Errors
    /// [`CliError::Usage`](super::error::CliError::Usage) unless a finite number > 0.
    pub fn shrink(&self) -> Result<f64, super::error::CliError> {
        match &self.weight_scale {
            None => Ok(models::BlsParams::DEFAULT_SHRINK),
            Some(text) => parse_shrink(text).ok_or_else(|| {
                super::error::CliError::Usage(format!(
                    "--weight-scale {text}: the BLS's enhancement shrink scale is a number > 0"
                ))
            }),
        }
    }
}

/// `--activation` (the ELM and the BPLS model).
#[derive(Clone, Copy, Debug, Args)]
pub struct ActivationFlag {
    /// Activation of the hidden nodes (also --model bpls: sigmoid, tanh or
    /// linear only, the injective ones BPLS inverts).
    #[arg(long, value_enum, value_name = "NAME", ignore_case = true, default_value_t = ActivationArg(Activation::Sigmoid), help_heading = "ELM and BPLS (--model elm, bpls)")]
    pub activation: ActivationArg,
}

/// `--trainer` (the SLFN, the DFNN and the BPLS model; its values are
/// checked against the model by [`TrainerArg::check_model`]).
#[derive(Clone, Copy, Debug, Args)]
pub struct TrainerFlag {
    /// Trainer. slfn (Grippo et al.): dec (DEC, Algorithm 3), lbfgs (on all
    /// weights) or elm (the paper's ELM: random input weights, minimum-norm
    /// least squares) [default: dec]. dfnn (Palagi & Seccia): b2ld
    /// (Algorithm 3), lbfgs (on all weights), bling (Algorithm 5) or ig
    /// (incremental gradient) [default: b2ld]. bpls (Tomic et al.): bpls
    /// (Algorithm 1 or 2), or backprop with adam, nag, sgd or adagrad (the
    /// paper's baselines) [default: bpls].
    #[arg(long, value_enum, value_name = "T", ignore_case = true, help_heading = TRAINED)]
    pub trainer: Option<TrainerArg>,
}

/// `--time-limit` (the SLFN, the DFNN and the BPLS model).
#[derive(Clone, Copy, Debug, Args)]
pub struct TimeLimitFlag {
    /// Stop training after S seconds (dfnn: every trainer; the paper: 150
    /// for b2ld and lbfgs, 60 for bling and ig; slfn: dec and lbfgs; bpls:
    /// the backprop trainers) [default: none].
    #[arg(long, value_name = "S", value_parser = seconds, allow_negative_numbers = true, help_heading = TRAINED, help = time_help(), long_help = time_help())]
    pub time_limit: Option<Duration>,
}

/// `--layers` (the DFNN and the BPLS model).
#[derive(Clone, Debug, Args)]
pub struct LayersFlag {
    /// Hidden layers' widths, comma-separated, first layer first (e.g.
    /// 50,50,50); the output layer (1 unit for regression, one per class)
    /// is added. Required with --model dfnn and --model bpls.
    #[arg(long, value_name = "N,N,…", value_parser = parse_layers, help_heading = LAYERED, help = layers_help(), long_help = layers_help())]
    pub layers: Option<Layers>,
}

/// `--batch-size` and `--max-epochs` (the DFNN's minibatch trainers and the
/// BPLS model's backprop trainers).
#[derive(Clone, Copy, Debug, Args)]
pub struct MinibatchFlags {
    /// Samples per minibatch (dfnn: bling and ig only; bpls: the backprop
    /// trainers only).
    #[arg(long, value_name = "B", value_parser = at_least_one, help_heading = LAYERED, help = batch_help(), long_help = batch_help())]
    pub batch_size: Option<usize>,
    /// Passes over the training set (dfnn: bling and ig only; bpls: the
    /// backprop trainers only).
    #[arg(long, value_name = "E", value_parser = at_least_one, help_heading = LAYERED, help = epochs_help(), long_help = epochs_help())]
    pub max_epochs: Option<usize>,
}

fn layers_help() -> String {
    format!(
        "Hidden layers' widths, comma-separated, first layer first (e.g. 50,50,50); the output layer (1 unit for \
         regression, one per class) is added. Required with --model dfnn and --model bpls. The starting weights \
         come from --seed, uniform on [−{d}, {d}] for dfnn (Palagi & Seccia do not state their initialization) \
         and on [−{b}, {b}] for bpls (Tomic et al.'s)",
        d = models::dfnn::INIT_SCALE,
        b = models::mlp::INIT_SCALE
    )
}

fn time_help() -> String {
    let (b2ld, lbfgs) = (B2ld::default(), FullLbfgs::default());
    let same = b2ld.gradient_tolerance == lbfgs.gradient_tolerance && b2ld.relative_decrease == lbfgs.relative_decrease;
    let tolerances = if same {
        format!(
            "b2ld and lbfgs stop at ‖∇f‖ ≤ {:e} or a relative decrease ≤ {:e} (b2ld: in every block; lbfgs: over \
             {} iterations); b2ld also when {} cycles gain at most {}·f (--cycle-tolerance) and after {} cycles \
             (--max-cycles)",
            b2ld.gradient_tolerance,
            b2ld.relative_decrease,
            lbfgs.window,
            b2ld.cycle_window,
            b2ld.cycle_tolerance,
            b2ld.max_cycles
        )
    } else {
        "b2ld and lbfgs stop at their tolerances".to_string()
    };
    format!(
        "Stop training after S seconds. dfnn: every trainer (the paper: 150 for b2ld and lbfgs, 60 for bling and \
         ig) [default: none: {tolerances}, bling and ig after --max-epochs]. slfn: dec (checked before every unit's \
         step, after the first ridge solve of the output weights) and lbfgs [default: none: they stop at --maxiter \
         or when progress stalls]. bpls: the backprop trainers adam, nag, sgd, adagrad (no epoch starts after it) \
         [default: none: they run --max-epochs epochs]"
    )
}

fn batch_help() -> String {
    let d = Incremental::new(IncrementalKind::Bling).batch_size;
    format!(
        "Samples per minibatch. dfnn: bling and ig only [default: {d}]. bpls: the backprop trainers adam, nag, sgd, \
         adagrad only [default: {}; Tomic et al. used 1, far slower per epoch]",
        models::mlp::Backprop::PRACTICAL_BATCH_SIZE
    )
}

fn epochs_help() -> String {
    let d = Incremental::new(IncrementalKind::Bling).max_epochs;
    format!(
        "Passes over the training set. dfnn: bling and ig only [default: {d}]. bpls: the backprop trainers adam, \
         nag, sgd, adagrad only [default: {}, Tomic et al.'s]",
        models::mlp::Backprop::PAPER_EPOCHS
    )
}

/// `--layers`: the hidden layers' widths, each at least 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layers(pub Vec<usize>);

/// Parse `--layers` (`50,50,50`): comma-separated whole numbers ≥ 1, at
/// least one.
///
/// # Errors
/// What is wrong, naming the width by its position.
pub fn parse_layers(text: &str) -> Result<Layers, String> {
    if text.trim().is_empty() {
        return Err("give the hidden layers' widths, e.g. 50,50,50".into());
    }
    text.split(',')
        .enumerate()
        .map(|(i, w)| {
            let w = w.trim();
            match w.parse::<usize>() {
                _ if w.is_empty() => Err(format!(
                    "width {} is empty (separate the widths by single commas, e.g. 50,50,50)",
                    i + 1
                )),
                Ok(0) => Err(format!("width {} is 0: every layer needs at least one unit", i + 1)),
                Ok(n) => Ok(n),
                Err(e) => Err(format!("width {} ('{w}') is not a whole number ({e})", i + 1)),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Layers)
}

/// A time limit in seconds: finite, `> 0`, representable.
fn seconds(text: &str) -> Result<Duration, String> {
    let s: f64 = text
        .trim()
        .parse()
        .map_err(|e| format!("not a number of seconds ({e})"))?;
    if !(s.is_finite() && s > 0.0) {
        return Err("must be a finite number of seconds > 0".into());
    }
    Duration::try_from_secs_f64(s).map_err(|_| {
        format!(
            "{} seconds is longer than a time limit can be (at most {:.1e} s; leave --time-limit out for none)",
            text.trim(),
            Duration::MAX.as_secs_f64()
        )
    })
}

/// The hidden units in all of `--layers`, or the error naming the flag when
/// they overflow a `usize`; `model` names the model in the error of a
/// missing `--layers`.
///
/// # Errors
/// [`super::error::CliError::Usage`]: no `--layers`, or a sum that overflows.
pub(crate) fn required_layers(
    flag: &LayersFlag,
    model: &str,
    example: &str,
) -> Result<Vec<usize>, super::error::CliError> {
    let hidden = flag
        .layers
        .clone()
        .ok_or_else(|| {
            super::error::CliError::Usage(format!(
                "--layers is required with --model {model}: the hidden layers' widths, e.g. --layers {example}"
            ))
        })?
        .0;
    if hidden.iter().try_fold(0usize, |a, &w| a.checked_add(w)).is_none() {
        return Err(super::error::CliError::Usage(
            "--layers: the hidden units in all overflow a 64-bit integer".into(),
        ));
    }
    Ok(hidden)
}
