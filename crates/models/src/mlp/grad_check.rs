//! Test helpers of the network's trainers: the loss of the predictions
//! written out, its central differences, and random targets per output.

use ndarray::{Array2, ArrayView2};
use test_support::TestRng;

use super::{Loss, Mlp, OutputActivation};
use crate::traits::Predict;

/// The loss of `net` on `(x, y)` from its predictions: `Σ‖p − y‖²/(2K)` or
/// `−Σ y ln p / K`.
pub(crate) fn reference_loss(net: &Mlp, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> f64 {
    reference_loss_of(net, x, y, Loss::for_output(net.output_activation()))
}

/// [`reference_loss`] for the loss `loss`.
pub(crate) fn reference_loss_of(net: &Mlp, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>, loss: Loss) -> f64 {
    let p = net.predict(x).expect("predict");
    let k = x.nrows() as f64;
    match loss {
        Loss::CrossEntropy => -p.iter().zip(y).map(|(p, y)| y * p.ln()).sum::<f64>() / k,
        Loss::SquaredError => p.iter().zip(y).map(|(p, y)| (p - y) * (p - y)).sum::<f64>() / (2.0 * k),
    }
}

/// Central differences of [`reference_loss`] in every weight.
pub(crate) fn fd_gradient(net: &Mlp, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Vec<Array2<f64>> {
    fd_gradient_of(net, x, y, Loss::for_output(net.output_activation()))
}

/// Central differences of [`reference_loss_of`] in every weight.
pub(crate) fn fd_gradient_of(
    net: &Mlp,
    x: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    loss: Loss,
) -> Vec<Array2<f64>> {
    let h = 1e-5;
    let mut out = Vec::new();
    for l in 0..net.weights().len() {
        let mut g = Array2::zeros(net.weights()[l].raw_dim());
        for ((i, j), gij) in g.indexed_iter_mut() {
            let mut plus = net.clone();
            plus.weights_mut()[l][[i, j]] += h;
            let mut minus = net.clone();
            minus.weights_mut()[l][[i, j]] -= h;
            *gij = (reference_loss_of(&plus, x, y, loss) - reference_loss_of(&minus, x, y, loss)) / (2.0 * h);
        }
        out.push(g);
    }
    out
}

pub(crate) fn rel_err(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let diff = (a - b).iter().map(|v| v * v).sum::<f64>().sqrt();
    let norm = b.iter().map(|v| v * v).sum::<f64>().sqrt();
    diff / norm.max(1e-300)
}

/// Targets for `output`: anything for linear, `[0, 1]` for sigmoid, one-hot
/// rows for softmax (or soft rows in `[0, 1]` that do not sum to 1).
pub(crate) fn targets(rng: &mut TestRng, k: usize, j: usize, output: OutputActivation, soft: bool) -> Array2<f64> {
    match output {
        OutputActivation::Linear => rng.uniform_matrix(k, j, -2.0, 2.0),
        OutputActivation::Sigmoid => rng.uniform_matrix(k, j, 0.0, 1.0),
        OutputActivation::Softmax if soft => rng.uniform_matrix(k, j, 0.0, 1.0),
        OutputActivation::Softmax => {
            let mut y = Array2::zeros((k, j));
            for mut row in y.rows_mut() {
                row[(rng.next_u64() % j as u64) as usize] = 1.0;
            }
            y
        }
    }
}
