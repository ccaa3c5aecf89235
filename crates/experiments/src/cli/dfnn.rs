//! The DFNN half of `nn fit --model dfnn`: Palagi & Seccia's deep
//! feedforward network ([`models::dfnn`]: sigmoid hidden layers, a linear
//! output layer, objective (3)) — its flags and their checks, the fit with
//! one progress line per iteration on stderr, and the checks of a network
//! loaded from a model file.
//!
//! `--layers` lists the hidden widths; the output layer (one unit for
//! regression, one per class) is added from the targets. The trainers are
//! B2LD (Algorithm 3, the default), L-BFGS on all weights (its baseline),
//! BLInG (Algorithm 5) and IG (its baseline), with the settings of
//! [`B2ld::default`], [`FullLbfgs::default`] and [`Incremental::new`]
//! except for what the flags below change.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use clap::Args;
use models::dfnn::{B2ld, Bias, Dfnn, DfnnParams, DfnnTrainer, FullLbfgs, Incremental, IncrementalKind, TrainReport};
use models::ParamGuard;
use ndarray::Array2;

use serde::Serialize;

use super::budget::FitSize;
use super::common::{CommonFlags, ModelKind};
use super::error::CliError;
use super::model_command::{details_of, FitContext, ModelCommand, ModelFlags, Resolved, Trained};
pub use super::shared_flags::{parse_layers, Layers};
use super::shared_flags::{LayersFlag, MinibatchFlags, TimeLimitFlag, TrainerFlag};
use super::trainer::TrainerArg;
use nn_data::pipeline::FittedModel;

const HEADING: &str = "DFNN (--model dfnn)";

/// The starting weights are uniform on `[−INIT_SCALE, INIT_SCALE)`
/// ([`Dfnn::random`]). Palagi & Seccia do not state their initialization;
/// 1 is ours (the SLFN's `w⁰` on `[−0.5, 0.5]` is Grippo et al.'s, written
/// into its trainer rather than kept as a constant).
pub const INIT_SCALE: f64 = models::dfnn::INIT_SCALE;

/// The flags of `nn fit --model dfnn` besides the common ones
/// ([`CommonFlags`]): exactly the flags that apply to the DFNN, so that any
/// other is refused ([`FitFlags`](crate::cli::FitFlags)).
#[derive(Clone, Debug, Args)]
pub struct DfnnFlags {
    /// `--layers` (shared with `--model bpls`).
    #[command(flatten)]
    pub layers: LayersFlag,
    /// `--trainer`: b2ld, lbfgs, bling or ig.
    #[command(flatten)]
    pub trainer: TrainerFlag,
    /// `--time-limit`.
    #[command(flatten)]
    pub time_limit: TimeLimitFlag,
    /// `--batch-size` and `--max-epochs` (bling and ig).
    #[command(flatten)]
    pub minibatch: MinibatchFlags,
    /// b2ld only: solve the last layer's block (a ridge problem) exactly
    /// instead of by L-BFGS (the paper used L-BFGS there too).
    #[arg(long, help_heading = HEADING)]
    pub exact_last_layer: bool,
    /// b2ld only: stop when the last cycles together decreased f by at
    /// most this fraction of f (0: the paper's rules only).
    #[arg(long, value_name = "T", value_parser = tolerance, help_heading = HEADING, help = cycle_tolerance_help(), long_help = cycle_tolerance_help())]
    pub cycle_tolerance: Option<f64>,
    /// b2ld only: the most cycles over the layers.
    #[arg(long, value_name = "N", value_parser = super::common::at_least_one, help_heading = HEADING, help = max_cycles_help(), long_help = max_cycles_help())]
    pub max_cycles: Option<usize>,
    /// No bias weights in any layer (the networks of the paper's Table 1
    /// have none) [default: a bias in every layer].
    #[arg(long, help_heading = HEADING)]
    pub no_bias: bool,
}

fn cycle_tolerance_help() -> String {
    let d = B2ld::default();
    format!(
        "b2ld only: stop when the last {} cycles together decreased the objective f by at most T·f; 0 leaves the \
         paper's rules only (gradient, per-block decrease, --time-limit) [default: {}]",
        d.cycle_window, d.cycle_tolerance
    )
}

fn max_cycles_help() -> String {
    format!(
        "b2ld only: stop after N cycles over the layers; a cycle costs about 12 passes over the data per layer \
         [default: {}]",
        B2ld::default().max_cycles
    )
}

/// `--cycle-tolerance`: a number, finite and ≥ 0.
fn tolerance(text: &str) -> Result<f64, String> {
    let t: f64 = text.trim().parse().map_err(|e| format!("not a number ({e})"))?;
    if t.is_finite() && t >= 0.0 {
        Ok(t)
    } else {
        Err(format!("{t}: the tolerance must be finite and ≥ 0 (0: no cycle rule)"))
    }
}

/// The resolved DFNN settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DfnnArgs {
    /// The hidden layers' widths (`--layers`).
    pub hidden: Vec<usize>,
    /// The trainer with its settings (`--trainer`, `--time-limit`,
    /// `--batch-size`, `--max-epochs`, `--exact-last-layer`).
    pub trainer: DfnnTrainer,
    /// `ρ` of objective (3) from `--lambda`; `None`: the paper's `10⁻³/n`
    /// ([`Dfnn::paper_rho`]), known once the network is.
    pub rho: Option<f64>,
    /// Biases in every layer, or none (`--no-bias`).
    pub bias: Bias,
    /// The starting weights' scale ([`INIT_SCALE`]).
    pub init_scale: f64,
    /// `--seed` (the starting weights; BLInG's and IG's order of the rows).
    pub seed: u64,
}

impl DfnnArgs {
    /// The hidden units in all (the JSON's `hidden`).
    pub fn hidden_units(&self) -> usize {
        self.hidden.iter().sum()
    }
}

fn usage(text: impl Into<String>) -> CliError {
    CliError::Usage(text.into())
}

/// Resolve the DFNN flags with the common `--lambda` (its `ρ`).
///
/// # Errors
/// [`CliError::Usage`] naming the flag: no `--layers`, more hidden units
/// than a `usize` counts, a trainer of another model, `--batch-size` or
/// `--max-epochs` with a batch trainer, `--exact-last-layer` with another
/// trainer than b2ld, a negative or non-finite `--lambda`.
pub(crate) fn resolve(flags: &DfnnFlags, common: &CommonFlags) -> Result<DfnnArgs, CliError> {
    flags
        .trainer
        .trainer
        .map(|t| t.check_model(ModelKind::Dfnn))
        .transpose()?;
    let hidden = super::shared_flags::required_layers(&flags.layers, "dfnn", "50,50,50")?;
    let lambda = common.lambda;
    let arg = flags.trainer.trainer.unwrap_or(TrainerArg::B2ld);
    let name = arg.name();
    let minibatch = matches!(arg, TrainerArg::Bling | TrainerArg::Ig);
    if !minibatch {
        if flags.minibatch.batch_size.is_some() {
            return Err(usage(format!(
                "--batch-size does not apply to --trainer {name}: only the minibatch trainers bling and ig take it"
            )));
        }
        if flags.minibatch.max_epochs.is_some() {
            return Err(usage(format!(
                "--max-epochs does not apply to --trainer {name}: only the minibatch trainers bling and ig take it \
                 (b2ld and lbfgs stop at their tolerances or --time-limit)"
            )));
        }
    }
    for (given, flag) in [
        (flags.exact_last_layer, "--exact-last-layer"),
        (flags.cycle_tolerance.is_some(), "--cycle-tolerance"),
        (flags.max_cycles.is_some(), "--max-cycles"),
    ] {
        if given && arg != TrainerArg::B2ld {
            return Err(usage(format!(
                "{flag} does not apply to --trainer {name}: it is an option of b2ld"
            )));
        }
    }
    if let Some(rho) = lambda {
        if !(rho.is_finite() && rho >= 0.0) {
            return Err(usage(format!("--lambda {rho}: ρ must be finite and ≥ 0")));
        }
    }
    let time_limit = flags.time_limit.time_limit;
    let trainer = match arg {
        TrainerArg::B2ld => {
            let d = B2ld::default();
            DfnnTrainer::B2ld(B2ld {
                time_limit,
                exact_last_layer: flags.exact_last_layer,
                cycle_tolerance: flags.cycle_tolerance.unwrap_or(d.cycle_tolerance),
                max_cycles: flags.max_cycles.unwrap_or(d.max_cycles),
                ..d
            })
        }
        TrainerArg::Lbfgs => DfnnTrainer::Lbfgs(FullLbfgs {
            time_limit,
            ..FullLbfgs::default()
        }),
        TrainerArg::Bling | TrainerArg::Ig => {
            let kind = if arg == TrainerArg::Bling {
                IncrementalKind::Bling
            } else {
                IncrementalKind::Ig
            };
            let mut inc = Incremental::new(kind);
            inc.time_limit = time_limit;
            inc.batch_size = flags.minibatch.batch_size.unwrap_or(inc.batch_size);
            inc.max_epochs = flags.minibatch.max_epochs.unwrap_or(inc.max_epochs);
            DfnnTrainer::Incremental(inc)
        }
        TrainerArg::Dec
        | TrainerArg::Elm
        | TrainerArg::Bpls
        | TrainerArg::Adam
        | TrainerArg::Nag
        | TrainerArg::Sgd
        | TrainerArg::Adagrad => {
            return Err(usage(format!(
                "--trainer {name} does not apply to --model dfnn: its trainers are b2ld, lbfgs, bling, ig"
            )))
        }
    };
    Ok(DfnnArgs {
        hidden,
        trainer,
        rho: lambda,
        bias: if flags.no_bias { Bias::None } else { Bias::Every },
        init_scale: INIT_SCALE,
        seed: common.seed,
    })
}

impl ModelFlags for DfnnFlags {
    type Settings = DfnnArgs;
    const KIND: ModelKind = ModelKind::Dfnn;

    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<DfnnArgs>, CliError> {
        let _ = typed;
        resolve(self, common).map(Resolved::alone)
    }
}

/// The L-BFGS memory the DFNN's estimate counts (B2LD's and the full
/// L-BFGS's default).
const DFNN_LBFGS_MEMORY: u128 = 10;

/// Bytes of the deep network's fit (the second table of `budget.rs`).
fn dfnn_bytes(dfnn: &DfnnArgs, size: FitSize) -> Option<u128> {
    let (k, kt) = (size.train as u128, size.test as u128);
    let extra = u128::from(dfnn.bias == Bias::Every);
    let (mut units, mut widest, mut weights, mut fan_in) = (0u128, 0u128, 0u128, size.features as u128);
    // The output layer's inputs with the bias: the columns of the exact
    // last layer's ridge problem.
    let mut last_cols = 0u128;
    for &n in dfnn.hidden.iter().chain([&size.outputs]) {
        let n = n as u128;
        units = units.checked_add(n)?;
        widest = widest.max(n);
        last_cols = fan_in.checked_add(extra)?;
        weights = weights.checked_add(n.checked_mul(last_cols)?)?;
        fan_in = n;
    }
    let exact = match &dfnn.trainer {
        DfnnTrainer::B2ld(b) if b.exact_last_layer => {
            let z = k.checked_mul(last_cols)?;
            // ρ = 0: minimum-norm least squares on a copy of Z; otherwise
            // ridge on the Gram matrix of Z's columns.
            let solve = if dfnn.rho == Some(0.0) {
                z
            } else {
                last_cols.checked_mul(last_cols)?
            };
            z.checked_add(solve)?
        }
        _ => 0,
    };
    let batch = match &dfnn.trainer {
        DfnnTrainer::Incremental(inc) => (inc.batch_size as u128).min(k),
        DfnnTrainer::B2ld(_) | DfnnTrainer::Lbfgs(_) => 0,
    };
    let doubles = k
        .checked_add(batch.checked_mul(2)?)?
        .checked_mul(2)?
        .checked_mul(units)?
        .checked_add(weights.checked_mul(2 * DFNN_LBFGS_MEMORY + 4)?)?
        .checked_add(kt.checked_mul(2)?.checked_mul(widest)?)?
        .checked_add(exact)?;
    doubles.checked_mul(8)
}

/// The DFNN's own fields of the JSON report.
#[derive(Serialize)]
struct DfnnJson {
    /// Every layer's width, the output layer's last.
    layers: Vec<usize>,
    /// `f(w)` of Palagi & Seccia's objective (3) at the end (on the scaled
    /// data and targets the model was fitted to).
    objective: f64,
    /// `‖∇f(w)‖` at the end.
    gradient_norm: f64,
    /// B2LD cycles, L-BFGS iterations, epochs of BLInG and IG.
    iterations: usize,
    /// Evaluations of the objective on the whole training set (0 for BLInG
    /// and IG).
    evaluations: usize,
    /// Updates of each layer's block, first layer first (the paper's
    /// Table 5).
    updates_per_layer: Vec<usize>,
    /// Why the fit stopped.
    termination: String,
    /// The objective at the start and after every iteration (and at the end
    /// when a time limit cut an iteration short).
    objective_trace: Vec<f64>,
    /// The training time (s) of each `objective_trace` point.
    trace_seconds: Vec<f64>,
}

impl ModelCommand for DfnnArgs {
    fn kind(&self) -> ModelKind {
        ModelKind::Dfnn
    }

    fn hidden_units(&self) -> usize {
        DfnnArgs::hidden_units(self)
    }

    fn activation_name(&self) -> String {
        models::Activation::Sigmoid.to_string()
    }

    fn solver_name(&self) -> String {
        self.trainer.name().to_string()
    }

    fn describe(&self, outputs: usize) -> String {
        format!(
            "DFNN with hidden layers {:?} (sigmoid) and a linear output layer of {outputs} unit(s), {}, trainer {}",
            self.hidden,
            match self.bias {
                Bias::None => "no biases",
                _ => "biases",
            },
            self.trainer.name()
        )
    }

    fn fit_bytes(&self, size: FitSize) -> Option<u128> {
        dfnn_bytes(self, size)
    }

    fn smaller_fit_flags(&self) -> String {
        match &self.trainer {
            DfnnTrainer::B2ld(b) if b.exact_last_layer => {
                "fewer or narrower layers (--layers), or no --exact-last-layer".into()
            }
            _ => "fewer or narrower layers (--layers)".into(),
        }
    }

    fn train(&self, _ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError> {
        let DfnnFit { net, report, rho } = fit(self, self.seed, x, y)?;
        let details = details_of(&DfnnJson {
            layers: net.widths(),
            objective: report.objective,
            gradient_norm: report.gradient_norm,
            iterations: report.iterations,
            evaluations: report.evaluations,
            updates_per_layer: report.updates_per_layer.clone(),
            termination: report.termination.to_string(),
            objective_trace: report.trace.iter().map(|t| t.objective).collect(),
            trace_seconds: report.trace.iter().map(|t| t.seconds).collect(),
        })?;
        Ok(Trained {
            model: FittedModel::Dfnn(net),
            hidden: DfnnArgs::hidden_units(self),
            lambda: Some(rho),
            selection: None,
            details,
        })
    }
}

/// What one iteration of `trainer` is called on stderr.
fn iteration_name(trainer: &DfnnTrainer) -> &'static str {
    match trainer {
        DfnnTrainer::B2ld(_) => "cycle",
        DfnnTrainer::Lbfgs(_) => "iteration",
        DfnnTrainer::Incremental(_) => "epoch",
    }
}

/// The fitted network, its training report and the `ρ` it was fitted with.
pub(crate) struct DfnnFit {
    pub(crate) net: Dfnn,
    pub(crate) report: TrainReport,
    pub(crate) rho: f64,
}

/// Build the starting network on `x`'s features with `y`'s columns as
/// outputs (seed `seed`), and train it on `x`, `y`. Progress on stderr: one
/// `nn fit: b2ld cycle K: f = …` line per B2LD cycle or epoch of BLInG and
/// IG; for L-BFGS, whose iterations are many and short, at most one line a
/// second (as the SLFN's L-BFGS); then one line on how it stopped. After a
/// time limit the report's trace ends at the weights returned.
///
/// # Errors
/// The model's: data or parameters it refuses, an objective not finite at
/// the start; a fit whose `f`, `‖∇f‖` or weights are not finite
/// ([`check_finite`]: naming `--lambda` when it was given).
pub(crate) fn fit(args: &DfnnArgs, seed: u64, x: &Array2<f64>, y: &Array2<f64>) -> Result<DfnnFit, CliError> {
    // BLInG's and IG's fixed random order of the rows comes from --seed too.
    let trainer = match &args.trainer {
        DfnnTrainer::Incremental(inc) => DfnnTrainer::Incremental(Incremental {
            shuffle: Some(seed),
            ..inc.clone()
        }),
        other => other.clone(),
    };
    let params = DfnnParams::new(&args.hidden)
        .with_bias(args.bias)
        .with_trainer(trainer)
        .with_seed(seed)
        .with_init_scale(args.init_scale);
    let params = match args.rho {
        Some(rho) => params.with_rho(rho),
        None => params,
    }
    .check()?;
    let mut net = params.start(x.ncols(), y.ncols())?;
    let rho = params.rho_for(&net);
    say!(
        "nn fit: DFNN {} weights, ρ = {rho:e} ({})",
        net.n_weights(),
        if args.rho.is_some() {
            "--lambda"
        } else {
            "the paper's 10⁻³ / weights"
        }
    );
    let (name, unit) = (args.trainer.name(), iteration_name(&args.trainer));
    let every = match args.trainer {
        DfnnTrainer::Lbfgs(_) => Duration::from_secs(1),
        _ => Duration::ZERO,
    };
    let mut last: Option<Instant> = None;
    let mut report = net.fit(x.view(), y.view(), rho, params.trainer(), |p| {
        if last.is_none_or(|t| t.elapsed() >= every) {
            last = Some(Instant::now());
            let gradient = p.gradient_norm.map(|g| format!(", ‖∇f‖ = {g:.3e}")).unwrap_or_default();
            say!(
                "nn fit: {name} {unit} {}: f = {:.6e}{gradient} ({:.2} s)",
                p.iteration,
                p.objective,
                p.elapsed.as_secs_f64()
            );
        }
        ControlFlow::Continue(())
    })?;
    // A time limit can stop B2LD inside a cycle: end the trace at the
    // weights returned, as BLInG and IG do themselves.
    if report.termination == models::optim::Termination::TimeLimit
        && report.trace.last().is_some_and(|t| t.objective != report.objective)
    {
        let point = models::dfnn::TracePoint {
            seconds: report.seconds,
            objective: report.objective,
        };
        report.trace.push(point);
    }
    say!(
        "nn fit: {name} stopped after {} {unit}(s) ({}): f = {:.6e}, ‖∇f‖ = {:.3e}, updates per layer {:?}",
        report.iterations,
        report.termination,
        report.objective,
        report.gradient_norm,
        report.updates_per_layer
    );
    check_finite(args, &net, &report, rho)?;
    Ok(DfnnFit { net, report, rho })
}

/// A fit whose `f`, `‖∇f‖` or weights are not finite failed. The features
/// are finite (and scaled, unless `--scale none`) by then, so with
/// `--lambda` given the likely cause is `ρ` too large for the trainer (BLInG's
/// and IG's normalized steps diverge for `ρ` of order `10⁷` on standardized
/// data, B2LD's and L-BFGS's `‖∇f‖` overflows from about `10¹⁵⁴`):
/// the error names `--lambda` (for the DFNN `ρ` of objective (3), the weight
/// decay `ρ‖w‖²` on all weights, with every trainer), not a data row.
///
/// # Errors
/// [`CliError::Usage`] saying what is not finite and what to change.
fn check_finite(args: &DfnnArgs, net: &Dfnn, report: &TrainReport, rho: f64) -> Result<(), CliError> {
    let weights_finite = net.weights().iter().all(|w| w.iter().all(|v| v.is_finite()));
    let bad = if !report.objective.is_finite() {
        format!("f = {}", report.objective)
    } else if !report.gradient_norm.is_finite() {
        format!("‖∇f‖ = {}", report.gradient_norm)
    } else if !weights_finite {
        "a weight".to_string()
    } else {
        return Ok(());
    };
    let trainer = args.trainer.name();
    let paper = net.paper_rho();
    Err(usage(match args.rho {
        Some(given) => format!(
            "--lambda {given:e}: the {trainer} fit failed ({bad} is not finite): for --model dfnn --lambda is ρ, \
             the weight decay ρ‖w‖² of objective (3) on all weights (with every trainer), and ρ = {given:e} is too \
             large for {trainer} (its weights or ‖∇f‖ overflow 64-bit floats); use a smaller --lambda (the paper's ρ \
             for this network: 10⁻³ / {} weights = {paper:.3e}, the default)",
            net.n_weights()
        ),
        None => format!(
            "the {trainer} fit failed ({bad} is not finite) with the paper's ρ = {rho:.3e} (--lambda): rescale the \
             inputs (--scale zscore), or try another --trainer or a smaller --lambda"
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::resolve_fit;
    use nn_data::pipeline::check_dfnn_network as check_network;

    const BASE: [&str; 8] = [
        "--train",
        "a.csv",
        "--test",
        "b.csv",
        "--task",
        "regression",
        "--model",
        "dfnn",
    ];

    fn resolve(extra: &[&str]) -> Result<DfnnArgs, String> {
        let a = resolve_fit(&[&BASE[..], extra].concat())?;
        match a.model {
            crate::cli::ModelArgs::Dfnn(d) => Ok(d),
            other => Err(format!("not dfnn: {other:?}")),
        }
    }

    #[test]
    fn layers_parse_and_bad_lists_say_which_width() {
        assert_eq!(parse_layers("50, 50,50"), Ok(Layers(vec![50, 50, 50])));
        assert_eq!(parse_layers("7"), Ok(Layers(vec![7])));
        let e = |t: &str| parse_layers(t).err().unwrap_or_default();
        assert!(e("5,,5").contains("width 2 is empty"), "{}", e("5,,5"));
        assert!(e("5,").contains("width 2 is empty"));
        assert!(e("0").contains("width 1 is 0"));
        assert!(e("4,x").contains("width 2 ('x') is not a whole number"));
        assert!(e("").contains("e.g. 50,50,50"));
        assert!(e("-3").contains("not a whole number"));
    }

    #[test]
    fn defaults_are_b2ld_with_biases_and_the_papers_rho() -> Result<(), String> {
        let d = resolve(&["--layers", "4,3"])?;
        assert_eq!(d.hidden, vec![4, 3]);
        assert_eq!(d.trainer, DfnnTrainer::B2ld(B2ld::default()));
        assert_eq!((d.rho, d.bias, d.init_scale), (None, Bias::Every, 0.5));
        let d = resolve(&[
            "--layers",
            "2",
            "--trainer",
            "ig",
            "--batch-size",
            "16",
            "--max-epochs",
            "3",
            "--time-limit",
            "2.5",
            "--lambda",
            "0",
            "--no-bias",
        ])?;
        let mut want = Incremental::new(IncrementalKind::Ig);
        want.batch_size = 16;
        want.max_epochs = 3;
        want.time_limit = Some(Duration::from_millis(2500));
        assert_eq!(d.trainer, DfnnTrainer::Incremental(want));
        assert_eq!((d.rho, d.bias), (Some(0.0), Bias::None));
        let d = resolve(&["--layers", "2", "--exact-last-layer", "--time-limit", "1"])?;
        let DfnnTrainer::B2ld(b) = d.trainer else {
            return Err("not b2ld".into());
        };
        assert!(b.exact_last_layer && b.time_limit == Some(Duration::from_secs(1)));
        let d = resolve(&["--layers", "2", "--cycle-tolerance", "0", "--max-cycles", "7"])?;
        let want = B2ld {
            cycle_tolerance: 0.0,
            max_cycles: 7,
            ..B2ld::default()
        };
        assert_eq!(d.trainer, DfnnTrainer::B2ld(want));
        Ok(())
    }

    #[test]
    fn flags_of_other_trainers_and_models_are_refused_by_name() {
        let e = |extra: &[&str]| resolve(extra).err().unwrap_or_default();
        assert!(e(&[]).contains("--layers is required with --model dfnn"));
        assert!(e(&["--layers", "3", "--batch-size", "8"]).contains("--batch-size does not apply to --trainer b2ld"));
        assert!(e(&["--layers", "3", "--trainer", "lbfgs", "--max-epochs", "8"])
            .contains("--max-epochs does not apply to --trainer lbfgs"));
        assert!(e(&["--layers", "3", "--trainer", "bling", "--exact-last-layer"])
            .contains("--exact-last-layer does not apply to --trainer bling"));
        assert!(e(&["--layers", "3", "--trainer", "lbfgs", "--cycle-tolerance", "0.1"])
            .contains("--cycle-tolerance does not apply to --trainer lbfgs"));
        assert!(e(&["--layers", "3", "--trainer", "ig", "--max-cycles", "4"])
            .contains("--max-cycles does not apply to --trainer ig"));
        assert!(e(&["--layers", "3", "--cycle-tolerance=-1"]).contains("finite and ≥ 0"));
        assert!(e(&["--layers", "3", "--max-cycles", "0"]).contains("--max-cycles"));
        assert!(e(&["--layers", "3", "--trainer", "dec"]).contains("--trainer dec does not apply to --model dfnn"));
        assert!(e(&["--layers", "3", "--lambda=-1"]).contains("--lambda -1: ρ must be finite"));
        assert!(e(&["--layers", "3", "--time-limit", "0"]).contains("--time-limit"));
        assert!(e(&["--layers", "3", "--time-limit", "1e300"]).contains("--time-limit"));
        for (flag, value) in [
            ("--hidden", "3"),
            ("--maxiter", "3"),
            ("--tau-w", "0.1"),
            ("--solver", "ridge"),
        ] {
            let msg = e(&["--layers", "3", flag, value]);
            assert!(msg.contains(&format!("{flag} does not apply to --model dfnn")), "{msg}");
        }
        let slfn = |extra: &[&str]| {
            resolve_fit(&[&BASE[..6], &["--model", "slfn", "--hidden", "3"], extra].concat())
                .err()
                .unwrap_or_default()
        };
        assert!(slfn(&["--trainer", "b2ld"]).contains("--trainer b2ld does not apply to --model slfn"));
        assert!(slfn(&["--layers", "3"]).contains("--layers does not apply to --model slfn"));
        assert!(slfn(&["--no-bias"]).contains("--no-bias does not apply to --model slfn"));
    }

    #[test]
    fn loaded_networks_are_checked_before_use() -> Result<(), Box<dyn std::error::Error>> {
        let net = Dfnn::random(3, &[4, 2], Bias::Every, 1, 1.0)?;
        assert_eq!(check_network(&net), Ok((3, 2)));
        let mut bad = net.clone();
        bad.weights_mut()[1][[0, 0]] = f64::NAN;
        assert!(check_network(&bad).err().unwrap_or_default().contains("layer 2"));
        // Shapes that do not chain, as a crafted file could hold them.
        #[derive(serde::Serialize)]
        struct Raw {
            weights: Vec<ndarray::Array2<f64>>,
            bias: Bias,
        }
        let mut weights = net.weights().to_vec();
        weights[1] = Dfnn::random(3, &[5, 2], Bias::Every, 1, 1.0)?.weights()[1].clone();
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(
            Raw {
                weights,
                bias: Bias::Every,
            },
            config,
        )?;
        let (mixed, _): (Dfnn, usize) = bincode::serde::decode_from_slice(&bytes, config)?;
        let e = check_network(&mixed).err().unwrap_or_default();
        assert!(
            e.contains("layer 2 of the deep network has 6 weight columns for 4 inputs"),
            "{e}"
        );
        Ok(())
    }
}
