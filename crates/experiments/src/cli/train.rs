//! The one place where the resolved flags become model hyper-parameters and
//! a fitted model: [`elm_config`], [`bls_config`] and [`train`].

use std::time::Duration;

use models::{
    BlsParams, BlsValidParams, Elm, ElmParams, ElmValidParams, Fit, IncrementalElm, ParamGuard, ReadoutSolver,
};
use ndarray::Array2;

use super::args::{FitArgs, ModelKind};
use super::bls::{self, UpdateJson};
use super::pipeline::FittedModel;
use super::progress::Progress;
use super::CliError;

/// The ELM's hyper-parameters from the flags with `nodes` hidden nodes, checked.
pub(crate) fn elm_params(args: &FitArgs, nodes: usize) -> Result<ElmValidParams, CliError> {
    Ok(ElmParams::new(nodes, args.activation)
        .with_lambda(args.lambda)
        .with_solver(args.solver)
        .with_seed(args.seed)
        .check()?)
}

/// The BLS's hyper-parameters (its initial network) from the flags, checked.
pub(crate) fn bls_params(args: &FitArgs) -> Result<BlsValidParams, CliError> {
    let b = &args.bls;
    Ok(BlsParams::new(b.feature_groups, b.feature_nodes, b.enhancement)
        .with_lambda(args.lambda)
        .with_strategy(b.strategy)
        .with_seed(args.seed)
        .with_precision(b.precision)
        .check()?)
}

/// Fit the model `args` ask for on scaled features `x` and targets `y`;
/// the BLS also returns its update records.
pub(crate) fn train(
    args: &FitArgs,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(FittedModel, Option<Vec<UpdateJson>>), CliError> {
    match args.model {
        ModelKind::Elm => {
            let elm = match args.solver {
                ReadoutSolver::Strategy(_) => grow(args, x, y)?,
                _ => elm_params(args, args.hidden)?.fit(&models::Dataset::new(x.view(), y.view()))?,
            };
            Ok((FittedModel::Elm(elm), None))
        }
        ModelKind::Bls => {
            let (model, updates) = bls::fit(&bls_params(args)?, &args.bls.increments, x, y)?;
            Ok((FittedModel::Bls(model), Some(updates)))
        }
    }
}

/// Grow an ELM one node at a time with an incremental strategy, from
/// `--initial-nodes` to `--hidden`.
fn grow(args: &FitArgs, x: &Array2<f64>, y: &Array2<f64>) -> Result<Elm, CliError> {
    let nodes = args.hidden;
    let start = args.initial_nodes.min(nodes);
    let first = elm_params(args, start)?;
    let mut inc = IncrementalElm::start(&first, &models::Dataset::new(x.view(), y.view()))?;
    let total = nodes - start;
    inc.reserve(total);
    let mut progress = Progress::new(total, "nodes", Duration::from_secs(2));
    for done in 1..=total {
        inc.add_nodes(1)?;
        progress.step(done, || format!("{} of {} nodes", inc.nodes(), nodes));
    }
    Ok(inc.into_elm())
}
