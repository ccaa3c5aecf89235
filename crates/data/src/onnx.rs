//! ONNX export (issue 43): a fitted model as an ONNX graph that ONNX
//! Runtime (or any ONNX runtime) evaluates to the same predictions.
//!
//! The graph takes the raw feature matrix `X` (`N × n`, double by default,
//! float on request), applies the pipeline's input scaling, the model, and
//! the pipeline's output mapping:
//!
//! - regression: `Y` (`N × 1`), the standardized outputs mapped back with
//!   the training targets' mean and standard deviation;
//! - classification: `label` (`N`, the user's class labels, integers or
//!   text, as `nn predict` prints them: the first class among equal
//!   scores, ONNX `ArgMax`'s rule too) and `scores` (`N × C`, the network's
//!   outputs).
//!
//! Every activation is exported as its standard operator (`Sigmoid`,
//! `Tanh`, `Relu`, `Sin`, `Identity`) or composed of standard ones (the
//! Gaussian `Exp(−x·x)`, the triangular basis `Relu(1 − |x|)`, the hard
//! limit `Where(x ≥ 0, 1, 0)`).
//!
//! What exports so far: the ELM ([`FittedModel::Elm`] and the updatable
//! ELM); the other models are refused by name (issue 43 is open).

pub mod graph;
pub mod wire;

use models::elm::HiddenLayer;
use models::Activation;
use ndarray::ArrayView2;

use self::graph::{Attr, Dim, ElemType, Graph};
use crate::pipeline::{FittedModel, FittedPipeline, InputScaler, TaskKind};
use crate::{ClassLabels, DataError};

/// The graph's floating-point type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnnxFloat {
    /// `double` (the default: the library's own precision).
    #[default]
    F64,
    /// `float`: weights rounded to the nearest float, arithmetic in float.
    F32,
}

impl OnnxFloat {
    fn elem(self) -> ElemType {
        match self {
            OnnxFloat::F64 => ElemType::F64,
            OnnxFloat::F32 => ElemType::F32,
        }
    }
}

/// The parts of a fitted model an export needs: the input scaling, the
/// model, and for regression the target scale, for classification the
/// labels.
#[derive(Clone, Copy, Debug)]
pub struct ExportParts<'a> {
    /// The input scaling (`None`: the model takes the features as they are,
    /// as the Python estimators' models do).
    pub scaler: Option<&'a InputScaler>,
    /// The model.
    pub model: &'a FittedModel,
    /// Regression: the training targets' `(mean, sd)` (`None`: none).
    pub target_scale: Option<(f64, f64)>,
    /// Classification: the classes' labels (`None`: regression).
    pub labels: Option<&'a ClassLabels>,
}

impl<'a> ExportParts<'a> {
    /// The parts of a saved pipeline (`nn fit --save`).
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] for a classifier saved without its
    /// labels (a model file older than format 5).
    pub fn of_pipeline(p: &'a FittedPipeline) -> Result<Self, DataError> {
        let labels = match p.task {
            TaskKind::Classification => Some(p.labels.as_ref().ok_or_else(|| DataError::InvalidArgument {
                what: "this classifier's model file predates class labels (format 5): refit it to export it".into(),
            })?),
            TaskKind::Regression => None,
        };
        Ok(Self {
            scaler: Some(&p.scaler),
            model: &p.model,
            target_scale: p.target_scale,
            labels,
        })
    }
}

/// The ONNX model (`ModelProto` bytes) of `parts` in precision `float`.
///
/// # Errors
/// [`DataError::InvalidArgument`] naming a model this module does not
/// export yet, or labels that do not match the model's outputs.
pub fn export(parts: &ExportParts<'_>, float: OnnxFloat) -> Result<Vec<u8>, DataError> {
    let elem = float.elem();
    let mut g = Graph::new();
    let n_inputs;
    let outputs = match parts.model {
        FittedModel::Elm(elm) => {
            n_inputs = elm.hidden().n_inputs();
            g.input("X", elem, &[Dim::Named("N"), Dim::Fixed(n_inputs)]);
            let x = scale_inputs(&mut g, "X", parts.scaler, elem)?;
            let h = hidden_layer(&mut g, &x, elm.hidden(), elem);
            linear(&mut g, &h, elm.output_weights(), elem)
        }
        FittedModel::OnlineElm(online) => {
            let elm = online.model();
            n_inputs = elm.hidden().n_inputs();
            g.input("X", elem, &[Dim::Named("N"), Dim::Fixed(n_inputs)]);
            let x = scale_inputs(&mut g, "X", parts.scaler, elem)?;
            let h = hidden_layer(&mut g, &x, elm.hidden(), elem);
            linear(&mut g, &h, elm.output_weights(), elem)
        }
        other => {
            return Err(DataError::InvalidArgument {
                what: format!(
                    "ONNX export of the {} is not implemented yet (issue 43): the ELM exports",
                    model_name(other)
                ),
            })
        }
    };
    let width = match parts.model {
        FittedModel::Elm(elm) => elm.output_weights().ncols(),
        FittedModel::OnlineElm(online) => online.model().output_weights().ncols(),
        _ => 0,
    };
    match parts.labels {
        None => {
            let y = match parts.target_scale {
                Some((mean, sd)) => {
                    let s = g.constant("target_sd", &[], &[sd], elem);
                    let m = g.constant("target_mean", &[], &[mean], elem);
                    let scaled = g.apply("Mul", &[&outputs, &s], &[]);
                    g.apply("Add", &[&scaled, &m], &[])
                }
                None => outputs,
            };
            g.node("Identity", &[&y], &["Y"], &[]);
            g.output("Y", elem, &[Dim::Named("N"), Dim::Fixed(width)]);
        }
        Some(labels) => {
            let count = match labels {
                ClassLabels::Integers(v) => v.len(),
                ClassLabels::Text(v) => v.len(),
            };
            if count != width {
                return Err(DataError::InvalidArgument {
                    what: format!("{count} class labels for a model of {width} outputs"),
                });
            }
            g.node("Identity", &[&outputs], &["scores"], &[]);
            g.output("scores", elem, &[Dim::Named("N"), Dim::Fixed(width)]);
            let index = g.apply("ArgMax", &[&outputs], &[Attr::Int("axis", 1), Attr::Int("keepdims", 0)]);
            let (table, label_type) = match labels {
                ClassLabels::Integers(v) => (g.constant_i64("labels", &[v.len()], v), ElemType::I64),
                ClassLabels::Text(v) => (g.constant_strings("labels", v), ElemType::Str),
            };
            g.node("Gather", &[&table, &index], &["label"], &[Attr::Int("axis", 0)]);
            g.output("label", label_type, &[Dim::Named("N")]);
        }
    }
    g.into_model("decomp_nn", ("decomp-nn", env!("CARGO_PKG_VERSION")))
}

fn model_name(m: &FittedModel) -> &'static str {
    match m {
        FittedModel::Elm(_) | FittedModel::OnlineElm(_) => "ELM",
        FittedModel::Bls(_) | FittedModel::OnlineBls(_) => "BLS",
        FittedModel::Slfn(_) => "SLFN",
        FittedModel::Dfnn(_) => "DFNN",
        FittedModel::Mlp(_) => "BPLS network",
    }
}

/// `(x − shift) / scale` per column, as the pipeline's scaler computes it.
fn scale_inputs(g: &mut Graph, x: &str, scaler: Option<&InputScaler>, elem: ElemType) -> Result<String, DataError> {
    let Some((shift, scale)) = scaler.and_then(InputScaler::shift_and_scale) else {
        return Ok(x.to_string());
    };
    let n = shift.len();
    let s = g.constant("shift", &[n], &shift, elem);
    let d = g.constant("scale", &[n], &scale, elem);
    let centred = g.apply("Sub", &[x, &s], &[]);
    Ok(g.apply("Div", &[&centred, &d], &[]))
}

/// `f(x·W + b)` of a hidden layer.
fn hidden_layer(g: &mut Graph, x: &str, layer: &HiddenLayer, elem: ElemType) -> String {
    let w = layer.weights();
    let z = linear(g, x, w, elem);
    let b = layer.biases();
    let bias = g.constant("b", &[b.len()], &b.to_vec(), elem);
    let z = g.apply("Add", &[&z, &bias], &[]);
    activation(g, &z, layer.activation(), elem)
}

/// `x · W` for a weight matrix `W` (rows: inputs).
fn linear(g: &mut Graph, x: &str, w: ArrayView2<'_, f64>, elem: ElemType) -> String {
    let values: Vec<f64> = w.iter().copied().collect();
    let w = g.constant("W", &[w.nrows(), w.ncols()], &values, elem);
    g.apply("MatMul", &[x, &w], &[])
}

/// The activation `f` applied to `z`, exactly where ONNX has it and
/// composed of standard operators where it has not.
pub fn activation(g: &mut Graph, z: &str, f: Activation, elem: ElemType) -> String {
    match f {
        Activation::Sigmoid => g.apply("Sigmoid", &[z], &[]),
        Activation::Tanh => g.apply("Tanh", &[z], &[]),
        Activation::Relu => g.apply("Relu", &[z], &[]),
        Activation::Sine => g.apply("Sin", &[z], &[]),
        Activation::Linear => g.apply("Identity", &[z], &[]),
        // e^{−z²}
        Activation::Gaussian => {
            let sq = g.apply("Mul", &[z, z], &[]);
            let neg = g.apply("Neg", &[&sq], &[]);
            g.apply("Exp", &[&neg], &[])
        }
        // max(0, 1 − |z|)
        Activation::Triangular => {
            let one = g.constant("one", &[], &[1.0], elem);
            let abs = g.apply("Abs", &[z], &[]);
            let d = g.apply("Sub", &[&one, &abs], &[]);
            g.apply("Relu", &[&d], &[])
        }
        // 1 where z ≥ 0, else 0 (NaN: 0, as the library's `z >= 0`).
        Activation::Hardlim => {
            let zero = g.constant("zero", &[], &[0.0], elem);
            let one = g.constant("one", &[], &[1.0], elem);
            let ge = g.apply("GreaterOrEqual", &[z, &zero], &[]);
            g.apply("Where", &[&ge, &one, &zero], &[])
        }
    }
}

#[cfg(test)]
mod tests;
