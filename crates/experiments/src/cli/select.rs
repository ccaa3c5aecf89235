//! `nn fit`'s flags for choosing λ and the number of hidden nodes (issue 22):
//! `--select-lambda loo|kfold:K|val:FRAC` over `--lambda-grid LO:HI:N` (and
//! `--select-sizes` with k-fold or a validation fraction), or
//! `--grow-until-val` (`--step`, `--patience`, `--max-hidden`,
//! `--val-fraction`); `--plot FILE` draws the curve. The ELM and the BLS,
//! through [`models::select`].

use std::path::PathBuf;

use clap::Args;
use models::select::grow::{GrowOptions, Stop};
use models::select::lambda::{Method, SelectOptions};
use models::select::{Criterion, CurvePoint};
use models::{BlsValidParams, Dataset, ElmValidParams};
use ndarray::{Array2, Axis};
use serde::{Deserialize, Serialize};

use super::common::{at_least_one, ModelKind, TaskKind};
use super::error::CliError;
use super::scale_out::ScaleOut;
use crate::report::svg::{line_plot, Series};
use nn_data::pipeline::FittedModel;

const HEADING: &str = "Choosing λ and the size (--model elm, bls)";

/// `--lambda-grid`'s default: the library's [`SelectOptions::DEFAULT_GRID`]
/// (a test checks that they agree).
const DEFAULT_LAMBDA_GRID: &str = "1e-8:1e2:21";

/// `nn fit`'s flags for choosing λ and the size.
#[derive(Clone, Debug, Default, Args)]
pub struct SelectFlags {
    /// Choose λ on --lambda-grid by leave-one-out (`loo`: every λ from one
    /// eigendecomposition), k-fold cross-validation (`kfold:K`, folds
    /// stratified by class for classification) or a held-out fraction of
    /// the training set (`val:FRAC`); with kfold/val also the size among
    /// --select-sizes. Scores: mean squared error (regression, standardized
    /// targets) or classification error. The model is then fitted on all
    /// training samples at the choice.
    #[arg(long, value_name = "loo|kfold:K|val:FRAC", value_parser = method, help_heading = HEADING)]
    pub select_lambda: Option<Method>,
    /// The λ grid of --select-lambda: N values log-spaced from LO to HI.
    #[arg(long, value_name = "LO:HI:N", default_value = DEFAULT_LAMBDA_GRID, help_heading = HEADING)]
    pub lambda_grid: String,
    /// Sizes to try with --select-lambda kfold/val, comma-separated (ELM:
    /// hidden nodes ≤ --hidden; BLS: all nodes, the feature nodes then the
    /// first enhancement nodes). Default: the one size of the flags.
    #[arg(long, value_name = "N,N,…", value_delimiter = ',', help_heading = HEADING)]
    pub select_sizes: Vec<usize>,
    /// Grow the network from its size (ELM: --initial-nodes; BLS: its
    /// enhancement nodes) --step nodes at a time until the error on a
    /// held-out --val-fraction of the training set has not improved for
    /// --patience steps, or --max-hidden is reached; keep the best size.
    #[arg(long, conflicts_with = "select_lambda", help_heading = HEADING)]
    pub grow_until_val: bool,
    /// Nodes added per step of --grow-until-val.
    #[arg(long, value_name = "Q", default_value_t = GrowOptions::DEFAULT_STEP, value_parser = at_least_one, help_heading = HEADING)]
    pub step: usize,
    /// Steps without improvement before --grow-until-val stops.
    #[arg(long, value_name = "P", default_value_t = GrowOptions::DEFAULT_PATIENCE, value_parser = at_least_one, help_heading = HEADING)]
    pub patience: usize,
    /// Largest size --grow-until-val may reach [default: --hidden for the
    /// ELM; the BLS's size + 100 steps].
    #[arg(long, value_name = "N", value_parser = at_least_one, help_heading = HEADING)]
    pub max_hidden: Option<usize>,
    /// Fraction of the training samples held out by --grow-until-val (and
    /// by nothing else: --select-lambda val:FRAC names its own).
    #[arg(long, value_name = "F", default_value_t = GrowOptions::DEFAULT_VAL_FRACTION, help_heading = HEADING)]
    pub val_fraction: f64,
    /// Draw the validation curve of --select-lambda or --grow-until-val as
    /// an SVG file.
    #[arg(long, value_name = "FILE", help_heading = HEADING)]
    pub plot: Option<PathBuf>,
}

/// `loo`, `kfold:K`, `val:FRAC`.
fn method(text: &str) -> Result<Method, String> {
    text.parse().map_err(|e: models::ModelError| match e {
        models::ModelError::InvalidParameter { value, reason, .. } => format!("`{value}`: {reason}"),
        other => other.to_string(),
    })
}

/// What to do, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// `--select-lambda`.
    Lambda {
        /// The method.
        method: Method,
        /// The grid.
        lambdas: Vec<f64>,
        /// The sizes (empty: the flags' size).
        sizes: Vec<usize>,
    },
    /// `--grow-until-val`.
    Grow {
        /// Nodes per step.
        step: usize,
        /// Steps without improvement.
        patience: usize,
        /// Largest size (`None`: the model's default).
        max_hidden: Option<usize>,
        /// Held-out fraction.
        val_fraction: f64,
    },
}

/// The resolved selection and where to draw it.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectArgs {
    /// What to do.
    pub selection: Selection,
    /// `--plot`.
    pub plot: Option<PathBuf>,
}

/// The `selection` object of the JSON report.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SelectionReport {
    /// `loo`, `kfold:K`, `val:FRAC` or `grow-until-val`.
    pub method: String,
    /// `mse` or `classification error`.
    pub criterion: String,
    /// The λ chosen.
    pub lambda: f64,
    /// The size chosen.
    pub nodes: usize,
    /// Its score.
    pub score: f64,
    /// Why growth stopped (`patience`, `max-nodes`), for --grow-until-val.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stopped: Option<String>,
    /// Seconds of the selection (hidden layer and final weights included).
    pub seconds: f64,
    /// Every candidate.
    pub curve: Vec<CurvePoint>,
}

impl SelectFlags {
    /// The selection asked for, if any, checked against the model, whether
    /// its readout is a `ridge` one (λ > 0) and `scale_out` (the files must
    /// not be streamed: `--chunk-rows`, `--distributed`).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a model other than the ELM and the BLS,
    /// `--select-lambda` without a ridge readout, a streamed fit, a malformed grid, sizes with leave-one-out, `--plot` or
    /// `--select-sizes` without a selection; a flag of one selection typed
    /// (`typed(id)`: given on the command line) with the other or with none
    /// (`--lambda-grid` without `--select-lambda`; `--step`, `--patience`,
    /// `--max-hidden`, `--val-fraction` without `--grow-until-val`), which
    /// would otherwise be ignored without a word.
    pub fn resolve(
        self,
        model: ModelKind,
        ridge: bool,
        scale_out: &ScaleOut,
        typed: &dyn Fn(&str) -> bool,
    ) -> Result<Option<SelectArgs>, CliError> {
        let ignored = |ids: &[&str], needs: &str| match ids.iter().find(|id| typed(id)) {
            Some(id) => Err(CliError::Usage(format!(
                "--{} applies to {needs} only; add it or drop --{}",
                id.replace('_', "-"),
                id.replace('_', "-")
            ))),
            None => Ok(()),
        };
        if self.select_lambda.is_none() {
            ignored(&["lambda_grid"], "--select-lambda")?;
        }
        if !self.grow_until_val {
            ignored(&["step", "patience", "max_hidden", "val_fraction"], "--grow-until-val")?;
        }
        let selection = match (self.select_lambda, self.grow_until_val) {
            (Some(method), _) => {
                if !ridge {
                    return Err(CliError::Usage(
                        "--select-lambda chooses the ridge parameter: it needs a ridge --solver (not lstsq)".into(),
                    ));
                }
                let lambdas = grid(&self.lambda_grid)?;
                if method == Method::LeaveOneOut && !self.select_sizes.is_empty() {
                    return Err(CliError::Usage(
                        "--select-sizes needs --select-lambda kfold:K or val:FRAC (leave-one-out chooses λ only)"
                            .into(),
                    ));
                }
                Selection::Lambda {
                    method,
                    lambdas,
                    sizes: self.select_sizes,
                }
            }
            (None, true) => {
                if !(self.val_fraction > 0.0 && self.val_fraction < 1.0) {
                    return Err(CliError::Usage(format!(
                        "--val-fraction {} must be inside (0, 1)",
                        self.val_fraction
                    )));
                }
                Selection::Grow {
                    step: self.step,
                    patience: self.patience,
                    max_hidden: self.max_hidden,
                    val_fraction: self.val_fraction,
                }
            }
            (None, false) => {
                if self.plot.is_some() || !self.select_sizes.is_empty() {
                    return Err(CliError::Usage(
                        "--plot and --select-sizes need --select-lambda or --grow-until-val".into(),
                    ));
                }
                return Ok(None);
            }
        };
        if scale_out.chunk_rows.is_some() || scale_out.distributed {
            return Err(CliError::Usage(
                "--select-lambda and --grow-until-val fit from the training set in memory: drop --chunk-rows / \
                 --distributed"
                    .into(),
            ));
        }
        if !matches!(model, ModelKind::Elm | ModelKind::Bls) {
            return Err(CliError::Usage(format!(
                "--select-lambda and --grow-until-val apply to --model elm and --model bls, not {}",
                model.name()
            )));
        }
        Ok(Some(SelectArgs {
            selection,
            plot: self.plot,
        }))
    }
}

/// `LO:HI:N` as N log-spaced values.
fn grid(text: &str) -> Result<Vec<f64>, CliError> {
    let bad = || {
        CliError::Usage(format!(
            "--lambda-grid `{text}`: expected LO:HI:N with 0 < LO ≤ HI and 1 ≤ N ≤ {}",
            SelectOptions::MAX_LAMBDAS
        ))
    };
    let parts: Vec<&str> = text.split(':').collect();
    let [lo, hi, n] = parts[..] else {
        return Err(bad());
    };
    let (lo, hi, n) = (
        lo.parse::<f64>().map_err(|_| bad())?,
        hi.parse::<f64>().map_err(|_| bad())?,
        n.parse::<usize>().map_err(|_| bad())?,
    );
    SelectOptions::log_grid(lo, hi, n).map_err(|_| bad())
}

/// The most nodes a fit of `hidden` nodes can reach under `select`:
/// `hidden`, or more when `--grow-until-val` may grow past it
/// (`--max-hidden`, or else `default_max(step)`: the ELM's `--hidden`, the
/// BLS's size plus 100 steps). The memory estimate counts this size, so
/// that a growth to 10¹³ nodes is refused before it starts, not aborted by
/// the allocator (issue 36). Saturates at `usize::MAX` (then refused as
/// too large).
pub fn largest_nodes(select: Option<&SelectArgs>, hidden: usize, default_max: impl FnOnce(usize) -> usize) -> usize {
    let Some(SelectArgs {
        selection: Selection::Grow { step, max_hidden, .. },
        ..
    }) = select
    else {
        return hidden;
    };
    hidden.max(max_hidden.unwrap_or_else(|| default_max(*step)))
}

/// `--max-hidden`'s default for the BLS: its size + 100 steps (saturating).
pub fn bls_growth_default(initial: usize, step: usize) -> usize {
    initial.saturating_add(step.saturating_mul(100))
}

/// The model a selection fits: the ELM (its params for a given size, its
/// `--hidden` and `--initial-nodes`) or the BLS (its params).
pub enum Candidate<'a> {
    /// The ELM.
    Elm {
        /// Its validated params with `n` hidden nodes.
        params: &'a dyn Fn(usize) -> Result<ElmValidParams, CliError>,
        /// `--hidden`.
        hidden: usize,
        /// `--initial-nodes` (where `--grow-until-val` starts).
        initial_nodes: usize,
    },
    /// The BLS.
    Bls(BlsValidParams),
}

/// Fit the ELM or the BLS `candidate` on `x`, `y` by the selection `sel`
/// (`task` sets the criterion, `seed` the folds): the model and the report.
///
/// # Errors
/// The selection's errors (options, data, solver), writing the plot.
pub fn fit(
    task: TaskKind,
    seed: u64,
    sel: &SelectArgs,
    candidate: Candidate<'_>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(FittedModel, SelectionReport), CliError> {
    let criterion = match task {
        TaskKind::Classification => Criterion::ClassificationError,
        TaskKind::Regression => Criterion::MeanSquaredError,
    };
    let data = Dataset::new(x.view(), y.view());
    let report = match &sel.selection {
        Selection::Lambda { method, lambdas, sizes } => {
            let options = SelectOptions {
                method: *method,
                lambdas: lambdas.clone(),
                sizes: sizes.clone(),
                criterion,
                seed,
            };
            say!(
                "nn fit: choosing λ among {} values by {method}{}",
                lambdas.len(),
                if sizes.is_empty() {
                    String::new()
                } else {
                    format!(" and the size among {sizes:?}")
                }
            );
            let (model, chosen) = match &candidate {
                Candidate::Bls(params) => {
                    let s = params.select(&data, &options)?;
                    (
                        FittedModel::Bls(s.model),
                        (s.lambda, s.nodes, s.score, s.curve, s.seconds),
                    )
                }
                Candidate::Elm { params, hidden, .. } => {
                    let s = params(*hidden)?.select(&data, &options)?;
                    (
                        FittedModel::Elm(s.model),
                        (s.lambda, s.nodes, s.score, s.curve, s.seconds),
                    )
                }
            };
            let (lambda, nodes, score, curve, seconds) = chosen;
            (
                model,
                SelectionReport {
                    method: method.to_string(),
                    criterion: criterion.name().into(),
                    lambda,
                    nodes,
                    score,
                    stopped: None,
                    seconds,
                    curve,
                },
            )
        }
        Selection::Grow {
            step,
            patience,
            max_hidden,
            val_fraction,
        } => {
            let labels: Option<Vec<usize>> = (criterion == Criterion::ClassificationError).then(|| {
                y.rows()
                    .into_iter()
                    .map(|r| r.iter().enumerate().fold(0, |b, (c, &v)| if v > r[b] { c } else { b }))
                    .collect()
            });
            let split = models::select::folds::Folds::validation(x.nrows(), *val_fraction, seed, labels.as_deref())?;
            let (train_rows, val_rows) = (split.training(0), split.held_out(0).to_vec());
            let (xt, yt) = (x.select(Axis(0), &train_rows), y.select(Axis(0), &train_rows));
            let (xv, yv) = (x.select(Axis(0), &val_rows), y.select(Axis(0), &val_rows));
            let (train, val) = (Dataset::new(xt.view(), yt.view()), Dataset::new(xv.view(), yv.view()));
            say!(
                "nn fit: growing by {step} nodes until the error on {} held-out samples stops improving for {patience} steps",
                val_rows.len()
            );
            let (model, grown) = match &candidate {
                Candidate::Bls(params) => {
                    let max = max_hidden.unwrap_or(bls_growth_default(params.initial_nodes(), *step));
                    let g = params.grow_until_val(&train, &val, &GrowOptions::new(*step, *patience, max, criterion))?;
                    (
                        FittedModel::Bls(g.model),
                        (g.nodes, g.score, g.curve, g.stop, g.seconds, params.lambda()),
                    )
                }
                Candidate::Elm {
                    params,
                    hidden,
                    initial_nodes,
                } => {
                    let params = params(*initial_nodes)?;
                    let max = max_hidden.unwrap_or(*hidden);
                    let g = params.grow_until_val(&train, &val, &GrowOptions::new(*step, *patience, max, criterion))?;
                    (
                        FittedModel::Elm(g.model),
                        (g.nodes, g.score, g.curve, g.stop, g.seconds, params.lambda()),
                    )
                }
            };
            let (nodes, score, curve, stop, seconds, lambda) = grown;
            (
                model,
                SelectionReport {
                    method: "grow-until-val".into(),
                    criterion: criterion.name().into(),
                    lambda,
                    nodes,
                    score,
                    stopped: Some(
                        match stop {
                            Stop::Patience => "patience",
                            Stop::MaxNodes => "max-nodes",
                        }
                        .into(),
                    ),
                    seconds,
                    curve,
                },
            )
        }
    };
    say!(
        "nn fit: chose λ = {:e}, {} nodes ({} {:.6}) in {:.2} s",
        report.1.lambda,
        report.1.nodes,
        report.1.criterion,
        report.1.score,
        report.1.seconds
    );
    if let Some(path) = &sel.plot {
        std::fs::write(path, plot(&report.1)).map_err(|e| CliError::File {
            path: path.clone(),
            problem: e.to_string(),
        })?;
    }
    Ok(report)
}

/// The SVG of the curve: score against log₁₀ λ (one line per size), or
/// against the size (one line per λ).
fn plot(report: &SelectionReport) -> String {
    let mut sizes: Vec<usize> = report.curve.iter().map(|p| p.nodes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut lambdas: Vec<f64> = report.curve.iter().map(|p| p.lambda).collect();
    lambdas.sort_by(f64::total_cmp);
    lambdas.dedup();
    let finite = |p: &&CurvePoint| p.score.is_finite();
    let title = format!(
        "{} ({}): λ = {:e}, {} nodes",
        report.method, report.criterion, report.lambda, report.nodes
    );
    if lambdas.len() > 1 {
        let series: Vec<Series> = sizes
            .iter()
            .map(|&n| {
                let points = report
                    .curve
                    .iter()
                    .filter(|p| p.nodes == n)
                    .filter(finite)
                    .map(|p| (p.lambda.log10(), p.score))
                    .collect();
                Series::line(format!("{n} nodes"), points)
            })
            .collect();
        line_plot(&title, "log10 λ", &report.criterion, &series, false)
    } else {
        let points = report
            .curve
            .iter()
            .filter(finite)
            .map(|p| (p.nodes as f64, p.score))
            .collect();
        line_plot(
            &title,
            "hidden nodes",
            &report.criterion,
            &[Series::line(format!("λ = {:e}", report.lambda), points)],
            false,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_lambda_grid_is_the_librarys() {
        let (lo, hi, n) = SelectOptions::DEFAULT_GRID;
        assert_eq!(
            grid(DEFAULT_LAMBDA_GRID).expect("the default parses"),
            SelectOptions::log_grid(lo, hi, n).expect("the library's grid")
        );
    }
}
