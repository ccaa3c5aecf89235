//! The toy problems of Section III-A (Figs. 4–5): two functions of one
//! input, learned from the odd inputs 1, 3, …, 9 with Gaussian noise on the
//! targets and tested on the even inputs 2, 4, …, 10 against the noise-free
//! function; RMSE against the noise standard deviation σ over Monte Carlo
//! runs, for BPLS (Algorithm 1) and the four backprop rules.
//!
//! The network: the input `x` and a bias, three hidden neurons, two outputs
//! (the paper's `M = 2`, `N₁ = 3`, `J = 2`); linear (no activations, their
//! Fig. 2) for the linear function, sigmoid hidden and output neurons
//! (their Fig. 3) for the non-linear one. Ours has a bias in the hidden
//! layer too (the paper's has it at the input only). Backprop: batch size 1
//! on the five samples, 1000 epochs, η = 10⁻³ (AdaGrad 10⁻¹: the paper's
//! footnote 2), the squared error. RMSE here is `sqrt(mean over runs,
//! samples and outputs of (ỹ − ŷ)²)` with `ỹ` the noise-free target (the
//! paper's `sqrt(1/M_c Σ_m ‖ỹ_m − ŷ_m‖²)`, per entry).

use std::ops::ControlFlow;

use models::mlp::{Backprop, BplsParams, Mlp, OutputActivation};
use models::optim::first_order::FirstOrderKind;
use models::prelude::*;
use models::rng::node_stream;
use models::Activation;
use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::super::ReproError;

/// Which toy function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// `ỹ₁ = −x/3 + 2`, `ỹ₂ = 2x − 1` (Fig. 4).
    Linear,
    /// `ỹ₁ = 1/(1 + exp(log₁₀ x^{−3/2}))`, `ỹ₂ = 1/(1 + exp(x^{−1/4}))`
    /// (Fig. 5).
    NonLinear,
}

impl Problem {
    /// Both, in the paper's order.
    pub const ALL: [Problem; 2] = [Problem::Linear, Problem::NonLinear];

    /// The name in files and tables.
    pub fn key(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::NonLinear => "nonlinear",
        }
    }

    /// The paper's figure.
    pub fn figure(self) -> &'static str {
        match self {
            Self::Linear => "Fig. 4",
            Self::NonLinear => "Fig. 5",
        }
    }

    /// The noise-free targets at `x`.
    pub fn truth(self, x: f64) -> [f64; 2] {
        match self {
            Self::Linear => [-x / 3.0 + 2.0, 2.0 * x - 1.0],
            Self::NonLinear => [
                1.0 / (1.0 + (x.powf(-1.5)).log10().exp()),
                1.0 / (1.0 + x.powf(-0.25).exp()),
            ],
        }
    }

    pub(crate) fn activations(self) -> (Activation, OutputActivation) {
        match self {
            Self::Linear => (Activation::Linear, OutputActivation::Linear),
            Self::NonLinear => (Activation::Sigmoid, OutputActivation::Sigmoid),
        }
    }
}

/// The methods compared, in the paper's order.
pub const METHODS: [&str; 5] = ["BPLS", "Adam", "NAG", "SGD", "AdaGrad"];

/// One point of Fig. 4 or 5: a method's RMSE at one σ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToyPoint {
    /// `linear` or `nonlinear`.
    pub problem: String,
    /// One of [`METHODS`].
    pub method: String,
    /// The noise's standard deviation.
    #[serde(deserialize_with = "crate::papers::cell_store::f64_or_null")]
    pub sigma: f64,
    /// RMSE on the training inputs (against the noise-free targets).
    #[serde(deserialize_with = "crate::papers::cell_store::f64_or_null")]
    pub rmse_train: f64,
    /// RMSE on the test inputs.
    #[serde(deserialize_with = "crate::papers::cell_store::f64_or_null")]
    pub rmse_test: f64,
    /// Monte Carlo runs.
    pub runs: usize,
    /// Mean training time per run (s).
    #[serde(deserialize_with = "crate::papers::cell_store::f64_or_null")]
    pub seconds: f64,
}

/// The inputs `x` (as a column) and their noise-free targets.
fn samples(problem: Problem, xs: &[f64]) -> (Array2<f64>, Array2<f64>) {
    let x = Array2::from_shape_fn((xs.len(), 1), |(i, _)| xs[i]);
    let y = Array2::from_shape_fn((xs.len(), 2), |(i, j)| problem.truth(xs[i])[j]);
    (x, y)
}

/// A standard normal from the stream (Box–Muller).
fn normal(s: &mut models::rng::SplitMix64) -> f64 {
    let u1 = 1.0 - s.uniform();
    let u2 = s.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Sum of squared differences.
fn sq(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    a.iter().zip(b).map(|(p, t)| (p - t) * (p - t)).sum()
}

/// The five training and test samples and, for run `r` at noise `sigma`,
/// the noisy training targets and the starting network: the same for
/// every method (the noise from its own stream per σ and run).
struct Setup {
    problem: Problem,
    x: Array2<f64>,
    y: Array2<f64>,
    xt: Array2<f64>,
    yt: Array2<f64>,
}

impl Setup {
    fn new(problem: Problem) -> Self {
        let odd: Vec<f64> = (0..5).map(|i| (2 * i + 1) as f64).collect();
        let even: Vec<f64> = (0..5).map(|i| (2 * i + 2) as f64).collect();
        let (x, y) = samples(problem, &odd);
        let (xt, yt) = samples(problem, &even);
        Self { problem, x, y, xt, yt }
    }

    /// Run `r` at `sigma`: the noisy targets and the starting network.
    fn run(&self, sigma: f64, r: usize) -> Result<(Array2<f64>, Mlp), ReproError> {
        let mut noise = node_stream(0x7041_5049 ^ sigma.to_bits(), r as u64);
        let y_noisy = self.y.mapv(|v| v + sigma * normal(&mut noise));
        let (hidden, output) = self.problem.activations();
        Ok((y_noisy, Mlp::random(1, &[3], 2, hidden, output, r as u64, 1.0)?))
    }

    /// Squared errors of `net` against the noise-free targets: (training,
    /// test).
    fn errors(&self, net: &Mlp) -> Result<(f64, f64), ReproError> {
        Ok((
            sq(&net.predict(self.x.view())?, &self.y),
            sq(&net.predict(self.xt.view())?, &self.yt),
        ))
    }
}

/// BPLS's Algorithm 1 with clipping margin `clip` from `start`.
fn fit_bpls(problem: Problem, clip: f64, start: &Mlp, data: &Dataset<'_>) -> Result<Mlp, ReproError> {
    let (hidden, output) = problem.activations();
    Ok(BplsParams::new(vec![3])
        .with_hidden_activation(hidden)
        .with_output(output)
        .with_clip(clip)
        .check()?
        .fit_from(start.clone(), data, |_, _| {})?
        .0)
}

/// The clipping margins δ of [`clip_sweep`]: BPLS clips sigmoid targets
/// into `[δ, 1 − δ]` before the logit (the default 10⁻³ first).
pub const CLIPS: [f64; 4] = [1e-3, 1e-2, 5e-2, 1e-1];

/// BPLS alone at every σ with each clipping margin of [`CLIPS`], on the
/// same noise and starting weights as [`run`]: how much of BPLS's error on
/// noisy targets of a sigmoid output comes from clipping them (noise takes
/// targets near 0 or 1 out of the open range, where the logit is steep or
/// undefined). Methods are named `BPLS δ=…`.
///
/// # Errors
/// Model errors.
pub fn clip_sweep(problem: Problem, sigmas: &[f64], runs: usize) -> Result<Vec<ToyPoint>, ReproError> {
    let setup = Setup::new(problem);
    let mut points = vec![];
    for &sigma in sigmas {
        let mut acc = vec![(0.0, 0.0); CLIPS.len()];
        for r in 0..runs {
            let (y_noisy, start) = setup.run(sigma, r)?;
            let data = Dataset::new(setup.x.view(), y_noisy.view());
            for (c, &clip) in CLIPS.iter().enumerate() {
                let (e, et) = setup.errors(&fit_bpls(problem, clip, &start, &data)?)?;
                acc[c].0 += e;
                acc[c].1 += et;
            }
        }
        let entries = (runs * setup.y.len()) as f64;
        for (c, &clip) in CLIPS.iter().enumerate() {
            points.push(ToyPoint {
                problem: problem.key().into(),
                method: format!("BPLS δ={clip}"),
                sigma,
                rmse_train: (acc[c].0 / entries).sqrt(),
                rmse_test: (acc[c].1 / entries).sqrt(),
                runs,
                seconds: f64::NAN,
            });
        }
    }
    Ok(points)
}

/// Every method at every σ over `runs` Monte Carlo runs (run `r`: the same
/// noise and the same starting weights for every method).
///
/// # Errors
/// Model errors.
pub fn run(problem: Problem, sigmas: &[f64], runs: usize, epochs: usize) -> Result<Vec<ToyPoint>, ReproError> {
    let setup = Setup::new(problem);
    let mut points = vec![];
    for &sigma in sigmas {
        let mut acc = vec![(0.0, 0.0, 0.0); METHODS.len()];
        for r in 0..runs {
            let (y_noisy, start) = setup.run(sigma, r)?;
            let data = Dataset::new(setup.x.view(), y_noisy.view());
            for (m, name) in METHODS.iter().enumerate() {
                let t = std::time::Instant::now();
                let net = if *name == "BPLS" {
                    fit_bpls(problem, models::mlp::DEFAULT_CLIP, &start, &data)?
                } else {
                    let kind: FirstOrderKind = name
                        .to_ascii_lowercase()
                        .parse()
                        .map_err(|e| ReproError::Protocol(format!("{e}")))?;
                    let lr = if kind == FirstOrderKind::AdaGrad {
                        0.1
                    } else {
                        kind.paper_learning_rate()
                    };
                    let mut net = start.clone();
                    Backprop::new(kind)
                        .with_learning_rate(lr)
                        .with_batch_size(1)
                        .with_epochs(epochs)
                        .with_shuffle(Some(r as u64))
                        .train(&mut net, &data, |_, _| ControlFlow::Continue(()))?;
                    net
                };
                let secs = t.elapsed().as_secs_f64();
                let (e, et) = setup.errors(&net)?;
                acc[m].0 += e;
                acc[m].1 += et;
                acc[m].2 += secs;
            }
        }
        let entries = (runs * setup.y.len()) as f64;
        for (m, name) in METHODS.iter().enumerate() {
            points.push(ToyPoint {
                problem: problem.key().into(),
                method: (*name).into(),
                sigma,
                rmse_train: (acc[m].0 / entries).sqrt(),
                rmse_test: (acc[m].1 / entries).sqrt(),
                runs,
                seconds: acc[m].2 / runs as f64,
            });
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The functions as printed: ỹ(1) and ỹ(10).
    #[test]
    fn the_toy_functions_are_the_papers() {
        assert_eq!(Problem::Linear.truth(3.0), [1.0, 5.0]);
        let [a, b] = Problem::NonLinear.truth(1.0);
        assert!((a - 0.5).abs() < 1e-15 && (b - 1.0 / (1.0 + 1f64.exp())).abs() < 1e-15);
        // log₁₀(10^{−3/2}) = −1.5.
        let [a, _] = Problem::NonLinear.truth(10.0);
        assert!((a - 1.0 / (1.0 + (-1.5f64).exp())).abs() < 1e-15);
    }

    /// Without noise BPLS learns the linear function exactly (Algorithm 1
    /// on a linear network), on the test inputs too.
    #[test]
    fn bpls_is_exact_on_the_noise_free_linear_problem() {
        let p = run(Problem::Linear, &[0.0], 2, 3).expect("run");
        let bpls = p.iter().find(|q| q.method == "BPLS").expect("BPLS");
        assert!(bpls.rmse_train < 1e-4 && bpls.rmse_test < 1e-4, "{bpls:?}");
    }
}
