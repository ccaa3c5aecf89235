//! Tests of the backprop trainer against independent computations: central
//! finite differences of the loss of [`Mlp::predict`], updates written out
//! by hand, and the step rules applied to all weights at once.

use std::ops::ControlFlow;

use ndarray::{array, Array2, Axis, Slice};
use optim::first_order::FirstOrderKind;
use test_support::TestRng;

use super::{epoch_order, loss_and_gradient, Backprop, BackpropEpoch, Loss};
use crate::activation::Activation;
use crate::error::ModelError;
use crate::mlp::grad_check::{fd_gradient, reference_loss, rel_err, targets};
use crate::mlp::{Mlp, OutputActivation};
use crate::traits::{Dataset, Predict};

fn go(_: &BackpropEpoch, _: &Mlp) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

fn sig(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[test]
fn gradient_matches_finite_differences_of_the_loss() {
    let mut rng = TestRng::new(11);
    let mut cases = 0;
    for hidden in [vec![4], vec![5, 3]] {
        for activation in [Activation::Sigmoid, Activation::Tanh, Activation::Linear] {
            for output in [
                OutputActivation::Linear,
                OutputActivation::Sigmoid,
                OutputActivation::Softmax,
            ] {
                // One row and ten, with all dimensions ≤ 7 (ndarray's own
                // products) or some above (BLAS GEMM: one row is the
                // batch-size-1 case).
                for (k, inputs, soft) in [(1, 3, false), (1, 9, false), (10, 9, false), (10, 9, true)] {
                    if soft && output != OutputActivation::Softmax {
                        continue;
                    }
                    let outputs = if output == OutputActivation::Softmax { 4 } else { 2 };
                    let net =
                        Mlp::random(inputs, &hidden, outputs, activation, output, rng.next_u64(), 1.0).expect("net");
                    let x = rng.uniform_matrix(k, inputs, -1.0, 1.0);
                    let y = targets(&mut rng, k, outputs, output, soft);
                    let (loss, grads) = loss_and_gradient(&net, &Dataset::new(x.view(), y.view())).expect("gradient");
                    let fd = fd_gradient(&net, x.view(), y.view());
                    let reference = reference_loss(&net, x.view(), y.view());
                    assert!(
                        (loss - reference).abs() <= 1e-12 * reference.abs().max(1.0),
                        "loss {loss} vs {reference}"
                    );
                    for (l, (g, f)) in grads.iter().zip(&fd).enumerate() {
                        let e = rel_err(g, f);
                        assert!(
                            e < 1e-6,
                            "{hidden:?} {activation:?} {output:?} K={k} soft={soft} layer {l}: relative error {e:e}"
                        );
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 2 * 3 * (2 * 3 + 4));
}

#[test]
fn full_batch_sgd_epoch_is_one_gradient_step() {
    let mut rng = TestRng::new(12);
    for output in [
        OutputActivation::Linear,
        OutputActivation::Sigmoid,
        OutputActivation::Softmax,
    ] {
        let net0 = Mlp::random(9, &[6, 4], 3, Activation::Tanh, output, 5, 1.0).expect("net");
        let x = rng.uniform_matrix(12, 9, -1.0, 1.0);
        let y = targets(&mut rng, 12, 3, output, false);
        let fd = fd_gradient(&net0, x.view(), y.view());
        let eta = 0.05;
        let mut net = net0.clone();
        let report = Backprop::new(FirstOrderKind::Sgd)
            .with_learning_rate(eta)
            .with_batch_size(12)
            .with_epochs(1)
            .with_shuffle(None)
            .train(&mut net, &Dataset::new(x.view(), y.view()), go)
            .expect("train");
        assert_eq!(report.updates, 1);
        let reference = reference_loss(&net0, x.view(), y.view());
        assert!((report.epochs[0].loss - reference).abs() <= 1e-12 * reference);
        for ((w, w0), g) in net.weights().iter().zip(net0.weights()).zip(&fd) {
            let expected = w0 - &(g * eta);
            let step = w0 - &expected;
            let e = rel_err(&(w0 - w), &step);
            assert!(e < 1e-6, "{output:?}: update off by {e:e} relative");
        }
        // A batch larger than the data is the whole set.
        let mut net2 = net0.clone();
        Backprop::new(FirstOrderKind::Sgd)
            .with_learning_rate(eta)
            .with_batch_size(1000)
            .with_epochs(1)
            .with_shuffle(Some(3))
            .train(&mut net2, &Dataset::new(x.view(), y.view()), go)
            .expect("train");
        for (a, b) in net2.weights().iter().zip(net.weights()) {
            assert!(rel_err(a, b) < 1e-13);
        }
    }
}

#[test]
fn batch_size_one_sgd_updates_by_hand() {
    // 1 input → 2 sigmoid → 1 linear; samples (x, y) = (0.5, 1.0), (−1.0, 0.25).
    let w1 = array![[0.3, -0.8], [0.1, 0.2]];
    let w2 = array![[0.7], [-0.4], [0.05]];
    let mut net = Mlp::from_weights(
        vec![w1.clone(), w2.clone()],
        Activation::Sigmoid,
        OutputActivation::Linear,
    )
    .expect("net");
    let samples = [(0.5, 1.0), (-1.0, 0.25)];
    let eta = 0.1;
    // By hand: w = [w_1, w_2], b = [b_1, b_2], v = [v_1, v_2], c.
    let (mut w, mut b) = ([w1[[0, 0]], w1[[0, 1]]], [w1[[1, 0]], w1[[1, 1]]]);
    let (mut v, mut c) = ([w2[[0, 0]], w2[[1, 0]]], w2[[2, 0]]);
    let mut losses = Vec::new();
    for &(x, y) in &samples {
        let h = [sig(x * w[0] + b[0]), sig(x * w[1] + b[1])];
        let r = v[0] * h[0] + v[1] * h[1] + c - y;
        losses.push(0.5 * r * r);
        let dz = [r * v[0] * h[0] * (1.0 - h[0]), r * v[1] * h[1] * (1.0 - h[1])];
        for j in 0..2 {
            v[j] -= eta * r * h[j];
            w[j] -= eta * dz[j] * x;
            b[j] -= eta * dz[j];
        }
        c -= eta * r;
    }
    let x = array![[0.5], [-1.0]];
    let y = array![[1.0], [0.25]];
    let report = Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(eta)
        .with_epochs(1)
        .with_shuffle(None)
        .train(&mut net, &Dataset::new(x.view(), y.view()), go)
        .expect("train");
    assert_eq!(report.updates, 2);
    let expected1 = array![[w[0], w[1]], [b[0], b[1]]];
    let expected2 = array![[v[0]], [v[1]], [c]];
    assert!(rel_err(&net.weights()[0], &expected1) < 1e-14, "{:?}", net.weights()[0]);
    assert!(rel_err(&net.weights()[1], &expected2) < 1e-14, "{:?}", net.weights()[1]);
    let mean = (losses[0] + losses[1]) / 2.0;
    assert!((report.epochs[0].loss - mean).abs() < 1e-15);
}

#[test]
fn batch_size_one_adam_softmax_updates_by_hand() {
    // A single softmax layer on 1 input, 2 classes: W = [w; b] (2×2).
    let w0 = array![[0.4, -0.3], [0.2, 0.1]];
    let mut net = Mlp::from_weights(vec![w0.clone()], Activation::Sigmoid, OutputActivation::Softmax).expect("net");
    let xs = [1.5, -0.5];
    let ys = [[0.0, 1.0], [1.0, 0.0]];
    let eta = 0.01;
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let mut wt = w0.clone();
    let (mut m, mut v) = (Array2::<f64>::zeros((2, 2)), Array2::<f64>::zeros((2, 2)));
    for t in 1..=2 {
        let (x, y) = (xs[t - 1], ys[t - 1]);
        let z = [x * wt[[0, 0]] + wt[[1, 0]], x * wt[[0, 1]] + wt[[1, 1]]];
        let e = [z[0].exp(), z[1].exp()];
        let p = [e[0] / (e[0] + e[1]), e[1] / (e[0] + e[1])];
        // ∂L/∂z = p − y; ∂L/∂W = [x, 1]ᵀ (p − y).
        let g = array![[x * (p[0] - y[0]), x * (p[1] - y[1])], [p[0] - y[0], p[1] - y[1]]];
        for ((i, j), gij) in g.indexed_iter() {
            m[[i, j]] = b1 * m[[i, j]] + (1.0 - b1) * gij;
            v[[i, j]] = b2 * v[[i, j]] + (1.0 - b2) * gij * gij;
            let m_hat = m[[i, j]] / (1.0 - b1.powi(t as i32));
            let v_hat = v[[i, j]] / (1.0 - b2.powi(t as i32));
            wt[[i, j]] -= eta * m_hat / (v_hat.sqrt() + eps);
        }
    }
    let x = array![[1.5], [-0.5]];
    let y = array![[0.0, 1.0], [1.0, 0.0]];
    Backprop::new(FirstOrderKind::Adam)
        .with_learning_rate(eta)
        .with_epochs(1)
        .with_shuffle(None)
        .train(&mut net, &Dataset::new(x.view(), y.view()), go)
        .expect("train");
    assert!(
        rel_err(&net.weights()[0], &wt) < 1e-13,
        "{:?} vs {wt:?}",
        net.weights()[0]
    );
    assert!(rel_err(&net.weights()[0], &w0) > 1e-3, "the weights moved");
}

/// One rule per layer equals one rule on all weights concatenated; the
/// smaller last batch is a step on its own rows.
#[test]
fn per_layer_rules_equal_one_rule_on_all_weights_and_the_last_batch_is_smaller() {
    let mut rng = TestRng::new(13);
    let net0 = Mlp::random(4, &[5, 3], 3, Activation::Sigmoid, OutputActivation::Softmax, 8, 1.0).expect("net");
    let x = rng.uniform_matrix(7, 4, -1.0, 1.0);
    let y = targets(&mut rng, 7, 3, OutputActivation::Softmax, false);
    for kind in FirstOrderKind::ALL {
        let eta = 0.03;
        let mut net = net0.clone();
        let report = Backprop::new(kind)
            .with_learning_rate(eta)
            .with_batch_size(3)
            .with_epochs(2)
            .with_shuffle(None)
            .train(&mut net, &Dataset::new(x.view(), y.view()), go)
            .expect("train");
        assert_eq!(report.updates, 6, "batches of 3, 3, 1 rows, twice");
        let mut reference = net0.clone();
        let mut flat: Vec<f64> = reference.weights().iter().flat_map(|w| w.iter().copied()).collect();
        let mut rule = kind.build(flat.len(), eta).expect("rule");
        let mut losses = Vec::new();
        for _ in 0..2 {
            let mut epoch_loss = 0.0;
            for (lo, hi) in [(0, 3), (3, 6), (6, 7)] {
                let xb = x.slice_axis(Axis(0), Slice::from(lo..hi));
                let yb = y.slice_axis(Axis(0), Slice::from(lo..hi));
                let (loss, grads) = loss_and_gradient(&reference, &Dataset::new(xb, yb)).expect("gradient");
                epoch_loss += (hi - lo) as f64 * loss;
                let g: Vec<f64> = grads.iter().flat_map(|g| g.iter().copied()).collect();
                rule.step(&mut flat, &g);
                let mut it = flat.iter();
                for w in reference.weights_mut() {
                    w.iter_mut().zip(&mut it).for_each(|(a, &b)| *a = b);
                }
            }
            losses.push(epoch_loss / 7.0);
        }
        for (a, b) in net.weights().iter().zip(reference.weights()) {
            assert!(rel_err(a, b) < 1e-13, "{kind}: {}", rel_err(a, b));
        }
        for (e, l) in report.epochs.iter().zip(&losses) {
            assert!((e.loss - l).abs() < 1e-13 * l, "{kind}: epoch loss {} vs {l}", e.loss);
        }
    }
}

fn trained(x: &Array2<f64>, y: &Array2<f64>, shuffle: Option<u64>, epochs: usize) -> Mlp {
    let mut net = Mlp::random(2, &[3], 1, Activation::Tanh, OutputActivation::Linear, 4, 1.0).expect("net");
    Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(0.1)
        .with_epochs(epochs)
        .with_shuffle(shuffle)
        .train(&mut net, &Dataset::new(x.view(), y.view()), go)
        .expect("train");
    net
}

#[test]
fn no_shuffle_is_file_order_and_a_seeded_shuffle_is_an_order() {
    let x = array![[0.5, -1.0], [-0.3, 0.8]];
    let y = array![[1.0], [-2.0]];
    let (x1, y1) = (
        x.slice_axis(Axis(0), Slice::from(0..1)).to_owned(),
        y.slice_axis(Axis(0), Slice::from(0..1)).to_owned(),
    );
    let (x2, y2) = (
        x.slice_axis(Axis(0), Slice::from(1..2)).to_owned(),
        y.slice_axis(Axis(0), Slice::from(1..2)).to_owned(),
    );
    // Sample 1 then sample 2, by two one-sample runs (SGD has no state).
    let step = |net: &mut Mlp, x: &Array2<f64>, y: &Array2<f64>| {
        Backprop::new(FirstOrderKind::Sgd)
            .with_learning_rate(0.1)
            .with_epochs(1)
            .train(net, &Dataset::new(x.view(), y.view()), go)
            .expect("train");
    };
    let start = Mlp::random(2, &[3], 1, Activation::Tanh, OutputActivation::Linear, 4, 1.0).expect("net");
    let mut forward = start.clone();
    step(&mut forward, &x1, &y1);
    step(&mut forward, &x2, &y2);
    let mut backward = start.clone();
    step(&mut backward, &x2, &y2);
    step(&mut backward, &x1, &y1);
    assert!(
        rel_err(&forward.weights()[0], &backward.weights()[0]) > 1e-6,
        "the order matters"
    );
    assert_eq!(trained(&x, &y, None, 1), forward);
    // A seeded run takes one of the two orders; over seeds, both occur.
    let (mut saw_forward, mut saw_backward) = (false, false);
    for seed in 0..20 {
        let net = trained(&x, &y, Some(seed), 1);
        saw_forward |= net == forward;
        saw_backward |= net == backward;
        assert!(net == forward || net == backward, "seed {seed}");
    }
    assert!(saw_forward && saw_backward);
}

#[test]
fn same_seed_same_weights_different_seed_different() {
    let mut rng = TestRng::new(14);
    let x = rng.uniform_matrix(20, 2, -1.0, 1.0);
    let y = rng.uniform_matrix(20, 1, -1.0, 1.0);
    let a = trained(&x, &y, Some(7), 3);
    let b = trained(&x, &y, Some(7), 3);
    let c = trained(&x, &y, Some(8), 3);
    let d = trained(&x, &y, None, 3);
    assert_eq!(a, b);
    assert!(rel_err(&a.weights()[0], &c.weights()[0]) > 1e-9);
    assert!(rel_err(&a.weights()[0], &d.weights()[0]) > 1e-9);
}

#[test]
fn epoch_order_is_a_fresh_permutation_each_epoch() {
    let mut first = vec![0; 50];
    epoch_order(&mut first, 3, 1);
    let mut sorted = first.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    assert_ne!(first, sorted, "shuffled");
    let mut second = first.clone();
    epoch_order(&mut second, 3, 2);
    assert_ne!(first, second, "another order in the next epoch");
    // The order depends on (seed, epoch) only, not on the previous order.
    let mut again = second.clone();
    epoch_order(&mut again, 3, 1);
    assert_eq!(again, first);
}

#[test]
fn adam_separates_a_toy_problem() {
    // Three separated clusters in the plane, 20 samples each.
    let mut rng = TestRng::new(15);
    let centres = [(-2.0, 0.0), (2.0, 0.0), (0.0, 2.5)];
    let mut x = Array2::zeros((60, 2));
    let mut y = Array2::zeros((60, 3));
    for i in 0..60 {
        let c = i % 3;
        x[[i, 0]] = centres[c].0 + rng.range(-0.6, 0.6);
        x[[i, 1]] = centres[c].1 + rng.range(-0.6, 0.6);
        y[[i, c]] = 1.0;
    }
    let accuracy = |net: &Mlp| {
        let p = net.predict(x.view()).expect("predict");
        let argmax = |r: ndarray::ArrayView1<'_, f64>| {
            r.iter()
                .enumerate()
                .fold(0, |best, (j, &v)| if v > r[best] { j } else { best })
        };
        p.rows()
            .into_iter()
            .zip(y.rows())
            .filter(|(p, y)| argmax(*p) == argmax(*y))
            .count() as f64
            / 60.0
    };
    let mut net = Mlp::random(2, &[6], 3, Activation::Tanh, OutputActivation::Softmax, 21, 1.0).expect("net");
    let before = accuracy(&net);
    let data = Dataset::new(x.view(), y.view());
    let (start_loss, _) = loss_and_gradient(&net, &data).expect("loss");
    let report = Backprop::new(FirstOrderKind::Adam)
        .with_learning_rate(0.01)
        .with_batch_size(4)
        .with_epochs(60)
        .train(&mut net, &data, go)
        .expect("train");
    let (end_loss, _) = loss_and_gradient(&net, &data).expect("loss");
    assert!(before < 1.0, "the random network does not already separate the classes");
    assert_eq!(accuracy(&net), 1.0);
    assert!(end_loss < 0.1 * start_loss, "loss {start_loss} → {end_loss}");
    let first = report.epochs[0].loss;
    let last = report.epochs[59].loss;
    assert!(last < 0.1 * first, "epoch loss {first} → {last}");
    assert!(report.epochs.windows(2).all(|w| w[0].seconds <= w[1].seconds));
    assert_eq!(report.updates, 60 * 15);
    assert_eq!(report.elapsed.as_secs_f64(), last_seconds(&report.epochs));
}

fn last_seconds(epochs: &[BackpropEpoch]) -> f64 {
    epochs.last().map_or(0.0, |e| e.seconds)
}

fn invalid_name(err: ModelError) -> &'static str {
    match err {
        ModelError::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn bad_parameters_and_data_are_refused() {
    let x = array![[0.1, 0.2], [0.3, -0.4]];
    let y = array![[0.0, 1.0], [1.0, 0.0]];
    let data = Dataset::new(x.view(), y.view());
    let net = Mlp::random(2, &[3], 2, Activation::Sigmoid, OutputActivation::Softmax, 1, 1.0).expect("net");
    let run = |bp: Backprop, data: &Dataset<'_>, net: &Mlp| {
        let mut net = net.clone();
        bp.train(&mut net, data, go).map(|_| net)
    };
    let adam = Backprop::new(FirstOrderKind::Adam);
    for lr in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        let err = run(adam.clone().with_learning_rate(lr), &data, &net).expect_err("bad η");
        assert_eq!(invalid_name(err), "learning rate", "η = {lr}");
    }
    assert_eq!(
        invalid_name(run(adam.clone().with_batch_size(0), &data, &net).expect_err("batch")),
        "batch size"
    );
    assert_eq!(
        invalid_name(run(adam.clone().with_epochs(0), &data, &net).expect_err("epochs")),
        "epochs"
    );
    assert_eq!(
        invalid_name(adam.clone().with_epochs(0).check().expect_err("check")),
        "epochs"
    );
    // Targets outside [0, 1] for a softmax output; fine for a sigmoid output
    // (squared error: the paper's noisy toy targets) and a linear one.
    let bad = array![[-0.1, 1.0], [1.0, 0.0]];
    let bad_data = Dataset::new(x.view(), bad.view());
    let err = run(adam.clone(), &bad_data, &net).expect_err("softmax targets");
    assert!(
        err.to_string().contains("targets Y") && err.to_string().contains("[0, 1]"),
        "{err}"
    );
    let sigmoid = Mlp::random(2, &[3], 2, Activation::Sigmoid, OutputActivation::Sigmoid, 1, 1.0).expect("net");
    let high = array![[0.5, 1.5], [1.0, 0.0]];
    run(
        adam.clone().with_epochs(1),
        &Dataset::new(x.view(), high.view()),
        &sigmoid,
    )
    .expect("sigmoid: any target");
    let linear = Mlp::random(2, &[3], 2, Activation::Sigmoid, OutputActivation::Linear, 1, 1.0).expect("net");
    run(
        adam.clone().with_epochs(1),
        &Dataset::new(x.view(), high.view()),
        &linear,
    )
    .expect("linear: any target");
    // Shapes against the network, and non-finite data.
    let x3 = array![[0.1, 0.2, 0.3], [0.3, -0.4, 0.5]];
    assert!(matches!(
        run(adam.clone(), &Dataset::new(x3.view(), y.view()), &net),
        Err(ModelError::Linalg(_))
    ));
    let y3 = array![[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
    assert!(matches!(
        run(adam.clone(), &Dataset::new(x.view(), y3.view()), &net),
        Err(ModelError::Linalg(_))
    ));
    let nan = array![[0.1, f64::NAN], [0.3, -0.4]];
    assert!(matches!(
        run(adam.clone(), &Dataset::new(nan.view(), y.view()), &net),
        Err(ModelError::Linalg(_))
    ));
    let short = array![[0.0, 1.0]];
    assert!(matches!(
        run(adam, &Dataset::new(x.view(), short.view()), &net),
        Err(ModelError::Linalg(_))
    ));
    // Divergence is reported, not hidden.
    let mut rng = TestRng::new(16);
    let xl = rng.uniform_matrix(30, 2, -10.0, 10.0);
    let yl = rng.uniform_matrix(30, 1, -1e3, 1e3);
    let mut lin = Mlp::random(2, &[8], 1, Activation::Linear, OutputActivation::Linear, 2, 1.0).expect("net");
    let err = Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(10.0)
        .with_epochs(50)
        .train(&mut lin, &Dataset::new(xl.view(), yl.view()), go)
        .expect_err("diverges");
    assert!(
        matches!(
            err,
            ModelError::Training {
                trainer: "backprop",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn break_in_on_epoch_stops_after_that_epoch() {
    let mut rng = TestRng::new(17);
    let x = rng.uniform_matrix(10, 3, -1.0, 1.0);
    let y = rng.uniform_matrix(10, 2, 0.0, 1.0);
    let data = Dataset::new(x.view(), y.view());
    let start = Mlp::random(3, &[4], 2, Activation::Sigmoid, OutputActivation::Sigmoid, 6, 1.0).expect("net");
    let bp = Backprop::new(FirstOrderKind::Nag)
        .with_learning_rate(0.05)
        .with_batch_size(3)
        .with_epochs(10);
    let mut stopped = start.clone();
    let mut seen = Vec::new();
    let report = bp
        .train(&mut stopped, &data, |e, net| {
            seen.push((e.epoch, net.clone()));
            if e.epoch == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .expect("train");
    assert_eq!(report.epochs.len(), 2);
    assert_eq!(report.updates, 2 * 4);
    assert_eq!(seen.iter().map(|(e, _)| *e).collect::<Vec<_>>(), [1, 2]);
    let mut two = start.clone();
    bp.clone().with_epochs(2).train(&mut two, &data, go).expect("train");
    assert_eq!(stopped, two);
    assert_eq!(seen[1].1, two, "on_epoch sees the weights after the epoch");
}

#[test]
fn defaults_are_the_papers_and_losses_follow_the_output() {
    let bp = Backprop::new(FirstOrderKind::Adam);
    assert_eq!(
        bp,
        Backprop {
            method: FirstOrderKind::Adam,
            learning_rate: 1e-3,
            batch_size: 1,
            epochs: 40,
            shuffle_seed: Some(0),
            loss: None,
        }
    );
    assert_eq!(Loss::for_output(OutputActivation::Softmax), Loss::CrossEntropy);
    assert_eq!(Loss::for_output(OutputActivation::Sigmoid), Loss::SquaredError);
    assert_eq!(Loss::for_output(OutputActivation::Linear), Loss::SquaredError);
    assert_eq!(Loss::CrossEntropy.name(), "cross-entropy");
    assert_eq!(Loss::SquaredError.name(), "squared-error");
}

#[test]
fn weights_in_column_major_layout_train_as_row_major_ones() {
    let mut rng = TestRng::new(18);
    let x = rng.uniform_matrix(6, 3, -1.0, 1.0);
    let y = rng.uniform_matrix(6, 2, -1.0, 1.0);
    let net = Mlp::random(3, &[4], 2, Activation::Tanh, OutputActivation::Linear, 9, 1.0).expect("net");
    let fortran: Vec<Array2<f64>> = net
        .weights()
        .iter()
        .map(|w| w.t().as_standard_layout().into_owned().reversed_axes())
        .collect();
    assert!(!fortran[0].is_standard_layout());
    let mut a = net.clone();
    let mut b = Mlp::from_weights(fortran, Activation::Tanh, OutputActivation::Linear).expect("net");
    let bp = Backprop::new(FirstOrderKind::AdaGrad)
        .with_learning_rate(0.1)
        .with_batch_size(4)
        .with_epochs(3);
    bp.train(&mut a, &Dataset::new(x.view(), y.view()), go).expect("train");
    bp.train(&mut b, &Dataset::new(x.view(), y.view()), go).expect("train");
    assert_eq!(a, b);
}

/// `epochs = usize::MAX` reserves nothing up front (it panicked with
/// "capacity overflow", and 10⁹ epochs aborted on a 24 GB reservation):
/// the run starts, and stops when `on_epoch` says so.
#[test]
fn a_huge_epoch_count_reserves_nothing_up_front() {
    let mut rng = TestRng::new(19);
    let x = rng.uniform_matrix(8, 2, -1.0, 1.0);
    let y = rng.uniform_matrix(8, 1, -1.0, 1.0);
    for epochs in [usize::MAX, 1_000_000_000] {
        let mut net = Mlp::random(2, &[3], 1, Activation::Tanh, OutputActivation::Linear, 3, 1.0).expect("net");
        let report = Backprop::new(FirstOrderKind::Adam)
            .with_learning_rate(0.01)
            .with_batch_size(4)
            .with_epochs(epochs)
            .train(&mut net, &Dataset::new(x.view(), y.view()), |e, _| {
                if e.epoch == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .expect("train");
        assert_eq!((report.epochs.len(), report.updates), (3, 6));
    }
}

/// The divergence rule is one for every step rule and both losses: at
/// η = 10³⁰⁰ every rule's run fails, naming η and the remedy, for a
/// softmax (cross-entropy, which stays finite: it was accepted at 2.9e300)
/// as for a linear output (squared error).
#[test]
fn divergence_is_refused_for_every_rule_and_both_losses() {
    let mut rng = TestRng::new(20);
    let x = rng.uniform_matrix(40, 3, -1.0, 1.0);
    let labels: Vec<usize> = (0..40).map(|i| i % 3).collect();
    let onehot = Array2::from_shape_fn((40, 3), |(i, j)| f64::from(u8::from(labels[i] == j)));
    let yr = rng.uniform_matrix(40, 1, -1.0, 1.0);
    for kind in [
        FirstOrderKind::Sgd,
        FirstOrderKind::Nag,
        FirstOrderKind::Adam,
        FirstOrderKind::AdaGrad,
    ] {
        for (output, y) in [(OutputActivation::Softmax, &onehot), (OutputActivation::Linear, &yr)] {
            let j = y.ncols();
            let mut net = Mlp::random(3, &[5], j, Activation::Sigmoid, output, 4, 1.0).expect("net");
            let err = Backprop::new(kind)
                .with_learning_rate(1e300)
                .with_batch_size(8)
                .with_epochs(3)
                .train(&mut net, &Dataset::new(x.view(), y.view()), go)
                .expect_err("diverges");
            let text = err.to_string();
            assert!(Backprop::is_divergence(&err), "{kind:?} {output:?}: {text}");
            for piece in ["η = 1e300", "diverged", "in epoch 1", "use a smaller learning rate"] {
                assert!(text.contains(piece), "{kind:?} {output:?}: {piece:?} not in {text}");
            }
        }
    }
}

/// A finite loss past 10⁶ × the starting loss is divergence (SGD at η = 1000
/// on a sigmoid network: the squared error grows geometrically yet the
/// saturated hidden layer keeps it finite for many epochs), and the last
/// epoch's steps are judged at the final weights: one full batch at η = 10³⁰⁰
/// has its running loss at the start, its damage only after.
#[test]
fn a_finite_loss_far_above_the_start_and_a_last_bad_step_are_divergence() {
    let mut rng = TestRng::new(21);
    let x = rng.uniform_matrix(80, 3, -1.0, 1.0);
    let y = rng.uniform_matrix(80, 1, -1.0, 1.0);
    let data = Dataset::new(x.view(), y.view());
    let start = Mlp::random(3, &[5], 1, Activation::Sigmoid, OutputActivation::Linear, 5, 1.0).expect("net");
    let (l0, _) = loss_and_gradient(&start, &data).expect("loss");
    let mut net = start.clone();
    let mut losses = Vec::new();
    let err = Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(1000.0)
        .with_batch_size(128)
        .with_epochs(1000)
        .train(&mut net, &data, |e, _| {
            losses.push(e.loss);
            go(e, &start)
        })
        .expect_err("diverges");
    let text = err.to_string();
    assert!(Backprop::is_divergence(&err), "{text}");
    assert!(text.contains("more than 10⁶ times"), "{text}");
    // Stopped at the first epoch whose loss passed the bound, finite.
    assert!(
        losses.iter().all(|&l| l <= Backprop::DIVERGENCE_FACTOR * l0),
        "{losses:?}"
    );
    assert!(losses.len() < 10, "{losses:?}");
    let (l_end, _) = loss_and_gradient(&net, &data).expect("loss");
    assert!(
        l_end.is_finite() && l_end > Backprop::DIVERGENCE_FACTOR * l0,
        "{l_end} vs {l0}"
    );
    // One epoch of one step: its running loss is the starting loss.
    let mut one = start.clone();
    let err = Backprop::new(FirstOrderKind::Adam)
        .with_learning_rate(1e300)
        .with_batch_size(128)
        .with_epochs(1)
        .train(&mut one, &data, go)
        .expect_err("diverges at the end");
    assert!(Backprop::is_divergence(&err), "{err}");
    assert!(err.to_string().contains("at the final weights"), "{err}");
    // A converging run is not touched by the rule, and other errors are not divergence.
    let mut fine = start.clone();
    Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(0.1)
        .with_epochs(5)
        .train(&mut fine, &data, go)
        .expect("converges");
    let bad = Backprop::new(FirstOrderKind::Sgd)
        .with_batch_size(0)
        .check()
        .expect_err("batch 0");
    assert!(!Backprop::is_divergence(&bad), "{bad}");
}
