//! `nn fit --model elm`: the ELM's flags (exactly the ones that apply to
//! it), their resolution into [`ElmArgs`], and its [`ModelCommand`] — the
//! batch fit, the fit grown node by node by an incremental strategy, or a
//! selection of λ and the size.

use std::time::Duration;

use clap::Args;
use linalg_core::ridge::Strategy;
use models::{
    Activation, Dataset, Elm, ElmParams, ElmValidParams, Fit, IncrementalElm, InputScale, ParamGuard,
    ReadoutSolver as Solver,
};
use ndarray::Array2;
use serde_json::Map;

use super::budget::{readout_bytes, FitSize};
use super::common::{at_least_one, defaults, ridge_lambda, CommonFlags, ModelKind, SolverArg};
use super::error::CliError;
use super::model_command::{FitContext, ModelCommand, ModelFlags, Resolved, Trained};
use super::progress::Progress;
use super::scale_out::{ScaleOut, ScaleOutFlags};
use super::select::{self, SelectArgs, SelectFlags};
use super::shared_flags::{ActivationFlag, HiddenFlag, WeightColumnFlag, WeightScaleFlag};
use super::weights_check::{check_weights, solver_residuals, warn_if_not_ridge};
use nn_data::pipeline::FittedModel;

const HEADING: &str = "ELM (--model elm)";

/// The flags of `nn fit --model elm` besides the common ones
/// ([`CommonFlags`]): exactly the flags that apply to the ELM, so that any
/// other is refused ([`FitFlags`](crate::cli::FitFlags)).
#[derive(Clone, Debug, Args)]
pub struct ElmFlags {
    /// `--hidden` (required; shared with `--model slfn`).
    #[command(flatten)]
    pub hidden: HiddenFlag,
    /// `--activation` (shared with `--model bpls`).
    #[command(flatten)]
    pub activation: ActivationFlag,
    /// Output-weight solver: batch ridge, minimum-norm least squares, or a
    /// ridge strategy, which grows the network one node at a time from
    /// --initial-nodes.
    #[arg(long, value_enum, value_name = "SOLVER", ignore_case = true, default_value_t = SolverArg(Solver::Ridge), help_heading = HEADING)]
    pub solver: SolverArg,
    /// First size of a network grown by an incremental --solver.
    #[arg(long, value_name = "N0", value_parser = at_least_one, default_value_t = defaults::INITIAL_NODES, help_heading = HEADING)]
    pub initial_nodes: usize,
    /// `--weight-column`.
    #[command(flatten)]
    pub weights: WeightColumnFlag,
    /// `--weight-scale`.
    #[command(flatten)]
    pub scale: WeightScaleFlag,
    /// `--updatable` (and the other flags for data beyond one fit).
    #[command(flatten)]
    pub scale_out: ScaleOutFlags,
    /// `--select-lambda`, `--grow-until-val` (choosing λ and the size).
    #[command(flatten)]
    pub select: SelectFlags,
}

/// The resolved ELM settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ElmArgs {
    /// Hidden nodes (`--hidden`).
    pub hidden: usize,
    /// The hidden nodes' activation (`--activation`, default sigmoid).
    pub activation: Activation,
    /// The output-weight solver (`--solver`, default ridge).
    pub solver: Solver,
    /// First size of a grown network (`--initial-nodes`, default 2).
    pub initial_nodes: usize,
    /// λ (`--lambda`, default [`defaults::ELM_LAMBDA`]).
    pub lambda: f64,
    /// `--seed`.
    pub seed: u64,
    /// `--weight-column`: the training file's column of sample weights.
    pub weight_column: Option<String>,
    /// `--weight-scale`: the scale of the input weights (default
    /// [`ElmParams::DEFAULT_INPUT_SCALE`]).
    pub input_scale: InputScale,
}

/// Resolve the ELM's flags: its settings, and the scale-out and selection
/// flags it takes.
///
/// # Errors
/// [`CliError::Usage`] naming the flag: no `--hidden`, `--initial-nodes`
/// above it or with a batch solver, `--lambda` not finite and > 0 or with
/// `lstsq`, and the refusals of the scale-out and selection flags.
pub(crate) fn resolve(
    flags: &ElmFlags,
    common: &CommonFlags,
    typed: &dyn Fn(&str) -> bool,
) -> Result<(ElmArgs, ScaleOut, Option<SelectArgs>), CliError> {
    let hidden = flags
        .hidden
        .hidden
        .ok_or_else(|| CliError::Usage("--hidden is required with --model elm".into()))?;
    if flags.initial_nodes > hidden {
        return Err(CliError::Usage(format!("--initial-nodes must be in 1..={hidden}")));
    }
    ridge_lambda(common)?;
    let solver = flags.solver.0;
    if typed("lambda") && !solver.uses_lambda() {
        return Err(CliError::Usage(format!(
            "--lambda does not apply to --solver {solver}: minimum-norm least squares has no ridge parameter"
        )));
    }
    if typed("initial_nodes") && !matches!(solver, Solver::Strategy(_)) && !flags.select.grow_until_val {
        return Err(CliError::Usage(format!(
            "--initial-nodes applies to an incremental --solver (a strategy such as alg3 or chol2) or --grow-until-val, \
             not to the batch solver {solver}"
        )));
    }
    let ridge = solver.uses_lambda();
    let scale_out = flags
        .scale_out
        .resolve(ModelKind::Elm, ridge, solver == Solver::Ridge)?;
    let select = flags.select.clone().resolve(ModelKind::Elm, ridge, &scale_out, typed)?;
    let weight_column = flags.weights.resolve(if matches!(solver, Solver::Strategy(_)) {
        Some(format!("an incremental --solver ({solver})"))
    } else if select.is_some() {
        Some("--select-lambda or --grow-until-val".to_string())
    } else if scale_out.updatable || scale_out.chunk_rows.is_some() {
        Some("--updatable or --chunk-rows".to_string())
    } else {
        None
    })?;
    let elm = ElmArgs {
        hidden,
        activation: flags.activation.activation.0,
        solver,
        initial_nodes: flags.initial_nodes,
        lambda: common.lambda.unwrap_or(defaults::ELM_LAMBDA),
        seed: common.seed,
        weight_column,
        input_scale: flags.scale.input_scale()?,
    };
    Ok((elm, scale_out, select))
}

impl ModelFlags for ElmFlags {
    type Settings = ElmArgs;
    const KIND: ModelKind = ModelKind::Elm;

    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<ElmArgs>, CliError> {
        let (model, scale_out, select) = resolve(self, common, typed)?;
        Ok(Resolved {
            model,
            scale_out,
            select,
        })
    }
}

impl ElmArgs {
    /// The ELM's hyper-parameters with `nodes` hidden nodes, checked.
    ///
    /// # Errors
    /// [`CliError::Model`] for values the params refuse.
    pub(crate) fn params(&self, nodes: usize) -> Result<ElmValidParams, CliError> {
        Ok(ElmParams::new(nodes, self.activation)
            .with_lambda(self.lambda)
            .with_solver(self.solver)
            .with_seed(self.seed)
            .with_input_scale(self.input_scale)
            .check()?)
    }

    /// Grow an ELM one node at a time with an incremental strategy, from
    /// `--initial-nodes` to `--hidden`; its output weights are checked
    /// against their normal equations.
    fn grow(&self, x: &Array2<f64>, y: &Array2<f64>) -> Result<Elm, CliError> {
        let nodes = self.hidden;
        let start = self.initial_nodes.min(nodes);
        let first = self.params(start)?;
        let mut inc = IncrementalElm::start(&first, &Dataset::new(x.view(), y.view()))?;
        let total = nodes - start;
        inc.reserve(total);
        let mut progress = Progress::new(total, "nodes", Duration::from_secs(2));
        for done in 1..=total {
            inc.add_nodes(1)?;
            progress.step(done, || format!("{} of {} nodes", inc.nodes(), nodes));
        }
        let ne = solver_residuals(inc.solver(), |rows| inc.hidden().outputs(rows), x, y)?;
        check_weights(inc.solver().strategy(), &ne)?;
        Ok(inc.into_elm())
    }

    /// The incremental strategy of `--solver`, if it is one.
    fn strategy(&self) -> Option<Strategy> {
        match self.solver {
            Solver::Strategy(s) => Some(s),
            _ => None,
        }
    }
}

impl ModelCommand for ElmArgs {
    fn weight_column(&self) -> Option<&str> {
        self.weight_column.as_deref()
    }

    fn kind(&self) -> ModelKind {
        ModelKind::Elm
    }

    fn hidden_units(&self) -> usize {
        self.hidden
    }

    fn largest_nodes(&self, select: Option<&SelectArgs>) -> usize {
        select::largest_nodes(select, self.hidden, |_| self.hidden)
    }

    fn activation_name(&self) -> String {
        self.activation.to_string()
    }

    fn solver_name(&self) -> String {
        self.solver.to_string()
    }

    fn describe(&self, _outputs: usize) -> String {
        format!(
            "{} hidden {} nodes, solver {}",
            self.hidden, self.activation, self.solver
        )
    }

    fn fit_bytes(&self, size: FitSize) -> Option<u128> {
        let copies = match (self.solver, self.strategy()) {
            (Solver::Lstsq, _) => 1,
            (_, Some(Strategy::Orig | Strategy::RInv | Strategy::LiEtAl | Strategy::Alg1)) => 1,
            _ => 0,
        };
        let squares = match (self.solver, self.strategy()) {
            (Solver::Lstsq, _) => 0,
            (Solver::Ridge, _) | (_, Some(Strategy::RInv)) => 2,
            _ => 1,
        };
        readout_bytes(size, 8, copies, squares, self.strategy().is_some())
    }

    fn smaller_fit_flags(&self) -> String {
        "fewer hidden nodes (--hidden)".into()
    }

    fn train(&self, ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError> {
        if let Some(s) = self.strategy() {
            warn_if_not_ridge(s, self.lambda);
        }
        let (model, selection) = match ctx.select {
            Some(sel) => {
                let params = |n| self.params(n);
                let candidate = select::Candidate::Elm {
                    params: &params,
                    hidden: self.hidden,
                    initial_nodes: self.initial_nodes,
                };
                let (model, report) = select::fit(ctx.task, ctx.seed, sel, candidate, x, y)?;
                (model, Some(report))
            }
            None => {
                let data = Dataset::new(x.view(), y.view());
                let elm = match (self.solver, ctx.weights) {
                    (Solver::Strategy(_), _) => self.grow(x, y)?,
                    (_, Some(w)) => self.params(self.hidden)?.fit_weighted(&data, w)?,
                    (_, None) => self.params(self.hidden)?.fit(&data)?,
                };
                (FittedModel::Elm(elm), None)
            }
        };
        // The scale --select-scales chose, else the flags'.
        let chosen_scale = selection.as_ref().and_then(|s| s.scale.clone());
        Ok(Trained {
            model,
            hidden: selection.as_ref().map_or(self.hidden, |s| s.nodes),
            lambda: self
                .solver
                .uses_lambda()
                .then(|| selection.as_ref().map_or(self.lambda, |s| s.lambda)),
            selection,
            details: {
                let mut d = Map::from_iter([(
                    "weight_scale".to_string(),
                    serde_json::Value::from(chosen_scale.unwrap_or_else(|| self.input_scale.to_string())),
                )]);
                if let Some(name) = &self.weight_column {
                    d.insert("weight_column".to_string(), serde_json::Value::from(name.clone()));
                }
                d
            },
        })
    }
}
