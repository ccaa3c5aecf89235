//! The one place where the resolved flags become model hyper-parameters and
//! a fitted model: [`elm_config`], [`bls_config`] and [`train`].

use std::time::Duration;

use linalg_core::ridge::Strategy;
use models::{BlsConfig, Elm, ElmConfig, IncrementalElm, Solver};
use ndarray::Array2;

use super::args::{FitArgs, ModelKind};
use super::bls::{self, UpdateJson};
use super::pipeline::FittedModel;
use super::progress::Progress;
use super::CliError;

/// The ELM's hyper-parameters from the flags.
pub(crate) fn elm_config(args: &FitArgs) -> ElmConfig {
    ElmConfig::new(args.hidden, args.activation)
        .with_lambda(args.lambda)
        .with_solver(args.solver)
        .with_seed(args.seed)
}

/// The BLS's hyper-parameters (its initial network) from the flags.
pub(crate) fn bls_config(args: &FitArgs) -> BlsConfig {
    let b = &args.bls;
    BlsConfig::new(b.feature_groups, b.feature_nodes, b.enhancement)
        .with_lambda(args.lambda)
        .with_strategy(b.strategy)
        .with_seed(args.seed)
        .with_precision(b.precision)
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
            let config = elm_config(args);
            let elm = match config.solver {
                Solver::Incremental(strategy) => grow(args, &config, strategy, x, y)?,
                _ => Elm::fit(&config, x.view(), y.view())?,
            };
            Ok((FittedModel::Elm(elm), None))
        }
        ModelKind::Bls => {
            let (model, updates) = bls::fit(&bls_config(args), &args.bls.increments, x, y)?;
            Ok((FittedModel::Bls(model), Some(updates)))
        }
    }
}

/// Grow an ELM one node at a time with an incremental strategy, from
/// `--initial-nodes` to `config.nodes`.
fn grow(
    args: &FitArgs,
    config: &ElmConfig,
    strategy: Strategy,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<Elm, CliError> {
    let start = args.initial_nodes.min(config.nodes);
    let mut inc = IncrementalElm::start(
        x.view(),
        y.view(),
        config.activation,
        start,
        config.lambda,
        strategy,
        config.seed,
    )?;
    let total = config.nodes - start;
    inc.reserve(total);
    let mut progress = Progress::new(total, "nodes", Duration::from_secs(2));
    for done in 1..=total {
        inc.add_nodes(1)?;
        progress.step(done, || format!("{} of {} nodes", inc.nodes(), config.nodes));
    }
    Ok(inc.into_elm())
}
