//! `nn export` (issue 43) through the user's door: an ELM saved by `nn fit
//! --save` written as ONNX (the file decoded: the model's header, the
//! graph's input and outputs, its operators and opset), in float64 and
//! float32; an SLFN too; bad paths refused with a message. ONNX Runtime's predictions are checked by the Python stage.

mod common;

use common::{fails, nn, temp_dir};
use nn_data::onnx::wire::{fields, Value};

fn run(args: &[&str]) -> serde_json::Value {
    let out = nn().args(args).output().expect("run nn");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "nn {args:?} failed: {stderr}");
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("one JSON object")
}

fn field<'a>(bytes: &'a [u8], number: u32) -> Vec<Value<'a>> {
    fields(bytes)
        .expect("a message")
        .into_iter()
        .filter(|(n, _)| *n == number)
        .map(|(_, v)| v)
        .collect()
}

/// The names of a graph's outputs and the operators of its nodes.
fn outputs_and_ops(bytes: &[u8]) -> (Vec<String>, Vec<String>, i64) {
    let graph = field(bytes, 7)[0].as_bytes().expect("a graph");
    let name = |v: &Value<'_>| {
        field(v.as_bytes().expect("message"), 1)[0]
            .as_str()
            .expect("name")
            .to_string()
    };
    let outputs = field(graph, 12).iter().map(name).collect();
    let ops = field(graph, 1)
        .iter()
        .map(|n| {
            field(n.as_bytes().expect("node"), 4)[0]
                .as_str()
                .expect("op")
                .to_string()
        })
        .collect();
    let opset = field(field(bytes, 8)[0].as_bytes().expect("opset"), 2)[0]
        .as_int()
        .expect("version");
    (outputs, ops, opset)
}

#[test]
fn a_saved_elm_exports_in_both_precisions() {
    let dir = temp_dir("export");
    let model = dir.path().join("pima.bin");
    let data = &common::data("pima/pima.csv.gz");
    let m = model.to_str().expect("utf-8");
    run(&[
        "fit",
        "--model",
        "elm",
        "--hidden",
        "30",
        "--activation",
        "triangular",
        "--task",
        "classification",
        "--train",
        data,
        "--test",
        data,
        "--save",
        m,
    ]);
    for (dtype, elem) in [("f64", 11), ("f32", 1)] {
        let onnx = dir.path().join(format!("pima-{dtype}.onnx"));
        let o = onnx.to_str().expect("utf-8");
        let report = run(&["export", "--model-file", m, "--onnx", o, "--onnx-dtype", dtype]);
        assert_eq!(report["dtype"], dtype);
        assert_eq!(report["task"], "classification");
        let bytes = std::fs::read(&onnx).expect("the file");
        assert_eq!(report["bytes"], bytes.len());
        let (outputs, ops, opset) = outputs_and_ops(&bytes);
        assert_eq!(outputs, ["scores", "label"]);
        assert_eq!(opset, 9);
        for op in ["Sub", "Div", "MatMul", "Abs", "Relu", "ArgMax", "Gather"] {
            assert!(ops.iter().any(|o| o == op), "{op} in {ops:?}");
        }
        let graph = field(&bytes, 7)[0].as_bytes().expect("graph");
        let input = field(graph, 11)[0].as_bytes().expect("input");
        let ty = field(
            field(field(input, 2)[0].as_bytes().expect("type"), 1)[0]
                .as_bytes()
                .expect("tensor"),
            1,
        );
        assert_eq!(ty[0].as_int(), Some(elem), "{dtype}");
    }
}

#[test]
fn bad_paths_are_refused_and_the_trained_networks_export() {
    let dir = temp_dir("export-bad");
    let model = dir.path().join("slfn.bin");
    let data = &common::data("pima/pima.csv.gz");
    let m = model.to_str().expect("utf-8");
    run(&[
        "fit",
        "--model",
        "slfn",
        "--hidden",
        "3",
        "--maxiter",
        "1",
        "--task",
        "classification",
        "--train",
        data,
        "--test",
        data,
        "--save",
        m,
    ]);
    let onnx = dir.path().join("slfn.onnx");
    let report = run(&["export", "--model-file", m, "--onnx", onnx.to_str().expect("utf-8")]);
    assert_eq!(report["task"], "classification");
    let (outputs, ops, _) = outputs_and_ops(&std::fs::read(&onnx).expect("the file"));
    assert_eq!(outputs, ["scores", "label"]);
    assert!(ops.iter().any(|o| o == "Sigmoid"), "{ops:?}");
    let (code, err) = fails(&["export", "--model-file", m, "--onnx", m]);
    assert!(err.contains("is the model file") && code == 2, "{code} {err}");
    let missing = dir.path().join("no-such.bin");
    let (_, err) = fails(&[
        "export",
        "--model-file",
        missing.to_str().expect("utf-8"),
        "--onnx",
        "x.onnx",
    ]);
    assert!(err.contains("no-such.bin"), "{err}");
}
