//! The objective (3) and its gradients against finite differences and
//! against each other; the trainers against hand-computed steps and the
//! paper's acceptance rules.

use std::ops::ControlFlow;
use std::time::Duration;

use ndarray::Array2;
use optim::objective::gradient_error;
use optim::{Objective, Termination};

use super::*;

fn data(p: usize, n: usize, m: usize) -> (Array2<f64>, Array2<f64>) {
    let x = Array2::from_shape_fn((p, n), |(i, j)| (((i * (2 * j + 3) + j) % 17) as f64) / 8.0 - 1.0);
    let y = Array2::from_shape_fn((p, m), |(i, q)| (x[[i, 0]] * (q as f64 + 1.0) + x[[i, n - 1]]).sin());
    (x, y)
}

fn go(_: &Progress) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// Full gradient against central differences, for one to four layers, one
/// or two outputs, with and without biases (a wrong sign or a missing term
/// is O(1)).
#[test]
fn full_gradient_matches_finite_differences() {
    for bias in [Bias::Every, Bias::None] {
        for widths in [vec![1], vec![5, 2], vec![4, 3, 1], vec![3, 4, 3, 2]] {
            let (x, y) = data(30, 3, *widths.last().unwrap());
            let net = Dfnn::random(3, &widths, bias, 7, 0.8).unwrap();
            let obj = Objective3::new(x.view(), y.view(), 1e-2).unwrap();
            let mut full = FullObjective::new(obj, net.weights());
            let z = FullObjective::flatten(net.weights());
            let e = gradient_error(&mut full, &z);
            assert!(e < 1e-8, "{widths:?} {bias:?}: gradient error {e:e}");
            // The value is (3) written out from predict.
            let out = net.predict(x.view()).unwrap();
            let direct = (&out - &y).mapv(|v| v * v).sum() / 30.0 + 1e-2 * z.iter().map(|v| v * v).sum::<f64>();
            assert!((full.value(&z) - direct).abs() <= 1e-13 * direct);
        }
    }
}

/// Each layer's block objective has the same value as the full objective
/// and its gradient is the full gradient's block; the backward pass that
/// stops at the layer changes nothing below it.
#[test]
fn block_gradients_are_blocks_of_the_full_gradient() {
    let (x, y) = data(40, 4, 2);
    let net = Dfnn::random(4, &[6, 5, 4, 2], Bias::Every, 3, 0.7).unwrap();
    let obj = Objective3::new(x.view(), y.view(), 1e-3).unwrap();
    let mut full = FullObjective::new(obj, net.weights());
    let z = FullObjective::flatten(net.weights());
    let mut g = vec![0.0; z.len()];
    let fz = full.value_and_gradient(&z, &mut g);
    let mut at = 0;
    for l in 0..4 {
        let mut weights = net.weights().to_vec();
        let mut ws = obj.workspace(&weights);
        obj.forward(&weights, &mut ws);
        let mut scratch = weights[l].clone();
        let mut block = BlockObjective::new(obj, &mut weights, &mut ws, &mut scratch, l);
        let wl: Vec<f64> = net.weights()[l].iter().copied().collect();
        let mut gl = vec![0.0; wl.len()];
        let v = block.value_and_gradient(&wl, &mut gl);
        assert!((v - fz).abs() <= 1e-14 * fz, "layer {l}: {v} vs {fz}");
        for (a, b) in gl.iter().zip(&g[at..at + wl.len()]) {
            assert!((a - b).abs() <= 1e-13 * b.abs().max(1e-3), "layer {l}: {a} vs {b}");
        }
        assert!(gradient_error(&mut block, &wl) < 1e-8);
        at += wl.len();
        // The stopped backward pass leaves the blocks below untouched.
        let mut ws = obj.workspace(net.weights());
        obj.forward(net.weights(), &mut ws);
        let mut grads: Vec<Array2<f64>> = net
            .weights()
            .iter()
            .map(|w| Array2::from_elem(w.dim(), f64::NAN))
            .collect();
        obj.gradient(net.weights(), &mut ws, l, &mut grads);
        for (k, gk) in grads.iter().enumerate() {
            assert_eq!(gk.iter().all(|v| v.is_nan()), k < l, "layer {l}, block {k}");
        }
        // block_gradient forms exactly that block.
        let mut only = Array2::zeros(net.weights()[l].dim());
        obj.block_gradient(net.weights(), &mut ws, l, &mut only);
        assert_eq!(only, grads[l]);
    }
}

#[test]
fn bad_shapes_and_parameters_are_errors() {
    assert!(Dfnn::random(0, &[3], Bias::Every, 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[], Bias::Every, 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[3, 0], Bias::Every, 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[3], Bias::Every, 0, f64::NAN).is_err());
    let net = Dfnn::random(2, &[3, 1], Bias::Every, 0, 1.0).unwrap();
    assert_eq!((net.n_inputs(), net.n_outputs(), net.n_weights()), (2, 1, 3 * 3 + 4));
    let plain = Dfnn::random(2, &[3, 1], Bias::None, 0, 1.0).unwrap();
    assert_eq!((plain.n_inputs(), plain.n_weights()), (2, 3 * 2 + 3));
    assert!(net.predict(Array2::zeros((4, 3)).view()).is_err());
    let (x, y) = data(5, 2, 1);
    assert!(Objective3::new(x.view(), y.view(), -1.0).is_err());
    assert!(Objective3::new(x.view(), Array2::zeros((4, 1)).view(), 0.0).is_err());
    let mut net = net;
    let bad = B2ld {
        accuracy_factor: 1.0,
        ..B2ld::default()
    };
    assert!(net.fit(x.view(), y.view(), 0.0, &DfnnTrainer::B2ld(bad), go).is_err());
    let mut ig = Incremental::new(IncrementalKind::Ig);
    ig.batch_size = 0;
    assert!(net
        .fit(x.view(), y.view(), 0.0, &DfnnTrainer::Incremental(ig), go)
        .is_err());
    assert!(net
        .fit(
            x.view(),
            Array2::zeros((5, 2)).view(),
            0.0,
            &DfnnTrainer::Lbfgs(FullLbfgs::default()),
            go
        )
        .is_err());
}

/// One BLInG minibatch on a two-layer network, recomputed by hand from the
/// (finite-difference checked) full gradient: the output layer steps first
/// along its normalized negative block gradient, then the first layer
/// along its block gradient *at the updated output layer*. IG's step is
/// the normalized full gradient at the start. A wrong order, a stale
/// activation or a wrong normalization changes the weights at O(α).
#[test]
fn one_minibatch_of_bling_and_ig_by_hand() {
    let (x, y) = data(12, 3, 2);
    let net = Dfnn::random(3, &[4, 2], Bias::Every, 5, 0.9).unwrap();
    let rho = 1e-3;
    let obj = Objective3::new(x.view(), y.view(), rho).unwrap();
    let grad_at = |w: &[Array2<f64>]| {
        let mut full = FullObjective::new(obj, w);
        let z = FullObjective::flatten(w);
        let mut g = vec![0.0; z.len()];
        full.value_and_gradient(&z, &mut g);
        let mut blocks = w.to_vec();
        FullObjective::unflatten(&g, &mut blocks);
        blocks
    };
    let norm = |a: &Array2<f64>| a.mapv(|v| v * v).sum().sqrt();
    let alpha = 0.3;

    // BLInG by hand.
    let mut w = net.weights().to_vec();
    let g = grad_at(&w);
    w[1] = &w[1] - &(&g[1] * (alpha / norm(&g[1]).clamp(1e-3, 1e6)));
    let g = grad_at(&w);
    w[0] = &w[0] - &(&g[0] * (alpha / norm(&g[0]).clamp(1e-3, 1e6)));
    let mut fitted = net.clone();
    let mut bling = Incremental::new(IncrementalKind::Bling);
    bling.batch_size = 12;
    bling.shuffle = None;
    bling.alpha0 = Some(alpha);
    bling.max_epochs = 1;
    let report = fitted
        .fit(x.view(), y.view(), rho, &DfnnTrainer::Incremental(bling), go)
        .unwrap();
    assert_eq!(report.updates_per_layer, vec![1, 1]);
    for (a, b) in fitted.weights().iter().zip(&w) {
        assert!((a - b).iter().all(|d| d.abs() < 1e-13), "BLInG step differs");
    }

    // IG by hand: one normalized step on all weights.
    let mut w = net.weights().to_vec();
    let g = grad_at(&w);
    let total = g.iter().map(|b| b.mapv(|v| v * v).sum()).sum::<f64>().sqrt();
    for (wl, gl) in w.iter_mut().zip(&g) {
        *wl = &*wl - &(gl * (alpha / total));
    }
    let mut fitted = net.clone();
    let mut ig = Incremental::new(IncrementalKind::Ig);
    ig.batch_size = 12;
    ig.shuffle = None;
    ig.alpha0 = Some(alpha);
    ig.max_epochs = 1;
    fitted
        .fit(x.view(), y.view(), rho, &DfnnTrainer::Incremental(ig), go)
        .unwrap();
    for (a, b) in fitted.weights().iter().zip(&w) {
        assert!((a - b).iter().all(|d| d.abs() < 1e-13), "IG step differs");
    }
}

/// Minibatches: two epochs of 5 unequal minibatches (the last smaller)
/// equal the same steps made one minibatch at a time with the batch's own
/// objective (mean error over its rows + ρ‖w‖²), α shrinking after each.
#[test]
fn minibatches_cover_the_rows_in_order_with_a_diminishing_step() {
    let (x, y) = data(23, 3, 1);
    let net = Dfnn::random(3, &[3, 1], Bias::Every, 9, 0.5).unwrap();
    let rho = 1e-3;
    let mut ig = Incremental::new(IncrementalKind::Ig);
    ig.batch_size = 5;
    ig.max_epochs = 2;
    ig.shuffle = None;
    let mut fitted = net.clone();
    let report = fitted
        .fit(x.view(), y.view(), rho, &DfnnTrainer::Incremental(ig.clone()), go)
        .unwrap();
    assert_eq!(report.iterations, 2);
    assert_eq!(report.updates_per_layer, vec![10, 10]);

    let mut w = net.weights().to_vec();
    let mut alpha = 0.5;
    for _ in 0..2 {
        for s in (0..23).step_by(5) {
            let e = (s + 5).min(23);
            let xb = x.slice_axis(ndarray::Axis(0), ndarray::Slice::from(s..e));
            let yb = y.slice_axis(ndarray::Axis(0), ndarray::Slice::from(s..e));
            let obj = Objective3::new(xb, yb, rho).unwrap();
            let mut full = FullObjective::new(obj, &w);
            let z = FullObjective::flatten(&w);
            let mut g = vec![0.0; z.len()];
            full.value_and_gradient(&z, &mut g);
            let n = g.iter().map(|v| v * v).sum::<f64>().sqrt();
            let z: Vec<f64> = z
                .iter()
                .zip(&g)
                .map(|(a, b)| a - alpha / n.clamp(1e-3, 1e6) * b)
                .collect();
            FullObjective::unflatten(&z, &mut w);
            alpha *= 1.0 - 5e-3 * alpha;
        }
    }
    for (a, b) in fitted.weights().iter().zip(&w) {
        assert!((a - b).iter().all(|d| d.abs() < 1e-13));
    }
}

/// B2LD never increases f (conditions (4)–(5) or the Armijo point), ends
/// with the report's own f and ‖∇f‖ recomputed from the weights, counts
/// updates per layer, and reaches a better point than the start.
#[test]
fn b2ld_decreases_monotonically_and_reports_what_it_did() {
    let (x, y) = data(60, 3, 1);
    let mut net = Dfnn::random(3, &[6, 5, 1], Bias::Every, 11, 0.6).unwrap();
    let rho = net.paper_rho();
    let f0 = {
        let obj = Objective3::new(x.view(), y.view(), rho).unwrap();
        let mut full = FullObjective::new(obj, net.weights());
        full.value(&FullObjective::flatten(net.weights()))
    };
    let mut seen = Vec::new();
    let report = net
        .fit(x.view(), y.view(), rho, &DfnnTrainer::B2ld(B2ld::default()), |p| {
            seen.push(p.objective);
            ControlFlow::Continue(())
        })
        .unwrap();
    assert!(report.objective < 0.5 * f0, "f {} from {f0}", report.objective);
    assert!(report.trace.windows(2).all(|w| w[1].objective <= w[0].objective));
    assert_eq!(seen.len(), report.iterations.min(report.trace.len() - 1));
    assert!(report
        .updates_per_layer
        .iter()
        .all(|&u| u >= 1 && u <= report.iterations));
    let obj = Objective3::new(x.view(), y.view(), rho).unwrap();
    let mut full = FullObjective::new(obj, net.weights());
    let z = FullObjective::flatten(net.weights());
    let mut g = vec![0.0; z.len()];
    let f = full.value_and_gradient(&z, &mut g);
    assert_eq!(f, report.objective);
    assert_eq!(g.iter().map(|v| v * v).sum::<f64>().sqrt(), report.gradient_norm);
    assert!(matches!(
        report.termination,
        Termination::GradientTolerance | Termination::RelativeDecrease
    ));
    if report.termination == Termination::GradientTolerance {
        assert!(report.gradient_norm <= 1e-3);
    }
}

/// The per-cycle reading of the stall rule updates every block in every
/// cycle and stops after a cycle in which all of them stalled; the
/// for-good reading stops updating a stalled block, so it never makes more
/// block updates than the per-cycle one over the same cycles. Both
/// decrease f.
#[test]
fn b2ld_stall_rules_per_cycle_and_for_good() {
    let (x, y) = data(60, 3, 1);
    let fit = |stall: StallRule| {
        let mut net = Dfnn::random(3, &[6, 5, 1], Bias::Every, 11, 0.6).unwrap();
        let rho = net.paper_rho();
        let trainer = B2ld {
            stall,
            relative_decrease: 1e-3,
            gradient_tolerance: 0.0,
            max_cycles: 200,
            ..B2ld::paper()
        };
        net.fit(x.view(), y.view(), rho, &DfnnTrainer::B2ld(trainer), |_| {
            ControlFlow::Continue(())
        })
        .unwrap()
    };
    let per_cycle = fit(StallRule::PerCycle);
    assert_eq!(per_cycle.termination, Termination::RelativeDecrease, "{per_cycle:?}");
    assert!(
        per_cycle.updates_per_layer.iter().all(|&u| u == per_cycle.iterations),
        "every block every cycle: {:?} in {} cycles",
        per_cycle.updates_per_layer,
        per_cycle.iterations
    );
    assert!(per_cycle.trace.windows(2).all(|w| w[1].objective <= w[0].objective));
    let for_good = fit(StallRule::ForGood);
    assert_eq!(for_good.termination, Termination::RelativeDecrease, "{for_good:?}");
    assert!(for_good
        .updates_per_layer
        .iter()
        .all(|&u| u >= 1 && u <= for_good.iterations));
    assert!(
        for_good.updates_per_layer.iter().any(|&u| u < for_good.iterations),
        "a block stalled before the last cycle: {:?} in {} cycles",
        for_good.updates_per_layer,
        for_good.iterations
    );
}

/// The exact last layer is the ridge minimizer of the output block: equal
/// to the normal equations solved by Gaussian elimination (independent of
/// the ridge engine) and with a vanishing block gradient, both to a
/// tolerance from κ(ZᵀZ + PρI) ≤ (Gershgorin bound) / (Pρ).
#[test]
fn exact_last_layer_is_the_block_minimizer() {
    let (x, y) = data(50, 3, 2);
    let rho = 1e-3;
    for bias in [Bias::Every, Bias::None] {
        let net = Dfnn::random(3, &[7, 2], bias, 2, 0.8).unwrap();
        let obj = Objective3::new(x.view(), y.view(), rho).unwrap();
        let mut ws = obj.workspace(net.weights());
        obj.forward(net.weights(), &mut ws);
        let exact = super::b2ld::last_layer_ridge(&obj, &ws, net.weights(), 1).unwrap();

        let cols = net.weights()[1].ncols();
        let mut z = Array2::ones((50, cols));
        z.slice_axis_mut(ndarray::Axis(1), ndarray::Slice::from(..7))
            .assign(&ws.activations()[0]);
        let mut gram = z.t().dot(&z);
        gram.diag_mut().mapv_inplace(|v| v + 50.0 * rho);
        let upper = gram
            .rows()
            .into_iter()
            .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
            .fold(0.0, f64::max);
        let kappa = upper / (50.0 * rho);
        let direct = solve(gram, z.t().dot(&y)).t().to_owned();
        let scale = direct.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let tol = 10.0 * kappa * f64::EPSILON * scale;
        assert!(
            (&exact - &direct).iter().all(|d| d.abs() <= tol),
            "{bias:?}: exact vs direct beyond {tol:e}"
        );

        let mut w = net.weights().to_vec();
        w[1] = exact;
        obj.forward(&w, &mut ws);
        let mut g = Array2::zeros(w[1].dim());
        obj.block_gradient(&w, &mut ws, 1, &mut g);
        let terms = 2.0 / 50.0 * z.t().dot(&y).iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(
            g.iter().all(|v| v.abs() <= 10.0 * kappa * f64::EPSILON * terms),
            "{bias:?}: block gradient {g}"
        );
    }
}

/// With the exact last layer B2LD runs and still never increases f; a
/// time limit stops it.
#[test]
fn b2ld_with_the_exact_last_layer_and_a_time_limit() {
    let (x, y) = data(60, 3, 1);
    let mut net = Dfnn::random(3, &[6, 5, 1], Bias::None, 4, 0.6).unwrap();
    let trainer = B2ld {
        exact_last_layer: true,
        ..B2ld::default()
    };
    let report = net
        .fit(x.view(), y.view(), net.paper_rho(), &DfnnTrainer::B2ld(trainer), go)
        .unwrap();
    assert!(report.trace.windows(2).all(|w| w[1].objective <= w[0].objective));
    let mut net = Dfnn::random(3, &[30, 30, 30, 1], Bias::Every, 4, 0.6).unwrap();
    let (x, y) = data(2000, 3, 1);
    let trainer = B2ld {
        time_limit: Some(Duration::from_millis(50)),
        gradient_tolerance: 0.0,
        relative_decrease: 0.0,
        ..B2ld::paper()
    };
    let report = net
        .fit(x.view(), y.view(), net.paper_rho(), &DfnnTrainer::B2ld(trainer), go)
        .unwrap();
    assert_eq!(report.termination, Termination::TimeLimit);
}

/// The L-BFGS baseline stops by the paper's rules and reports the final
/// state recomputed from the weights; its history never increases.
#[test]
fn full_lbfgs_baseline_reports_its_final_state() {
    let (x, y) = data(60, 3, 1);
    let mut net = Dfnn::random(3, &[6, 5, 1], Bias::Every, 11, 0.6).unwrap();
    let rho = net.paper_rho();
    let report = net
        .fit(x.view(), y.view(), rho, &DfnnTrainer::Lbfgs(FullLbfgs::default()), go)
        .unwrap();
    assert!(report.trace.windows(2).all(|w| w[1].objective <= w[0].objective));
    assert!(matches!(
        report.termination,
        Termination::GradientTolerance | Termination::RelativeDecrease
    ));
    let obj = Objective3::new(x.view(), y.view(), rho).unwrap();
    let mut full = FullObjective::new(obj, net.weights());
    assert_eq!(full.value(&FullObjective::flatten(net.weights())), report.objective);
}

fn solve(mut a: Array2<f64>, mut b: Array2<f64>) -> Array2<f64> {
    let n = a.nrows();
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[[i, k]].abs().total_cmp(&a[[j, k]].abs()))
            .unwrap();
        for c in 0..n {
            a.swap([k, c], [p, c]);
        }
        for c in 0..b.ncols() {
            b.swap([k, c], [p, c]);
        }
        for i in k + 1..n {
            let m = a[[i, k]] / a[[k, k]];
            for c in k..n {
                a[[i, c]] -= m * a[[k, c]];
            }
            for c in 0..b.ncols() {
                b[[i, c]] -= m * b[[k, c]];
            }
        }
    }
    for k in (0..n).rev() {
        for c in 0..b.ncols() {
            let s: f64 = (k + 1..n).map(|j| a[[k, j]] * b[[j, c]]).sum();
            b[[k, c]] = (b[[k, c]] - s) / a[[k, k]];
        }
    }
    b
}

/// The L-BFGS baseline measures the paper's relative decrease over windows
/// of 30 iterations (the paper's calls of 30 iterations): it stops by that
/// rule only at a multiple of 30, and the decrease over the last window is
/// within the tolerance; checked every iteration it stops no later.
#[test]
fn lbfgs_relative_decrease_is_measured_over_windows() {
    let (x, y) = data(60, 3, 1);
    let net = Dfnn::random(3, &[6, 5, 1], Bias::Every, 11, 0.6).unwrap();
    let rho = net.paper_rho();
    let windowed = FullLbfgs {
        gradient_tolerance: 0.0,
        relative_decrease: 1e-4,
        ..FullLbfgs::default()
    };
    let mut a = net.clone();
    let r = a
        .fit(x.view(), y.view(), rho, &DfnnTrainer::Lbfgs(windowed.clone()), go)
        .unwrap();
    assert_eq!(r.termination, Termination::RelativeDecrease);
    assert_eq!(r.iterations % 30, 0, "{} iterations", r.iterations);
    let last = r.trace[r.iterations].objective;
    let before = r.trace[r.iterations - 30].objective;
    assert!(before - last <= 1e-4 * before.max(1.0));
    let every = FullLbfgs { window: 1, ..windowed };
    let mut b = net.clone();
    let s = b.fit(x.view(), y.view(), rho, &DfnnTrainer::Lbfgs(every), go).unwrap();
    assert!(s.iterations <= r.iterations);
}

/// With `shuffle`, the minibatches are cut from one seeded random order of
/// the rows: the same steps as the unshuffled method run on the rows put
/// in that order by hand; a different seed gives different weights.
#[test]
fn shuffled_minibatches_are_the_rows_in_one_random_order() {
    let (x, y) = data(23, 3, 1);
    let net = Dfnn::random(3, &[3, 1], Bias::Every, 9, 0.5).unwrap();
    let mut ig = Incremental::new(IncrementalKind::Bling);
    ig.batch_size = 5;
    ig.max_epochs = 2;
    let mut shuffled = net.clone();
    shuffled
        .fit(x.view(), y.view(), 1e-3, &DfnnTrainer::Incremental(ig.clone()), go)
        .unwrap();
    let order = super::incremental::permutation(23, 0);
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..23).collect::<Vec<_>>());
    assert_ne!(order, sorted);
    let xs = x.select(ndarray::Axis(0), &order);
    let ys = y.select(ndarray::Axis(0), &order);
    let mut by_hand = net.clone();
    let plain = Incremental {
        shuffle: None,
        ..ig.clone()
    };
    by_hand
        .fit(xs.view(), ys.view(), 1e-3, &DfnnTrainer::Incremental(plain), go)
        .unwrap();
    assert_eq!(shuffled.weights(), by_hand.weights());
    let mut other = net.clone();
    let seeded = Incremental { shuffle: Some(1), ..ig };
    other
        .fit(x.view(), y.view(), 1e-3, &DfnnTrainer::Incremental(seeded), go)
        .unwrap();
    assert_ne!(other.weights(), shuffled.weights());
}

/// The cycle rule stops B2LD at the first cycle `k ≥ w` with
/// `f_{k−w} − f_k ≤ tol·f_k` (read off the report's trace, one point per
/// cycle) and not before; with the rule off (`B2ld::paper()`) the same fit
/// runs on past that cycle; a tolerance out of range is refused by name.
#[test]
fn b2ld_stops_when_a_window_of_cycles_gains_less_than_the_tolerance() {
    let (x, y) = data(120, 3, 2);
    let fit = |trainer: B2ld| {
        let mut net = Dfnn::random(3, &[8, 6, 2], Bias::Every, 5, 0.6).unwrap();
        let rho = net.paper_rho();
        net.fit(x.view(), y.view(), rho, &DfnnTrainer::B2ld(trainer), go)
            .unwrap()
    };
    let (tol, w) = (0.05, 3);
    let ruled = B2ld {
        cycle_tolerance: tol,
        cycle_window: w,
        gradient_tolerance: 0.0,
        relative_decrease: 0.0,
        ..B2ld::default()
    };
    let report = fit(ruled.clone());
    let f: Vec<f64> = report.trace.iter().map(|p| p.objective).collect();
    let k = report.iterations;
    assert_eq!(f.len(), k + 1);
    assert_eq!(report.termination, Termination::RelativeDecrease);
    assert!(k >= w && k < ruled.max_cycles, "stopped after {k} cycles");
    assert!(f[k - w] - f[k] <= tol * f[k], "the rule holds where it stopped: {f:?}");
    for j in w..k {
        assert!(
            f[j - w] - f[j] > tol * f[j],
            "the rule held earlier, at cycle {j}: {f:?}"
        );
    }
    let off = fit(B2ld {
        max_cycles: k + 5,
        gradient_tolerance: 0.0,
        relative_decrease: 0.0,
        ..B2ld::paper()
    });
    assert_eq!(off.iterations, k + 5);
    assert_eq!(off.trace[k].objective, f[k], "the same cycles up to the stop");
    for (bad, name) in [
        (
            B2ld {
                cycle_tolerance: -0.1,
                ..B2ld::default()
            },
            "cycle_tolerance",
        ),
        (
            B2ld {
                cycle_tolerance: f64::NAN,
                ..B2ld::default()
            },
            "cycle_tolerance",
        ),
        (
            B2ld {
                cycle_window: 0,
                ..B2ld::default()
            },
            "cycle_window",
        ),
    ] {
        match bad.check() {
            Err(crate::ModelError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}
