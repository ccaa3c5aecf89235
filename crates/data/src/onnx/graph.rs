//! An ONNX graph being built (issue 43): named inputs and outputs, constant
//! tensors (initializers) and operator nodes, written as a `ModelProto`
//! with the field numbers of `onnx.proto`:
//!
//! - `ModelProto`: `ir_version` 1, `producer_name` 2, `producer_version` 3,
//!   `graph` 7, `opset_import` 8 (`OperatorSetIdProto`: `domain` 1,
//!   `version` 2);
//! - `GraphProto`: `node` 1, `name` 2, `initializer` 5, `input` 11,
//!   `output` 12;
//! - `NodeProto`: `input` 1, `output` 2, `name` 3, `op_type` 4, `attribute` 5;
//! - `AttributeProto`: `name` 1, `f` 2, `i` 3, `ints` 8, `type` 20 (FLOAT 1,
//!   INT 2, INTS 7);
//! - `TensorProto`: `dims` 1, `data_type` 2, `string_data` 6, `name` 8,
//!   `raw_data` 9 (little-endian);
//! - `ValueInfoProto`: `name` 1, `type` 2; `TypeProto`: `tensor_type` 1;
//!   `TypeProto.Tensor`: `elem_type` 1, `shape` 2; `TensorShapeProto`: `dim`
//!   1; `Dimension`: `dim_value` 1, `dim_param` 2.
//!
//! The opset declared is the lowest that has every operator used, in the
//! form used ([`min_opset`]).

use std::collections::BTreeSet;

use super::wire::Message;
use crate::DataError;

/// An element type of a tensor (`TensorProto.DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// `FLOAT` (1).
    F32,
    /// `INT64` (7).
    I64,
    /// `STRING` (8).
    Str,
    /// `DOUBLE` (11).
    F64,
}

impl ElemType {
    /// The `DataType` number.
    pub fn code(self) -> i64 {
        match self {
            ElemType::F32 => 1,
            ElemType::I64 => 7,
            ElemType::Str => 8,
            ElemType::F64 => 11,
        }
    }
}

/// One dimension of an input's or output's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A fixed size.
    Fixed(usize),
    /// A size named, not fixed (the batch: any number of rows).
    Named(&'static str),
}

/// An attribute of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// An `INT` attribute.
    Int(&'static str, i64),
    /// An `INTS` attribute.
    Ints(&'static str, Vec<i64>),
    /// A `FLOAT` attribute (ONNX's float attributes are 32-bit).
    Float(&'static str, f32),
}

/// The opset in which each operator this project exports got the form
/// used here (double inputs, multidirectional broadcasting, the
/// attributes given), per ONNX's `Operators.md`.
const OPSETS: &[(&str, i64)] = &[
    ("Abs", 6),
    ("Add", 7),
    ("ArgMax", 1),
    ("Cast", 6),
    ("Concat", 4),
    ("Div", 7),
    ("Exp", 6),
    ("Gather", 1),
    ("GreaterOrEqual", 12),
    ("Identity", 1),
    ("MatMul", 1),
    ("Max", 8),
    ("Mul", 7),
    ("Neg", 6),
    ("Relu", 6),
    ("Sigmoid", 6),
    ("Sin", 7),
    ("Softmax", 1),
    ("Sub", 7),
    ("Tanh", 6),
    ("Where", 9),
];

/// The lowest opset that has every operator of `ops` in the form used
/// (Softmax with `axis = 1` on the 2-D scores reads the same in every
/// opset); at least 9, the oldest whose IR version (4) every ONNX Runtime
/// release reads. `None` if an operator is not one this module knows.
pub fn min_opset<'a>(ops: impl IntoIterator<Item = &'a str>) -> Option<i64> {
    let mut opset = 9;
    for op in ops {
        let (_, v) = OPSETS.iter().find(|(name, _)| *name == op)?;
        opset = opset.max(*v);
    }
    Some(opset)
}

/// The IR version that goes with an opset (onnx's `VERSION_TABLE`).
pub fn ir_version(opset: i64) -> i64 {
    match opset {
        ..=8 => 3,
        9 => 4,
        10 => 5,
        11 => 6,
        12..=14 => 7,
        15..=18 => 8,
        19..=20 => 9,
        _ => 10,
    }
}

/// A graph under construction.
#[derive(Debug, Default)]
pub struct Graph {
    nodes: Vec<Message>,
    initializers: Vec<Message>,
    inputs: Vec<Message>,
    outputs: Vec<Message>,
    ops: BTreeSet<&'static str>,
    next: usize,
}

fn value_info(name: &str, elem: ElemType, dims: &[Dim]) -> Message {
    let mut shape = Message::new();
    for d in dims {
        let mut dim = Message::new();
        match d {
            Dim::Fixed(n) => dim.int(1, *n as i64),
            Dim::Named(s) => dim.string(2, s),
        };
        shape.message(1, &dim);
    }
    let mut tensor = Message::new();
    tensor.int(1, elem.code()).message(2, &shape);
    let mut ty = Message::new();
    ty.message(1, &tensor);
    let mut info = Message::new();
    info.string(1, name).message(2, &ty);
    info
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh value name starting with `stem`.
    pub fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("{stem}_{}", self.next)
    }

    /// Declare a graph input.
    pub fn input(&mut self, name: &str, elem: ElemType, dims: &[Dim]) {
        self.inputs.push(value_info(name, elem, dims));
    }

    /// Declare a graph output.
    pub fn output(&mut self, name: &str, elem: ElemType, dims: &[Dim]) {
        self.outputs.push(value_info(name, elem, dims));
    }

    /// A constant tensor of shape `dims` holding `values` (row-major) as
    /// `elem` (`F64`, or `F32`: each value rounded to the nearest float);
    /// returns its name.
    pub fn constant(&mut self, stem: &str, dims: &[usize], values: &[f64], elem: ElemType) -> String {
        let name = self.fresh(stem);
        let raw: Vec<u8> = match elem {
            ElemType::F32 => values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
            _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let mut t = Message::new();
        for &d in dims {
            t.int(1, d as i64);
        }
        t.int(2, elem.code()).string(8, &name).bytes(9, &raw);
        self.initializers.push(t);
        name
    }

    /// A constant `INT64` tensor.
    pub fn constant_i64(&mut self, stem: &str, dims: &[usize], values: &[i64]) -> String {
        let name = self.fresh(stem);
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut t = Message::new();
        for &d in dims {
            t.int(1, d as i64);
        }
        t.int(2, ElemType::I64.code()).string(8, &name).bytes(9, &raw);
        self.initializers.push(t);
        name
    }

    /// A constant `STRING` tensor (1-D).
    pub fn constant_strings(&mut self, stem: &str, values: &[String]) -> String {
        let name = self.fresh(stem);
        let mut t = Message::new();
        t.int(1, values.len() as i64).int(2, ElemType::Str.code());
        for v in values {
            t.string(6, v);
        }
        t.string(8, &name);
        self.initializers.push(t);
        name
    }

    /// A node `op(inputs) -> outputs` with `attrs`.
    pub fn node(&mut self, op: &'static str, inputs: &[&str], outputs: &[&str], attrs: &[Attr]) {
        let mut n = Message::new();
        for i in inputs {
            n.string(1, i);
        }
        for o in outputs {
            n.string(2, o);
        }
        let name = self.fresh(op);
        n.string(3, &name).string(4, op);
        for a in attrs {
            let mut m = Message::new();
            match a {
                Attr::Int(key, v) => m.string(1, key).int(3, *v).int(20, 2),
                Attr::Ints(key, v) => m.string(1, key).packed_ints(8, v).int(20, 7),
                Attr::Float(key, v) => m.string(1, key).float(2, *v).int(20, 1),
            };
            n.message(5, &m);
        }
        self.nodes.push(n);
        self.ops.insert(op);
    }

    /// A node with one output, named fresh from the operator; returns it.
    pub fn apply(&mut self, op: &'static str, inputs: &[&str], attrs: &[Attr]) -> String {
        let out = self.fresh(&op.to_ascii_lowercase());
        self.node(op, inputs, &[&out], attrs);
        out
    }

    /// The operators used so far.
    pub fn ops(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.ops.iter().copied()
    }

    /// The `ModelProto` bytes: this graph named `name`, the lowest opset of
    /// the operators used ([`min_opset`]) and its IR version, and
    /// `producer` as the producer's name and version.
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] naming an operator that is not in the
    /// opset table (an exporter's mistake, caught by the tests).
    pub fn into_model(self, name: &str, producer: (&str, &str)) -> Result<Vec<u8>, DataError> {
        let opset = min_opset(self.ops.iter().copied()).ok_or_else(|| DataError::InvalidArgument {
            what: format!(
                "the ONNX graph uses an operator without a known opset: {:?}",
                self.ops.iter().find(|op| min_opset([**op]).is_none())
            ),
        })?;
        let mut g = Message::new();
        for n in &self.nodes {
            g.message(1, n);
        }
        g.string(2, name);
        for t in &self.initializers {
            g.message(5, t);
        }
        for i in &self.inputs {
            g.message(11, i);
        }
        for o in &self.outputs {
            g.message(12, o);
        }
        let mut op = Message::new();
        op.string(1, "").int(2, opset);
        let mut m = Message::new();
        m.int(1, ir_version(opset))
            .string(2, producer.0)
            .string(3, producer.1)
            .message(7, &g)
            .message(8, &op);
        Ok(m.into_bytes())
    }
}
