//! The exported bytes decoded back (a protobuf round trip): the model's
//! header, the graph's inputs, outputs, operators and constants, and the
//! graph evaluated by a small interpreter of the operators it names,
//! written from ONNX's operator definitions — independent of the library's
//! `predict` — against the pipeline's predictions.

use std::collections::HashMap;

use models::{Activation, Elm, HiddenLayer, ReadoutSolver};
use ndarray::{Array1, Array2, Axis};

use super::graph::min_opset;
use super::wire::{fields, packed_ints, Value};
use super::{export, ExportParts, OnnxFloat};
use crate::pipeline::{FittedModel, InputScaler};
use crate::{ClassLabels, StandardScaler};

/// The decoded parts of a `ModelProto`.
struct Decoded {
    ir_version: i64,
    opset: i64,
    producer: String,
    nodes: Vec<Node>,
    constants: HashMap<String, Tensor>,
    inputs: Vec<(String, i64, Vec<Option<i64>>)>,
    outputs: Vec<(String, i64, Vec<Option<i64>>)>,
}

struct Node {
    op: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    ints: HashMap<String, i64>,
}

/// A tensor: shape, element type, and its values (numbers as f64, for the
/// interpreter; strings apart).
#[derive(Clone, Debug, PartialEq)]
struct Tensor {
    dims: Vec<usize>,
    elem: i64,
    values: Vec<f64>,
    strings: Vec<String>,
}

fn one<'a>(bytes: &'a [u8], field: u32) -> Vec<Value<'a>> {
    fields(bytes)
        .expect("a message")
        .into_iter()
        .filter(|(n, _)| *n == field)
        .map(|(_, v)| v)
        .collect()
}

fn text(v: &Value<'_>) -> String {
    v.as_str().expect("a string").to_string()
}

fn value_info(bytes: &[u8]) -> (String, i64, Vec<Option<i64>>) {
    let name = text(&one(bytes, 1)[0]);
    let ty = one(bytes, 2)[0].as_bytes().expect("type");
    let tensor = one(ty, 1)[0].as_bytes().expect("tensor type");
    let elem = one(tensor, 1)[0].as_int().expect("elem type");
    let shape = one(tensor, 2)[0].as_bytes().expect("shape");
    let dims = one(shape, 1)
        .iter()
        .map(|d| one(d.as_bytes().expect("dim"), 1).first().and_then(Value::as_int))
        .collect();
    (name, elem, dims)
}

fn decode(bytes: &[u8]) -> Decoded {
    let graph = one(bytes, 7)[0].as_bytes().expect("graph");
    let opset_import = one(bytes, 8)[0].as_bytes().expect("opset");
    let mut constants = HashMap::new();
    for t in one(graph, 5) {
        let t = t.as_bytes().expect("tensor");
        let dims: Vec<usize> = one(t, 1).iter().map(|d| d.as_int().expect("dim") as usize).collect();
        let elem = one(t, 2)[0].as_int().expect("data type");
        let name = text(&one(t, 8)[0]);
        let strings: Vec<String> = one(t, 6).iter().map(text).collect();
        let values = match one(t, 9).first() {
            Some(raw) => {
                let raw = raw.as_bytes().expect("raw");
                match elem {
                    1 => raw
                        .chunks(4)
                        .map(|c| f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes"))))
                        .collect(),
                    7 => raw
                        .chunks(8)
                        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")) as f64)
                        .collect(),
                    11 => raw
                        .chunks(8)
                        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                        .collect(),
                    other => panic!("raw data of type {other}"),
                }
            }
            None => Vec::new(),
        };
        constants.insert(
            name,
            Tensor {
                dims,
                elem,
                values,
                strings,
            },
        );
    }
    let nodes = one(graph, 1)
        .iter()
        .map(|n| {
            let n = n.as_bytes().expect("node");
            let mut ints = HashMap::new();
            for a in one(n, 5) {
                let a = a.as_bytes().expect("attribute");
                if let Some(i) = one(a, 3).first() {
                    ints.insert(text(&one(a, 1)[0]), i.as_int().expect("int"));
                }
                if let Some(v) = one(a, 8).first() {
                    let v = packed_ints(v.as_bytes().expect("ints")).expect("packed");
                    ints.insert(text(&one(a, 1)[0]), v[0]);
                }
            }
            Node {
                op: text(&one(n, 4)[0]),
                inputs: one(n, 1).iter().map(text).collect(),
                outputs: one(n, 2).iter().map(text).collect(),
                ints,
            }
        })
        .collect();
    Decoded {
        ir_version: one(bytes, 1)[0].as_int().expect("ir"),
        opset: one(opset_import, 2)[0].as_int().expect("version"),
        producer: text(&one(bytes, 2)[0]),
        nodes,
        constants,
        inputs: one(graph, 11)
            .iter()
            .map(|v| value_info(v.as_bytes().expect("vi")))
            .collect(),
        outputs: one(graph, 12)
            .iter()
            .map(|v| value_info(v.as_bytes().expect("vi")))
            .collect(),
    }
}

/// Numpy-style broadcasting of two tensors of rank ≤ 2.
fn broadcast(a: &Tensor, b: &Tensor, f: impl Fn(f64, f64) -> f64) -> Tensor {
    let as2 = |t: &Tensor| -> (usize, usize) {
        match t.dims.len() {
            0 => (1, 1),
            1 => (1, t.dims[0]),
            _ => (t.dims[0], t.dims[1]),
        }
    };
    let ((ra, ca), (rb, cb)) = (as2(a), as2(b));
    let (r, c) = (ra.max(rb), ca.max(cb));
    let mut values = Vec::with_capacity(r * c);
    for i in 0..r {
        for j in 0..c {
            let x = a.values[(i % ra) * ca + (j % ca)];
            let y = b.values[(i % rb) * cb + (j % cb)];
            values.push(f(x, y));
        }
    }
    let dims = if a.dims.len().max(b.dims.len()) == 2 {
        vec![r, c]
    } else {
        vec![c]
    };
    Tensor {
        dims,
        elem: a.elem,
        values,
        strings: Vec::new(),
    }
}

fn map(a: &Tensor, f: impl Fn(f64) -> f64) -> Tensor {
    Tensor {
        values: a.values.iter().map(|&v| f(v)).collect(),
        ..a.clone()
    }
}

/// Evaluate the decoded graph on `x` by ONNX's definitions of its operators.
fn run(model: &Decoded, x: &Array2<f64>) -> HashMap<String, Tensor> {
    let mut env = model.constants.clone();
    env.insert(
        model.inputs[0].0.clone(),
        Tensor {
            dims: vec![x.nrows(), x.ncols()],
            elem: model.inputs[0].1,
            values: x.iter().copied().collect(),
            strings: Vec::new(),
        },
    );
    for n in &model.nodes {
        let arg = |i: usize| env[&n.inputs[i]].clone();
        let out = match n.op.as_str() {
            "Sub" => broadcast(&arg(0), &arg(1), |a, b| a - b),
            "Div" => broadcast(&arg(0), &arg(1), |a, b| a / b),
            "Add" => broadcast(&arg(0), &arg(1), |a, b| a + b),
            "Mul" => broadcast(&arg(0), &arg(1), |a, b| a * b),
            "GreaterOrEqual" => broadcast(&arg(0), &arg(1), |a, b| f64::from(u8::from(a >= b))),
            "Where" => {
                let (c, t, e) = (arg(0), arg(1), arg(2));
                let pick = broadcast(&c, &t, |c, t| if c != 0.0 { t } else { f64::NAN });
                let other = broadcast(&c, &e, |c, e| if c != 0.0 { f64::NAN } else { e });
                broadcast(&pick, &other, |p, o| if p.is_nan() { o } else { p })
            }
            "MatMul" => {
                let (a, b) = (arg(0), arg(1));
                let (k, m, n2) = (a.dims[0], a.dims[1], b.dims[1]);
                assert_eq!(b.dims[0], m);
                let mut values = vec![0.0; k * n2];
                for i in 0..k {
                    for j in 0..n2 {
                        values[i * n2 + j] = (0..m).map(|p| a.values[i * m + p] * b.values[p * n2 + j]).sum();
                    }
                }
                Tensor {
                    dims: vec![k, n2],
                    elem: a.elem,
                    values,
                    strings: Vec::new(),
                }
            }
            "Sigmoid" => map(&arg(0), |v| 1.0 / (1.0 + (-v).exp())),
            "Tanh" => map(&arg(0), f64::tanh),
            "Relu" => map(&arg(0), |v| v.max(0.0)),
            "Sin" => map(&arg(0), f64::sin),
            "Exp" => map(&arg(0), f64::exp),
            "Neg" => map(&arg(0), |v| -v),
            "Abs" => map(&arg(0), f64::abs),
            "Identity" => arg(0),
            "Softmax" => {
                let a = arg(0);
                assert_eq!(n.ints["axis"], 1);
                let c = a.dims[1];
                let mut values = Vec::with_capacity(a.values.len());
                for row in a.values.chunks(c) {
                    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let e: Vec<f64> = row.iter().map(|v| (v - max).exp()).collect();
                    let sum: f64 = e.iter().sum();
                    values.extend(e.iter().map(|v| v / sum));
                }
                Tensor { values, ..a }
            }
            "Concat" => {
                assert_eq!(n.ints["axis"], 1);
                let parts: Vec<Tensor> = (0..n.inputs.len()).map(arg).collect();
                let rows = parts[0].dims[0];
                let cols: usize = parts.iter().map(|p| p.dims[1]).sum();
                let mut values = Vec::with_capacity(rows * cols);
                for i in 0..rows {
                    for p in &parts {
                        let c = p.dims[1];
                        values.extend_from_slice(&p.values[i * c..(i + 1) * c]);
                    }
                }
                Tensor {
                    dims: vec![rows, cols],
                    elem: parts[0].elem,
                    values,
                    strings: Vec::new(),
                }
            }
            "ArgMax" => {
                let a = arg(0);
                assert_eq!((n.ints["axis"], n.ints["keepdims"]), (1, 0));
                let c = a.dims[1];
                let values = a
                    .values
                    .chunks(c)
                    .map(|row| {
                        // The first index of the maximum.
                        let mut best = 0;
                        for (j, &v) in row.iter().enumerate() {
                            if v > row[best] {
                                best = j;
                            }
                        }
                        best as f64
                    })
                    .collect();
                Tensor {
                    dims: vec![a.dims[0]],
                    elem: 7,
                    values,
                    strings: Vec::new(),
                }
            }
            "Gather" => {
                let (table, index) = (arg(0), arg(1));
                let idx: Vec<usize> = index.values.iter().map(|&v| v as usize).collect();
                Tensor {
                    dims: vec![idx.len()],
                    elem: table.elem,
                    values: if table.values.is_empty() {
                        Vec::new()
                    } else {
                        idx.iter().map(|&i| table.values[i]).collect()
                    },
                    strings: if table.strings.is_empty() {
                        Vec::new()
                    } else {
                        idx.iter().map(|&i| table.strings[i].clone()).collect()
                    },
                }
            }
            other => panic!("the interpreter does not know {other}"),
        };
        env.insert(n.outputs[0].clone(), out);
    }
    env
}

fn samples() -> Array2<f64> {
    Array2::from_shape_fn((9, 3), |(i, j)| {
        ((i * 7 + j * 5) % 11) as f64 * 0.4 - 1.5 + j as f64 * 10.0
    })
}

fn elm(activation: Activation, outputs: usize) -> Elm {
    let w = Array2::from_shape_fn((3, 5), |(i, j)| ((i * 5 + j) as f64 * 0.37).sin());
    let b = Array1::from_shape_fn(5, |j| 0.3 * j as f64 - 0.6);
    let hidden = HiddenLayer::new(w, b, activation).expect("a layer");
    let beta = Array2::from_shape_fn((5, outputs), |(i, q)| ((i + 3 * q) as f64 * 0.71).cos());
    Elm::from_parts(hidden, beta, 0.1, ReadoutSolver::Ridge).expect("an ELM")
}

/// `a` and `b` agree to within `tol` relative to the largest magnitude
/// involved, entry by entry.
fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0), "{x} vs {y}");
    }
}

#[test]
fn a_regression_elm_decodes_and_evaluates_to_its_predictions() {
    let x = samples();
    let scaler = InputScaler::Zscore(StandardScaler::fit(&x).expect("fit"));
    for f in Activation::ALL {
        let model = FittedModel::Elm(elm(f, 1));
        let parts = ExportParts {
            scaler: Some(&scaler),
            model: &model,
            target_scale: Some((124.8, 6.9)),
            labels: None,
        };
        let bytes = export(&parts, OnnxFloat::F64).expect("exports");
        let d = decode(&bytes);
        assert_eq!(d.producer, "decomp-nn");
        let ops: Vec<&str> = d.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(d.opset, min_opset(ops.iter().copied()).expect("known"), "{f}");
        assert_eq!(d.opset, if f == Activation::Hardlim { 12 } else { 9 }, "{f}: {ops:?}");
        assert_eq!(d.ir_version, if f == Activation::Hardlim { 7 } else { 4 });
        assert_eq!(d.inputs, vec![("X".to_string(), 11, vec![None, Some(3)])]);
        assert_eq!(d.outputs, vec![("Y".to_string(), 11, vec![None, Some(1)])]);
        assert_eq!(&ops[..3], &["Sub", "Div", "MatMul"], "{f}");
        // The library's own prediction through the pipeline's steps.
        let FittedModel::Elm(m) = &model else { unreachable!() };
        let scaled = scaler.transform(&x).expect("scaled");
        let want = m.predict(scaled.view()).expect("predict").mapv(|v| v * 6.9 + 124.8);
        let got = &run(&d, &x)["Y"];
        assert_eq!(got.dims, vec![9, 1]);
        // The same operations in another order and another sigmoid: a few
        // ulps of the largest term (the outputs are sums of 5 terms of
        // magnitude ≤ 1, scaled by 6.9 and shifted by 124.8).
        close(&got.values, want.as_slice().expect("contiguous"), 64.0 * f64::EPSILON);
    }
}

/// A BLS grown by both kinds of increment — enhancement groups fed by all
/// the feature nodes and by one later group, blocks in append order — and
/// min-max scaled inputs, evaluated to its predictions.
#[test]
fn a_grown_bls_decodes_and_evaluates_to_its_predictions() {
    let x = samples();
    let y = x
        .map_axis(Axis(1), |r| (r[0] * 0.3).sin() + r[1] * 0.01)
        .insert_axis(Axis(1));
    let scaler = InputScaler::Minmax(crate::MinMaxScaler::fit(&x).expect("fit"));
    let scaled = scaler.transform(&x).expect("scaled");
    let params = models::BlsParams::new(2, 3, 4).with_lambda(1e-3).with_seed(8);
    let valid = models::ParamGuard::check_ref(&params).expect("valid");
    let mut grown = models::IncrementalBls::start(valid, scaled.clone(), y).expect("start");
    grown.add_enhancement(3).expect("enhancement");
    grown.add_feature_group(2, 2, 1).expect("feature group");
    let bls = grown.into_bls();
    assert!(bls
        .expansion()
        .enhancement_groups()
        .iter()
        .any(|h| h.inputs().start > 0));
    let want = bls.predict(scaled.view()).expect("predict");
    let model = FittedModel::Bls(bls);
    let parts = ExportParts {
        scaler: Some(&scaler),
        model: &model,
        target_scale: None,
        labels: None,
    };
    let d = decode(&export(&parts, OnnxFloat::F64).expect("exports"));
    assert_eq!(d.opset, 9);
    let ops: Vec<&str> = d.nodes.iter().map(|n| n.op.as_str()).collect();
    assert!(ops.contains(&"Concat") && ops.contains(&"Tanh"), "{ops:?}");
    let got = &run(&d, &x)["Y"];
    // Sums of at most a dozen terms of magnitude about 1 (the zero-padded
    // rows add exact zeros), then tanh: a few ulps of 1.
    close(&got.values, want.as_slice().expect("contiguous"), 64.0 * f64::EPSILON);
}

#[test]
fn a_classifier_gives_scores_and_the_users_labels() {
    let x = samples();
    let model = FittedModel::Elm(elm(Activation::Tanh, 3));
    for labels in [
        ClassLabels::Integers(vec![-1, 4, 1_000_000_000_000]),
        ClassLabels::Text(vec!["cat".into(), "dog".into(), "émeu".into()]),
    ] {
        let parts = ExportParts {
            scaler: None,
            model: &model,
            target_scale: None,
            labels: Some(&labels),
        };
        let d = decode(&export(&parts, OnnxFloat::F64).expect("exports"));
        let names: Vec<&str> = d.outputs.iter().map(|o| o.0.as_str()).collect();
        assert_eq!(names, vec!["scores", "label"]);
        let label_type = if matches!(labels, ClassLabels::Text(_)) { 8 } else { 7 };
        assert_eq!(d.outputs[1], ("label".to_string(), label_type, vec![None]));
        let env = run(&d, &x);
        let FittedModel::Elm(m) = &model else { unreachable!() };
        let scores = m.predict(x.view()).expect("predict");
        close(
            &env["scores"].values,
            scores.as_slice().expect("contiguous"),
            16.0 * f64::EPSILON,
        );
        let picked: Vec<usize> = scores
            .axis_iter(Axis(0))
            .map(|r| (0..3).fold(0, |b, j| if r[j] > r[b] { j } else { b }))
            .collect();
        match &labels {
            ClassLabels::Integers(v) => {
                let want: Vec<f64> = picked.iter().map(|&i| v[i] as f64).collect();
                assert_eq!(env["label"].values, want);
            }
            ClassLabels::Text(v) => {
                let want: Vec<String> = picked.iter().map(|&i| v[i].clone()).collect();
                assert_eq!(env["label"].strings, want);
            }
        }
    }
    let two = ClassLabels::Integers(vec![0, 1]);
    let parts = ExportParts {
        scaler: None,
        model: &model,
        target_scale: None,
        labels: Some(&two),
    };
    let err = export(&parts, OnnxFloat::F64).unwrap_err().to_string();
    assert!(err.contains("2 class labels for a model of 3 outputs"), "{err}");
}

#[test]
fn float32_rounds_the_constants_and_declares_float() {
    let model = FittedModel::Elm(elm(Activation::Sigmoid, 1));
    let parts = ExportParts {
        scaler: None,
        model: &model,
        target_scale: None,
        labels: None,
    };
    let d = decode(&export(&parts, OnnxFloat::F32).expect("exports"));
    assert_eq!(d.inputs[0].1, 1);
    assert_eq!(d.outputs[0].1, 1);
    let FittedModel::Elm(m) = &model else { unreachable!() };
    let w = d
        .constants
        .values()
        .find(|t| t.dims == vec![3, 5])
        .expect("the input weights");
    assert_eq!(w.elem, 1);
    let want: Vec<f64> = m.hidden().weights().iter().map(|&v| f64::from(v as f32)).collect();
    assert_eq!(w.values, want);
}

/// The SLFN, the deep network (with and without biases) and Tomic et al.'s
/// network (element-wise and softmax hidden layers, every output
/// activation) evaluated to their predictions.
#[test]
fn the_trained_networks_decode_and_evaluate_to_their_predictions() {
    use models::dfnn::{Bias, Dfnn};
    use models::mlp::{HiddenActivation, Mlp, OutputActivation};
    use models::Predict;

    let x = samples();
    let slfn = models::Slfn::from_parts(
        Array2::from_shape_fn((4, 4), |(i, j)| ((i * 4 + j) as f64 * 0.29).cos() * 0.2),
        Array2::from_shape_fn((4, 2), |(i, q)| (i as f64 - q as f64) * 0.3),
    )
    .expect("an SLFN");
    let mut cases: Vec<(FittedModel, Array2<f64>)> = vec![(
        FittedModel::Slfn(slfn.clone()),
        slfn.predict(x.view()).expect("predict"),
    )];
    for bias in [Bias::Every, Bias::None] {
        let net = Dfnn::random(3, &[5, 4, 2], bias, 3, 0.3).expect("a DFNN");
        let want = net.predict(x.view()).expect("predict");
        cases.push((FittedModel::Dfnn(net), want));
    }
    for (hidden, output) in [
        (
            HiddenActivation::Elementwise(Activation::Sigmoid),
            OutputActivation::Softmax,
        ),
        (
            HiddenActivation::Elementwise(Activation::Tanh),
            OutputActivation::Sigmoid,
        ),
        (HiddenActivation::Softmax, OutputActivation::Linear),
    ] {
        let net = Mlp::random(3, &[6, 4], 3, hidden, output, 5, 0.2).expect("an MLP");
        let want = net.predict(x.view()).expect("predict");
        cases.push((FittedModel::Mlp(net), want));
    }
    for (model, want) in &cases {
        let parts = ExportParts {
            scaler: None,
            model,
            target_scale: None,
            labels: None,
        };
        let d = decode(&export(&parts, OnnxFloat::F64).expect("exports"));
        assert_eq!(d.opset, 9);
        let got = &run(&d, &x)["Y"];
        assert_eq!(got.dims, vec![want.nrows(), want.ncols()]);
        // Inputs up to about 15 in magnitude through weights of at most 0.3:
        // each layer's sums within a few ulps of their magnitude.
        let want: Vec<f64> = want.iter().copied().collect();
        close(&got.values, &want, 256.0 * f64::EPSILON);
    }
}
