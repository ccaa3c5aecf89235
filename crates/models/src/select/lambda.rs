//! λ (and the number of hidden nodes) by leave-one-out, k-fold
//! cross-validation or a held-out validation set, on one hidden layer drawn
//! once for the whole training set.
//!
//! - **Leave-one-out** ([`Method::LeaveOneOut`], λ only): the PRESS
//!   residuals of every λ from one eigendecomposition
//!   ([`linalg_core::ridge::leave_one_out`]); the model returned takes its
//!   weights from the same decomposition, so the whole selection costs the
//!   hidden layer, one syrk, one eigendecomposition and one `K×l×l` product.
//! - **k-fold** ([`Method::KFold`], seeded, stratified by class for
//!   classification) and **a validation fraction**
//!   ([`Method::Validation`]): the Gram sums of each held-out part (together
//!   one syrk over all rows), the training sums of a part by subtraction
//!   from the total, and for each λ one Cholesky factorization that gives
//!   the solutions of every size of the grid (the leading nodes of the
//!   largest network: [`GramAccumulator::solve_prefixes`]). The model
//!   returned is fitted on all rows at the chosen λ and size, from the same
//!   total sums.
//!
//! For the ELM the network of the first `n` nodes is exactly the ELM drawn
//! with `n` nodes (node `j` depends only on the seed and `j`); for the BLS
//! it is the first `n` columns of the expanded input `[Z | H]` of the
//! network of the parameters (the feature nodes, then the first enhancement
//! nodes with the enhancement group's scale).

use std::time::Instant;

use linalg_core::ridge::{leave_one_out, GramAccumulator};
use linalg_core::Error as LinalgError;
use ndarray::{Array2, ArrayView2, Axis, Slice};
use serde::{Deserialize, Serialize};

use super::folds::Folds;
use super::{argmax, best, Criterion, CurvePoint};
use crate::bls::{Bls, BlsParams, BlsValidParams, IncrementalBls};
use crate::elm::{Elm, ElmParams, ElmValidParams, HiddenLayer, InputScale};
use crate::error::{ModelError, Result};
use crate::online::LinearReadout;
use crate::readout::ReadoutSolver;
use crate::traits::{Dataset, ParamGuard};

/// How a candidate is scored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Method {
    /// Leave-one-out (PRESS), λ only.
    LeaveOneOut,
    /// `k`-fold cross-validation.
    KFold {
        /// Number of folds (2 ≤ k ≤ samples).
        k: usize,
    },
    /// A held-out part of the training set.
    Validation {
        /// Its fraction of the samples, in (0, 1).
        fraction: f64,
    },
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::LeaveOneOut => write!(f, "loo"),
            Method::KFold { k } => write!(f, "kfold:{k}"),
            Method::Validation { fraction } => write!(f, "val:{fraction}"),
        }
    }
}

impl std::str::FromStr for Method {
    type Err = crate::ModelError;

    /// `loo`, `kfold:K` (K ≥ 2) or `val:FRAC` (0 < FRAC < 1): what
    /// [`Display`](std::fmt::Display) writes; the command line's
    /// `--select-lambda` and the Python estimators' `select_lambda` read it.
    ///
    /// # Errors
    /// [`crate::ModelError::InvalidParameter`] naming `select_lambda`.
    fn from_str(text: &str) -> Result<Self> {
        let bad = || crate::ModelError::InvalidParameter {
            name: "select_lambda",
            value: text.to_string(),
            reason: "expected loo, kfold:K (K ≥ 2) or val:FRAC (0 < FRAC < 1)",
        };
        match text.split_once(':') {
            None if text == "loo" => Ok(Method::LeaveOneOut),
            Some(("kfold", k)) => match k.parse::<usize>() {
                Ok(k) if k >= 2 => Ok(Method::KFold { k }),
                _ => Err(bad()),
            },
            Some(("val", f)) => match f.parse::<f64>() {
                Ok(f) if f > 0.0 && f < 1.0 => Ok(Method::Validation { fraction: f }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

/// What to select and how.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectOptions {
    /// The scoring method.
    pub method: Method,
    /// The λ grid (each finite and > 0).
    pub lambdas: Vec<f64>,
    /// The sizes to try (numbers of hidden nodes, each between
    /// [`RidgeNetwork::min_nodes`] and the parameters' size); empty for the
    /// parameters' size only. Leave-one-out takes no sizes.
    pub sizes: Vec<usize>,
    /// What a candidate is scored by.
    pub criterion: Criterion,
    /// The seed of the folds or the validation split.
    pub seed: u64,
}

impl SelectOptions {
    /// The λ grid by default, `(lo, hi, count)` for [`log_grid`](Self::log_grid):
    /// 21 values from 10⁻⁸ to 10² (`nn fit --lambda-grid 1e-8:1e2:21`).
    pub const DEFAULT_GRID: (f64, f64, usize) = (1e-8, 1e2, 21);

    /// The most λ values a selection takes: 10,000. Each λ costs a pass
    /// over the rows and a curve point per size (per fold), so a grid of
    /// 10⁸ values would need gigabytes before its first score and years of
    /// passes; and the choice stops changing long before: 10,000 log-spaced
    /// values over the 616 decades of normal doubles are 15% apart, over
    /// the default's 10 decades 0.2% apart, far finer than the scores can
    /// tell apart (issue 36).
    pub const MAX_LAMBDAS: usize = 10_000;

    /// `count` values log-spaced from `lo` to `hi` (both included; `lo`
    /// alone for `count = 1`).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming `lambda grid` unless
    /// `0 < lo ≤ hi` are finite and `1 ≤ count ≤` [`MAX_LAMBDAS`](Self::MAX_LAMBDAS).
    pub fn log_grid(lo: f64, hi: f64, count: usize) -> Result<Vec<f64>> {
        if !(lo > 0.0 && hi >= lo && hi.is_finite() && (1..=Self::MAX_LAMBDAS).contains(&count)) {
            return Err(ModelError::InvalidParameter {
                name: "lambda grid",
                value: format!("{lo}:{hi}:{count}"),
                reason: "needs 0 < LO ≤ HI, both finite, and 1 ≤ N ≤ 10000 values",
            });
        }
        if count == 1 {
            return Ok(vec![lo]);
        }
        let (a, b) = (lo.log10(), hi.log10());
        Ok((0..count)
            .map(|i| 10f64.powf(a + (b - a) * i as f64 / (count - 1) as f64))
            .collect())
    }
}

/// The outcome of a selection: the model fitted at the chosen candidate on
/// all the training samples, and every candidate's score.
#[derive(Clone, Debug)]
pub struct Selected<M> {
    /// The model at the chosen λ and size.
    pub model: M,
    /// The chosen λ.
    pub lambda: f64,
    /// The chosen number of hidden nodes.
    pub nodes: usize,
    /// The hidden layer's scale, as a number
    /// ([`RidgeNetwork::scale_factor`]: the ELM's `s`, the BLS's shrink).
    pub scale: f64,
    /// Its score.
    pub score: f64,
    /// Every candidate, λ-major then size (scale-major first, for
    /// [`select_over_scales`](super::scales::select_over_scales)).
    pub curve: Vec<CurvePoint>,
    /// The method used.
    pub method: Method,
    /// Wall-clock seconds of the whole selection (hidden layer included).
    pub seconds: f64,
}

/// A network whose output layer is a ridge readout on hidden outputs that
/// do not depend on λ: what λ and size selection needs of a model (the
/// ELM and the BLS implement it).
pub trait RidgeNetwork: LinearReadout + Sized {
    /// The validated parameters it is built from.
    type Params;

    /// The network of `params` with its hidden layer built on `data` (the
    /// ELM's random layer; the BLS's trained feature maps and enhancement
    /// group) and zero output weights, and the hidden outputs `A` (K×l) of
    /// `data`'s samples.
    ///
    /// # Errors
    /// As the model's fit, for unusable data or parameters.
    fn hidden_for(params: &Self::Params, data: &Dataset<'_>) -> Result<(Self, Array2<f64>)>;

    /// The smallest size a network can be cut to (the ELM: 1 node; the BLS:
    /// its feature nodes and one enhancement node, or its feature nodes
    /// when it has no enhancement nodes).
    fn min_nodes(&self) -> usize;

    /// The network of its first `nodes` hidden nodes with output weights
    /// `weights` (nodes×M) fitted at `lambda`.
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if the weights do not have `nodes`
    /// rows; non-finite weights.
    fn with_readout(self, nodes: usize, weights: Array2<f64>, lambda: f64) -> Result<Self>;

    /// The scale of the hidden layer's random weights, as the parameters
    /// hold it (the ELM's [`InputScale`]; the BLS's enhancement shrink).
    type Scale: Clone + std::fmt::Debug + std::fmt::Display;

    /// The parameters' scale.
    fn scale(params: &Self::Params) -> Self::Scale;

    /// The parameters with `scale` instead of theirs (checked again).
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for a scale the parameters refuse
    /// (not finite, not > 0).
    fn with_scale(params: &Self::Params, scale: &Self::Scale) -> Result<Self::Params>;

    /// The number the scale comes to on `data`: the ELM's `s` of the input
    /// weights' `U[−s, s)`; the BLS's shrink.
    fn scale_factor(params: &Self::Params, data: &Dataset<'_>) -> f64;
}

impl RidgeNetwork for Elm {
    type Params = ElmValidParams;

    fn hidden_for(params: &ElmValidParams, data: &Dataset<'_>) -> Result<(Elm, Array2<f64>)> {
        data.check()?;
        let x = data.features();
        let scale = params.input_scale().factor(x);
        let hidden = HiddenLayer::random_scaled(x.ncols(), params.nodes(), params.activation(), params.seed(), scale);
        let a = hidden.outputs(x)?;
        let weights = Array2::zeros((params.nodes(), data.targets().ncols()));
        Ok((Elm::from_raw(hidden, weights, params.lambda(), ReadoutSolver::Ridge), a))
    }

    fn min_nodes(&self) -> usize {
        1
    }

    fn with_readout(self, nodes: usize, weights: Array2<f64>, lambda: f64) -> Result<Elm> {
        let mut hidden = self.hidden().clone();
        hidden.truncate(nodes);
        Elm::from_parts(hidden, weights, lambda, ReadoutSolver::Ridge)
    }

    type Scale = InputScale;

    fn scale(params: &ElmValidParams) -> InputScale {
        params.input_scale()
    }

    fn with_scale(params: &ElmValidParams, scale: &InputScale) -> Result<ElmValidParams> {
        ElmParams::from(*params).with_input_scale(*scale).check()
    }

    fn scale_factor(params: &ElmValidParams, data: &Dataset<'_>) -> f64 {
        params.input_scale().factor(data.features())
    }
}

impl RidgeNetwork for Bls {
    type Params = BlsValidParams;

    fn hidden_for(params: &BlsValidParams, data: &Dataset<'_>) -> Result<(Bls, Array2<f64>)> {
        let (expansion, a) = IncrementalBls::columns_from_scratch(params, data, &[])?;
        let weights = Array2::zeros((a.ncols(), data.targets().ncols()));
        let strategy = params.readout().strategy()?;
        Ok((Bls::from_raw(expansion, weights, params.lambda(), strategy), a))
    }

    fn min_nodes(&self) -> usize {
        let f = self.feature_nodes();
        if self.enhancement_nodes() > 0 {
            f + 1
        } else {
            f
        }
    }

    fn with_readout(self, nodes: usize, weights: Array2<f64>, lambda: f64) -> Result<Bls> {
        let strategy = self.strategy();
        let mut expansion = self.expansion().clone();
        expansion.truncate(nodes);
        Bls::from_parts(expansion, weights, lambda, strategy)
    }

    type Scale = f64;

    fn scale(params: &BlsValidParams) -> f64 {
        params.shrink()
    }

    fn with_scale(params: &BlsValidParams, scale: &f64) -> Result<BlsValidParams> {
        BlsParams::from(*params).with_shrink(*scale).check()
    }

    fn scale_factor(params: &BlsValidParams, _data: &Dataset<'_>) -> f64 {
        params.shrink()
    }
}

/// Select λ (and the size) of the network `M` of `params` on `data` by
/// `options` (see the [module documentation](self)).
///
/// ```
/// use models::prelude::*;
/// use models::select::{lambda::{select, Method, SelectOptions}, Criterion};
/// use models::{Activation, Elm, ElmParams};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((80, 2), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0);
/// let y = x.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1)).mapv(f64::sin);
/// let params = ElmParams::new(30, Activation::Sigmoid).with_seed(3).check()?;
/// let options = SelectOptions {
///     method: Method::LeaveOneOut,
///     lambdas: SelectOptions::log_grid(1e-8, 1.0, 9)?,
///     sizes: vec![],
///     criterion: Criterion::MeanSquaredError,
///     seed: 0,
/// };
/// let chosen = select::<Elm>(&params, &Dataset::new(x.view(), y.view()), &options)?;
/// assert_eq!(chosen.curve.len(), 9);
/// assert!(chosen.curve.iter().all(|p| p.score >= chosen.score));
/// # Ok::<(), models::ModelError>(())
/// ```
///
/// # Errors
/// [`ModelError::InvalidParameter`] naming `lambdas` for an empty grid or
/// a λ that is not finite and positive, `sizes` for sizes with
/// leave-one-out or outside `min_nodes..=l`, `k`/`fraction` for the folds,
/// `candidates` when no candidate could be fitted; the model's errors.
pub fn select<M: RidgeNetwork>(params: &M::Params, data: &Dataset<'_>, options: &SelectOptions) -> Result<Selected<M>> {
    let started = Instant::now();
    check_lambdas(&options.lambdas)?;
    let (network, a) = M::hidden_for(params, data)?;
    let scale = M::scale_factor(params, data);
    let y = data.targets();
    let l = a.ncols();
    let sizes = if options.sizes.is_empty() {
        vec![l]
    } else {
        options.sizes.clone()
    };
    if let Some(&bad) = sizes.iter().find(|&&s| s < network.min_nodes() || s > l) {
        return Err(ModelError::InvalidParameter {
            name: "sizes",
            value: bad.to_string(),
            reason: "each size must lie between the network's smallest size and its number of nodes",
        });
    }
    let (curve, fitted) = match options.method {
        Method::LeaveOneOut => {
            if sizes != [l] {
                return Err(ModelError::InvalidParameter {
                    name: "sizes",
                    value: format!("{sizes:?}"),
                    reason: "leave-one-out selects λ for the parameters' size only: use k-fold or a validation set for sizes",
                });
            }
            if a.nrows() < 2 {
                // Leaving out the one row leaves nothing to fit: every λ
                // would score the same (0 on standardized targets).
                return Err(ModelError::InvalidParameter {
                    name: "samples",
                    value: a.nrows().to_string(),
                    reason: "leave-one-out needs at least 2 samples",
                });
            }
            let loo = leave_one_out(a.view(), y, &options.lambdas)?;
            let curve: Vec<CurvePoint> = loo
                .scores
                .iter()
                .map(|s| CurvePoint {
                    lambda: s.lambda,
                    nodes: l,
                    scale: Some(scale),
                    score: match options.criterion {
                        Criterion::MeanSquaredError => s.mse,
                        Criterion::ClassificationError => s.class_error,
                    },
                    spread: 0.0,
                })
                .collect();
            let chosen = &curve[best(&curve)?];
            let weights = loo.path.weights(chosen.lambda)?;
            (curve, Fitted::Weights(weights))
        }
        Method::KFold { .. } | Method::Validation { .. } => {
            let labels = match options.criterion {
                Criterion::ClassificationError => Some(class_labels(y)),
                Criterion::MeanSquaredError => None,
            };
            let folds = match options.method {
                Method::KFold { k } => Folds::k_fold(a.nrows(), k, options.seed, labels.as_deref())?,
                Method::Validation { fraction } => {
                    Folds::validation(a.nrows(), fraction, options.seed, labels.as_deref())?
                }
                Method::LeaveOneOut => unreachable!("handled above"),
            };
            let (mut curve, total) = held_out_curve(a.view(), y, &folds, &options.lambdas, &sizes, options.criterion)?;
            curve.iter_mut().for_each(|p| p.scale = Some(scale));
            (curve, Fitted::Sums(total))
        }
    };
    drop(a);
    let chosen = curve[best(&curve)?].clone();
    let weights = match fitted {
        Fitted::Weights(w) => w,
        Fitted::Sums(total) => total
            .solve_prefixes(chosen.lambda, &[chosen.nodes])?
            .into_iter()
            .next()
            .ok_or_else(|| {
                ModelError::from(LinalgError::Breakdown {
                    strategy: linalg_core::ridge::Strategy::DRdg,
                    first_node: 0,
                    end_node: chosen.nodes,
                    detail: "no weights",
                })
            })?,
    };
    let model = network.with_readout(chosen.nodes, weights, chosen.lambda)?;
    Ok(Selected {
        model,
        lambda: chosen.lambda,
        nodes: chosen.nodes,
        scale,
        score: chosen.score,
        curve,
        method: options.method,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What the selection keeps to fit the chosen candidate on all rows.
enum Fitted {
    /// The weights themselves (leave-one-out's path).
    Weights(Array2<f64>),
    /// The sums over all rows.
    Sums(GramAccumulator),
}

/// The mean and spread over the held-out parts of every (λ, size), λ-major,
/// and the sums over all rows.
fn held_out_curve(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    folds: &Folds,
    lambdas: &[f64],
    sizes: &[usize],
    criterion: Criterion,
) -> Result<(Vec<CurvePoint>, GramAccumulator)> {
    let (l, m) = (a.ncols(), y.ncols());
    let parts = folds.len();
    // Rows of each held-out part and their sums; the total is their sum
    // (k-fold: a partition) or the part's plus the rest's (validation).
    let mut held: Vec<(Array2<f64>, Array2<f64>, GramAccumulator)> = Vec::with_capacity(parts);
    for f in 0..parts {
        let rows = folds.held_out(f);
        let (a_f, y_f) = (a.select(Axis(0), rows), y.select(Axis(0), rows));
        let mut sums = GramAccumulator::new(l, m);
        sums.add(a_f.view(), y_f.view())?;
        held.push((a_f, y_f, sums));
    }
    let mut total = GramAccumulator::new(l, m);
    for (_, _, sums) in &held {
        total.merge(sums)?;
    }
    if total.rows() < a.nrows() {
        let rest = folds.training(0);
        let mut sums = GramAccumulator::new(l, m);
        sums.add(a.select(Axis(0), &rest).view(), y.select(Axis(0), &rest).view())?;
        total.merge(&sums)?;
    }
    // scores[λ][size][part]
    let mut scores = vec![vec![Vec::with_capacity(parts); sizes.len()]; lambdas.len()];
    for (a_f, y_f, sums) in &held {
        let mut train = total.clone();
        train.subtract(sums)?;
        for (li, &lambda) in lambdas.iter().enumerate() {
            let solutions = match train.solve_prefixes(lambda, sizes) {
                Ok(s) => s,
                Err(LinalgError::NotPositiveDefinite { .. } | LinalgError::Breakdown { .. }) => {
                    scores[li].iter_mut().for_each(|s| s.push(f64::NAN));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            for (si, (w, &size)) in solutions.iter().zip(sizes).enumerate() {
                let predictions = a_f.slice_axis(Axis(1), Slice::from(..size)).dot(w);
                scores[li][si].push(criterion.score(predictions.view(), y_f.view())?);
            }
        }
    }
    let mut curve = Vec::with_capacity(lambdas.len() * sizes.len());
    for (li, &lambda) in lambdas.iter().enumerate() {
        for (si, &nodes) in sizes.iter().enumerate() {
            let s = &scores[li][si];
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            let spread = if s.len() > 1 {
                (s.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (s.len() - 1) as f64).sqrt()
            } else {
                0.0
            };
            curve.push(CurvePoint {
                lambda,
                nodes,
                scale: None,
                score: mean,
                spread,
            });
        }
    }
    Ok((curve, total))
}

/// The class of each one-hot target row (its largest entry).
fn class_labels(y: ArrayView2<'_, f64>) -> Vec<usize> {
    y.rows().into_iter().map(|r| argmax(r.iter().copied())).collect()
}

/// A non-empty grid of finite positive λ.
fn check_lambdas(lambdas: &[f64]) -> Result<()> {
    if lambdas.is_empty() {
        return Err(ModelError::InvalidParameter {
            name: "lambdas",
            value: "[]".into(),
            reason: "give at least one λ",
        });
    }
    if lambdas.len() > SelectOptions::MAX_LAMBDAS {
        return Err(ModelError::InvalidParameter {
            name: "lambdas",
            value: format!("{} values", lambdas.len()),
            reason: "give at most SelectOptions::MAX_LAMBDAS = 10000 values",
        });
    }
    if let Some(bad) = lambdas.iter().find(|l| !(l.is_finite() && **l > 0.0)) {
        return Err(ModelError::InvalidParameter {
            name: "lambdas",
            value: bad.to_string(),
            reason: "every λ must be finite and > 0",
        });
    }
    Ok(())
}

impl ElmValidParams {
    /// [`select`] for the ELM of these parameters.
    ///
    /// # Errors
    /// As [`select`].
    pub fn select(&self, data: &Dataset<'_>, options: &SelectOptions) -> Result<Selected<Elm>> {
        select::<Elm>(self, data, options)
    }
}

impl BlsValidParams {
    /// [`select`] for the BLS of these parameters.
    ///
    /// # Errors
    /// As [`select`].
    pub fn select(&self, data: &Dataset<'_>, options: &SelectOptions) -> Result<Selected<Bls>> {
        select::<Bls>(self, data, options)
    }
}
