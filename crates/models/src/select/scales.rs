//! The hidden layer's scale chosen by the data, with λ and the size
//! (issue 42).
//!
//! The scale of the random weights decides how linear or saturated the
//! hidden layer is (the ELM's input-weight scale `s` of `U[−s, s)`, as an
//! [`InputScale`](crate::InputScale); the BLS's enhancement shrink), and no
//! single value suits every data set. [`select_over_scales`] runs
//! [`select`] once per scale of a grid — a new hidden layer and one Gram
//! accumulation (or one eigendecomposition for leave-one-out) each, after
//! which every λ and size costs what it costs in [`select`] — with the same
//! folds for every scale (the same seed), so the scores are compared on the
//! same held-out rows. The ELM of each scale draws the same directions
//! (node `j` depends on the seed and `j` only): a scale only stretches
//! them.
//!
//! The choice is the lowest score over every (scale, λ, size), the first of
//! equal ones in the grid's order (as [`best`](super::best)); the model
//! returned is the chosen scale's, fitted on all the training samples at
//! its λ and size. The curve holds every candidate, scale-major, each point
//! with its scale as a number ([`CurvePoint::scale`](super::CurvePoint::scale)).
//!
//! Cost: about one [`select`] per scale. For the BLS, whose shrink acts on
//! the enhancement nodes only, each scale also trains the feature maps
//! again (the same maps: they do not depend on the shrink).

use std::time::Instant;

use ndarray::ArrayView2;

use super::lambda::{select, RidgeNetwork, SelectOptions, Selected};
use super::{best, CurvePoint};
use crate::elm::InputScale;
use crate::error::{ModelError, Result};
use crate::traits::Dataset;

/// The ELM's grid of scales for the samples `x` (`nn fit --select-scales
/// auto`): the unit-variance scale `u` ([`InputScale::UnitVariance`]),
/// `u/4`, `u/2`, `2u`, `4u`, then MATLAB ELM's 1 and `1/√N`
/// ([`InputScale::InverseSqrtInputs`]) — the grid the defaults study of
/// issue 42 ran on every shipped set (`docs/defaults.md`), where choosing
/// among it by 3-fold cross-validation came within 2% of the best of the
/// fixed defaults on most sets.
pub fn elm_scale_grid(x: ArrayView2<'_, f64>) -> Vec<InputScale> {
    let u = InputScale::UnitVariance.factor(x);
    let mut grid = vec![InputScale::UnitVariance];
    grid.extend([0.25, 0.5, 2.0, 4.0].map(|c| InputScale::Fixed(c * u)));
    grid.extend([InputScale::Fixed(1.0), InputScale::InverseSqrtInputs]);
    grid
}

/// The outcome of [`select_over_scales`]: the selection at the chosen
/// scale (its `curve` holding every scale's candidates, its `seconds` the
/// whole search) and which scale it is.
#[derive(Clone, Debug)]
pub struct ScaleSelected<M: RidgeNetwork> {
    /// The model, λ, size and score of the chosen scale; the curve of all
    /// scales.
    pub selected: Selected<M>,
    /// The chosen scale, as given.
    pub scale: M::Scale,
    /// Its position in the grid.
    pub index: usize,
}

/// The most scales a selection takes: 100 (each costs a hidden layer and a
/// pass over the data).
pub const MAX_SCALES: usize = 100;

/// [`select`] for each scale of `scales` (the parameters' other values
/// unchanged), and the best of all (see the [module documentation](self)).
///
/// ```
/// use models::prelude::*;
/// use models::select::{lambda::{Method, SelectOptions}, scales::select_over_scales, Criterion};
/// use models::{Activation, Elm, ElmParams, InputScale};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((90, 3), |(i, j)| ((i * 7 + j * 5) % 13) as f64 / 6.0 - 1.0);
/// let y = x.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1)).mapv(f64::sin);
/// let params = ElmParams::new(30, Activation::Sigmoid).with_seed(3).check()?;
/// let options = SelectOptions {
///     method: Method::KFold { k: 3 },
///     lambdas: SelectOptions::log_grid(1e-8, 1.0, 5)?,
///     sizes: vec![],
///     criterion: Criterion::MeanSquaredError,
///     seed: 0,
/// };
/// let scales = [InputScale::UnitVariance, InputScale::Fixed(0.1), InputScale::Fixed(3.0)];
/// let chosen = select_over_scales::<Elm>(&params, &Dataset::new(x.view(), y.view()), &options, &scales)?;
/// assert_eq!(chosen.selected.curve.len(), 15);
/// assert!(chosen.selected.curve.iter().all(|p| p.score >= chosen.selected.score));
/// assert_eq!(chosen.scale, scales[chosen.index]);
/// # Ok::<(), models::ModelError>(())
/// ```
///
/// # Errors
/// [`ModelError::InvalidParameter`] naming `scales` for an empty grid or
/// more than [`MAX_SCALES`], or a scale the parameters refuse; `candidates`
/// when no candidate of any scale could be fitted; [`select`]'s errors.
pub fn select_over_scales<M: RidgeNetwork>(
    params: &M::Params,
    data: &Dataset<'_>,
    options: &SelectOptions,
    scales: &[M::Scale],
) -> Result<ScaleSelected<M>> {
    let started = Instant::now();
    if scales.is_empty() || scales.len() > MAX_SCALES {
        return Err(ModelError::InvalidParameter {
            name: "scales",
            value: format!("{} values", scales.len()),
            reason: "give between 1 and 100 scales",
        });
    }
    let mut curve: Vec<CurvePoint> = Vec::new();
    let mut chosen: Option<(Selected<M>, usize)> = None;
    for (index, scale) in scales.iter().enumerate() {
        let scaled = M::with_scale(params, scale)?;
        let selected = match select::<M>(&scaled, data, options) {
            Ok(s) => s,
            // Every candidate of this scale failed (NaN): the others may not.
            Err(ModelError::InvalidParameter { name: "candidates", .. }) => continue,
            Err(e) => return Err(e),
        };
        curve.extend(selected.curve.iter().cloned());
        // Strictly lower: among equal scores the earlier scale stays.
        if chosen.as_ref().is_none_or(|(c, _)| selected.score < c.score) {
            chosen = Some((selected, index));
        }
    }
    let (mut selected, index) = chosen.ok_or_else(|| ModelError::InvalidParameter {
        name: "candidates",
        value: format!("{} scales", scales.len()),
        reason: "no candidate of any scale could be fitted (every score is NaN)",
    })?;
    debug_assert_eq!(curve[best(&curve)?].score, selected.score);
    selected.curve = curve;
    selected.seconds = started.elapsed().as_secs_f64();
    Ok(ScaleSelected {
        scale: scales[index].clone(),
        selected,
        index,
    })
}
