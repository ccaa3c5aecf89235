//! First-order step rules: the four back-propagation optimizers Tomic et
//! al. (2024, "A closed-form solution for weight optimization in
//! fully-connected feed-forward neural networks") compare BPLS against.
//!
//! | rule | source | update (`g` = ∇f(w) on the minibatch) | defaults |
//! |---|---|---|---|
//! | [`Sgd`] | LeCun et al. 1998 | `w ← w − η g` | — |
//! | [`Nag`] | Sutskever et al. 2013, in Bengio et al.'s 2013 form | `v ← μ v − η g;  w ← w + μ v − η g` | `μ = 0.9` |
//! | [`Adam`] | Kingma & Ba 2015, Algorithm 1 | `m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  w ← w − η m̂/(√v̂ + ε)`, `m̂ = m/(1−β₁ᵗ)`, `v̂ = v/(1−β₂ᵗ)` | `β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸` |
//! | [`AdaGrad`] | Duchi, Hazan & Singer 2011, diagonal | `G ← G + g²;  w ← w − η g/(√G + ε)` | `ε = 10⁻¹⁰, G₀ = 0` |
//!
//! All operations on vectors are element-wise. The state (velocity,
//! moments, accumulator) is allocated once, by the constructor, for a fixed
//! number of parameters; [`FirstOrder::step`] allocates nothing and makes
//! one pass of zipped iterators over contiguous slices, which the compiler
//! vectorizes (no indexing, hence no bounds checks, in the loop). A trainer
//! that calls `step` once per minibatch of size 1 on a 40 000-weight
//! network pays a few streaming passes over 40 000 doubles per call.
//!
//! The learning rate `η` is the caller's choice ([`FirstOrderKind::build`]
//! takes it); [`FirstOrderKind::paper_learning_rate`] gives Tomic et al.'s.
//!
//! ```
//! use optim::first_order::{FirstOrder, FirstOrderKind};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let kind: FirstOrderKind = "adam".parse()?;
//! let mut rule = kind.build(2, 0.05)?;
//! // f(w) = ½ (w₀² + 10 w₁²), one step per (here: full) batch.
//! let mut w = [1.0, -1.0];
//! let mut g = [0.0; 2];
//! for _ in 0..500 {
//!     g[0] = w[0];
//!     g[1] = 10.0 * w[1];
//!     rule.step(&mut w, &g);
//! }
//! assert!(w[0].abs() < 1e-2 && w[1].abs() < 1e-2);
//! rule.reset(); // moments and step count back to zero for the next run
//! # Ok(())
//! # }
//! ```
//!
//! # NAG: which form, and why it is Sutskever et al.'s method
//!
//! Sutskever, Martens, Dahl & Hinton (2013, eq. (3)–(4)) write Nesterov's
//! accelerated gradient with the gradient at a look-ahead point:
//!
//! ```text
//! v_{t+1} = μ v_t − η ∇f(θ_t + μ v_t),    θ_{t+1} = θ_t + v_{t+1}.
//! ```
//!
//! A trainer has the gradient at its current weights only, so [`Nag`] keeps
//! the *shifted* variable `w_t = θ_t + μ v_t` (Bengio, Boulanger-Lewandowski
//! & Pascanu 2013; Keras's `SGD(nesterov=True)`): with `g = ∇f(w_t)`,
//!
//! ```text
//! v_{t+1} = μ v_t − η g,    w_{t+1} = w_t + μ v_{t+1} − η g,
//! ```
//!
//! since `w_{t+1} = θ_t + v_{t+1} + μ v_{t+1} = w_t − μ v_t + (1 + μ) v_{t+1}`
//! and `v_{t+1} − μ v_t = −η g`. The velocities of the two forms are the
//! same sequence, and with `v₀ = 0` both start at `w₀ = θ₀`; the weights the
//! trainer holds are Sutskever's `θ_t + μ v_t` (the look-ahead point, where
//! the next gradient is taken). The test
//! `nag_is_sutskevers_look_ahead_form_in_shifted_variables` checks the
//! correspondence on a quadratic.
//!
//! # Lengths
//!
//! `w` and `g` must have the length the rule was built for: that is the
//! caller's invariant, checked by `debug_assert!` only (a trainer calls
//! `step` tens of thousands of times per epoch with slices it sized
//! itself). In a release build a mismatch is not detected: only the common
//! prefix of `w`, `g` and the state is updated.

use std::fmt;
use std::str::FromStr;

use crate::incremental::{require, StepRuleError};

/// One update rule of a first-order method: `w ← rule(w, ∇f(w))`.
pub trait FirstOrder: Send {
    /// Apply one update to `w` given the gradient `g` at `w`.
    ///
    /// `w.len()` and `g.len()` must equal [`n_params`](Self::n_params), the
    /// length the state was built for (checked by `debug_assert!` only; see
    /// the [module documentation](self)). Allocates nothing.
    fn step(&mut self, w: &mut [f64], g: &[f64]);

    /// The method's name as the papers and the command line spell it
    /// (`"sgd"`, `"nag"`, `"adam"`, `"adagrad"`).
    fn name(&self) -> &'static str;

    /// Forget the state (moments, accumulators, step count) as if newly
    /// built; the hyper-parameters are kept.
    fn reset(&mut self);

    /// The number of parameters the rule was built for.
    fn n_params(&self) -> usize;

    /// The learning rate `η`.
    fn learning_rate(&self) -> f64;
}

fn check_learning_rate(eta: f64) -> Result<f64, StepRuleError> {
    require(eta > 0.0 && eta.is_finite(), "learning rate η", eta, "0 < η < ∞")?;
    Ok(eta)
}

fn check_decay(name: &'static str, value: f64, requirement: &'static str) -> Result<f64, StepRuleError> {
    require((0.0..1.0).contains(&value), name, value, requirement)?;
    Ok(value)
}

fn check_epsilon(eps: f64) -> Result<f64, StepRuleError> {
    require(eps > 0.0 && eps.is_finite(), "ε", eps, "0 < ε < ∞")?;
    Ok(eps)
}

/// Stochastic gradient descent (as Tomic et al. cite it, LeCun et al.
/// 1998): `w ← w − η g`, no state, no momentum.
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    n: usize,
    eta: f64,
}

impl Sgd {
    /// For `n` parameters with learning rate `η`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `η` unless `0 < η < ∞`.
    pub fn new(n: usize, learning_rate: f64) -> Result<Self, StepRuleError> {
        Ok(Self {
            n,
            eta: check_learning_rate(learning_rate)?,
        })
    }
}

impl FirstOrder for Sgd {
    fn step(&mut self, w: &mut [f64], g: &[f64]) {
        debug_assert_eq!(w.len(), self.n, "Sgd::step: w has the wrong length");
        debug_assert_eq!(g.len(), self.n, "Sgd::step: g has the wrong length");
        let eta = self.eta;
        for (wi, &gi) in w.iter_mut().zip(g) {
            *wi -= eta * gi;
        }
    }

    fn name(&self) -> &'static str {
        FirstOrderKind::Sgd.name()
    }

    fn reset(&mut self) {}

    fn n_params(&self) -> usize {
        self.n
    }

    fn learning_rate(&self) -> f64 {
        self.eta
    }
}

/// Nesterov's accelerated gradient in the single-gradient form of Bengio et
/// al. (2013): `v ← μ v − η g;  w ← w + μ v − η g` (the new `v`), which is
/// Sutskever et al.'s (2013) look-ahead form in the shifted variable
/// `w = θ + μ v` (see the [module documentation](self)). `v₀ = 0`;
/// default momentum `μ = 0.9`. `μ = 0` is [`Sgd`].
#[derive(Clone, Debug, PartialEq)]
pub struct Nag {
    eta: f64,
    mu: f64,
    velocity: Vec<f64>,
}

impl Nag {
    /// The default momentum, `μ = 0.9`, the customary constant (Sutskever
    /// et al. 2013 also study schedules rising to a `μ_max` between 0.9 and
    /// 0.999; this rule keeps `μ` fixed).
    pub const DEFAULT_MOMENTUM: f64 = 0.9;

    /// For `n` parameters with learning rate `η` and `μ = 0.9`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `η` unless `0 < η < ∞`.
    pub fn new(n: usize, learning_rate: f64) -> Result<Self, StepRuleError> {
        Ok(Self {
            eta: check_learning_rate(learning_rate)?,
            mu: Self::DEFAULT_MOMENTUM,
            velocity: vec![0.0; n],
        })
    }

    /// Set the momentum `μ`, `0 ≤ μ < 1`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `μ` out of range.
    pub fn with_momentum(mut self, momentum: f64) -> Result<Self, StepRuleError> {
        self.mu = check_decay("momentum μ", momentum, "0 ≤ μ < 1")?;
        Ok(self)
    }

    /// The momentum `μ`.
    pub fn momentum(&self) -> f64 {
        self.mu
    }

    /// The velocity `v` (Sutskever et al.'s, the same in both forms).
    pub fn velocity(&self) -> &[f64] {
        &self.velocity
    }
}

impl FirstOrder for Nag {
    fn step(&mut self, w: &mut [f64], g: &[f64]) {
        debug_assert_eq!(w.len(), self.velocity.len(), "Nag::step: w has the wrong length");
        debug_assert_eq!(g.len(), self.velocity.len(), "Nag::step: g has the wrong length");
        let (eta, mu) = (self.eta, self.mu);
        for ((wi, vi), &gi) in w.iter_mut().zip(self.velocity.iter_mut()).zip(g) {
            let v = mu * *vi - eta * gi;
            *vi = v;
            *wi += mu * v - eta * gi;
        }
    }

    fn name(&self) -> &'static str {
        FirstOrderKind::Nag.name()
    }

    fn reset(&mut self) {
        self.velocity.fill(0.0);
    }

    fn n_params(&self) -> usize {
        self.velocity.len()
    }

    fn learning_rate(&self) -> f64 {
        self.eta
    }
}

/// Adam, exactly Kingma & Ba (2015), Algorithm 1: with `t ← t + 1`,
///
/// ```text
/// m ← β₁ m + (1 − β₁) g,     v ← β₂ v + (1 − β₂) g²,
/// m̂ = m / (1 − β₁ᵗ),         v̂ = v / (1 − β₂ᵗ),
/// w ← w − η m̂ / (√v̂ + ε),
/// ```
///
/// `m₀ = v₀ = 0`, `t₀ = 0`; defaults `β₁ = 0.9`, `β₂ = 0.999`, `ε = 10⁻⁸`
/// (the paper's). `ε` is added to `√v̂` as in Algorithm 1 (and PyTorch), not
/// to `√v` as in the paper's "more efficient" reordering of §2 (and Keras,
/// whose default is `ε = 10⁻⁷`). The bias corrections make the first step
/// `η g/(|g| + ε)`, of magnitude ≈ `η` in every coordinate (§2.1, §3).
///
/// The corrections are applied as multiplications by `1/(1 − βᵗ)` computed
/// once per step, which agree with the divisions to an ulp.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    eta: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    /// Step count `t`.
    t: u64,
    /// `β₁ᵗ`, `β₂ᵗ`, kept as running products.
    beta1_t: f64,
    beta2_t: f64,
    m: Vec<f64>,
    v: Vec<f64>,
}

impl Adam {
    /// Kingma & Ba's default `β₁ = 0.9`.
    pub const DEFAULT_BETA1: f64 = 0.9;
    /// Kingma & Ba's default `β₂ = 0.999`.
    pub const DEFAULT_BETA2: f64 = 0.999;
    /// Kingma & Ba's default `ε = 10⁻⁸`.
    pub const DEFAULT_EPSILON: f64 = 1e-8;

    /// For `n` parameters with learning rate `η` (Kingma & Ba's default is
    /// `η = 10⁻³`) and the default `β₁`, `β₂`, `ε`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `η` unless `0 < η < ∞`.
    pub fn new(n: usize, learning_rate: f64) -> Result<Self, StepRuleError> {
        Ok(Self {
            eta: check_learning_rate(learning_rate)?,
            beta1: Self::DEFAULT_BETA1,
            beta2: Self::DEFAULT_BETA2,
            eps: Self::DEFAULT_EPSILON,
            t: 0,
            beta1_t: 1.0,
            beta2_t: 1.0,
            m: vec![0.0; n],
            v: vec![0.0; n],
        })
    }

    /// Set the exponential decay rates `0 ≤ β₁ < 1`, `0 ≤ β₂ < 1`. A
    /// builder, for before the first step: it also resets the state
    /// (`t = 0`, `m = v = 0`).
    ///
    /// # Errors
    /// [`StepRuleError`] naming `β₁` or `β₂` out of range.
    pub fn with_betas(mut self, beta1: f64, beta2: f64) -> Result<Self, StepRuleError> {
        self.beta1 = check_decay("β₁", beta1, "0 ≤ β₁ < 1")?;
        self.beta2 = check_decay("β₂", beta2, "0 ≤ β₂ < 1")?;
        self.reset();
        Ok(self)
    }

    /// Set `ε > 0`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `ε` unless `0 < ε < ∞`.
    pub fn with_epsilon(mut self, epsilon: f64) -> Result<Self, StepRuleError> {
        self.eps = check_epsilon(epsilon)?;
        Ok(self)
    }

    /// `(β₁, β₂)`.
    pub fn betas(&self) -> (f64, f64) {
        (self.beta1, self.beta2)
    }

    /// `ε`.
    pub fn epsilon(&self) -> f64 {
        self.eps
    }

    /// The number of steps taken since built or reset, `t`.
    pub fn steps(&self) -> u64 {
        self.t
    }
}

impl FirstOrder for Adam {
    fn step(&mut self, w: &mut [f64], g: &[f64]) {
        debug_assert_eq!(w.len(), self.m.len(), "Adam::step: w has the wrong length");
        debug_assert_eq!(g.len(), self.m.len(), "Adam::step: g has the wrong length");
        self.t += 1;
        self.beta1_t *= self.beta1;
        self.beta2_t *= self.beta2;
        let (b1, b2, eps) = (self.beta1, self.beta2, self.eps);
        let (c1, c2) = (1.0 - b1, 1.0 - b2);
        // η/(1 − β₁ᵗ) and 1/(1 − β₂ᵗ): m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ).
        let eta_hat = self.eta / (1.0 - self.beta1_t);
        let inv_bias2 = 1.0 / (1.0 - self.beta2_t);
        for (((wi, mi), vi), &gi) in w.iter_mut().zip(self.m.iter_mut()).zip(self.v.iter_mut()).zip(g) {
            let m = b1 * *mi + c1 * gi;
            let v = b2 * *vi + c2 * (gi * gi);
            *mi = m;
            *vi = v;
            *wi -= eta_hat * m / ((v * inv_bias2).sqrt() + eps);
        }
    }

    fn name(&self) -> &'static str {
        FirstOrderKind::Adam.name()
    }

    fn reset(&mut self) {
        self.t = 0;
        self.beta1_t = 1.0;
        self.beta2_t = 1.0;
        self.m.fill(0.0);
        self.v.fill(0.0);
    }

    fn n_params(&self) -> usize {
        self.m.len()
    }

    fn learning_rate(&self) -> f64 {
        self.eta
    }
}

/// AdaGrad with diagonal matrices (Duchi, Hazan & Singer 2011, Figure 1:
/// `H_t = δI + diag(G_t)^{1/2}`, `w ← w − η H_t⁻¹ g`):
///
/// ```text
/// G ← G + g²,    w ← w − η g / (√G + ε).
/// ```
///
/// `ε = 10⁻¹⁰` (Duchi et al.'s `δ`; PyTorch's default) and the initial
/// accumulator `G₀ = 0` (Duchi et al.'s, and PyTorch's; Keras starts at
/// `G₀ = 0.1` with `ε = 10⁻⁷`, [`with_initial_accumulator`](Self::with_initial_accumulator)
/// reproduces that).
#[derive(Clone, Debug, PartialEq)]
pub struct AdaGrad {
    eta: f64,
    eps: f64,
    g0: f64,
    accumulator: Vec<f64>,
}

impl AdaGrad {
    /// The default `ε = 10⁻¹⁰`.
    pub const DEFAULT_EPSILON: f64 = 1e-10;
    /// The default initial accumulator `G₀ = 0`.
    pub const DEFAULT_INITIAL_ACCUMULATOR: f64 = 0.0;

    /// For `n` parameters with learning rate `η`, `ε = 10⁻¹⁰`, `G₀ = 0`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `η` unless `0 < η < ∞`.
    pub fn new(n: usize, learning_rate: f64) -> Result<Self, StepRuleError> {
        Ok(Self {
            eta: check_learning_rate(learning_rate)?,
            eps: Self::DEFAULT_EPSILON,
            g0: Self::DEFAULT_INITIAL_ACCUMULATOR,
            accumulator: vec![Self::DEFAULT_INITIAL_ACCUMULATOR; n],
        })
    }

    /// Set `ε > 0`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `ε` unless `0 < ε < ∞`.
    pub fn with_epsilon(mut self, epsilon: f64) -> Result<Self, StepRuleError> {
        self.eps = check_epsilon(epsilon)?;
        Ok(self)
    }

    /// Start the accumulator at `G₀ ≥ 0` in every coordinate (and return to
    /// it on [`reset`](FirstOrder::reset)); Keras uses 0.1. A builder, for
    /// before the first step: it also resets the accumulator to `G₀`.
    ///
    /// # Errors
    /// [`StepRuleError`] naming `G₀` unless `0 ≤ G₀ < ∞`.
    pub fn with_initial_accumulator(mut self, g0: f64) -> Result<Self, StepRuleError> {
        require(g0 >= 0.0 && g0.is_finite(), "initial accumulator G₀", g0, "0 ≤ G₀ < ∞")?;
        self.g0 = g0;
        self.reset();
        Ok(self)
    }

    /// `ε`.
    pub fn epsilon(&self) -> f64 {
        self.eps
    }

    /// The initial accumulator `G₀`.
    pub fn initial_accumulator(&self) -> f64 {
        self.g0
    }

    /// The accumulator `G` (sum of squared gradients, plus `G₀`).
    pub fn accumulator(&self) -> &[f64] {
        &self.accumulator
    }
}

impl FirstOrder for AdaGrad {
    fn step(&mut self, w: &mut [f64], g: &[f64]) {
        debug_assert_eq!(w.len(), self.accumulator.len(), "AdaGrad::step: w has the wrong length");
        debug_assert_eq!(g.len(), self.accumulator.len(), "AdaGrad::step: g has the wrong length");
        let (eta, eps) = (self.eta, self.eps);
        for ((wi, ai), &gi) in w.iter_mut().zip(self.accumulator.iter_mut()).zip(g) {
            let a = *ai + gi * gi;
            *ai = a;
            *wi -= eta * gi / (a.sqrt() + eps);
        }
    }

    fn name(&self) -> &'static str {
        FirstOrderKind::AdaGrad.name()
    }

    fn reset(&mut self) {
        self.accumulator.fill(self.g0);
    }

    fn n_params(&self) -> usize {
        self.accumulator.len()
    }

    fn learning_rate(&self) -> f64 {
        self.eta
    }
}

/// Which first-order method, for command lines and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FirstOrderKind {
    /// [`Sgd`].
    Sgd,
    /// [`Nag`].
    Nag,
    /// [`Adam`].
    Adam,
    /// [`AdaGrad`].
    AdaGrad,
}

impl FirstOrderKind {
    /// The four: SGD, NAG, Adam, AdaGrad.
    pub const ALL: [Self; 4] = [Self::Sgd, Self::Nag, Self::Adam, Self::AdaGrad];

    /// The command-line name: `"sgd"`, `"nag"`, `"adam"`, `"adagrad"`
    /// (what [`Display`](fmt::Display) prints and [`FromStr`] reads).
    pub fn name(self) -> &'static str {
        match self {
            Self::Sgd => "sgd",
            Self::Nag => "nag",
            Self::Adam => "adam",
            Self::AdaGrad => "adagrad",
        }
    }

    /// The name as the papers print it in tables: `"SGD"`, `"NAG"`,
    /// `"Adam"`, `"AdaGrad"`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Sgd => "SGD",
            Self::Nag => "NAG",
            Self::Adam => "Adam",
            Self::AdaGrad => "AdaGrad",
        }
    }

    /// The rule for `n_params` parameters with learning rate `η` and the
    /// defaults of its type (`μ = 0.9`; `β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸`;
    /// `ε = 10⁻¹⁰, G₀ = 0`).
    ///
    /// # Errors
    /// [`StepRuleError`] naming `η` unless `0 < η < ∞`.
    pub fn build(self, n_params: usize, learning_rate: f64) -> Result<Box<dyn FirstOrder>, StepRuleError> {
        Ok(match self {
            Self::Sgd => Box::new(Sgd::new(n_params, learning_rate)?),
            Self::Nag => Box::new(Nag::new(n_params, learning_rate)?),
            Self::Adam => Box::new(Adam::new(n_params, learning_rate)?),
            Self::AdaGrad => Box::new(AdaGrad::new(n_params, learning_rate)?),
        })
    }

    /// The learning rate of Tomic et al.'s comparison: `10⁻³` for all four
    /// (Kingma & Ba's default for Adam). On their toy problems only, they
    /// run AdaGrad with `10⁻¹`; that is not returned here — pass it to
    /// [`build`](Self::build) explicitly for those.
    pub fn paper_learning_rate(self) -> f64 {
        1e-3
    }
}

impl fmt::Display for FirstOrderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name [`FirstOrderKind`]'s [`FromStr`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFirstOrder(pub String);

impl fmt::Display for UnknownFirstOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown first-order method {:?}; known methods: ", self.0)?;
        for (i, kind) in FirstOrderKind::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(kind.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownFirstOrder {}

impl FromStr for FirstOrderKind {
    type Err = UnknownFirstOrder;

    /// `sgd`, `nag`, `adam` or `adagrad`, case-insensitively, surrounding
    /// white space ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        Self::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| UnknownFirstOrder(s.to_string()))
    }
}
