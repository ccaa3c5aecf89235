//! The seam between `nn fit` and a model: [`ModelCommand`], implemented
//! once per model, in the model's own file (`elm.rs`, `bls.rs`, `slfn.rs`,
//! `dfnn.rs`, `bpls.rs`), by the model's resolved flags. Everything `nn fit`
//! does that depends on the model — the line announcing the fit, the memory
//! the fit needs, the fit itself and the model's part of the JSON report —
//! goes through it; the rest of `nn fit` (files, scaling, labels, metrics,
//! saving) is the same for every model.

use ndarray::{Array2, ArrayView1};
use serde_json::{Map, Value};

use super::common::{CommonFlags, ModelKind, TaskKind};
use super::error::CliError;
use super::scale_out::ScaleOut;
use super::select::{SelectArgs, SelectionReport};
use nn_data::pipeline::FittedModel;

/// The sizes of a fit: samples, features, outputs and nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitSize {
    /// Training samples K.
    pub train: usize,
    /// Test samples.
    pub test: usize,
    /// Input features N.
    pub features: usize,
    /// Hidden (ELM) or expanded (BLS) nodes n at the end of the fit.
    pub nodes: usize,
    /// Outputs: 1 for regression, the number of classes for classification.
    pub outputs: usize,
}

/// What a model's fit may read besides its own flags.
#[derive(Clone, Copy, Debug)]
pub struct FitContext<'a> {
    /// Classification or regression.
    pub task: TaskKind,
    /// `--seed`.
    pub seed: u64,
    /// `--select-lambda` or `--grow-until-val` (the ELM and the BLS only).
    pub select: Option<&'a SelectArgs>,
    /// The sample weights of `--weight-column` (the ELM and the BLS), one per
    /// training row.
    pub weights: Option<ArrayView1<'a, f64>>,
}

/// A fitted model and what its fit reports.
#[derive(Debug)]
pub struct Trained {
    /// The model.
    pub model: FittedModel,
    /// The JSON's `hidden`: the hidden units in all (the chosen size after
    /// a selection, the BLS's nodes after its updates).
    pub hidden: usize,
    /// The JSON's `lambda`: the ridge parameter the fit used (λ, τ_λ, ρ),
    /// `None` for a fit without one.
    pub lambda: Option<f64>,
    /// `--select-lambda` / `--grow-until-val`: the choice and the curve.
    pub selection: Option<SelectionReport>,
    /// The model's own fields of the JSON report (the SLFN's objective,
    /// the BLS's updates, …), by their JSON names.
    pub details: Map<String, Value>,
}

/// The JSON fields of a model's own report part (a struct deriving
/// `Serialize`) as a map, for [`Trained::details`].
///
/// # Errors
/// [`CliError::Json`] if the part does not serialize to an object.
pub fn details_of<T: serde::Serialize>(part: &T) -> Result<Map<String, Value>, CliError> {
    match serde_json::to_value(part)? {
        Value::Object(map) => Ok(map),
        other => Err(CliError::Input(format!(
            "a model's report part must be a JSON object, not {other}"
        ))),
    }
}

/// What `nn fit` needs from a model, implemented by each model's resolved
/// flags in the model's file.
pub trait ModelCommand {
    /// `--model`'s value.
    fn kind(&self) -> ModelKind;

    /// The hidden units in all, before any growth (the JSON's `hidden`
    /// unless the fit reports another).
    fn hidden_units(&self) -> usize;

    /// The most hidden units the fit can reach (the memory estimate's
    /// size): [`hidden_units`](Self::hidden_units) unless a selection can
    /// grow the network further.
    fn largest_nodes(&self, select: Option<&SelectArgs>) -> usize {
        let _ = select;
        self.hidden_units()
    }

    /// The JSON's `activation`.
    fn activation_name(&self) -> String;

    /// The JSON's `solver` (the ELM's solver, the BLS's strategy, the
    /// trainer of the others).
    fn solver_name(&self) -> String;

    /// What is about to be fitted, after `nn fit: K training samples × N
    /// features (S scaling); ` on stderr; `outputs` is the number of
    /// output units.
    fn describe(&self, outputs: usize) -> String;

    /// Bytes of the large arrays of the fit (see `budget.rs`), `None` when
    /// the count overflows.
    fn fit_bytes(&self, size: FitSize) -> Option<u128>;

    /// The flags that make the fit smaller, for the refusal of a fit larger
    /// than the memory.
    fn smaller_fit_flags(&self) -> String;

    /// Fit on the scaled features `x` and the training targets `y` (one-hot
    /// classes or standardized values).
    ///
    /// # Errors
    /// Any [`CliError`] of the fit.
    fn train(&self, ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError>;

    /// The training file's column of sample weights (`--weight-column`),
    /// if the model takes one.
    fn weight_column(&self) -> Option<&str> {
        None
    }
}

/// A model's resolved flags: its settings (a [`ModelCommand`]) and the
/// scale-out and selection flags it takes (the ELM and the BLS; the
/// defaults for the others).
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved<M> {
    /// The model's settings.
    pub model: M,
    /// `--updatable`, `--chunk-rows`, `--distributed`.
    pub scale_out: ScaleOut,
    /// `--select-lambda` or `--grow-until-val`.
    pub select: Option<SelectArgs>,
}

impl<M> Resolved<M> {
    /// The settings of a model that takes no scale-out or selection flags.
    pub fn alone(model: M) -> Self {
        Resolved {
            model,
            scale_out: ScaleOut::default(),
            select: None,
        }
    }
}

/// A model's flags: the clap struct that lists exactly the flags that apply
/// to it (the common ones apart), and their resolution into its settings.
/// `nn fit` accepts the union of every model's struct and refuses a typed
/// flag that the chosen model's struct does not declare
/// ([`FitFlags`](crate::cli::FitFlags)).
pub trait ModelFlags: clap::Args + clap::FromArgMatches {
    /// The settings the flags resolve into.
    type Settings: ModelCommand;

    /// The `--model` these flags belong to.
    const KIND: ModelKind;

    /// Check the flags (with the common ones; `typed(id)`: the flag was
    /// given on the command line rather than defaulted) and resolve them.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the flag that is missing, refused or
    /// inconsistent.
    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool)
        -> Result<Resolved<Self::Settings>, CliError>;
}
