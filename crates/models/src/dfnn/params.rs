//! Hyper-parameters of Palagi & Seccia's deep network, validated once,
//! behind the same seam as the other models (issue 38): [`DfnnParams`] →
//! [`ParamGuard::check`] → [`DfnnValidParams`], whose [`Fit`] builds the
//! starting network ([`Dfnn::random`]) on the data's widths and trains it.

use std::ops::ControlFlow;

use super::b2ld::B2ld;
use super::network::{Bias, Dfnn};
use super::train::{DfnnTrainer, Progress, TrainReport};
use crate::error::Result;
use crate::traits::{Dataset, Fit, ParamGuard};
use crate::validate;

/// The checked hyper-parameters ([`DfnnParams::check`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DfnnValidParams {
    hidden: Vec<usize>,
    bias: Bias,
    trainer: DfnnTrainer,
    rho: Option<f64>,
    seed: u64,
    init_scale: f64,
}

impl DfnnValidParams {
    /// The hidden layers' widths (the output layer's is the targets').
    pub fn hidden(&self) -> &[usize] {
        &self.hidden
    }

    /// Biases in every layer or none.
    pub fn bias(&self) -> Bias {
        self.bias
    }

    /// The trainer with its settings.
    pub fn trainer(&self) -> &DfnnTrainer {
        &self.trainer
    }

    /// `ρ` of objective (3); `None`: the paper's `10⁻³ / n` (`n` the number
    /// of weights, known once the data's widths are: [`Self::rho_for`]).
    pub fn rho(&self) -> Option<f64> {
        self.rho
    }

    /// The seed of the starting weights.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The starting weights are uniform on `[−init_scale, init_scale]`.
    pub fn init_scale(&self) -> f64 {
        self.init_scale
    }

    /// The starting network for `inputs` features and `outputs` targets.
    ///
    /// # Errors
    /// [`Dfnn::random`]'s: no inputs or outputs.
    pub fn start(&self, inputs: usize, outputs: usize) -> Result<Dfnn> {
        let widths = [&self.hidden[..], &[outputs]].concat();
        Dfnn::random(inputs, &widths, self.bias, self.seed, self.init_scale)
    }

    /// The `ρ` a fit of `net` uses: the one set, or the paper's
    /// [`Dfnn::paper_rho`].
    pub fn rho_for(&self, net: &Dfnn) -> f64 {
        self.rho.unwrap_or_else(|| net.paper_rho())
    }

    /// Fit on `data` as [`Fit::fit`] does, calling `progress` after every
    /// iteration (it may stop the fit by returning [`ControlFlow::Break`]),
    /// and return the training report too.
    ///
    /// # Errors
    /// The data checks, [`Dfnn::random`]'s and [`Dfnn::fit`]'s.
    pub fn fit_with_report(
        &self,
        data: &Dataset<'_>,
        progress: impl FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<(Dfnn, TrainReport)> {
        data.check()?;
        let (x, y) = (data.features(), data.targets());
        let mut net = self.start(x.ncols(), y.ncols())?;
        let rho = self.rho_for(&net);
        let report = net.fit(x, y, rho, &self.trainer, progress)?;
        Ok((net, report))
    }
}

impl Fit for DfnnValidParams {
    type Model = Dfnn;

    fn fit(&self, data: &Dataset<'_>) -> Result<Dfnn> {
        Ok(self.fit_with_report(data, |_| ControlFlow::Continue(()))?.0)
    }
}

/// Hyper-parameters of the deep network, unchecked.
///
/// ```
/// use models::dfnn::{DfnnParams, DfnnTrainer, Incremental, IncrementalKind};
/// use models::prelude::*;
/// use ndarray::{Array2, Axis};
/// let x = Array2::from_shape_fn((120, 2), |(i, j)| ((i * (j + 3)) % 17) as f64 / 16.0);
/// let y = x.map_axis(Axis(1), |r| 0.5 * r[0] + 0.25 * r[1]).insert_axis(Axis(1));
/// let data = Dataset::new(x.view(), y.view());
/// let bling = Incremental { max_epochs: 5, ..Incremental::new(IncrementalKind::Bling) };
/// let params = DfnnParams::new(&[8, 4]).with_trainer(DfnnTrainer::Incremental(bling)).with_seed(2).check()?;
/// let (net, report) = params.fit_with_report(&data, |_| std::ops::ControlFlow::Continue(()))?;
/// assert_eq!(report.iterations, 5);
/// assert_eq!(net.widths(), vec![8, 4, 1]);
/// assert_eq!(net.predict(x.view())?.dim(), (120, 1));
/// # Ok::<(), models::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DfnnParams(DfnnValidParams);

impl DfnnParams {
    /// `hidden` layers' widths, biases in every layer, B2LD with the
    /// paper's settings, the paper's `ρ = 10⁻³ / n`, seed 0, starting
    /// weights on `[−`[`super::INIT_SCALE`]`, `[`super::INIT_SCALE`]`]`.
    pub fn new(hidden: &[usize]) -> Self {
        Self(DfnnValidParams {
            hidden: hidden.to_vec(),
            bias: Bias::Every,
            trainer: DfnnTrainer::B2ld(B2ld::default()),
            rho: None,
            seed: 0,
            init_scale: super::INIT_SCALE,
        })
    }

    /// With biases in every layer or none.
    pub fn with_bias(mut self, bias: Bias) -> Self {
        self.0.bias = bias;
        self
    }

    /// With the trainer `trainer`.
    pub fn with_trainer(mut self, trainer: DfnnTrainer) -> Self {
        self.0.trainer = trainer;
        self
    }

    /// With `ρ = rho` (finite, ≥ 0) instead of the paper's `10⁻³ / n`.
    pub fn with_rho(mut self, rho: f64) -> Self {
        self.0.rho = Some(rho);
        self
    }

    /// With the seed of the starting weights.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }

    /// With starting weights uniform on `[−init_scale, init_scale]`
    /// (finite, > 0).
    pub fn with_init_scale(mut self, init_scale: f64) -> Self {
        self.0.init_scale = init_scale;
        self
    }
}

impl ParamGuard for DfnnParams {
    type Checked = DfnnValidParams;

    /// At least one hidden layer, every width ≥ 1; `ρ` finite and ≥ 0; the
    /// starting scale finite and > 0; the trainer's settings
    /// ([`DfnnTrainer::check`]).
    fn check_ref(&self) -> Result<&DfnnValidParams> {
        let p = &self.0;
        validate::at_least_one(
            "hidden layers",
            p.hidden.len(),
            "the network needs at least one hidden layer",
        )?;
        for &w in &p.hidden {
            validate::at_least_one("width", w, "every layer needs at least one unit")?;
        }
        if let Some(rho) = p.rho {
            validate::finite_scalar("rho", rho, false, "ρ must be finite and ≥ 0")?;
        }
        validate::finite_scalar(
            "init_scale",
            p.init_scale,
            true,
            "the scale of the starting weights must be finite and > 0",
        )?;
        p.trainer.check()?;
        Ok(p)
    }

    fn check(self) -> Result<DfnnValidParams> {
        self.check_ref()?;
        Ok(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dfnn::{FullLbfgs, Incremental, IncrementalKind};
    use crate::ModelError;
    use ndarray::Array2;

    fn invalid(p: DfnnParams) -> &'static str {
        match p.check() {
            Err(ModelError::InvalidParameter { name, .. }) => name,
            other => panic!("expected an invalid parameter, got {other:?}"),
        }
    }

    #[test]
    fn each_setting_is_checked_once_here() {
        assert_eq!(invalid(DfnnParams::new(&[])), "hidden layers");
        assert_eq!(invalid(DfnnParams::new(&[3, 0])), "width");
        assert_eq!(invalid(DfnnParams::new(&[3]).with_rho(-1.0)), "rho");
        assert_eq!(invalid(DfnnParams::new(&[3]).with_rho(f64::NAN)), "rho");
        assert_eq!(invalid(DfnnParams::new(&[3]).with_init_scale(0.0)), "init_scale");
        let lbfgs = FullLbfgs {
            memory: 0,
            ..FullLbfgs::default()
        };
        assert_eq!(
            invalid(DfnnParams::new(&[3]).with_trainer(DfnnTrainer::Lbfgs(lbfgs))),
            "memory"
        );
        let b2ld = B2ld {
            gradient_tolerance: -1.0,
            ..B2ld::default()
        };
        assert_eq!(
            invalid(DfnnParams::new(&[3]).with_trainer(DfnnTrainer::B2ld(b2ld))),
            "gradient_tolerance"
        );
        let ig = Incremental {
            batch_size: 0,
            ..Incremental::new(IncrementalKind::Ig)
        };
        assert_eq!(
            invalid(DfnnParams::new(&[3]).with_trainer(DfnnTrainer::Incremental(ig))),
            "batch_size"
        );
        assert!(DfnnParams::new(&[3, 2]).check().is_ok());
    }

    #[test]
    fn fit_is_random_then_train_with_the_same_settings() {
        let x = Array2::from_shape_fn((60, 3), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 10.0);
        let y = Array2::from_shape_fn((60, 2), |(i, j)| ((i + j) % 5) as f64 / 4.0);
        let trainer = DfnnTrainer::Lbfgs(FullLbfgs {
            max_iterations: 20,
            ..FullLbfgs::default()
        });
        let params = DfnnParams::new(&[5])
            .with_trainer(trainer.clone())
            .with_seed(9)
            .with_bias(Bias::None)
            .check()
            .expect("valid");
        let (net, report) = params
            .fit_with_report(&Dataset::new(x.view(), y.view()), |_| ControlFlow::Continue(()))
            .expect("fit");
        // The same two steps by hand: the same operations on the same numbers.
        let mut by_hand = Dfnn::random(3, &[5, 2], Bias::None, 9, super::super::INIT_SCALE).expect("net");
        let rho = by_hand.paper_rho();
        let again = by_hand
            .fit(x.view(), y.view(), rho, &trainer, |_| ControlFlow::Continue(()))
            .expect("fit");
        assert_eq!(net.weights(), by_hand.weights());
        assert_eq!(report.objective, again.objective);
        assert_eq!(
            Fit::fit(&params, &Dataset::new(x.view(), y.view()))
                .expect("fit")
                .weights(),
            net.weights()
        );
    }
}
