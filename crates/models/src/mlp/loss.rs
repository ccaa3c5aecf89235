//! The losses backprop minimizes ([`Loss`]) and their gradients with
//! respect to the output layer's pre-activations.

use ndarray::{Array2, Zip};

use super::network::{Mlp, OutputActivation};
use crate::activation::{sigmoid, sigmoid_in_place};
use crate::error::{ModelError, Result};

/// The loss backprop minimizes: by default cross-entropy for a softmax
/// output, the squared error otherwise ([`Loss::for_output`]);
/// [`Backprop::with_loss`](super::Backprop::with_loss) chooses the squared error for a softmax output
/// too.
///
/// With `z_i` the output pre-activations of sample `i`,
/// `f` the output activation and `y_i` its target, on a minibatch `B`:
///
/// - **squared error** (linear or sigmoid output), the mean over samples
///   with the customary ½ (Keras's and scikit-learn's convention up to that
///   factor): `L = (1/(2|B|)) Σ_{i∈B} ‖f(z_i) − y_i‖²`, whose gradient with
///   respect to the pre-activations is `∂L/∂z_ij = (f(z_ij) − y_ij) f′(z_ij)/|B|`
///   (`f′ = 1` for a linear output, `p(1 − p)` with `p = σ(z_ij)` for a
///   sigmoid one); for a softmax output (chosen), `∂L/∂z_i = J_i r_i/|B|`
///   with `r_i = p_i − y_i` and `J_i = diag(p_i) − p_i p_iᵀ`;
/// - **cross-entropy** (softmax output): `L = −(1/|B|) Σ_{i∈B} Σ_j y_ij ln p_ij`
///   with `p_i = softmax(z_i)`, computed stably as
///   `−ln p_ij = lse(z_i) − z_ij`, `lse(z) = max_k z_k + ln Σ_k e^{z_k − max_k z_k}`;
///   `∂L/∂z_ij = (s_i p_ij − y_ij)/|B|` with `s_i = Σ_j y_ij`, i.e. the
///   familiar `(P − Y)/|B|` for targets that are distributions (one-hot
///   labels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loss {
    /// `L = (1/(2|B|)) Σ_{i∈B} ‖f(z_i) − y_i‖²`: half the squared error,
    /// summed over outputs, averaged over the minibatch's samples.
    SquaredError,
    /// `L = −(1/|B|) Σ_{i∈B} Σ_j y_ij ln p_ij`, `p_i = softmax(z_i)`:
    /// summed over outputs, averaged over the minibatch's samples.
    CrossEntropy,
}

impl Loss {
    /// The loss of a network with output activation `o`: cross-entropy for
    /// softmax, the squared error for linear and sigmoid outputs.
    pub fn for_output(o: OutputActivation) -> Self {
        match o {
            OutputActivation::Softmax => Self::CrossEntropy,
            OutputActivation::Linear | OutputActivation::Sigmoid => Self::SquaredError,
        }
    }

    /// `"squared-error"` or `"cross-entropy"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::SquaredError => "squared-error",
            Self::CrossEntropy => "cross-entropy",
        }
    }
}

/// The cross-entropy is defined here for a softmax output only.
pub(super) fn check_loss(net: &Mlp, loss: Loss) -> Result<()> {
    if loss == Loss::CrossEntropy && net.output_activation() != OutputActivation::Softmax {
        return Err(ModelError::InvalidParameter {
            name: "loss",
            value: format!("{} with a {} output", loss.name(), net.output_activation().name()),
            reason: "the cross-entropy needs a softmax output; use the squared error",
        });
    }
    Ok(())
}

/// The minibatch loss of the output pre-activations `z` against `y`;
/// `z ← ∂L/∂z`. The squared error of a softmax output, `L = (1/(2|B|))
/// Σ_i ‖p_i − y_i‖²`, has `∂L/∂z_i = J_i r_i / |B|` with `r_i = p_i − y_i`
/// and the softmax's Jacobian `J_i = diag(p_i) − p_i p_iᵀ`, that is
/// `p_ij (r_ij − p_iᵀr_i) / |B|`.
pub(super) fn output_loss(z: &mut Array2<f64>, y: &Array2<f64>, output: OutputActivation, loss: Loss) -> f64 {
    let inv = 1.0 / z.nrows() as f64;
    let mut sum = 0.0;
    match output {
        OutputActivation::Softmax if loss == Loss::SquaredError => {
            for (mut z, y) in z.rows_mut().into_iter().zip(y.rows()) {
                let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                z.mapv_inplace(|v| (v - max).exp());
                let total = z.sum();
                z.mapv_inplace(|v| v / total);
                let mut pr = 0.0;
                for (&p, &yj) in z.iter().zip(&y) {
                    let r = p - yj;
                    sum += r * r;
                    pr += p * r;
                }
                Zip::from(&mut z).and(&y).for_each(|p, &yj| *p *= (*p - yj - pr) * inv);
            }
            0.5 * sum * inv
        }
        OutputActivation::Linear => {
            Zip::from(&mut *z).and(y).for_each(|z, &y| {
                let r = *z - y;
                sum += r * r;
                *z = r * inv;
            });
            0.5 * sum * inv
        }
        OutputActivation::Sigmoid => {
            match z.as_slice_memory_order_mut() {
                Some(s) => sigmoid_in_place(s),
                None => z.mapv_inplace(sigmoid),
            }
            Zip::from(&mut *z).and(y).for_each(|p, &y| {
                let r = *p - y;
                sum += r * r;
                *p = r * *p * (1.0 - *p) * inv;
            });
            0.5 * sum * inv
        }
        OutputActivation::Softmax => {
            for (mut z, y) in z.rows_mut().into_iter().zip(y.rows()) {
                let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lse = max + z.iter().map(|&v| (v - max).exp()).sum::<f64>().ln();
                let mut mass = 0.0;
                for (&zj, &yj) in z.iter().zip(&y) {
                    sum += yj * (lse - zj);
                    mass += yj;
                }
                Zip::from(&mut z)
                    .and(&y)
                    .for_each(|zj, &yj| *zj = (mass * (*zj - lse).exp() - yj) * inv);
            }
            sum * inv
        }
    }
}

#[cfg(test)]
#[path = "loss_tests.rs"]
mod tests;
