"""hpelm's model-structure selection — the number of neurons chosen on a
validation set ('V') or by k-fold cross-validation ('CV') — on the split
select-report grows ours on: L sigmoid neurons, classification ('c').
hpelm searches the neuron count by halving an interval over a random ranking
of the neurons, re-solving the sub-Gram at each probe (with a 1% size
penalty), then prunes to the best count. Reads raw little-endian f64 files.
Prints one JSON object: {"hpelm": version, "numpy": version, "threads":
..., "v_seconds", "v_neurons", "v_test_accuracy", "cv_seconds",
"cv_neurons", "cv_test_accuracy"}. Usage:
hpelm_select.py DIR L N M K_TRAIN K_VAL K_TEST K_FOLDS
(DIR holds xt.f64 yt.f64 xv.f64 yv.f64 xs.f64 ys.f64.)
"""
import json
import os
import sys
import time

import numpy as np

try:
    import hpelm
except Exception as e:  # noqa: BLE001 - report any import failure as a skip
    print(json.dumps({"error": f"hpelm not importable: {e}"}))
    sys.exit(0)


def load(d, name, rows, cols):
    return np.fromfile(os.path.join(d, name), dtype="<f8").reshape(rows, cols)


def accuracy(model, x, t):
    return float(100.0 * np.mean(model.predict(x).argmax(1) == t.argmax(1)))


def main():
    d = sys.argv[1]
    l, n, m, kt, kv, ks, folds = (int(v) for v in sys.argv[2:9])
    xt, yt = load(d, "xt.f64", kt, n), load(d, "yt.f64", kt, m)
    xv, yv = load(d, "xv.f64", kv, n), load(d, "yv.f64", kv, m)
    xs, ys = load(d, "xs.f64", ks, n), load(d, "ys.f64", ks, m)
    out = {"hpelm": getattr(hpelm, "__version__", "1.0.10"), "numpy": np.__version__,
           "threads": os.environ.get("OPENBLAS_NUM_THREADS", "?")}
    np.random.seed(0)
    elm = hpelm.ELM(n, m, classification="c", precision="double")
    elm.add_neurons(l, "sigm")
    t = time.perf_counter()
    elm.train(xt, yt, "V", "c", Xv=xv, Tv=yv)
    out["v_seconds"] = time.perf_counter() - t
    out["v_neurons"] = int(elm.nnet.L)
    out["v_test_accuracy"] = accuracy(elm, xs, ys)
    np.random.seed(0)
    elm = hpelm.ELM(n, m, classification="c", precision="double")
    elm.add_neurons(l, "sigm")
    x_all, y_all = np.vstack([xt, xv]), np.vstack([yt, yv])
    t = time.perf_counter()
    elm.train(x_all, y_all, "CV", "c", k=folds)
    out["cv_seconds"] = time.perf_counter() - t
    out["cv_neurons"] = int(elm.nnet.L)
    out["cv_test_accuracy"] = accuracy(elm, xs, ys)
    print(json.dumps(out))


main()
