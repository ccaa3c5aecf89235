//! The objective (3) and its gradients against finite differences and
//! against each other.

use ndarray::Array2;
use optim::objective::gradient_error;
use optim::Objective;

use super::*;

fn data(p: usize, n: usize, m: usize) -> (Array2<f64>, Array2<f64>) {
    let x = Array2::from_shape_fn((p, n), |(i, j)| (((i * (2 * j + 3) + j) % 17) as f64) / 8.0 - 1.0);
    let y = Array2::from_shape_fn((p, m), |(i, q)| (x[[i, 0]] * (q as f64 + 1.0) + x[[i, n - 1]]).sin());
    (x, y)
}

/// Full gradient against central differences, for one to four layers and
/// one or two outputs (a wrong sign or a missing term is O(1)).
#[test]
fn full_gradient_matches_finite_differences() {
    for widths in [vec![1], vec![5, 2], vec![4, 3, 1], vec![3, 4, 3, 2]] {
        let (x, y) = data(30, 3, *widths.last().unwrap());
        let net = Dfnn::random(3, &widths, 7, 0.8).unwrap();
        let obj = Objective3::new(x.view(), y.view(), 1e-2).unwrap();
        let mut full = FullObjective::new(obj, net.weights());
        let z = FullObjective::flatten(net.weights());
        let e = gradient_error(&mut full, &z);
        assert!(e < 1e-8, "{widths:?}: gradient error {e:e}");
        // The value is (3) written out from predict.
        let out = net.predict(x.view()).unwrap();
        let direct = (&out - &y).mapv(|v| v * v).sum() / 30.0 + 1e-2 * z.iter().map(|v| v * v).sum::<f64>();
        assert!((full.value(&z) - direct).abs() <= 1e-13 * direct);
    }
}

/// Each layer's block objective has the same value as the full objective
/// and its gradient is the full gradient's block; the backward pass that
/// stops at the layer changes nothing below it.
#[test]
fn block_gradients_are_blocks_of_the_full_gradient() {
    let (x, y) = data(40, 4, 2);
    let net = Dfnn::random(4, &[6, 5, 4, 2], 3, 0.7).unwrap();
    let obj = Objective3::new(x.view(), y.view(), 1e-3).unwrap();
    let mut full = FullObjective::new(obj, net.weights());
    let z = FullObjective::flatten(net.weights());
    let mut g = vec![0.0; z.len()];
    let fz = full.value_and_gradient(&z, &mut g);
    let mut at = 0;
    for l in 0..4 {
        let mut block = BlockObjective::new(obj, net.weights().to_vec(), l);
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
        let fwd = obj.forward(net.weights());
        let mut grads: Vec<Array2<f64>> = net
            .weights()
            .iter()
            .map(|w| Array2::from_elem(w.dim(), f64::NAN))
            .collect();
        obj.gradient(net.weights(), &fwd, l, &mut grads);
        for (k, gk) in grads.iter().enumerate() {
            assert_eq!(gk.iter().all(|v| v.is_nan()), k < l, "layer {l}, block {k}");
        }
    }
}

#[test]
fn bad_shapes_and_parameters_are_errors() {
    assert!(Dfnn::random(0, &[3], 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[], 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[3, 0], 0, 1.0).is_err());
    assert!(Dfnn::random(2, &[3], 0, f64::NAN).is_err());
    let net = Dfnn::random(2, &[3, 1], 0, 1.0).unwrap();
    assert_eq!((net.n_inputs(), net.n_outputs(), net.n_weights()), (2, 1, 3 * 3 + 4));
    assert!(net.predict(Array2::zeros((4, 3)).view()).is_err());
    let (x, y) = data(5, 2, 1);
    assert!(Objective3::new(x.view(), y.view(), -1.0).is_err());
    assert!(Objective3::new(x.view(), Array2::zeros((4, 1)).view(), 0.0).is_err());
}
