//! Tables II and III: the regression sets grown node by node with each
//! algorithm and compared with the standard ELM, and the time of adding one
//! node.

use std::time::Instant;

use models::{Activation, Elm, ElmParams, HiddenLayer, IncrementalElm, InputScale, ReadoutSolver};
use models::{Fit, ParamGuard};
use ndarray::{Array2, Axis, Slice};
use serde::{Deserialize, Serialize};

use super::protocol::{FeatureScaling, Options, ALGORITHMS};
use crate::datasets::{self, MinMaxScaler, StandardScaler};
use crate::metrics;
use crate::papers::ReproError;
use crate::report::svg;

/// Table II figures for one dataset and node count (means over folds).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ErrorRow {
    /// Dataset label.
    pub dataset: String,
    /// Node count.
    pub nodes: usize,
    /// Weight error per algorithm.
    pub weight_error: [f64; 4],
    /// Training output error per algorithm.
    pub output_error_train: [f64; 4],
    /// Testing output error per algorithm.
    pub output_error_test: [f64; 4],
    /// Testing MSE of the standard ELM.
    pub test_mse: f64,
    /// 2-norm condition number of `R = AᵀA + λI` (the standard ELM's), the
    /// factor the algorithms' rounding errors scale with.
    pub kappa: f64,
}

/// Table III figures for one dataset and node count.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimingRow {
    /// Dataset label.
    pub dataset: String,
    /// Node count reached by the timed append.
    pub nodes: usize,
    /// Training rows `K`.
    pub samples: usize,
    /// Outputs `M`.
    pub outputs: usize,
    /// Mean seconds per append, per algorithm (Li et al., Alg. 1, 2, 3).
    pub seconds: [f64; 4],
    /// Flops of one append, per algorithm.
    pub flops: [u64; 4],
}

/// A fold's training and testing parts, features scaled as asked and
/// targets min–max scaled to [0, 1] (both fitted on the training part):
/// `[x_train, y_train, x_test, y_test]`.
pub(super) fn scaled_fold(
    ds: &datasets::Dataset,
    train: &[usize],
    test: &[usize],
    scaling: FeatureScaling,
) -> Result<[Array2<f64>; 4], ReproError> {
    let (tr, te) = (ds.select(train), ds.select(test));
    let (xtr, xte) = match scaling {
        FeatureScaling::MinMax => {
            let sx = MinMaxScaler::fit(&tr.x)?;
            (sx.transform(&tr.x)?, sx.transform(&te.x)?)
        }
        FeatureScaling::Symmetric => {
            let sx = MinMaxScaler::fit(&tr.x)?;
            let to_pm1 = |x: Array2<f64>| x.mapv(|v| 2.0 * v - 1.0);
            (to_pm1(sx.transform(&tr.x)?), to_pm1(sx.transform(&te.x)?))
        }
        FeatureScaling::ZScore => {
            let sx = StandardScaler::fit(&tr.x)?;
            (sx.transform(&tr.x)?, sx.transform(&te.x)?)
        }
    };
    let (lo, hi) =
        tr.y.iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let scale_y = |y: &ndarray::Array1<f64>| y.mapv(|v| (v - lo) / span).insert_axis(Axis(1));
    Ok([xtr, scale_y(&tr.y), xte, scale_y(&te.y)])
}

/// The standard ELM's testing MSE at `opts.max_nodes`, mean over the folds
/// run, for each of [`FeatureScaling::ALL`] (same hidden layers).
pub(super) fn testing_mse_by_scaling(
    ds: &datasets::Dataset,
    folds: &[(Vec<usize>, Vec<usize>)],
    act: Activation,
    opts: &Options,
) -> Result<[f64; 3], ReproError> {
    let nf = opts.folds.min(folds.len()) as f64;
    let mut mse = [0.0; 3];
    for (f, (train, test)) in folds.iter().enumerate().take(opts.folds) {
        for (k, scaling) in FeatureScaling::ALL.into_iter().enumerate() {
            let [xtr, ytr, xte, yte] = scaled_fold(ds, train, test, scaling)?;
            let config = ElmParams::new(opts.max_nodes, act)
                .with_lambda(0.1)
                .with_seed(1000 + f as u64)
                .with_input_scale(InputScale::Fixed(1.0));
            let elm = config.fit(&models::Dataset::new(xtr.view(), ytr.view()))?;
            mse[k] += metrics::mse(yte.view(), elm.predict(xte.view())?.view())? / nf;
        }
    }
    Ok(mse)
}

/// The 2-norm condition number of `AᵀA + λI`, from its eigenvalues (DSYEVD).
fn ridge_condition(a: ndarray::ArrayView2<'_, f64>, lambda: f64) -> Result<f64, ReproError> {
    let n = a.ncols();
    let mut r = a.t().dot(&a);
    r.diag_mut().mapv_inplace(|v| v + lambda);
    let mut data: Vec<f64> = r.iter().copied().collect();
    let mut fl = linalg_core::kernels::Flops::default();
    let mu = linalg_core::kernels::syevd(&mut fl, linalg_core::kernels::MatMut::new(&mut data, n, n, n))
        .map_err(|info| ReproError::Protocol(format!("dsyevd failed to converge (info {info})")))?;
    match (mu.first(), mu.last()) {
        (Some(&lo), Some(&hi)) if lo > 0.0 => Ok(hi / lo),
        _ => Err(ReproError::Protocol("AᵀA + λI is not positive definite".into())),
    }
}

/// Where [`dataset_errors`] records fold 1's curves (`None`: not recorded).
pub(super) struct Curves<'a> {
    /// Weight error vs nodes, every 10 nodes.
    pub(super) weight: Option<&'a mut Vec<svg::Series>>,
    /// Time per added node vs nodes (9-point mean).
    pub(super) time: Option<&'a mut Vec<svg::Series>>,
}

impl Curves<'_> {
    pub(super) fn none() -> Self {
        Self {
            weight: None,
            time: None,
        }
    }
}

/// Table II for one dataset: grow each algorithm from 2 to
/// `opts.max_nodes` nodes on each fold run, compare with the standard ELM at
/// the checkpoints, and average over the folds.
#[allow(clippy::too_many_arguments)]
pub(super) fn dataset_errors(
    ds: &datasets::Dataset,
    folds: &[(Vec<usize>, Vec<usize>)],
    label: &str,
    act: Activation,
    scaling: FeatureScaling,
    checkpoints: &[usize],
    opts: &Options,
    mut curves: Curves<'_>,
) -> Result<Vec<ErrorRow>, ReproError> {
    let mut acc: Vec<ErrorRow> = checkpoints
        .iter()
        .map(|&n| ErrorRow {
            dataset: label.to_string(),
            nodes: n,
            ..Default::default()
        })
        .collect();
    for (f, (train, test)) in folds.iter().enumerate().take(opts.folds) {
        let [xtr, ytr, xte, yte] = scaled_fold(ds, train, test, scaling)?;
        let seed = 1000 + f as u64;
        eprintln!(
            "zhu-wei: {label}, fold {}/{}: K = {}, growing to {} nodes with Li et al., Alg. 1, 2, 3",
            f + 1,
            opts.folds,
            xtr.nrows(),
            opts.max_nodes
        );
        let config = |n: usize| {
            ElmParams::new(n, act)
                .with_lambda(0.1)
                .with_seed(seed)
                .with_input_scale(InputScale::Fixed(1.0))
        };
        let train = models::Dataset::new(xtr.view(), ytr.view());
        let standard: Vec<Elm> = checkpoints
            .iter()
            .map(|&n| config(n).fit(&train))
            .collect::<Result<_, _>>()?;
        for (a, alg) in ALGORITHMS.iter().enumerate() {
            let start = config(2).with_solver(ReadoutSolver::Strategy(*alg)).check()?;
            let mut inc = IncrementalElm::start(&start, &train)?;
            inc.reserve(opts.max_nodes - 2);
            let (mut wcurve, mut tcurve) = (vec![], vec![]);
            let want_weight = f == 0 && curves.weight.is_some();
            for n in 3..=opts.max_nodes {
                inc.add_nodes(1)?;
                if f == 0 {
                    tcurve.push((n as f64, inc.last_update_time().as_secs_f64() * 1e3));
                }
                if let Some(c) = checkpoints.iter().position(|&c| c == n) {
                    let std = &standard[c];
                    let row = &mut acc[c];
                    row.weight_error[a] += metrics::weight_error(inc.weights(), std.output_weights())?;
                    row.output_error_train[a] +=
                        metrics::output_error(inc.predict(xtr.view())?.view(), std.predict(xtr.view())?.view())?;
                    row.output_error_test[a] +=
                        metrics::output_error(inc.predict(xte.view())?.view(), std.predict(xte.view())?.view())?;
                    if a == 0 {
                        row.test_mse += metrics::mse(yte.view(), std.predict(xte.view())?.view())?;
                        row.kappa += ridge_condition(std.hidden_outputs(xtr.view())?.view(), 0.1)?;
                    }
                }
                if want_weight && (n % 10 == 0 || n == 3) {
                    let std = config(n).fit(&train)?;
                    wcurve.push((n as f64, metrics::weight_error(inc.weights(), std.output_weights())?));
                }
            }
            if f == 0 {
                if let Some(w) = curves.weight.as_deref_mut() {
                    w.push(svg::Series::line(alg.paper_name(), wcurve));
                }
                if let Some(t) = curves.time.as_deref_mut() {
                    t.push(svg::Series::line(alg.paper_name(), smooth(&tcurve, 9)));
                }
            }
        }
    }
    let nf = opts.folds.min(folds.len()) as f64;
    Ok(acc
        .into_iter()
        .map(|mut row| {
            for v in row
                .weight_error
                .iter_mut()
                .chain(&mut row.output_error_train)
                .chain(&mut row.output_error_test)
            {
                *v /= nf;
            }
            row.test_mse /= nf;
            row.kappa /= nf;
            row
        })
        .collect())
}

/// Moving average of the y values over `w` points (timings are noisy).
pub(super) fn smooth(points: &[(f64, f64)], w: usize) -> Vec<(f64, f64)> {
    (0..points.len())
        .map(|i| {
            let lo = i.saturating_sub(w / 2);
            let hi = (i + w / 2 + 1).min(points.len());
            let mean = points[lo..hi].iter().map(|p| p.1).sum::<f64>() / (hi - lo) as f64;
            (points[i].0, mean)
        })
        .collect()
}

/// Table III: the mean time and flops of adding the `n`th node's column
/// to each algorithm's `n − 1`-node state (`reps` repetitions from copies of
/// the same state), on a hidden layer drawn from seed 7.
pub(super) fn time_one_node(
    label: &str,
    act: Activation,
    x: &Array2<f64>,
    y: &Array2<f64>,
    n: usize,
    reps: usize,
) -> Result<TimingRow, ReproError> {
    eprintln!("zhu-wei: {label}: timing one added node at n = {n} ({reps} repetitions per algorithm)");
    let a = HiddenLayer::random(x.ncols(), n, act, 7).outputs(x.view())?;
    let (seconds, flops) = time_last_node(&a, y, reps)?;
    Ok(TimingRow {
        dataset: label.into(),
        nodes: n,
        samples: x.nrows(),
        outputs: y.ncols(),
        seconds,
        flops,
    })
}

/// Mean seconds (over `reps` repetitions, each from a copy of the same
/// state) and flops of appending `a`'s last column to each algorithm's
/// solver built on the others, in [`ALGORITHMS`]' order.
pub(super) fn time_last_node(
    a: &Array2<f64>,
    y: &Array2<f64>,
    reps: usize,
) -> Result<([f64; 4], [u64; 4]), ReproError> {
    let n = a.ncols();
    let (a0, h) = (
        a.slice_axis(Axis(1), Slice::from(..n - 1)),
        a.slice_axis(Axis(1), Slice::from(n - 1..)),
    );
    let mut seconds = [0.0; 4];
    let mut flops = [0; 4];
    for (k, alg) in ALGORITHMS.iter().enumerate() {
        let mut base = alg.build(a0, y.view(), 0.1, linalg_core::Precision::F64)?;
        base.reserve(1);
        let mut total = 0.0;
        for _ in 0..reps.max(1) {
            let mut s = base.clone_box();
            let t = Instant::now();
            s.append(h)?;
            total += t.elapsed().as_secs_f64();
            flops[k] = s.last_flops();
        }
        seconds[k] = total / reps.max(1) as f64;
    }
    Ok((seconds, flops))
}
#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Orthogonal columns with squared norms 4.5 and 0.5: `AᵀA = diag(4.5,
    /// 0.5)`, so κ(AᵀA + λI) = (4.5 + λ)/(0.5 + λ) exactly.
    #[test]
    fn ridge_condition_matches_the_known_spectrum() -> Result<(), ReproError> {
        let (c, s) = (0.6, 0.8);
        let a = array![
            [1.5 * c, -0.5 * s],
            [1.5 * s, 0.5 * c],
            [1.5 * c, 0.5 * s],
            [-1.5 * s, 0.5 * c]
        ];
        for lambda in [0.1, 1e-6] {
            let k = ridge_condition(a.view(), lambda)?;
            let exact = (4.5 + lambda) / (0.5 + lambda);
            // DSYEVD is backward stable: each eigenvalue within a few
            // ε·‖R‖ ≈ 5ε; relative to the smaller one (≥ 0.5) that is
            // ≈ 2e-15 per eigenvalue, well below 1e-14 in κ.
            assert!((k - exact).abs() <= 1e-14 * exact, "κ = {k}, exact {exact}");
        }
        let zero = Array2::<f64>::zeros((3, 2));
        assert!((ridge_condition(zero.view(), 0.1)? - 1.0).abs() <= 1e-15);
        Ok(())
    }
}
