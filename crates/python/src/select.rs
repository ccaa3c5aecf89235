//! The ELM's and the BLS's choice of λ, the hidden layer's scale and the
//! size, from the estimators' options, as the command line's `nn fit`
//! makes it (issues 22 and 42): `select_lambda` over `lambda_grid` (and
//! `select_scales`, `select_sizes`), and/or `grow_until_val`; with both,
//! λ and the scale first on the `n_hidden` network (the BLS's network),
//! then growth at them.

use models::select::folds::Folds;
use models::select::grow::{GrowOptions, Grown};
use models::select::lambda::{Method, SelectOptions, Selected};
use models::select::scales::{elm_scale_grid, select_over_scales};
use models::select::{Criterion, CurvePoint};
use models::{BlsParams, BlsValidParams, Dataset, Elm, ElmParams, ElmValidParams, InputScale, ParamGuard};
use ndarray::{Array2, ArrayView2, Axis};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::value_error;
use crate::fit::parse;
use crate::model::{Model, State};

/// `grow_until_val`'s options.
#[derive(Clone, Copy)]
pub(crate) struct GrowArgs {
    step: usize,
    growth: f64,
    patience: usize,
    max: Option<usize>,
    fraction: f64,
}

impl GrowArgs {
    /// The smallest step (the ELM starts with this many nodes).
    pub(crate) fn step(&self) -> usize {
        self.step
    }
}

/// How λ, the scale or the size is chosen, from the estimator's options.
pub(crate) struct Selection {
    /// `select_lambda`: loo, kfold:K or val:FRAC.
    pub(crate) method: Option<Method>,
    /// The λ grid.
    lambdas: Vec<f64>,
    /// Sizes to try (empty: the estimator's).
    sizes: Vec<usize>,
    /// Scales to try, as given (empty: the estimator's `weight_scale`).
    scales: Vec<String>,
    /// `grow_until_val` with its options.
    pub(crate) grow: Option<GrowArgs>,
    criterion: Criterion,
}

/// The estimator's selection options, as `fit_elm` and `fit_bls` take them.
pub(crate) struct SelectionArgs<'a> {
    pub(crate) select_lambda: Option<&'a str>,
    pub(crate) lambda_grid: Option<(f64, f64, usize)>,
    pub(crate) select_sizes: Option<Vec<usize>>,
    pub(crate) select_scales: Option<Vec<String>>,
    pub(crate) grow_until_val: bool,
    pub(crate) grow_step: Option<usize>,
    pub(crate) growth: Option<f64>,
    pub(crate) patience: Option<usize>,
    pub(crate) max_hidden: Option<usize>,
    pub(crate) val_fraction: Option<f64>,
    pub(crate) classification: bool,
}

impl Selection {
    /// The options checked: a method's name, the grid, sizes and scales
    /// only with `select_lambda`, sizes not with growth (which chooses the
    /// size).
    pub(crate) fn new(a: SelectionArgs<'_>) -> PyResult<Self> {
        let method = a.select_lambda.map(parse::<Method>).transpose()?;
        let (lo, hi, n) = a.lambda_grid.unwrap_or(SelectOptions::DEFAULT_GRID);
        let lambdas = SelectOptions::log_grid(lo, hi, n).map_err(crate::errors::to_py)?;
        let sizes = a.select_sizes.unwrap_or_default();
        if !sizes.is_empty() && method.is_none() {
            return Err(value_error("select_sizes needs select_lambda='kfold:K' or 'val:FRAC'"));
        }
        if !sizes.is_empty() && a.grow_until_val {
            return Err(value_error(
                "select_sizes and grow_until_val both choose the size: drop one (with both, select_lambda \
                 chooses alpha and the scale, then growth the size)",
            ));
        }
        let scales = a.select_scales.unwrap_or_default();
        if !scales.is_empty() && method.is_none() {
            return Err(value_error(
                "select_scales needs select_lambda (it chooses the scale with alpha)",
            ));
        }
        let grow = a.grow_until_val.then(|| GrowArgs {
            step: a.grow_step.unwrap_or(GrowOptions::DEFAULT_STEP),
            growth: a.growth.unwrap_or(GrowOptions::DEFAULT_GROWTH),
            patience: a.patience.unwrap_or(GrowOptions::DEFAULT_PATIENCE),
            max: a.max_hidden,
            fraction: a.val_fraction.unwrap_or(GrowOptions::DEFAULT_VAL_FRACTION),
        });
        let criterion = if a.classification {
            Criterion::ClassificationError
        } else {
            Criterion::MeanSquaredError
        };
        Ok(Self {
            method,
            lambdas,
            sizes,
            scales,
            grow,
            criterion,
        })
    }

    /// Whether anything is chosen.
    pub(crate) fn any(&self) -> bool {
        self.method.is_some() || self.grow.is_some()
    }

    fn options(&self, method: Method, seed: u64) -> SelectOptions {
        SelectOptions {
            method,
            lambdas: self.lambdas.clone(),
            sizes: self.sizes.clone(),
            criterion: self.criterion,
            seed,
        }
    }

    /// The report of a selection at scale `scale` (as given).
    fn selected_report<M>(&self, method: Method, s: &Selected<M>, scale: Option<String>) -> SelectionReport {
        SelectionReport {
            method: method.to_string(),
            criterion: self.criterion,
            lambda: s.lambda,
            nodes: s.nodes,
            scale,
            scale_factor: Some(s.scale),
            score: s.score,
            curve: s.curve.clone(),
            lambda_curve: Vec::new(),
            seconds: s.seconds,
            stopped: None,
        }
    }

    /// The report of a growth, merged with the selection before it.
    fn grown_report<M>(&self, g: &Grown<M>, lambda: f64, first: Option<SelectionReport>) -> SelectionReport {
        let Some(grow) = self.grow else {
            unreachable!("a growth report without growth options")
        };
        let mut report = SelectionReport {
            method: format!("grow-until-val:{}", grow.fraction),
            criterion: self.criterion,
            lambda,
            nodes: g.nodes,
            scale: None,
            scale_factor: None,
            score: g.score,
            curve: g.curve.clone(),
            lambda_curve: Vec::new(),
            seconds: g.seconds,
            stopped: Some(format!("{:?}", g.stop).to_lowercase()),
        };
        if let Some(f) = first {
            report.method = format!("{} + {}", f.method, report.method);
            report.scale = f.scale;
            report.scale_factor = f.scale_factor;
            report.seconds += f.seconds;
            report.lambda_curve = f.curve;
        }
        report
    }

    /// `run` (a model's `grow_until_val`) on the training and held-out
    /// parts of `x`, `y` with `grow`'s options up to `max` nodes.
    fn grow_with<M>(
        &self,
        grow: GrowArgs,
        max: usize,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        seed: u64,
        run: impl FnOnce(&Dataset<'_>, &Dataset<'_>, &GrowOptions) -> models::Result<Grown<M>>,
    ) -> models::Result<Grown<M>> {
        let (xt, yt, xv, yv) = grow_split(x, y, grow.fraction, seed, self.criterion)?;
        let opts = GrowOptions::new(grow.step, grow.patience, max, self.criterion).with_growth(grow.growth);
        run(
            &Dataset::new(xt.view(), yt.view()),
            &Dataset::new(xv.view(), yv.view()),
            &opts,
        )
    }

    /// The ELM's selection: `params(n)` is the estimator's ELM of `n`
    /// nodes; the selection runs on `n_hidden` nodes, growth starts at the
    /// step's nodes and stops at `max_hidden` (default `n_hidden`).
    pub(crate) fn fit_elm(
        &self,
        params: &dyn Fn(usize) -> models::Result<ElmValidParams>,
        n_hidden: usize,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        seed: u64,
    ) -> models::Result<RidgeFit> {
        let data = Dataset::new(x, y);
        let mut first: Option<(SelectionReport, Option<InputScale>)> = None;
        if let Some(method) = self.method {
            let base = params(n_hidden)?;
            let options = self.options(method, seed);
            let (s, scale) = if self.scales.is_empty() {
                (base.select(&data, &options)?, None)
            } else {
                // `auto`: the grid around the unit-variance scale (`nn fit`'s).
                let mut grid = Vec::new();
                for t in &self.scales {
                    if t.trim().eq_ignore_ascii_case("auto") {
                        grid.extend(elm_scale_grid(x));
                    } else {
                        grid.push(t.parse::<InputScale>()?);
                    }
                }
                let r = select_over_scales::<Elm>(&base, &data, &options, &grid)?;
                (r.selected, Some((grid[r.index].to_string(), r.scale)))
            };
            let report = self.selected_report(method, &s, scale.as_ref().map(|(n, _)| n.clone()));
            if self.grow.is_none() {
                return Ok(RidgeFit::Selected(State::Elm(s.model), report));
            }
            first = Some((report, scale.map(|(_, s)| s)));
        }
        let Some(grow) = self.grow else {
            unreachable!("fit_elm without a selection")
        };
        let max = grow.max.unwrap_or(n_hidden);
        let mut start = params(grow.step.min(max))?;
        if let Some((report, scale)) = &first {
            let mut p = ElmParams::from(start).with_lambda(report.lambda);
            if let Some(s) = scale {
                p = p.with_input_scale(*s);
            }
            start = p.check()?;
        }
        let g = self.grow_with(grow, max, x, y, seed, |t, v, o| start.grow_until_val(t, v, o))?;
        let report = self.grown_report(&g, start.lambda(), first.map(|(r, _)| r));
        Ok(RidgeFit::Selected(State::Elm(g.model), report))
    }

    /// The BLS's selection: on the network of `params`; growth from it to
    /// `max_hidden` (default its size + 100 steps).
    pub(crate) fn fit_bls(
        &self,
        params: BlsValidParams,
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        seed: u64,
    ) -> models::Result<RidgeFit> {
        let data = Dataset::new(x, y);
        let mut start = params;
        let mut first = None;
        if let Some(method) = self.method {
            let options = self.options(method, seed);
            let (s, scale) = if self.scales.is_empty() {
                (params.select(&data, &options)?, None)
            } else {
                let grid = self
                    .scales
                    .iter()
                    .map(|t| shrink(t))
                    .collect::<models::Result<Vec<_>>>()?;
                let r = select_over_scales::<models::Bls>(&params, &data, &options, &grid)?;
                (r.selected, Some((self.scales[r.index].clone(), r.scale)))
            };
            let report = self.selected_report(method, &s, scale.as_ref().map(|(n, _)| n.clone()));
            if self.grow.is_none() {
                return Ok(RidgeFit::Selected(State::Bls(s.model), report));
            }
            let mut p = BlsParams::from(params).with_lambda(report.lambda);
            if let Some((_, s)) = scale {
                p = p.with_shrink(s);
            }
            start = p.check()?;
            first = Some(report);
        }
        let Some(grow) = self.grow else {
            unreachable!("fit_bls without a selection")
        };
        let max = grow.max.unwrap_or(start.initial_nodes() + 100 * grow.step);
        let g = self.grow_with(grow, max, x, y, seed, |t, v, o| start.grow_until_val(t, v, o))?;
        let report = self.grown_report(&g, start.lambda(), first);
        Ok(RidgeFit::Selected(State::Bls(g.model), report))
    }
}

/// The BLS's shrink scale from its text: a number > 0.
fn shrink(text: &str) -> models::Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(models::ModelError::InvalidParameter {
            name: "select_scales",
            value: text.to_string(),
            reason: "the BLS's enhancement shrink scale is a number > 0",
        }),
    }
}

/// The curve as a list of dicts `{lambda, nodes, scale, score, spread}`
/// (`scale` None where not recorded).
fn curve_list<'py>(py: Python<'py>, curve: &[CurvePoint]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in curve {
        let d = PyDict::new(py);
        d.set_item("lambda", p.lambda)?;
        d.set_item("nodes", p.nodes)?;
        d.set_item("scale", p.scale)?;
        d.set_item("score", p.score)?;
        d.set_item("spread", p.spread)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The selection's report as a dict: method, criterion, chosen λ, size and
/// scale, score, curve (and the first stage's), seconds, why growth stopped.
fn selection_dict<'py>(py: Python<'py>, r: SelectionReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("method", r.method)?;
    d.set_item("criterion", r.criterion.name())?;
    d.set_item("lambda", r.lambda)?;
    d.set_item("nodes", r.nodes)?;
    d.set_item("scale", r.scale)?;
    d.set_item("scale_factor", r.scale_factor)?;
    d.set_item("score", r.score)?;
    d.set_item("curve", curve_list(py, &r.curve)?)?;
    d.set_item("lambda_curve", curve_list(py, &r.lambda_curve)?)?;
    d.set_item("seconds", r.seconds)?;
    d.set_item("stopped", r.stopped)?;
    Ok(d)
}

/// Training samples and targets, then validation samples and targets.
type Split = (Array2<f64>, Array2<f64>, Array2<f64>, Array2<f64>);

/// The training and validation parts of `x`, `y` for growth (stratified by
/// class for a classifier), as the command line's `--grow-until-val` cuts them.
fn grow_split(
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    fraction: f64,
    seed: u64,
    criterion: Criterion,
) -> models::Result<Split> {
    let labels = (criterion == Criterion::ClassificationError).then(|| crate::model::argmax_rows(y));
    let split = Folds::validation(x.nrows(), fraction, seed, labels.as_deref())?;
    let (train, val) = (split.training(0), split.held_out(0).to_vec());
    Ok((
        x.select(Axis(0), &train),
        y.select(Axis(0), &train),
        x.select(Axis(0), &val),
        y.select(Axis(0), &val),
    ))
}

/// What the ELM's and the BLS's fits share: the model, or the selection's
/// model and report.
pub(crate) enum RidgeFit {
    Plain(State),
    Selected(State, SelectionReport),
}

/// The numbers of a selection's report (turned into a dict with the GIL).
pub(crate) struct SelectionReport {
    method: String,
    criterion: Criterion,
    lambda: f64,
    nodes: usize,
    scale: Option<String>,
    scale_factor: Option<f64>,
    score: f64,
    curve: Vec<CurvePoint>,
    lambda_curve: Vec<CurvePoint>,
    seconds: f64,
    stopped: Option<String>,
}

/// The fit's report: `seconds` (the library's time, the GIL released) and
/// the selection's report when there was one.
pub(crate) fn report_dict<'py>(py: Python<'py>, fit: RidgeFit, seconds: f64) -> PyResult<(Model, Bound<'py, PyDict>)> {
    let info = PyDict::new(py);
    info.set_item("seconds", seconds)?;
    let state = match fit {
        RidgeFit::Plain(state) => state,
        RidgeFit::Selected(state, r) => {
            info.set_item("selection", selection_dict(py, r)?)?;
            state
        }
    };
    Ok((Model::new(state), info))
}
