//! Growing until the validation error stops improving
//! (`models::select::grow`): the size chosen against brute-force batch
//! refits at every size, the returned network against a fresh fit of that
//! size, the patience rule, the errors.
//!
//! Rounding: growth and a batch refit compute the same ridge solution by
//! different sequences of operations, so their validation scores differ by
//! rounding. Every comparison below derives how far apart they may be from
//! the condition number of the ridge system (`ridge_tolerance` in
//! `common`), and a choice between two sizes whose scores are closer than
//! that is treated as a tie explicitly (see [`Choice`]) rather than by a
//! looser tolerance.

mod common;

use common::{a_b, at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum, U};
use linalg_core::ridge::Strategy;
use models::bls::{Bls, BlsParams, BlsValidParams, IncrementalBls};
use models::elm::{Elm, ElmParams, ElmValidParams, IncrementalElm};
use models::prelude::*;
use models::select::grow::{refit_bls_curve, refit_elm_curve, GrowOptions, Grown, Stop};
use models::select::{Criterion, CurvePoint};
use models::{Activation, InputScale, ModelError, ReadoutSolver};
use ndarray::{Array2, ArrayView2, Axis};

// ---------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------

/// A regression problem: `k` samples of 3 inputs uniform on [−1, 1], one
/// smooth target plus noise of standard deviation 0.1 (so that a large
/// network overfits the training rows).
fn regression(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let x = r.uniform_matrix(k, 3, -1.0, 1.0);
    let y = Array2::from_shape_fn((k, 1), |(i, _)| {
        let v = x.row(i);
        (2.0 * v[0] + v[1]).sin() + v[2] * v[2]
    });
    let noise = r.gaussian(k, 1) * 0.1;
    (x, y + noise)
}

/// A 3-class problem: 2 inputs, Gaussian clusters of standard deviation 0.8
/// around three centres (overlapping), one-hot targets.
fn classification(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let centres = [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]];
    let mut x = r.gaussian(k, 2) * 0.8;
    let mut y = Array2::zeros((k, 3));
    for i in 0..k {
        let c = i % 3;
        x[[i, 0]] += centres[c][0];
        x[[i, 1]] += centres[c][1];
        y[[i, c]] = 1.0;
    }
    (x, y)
}

/// Training and validation samples and targets.
type Split = (Array2<f64>, Array2<f64>, Array2<f64>, Array2<f64>);

/// 150 training and 60 validation rows of `problem` (independent draws).
fn split(problem: fn(u64, usize) -> (Array2<f64>, Array2<f64>), seed: u64) -> Split {
    split_rows(problem, seed, 150)
}

/// `k` training and 60 validation rows of `problem` (independent draws).
fn split_rows(problem: fn(u64, usize) -> (Array2<f64>, Array2<f64>), seed: u64, k: usize) -> Split {
    let (x, y) = problem(seed, k);
    let (xv, yv) = problem(seed + 1000, 60);
    (x, y, xv, yv)
}

// ---------------------------------------------------------------------------
// Rounding bounds and ties
// ---------------------------------------------------------------------------

/// How far the validation predictions of two computations of the ridge
/// weights of the same network may be apart, and what that means for the
/// score.
///
/// Weights: `W = (AᵀA + λI)⁻¹AᵀY` on the training outputs `A` (K×l). Each
/// computation is backward stable through the normal equations, so
/// (first-order perturbation of `RW = AᵀY`, `R = AᵀA + λI`, perturbed by
/// `γ‖A‖²`, `γ = (K + l)u`) its error is
/// `‖δW‖ ≤ γ(κ(R)‖W‖ + ‖R⁻¹‖‖A‖‖Y‖)` — `‖δW‖/‖W‖ ≲ c·l·ε·κ` — and the
/// errors of the `steps` computations involved (every update of a grown
/// solver, the batch solve) add: `common::ridge_tolerance(A, Y, W, λ,
/// steps, 1)`.
///
/// Predictions `P = A_val W` (K_val×M): `‖δP‖_F ≤ ‖A_val‖₂‖δW‖_F`, plus the
/// rounding of the products themselves (`A_val` computed from other column
/// blocks, then `A_val W`): `≤ 2(l + N + 2)u‖A_val‖_F‖W‖_F`. That bound `d`
/// also bounds every entry of `δP`.
///
/// Scores: for the mean squared error over K_val·M entries with residual
/// `R = P − T`, `|δs| ≤ (2‖R‖_F d + d²)/(K_val M)`. For the classification
/// error only the rows whose two largest outputs are within `2d` can change
/// class: `|δs| ≤ (number of such rows)/K_val` (0 if there are none: the
/// scores are then equal exactly).
struct Bound {
    /// The bound `d` on `‖δP‖_F`.
    prediction: f64,
    /// The bound on `|δs|`.
    score: f64,
}

#[allow(clippy::too_many_arguments)]
fn bound(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    w: ArrayView2<'_, f64>,
    lambda: f64,
    steps: usize,
    a_val: ArrayView2<'_, f64>,
    pred: ArrayView2<'_, f64>,
    targets: ArrayView2<'_, f64>,
    n_inputs: usize,
    criterion: Criterion,
) -> Bound {
    let tol_w = ridge_tolerance(a, y, w, lambda, steps, 1);
    let l = a.ncols();
    let d = spectrum(a_val).norm_a * tol_w + 2.0 * (l + n_inputs + 2) as f64 * U * fro(a_val) * fro(w);
    let (k, m) = targets.dim();
    let score = match criterion {
        Criterion::MeanSquaredError => {
            let r = fro_diff(pred, targets);
            (2.0 * r * d + d * d) / (k * m) as f64
        }
        Criterion::ClassificationError => {
            let close = pred
                .rows()
                .into_iter()
                .filter(|row| {
                    let mut v: Vec<f64> = row.to_vec();
                    v.sort_by(|p, q| q.total_cmp(p));
                    v[0] - v[1] <= 2.0 * d
                })
                .count();
            close as f64 / k as f64
        }
    };
    Bound { prediction: d, score }
}

/// The size a curve of reference scores chooses, or the sizes it may choose
/// when two scores are within their rounding bounds (a tie).
#[derive(Debug, PartialEq)]
enum Choice {
    /// The first lowest reference score beats every earlier one by more
    /// than both bounds and is not beaten by any later one within them:
    /// any computation within the bounds chooses this index.
    Certain(usize),
    /// A near tie: the indices a computation within the bounds might choose
    /// (every index whose lowest possible score is at most the lowest
    /// highest possible score).
    Tie(Vec<usize>),
}

fn choice(scores: &[f64], bounds: &[f64]) -> Choice {
    let b = (0..scores.len()).fold(0, |b, i| if scores[i] < scores[b] { i } else { b });
    let hi = |i: usize| scores[i] + bounds[i];
    let lo = |i: usize| scores[i] - bounds[i];
    let certain = (0..b).all(|i| hi(b) < lo(i)) && (b + 1..scores.len()).all(|i| hi(b) <= lo(i));
    if certain {
        Choice::Certain(b)
    } else {
        let min_hi = (0..scores.len()).map(hi).fold(f64::INFINITY, f64::min);
        Choice::Tie((0..scores.len()).filter(|&i| lo(i) <= min_hi).collect())
    }
}

/// The grown curve's sizes equal the reference sizes, every grown score is
/// within its bound of the reference score, and the size chosen is the one
/// the reference scores choose (or, on a near tie, one of those they may
/// choose). Returns whether the choice was certain.
fn assert_same_choice<M>(what: &str, grown: &Grown<M>, sizes: &[usize], reference: &[f64], bounds: &[f64]) -> bool {
    let grown_sizes: Vec<usize> = grown.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(grown_sizes, sizes, "{what}: sizes");
    for (i, p) in grown.curve.iter().enumerate() {
        assert!(
            (p.score - reference[i]).abs() <= bounds[i],
            "{what}: at {} nodes the grown score {} is not within {} of the refit's {}",
            p.nodes,
            p.score,
            bounds[i],
            reference[i]
        );
        assert_eq!(p.spread, 0.0, "{what}");
    }
    let chosen = sizes
        .iter()
        .position(|&n| n == grown.nodes)
        .expect("the chosen size is on the curve");
    assert_eq!(grown.score, grown.curve[chosen].score, "{what}");
    match choice(reference, bounds) {
        Choice::Certain(b) => {
            assert_eq!(grown.nodes, sizes[b], "{what}: refits choose {} nodes", sizes[b]);
            true
        }
        Choice::Tie(candidates) => {
            let tied: Vec<usize> = candidates.iter().map(|&i| sizes[i]).collect();
            eprintln!(
                "{what}: near tie between the sizes {tied:?}; growth chose {}",
                grown.nodes
            );
            assert!(
                candidates.contains(&chosen),
                "{what}: {chosen} not among the tied {candidates:?}"
            );
            false
        }
    }
}

/// `nodes` after every point of the patience rule with fixed steps
/// (growth 0): the start and one size per append of `step`, capped at
/// `max_nodes`.
fn schedule(start: usize, step: usize, max_nodes: usize) -> Vec<usize> {
    let mut sizes = vec![start];
    while let Some(&n) = sizes.last() {
        if n >= max_nodes {
            break;
        }
        sizes.push((n + step).min(max_nodes));
    }
    sizes
}

/// The curve is consistent with the patience rule: stopped by patience
/// exactly `patience` appends after its first lowest score (every later
/// score not lower), or by reaching `max_nodes` with fewer appends since.
fn assert_patience_rule(what: &str, curve: &[CurvePoint], stop: Stop, opts: &GrowOptions) {
    let b = (0..curve.len()).fold(0, |b, i| if curve[i].score < curve[b].score { i } else { b });
    let since = curve.len() - 1 - b;
    match stop {
        Stop::Patience => assert_eq!(since, opts.patience, "{what}: points after the best"),
        Stop::MaxNodes => {
            assert_eq!(curve.last().map(|p| p.nodes), Some(opts.max_nodes), "{what}");
            assert!(since < opts.patience, "{what}: patience ran out before max_nodes");
        }
    }
}

// ---------------------------------------------------------------------------
// ELM
// ---------------------------------------------------------------------------

fn elm_params(start: usize, lambda: f64, solver: ReadoutSolver, seed: u64) -> ElmValidParams {
    ElmParams::new(start, Activation::Sigmoid)
        .with_lambda(lambda)
        .with_solver(solver)
        .with_seed(seed)
        .check()
        .expect("valid params")
}

/// An incremental ELM started from `params` and grown by the schedule's
/// steps to `nodes`.
fn elm_grown_to(
    params: &ElmValidParams,
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    step: usize,
    nodes: usize,
) -> IncrementalElm {
    let mut inc = IncrementalElm::start(params, &Dataset::new(x, y)).expect("start");
    while inc.nodes() < nodes {
        inc.add_nodes(step.min(nodes - inc.nodes())).expect("append");
    }
    inc
}

/// Test 1 and 2 for the ELM on one problem: growth against a fresh batch
/// `ElmParams` fit at every size growth tried.
fn check_elm(what: &str, data: &Split, criterion: Criterion, lambda: f64) -> bool {
    let (x, y, xv, yv) = data;
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let params = elm_params(2, lambda, ReadoutSolver::Ridge, 11);
    let opts = GrowOptions::new(4, 3, 140, criterion).with_growth(0.0);
    let grown = params.grow_until_val(&train, &val, &opts).expect("grow");
    let sizes: Vec<usize> = grown.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(sizes, schedule(2, 4, 140)[..sizes.len()], "{what}: the schedule");
    assert_patience_rule(what, &grown.curve, grown.stop, &opts);
    // The data is chosen so that the network overfits before 140 nodes:
    // the best size is then `patience` appends before the last, which the
    // mutation check below relies on.
    assert_eq!(grown.stop, Stop::Patience, "{what}: {:?}", grown.curve);
    assert!(grown.curve.iter().all(|p| p.lambda == lambda));

    // Brute force: a fresh batch fit at every size, scored on `val`.
    let mut reference = Vec::new();
    let mut bounds = Vec::new();
    let mut fits: Vec<Elm> = Vec::new();
    for &n in &sizes {
        let elm = ElmParams::new(n, Activation::Sigmoid)
            .with_lambda(lambda)
            .with_seed(11)
            .fit(&train)
            .expect("batch fit");
        let pred = elm.predict(xv.view()).expect("predict");
        reference.push(criterion.score(pred.view(), yv.view()).expect("score"));
        let a = elm.hidden_outputs(x.view()).expect("A");
        let a_val = elm.hidden_outputs(xv.view()).expect("A_val");
        // D-Rdg re-solves at every update: one solve each side.
        let b = bound(
            a.view(),
            y.view(),
            elm.output_weights(),
            lambda,
            2,
            a_val.view(),
            pred.view(),
            yv.view(),
            x.ncols(),
            criterion,
        );
        bounds.push(b.score);
        fits.push(elm);
    }
    let certain = assert_same_choice(what, &grown, &sizes, &reference, &bounds);

    // The refit curve on the same sizes is exactly the brute force (the same
    // batch fits), and chooses as it does.
    let last = *sizes.last().expect("a point");
    let refit = refit_elm_curve(
        &params,
        &train,
        &val,
        &GrowOptions {
            max_nodes: last,
            ..opts
        },
    )
    .expect("refit");
    let refit_scores: Vec<f64> = refit.curve.iter().map(|p| p.score).collect();
    assert_eq!(refit_scores, reference, "{what}: refit scores");
    assert_eq!(refit.stop, Stop::MaxNodes);
    let b = (0..reference.len()).fold(0, |b, i| if reference[i] < reference[b] { i } else { b });
    assert_eq!(refit.nodes, sizes[b]);
    assert_eq!(refit.model, fits[b]);

    // Test 2: the model returned is the network of its size.
    let best = grown.nodes;
    let i = sizes.iter().position(|&n| n == best).expect("on the curve");
    let batch = &fits[i];
    // Mutation check: were the snapshot taken at the last size instead of
    // the best one, the model would have `last` ≠ `best` nodes (growth
    // stopped by patience, asserted above): the next three assertions fail.
    assert_eq!(grown.model.nodes(), best, "{what}");
    assert_eq!(
        grown.model.hidden(),
        batch.hidden(),
        "{what}: the hidden layer of a batch ELM of {best} nodes"
    );
    let fresh = elm_grown_to(&params, x.view(), y.view(), opts.step, best);
    assert_eq!(
        grown.model,
        fresh.to_elm(),
        "{what}: bitwise the ELM grown the same way to {best} nodes"
    );
    assert_eq!(grown.model.solver(), ReadoutSolver::Strategy(Strategy::DRdg));
    assert_eq!(grown.model.lambda(), lambda);
    // Predictions against the fresh batch fit: within `d` of `bound`
    // (‖δP‖ ≤ ‖A_val‖‖δW‖ + product rounding).
    let pred = grown.model.predict(xv.view()).expect("predict");
    let batch_pred = batch.predict(xv.view()).expect("predict");
    let a = batch.hidden_outputs(x.view()).expect("A");
    let a_val = batch.hidden_outputs(xv.view()).expect("A_val");
    let d = bound(
        a.view(),
        y.view(),
        batch.output_weights(),
        lambda,
        2,
        a_val.view(),
        batch_pred.view(),
        yv.view(),
        x.ncols(),
        criterion,
    )
    .prediction;
    let diff = fro_diff(pred.view(), batch_pred.view());
    assert!(diff <= d, "{what}: predictions differ by {diff} > {d}");
    eprintln!(
        "{what}: best {best} of {sizes:?}, stop {:?}, {:.3} s growing, {:.3} s refitting",
        grown.stop, grown.seconds, refit.seconds
    );
    certain
}

#[test]
fn elm_growth_chooses_the_size_refits_choose_and_returns_that_network() {
    let mut certain = 0;
    certain += usize::from(check_elm(
        "ELM regression",
        &split(regression, 1),
        Criterion::MeanSquaredError,
        1e-3,
    ));
    certain += usize::from(check_elm(
        "ELM classification",
        &split(classification, 2),
        Criterion::ClassificationError,
        1e-3,
    ));
    certain += usize::from(check_elm(
        "ELM classification by MSE",
        &split(classification, 3),
        Criterion::MeanSquaredError,
        1e-3,
    ));
    // Not every case may be a near tie, or the comparison of choices says nothing.
    assert!(certain >= 2, "only {certain} of the 3 choices were free of near ties");
}

// ---------------------------------------------------------------------------
// BLS
// ---------------------------------------------------------------------------

/// λ of the BLS tests: large enough for a condition number whose rounding
/// bounds leave the choices free of near ties (at 1e-5 every choice was one).
const BLS_LAMBDA: f64 = 1e-3;
/// Training rows of the BLS tests: with 150 the BLS at λ = 1e-3 kept
/// improving up to 150 nodes; with 60 it overfits early enough for patience
/// to stop it (which the mutation check needs).
const ROWS: usize = 60;

fn bls_params(seed: u64) -> BlsValidParams {
    BlsParams::new(2, 4, 6)
        .with_lambda(BLS_LAMBDA)
        .with_strategy(Strategy::Chol2)
        .with_seed(seed)
        .check()
        .expect("valid params")
}

/// Test 1 and 2 for the BLS on one problem: growth against a batch ridge
/// solve (the test's own Gaussian elimination on `AᵀA + λI`) on the network
/// of every size growth tried. The maps of the network of a size come from
/// a fresh `IncrementalBls` started from the same parameters and grown by
/// the same steps (its weights are not used); a `BlsParams` network with
/// more enhancement nodes in its initial group would be another network.
fn check_bls(what: &str, data: &Split, criterion: Criterion) -> bool {
    let (x, y, xv, yv) = data;
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let params = bls_params(5);
    let start = params.initial_nodes();
    let opts = GrowOptions::new(4, 3, 150, criterion).with_growth(0.0);
    let grown = params.grow_until_val(&train, &val, &opts).expect("grow");
    let sizes: Vec<usize> = grown.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(sizes, schedule(start, 4, 150)[..sizes.len()], "{what}: the schedule");
    assert_patience_rule(what, &grown.curve, grown.stop, &opts);
    assert_eq!(grown.stop, Stop::Patience, "{what}: {:?}", grown.curve);
    assert!(grown.curve.iter().all(|p| p.lambda == BLS_LAMBDA));

    let mut maps = IncrementalBls::start(&params, x.clone(), y.clone()).expect("start");
    let mut reference = Vec::new();
    let mut bounds = Vec::new();
    let mut predictions = Vec::new();
    for (appends, &n) in sizes.iter().enumerate() {
        if n > maps.nodes() {
            maps.add_enhancement(n - maps.nodes()).expect("append");
        }
        let a = maps.hidden_outputs(x.view()).expect("A");
        let mut s = at_b(a.view(), a.view());
        s.diag_mut().mapv_inplace(|v| v + BLS_LAMBDA);
        let w = gauss_solve(s.view(), at_b(a.view(), y.view()).view());
        let a_val = maps.hidden_outputs(xv.view()).expect("A_val");
        let pred = a_b(a_val.view(), w.view());
        reference.push(criterion.score(pred.view(), yv.view()).expect("score"));
        // Chol-2's start and every append, and the test's solve.
        let b = bound(
            a.view(),
            y.view(),
            w.view(),
            BLS_LAMBDA,
            appends + 2,
            a_val.view(),
            pred.view(),
            yv.view(),
            x.ncols(),
            criterion,
        );
        bounds.push(b.score);
        predictions.push((pred, b.prediction));
    }
    let certain = assert_same_choice(what, &grown, &sizes, &reference, &bounds);

    // The refit curve: the same networks built from scratch, solved in one
    // batch; within the same bounds of the reference, the same choice.
    let last = *sizes.last().expect("a point");
    let refit = refit_bls_curve(
        &params,
        &train,
        &val,
        &GrowOptions {
            max_nodes: last,
            ..opts
        },
    )
    .expect("refit");
    let refit_certain = assert_same_choice(&format!("{what} (refit)"), &refit, &sizes, &reference, &bounds);
    assert_eq!(refit.stop, Stop::MaxNodes);
    if certain && refit_certain {
        assert_eq!(refit.nodes, grown.nodes, "{what}");
    }
    let maps_at = |n: usize| {
        let mut inc = IncrementalBls::start(&params, x.clone(), y.clone()).expect("start");
        while inc.nodes() < n {
            inc.add_enhancement(opts.step.min(n - inc.nodes())).expect("append");
        }
        inc
    };
    assert_eq!(
        refit.model.expansion(),
        maps_at(refit.nodes).expansion(),
        "{what}: the refit's maps"
    );

    // Test 2: the model returned is the network of its size. Mutation check:
    // a snapshot at the last size (≠ the best: stopped by patience) would
    // fail the node count and the bitwise comparison.
    let best = grown.nodes;
    assert_eq!(grown.model.nodes(), best, "{what}");
    let fresh = maps_at(best);
    assert_eq!(
        grown.model,
        fresh.to_bls(),
        "{what}: bitwise the BLS grown the same way to {best} nodes"
    );
    if best == start {
        let batch: Bls = params.fit(&train).expect("batch fit");
        assert_eq!(grown.model, batch, "{what}: the batch BLS of the start structure");
    }
    let i = sizes.iter().position(|&n| n == best).expect("on the curve");
    let (batch_pred, d) = &predictions[i];
    let diff = fro_diff(
        grown.model.predict(xv.view()).expect("predict").view(),
        batch_pred.view(),
    );
    assert!(
        diff <= *d,
        "{what}: predictions differ from the batch ridge solution's by {diff} > {d}"
    );
    eprintln!(
        "{what}: best {best} of {sizes:?}, {:.3} s growing, {:.3} s refitting",
        grown.seconds, refit.seconds
    );
    certain
}

#[test]
fn bls_growth_chooses_the_size_refits_choose_and_returns_that_network() {
    let mut certain = 0;
    certain += usize::from(check_bls(
        "BLS regression",
        &split_rows(regression, 4, ROWS),
        Criterion::MeanSquaredError,
    ));
    certain += usize::from(check_bls(
        "BLS classification",
        &split_rows(classification, 5, ROWS),
        Criterion::ClassificationError,
    ));
    assert!(certain >= 1, "every choice was a near tie");
}

// ---------------------------------------------------------------------------
// Patience and max_nodes
// ---------------------------------------------------------------------------

/// A curve whose minimum comes early: 20 training rows, λ = 1e-8, so that
/// past about 20 nodes the network interpolates the noisy training rows and
/// the validation error grows. Growth with patience `p` stops exactly `p`
/// appends after its best point, and its curve is the prefix of the curve
/// grown with no effective patience (bitwise: the same operations), cut
/// where the rule applied to that long curve says.
#[test]
fn patience_stops_exactly_patience_appends_after_the_best() {
    let (x, y) = regression(7, 20);
    let (xv, yv) = regression(8, 60);
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let params = elm_params(1, 1e-8, ReadoutSolver::Ridge, 3);
    let long_opts = GrowOptions::new(3, 1000, 61, Criterion::MeanSquaredError).with_growth(0.0);
    let long = params.grow_until_val(&train, &val, &long_opts).expect("grow");
    assert_eq!(long.stop, Stop::MaxNodes);
    let all: Vec<usize> = long.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(all, schedule(1, 3, 61));
    for patience in 1..=4 {
        let opts = GrowOptions { patience, ..long_opts };
        let short = params.grow_until_val(&train, &val, &opts).expect("grow");
        // The rule applied to the long curve: the first point at which
        // `patience` appends in a row brought no improvement.
        let (mut best, mut since, mut end) = (0, 0, None);
        for i in 1..long.curve.len() {
            if long.curve[i].score < long.curve[best].score {
                best = i;
                since = 0;
            } else {
                since += 1;
            }
            if since == patience {
                end = Some(i);
                break;
            }
        }
        let end = end.expect("the minimum comes early: patience runs out before 61 nodes");
        assert_eq!(short.stop, Stop::Patience, "patience {patience}");
        assert_eq!(short.curve.len(), best + patience + 1, "patience {patience}");
        assert_eq!(short.curve.len(), end + 1);
        assert_eq!(
            short.curve[..],
            long.curve[..=end],
            "patience {patience}: a prefix of the long curve"
        );
        assert_eq!(short.nodes, long.curve[best].nodes);
        assert!(
            best < 20 / 3,
            "the minimum comes before the network interpolates the 20 rows"
        );
    }
}

/// The schedule: fixed steps with growth 0; with growth g, at least
/// `⌈g·n⌉` nodes per append (sizes listed by hand); growth and refits
/// follow it.
#[test]
fn the_step_grows_with_the_size() {
    let fixed = GrowOptions::new(3, 2, 20, Criterion::MeanSquaredError).with_growth(0.0);
    assert_eq!(fixed.sizes(5).collect::<Vec<_>>(), vec![5, 8, 11, 14, 17, 20]);
    let half = GrowOptions::new(1, 2, 40, Criterion::MeanSquaredError).with_growth(0.5);
    assert_eq!(half.sizes(4).collect::<Vec<_>>(), vec![4, 6, 9, 14, 21, 32, 40]);
    let tenth = GrowOptions::new(10, 2, 1000, Criterion::MeanSquaredError);
    let sizes: Vec<usize> = tenth.sizes(10).collect();
    // 10 at a time up to 100, then 10%: 110, 121, 134, 148, …
    assert_eq!(
        &sizes[..14],
        &[10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 121, 134, 148]
    );
    assert_eq!(&sizes[28..], &[630, 693, 763, 840, 924, 1000]);
    let (x, y, xv, yv) = split(regression, 12);
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let params = elm_params(4, 1e-2, ReadoutSolver::Ridge, 1);
    let long = GrowOptions::new(1, 1000, 40, Criterion::MeanSquaredError).with_growth(0.5);
    let grown = params.grow_until_val(&train, &val, &long).expect("grow");
    let refit = refit_elm_curve(&params, &train, &val, &long).expect("refit");
    for curve in [&grown.curve, &refit.curve] {
        assert_eq!(
            curve.iter().map(|p| p.nodes).collect::<Vec<_>>(),
            vec![4, 6, 9, 14, 21, 32, 40]
        );
    }
}

/// `max_nodes` off the schedule: the last append is shorter and growth
/// never goes past it; `max_nodes` equal to the start: the start alone.
#[test]
fn max_nodes_is_reached_and_never_exceeded() {
    let (x, y, xv, yv) = split(regression, 9);
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let params = elm_params(2, 1e-2, ReadoutSolver::Ridge, 1);
    let opts = GrowOptions::new(4, 100, 23, Criterion::MeanSquaredError);
    let grown = params.grow_until_val(&train, &val, &opts).expect("grow");
    assert_eq!(grown.stop, Stop::MaxNodes);
    let sizes: Vec<usize> = grown.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(sizes, vec![2, 6, 10, 14, 18, 22, 23]);
    let refit = refit_elm_curve(&params, &train, &val, &opts).expect("refit");
    assert_eq!(refit.curve.iter().map(|p| p.nodes).collect::<Vec<_>>(), sizes);
    assert_eq!(refit.stop, Stop::MaxNodes);

    let bls = bls_params(2);
    let start = bls.initial_nodes();
    let opts = GrowOptions::new(5, 100, start + 12, Criterion::MeanSquaredError);
    let grown = bls.grow_until_val(&train, &val, &opts).expect("grow");
    assert_eq!(grown.stop, Stop::MaxNodes);
    let sizes: Vec<usize> = grown.curve.iter().map(|p| p.nodes).collect();
    assert_eq!(sizes, vec![start, start + 5, start + 10, start + 12]);
    let refit = refit_bls_curve(&bls, &train, &val, &opts).expect("refit");
    assert_eq!(refit.curve.iter().map(|p| p.nodes).collect::<Vec<_>>(), sizes);

    let only_start = GrowOptions::new(4, 1, 2, Criterion::MeanSquaredError);
    let grown = params.grow_until_val(&train, &val, &only_start).expect("grow");
    assert_eq!((grown.stop, grown.curve.len(), grown.nodes), (Stop::MaxNodes, 1, 2));
    assert_eq!(
        grown.model.hidden(),
        ElmParams::new(2, Activation::Sigmoid)
            .with_lambda(1e-2)
            .with_seed(1)
            .fit(&train)
            .expect("fit")
            .hidden()
    );
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

fn invalid_parameter<T: std::fmt::Debug>(r: Result<T, ModelError>) -> &'static str {
    match r {
        Err(ModelError::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

fn shape<T: std::fmt::Debug>(r: Result<T, ModelError>) -> &'static str {
    match r {
        Err(ModelError::Linalg(linalg_core::Error::Shape { what, .. })) => what,
        other => panic!("expected a shape error, got {other:?}"),
    }
}

#[test]
fn invalid_options_and_data_are_named() {
    let (x, y, xv, yv) = split(regression, 10);
    let (train, val) = (Dataset::new(x.view(), y.view()), Dataset::new(xv.view(), yv.view()));
    let elm = elm_params(5, 1e-2, ReadoutSolver::Ridge, 1);
    let bls = bls_params(1);
    let ok = GrowOptions::new(2, 2, 30, Criterion::MeanSquaredError);
    let cases = [
        ("step", GrowOptions { step: 0, ..ok }),
        ("patience", GrowOptions { patience: 0, ..ok }),
        ("max_nodes", GrowOptions { max_nodes: 4, ..ok }),
        ("growth", ok.with_growth(-0.1)),
        ("growth", ok.with_growth(f64::NAN)),
        ("growth", ok.with_growth(10.5)),
    ];
    for (name, opts) in cases {
        assert_eq!(invalid_parameter(elm.grow_until_val(&train, &val, &opts)), name);
        assert_eq!(invalid_parameter(refit_elm_curve(&elm, &train, &val, &opts)), name);
        assert_eq!(invalid_parameter(bls.grow_until_val(&train, &val, &opts)), name);
        assert_eq!(invalid_parameter(refit_bls_curve(&bls, &train, &val, &opts)), name);
    }
    let wide = ndarray::concatenate![Axis(1), xv, xv.column(0).insert_axis(Axis(1))];
    let two_outputs = ndarray::concatenate![Axis(1), yv, yv];
    let bad_inputs = Dataset::new(wide.view(), yv.view());
    let bad_outputs = Dataset::new(xv.view(), two_outputs.view());
    for (what, val) in [
        ("validation samples X", bad_inputs),
        ("validation targets Y", bad_outputs),
    ] {
        assert_eq!(shape(elm.grow_until_val(&train, &val, &ok)), what);
        assert_eq!(shape(refit_elm_curve(&elm, &train, &val, &ok)), what);
        assert_eq!(shape(bls.grow_until_val(&train, &val, &ok)), what);
        assert_eq!(shape(refit_bls_curve(&bls, &train, &val, &ok)), what);
    }
    // Least squares has no incremental form; its batch refits do exist.
    let lstsq = elm_params(5, 1e-2, ReadoutSolver::Lstsq, 1);
    assert_eq!(invalid_parameter(lstsq.grow_until_val(&train, &val, &ok)), "solver");
    assert!(refit_elm_curve(&lstsq, &train, &val, &ok).is_ok());
}

/// A strategy's breakdown during growth is returned, not swallowed: Exg-E
/// at λ = 1e-12 on hardlim nodes of one input in [0, 0.02) meets an
/// all-zero node (as in the ELM tests) and fails with NotPositiveDefinite.
#[test]
fn a_strategy_error_during_growth_is_returned() {
    let x = Array2::from_shape_fn((20, 1), |(i, _)| i as f64 / 1000.0);
    let y = x.mapv(|v| v * 2.0 + 1.0);
    let params = ElmParams::new(2, Activation::Hardlim)
        .with_lambda(1e-12)
        .with_solver(ReadoutSolver::Strategy(Strategy::ExgE))
        .with_seed(1)
        .with_input_scale(InputScale::Fixed(1.0))
        .check()
        .expect("valid params");
    let data = Dataset::new(x.view(), y.view());
    let opts = GrowOptions::new(1, 1000, 14, Criterion::MeanSquaredError);
    match params.grow_until_val(&data, &data, &opts) {
        Err(ModelError::Linalg(linalg_core::Error::NotPositiveDefinite {
            strategy: Strategy::ExgE,
            ..
        })) => {}
        other => panic!("expected Exg-E's NotPositiveDefinite, got {other:?}"),
    }
}
