//! Hyper-parameters of the single-hidden-layer network and its trainers,
//! unchecked ([`SlfnParams`]) and validated ([`SlfnValidParams`]).

use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;
use std::time::{Duration, Instant};

use ndarray::Array2;
use optim::{Evaluations, Lbfgs, Termination};

use super::dec::{self, DecReport, DecSettings};
use super::error_fn::{ErrorFunction, FullObjective};
use super::network::{hidden_outputs, Slfn};
use crate::error::{ModelError, Result};
use crate::rng::node_stream;
use crate::traits::{Dataset, Fit, ParamGuard};
use crate::validate;

/// How the network is trained (Grippo et al. compare the three).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlfnTrainer {
    /// DEC (Algorithm 3) with `maxiter` major iterations (the paper's
    /// DEC(2) and DEC(10)).
    Dec {
        /// `maxiter ≥ 1`.
        maxiter: usize,
    },
    /// L-BFGS on all weights `(λ, w)` for exactly `iterations` iterations
    /// (the paper's lbfgs(500) and lbfgs(1000): no other stopping test; it
    /// stops earlier only if its line search fails).
    Lbfgs {
        /// The iteration count, ≥ 1.
        iterations: usize,
    },
    /// The ELM of the paper: `w` at its random start, `λ` the minimum-norm
    /// least-squares solution with `τ_λ = τ_w = 0` (LAPACK's SVD solver,
    /// the paper's DGELSS).
    Elm,
}

impl fmt::Display for SlfnTrainer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dec { maxiter } => write!(f, "DEC({maxiter})"),
            Self::Lbfgs { iterations } => write!(f, "lbfgs({iterations})"),
            Self::Elm => f.write_str("elm"),
        }
    }
}

impl FromStr for SlfnTrainer {
    type Err = ModelError;
    /// `dec` (DEC(10)), `lbfgs` (lbfgs(1000)), `elm`, or with the count:
    /// `dec:2`, `lbfgs:500`; case-insensitive.
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        let (name, count) = match lower.split_once(':') {
            Some((name, count)) => (
                name.to_string(),
                Some(count.parse::<usize>().map_err(|_| ModelError::InvalidParameter {
                    name: "trainer",
                    value: s.to_string(),
                    reason: "the count after ':' must be a whole number (e.g. dec:2, lbfgs:500)",
                })?),
            ),
            None => (lower, None),
        };
        match (name.as_str(), count) {
            ("dec", c) => Ok(Self::Dec {
                maxiter: c.unwrap_or(10),
            }),
            ("lbfgs" | "l-bfgs", c) => Ok(Self::Lbfgs {
                iterations: c.unwrap_or(1000),
            }),
            ("elm", None) => Ok(Self::Elm),
            _ => Err(ModelError::InvalidParameter {
                name: "trainer",
                value: s.to_string(),
                reason: "known trainers: dec[:MAXITER], lbfgs[:ITERATIONS], elm",
            }),
        }
    }
}

/// Validated hyper-parameters of the network ([`SlfnParams::check`](ParamGuard::check)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlfnValidParams {
    hidden: usize,
    trainer: SlfnTrainer,
    tau_lambda: f64,
    tau_w: Option<f64>,
    seed: u64,
    time_limit: Option<Duration>,
    relative_decrease: Option<f64>,
    lstsq_cut: Option<f64>,
}

impl SlfnValidParams {
    /// Number of hidden units `N`.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The trainer.
    pub fn trainer(&self) -> SlfnTrainer {
        self.trainer
    }

    /// `τ_λ` (ignored by [`SlfnTrainer::Elm`]).
    pub fn tau_lambda(&self) -> f64 {
        self.tau_lambda
    }

    /// `τ_w` for `n` inputs: as set, or the paper's `10⁻²/(n·N)`.
    pub fn tau_w(&self, n_inputs: usize) -> f64 {
        self.tau_w
            .unwrap_or(1e-2 / (n_inputs.max(1) as f64 * self.hidden as f64))
    }

    /// The seed of the starting point.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The time limit ([`SlfnParams::with_time_limit`]), if any.
    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit
    }

    /// The tolerance on progress ([`SlfnParams::with_relative_decrease`]),
    /// if any.
    pub fn relative_decrease(&self) -> Option<f64> {
        self.relative_decrease
    }

    /// The ELM's relative cut of small singular values
    /// ([`SlfnParams::with_lstsq_cut`]); `None`: `max(K, n)·ε`.
    pub fn lstsq_cut(&self) -> Option<f64> {
        self.lstsq_cut
    }

    /// The starting point for `n` inputs and `m` outputs: every weight
    /// uniform on `[−0.5, 0.5)` (the paper's `w⁰`), unit `j`'s from its own
    /// stream (`n` input weights, its threshold, then its `m` output
    /// weights), so a unit's start does not depend on `N`.
    pub fn start(&self, n_inputs: usize, n_outputs: usize) -> (Array2<f64>, Array2<f64>) {
        let mut w = Array2::zeros((self.hidden, n_inputs + 1));
        let mut lambda = Array2::zeros((self.hidden, n_outputs));
        for j in 0..self.hidden {
            let mut s = node_stream(self.seed, j as u64);
            for v in w.row_mut(j).iter_mut().chain(lambda.row_mut(j).iter_mut()) {
                *v = s.uniform() - 0.5;
            }
        }
        (w, lambda)
    }

    /// Fit and report: train with [`Self::trainer`], calling `progress`
    /// after each major iteration (DEC) or iteration (L-BFGS).
    ///
    /// # Errors
    /// The [`Dataset`] checks, and [`ModelError::Training`] or
    /// [`ModelError::Linalg`] when a solver fails.
    pub fn fit_with_report(
        &self,
        data: &Dataset<'_>,
        mut progress: impl FnMut(&Progress),
    ) -> Result<(Slfn, SlfnReport)> {
        let (x, y) = (data.features(), data.targets());
        let start = Instant::now();
        match self.trainer {
            // `fit_dec` checks the data and draws the same start itself.
            SlfnTrainer::Dec { maxiter } => {
                let settings = DecSettings {
                    relative_decrease: self.relative_decrease,
                    time_limit: self.time_limit,
                    ..DecSettings::new(maxiter)
                };
                self.fit_dec(data, &settings, progress)
            }
            SlfnTrainer::Lbfgs { iterations } => {
                data.check()?;
                let (w0, lambda0) = self.start(x.ncols(), y.ncols());
                let tau_w = self.tau_w(x.ncols());
                let error = ErrorFunction::new(x, y, self.tau_lambda, tau_w)?;
                let mut obj = FullObjective::new(error, self.hidden);
                let mut z: Vec<f64> = lambda0.iter().chain(w0.iter()).copied().collect();
                let mut lbfgs = Lbfgs::default()
                    .with_gradient_tolerance(0.0)
                    .with_max_iterations(iterations)
                    .with_relative_decrease(self.relative_decrease.unwrap_or(0.0));
                if let Some(t) = self.time_limit {
                    lbfgs = lbfgs.with_time_limit(t);
                }
                let r = lbfgs
                    .minimize_observed(&mut obj, &mut z, |it| {
                        progress(&Progress {
                            iteration: it.iteration,
                            objective: it.value,
                            elapsed: it.elapsed,
                        });
                        ControlFlow::Continue(())
                    })
                    .map_err(|e| ModelError::Training {
                        trainer: "L-BFGS",
                        reason: e.to_string(),
                    })?;
                let (nl, _) = obj.split();
                let lambda =
                    Array2::from_shape_vec(lambda0.raw_dim(), z[..nl].to_vec()).map_err(|e| ModelError::Training {
                        trainer: "L-BFGS",
                        reason: e.to_string(),
                    })?;
                let w = Array2::from_shape_vec(w0.raw_dim(), z[nl..].to_vec()).map_err(|e| ModelError::Training {
                    trainer: "L-BFGS",
                    reason: e.to_string(),
                })?;
                Ok((
                    Slfn::from_raw(w, lambda),
                    SlfnReport {
                        trainer: self.trainer,
                        objective: r.value,
                        iterations: r.iterations,
                        evaluations: r.evaluations,
                        termination: Some(r.termination),
                        elapsed: start.elapsed(),
                        dec: None,
                        elm_rank: None,
                    },
                ))
            }
            SlfnTrainer::Elm => {
                data.check()?;
                let (w0, _) = self.start(x.ncols(), y.ncols());
                let h = hidden_outputs(x, w0.view());
                let solved = linalg_core::lstsq::min_norm_lstsq(h.view(), y, self.lstsq_cut)?;
                let net = Slfn::from_raw(w0, solved.solution);
                let error = ErrorFunction::new(x, y, 0.0, 0.0)?;
                let objective = error.value(net.weights(), net.output_weights());
                progress(&Progress {
                    iteration: 1,
                    objective,
                    elapsed: start.elapsed(),
                });
                Ok((
                    net,
                    SlfnReport {
                        trainer: self.trainer,
                        objective,
                        iterations: 1,
                        evaluations: Evaluations::default(),
                        termination: None,
                        elapsed: start.elapsed(),
                        dec: None,
                        elm_rank: Some(solved.rank),
                    },
                ))
            }
        }
    }
}

impl SlfnValidParams {
    /// DEC from this network's start with `settings` in place of the
    /// paper's ([`DecSettings::new`]): its `maxiter` and every parameter
    /// the paper leaves open (Armijo's, θ, τ, the inner L-BFGS, CG's
    /// tolerance), for studies of their effect. The trainer, time limit
    /// and relative-decrease tolerance set on the params are not used;
    /// the report names `DEC(settings.maxiter)`.
    ///
    /// # Errors
    /// As [`fit_with_report`](Self::fit_with_report).
    pub fn fit_dec(
        &self,
        data: &Dataset<'_>,
        settings: &DecSettings,
        mut progress: impl FnMut(&Progress),
    ) -> Result<(Slfn, SlfnReport)> {
        data.check()?;
        let (x, y) = (data.features(), data.targets());
        let start = Instant::now();
        let (w0, _) = self.start(x.ncols(), y.ncols());
        let error = ErrorFunction::new(x, y, self.tau_lambda, self.tau_w(x.ncols()))?;
        let out = dec::train(&error, w0, settings, |it| {
            progress(&Progress {
                iteration: it.iteration,
                objective: it.objective,
                elapsed: it.elapsed,
            })
        })?;
        let objective = out.report.trace.last().map_or(f64::NAN, |t| t.objective);
        let iterations = out.report.trace.len();
        let evaluations = out.report.unit_evaluations;
        Ok((
            Slfn::from_raw(out.w, out.lambda),
            SlfnReport {
                trainer: SlfnTrainer::Dec {
                    maxiter: settings.maxiter,
                },
                objective,
                iterations,
                evaluations,
                termination: out.report.termination,
                elapsed: start.elapsed(),
                dec: Some(out.report),
                elm_rank: None,
            },
        ))
    }
}

/// What a trainer reports as it goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Major iterations (DEC) or iterations (L-BFGS) completed.
    pub iteration: usize,
    /// `E(λ, w)` (eq. (5); for the ELM with `τ = 0`).
    pub objective: f64,
    /// Time since the start of the fit.
    pub elapsed: Duration,
}

/// How a fit went.
#[derive(Clone, Debug, PartialEq)]
pub struct SlfnReport {
    /// The trainer.
    pub trainer: SlfnTrainer,
    /// The final `E(λ, w)` (for the ELM: with `τ = 0`).
    pub objective: f64,
    /// Major iterations (DEC), iterations (L-BFGS), 1 (ELM).
    pub iterations: usize,
    /// Evaluations: of one unit's error (DEC, each `O(P·n)`) or of the whole
    /// error with its gradient (L-BFGS).
    pub evaluations: Evaluations,
    /// Why DEC or L-BFGS stopped (`None` for the ELM).
    pub termination: Option<Termination>,
    /// Training time.
    pub elapsed: Duration,
    /// DEC's own counts and its objective after every major iteration.
    pub dec: Option<DecReport>,
    /// The ELM: the numerical rank of `H` at the cut
    /// ([`SlfnParams::with_lstsq_cut`]), the number of directions the
    /// least-squares solution uses.
    pub elm_rank: Option<usize>,
}

/// Hyper-parameters of the network, unchecked.
///
/// ```
/// use models::prelude::*;
/// use models::slfn::{SlfnParams, SlfnTrainer};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((200, 2), |(i, j)| ((i * (j + 3)) % 17) as f64 / 8.0 - 1.0);
/// let y = x.map_axis(ndarray::Axis(1), |r| (r[0] * r[1]).sin()).insert_axis(ndarray::Axis(1));
/// let data = Dataset::new(x.view(), y.view());
/// let params = SlfnParams::new(10).with_trainer(SlfnTrainer::Dec { maxiter: 5 }).check()?;
/// let (net, report) = params.fit_with_report(&data, |_| {})?;
/// let trace = &report.dec.as_ref().unwrap().trace;
/// assert!(trace.windows(2).all(|t| t[1].objective <= t[0].objective));
/// assert_eq!(net.predict(x.view())?.dim(), (200, 1));
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlfnParams(SlfnValidParams);

impl SlfnParams {
    /// The paper's `τ_λ = 10⁻³`.
    pub const DEFAULT_TAU_LAMBDA: f64 = 1e-3;
    /// DEC(10), the paper's main method.
    pub const DEFAULT_TRAINER: SlfnTrainer = SlfnTrainer::Dec { maxiter: 10 };

    /// `hidden` units, [`Self::DEFAULT_TRAINER`], `τ_λ =`
    /// [`Self::DEFAULT_TAU_LAMBDA`], `τ_w = 10⁻²/(n·N)`, seed 0.
    pub fn new(hidden: usize) -> Self {
        Self(SlfnValidParams {
            hidden,
            trainer: Self::DEFAULT_TRAINER,
            tau_lambda: Self::DEFAULT_TAU_LAMBDA,
            tau_w: None,
            seed: 0,
            time_limit: None,
            relative_decrease: None,
            lstsq_cut: None,
        })
    }

    crate::readout::field_setters!(
        /// With `hidden` units.
        with_hidden(hidden: usize),
        /// With the trainer `trainer`.
        with_trainer(trainer: SlfnTrainer),
        /// With `τ_λ = tau_lambda` (≥ 0).
        with_tau_lambda(tau_lambda: f64),
        /// With the seed of the starting point.
        with_seed(seed: u64),
    );

    /// With `τ_w = tau_w` (≥ 0) instead of the paper's `10⁻²/(n·N)`.
    pub fn with_tau_w(mut self, tau_w: f64) -> Self {
        self.0.tau_w = Some(tau_w);
        self
    }

    /// Stop training once it has taken `limit`: DEC checks before every
    /// unit's Step B, after its first Step A, which always runs
    /// ([`DecSettings::time_limit`]); L-BFGS between iterations. The ELM,
    /// one least-squares solve, has nothing to stop. Default: no limit.
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.0.time_limit = Some(limit);
        self
    }

    /// Stop when progress stalls: DEC after a major iteration, L-BFGS after
    /// an iteration that decreased `E` by at most `tol · max{E, 1}`
    /// ([`DecSettings::relative_decrease`]; L-BFGS's `ftol`). `tol` finite
    /// and ≥ 0. Default: off, the paper's fixed counts (DEC(maxiter),
    /// lbfgs(iterations)).
    pub fn with_relative_decrease(mut self, tol: f64) -> Self {
        self.0.relative_decrease = Some(tol);
        self
    }
}

impl SlfnParams {
    /// The ELM's least-squares cut: singular values of `H` below
    /// `cut · σ_max` count as zero (LAPACK's `RCOND` of DGELSS/DGELSD).
    /// Default `max(K, n)·ε`, MATLAB's `pinv` tolerance; DGELSS called with
    /// `RCOND < 0` cuts at `ε`. A wider cut (`1e-6`, `1e-4`) drops the
    /// directions a saturated hidden layer barely spans, which fit the
    /// training set's noise and blow up on new rows. `cut` finite and in
    /// `[0, 1)`; DEC and L-BFGS ignore it.
    pub fn with_lstsq_cut(mut self, cut: f64) -> Self {
        self.0.lstsq_cut = Some(cut);
        self
    }
}

impl ParamGuard for SlfnParams {
    type Checked = SlfnValidParams;

    /// `hidden ≥ 1`; `τ_λ, τ_w` finite and ≥ 0 (DEC's Step A needs
    /// `τ_λ > 0` unless `H` has full column rank); `maxiter ≥ 1`,
    /// iterations ≥ 1; the relative-decrease tolerance finite and ≥ 0.
    fn check_ref(&self) -> Result<&SlfnValidParams> {
        let p = &self.0;
        validate::at_least_one("hidden", p.hidden, "the network needs at least one hidden unit")?;
        validate::finite_scalar("tau_lambda", p.tau_lambda, false, "τ_λ must be finite and ≥ 0")?;
        if let Some(t) = p.tau_w {
            validate::finite_scalar("tau_w", t, false, "τ_w must be finite and ≥ 0")?;
        }
        if let Some(t) = p.relative_decrease {
            validate::finite_scalar("relative_decrease", t, false, "the tolerance must be finite and ≥ 0")?;
        }
        if let Some(c) = p.lstsq_cut {
            if !(c.is_finite() && (0.0..1.0).contains(&c)) {
                return Err(ModelError::InvalidParameter {
                    name: "lstsq_cut",
                    value: c.to_string(),
                    reason: "the cut is relative to the largest singular value: finite, in [0, 1)",
                });
            }
        }
        match p.trainer {
            SlfnTrainer::Dec { maxiter } => {
                validate::at_least_one("maxiter", maxiter, "DEC runs at least one Step A (maxiter ≥ 1)")?
            }
            SlfnTrainer::Lbfgs { iterations } => {
                validate::at_least_one("iterations", iterations, "L-BFGS needs at least one iteration")?
            }
            SlfnTrainer::Elm => {}
        }
        Ok(p)
    }

    fn check(self) -> Result<SlfnValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}

impl Fit for SlfnValidParams {
    type Model = Slfn;

    fn fit(&self, data: &Dataset<'_>) -> Result<Slfn> {
        Ok(self.fit_with_report(data, |_| {})?.0)
    }
}
