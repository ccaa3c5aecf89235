"""ONNX export (issue 43) checked by the `onnx` package's checker and ONNX
Runtime: every model fitted and saved by the `nn` command on shipped data,
exported by `nn export`, run by ONNX Runtime on the raw features, against
`nn predict` on the same file — for every activation, regression and
classification. `cargo xtask test` builds `nn` and names it in
DECOMP_NN_CLI.

Float64: the graph computes what the library computes, in another order
(ONNX Runtime's own GEMM and sigmoid). A regression output is a sum
Σ_j a_j w_j over the hidden outputs; floating-point error is relative to
the sum of magnitudes Σ_j |a_j||w_j| (times the target's sd), which can be
far above |ŷ| when the readout cancels (a BLS with λ ≈ 1e-9: 10⁴ times).
So: within 1e-12 of that magnitude (a few hundred units in the last place
of sums of a few hundred terms), per sample, with `a` read from the graph
itself; and the labels identical.
"""

import gzip
import os
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
CLI = os.environ.get("DECOMP_NN_CLI")
ACTIVATIONS = ["sigmoid", "gaussian", "hardlim", "triangular", "sine", "tanh", "relu", "linear"]
SETS = {
    "regression": ("airfoil/airfoil.csv.gz", "airfoil/airfoil.csv.gz"),
    "classification": ("satellite/satellite_train.csv.gz", "satellite/satellite_test.csv.gz"),
}


def nn(*args):
    if CLI is None:
        raise RuntimeError("DECOMP_NN_CLI is not set: cargo xtask test builds `nn` and sets it")
    out = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert out.returncode == 0, f"nn {args}: {out.stderr}"
    return out.stdout


def magnitude(path, x, column=0):
    """Per sample, sd·(Σ_j |a_j||w_j| + |b|) of the graph's readout (its
    last MatMul and the bias added to it), `a` evaluated by ONNX Runtime as
    an extra output: of output `column`, or of every output (None). A
    softmax or sigmoid after it changes its outputs by no more than its
    inputs change (Lipschitz ≤ 1), so the bound holds for them too."""
    from onnx import TensorProto, helper, numpy_helper

    m = onnx.load(str(path))
    consts = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    nodes = list(m.graph.node)
    last = max(i for i, n in enumerate(nodes) if n.op_type == "MatMul")
    a_name, w_name = nodes[last].input
    # The bias added to the readout, if any (the deep networks' last layer).
    after = nodes[last + 1] if last + 1 < len(nodes) else None
    bias = 0.0
    if after is not None and after.op_type == "Add":
        bias = sum(float(np.max(np.abs(consts[i]))) for i in after.input if i in consts)
    m.graph.output.append(helper.make_tensor_value_info(a_name, TensorProto.DOUBLE, None))
    a = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"X": x})[-1]
    sd = [float(v) for k, v in consts.items() if k.startswith("target_sd")]
    m = (sd[0] if sd else 1.0) * (np.abs(a) @ np.abs(consts[w_name]) + bias)
    return m if column is None else m[:, column]


def features(rel):
    with gzip.open(os.path.join(ROOT, "data", rel), "rt") as f:
        return np.loadtxt(f, delimiter=",", skiprows=1)[:, :-1]


def check_against_predict(tmp_path, task, model, flags):
    """Fit `model` with `flags` by `nn fit --save` on the task's shipped
    set, export it, check the file with the onnx checker, and compare ONNX
    Runtime's outputs with `nn predict`'s on the test file: regression
    within 1e-12 of the readout's magnitude, labels identical. Returns the
    checked ONNX model."""
    train, test = (os.path.join(ROOT, "data", p) for p in SETS[task])
    saved, graph = tmp_path / "m.bin", tmp_path / "m.onnx"
    nn("fit", "--model", model, *flags, "--task", task, "--train", train, "--test", test, "--save", str(saved))
    nn("export", "--model-file", str(saved), "--onnx", str(graph))
    checked = onnx.load(str(graph))
    onnx.checker.check_model(checked, full_check=True)
    want = np.loadtxt(nn("predict", "--model-file", str(saved), "--data", test).splitlines())
    session = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    x = features(SETS[task][1])
    outputs = session.run(None, {"X": x})
    if task == "regression":
        assert np.all(np.abs(outputs[0][:, 0] - want) <= 1e-12 * magnitude(graph, x))
    else:
        scores, labels = outputs
        assert scores.shape[0] == len(want)
        np.testing.assert_array_equal(labels, want.astype(np.int64))
    return checked


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_onnx_runtime_reproduces_nn_predict(tmp_path, task, activation):
    checked = check_against_predict(tmp_path, task, "elm", ["--hidden", "120", "--activation", activation])
    assert checked.opset_import[0].version == (12 if activation == "hardlim" else 9)


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("grown", [False, True])
def test_onnx_runtime_reproduces_a_bls(tmp_path, task, grown):
    extra = ["--increments", "e20,f5:10:5"] if grown else []
    flags = ["--feature-groups", "4", "--feature-nodes", "6", "--enhancement", "80", *extra]
    check_against_predict(tmp_path, task, "bls", flags)


NETWORKS = {
    "slfn": ["--hidden", "10", "--maxiter", "2"],
    "dfnn": ["--layers", "8,6", "--max-cycles", "5"],
    "bpls": ["--layers", "30,20"],
}


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("model", sorted(NETWORKS))
def test_onnx_runtime_reproduces_the_trained_networks(tmp_path, task, model):
    check_against_predict(tmp_path, task, model, NETWORKS[model])


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "linear"])
@pytest.mark.parametrize("output", ["softmax", "sigmoid", "linear"])
def test_every_bpls_activation_exports(tmp_path, activation, output):
    flags = ["--layers", "30,20", "--activation", activation, "--output-activation", output]
    check_against_predict(tmp_path, "classification", "bpls", flags)


def constants(graph):
    """The f64 graph's constants by stem (`W`, `b`, `shift`, `scale`), each
    a list in the graph's order."""
    from onnx import numpy_helper

    out = {}
    for t in sorted(graph.initializer, key=lambda t: int(t.name.rsplit("_", 1)[1])):
        out.setdefault(t.name.rsplit("_", 1)[0], []).append(numpy_helper.to_array(t))
    return out


def test_float32_is_within_its_rounding_bound(tmp_path):
    """The float32 graph against a bound derived from float32's unit
    roundoff u = 2⁻²⁴, evaluated per sample on the float64 quantities:

    - scaled input x̃ = (x − μ)/σ: the input, μ and σ rounded, a
      subtraction and a division: |δx̃| ≤ 4u(|x| + |μ|)/σ;
    - pre-activation z = x̃W + b (n inputs): the propagated |δx̃|·|W| plus
      γ_{n+2}(|x̃|·|W| + |b|), with γ_k = ku/(1 − ku) (Higham's bound for a
      sum of k rounded products, in any order; W and b rounded);
    - h = sigmoid(z): Lipschitz 1/4, plus the float32 sigmoid's own error,
      taken as at most 16 units in the last place (an assumption about ONNX
      Runtime's kernel, not a derivation);
    - scores s = hβ (l nodes): |δh|·|β| + γ_{l+1}|h|·|β|.

    Every score is within its bound, and a label differs only where the two
    classes' float64 scores are within the sum of their bounds."""
    train, test = (os.path.join(ROOT, "data", p) for p in SETS["classification"])
    model = tmp_path / "m.bin"
    nn("fit", "--model", "elm", "--hidden", "120", "--task", "classification",
       "--train", train, "--test", test, "--save", str(model))
    for name, dtype in [("m64.onnx", "f64"), ("m32.onnx", "f32")]:
        nn("export", "--model-file", str(model), "--onnx", str(tmp_path / name), "--onnx-dtype", dtype)
    g32 = onnx.load(str(tmp_path / "m32.onnx"))
    onnx.checker.check_model(g32, full_check=True)
    c = constants(onnx.load(str(tmp_path / "m64.onnx")).graph)
    mu, sd = c["shift"][0], c["scale"][0]
    w, beta = c["W"]
    b = c["b"][0]
    x = features(SETS["classification"][1])
    xs = (x - mu) / sd
    z = xs @ w + b
    h = 1.0 / (1.0 + np.exp(-z))
    s64 = h @ beta
    u = 2.0**-24
    gamma = lambda k: k * u / (1 - k * u)  # noqa: E731
    n, l = w.shape
    dx = 4 * u * (np.abs(x) + np.abs(mu)) / sd
    dz = dx @ np.abs(w) + gamma(n + 2) * (np.abs(xs) @ np.abs(w) + np.abs(b))
    dh = 0.25 * dz + 16 * u * h
    bound = dh @ np.abs(beta) + gamma(l + 1) * (h @ np.abs(beta))
    session = ort.InferenceSession(str(tmp_path / "m32.onnx"), providers=["CPUExecutionProvider"])
    s32, labels = session.run(None, {"X": x.astype(np.float32)})
    assert s32.dtype == np.float32
    assert np.all(np.abs(s32 - s64) <= bound)
    want = np.loadtxt(nn("predict", "--model-file", str(model), "--data", test).splitlines()).astype(np.int64)
    rows = np.arange(len(x))
    a, b32 = np.argmax(s64, axis=1), np.argmax(s32, axis=1)
    np.testing.assert_array_equal(want, a)  # the labels are the class indices here
    differ = a != b32
    gap = s64[rows, a] - s64[rows, b32]
    assert np.all(gap[differ] <= bound[rows, a][differ] + bound[rows, b32][differ])
    np.testing.assert_array_equal(labels, b32)


def estimators():
    import decomp_nn as d

    return [
        (d.ELMRegressor(40, activation="triangular", random_state=1), False),
        (d.BLSClassifier(3, 4, 30, random_state=1), True),
        (d.SLFNRegressor(6, trainer="dec:2", random_state=1), False),
        (d.DFNNClassifier((6, 5), max_iter=4, random_state=1), True),
        (d.BPLSClassifier((12,), random_state=1), True),
        (d.BPLSRegressor((12,), random_state=1), False),
    ]


@pytest.mark.parametrize("case", range(6))
def test_every_estimators_to_onnx_matches_its_predictions(tmp_path, case):
    est, classifier = estimators()[case]
    rng = np.random.default_rng(4)
    x = rng.normal(size=(150, 5))
    y = np.sin(x[:, 0]) + x[:, 1] * x[:, 2]
    target = np.where(y > 0.3, "high", np.where(y < -0.3, "low", "mid")) if classifier else y
    est.fit(x, target)
    path = est.to_onnx(tmp_path / "e.onnx")
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    outputs = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"X": x})
    if classifier:
        scores, labels = outputs
        np.testing.assert_array_equal(labels, est.predict(x))
        native = est.predict_proba(x) if hasattr(est, "predict_proba") else est.model_.predict(x)
        assert np.all(np.abs(scores - native) <= 1e-12 * magnitude(path, x, column=None))
    else:
        got, want = outputs[0][:, 0], est.predict(x)
        assert np.all(np.abs(got - want) <= 1e-12 * magnitude(path, x))


def test_to_onnx_refuses_what_it_cannot_write(tmp_path):
    import decomp_nn as d

    x = np.random.default_rng(0).normal(size=(40, 3))
    est = d.ELMClassifier(10).fit(x, (x[:, 0] > 0).astype(float))
    with pytest.raises(ValueError, match="int64 or strings"):
        est.to_onnx(tmp_path / "f.onnx")
    with pytest.raises(ValueError, match="dtype"):
        d.ELMRegressor(10).fit(x, x[:, 0]).to_onnx(tmp_path / "g.onnx", dtype="float16")
    assert not (tmp_path / "f.onnx").exists()


U32 = 2.0**-24
# ONNX Runtime's float32 kernels of the transcendental functions: taken to
# be within this many units in the last place (an assumption about its
# implementation, not a derivation).
ULPS = 16


def float32_bound(graph, x):
    """Evaluate a float64 graph in float64 while carrying, for every value,
    a first-order bound on the error of the same graph run in float32
    (unit roundoff u = 2⁻²⁴): constants and inputs rounded (u|v|); + and −
    add their operands' bounds and u|result|; × and ÷ propagate relative
    bounds; a MatMul of k terms adds γ_k |A||B| (Higham) to the propagated
    e_A|B| + |A|e_B; sigmoid, tanh, relu, sin pass e·L (L their Lipschitz
    constant: 1/4, 1, 1, 1) plus ULPS·u of their value; exp multiplies by
    its value; softmax passes the row's largest bound. Returns the outputs
    and their bounds by name."""
    from onnx import numpy_helper

    def gamma(k):
        return k * U32 / (1 - k * U32)

    val, err = {}, {}
    for t in graph.initializer:
        v = numpy_helper.to_array(t)
        if v.dtype.kind == "f":
            val[t.name], err[t.name] = v, U32 * np.abs(v)
        else:
            val[t.name], err[t.name] = v, None
    val["X"], err["X"] = x, U32 * np.abs(x)
    for n in graph.node:
        a = [val[i] for i in n.input]
        e = [err[i] for i in n.input]
        op = n.op_type
        if op in ("Add", "Sub"):
            v = a[0] + a[1] if op == "Add" else a[0] - a[1]
            b = e[0] + e[1] + U32 * np.abs(v)
        elif op == "Mul":
            v = a[0] * a[1]
            b = np.abs(a[0]) * e[1] + np.abs(a[1]) * e[0] + U32 * np.abs(v)
        elif op == "Div":
            v = a[0] / a[1]
            b = e[0] / np.abs(a[1]) + np.abs(a[0]) * e[1] / a[1] ** 2 + U32 * np.abs(v)
        elif op == "MatMul":
            v = a[0] @ a[1]
            k = a[0].shape[1]
            b = e[0] @ np.abs(a[1]) + np.abs(a[0]) @ e[1] + gamma(k) * (np.abs(a[0]) @ np.abs(a[1]))
        elif op in ("Sigmoid", "Tanh", "Relu", "Sin"):
            f, lip = {
                "Sigmoid": (lambda z: 1 / (1 + np.exp(-z)), 0.25),
                "Tanh": (np.tanh, 1.0),
                "Relu": (lambda z: np.maximum(z, 0), 1.0),
                "Sin": (np.sin, 1.0),
            }[op]
            v = f(a[0])
            b = lip * e[0] + ULPS * U32 * np.abs(v)
        elif op == "Exp":
            v = np.exp(a[0])
            b = v * np.expm1(e[0]) + ULPS * U32 * v
        elif op in ("Neg", "Abs", "Identity"):
            v = {"Neg": np.negative, "Abs": np.abs, "Identity": lambda z: z}[op](a[0])
            b = e[0]
        elif op == "Concat":
            v, b = np.concatenate(a, axis=1), np.concatenate(e, axis=1)
        elif op == "Softmax":
            z = np.exp(a[0] - a[0].max(axis=1, keepdims=True))
            v = z / z.sum(axis=1, keepdims=True)
            b = e[0].max(axis=1, keepdims=True) + ULPS * U32 * v
        elif op == "ArgMax":
            v, b = np.argmax(a[0], axis=1), None
        elif op == "Gather":
            v, b = a[0][a[1]], None
        else:
            raise AssertionError(f"no float32 bound for {op}")
        val[n.output[0]], err[n.output[0]] = v, b
    return val, err


@pytest.mark.parametrize(
    "model, flags",
    [
        ("elm", ["--hidden", "100", "--activation", "tanh"]),
        ("elm", ["--hidden", "100", "--activation", "gaussian"]),
        ("bls", ["--feature-groups", "4", "--feature-nodes", "6", "--enhancement", "80"]),
        ("slfn", ["--hidden", "10", "--maxiter", "2"]),
        ("dfnn", ["--layers", "8,6", "--max-cycles", "5"]),
        ("bpls", ["--layers", "30,20"]),
    ],
)
def test_every_models_float32_graph_is_within_its_derived_bound(tmp_path, model, flags):
    """Scores within the bound of `float32_bound`, and a label different
    from float64's only where the two classes' scores are within the sum of
    their bounds."""
    train, test = (os.path.join(ROOT, "data", p) for p in SETS["classification"])
    saved = tmp_path / "m.bin"
    nn("fit", "--model", model, *flags, "--task", "classification", "--train", train, "--test", test,
       "--save", str(saved))
    for name, dtype in [("m64.onnx", "f64"), ("m32.onnx", "f32")]:
        nn("export", "--model-file", str(saved), "--onnx", str(tmp_path / name), "--onnx-dtype", dtype)
    x = features(SETS["classification"][1])
    val, err = float32_bound(onnx.load(str(tmp_path / "m64.onnx")).graph, x)
    s64, bound = val["scores"], err["scores"]
    g32 = str(tmp_path / "m32.onnx")
    onnx.checker.check_model(onnx.load(g32), full_check=True)
    s32, labels = ort.InferenceSession(g32, providers=["CPUExecutionProvider"]).run(None, {"X": x.astype(np.float32)})
    assert s32.dtype == np.float32
    assert np.all(np.abs(s32 - s64) <= bound)
    rows = np.arange(len(x))
    a, b = np.argmax(s64, axis=1), np.argmax(s32, axis=1)
    differ = a != b
    gap = s64[rows, a] - s64[rows, b]
    assert np.all(gap[differ] <= bound[rows, a][differ] + bound[rows, b][differ])
    np.testing.assert_array_equal(labels, b)
