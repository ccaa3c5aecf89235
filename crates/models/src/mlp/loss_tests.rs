//! The squared error of a softmax output against central differences of the
//! loss of the predictions, and the losses a network refuses.

use std::ops::ControlFlow;

use ndarray::array;
use optim::first_order::FirstOrderKind;
use test_support::TestRng;

use super::Loss;
use crate::activation::Activation;
use crate::error::ModelError;
use crate::mlp::grad_check::{fd_gradient_of, reference_loss_of, rel_err, targets};
use crate::mlp::{loss_and_gradient, loss_and_gradient_of, Backprop, BackpropEpoch, Mlp, OutputActivation};
use crate::traits::Dataset;

fn go(_: &BackpropEpoch, _: &Mlp) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// The squared error of a softmax output (the softmax's Jacobian in the
/// output delta) against central differences of the loss of the
/// predictions, on one-hot and soft targets; a Jacobian left out (the
/// delta `r ⊙ p`, or `r` alone) fails by far more than the bound.
#[test]
fn squared_error_of_a_softmax_output_matches_finite_differences() {
    let mut rng = TestRng::new(21);
    for hidden in [vec![4], vec![5, 3]] {
        for activation in [Activation::Sigmoid, Activation::Tanh] {
            for (k, inputs, soft) in [(1, 3, false), (10, 9, false), (10, 9, true)] {
                let net = Mlp::random(
                    inputs,
                    &hidden,
                    4,
                    activation,
                    OutputActivation::Softmax,
                    rng.next_u64(),
                    1.0,
                )
                .expect("net");
                let x = rng.uniform_matrix(k, inputs, -1.0, 1.0);
                let y = targets(&mut rng, k, 4, OutputActivation::Softmax, soft);
                let data = Dataset::new(x.view(), y.view());
                let (loss, grads) = loss_and_gradient_of(&net, &data, Loss::SquaredError).expect("gradient");
                let reference = reference_loss_of(&net, x.view(), y.view(), Loss::SquaredError);
                assert!(
                    (loss - reference).abs() <= 1e-12 * reference.abs().max(1.0),
                    "loss {loss} vs {reference}"
                );
                let fd = fd_gradient_of(&net, x.view(), y.view(), Loss::SquaredError);
                for (l, (g, f)) in grads.iter().zip(&fd).enumerate() {
                    let e = rel_err(g, f);
                    assert!(
                        e < 1e-6,
                        "{hidden:?} {activation:?} K={k} soft={soft} layer {l}: relative error {e:e}"
                    );
                }
                // Not the cross-entropy's gradient.
                let (_, ce) = loss_and_gradient(&net, &data).expect("gradient");
                assert!(rel_err(&ce[0], &fd[0]) > 1e-3);
            }
        }
    }
}

#[test]
fn squared_error_training_of_a_softmax_output_steps_along_its_gradient() {
    let mut rng = TestRng::new(22);
    let net0 = Mlp::random(6, &[5], 3, Activation::Sigmoid, OutputActivation::Softmax, 3, 1.0).expect("net");
    let x = rng.uniform_matrix(8, 6, -1.0, 1.0);
    let y = targets(&mut rng, 8, 3, OutputActivation::Softmax, false);
    let fd = fd_gradient_of(&net0, x.view(), y.view(), Loss::SquaredError);
    let eta = 0.1;
    let mut net = net0.clone();
    let bp = Backprop::new(FirstOrderKind::Sgd)
        .with_learning_rate(eta)
        .with_batch_size(8)
        .with_epochs(1)
        .with_shuffle(None)
        .with_loss(Loss::SquaredError);
    assert_eq!(bp.loss_for(&net), Loss::SquaredError);
    let report = bp
        .train(&mut net, &Dataset::new(x.view(), y.view()), go)
        .expect("train");
    let reference = reference_loss_of(&net0, x.view(), y.view(), Loss::SquaredError);
    assert!((report.epochs[0].loss - reference).abs() <= 1e-12 * reference);
    for ((w, w0), g) in net.weights().iter().zip(net0.weights()).zip(&fd) {
        let step = w0 - w;
        assert!(rel_err(&step, &(g * eta)) < 1e-6);
    }
}

#[test]
fn cross_entropy_of_an_output_other_than_softmax_is_refused() {
    let mut net = Mlp::random(2, &[3], 1, Activation::Sigmoid, OutputActivation::Sigmoid, 1, 1.0).expect("net");
    let x = array![[0.1, 0.2], [0.3, 0.4]];
    let y = array![[0.0], [1.0]];
    let err = Backprop::new(FirstOrderKind::Sgd)
        .with_loss(Loss::CrossEntropy)
        .train(&mut net, &Dataset::new(x.view(), y.view()), go)
        .expect_err("refused");
    assert!(
        matches!(err, ModelError::InvalidParameter { name: "loss", .. }),
        "{err}"
    );
    let err = loss_and_gradient_of(&net, &Dataset::new(x.view(), y.view()), Loss::CrossEntropy).expect_err("refused");
    assert!(
        matches!(err, ModelError::InvalidParameter { name: "loss", .. }),
        "{err}"
    );
}
