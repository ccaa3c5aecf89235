//! `nn fit`'s flags for choosing λ, the hidden layer's scale and the number
//! of hidden nodes (issues 22 and 42): `--select-lambda loo|kfold:K|val:FRAC`
//! over `--lambda-grid LO:HI:N` (and `--select-scales` over scales,
//! `--select-sizes` with k-fold or a validation fraction), and/or
//! `--grow-until-val` (`--step`, `--patience`, `--max-hidden`,
//! `--val-fraction`); `--plot FILE` draws the curve. The ELM and the BLS,
//! through [`models::select`].
//!
//! **Both together** (`--select-lambda M --grow-until-val`): λ (and the
//! scale, with `--select-scales`) are chosen by `M` on the network of the
//! flags' size (the ELM's `--hidden` nodes, the BLS's initial network),
//! then the network grows from its start (the ELM's `--initial-nodes`, the
//! BLS's initial network) at that λ and scale until the held-out error
//! stops improving. Cost: the selection's (about one fit of that network
//! per scale, plus its folds' solves) plus the growth's (about one fit of
//! the size reached).

use std::path::PathBuf;

use clap::Args;
use models::prelude::ParamGuard;
use models::select::grow::{GrowOptions, Stop};
use models::select::lambda::{Method, SelectOptions};
use models::select::scales::{elm_scale_grid, select_over_scales};
use models::select::{Criterion, CurvePoint};
use models::{Bls, BlsValidParams, Dataset, Elm, ElmValidParams};
use ndarray::{Array2, Axis};
use serde::{Deserialize, Serialize};

use super::common::{at_least_one, ModelKind, TaskKind};
use super::error::CliError;
use super::scale_out::ScaleOut;
use super::select_plot::plot;
use super::shared_flags::parse_shrink;
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
    /// Scales of the hidden layer to try with --select-lambda, comma-separated
    /// (each a new hidden layer): ELM: unit-variance, inverse-sqrt, a number
    /// (the input weights' U[−s, s)) or auto (u/4, u/2, u, 2u, 4u, 1 and
    /// 1/√N, u the unit-variance scale: the grid docs/defaults.md measured);
    /// BLS: the enhancement shrink, a number. The best (scale, λ, size) is
    /// kept. Default: the one scale of --weight-scale.
    #[arg(long, value_name = "S,S,…", value_delimiter = ',', help_heading = HEADING)]
    pub select_scales: Vec<String>,
    /// Grow the network from its size (ELM: --initial-nodes; BLS: its
    /// enhancement nodes) --step nodes at a time until the error on a
    /// held-out --val-fraction of the training set has not improved for
    /// --patience steps, or --max-hidden is reached; keep the best size.
    /// With --select-lambda: at the λ (and scale) it chose first.
    #[arg(long, help_heading = HEADING)]
    pub grow_until_val: bool,
    /// The fewest nodes a step of --grow-until-val adds.
    #[arg(long, value_name = "Q", default_value_t = GrowOptions::DEFAULT_STEP, value_parser = at_least_one, help_heading = HEADING)]
    pub step: usize,
    /// A step of --grow-until-val adds at least this fraction of the
    /// network's size (0.1: 10%, so that the sizes become geometric past
    /// --step / 0.1 nodes and --patience steps look further on larger
    /// networks; 0: always --step nodes).
    #[arg(long, value_name = "RATE", default_value_t = GrowOptions::DEFAULT_GROWTH, help_heading = HEADING)]
    pub growth: f64,
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

/// What to do, resolved: λ (and scale, sizes) by a selection, growth, or
/// both (the selection first).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// `--select-lambda`.
    pub lambda: Option<LambdaChoice>,
    /// `--grow-until-val`.
    pub grow: Option<GrowChoice>,
}

/// `--select-lambda` and its grids.
#[derive(Clone, Debug, PartialEq)]
pub struct LambdaChoice {
    /// The method.
    pub method: Method,
    /// The grid.
    pub lambdas: Vec<f64>,
    /// The sizes (empty: the flags' size).
    pub sizes: Vec<usize>,
    /// `--select-scales`, checked for the model and written as the JSON
    /// reports them (empty: the flags' scale).
    pub scales: Vec<String>,
}

/// `--grow-until-val` and its settings.
#[derive(Clone, Debug, PartialEq)]
pub struct GrowChoice {
    /// The fewest nodes per step.
    pub step: usize,
    /// The fraction of the size a step adds at least.
    pub growth: f64,
    /// Steps without improvement.
    pub patience: usize,
    /// Largest size (`None`: the model's default).
    pub max_hidden: Option<usize>,
    /// Held-out fraction.
    pub val_fraction: f64,
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
    /// `loo`, `kfold:K`, `val:FRAC`, `grow-until-val`, or the first then
    /// `+ grow-until-val`.
    pub method: String,
    /// `mse` or `classification error`.
    pub criterion: String,
    /// The λ chosen.
    pub lambda: f64,
    /// The size chosen.
    pub nodes: usize,
    /// The scale chosen by `--select-scales`, as given (`unit-variance`,
    /// `0.5`, …).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scale: Option<String>,
    /// The hidden layer's scale as a number (the ELM's `s`, the BLS's
    /// shrink) when a selection recorded it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scale_factor: Option<f64>,
    /// Its score.
    pub score: f64,
    /// Why growth stopped (`patience`, `max-nodes`), for --grow-until-val.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stopped: Option<String>,
    /// Seconds of the selection (hidden layer and final weights included).
    pub seconds: f64,
    /// Every candidate (of the growth, when both ran).
    pub curve: Vec<CurvePoint>,
    /// The selection's candidates when growth followed it (scale, λ, size).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub lambda_curve: Vec<CurvePoint>,
}

impl SelectFlags {
    /// The selection asked for, if any, checked against the model, whether
    /// its readout is a `ridge` one (λ > 0) and `scale_out` (the files must
    /// not be streamed: `--chunk-rows`, `--distributed`).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a model other than the ELM and the BLS,
    /// `--select-lambda` without a ridge readout, a streamed fit, a malformed grid, sizes with leave-one-out
    /// or with growth (which chooses the size), a scale the model does not
    /// take, `--select-scales` with `--weight-scale`, `--plot` or
    /// `--select-sizes` without a selection; a flag of one selection typed
    /// (`typed(id)`: given on the command line) without it
    /// (`--lambda-grid`, `--select-scales` without `--select-lambda`; `--step`, `--patience`,
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
            ignored(&["lambda_grid", "select_scales"], "--select-lambda")?;
        }
        if !self.grow_until_val {
            ignored(
                &["step", "growth", "patience", "max_hidden", "val_fraction"],
                "--grow-until-val",
            )?;
        }
        let lambda = match self.select_lambda {
            None => None,
            Some(method) => {
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
                if self.grow_until_val && !self.select_sizes.is_empty() {
                    return Err(CliError::Usage(
                        "--select-sizes and --grow-until-val both choose the size: drop one (with both, \
                         --select-lambda chooses λ and the scale, then growth the size)"
                            .into(),
                    ));
                }
                if !self.select_scales.is_empty() && typed("weight_scale") {
                    return Err(CliError::Usage(
                        "--select-scales chooses the scale among its values: drop --weight-scale (or put its value \
                         among them)"
                            .into(),
                    ));
                }
                let scales = self
                    .select_scales
                    .iter()
                    .map(|s| check_scale(model, s))
                    .collect::<Result<Vec<_>, _>>()?;
                Some(LambdaChoice {
                    method,
                    lambdas,
                    sizes: self.select_sizes.clone(),
                    scales,
                })
            }
        };
        let grow = if self.grow_until_val {
            if !(self.val_fraction > 0.0 && self.val_fraction < 1.0) {
                return Err(CliError::Usage(format!(
                    "--val-fraction {} must be inside (0, 1)",
                    self.val_fraction
                )));
            }
            if !(self.growth.is_finite() && (0.0..=10.0).contains(&self.growth)) {
                return Err(CliError::Usage(format!(
                    "--growth {} must be a number in [0, 10] (the fraction of the size a step adds)",
                    self.growth
                )));
            }
            Some(GrowChoice {
                step: self.step,
                growth: self.growth,
                patience: self.patience,
                max_hidden: self.max_hidden,
                val_fraction: self.val_fraction,
            })
        } else {
            None
        };
        if lambda.is_none() && grow.is_none() {
            if self.plot.is_some() || !self.select_sizes.is_empty() {
                return Err(CliError::Usage(
                    "--plot and --select-sizes need --select-lambda or --grow-until-val".into(),
                ));
            }
            return Ok(None);
        }
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
            selection: Selection { lambda, grow },
            plot: self.plot,
        }))
    }
}

/// A scale of `--select-scales` the model takes, written as the JSON
/// reports it: the ELM's [`models::InputScale`] (`unit-variance`,
/// `inverse-sqrt`, a number), the BLS's shrink (a number > 0).
fn check_scale(model: ModelKind, text: &str) -> Result<String, CliError> {
    let normalized = match model {
        ModelKind::Bls => parse_shrink(text).map(|s| s.to_string()),
        _ if text.trim().eq_ignore_ascii_case("auto") => Some("auto".to_string()),
        _ => text.parse::<models::InputScale>().ok().map(|s| s.to_string()),
    };
    if let Some(n) = normalized {
        return Ok(n);
    }
    Err(CliError::Usage(match model {
        ModelKind::Bls => {
            format!("--select-scales: `{text}`: the BLS's enhancement shrink scale is a number > 0")
        }
        _ => format!(
            "--select-scales: `{text}`: the ELM's input-weight scale is {} (or auto: the grid of \
             models::select::scales::elm_scale_grid)",
            models::InputScale::NAMES
        ),
    }))
}

/// The BLS's shrink scale (a finite number > 0), or the usage error.
fn shrink_of(text: &str) -> Result<f64, CliError> {
    parse_shrink(text)
        .ok_or_else(|| CliError::Usage(format!("`{text}`: the BLS's enhancement shrink scale is a number > 0")))
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
    let Some(GrowChoice { step, max_hidden, .. }) = select.and_then(|s| s.selection.grow.as_ref()) else {
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

/// λ and the scale a first stage chose, for the growth after it.
struct Chosen {
    lambda: f64,
    scale: Option<String>,
}

impl Candidate<'_> {
    /// The ELM's params of `n` nodes, or the BLS's, with `chosen`'s λ and
    /// scale when given.
    fn elm_params(&self, n: usize, chosen: Option<&Chosen>) -> Result<ElmValidParams, CliError> {
        let Candidate::Elm { params, .. } = self else {
            return Err(CliError::Input("the ELM's parameters asked of another model".into()));
        };
        let base = params(n)?;
        let Some(c) = chosen else { return Ok(base) };
        let mut p = models::ElmParams::from(base).with_lambda(c.lambda);
        if let Some(scale) = &c.scale {
            p = p.with_input_scale(scale.parse()?);
        }
        Ok(p.check()?)
    }

    /// The BLS's params with `chosen`'s λ and shrink when given.
    fn bls_params(&self, chosen: Option<&Chosen>) -> Result<BlsValidParams, CliError> {
        let Candidate::Bls(base) = self else {
            return Err(CliError::Input("the BLS's parameters asked of another model".into()));
        };
        let Some(c) = chosen else { return Ok(*base) };
        let mut p = models::BlsParams::from(*base).with_lambda(c.lambda);
        if let Some(scale) = &c.scale {
            p = p.with_shrink(shrink_of(scale)?);
        }
        Ok(p.check()?)
    }
}

/// Fit the ELM or the BLS `candidate` on `x`, `y` by the selection `sel`
/// (`task` sets the criterion, `seed` the folds): the model and the report.
/// With both `--select-lambda` and `--grow-until-val`, the selection first,
/// then the growth at its λ and scale (see the module's doc).
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
    let first = match &sel.selection.lambda {
        Some(choice) => Some(choose_lambda(choice, criterion, seed, &candidate, x, y)?),
        None => None,
    };
    let (model, report) = match (&sel.selection.grow, first) {
        (None, Some(first)) => first,
        (Some(grow), first) => {
            let chosen = first.as_ref().map(|(_, r)| Chosen {
                lambda: r.lambda,
                scale: r.scale.clone(),
            });
            let (model, mut report) = grow_until_val(grow, criterion, seed, &candidate, chosen.as_ref(), x, y)?;
            if let Some((_, r)) = first {
                report.method = format!("{} + grow-until-val", r.method);
                report.scale = r.scale;
                report.scale_factor = r.scale_factor;
                report.seconds += r.seconds;
                report.lambda_curve = r.curve;
            }
            (model, report)
        }
        (None, None) => return Err(CliError::Input("a selection with nothing to select".into())),
    };
    say!(
        "nn fit: chose λ = {:e}{}, {} nodes ({} {:.6}) in {:.2} s",
        report.lambda,
        report.scale.as_ref().map_or(String::new(), |s| format!(", scale {s}")),
        report.nodes,
        report.criterion,
        report.score,
        report.seconds
    );
    if let Some(path) = &sel.plot {
        let title = format!(
            "{} ({}): λ = {:e}{}, {} nodes",
            report.method,
            report.criterion,
            report.lambda,
            report.scale.as_ref().map_or(String::new(), |s| format!(", scale {s}")),
            report.nodes
        );
        write_svg(path, &plot(&report.curve, &title, &report.criterion, report.lambda))?;
        if !report.lambda_curve.is_empty() {
            let svg = plot(&report.lambda_curve, &title, &report.criterion, report.lambda);
            write_svg(&lambda_plot_path(path), &svg)?;
        }
    }
    Ok((model, report))
}

/// Where `--plot FILE` puts the selection's curve when growth followed it:
/// `FILE`'s stem with `-lambda` (`curve.svg` → `curve-lambda.svg`).
pub fn lambda_plot_path(path: &std::path::Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "plot".into(), |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or_else(|| "svg".into(), |e| e.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-lambda.{ext}"))
}

fn write_svg(path: &std::path::Path, svg: &str) -> Result<(), CliError> {
    std::fs::write(path, svg).map_err(|e| CliError::File {
        path: path.to_path_buf(),
        problem: e.to_string(),
    })
}

/// `--select-lambda` (with its scales and sizes): the model at the choice
/// and its report.
fn choose_lambda(
    choice: &LambdaChoice,
    criterion: Criterion,
    seed: u64,
    candidate: &Candidate<'_>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(FittedModel, SelectionReport), CliError> {
    let data = Dataset::new(x.view(), y.view());
    let LambdaChoice {
        method,
        lambdas,
        sizes,
        scales,
    } = choice;
    let options = SelectOptions {
        method: *method,
        lambdas: lambdas.clone(),
        sizes: sizes.clone(),
        criterion,
        seed,
    };
    say!(
        "nn fit: choosing λ among {} values by {method}{}{}",
        lambdas.len(),
        if scales.is_empty() {
            String::new()
        } else {
            format!(", the scale among {}", scales.join(", "))
        },
        if sizes.is_empty() {
            String::new()
        } else {
            format!(" and the size among {sizes:?}")
        }
    );
    let (model, s, scale) = match candidate {
        Candidate::Bls(_) => {
            let params = candidate.bls_params(None)?;
            if scales.is_empty() {
                let (m, o) = split(params.select(&data, &options)?);
                (FittedModel::Bls(m), o, None)
            } else {
                let grid = scales.iter().map(|t| shrink_of(t)).collect::<Result<Vec<_>, _>>()?;
                let s = select_over_scales::<Bls>(&params, &data, &options, &grid)?;
                let name = scales[s.index].clone();
                let (m, o) = split(s.selected);
                (FittedModel::Bls(m), o, Some(name))
            }
        }
        Candidate::Elm { hidden, .. } => {
            let params = candidate.elm_params(*hidden, None)?;
            if scales.is_empty() {
                let (m, o) = split(params.select(&data, &options)?);
                (FittedModel::Elm(m), o, None)
            } else {
                // `auto`: the study's grid around the unit-variance scale.
                let mut grid = Vec::new();
                for t in scales {
                    if t == "auto" {
                        grid.extend(elm_scale_grid(x.view()));
                    } else {
                        grid.push(t.parse::<models::InputScale>()?);
                    }
                }
                let s = select_over_scales::<Elm>(&params, &data, &options, &grid)?;
                let name = grid[s.index].to_string();
                let (m, o) = split(s.selected);
                (FittedModel::Elm(m), o, Some(name))
            }
        }
    };
    Ok((
        model,
        SelectionReport {
            method: method.to_string(),
            criterion: criterion.name().into(),
            lambda: s.lambda,
            nodes: s.nodes,
            scale,
            scale_factor: Some(s.scale),
            score: s.score,
            stopped: None,
            seconds: s.seconds,
            curve: s.curve,
            lambda_curve: Vec::new(),
        },
    ))
}

/// A selection's numbers without its model.
struct Outcome {
    lambda: f64,
    nodes: usize,
    scale: f64,
    score: f64,
    seconds: f64,
    curve: Vec<CurvePoint>,
}

/// A selection's model and its numbers, apart (no copy of the model).
fn split<M>(s: models::select::lambda::Selected<M>) -> (M, Outcome) {
    let outcome = Outcome {
        lambda: s.lambda,
        nodes: s.nodes,
        scale: s.scale,
        score: s.score,
        seconds: s.seconds,
        curve: s.curve,
    };
    (s.model, outcome)
}

/// `--grow-until-val` (at `chosen`'s λ and scale when a selection ran
/// first): the model at the best size and its report.
fn grow_until_val(
    choice: &GrowChoice,
    criterion: Criterion,
    seed: u64,
    candidate: &Candidate<'_>,
    chosen: Option<&Chosen>,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(FittedModel, SelectionReport), CliError> {
    let GrowChoice {
        step,
        growth,
        patience,
        max_hidden,
        val_fraction,
    } = choice;
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
        "nn fit: growing by max({step} nodes, {}% of the size) until the error on {} held-out samples stops \
         improving for {patience} steps",
        growth * 100.0,
        val_rows.len()
    );
    let (model, grown) = match candidate {
        Candidate::Bls(_) => {
            let params = candidate.bls_params(chosen)?;
            let max = max_hidden.unwrap_or(bls_growth_default(params.initial_nodes(), *step));
            let g = params.grow_until_val(
                &train,
                &val,
                &GrowOptions::new(*step, *patience, max, criterion).with_growth(*growth),
            )?;
            (
                FittedModel::Bls(g.model),
                (g.nodes, g.score, g.curve, g.stop, g.seconds, params.lambda()),
            )
        }
        Candidate::Elm {
            hidden, initial_nodes, ..
        } => {
            let params = candidate.elm_params(*initial_nodes, chosen)?;
            let max = max_hidden.unwrap_or(*hidden);
            let g = params.grow_until_val(
                &train,
                &val,
                &GrowOptions::new(*step, *patience, max, criterion).with_growth(*growth),
            )?;
            (
                FittedModel::Elm(g.model),
                (g.nodes, g.score, g.curve, g.stop, g.seconds, params.lambda()),
            )
        }
    };
    let (nodes, score, curve, stop, seconds, lambda) = grown;
    Ok((
        model,
        SelectionReport {
            method: "grow-until-val".into(),
            criterion: criterion.name().into(),
            lambda,
            nodes,
            scale: None,
            scale_factor: None,
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
            lambda_curve: Vec::new(),
        },
    ))
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
