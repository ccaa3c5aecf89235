"""The Python package against the Rust command and the Python libraries a
user would pick instead, on MNIST, in one run (issue 23, part 3).

1. Wrapper overhead: `ELMClassifier(2000).fit` and `BLSClassifier(6, 10,
   3000).fit` timed from Python against the `train_seconds` the Rust command
   `cargo xtask fit` reports for the same model on the same data (MNIST
   scaled to [0, 1] per pixel as the command scales IDX images). After one
   warm-up of each, runs alternate, Rust then Python; the medians are
   compared, and the wrapper's own time (the fit's wall time less the
   library's time inside it) is reported.
2. The ELM at 2000 sigmoid nodes through the Rust command and
   `ELMClassifier` beside hpelm and scikit-elm: fit time and test accuracy
   (each library with its own defaults otherwise), each fit a fresh process,
   three alternating runs, and a verdict computed from the medians (issue 37).
3. The gradient and decomposition trainers beside scikit-learn's
   MLPClassifier(solver='lbfgs' and 'adam') with one hidden layer of 50
   sigmoid units, on the first 10000 training images (the full test set):
   SLFN by DEC(2) and by L-BFGS, DFNN by B2LD and by BLInG.

Python runs as a user runs it: OPENBLAS_NUM_THREADS is removed from its
environment by `cargo xtask bench` (cargo sets it to 1 for its own
processes), so both sides use OpenBLAS's default of every core.

Usage: python_estimators.py ROOT OUT.md [--quick | --overhead-only]
(--quick: one run of each, no peers; --overhead-only: part 1 alone.)
"""

import gzip
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np

import decomp_nn as d
from decomp_nn import _core


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def mnist(root):
    base = os.path.join(root, "data", "mnist")
    xt = idx(os.path.join(base, "train-images-idx3-ubyte.gz")).reshape(60000, -1).astype(np.float64)
    yt = idx(os.path.join(base, "train-labels-idx1-ubyte.gz")).astype(np.int64)
    xs = idx(os.path.join(base, "t10k-images-idx3-ubyte.gz")).reshape(10000, -1).astype(np.float64)
    ys = idx(os.path.join(base, "t10k-labels-idx1-ubyte.gz")).astype(np.int64)
    # Per pixel to [0, 1] on the training set's range, as `nn fit` scales IDX images.
    lo, hi = xt.min(axis=0), xt.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (xt - lo) / span, yt, np.clip((xs - lo) / span, 0.0, None), ys


def rust_fit(root, args):
    """`cargo xtask fit … ` on MNIST: (train_seconds, test accuracy %)."""
    base = os.path.join("data", "mnist")
    cmd = [
        "cargo", "xtask", "fit", "--train", os.path.join(base, "train-images-idx3-ubyte.gz"),
        "--test", os.path.join(base, "t10k-images-idx3-ubyte.gz"), "--task", "classification",
    ] + args
    env = dict(os.environ)
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    metric = float(report["test_metric"])
    # The command checks an incremental fit's output weights against their
    # normal equations inside `train_seconds` (the BLS's); Python does not.
    check = re.search(r"checked the output weights against their normal equations in ([0-9.]+) s", out.stderr)
    report["check_seconds"] = float(check.group(1)) if check else 0.0
    return float(report["train_seconds"]), metric * 100.0 if metric <= 1.0 else metric, report


OVERHEAD_MODELS = {
    "elm": lambda: d.ELMClassifier(2000),
    "bls": lambda: d.BLSClassifier(6, 10, 3000),
}


def python_fit(root, key):
    """One fit in a fresh Python process, as the Rust command is one fresh
    process: a long-lived process that has allocated and freed the 1 GB
    hidden matrix several times gets its memory back in smaller pieces
    (measured: its fits took up to 16% longer, library time included)."""
    cmd = [sys.executable, os.path.abspath(__file__), root, "-", "--fit-once", key]
    env = dict(os.environ)
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fit_once(root, key):
    xt, yt, xs, ys = mnist(root)
    wall, model = timed(lambda: OVERHEAD_MODELS[key]().fit(xt, yt))
    print(json.dumps({"wall": wall, "inside": model.fit_info_["seconds"], "accuracy": accuracy(model, xs, ys)}))


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def accuracy(model, x, y):
    return float(100.0 * np.mean(model.predict(x) == y))


def overhead(root, data, runs, lines, record):
    xt, yt, xs, ys = data
    cases = [
        ("ELM, 2000 sigmoid nodes", ["--model", "elm", "--hidden", "2000"], OVERHEAD_MODELS["elm"]),
        (
            "BLS, 6×10 feature + 3000 enhancement nodes",
            ["--model", "bls", "--feature-groups", "6", "--feature-nodes", "10", "--enhancement", "3000"],
            OVERHEAD_MODELS["bls"],
        ),
    ]
    lines += [
        "## Wrapper overhead: the Python estimator against the Rust command",
        "",
        f"Fit times in seconds, median (min) of {runs} alternating run(s) each after one warm-up, each run a fresh "
        "process (Rust's `train_seconds` from `cargo xtask fit`; Python's wall time of `fit` in a script that loads "
        "MNIST and fits once, validation and label encoding included). MNIST, 60000 × 784, "
        f"{_core.blas_threads()} BLAS threads on both sides.",
        "",
        "| model | Rust command | Python `fit` | Python against the command without its check (medians) | library time inside `fit` | wrapper's own time | accuracy Rust / Python |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, (name, args, make) in zip(["elm", "bls"], cases):
        rust, checks, py, inside, acc_r, acc_p = [], [], [], [], None, None
        # One warm-up of each (page cache), not counted.
        rust_fit(root, args)
        python_fit(root, key)
        for _ in range(runs):
            seconds, acc_r, report = rust_fit(root, args)
            rust.append(seconds)
            checks.append(report["check_seconds"])
            one = python_fit(root, key)
            py.append(one["wall"])
            inside.append(one["inside"])
            acc_p = one["accuracy"]
        r, p, i = statistics.median(rust), statistics.median(py), statistics.median(inside)
        unchecked = statistics.median([a - b for a, b in zip(rust, checks)])
        over = 100.0 * (p / unchecked - 1.0)
        own = [a - b for a, b in zip(py, inside)]
        o = statistics.median(own)
        record["overhead"][name] = {"rust": rust, "rust_check": checks, "python": py, "inside": inside,
                                    "overhead_percent": over,
                                    "wrapper_seconds": own, "accuracy_rust": acc_r, "accuracy_python": acc_p}
        lines.append(f"| {name} | {r:.2f} (min {min(rust):.2f}); without its check {unchecked:.2f} | "
                     f"{p:.2f} (min {min(py):.2f}) | {over:+.1f}% | "
                     f"{i:.2f} | {o:.3f} s ({100.0 * o / i:.1f}%) | {acc_r:.2f}% / {acc_p:.2f}% |")
        print(f"{name}: Rust {rust}, Python {py}, inside {inside}: {over:+.1f}%", file=sys.stderr)
    lines += [
        "",
        "The wrapper's own time is the Python `fit`'s wall time less the library's time inside it (scikit-learn's "
        "input checks, the class labels, the call). The Rust command's `train_seconds` also includes its check of "
        "the output weights against their normal equations (an incremental fit's: the BLS's), which the Python fit "
        "does not make; the comparison subtracts it (the time the command prints for it).",
        "",
    ]


def hpelm_fit(xt, yt):
    import hpelm

    t = np.eye(10)[yt]
    np.random.seed(0)
    e = hpelm.ELM(784, 10, classification="c", precision="double")
    e.add_neurons(2000, "sigm")
    e.train(xt, t, "c")
    return e


def skelm_fit(xt, yt):
    import skelm

    return skelm.ELMClassifier(n_neurons=2000, ufunc="sigm", random_state=0).fit(xt, yt)


def peer_version(name, dist):
    """The installed version of the peer importable as ``name`` (from its
    distribution ``dist``), or ``(None, why it does not import)``."""
    try:
        module = __import__(name)
    except Exception as e:  # noqa: BLE001 - reported as not run
        return None, str(e)
    try:
        from importlib.metadata import version

        return version(dist), None
    except Exception:  # noqa: BLE001
        return getattr(module, "__version__", "?"), None


def peer_once(root, name):
    """One fit of an ELM peer in this (fresh) process: prints its JSON."""
    xt, yt, xs, ys = mnist(root)
    if name == "decomp_nn":
        wall, m = timed(lambda: d.ELMClassifier(2000).fit(xt, yt))
        acc = accuracy(m, xs, ys)
    elif name == "hpelm":
        wall, e = timed(lambda: hpelm_fit(xt, yt))
        acc = float(100.0 * np.mean(e.predict(xs).argmax(1) == ys))
    else:
        wall, m = timed(lambda: skelm_fit(xt, yt))
        acc = accuracy(m, xs, ys)
    print(json.dumps({"wall": wall, "accuracy": acc}))


def peer_fit(root, name):
    cmd = [sys.executable, os.path.abspath(__file__), root, "-", "--peer-once", name]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def elm_verdict(medians):
    """The sentence the report prints from the medians (seconds by row
    key): whether the Rust command and ELMClassifier are each faster than
    every peer that ran, with the ratios."""
    ours = [k for k in ("cargo xtask fit", "ELMClassifier") if k in medians]
    peers = [k for k in ("hpelm", "scikit-elm") if k in medians]
    if not ours or not peers:
        return "Not judged: " + ("no peer ran." if not peers else "our fits did not run.")
    parts = []
    for o in ours:
        ratios = ", ".join(f"{medians[p] / medians[o]:.2f}× faster than {p}" for p in peers)
        faster = all(medians[o] < medians[p] for p in peers)
        parts.append(f"{o}: {'faster than every peer' if faster else 'NOT faster than every peer'} ({ratios})")
    return "; ".join(parts) + "."


def elm_peers(root, runs, lines, record):
    """The MNIST ELM (2000 sigmoid nodes) through `cargo xtask fit`, through
    `ELMClassifier`, hpelm and scikit-elm: each fit a fresh process, runs
    alternating, medians compared."""
    contenders = [("cargo xtask fit", "decomp_nn (Rust command), `cargo xtask fit --model elm --hidden 2000`")]
    contenders.append(("ELMClassifier", f"decomp_nn {d.__version__} `ELMClassifier(2000)` (ridge, λ = 0.1)"))
    missing = []
    for key, module, label in [("hpelm", "hpelm", "hpelm {} `ELM`, 2000 'sigm'"),
                               ("scikit-elm", "skelm", "scikit-elm {} `ELMClassifier(2000, 'sigm')`")]:
        version, err = peer_version(module, key)
        if err is None:
            contenders.append((key, label.format(version)))
        else:
            missing.append((key, err))
    seconds = {k: [] for k, _ in contenders}
    acc = {}
    failed = {}
    for _ in range(runs):
        for key, _ in contenders:
            if key in failed:
                continue
            try:
                if key == "cargo xtask fit":
                    s, a, _ = rust_fit(root, ["--model", "elm", "--hidden", "2000"])
                else:
                    one = peer_fit(root, {"ELMClassifier": "decomp_nn", "hpelm": "hpelm",
                                          "scikit-elm": "skelm"}[key])
                    s, a = one["wall"], one["accuracy"]
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                failed[key] = str(e)
                continue
            seconds[key].append(s)
            acc[key] = a
    medians = {k: statistics.median(v) for k, v in seconds.items() if v}
    info = d.blas_info()
    lines += [
        "## The ELM beside hpelm and scikit-elm (2000 sigmoid nodes, full MNIST)",
        "",
        f"Fit seconds, median (min) of {runs} run(s), each a fresh process, runs alternating (the Rust command's "
        "`train_seconds`; the Python libraries' wall time of `fit`). decomp_nn's BLAS: "
        f"{info['config']}, kernel {info['kernel']} (chosen by: {info['chosen_by']}); the peers run numpy's "
        f"{numpy_blas()}.",
        "",
        "| library | fit seconds | test accuracy |",
        "|---|---|---|",
    ]
    for key, label in contenders:
        if key in medians:
            lines.append(f"| {label} | {medians[key]:.2f} (min {min(seconds[key]):.2f}) | {acc[key]:.2f}% |")
        else:
            lines.append(f"| {label} | not run: {failed.get(key, '?')} | |")
    for key, err in missing:
        lines.append(f"| {key} | not run: {err} | |")
    lines += ["", "**Verdict** (computed from the medians): " + elm_verdict(medians), ""]
    record["elm_peers"] = {"seconds": seconds, "accuracy": acc, "failed": failed,
                           "missing": dict(missing), "verdict": elm_verdict(medians)}


def numpy_blas():
    """numpy's BLAS as threadpoolctl names it (library, version, kernel)."""
    try:
        from threadpoolctl import threadpool_info

        for p in threadpool_info():
            if p.get("user_api") == "blas" and "scipy_openblas" in (p.get("filepath") or ""):
                return f"{p.get('internal_api')} {p.get('version')}, kernel {p.get('architecture')}"
        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if blas:
            p = blas[0]
            return f"{p.get('internal_api')} {p.get('version')}, kernel {p.get('architecture')}"
    except Exception:  # noqa: BLE001
        pass
    return "BLAS (threadpoolctl not installed: kernel unknown)"


def trainer_peers(data, lines, record):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    xt, yt, xs, ys = data
    xt, yt = xt[:10000], yt[:10000]
    cases = [
        ("decomp_nn SLFNClassifier(50, trainer='dec:2') (DEC)", lambda: d.SLFNClassifier(50, trainer="dec:2")),
        ("decomp_nn SLFNClassifier(50, trainer='lbfgs:200')", lambda: d.SLFNClassifier(50, trainer="lbfgs:200")),
        # tol=0: B2LD without the cycle rule (issue 42), as the documented run was made.
        ("decomp_nn DFNNClassifier((50,), trainer='b2ld', time_limit=60, tol=0)",
         lambda: d.DFNNClassifier((50,), trainer="b2ld", time_limit=60.0, tol=0.0)),
        ("decomp_nn DFNNClassifier((50,), trainer='bling', max_iter=20)",
         lambda: d.DFNNClassifier((50,), trainer="bling", max_iter=20)),
        ("scikit-learn MLPClassifier((50,), 'logistic', solver='lbfgs', max_iter=200)",
         lambda: MLPClassifier((50,), activation="logistic", solver="lbfgs", max_iter=200, random_state=0)),
        ("scikit-learn MLPClassifier((50,), 'logistic', solver='adam', max_iter=20)",
         lambda: MLPClassifier((50,), activation="logistic", solver="adam", max_iter=20, random_state=0)),
    ]
    rows = []
    for name, make in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            seconds, m = timed(lambda: make().fit(xt, yt))
        rows.append((name, seconds, accuracy(m, xs, ys)))
        print(f"{name}: {seconds:.2f} s, {rows[-1][2]:.2f}%", file=sys.stderr)
    lines += [
        "## Gradient and decomposition trainers beside scikit-learn's MLPClassifier",
        "",
        "One hidden layer of 50 sigmoid units, the first 10000 MNIST training images, the full test set.",
        "",
        "| trainer | fit seconds | test accuracy |",
        "|---|---|---|",
    ]
    lines += [f"| {n} | {s:.2f} | {a:.2f}% |" for n, s, a in rows]
    lines.append("")
    record["trainer_peers"] = rows


def main():
    root, out = sys.argv[1], sys.argv[2]
    if "--fit-once" in sys.argv[3:]:
        fit_once(root, sys.argv[sys.argv.index("--fit-once") + 1])
        return
    if "--peer-once" in sys.argv[3:]:
        peer_once(root, sys.argv[sys.argv.index("--peer-once") + 1])
        return
    quick = "--quick" in sys.argv[3:]
    peers = not quick and "--overhead-only" not in sys.argv[3:]
    data = mnist(root)
    import sklearn

    lines = [
        "# decomp_nn from Python: overhead and peers",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Python "
        f"{platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"decomp_nn {d.__version__}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
    ]
    record = {"overhead": {}}
    overhead(root, data, 1 if quick else 5, lines, record)
    if peers:
        elm_peers(root, 3, lines, record)
        trainer_peers(data, lines, record)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(record, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
