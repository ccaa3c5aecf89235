//! The one place where the resolved flags become model hyper-parameters and
//! a fitted model: [`elm_config`], [`bls_config`] and [`train`].

use std::time::Duration;

use linalg_core::ridge::Strategy;
use models::slfn::SlfnReport;
use models::verify::{normal_equations, normal_equations_of, NormalEquations};
use models::{
    BlsParams, BlsValidParams, Elm, ElmParams, ElmValidParams, Fit, IncrementalElm, ParamGuard, ReadoutSolver,
    SlfnParams, SlfnValidParams,
};
use ndarray::Array2;

use super::args::{FitArgs, ModelKind};
use super::bls::{self, UpdateJson};
use super::bpls::{self, BplsInfo};
use super::dfnn::{self, DfnnFit};
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

/// The SLFN's hyper-parameters from the flags (`--lambda` is `τ_λ`), with
/// `--time-limit` and the command line's tolerance on progress
/// ([`super::trainer::slfn_relative_decrease`]), checked (a refusal names
/// the flag).
pub(crate) fn slfn_params(args: &FitArgs) -> Result<SlfnValidParams, CliError> {
    let mut p = SlfnParams::new(args.hidden)
        .with_trainer(args.trainer)
        .with_tau_lambda(args.lambda)
        .with_seed(args.seed);
    if let Some(t) = args.tau_w {
        p = p.with_tau_w(t);
    }
    if let Some(t) = args.slfn_time_limit {
        p = p.with_time_limit(t);
    }
    if let Some(tol) = super::trainer::slfn_relative_decrease(args.trainer) {
        p = p.with_relative_decrease(tol);
    }
    p.check().map_err(super::trainer::slfn_error)
}

/// What a fit reports besides the model: the BLS's update records, the
/// SLFN's training report, the DFNN's report and `ρ`, the BPLS model's
/// epochs.
#[derive(Debug, Default)]
pub(crate) struct TrainInfo {
    pub(crate) updates: Option<Vec<UpdateJson>>,
    pub(crate) slfn: Option<SlfnReport>,
    pub(crate) dfnn: Option<(models::dfnn::TrainReport, f64)>,
    pub(crate) bpls: Option<BplsInfo>,
    pub(crate) selection: Option<super::select::SelectionReport>,
}

/// Fit the model `args` ask for on scaled features `x` and targets `y`; an
/// incremental fit's output weights are checked against their normal
/// equations ([`check_weights`]); the BLS also returns its update records.
pub(crate) fn train(args: &FitArgs, x: &Array2<f64>, y: &Array2<f64>) -> Result<(FittedModel, TrainInfo), CliError> {
    let strategy = match args.model {
        ModelKind::Elm => args
            .solver
            .strategy()
            .filter(|_| matches!(args.solver, ReadoutSolver::Strategy(_))),
        ModelKind::Bls => Some(args.bls.strategy),
        ModelKind::Slfn | ModelKind::Dfnn | ModelKind::Bpls => None,
    };
    if let Some(s) = strategy.filter(|s| !s.is_ridge()) {
        say!(
            "nn fit: warning: {s} updates the output weights toward the generalized-inverse (λ → 0) solution after a \
             ridge start with λ = {:e}: its weights are not the ridge solution for that λ and differ from chol2, \
             r-inv and d-rdg by design (the BLS paper's comparison); they are checked below",
            args.lambda
        );
    }
    if let Some(sel) = &args.select {
        let (model, report) = super::select::fit(args, sel, |n| elm_params(args, n), || bls_params(args), x, y)?;
        return Ok((
            model,
            TrainInfo {
                selection: Some(report),
                ..TrainInfo::default()
            },
        ));
    }
    fit_model(args, x, y)
}

/// The largest relative normal-equations residual accepted: `√u ≈ 1.5e-8`,
/// half the working digits. A backward-stable solve leaves `≈ (K + n)u`
/// (about 1e-11 at K = 60000); the incremental strategies whose rounding
/// grows with `κ(AᵀA + λI)` (Alg. 2 with `κ²`) stay far below `√u` on
/// problems they solve; an update applied outside its assumptions (Orig.
/// and Exg-E after a ridge start with λ not ≈ 0) leaves 1e-4 and more
/// (docs/numerics.md, measured on airfoil, pima and MNIST).
pub(crate) const RESIDUAL_TOLERANCE: f64 = 1.4901161193847656e-8;

/// The normal-equations residuals of an incremental solver's weights on
/// its own `A` (no recomputation when `A` is stored in f64; recomputed in
/// blocks of rows by `hidden` when it is stored in f32, so that the check
/// does not widen the whole matrix).
pub(crate) fn solver_residuals(
    solver: &dyn linalg_core::IncrementalRidge,
    hidden: impl Fn(ndarray::ArrayView2<'_, f64>) -> Result<Array2<f64>, models::ModelError>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<NormalEquations, CliError> {
    let started = std::time::Instant::now();
    let (w, lambda) = (solver.weights(), solver.lambda());
    let ne = match solver.precision() {
        linalg_core::Precision::F64 => normal_equations_of(solver.hidden().view(), y.view(), w, lambda)?,
        // The solver saw A rounded to f32: check against the same rounding.
        linalg_core::Precision::F32 => {
            let rounded = |rows: ndarray::ArrayView2<'_, f64>| hidden(rows).map(|a| a.mapv(|v| v as f32 as f64));
            normal_equations(rounded, x.view(), y.view(), w, lambda)?
        }
    };
    say!(
        "nn fit: checked the output weights against their normal equations in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    Ok(ne)
}

/// Refuse output weights that do not solve their problem: the ridge normal
/// equations for a ridge strategy, either system for the
/// generalized-inverse strategies Orig. and Exg-E (exact for λ → 0). The
/// batch solvers (Cholesky, LAPACK's least squares) are backward stable by
/// construction and not checked here.
pub(crate) fn check_weights(strategy: Strategy, ne: &NormalEquations) -> Result<(), CliError> {
    let (ridge, ls) = (ne.relative_ridge(), ne.relative_least_squares());
    say!(
        "nn fit: normal-equations residual of the output weights: ridge {ridge:.1e}, least squares {ls:.1e} (relative)"
    );
    let achieved = if strategy.is_ridge() { ridge } else { ridge.min(ls) };
    if achieved <= RESIDUAL_TOLERANCE {
        return Ok(());
    }
    let remedy = if strategy.is_ridge() {
        format!("{strategy} lost accuracy on this problem: use chol2, r-inv or d-rdg, or a larger --lambda")
    } else {
        format!(
            "{strategy}'s generalized-inverse updates assume λ → 0, and λ = {:e} is not: use a ridge strategy \
             (chol2, r-inv, d-rdg) or a smaller --lambda",
            ne.lambda
        )
    };
    Err(CliError::Input(format!(
        "the fitted output weights do not solve their normal equations (relative residual {achieved:.1e}, \
         accepted up to {RESIDUAL_TOLERANCE:.1e}): {remedy}"
    )))
}

/// Fit the model `args` ask for on scaled features `x` and targets `y`.
fn fit_model(args: &FitArgs, x: &Array2<f64>, y: &Array2<f64>) -> Result<(FittedModel, TrainInfo), CliError> {
    match args.model {
        ModelKind::Elm => {
            let elm = match args.solver {
                ReadoutSolver::Strategy(_) => grow(args, x, y)?,
                _ => elm_params(args, args.hidden)?.fit(&models::Dataset::new(x.view(), y.view()))?,
            };
            Ok((FittedModel::Elm(elm), TrainInfo::default()))
        }
        ModelKind::Bls => {
            let (model, updates) = bls::fit(&bls_params(args)?, &args.bls.increments, x, y)?;
            Ok((
                FittedModel::Bls(model),
                TrainInfo {
                    updates: Some(updates),
                    ..TrainInfo::default()
                },
            ))
        }
        ModelKind::Slfn => {
            let params = slfn_params(args)?;
            let trainer = params.trainer();
            // DEC prints its first 20 major iterations, then (as L-BFGS
            // throughout) one line every 2 s at most.
            let mut last = std::time::Instant::now();
            let (net, report) = params.fit_with_report(&models::Dataset::new(x.view(), y.view()), |p| {
                let major = matches!(trainer, models::SlfnTrainer::Dec { .. }) && p.iteration <= 20;
                if major || last.elapsed() >= Duration::from_secs(2) {
                    last = std::time::Instant::now();
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
            slfn_finite(args, &report, &net)?;
            Ok((
                FittedModel::Slfn(net),
                TrainInfo {
                    slfn: Some(report),
                    ..TrainInfo::default()
                },
            ))
        }
        ModelKind::Dfnn => {
            let settings = args
                .dfnn
                .as_ref()
                .ok_or_else(|| CliError::Usage("--layers is required with --model dfnn".into()))?;
            let DfnnFit { net, report, rho } = dfnn::fit(settings, args.seed, x, y)?;
            Ok((
                FittedModel::Dfnn(net),
                TrainInfo {
                    dfnn: Some((report, rho)),
                    ..TrainInfo::default()
                },
            ))
        }
        ModelKind::Bpls => {
            let settings = args
                .bpls
                .as_ref()
                .ok_or_else(|| CliError::Usage("--layers is required with --model bpls".into()))?;
            let (net, info) = bpls::fit(settings, args.seed, args.task, x, y)?;
            Ok((
                FittedModel::Mlp(net),
                TrainInfo {
                    bpls: Some(info),
                    ..TrainInfo::default()
                },
            ))
        }
    }
}

/// A fit whose `E` or weights are not finite failed. The features are
/// finite by then, so the cause is a ridge parameter too large for the
/// trainer (`--lambda`, `--tau-w`: named when set) or, with neither set,
/// inputs too large (`--scale none`).
///
/// # Errors
/// [`CliError::Usage`] saying what is not finite and what to change.
fn slfn_finite(args: &FitArgs, report: &SlfnReport, net: &models::Slfn) -> Result<(), CliError> {
    let weights_finite = net.weights().iter().chain(net.output_weights()).all(|v| v.is_finite());
    if report.objective.is_finite() && weights_finite {
        return Ok(());
    }
    let bad = if report.objective.is_finite() {
        "a weight".to_string()
    } else {
        format!("E = {}", report.objective)
    };
    let trainer = args.trainer;
    let default_tau_w = 1e-2 / (net.n_inputs().max(1) as f64 * args.hidden.max(1) as f64);
    let mut flags = Vec::new();
    if args.lambda != super::args::defaults::SLFN_LAMBDA {
        flags.push(format!(
            "--lambda {:e} (τ_λ, the output weights' ridge parameter)",
            args.lambda
        ));
    }
    if let Some(t) = args.tau_w {
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
            super::args::defaults::SLFN_LAMBDA
        )
    }))
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
    let ne = solver_residuals(inc.solver(), |rows| inc.hidden().outputs(rows), x, y)?;
    check_weights(inc.solver().strategy(), &ne)?;
    Ok(inc.into_elm())
}
