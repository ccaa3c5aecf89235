"""scikit-elm's partial_fit (rows added) and partial_fit(forget=True) (rows
removed) on the problem stream-report times ours on: an ELM of L sigmoid
nodes on N inputs and M targets, fitted on K0 random rows, then blocks of k
rows added and the same rows forgotten. Prints one JSON object:
{"skelm": version, "numpy": version, "threads": ..., "add_<k>": seconds,
"forget_<k>": seconds, ...}, medians of REPS. Usage:
skelm_online.py L N M K0 REPS k1,k2,...
"""
import json
import os
import sys
import time

import numpy as np

try:
    import skelm
    from skelm import ELMRegressor
except Exception as e:  # noqa: BLE001 - report any import failure as a skip
    print(json.dumps({"error": f"scikit-elm not importable: {e}"}))
    sys.exit(0)


def main():
    l, n, m, k0, reps = (int(v) for v in sys.argv[1:6])
    blocks = [int(v) for v in sys.argv[6].split(",")]
    rng = np.random.default_rng(0)
    x0 = rng.random((k0, n))
    y0 = rng.random((k0, m))
    model = ELMRegressor(n_neurons=l, ufunc="sigm", alpha=1e-3, random_state=0)
    model.fit(x0, y0)
    out = {
        "skelm": getattr(skelm, "__version__", "?"),
        "numpy": np.__version__,
        "threads": os.environ.get("OPENBLAS_NUM_THREADS", "?"),
    }
    devnull = open(os.devnull, "w")
    for k in blocks:
        x = rng.random((k, n))
        y = rng.random((k, m))
        adds, forgets = [], []
        for _ in range(reps + 1):
            t = time.perf_counter()
            model.partial_fit(x, y)
            adds.append(time.perf_counter() - t)
            # scikit-elm prints "!!! forgetting" on every forget: silence it.
            stdout, sys.stdout = sys.stdout, devnull
            t = time.perf_counter()
            model.partial_fit(x, y, forget=True)
            forgets.append(time.perf_counter() - t)
            sys.stdout = stdout
        out[f"add_{k}"] = float(np.median(adds[1:]))
        out[f"forget_{k}"] = float(np.median(forgets[1:]))
    print(json.dumps(out))


main()
