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
//! Every model exports: the ELM and the BLS (and their updatable forms)
//! here, the SLFN, the deep network and the BPLS network in
//! [`networks`].

pub mod graph;
mod networks;
pub mod wire;

use models::bls::{Block, BIAS_INPUT};
use models::elm::HiddenLayer;
use models::{Activation, Bls, Elm};
use ndarray::{s, Array2, ArrayView2};

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
/// [`DataError::InvalidArgument`] for labels that do not match the
/// model's outputs.
pub fn export(parts: &ExportParts<'_>, float: OnnxFloat) -> Result<Vec<u8>, DataError> {
    let elem = float.elem();
    let mut g = Graph::new();
    let net = match parts.model {
        FittedModel::Elm(elm) => Net::Elm(elm),
        FittedModel::OnlineElm(online) => Net::Elm(online.model()),
        FittedModel::Bls(bls) => Net::Bls(bls),
        FittedModel::OnlineBls(online) => Net::Bls(online.model()),
        FittedModel::Slfn(net) => Net::Slfn(net),
        FittedModel::Dfnn(net) => Net::Dfnn(net),
        FittedModel::Mlp(net) => Net::Mlp(net),
    };
    let n_inputs = match net {
        Net::Elm(elm) => elm.hidden().n_inputs(),
        Net::Bls(bls) => bls.n_inputs(),
        Net::Slfn(n) => n.n_inputs(),
        Net::Dfnn(n) => n.n_inputs(),
        Net::Mlp(n) => n.weights()[0].nrows() - 1,
    };
    g.input("X", elem, &[Dim::Named("N"), Dim::Fixed(n_inputs)]);
    let x = scale_inputs(&mut g, "X", parts.scaler, elem)?;
    let (outputs, width) = match net {
        Net::Elm(elm) => elm_graph(&mut g, &x, elm, elem),
        Net::Bls(bls) => bls_graph(&mut g, &x, bls, elem),
        Net::Slfn(n) => networks::slfn_graph(&mut g, &x, n, elem),
        Net::Dfnn(n) => networks::dfnn_graph(&mut g, &x, n, elem),
        Net::Mlp(n) => networks::mlp_graph(&mut g, &x, n, elem),
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

/// The networks that export.
#[derive(Clone, Copy)]
enum Net<'m> {
    Elm(&'m Elm),
    Bls(&'m Bls),
    Slfn(&'m models::Slfn),
    Dfnn(&'m models::dfnn::Dfnn),
    Mlp(&'m models::Mlp),
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

/// The ELM: `f(xW + b)β`; returns the outputs and their number.
fn elm_graph(g: &mut Graph, x: &str, elm: &Elm, elem: ElemType) -> (String, usize) {
    let h = hidden_layer(g, x, elm.hidden(), elem);
    (linear(g, &h, elm.output_weights(), elem), elm.output_weights().ncols())
}

/// `[u, 0.1]·W` for `W` with one more row than `u` has columns (the BLS's
/// bias input, [`BIAS_INPUT`]): `u·W[..m] + 0.1·W[m]`.
fn with_bias_row(g: &mut Graph, u: &str, w: ArrayView2<'_, f64>, elem: ElemType) -> String {
    let m = w.nrows() - 1;
    let prod = linear(g, u, w.slice(s![..m, ..]), elem);
    let bias: Vec<f64> = w.row(m).iter().map(|v| BIAS_INPUT * v).collect();
    let b = g.constant("bias", &[bias.len()], &bias, elem);
    g.apply("Add", &[&prod, &b], &[])
}

/// The BLS (Chen's broad learning system as [`models::bls`] computes it):
/// each feature group `Z = ([X, 0.1]β − min)·gain`, each enhancement
/// group `H = tanh(s·[Z_F, 0.1]W_h)` of the feature nodes `F` feeding it,
/// the blocks concatenated in their append order and multiplied by the
/// output weights.
fn bls_graph(g: &mut Graph, x: &str, bls: &Bls, elem: ElemType) -> (String, usize) {
    let e = bls.expansion();
    let mut features = Vec::new();
    for f in e.feature_groups() {
        let v = with_bias_row(g, x, f.beta(), elem);
        let lo = g.constant("min", &[f.nodes()], &f.min().to_vec(), elem);
        let gain = g.constant("gain", &[f.nodes()], &f.gains(), elem);
        let shifted = g.apply("Sub", &[&v, &lo], &[]);
        features.push(g.apply("Mul", &[&shifted, &gain], &[]));
    }
    // All feature nodes in creation order, for the enhancement groups'
    // inputs (each a range of them).
    let all = if features.len() == 1 {
        features[0].clone()
    } else {
        let refs: Vec<&str> = features.iter().map(String::as_str).collect();
        g.apply("Concat", &refs, &[Attr::Int("axis", 1)])
    };
    let total = e.feature_nodes();
    let mut blocks = Vec::new();
    for (block, _) in e.columns() {
        match block {
            Block::Feature(i) => blocks.push(features[i].clone()),
            Block::Enhancement(j) => {
                let h = &e.enhancement_groups()[j];
                let (range, w) = (h.inputs(), h.weights());
                let p = w.ncols();
                // W_h's rows for F placed in a zero matrix over all the
                // feature nodes (the zero rows add exact zeros), and the
                // bias row apart.
                let mut padded = Array2::<f64>::zeros((total + 1, p));
                padded
                    .slice_mut(s![range.clone(), ..])
                    .assign(&w.slice(s![..range.len(), ..]));
                padded.row_mut(total).assign(&w.row(range.len()));
                let z = with_bias_row(g, &all, padded.view(), elem);
                let scale = g.constant("shrink", &[], &[h.scale()], elem);
                let scaled = g.apply("Mul", &[&z, &scale], &[]);
                blocks.push(g.apply("Tanh", &[&scaled], &[]));
            }
        }
    }
    let a = if blocks.len() == 1 {
        blocks[0].clone()
    } else {
        let refs: Vec<&str> = blocks.iter().map(String::as_str).collect();
        g.apply("Concat", &refs, &[Attr::Int("axis", 1)])
    };
    (linear(g, &a, bls.output_weights(), elem), bls.output_weights().ncols())
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
pub(crate) fn linear(g: &mut Graph, x: &str, w: ArrayView2<'_, f64>, elem: ElemType) -> String {
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
