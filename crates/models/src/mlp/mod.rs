//! The fully connected network of Tomic, Matos-Carvalho & Beko, *A
//! closed-form solution for weight optimization in fully-connected
//! feed-forward neural networks* (arXiv:2401.06699, 2024; algorithms.md §7),
//! trained by **BPLS** (back-propagating least squares) — and, for the
//! paper's comparison, by backpropagation with a first-order rule.
//!
//! - [`Mlp`]: injective hidden activations (sigmoid, tanh, linear) or a
//!   softmax over each hidden layer ([`HiddenActivation`]), an
//!   [`OutputActivation`] (linear, sigmoid, softmax), a bias in every layer
//!   (the weight of a constant input 1), one weight column per neuron;
//! - [`BplsParams`] → [`BplsValidParams`]: Algorithm 1 and Algorithm 2
//!   ([`BplsAlgorithm`]), ending with a [`BplsReport`] (one [`BplsEpoch`]
//!   per pass);
//! - [`Backprop`]: the paper's baseline, minibatch backpropagation of the
//!   squared error or the cross-entropy ([`Loss`]) with SGD, NAG, Adam or
//!   AdaGrad, ending with a [`BackpropReport`] (one [`BackpropEpoch`] per
//!   pass); [`loss_and_gradient`] gives the gradient it steps along.
//!
//! # How the paper is read
//!
//! The paper's equations are written for one neuron and one output at a
//! time and leave open how activations enter the backward targets; every
//! step here is a well-posed least-squares problem, and where the paper is
//! silent the choice is stated.
//!
//! 1. **Forward** (line 2): the random network (`U[−1, 1]`, line 1) gives
//!    every layer's input `A_l = [N_{l−1}, 1]` on all samples.
//! 2. **Output targets**: the desired outputs `Ỹ` are mapped through the
//!    inverse output activation to pre-activation targets `T_{L+1}`:
//!    `Ỹ` (linear); `logit(clip(Ỹ))` (sigmoid); for softmax, which is
//!    injective only up to a constant per sample, the centred logits
//!    `ln p_j − mean_k ln p_k` of `p = clip(Ỹ)`. `clip` maps into
//!    `[δ, 1 − δ]` (default δ = 10⁻³) so that one-hot or noisy targets have
//!    finite inverses.
//! 3. **Weights of layer `l`** (eq. (4), (6)): all neurons at once,
//!    `W_l = (A_lᵀA_l + λI)⁻¹A_lᵀT_l` — one Cholesky factorization of the
//!    layer's input Gram matrix, one right-hand side per neuron (the paper's
//!    loop over neurons, "parallel by construction", as one BLAS-3 solve).
//!    λ (default 10⁻⁶) keeps the tiny systems of the toy problems (5
//!    samples, collinear neuron values in a linear network) well posed.
//!    With fewer samples than columns the same `W_l` comes from the K×K
//!    dual system instead (`solve.rs`).
//! 4. **Targets of layer `l − 1`** (eq. (5)): the paper solves one output's
//!    equation for one neuron with the others held at their current values,
//!    `n̂_i = (ỹ_j − Σ_{t≠i} ŵ_tj n_t)/ŵ_ij`, which is ambiguous when a
//!    layer feeds several outputs (which `j`?) and divides by a weight that
//!    may be 0. Read instead as the least-squares problem it is one
//!    coordinate of: the neuron values `N̂` closest to the current `N` with
//!    `[N̂, 1] W_l` nearest `T_l`, `min ‖N̂V + 1bᵀ − T_l‖² + μ‖N̂ − N‖²`
//!    (`W_l = [V; bᵀ]`), i.e. `N̂ = N + R Vᵀ(VVᵀ + μI)⁻¹` with the residual
//!    `R = T_l − A_lW_l`. For one neuron and one output with μ → 0 this
//!    *is* the paper's formula; in general it is the smallest change of the
//!    neurons that makes the layer reproduce its targets (exactly, when `V`
//!    has full column rank). μ is relative to the mean diagonal of `VVᵀ`
//!    (default 10⁻⁶).
//! 5. **Through the activation**: `N̂` is clipped into the activation's
//!    open range (`[δ, 1 − δ]` for the sigmoid and the softmax, `[−1 + δ,
//!    1 − δ]` for tanh) and mapped through its inverse to the pre-activation
//!    targets `T_{l−1}` of the layer below (the paper: "the updates of the
//!    neurons are obtained by calculating the inverse of the activation
//!    function whose argument is given on the right-hand side in (5)"). A
//!    softmax hidden layer is inverted as a softmax output is (step 2): the
//!    centred logarithm `ln n̂_i − mean_k ln n̂_k` of each sample's clipped
//!    values, whose softmax is those values renormalized to sum to 1 (the
//!    paper names no normalization of a hidden layer's targets; this is the
//!    one the inverse implies, and the constant it leaves free is fixed by
//!    the centring).
//! 6. **Algorithm 2**, lines 5–9: after computing `N̂` the layer's weights
//!    are solved again on `Â_l = [N̂, 1]` (the clipped values, the ones the
//!    layer below can produce); line 19 repeats lines 3–14 on the
//!    misclassified samples *from the current weights* (their forward
//!    values under the current network), and line 20 blends
//!    `W ← (1 − m/K) W + (m/K) W_miss` with `m` misses among `K` samples.
//!    Line 18 reads "while μ^(τ−1) > μ^(τ) **or** τ ≤ τ_max", which has no
//!    bound while the misses decrease and goes on `τ_max` times when they
//!    grow; the reading here is the one with the maximum iteration count
//!    the text's `τ_max` is for, and with the paper's reported epochs (9 on
//!    MNIST, 4 on Fashion-MNIST, where passes stop early): continue while
//!    the misses decrease and `τ ≤ τ_max`. The weights returned are those
//!    with the fewest misses (the last pass's, unless it made them worse).

mod backprop;
mod bpls;
#[cfg(test)]
mod grad_check;
mod loss;
mod network;
mod solve;

pub use backprop::{loss_and_gradient, loss_and_gradient_of, Backprop, BackpropEpoch, BackpropReport};
pub use bpls::{
    BplsAlgorithm, BplsEpoch, BplsParams, BplsReport, BplsValidParams, LayerStep, DEFAULT_CLIP, DEFAULT_LAMBDA,
    DEFAULT_MAX_ITERATIONS, DEFAULT_TARGET_RIDGE, INIT_SCALE,
};
pub use loss::Loss;
pub use network::{HiddenActivation, Mlp, OutputActivation, MAGIC};

#[cfg(test)]
mod tests;
