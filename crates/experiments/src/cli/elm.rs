//! The ELM's part of `nn fit --model elm`: its flags (exactly the ones that
//! apply to it) and how they become the resolved [`FitArgs`].

use clap::Args;
use models::ReadoutSolver as Solver;

use super::args::{at_least_one, defaults, ridge_lambda, CommonFlags, FitArgs, ModelKind, SolverArg};
use super::scale_out::ScaleOutFlags;
use super::select::SelectFlags;
use super::shared_flags::{ActivationFlag, HiddenFlag};
use super::CliError;

const HEADING: &str = "ELM (--model elm)";

/// The flags of `nn fit --model elm` besides the common ones
/// ([`CommonFlags`]): exactly the flags that apply to the ELM, so that any
/// other is refused ([`super::args::FitFlags`]).
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
    /// `--updatable` (and the other flags for data beyond one fit).
    #[command(flatten)]
    pub scale_out: ScaleOutFlags,
    /// `--select-lambda`, `--grow-until-val` (choosing λ and the size).
    #[command(flatten)]
    pub select: SelectFlags,
}

/// Resolve the ELM's flags into `args` (already holding the common ones).
///
/// # Errors
/// [`CliError::Usage`] naming the flag: no `--hidden`, `--initial-nodes`
/// above it or with a batch solver, `--lambda` not finite and > 0 or with
/// `lstsq`, and the refusals of the scale-out and selection flags.
pub(crate) fn resolve(
    flags: &ElmFlags,
    common: &CommonFlags,
    typed: &dyn Fn(&str) -> bool,
    args: &mut FitArgs,
) -> Result<(), CliError> {
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
    args.hidden = hidden;
    args.activation = flags.activation.activation.0;
    args.solver = solver;
    args.initial_nodes = flags.initial_nodes;
    let ridge = solver.uses_lambda();
    args.scale_out = flags
        .scale_out
        .resolve(ModelKind::Elm, ridge, solver == Solver::Ridge)?;
    args.select = flags
        .select
        .clone()
        .resolve(ModelKind::Elm, ridge, &args.scale_out, typed)?;
    Ok(())
}
