"""scikit-learn's MLPRegressor (solver='lbfgs') on the same network, data and
starting weights as our full L-BFGS, beside it in `dfnn-report`.

Usage: python3 sklearn_dfnn.py DIR MAXITER REPS

DIR is written by `dfnn-report` (raw little-endian f64, row-major): x.f64
(P×n), y.f64 (P×1), w<l>.f64 (our W_l: n_l × (n_{l-1}+1), the bias last) and
meta.txt "P n L n_1 ... n_L". Both sides minimize the mean squared error with
no penalty (alpha = 0, ρ = 0), sigmoid ("logistic") hidden layers and a linear
output: scikit-learn's loss is half of ours, (1/2P)Σ(ŷ−y)², checked at the
start. MLPRegressor(solver='lbfgs', max_iter=MAXITER, tol=0, max_fun=10⁹)
runs scipy's L-BFGS-B with its default memory 10 (ours: 10) from our
weights (warm start). Timed: fit() only (median of REPS), and one loss +
gradient evaluation (best of 10) through MLPRegressor._loss_grad_lbfgs, the
function scipy calls (a private API: NaN when it cannot be called).

Prints one JSON object: start_loss (ours scale: 2 × scikit-learn's), seconds,
seconds_best, iterations (n_iter_), objective (ours scale), eval_seconds,
sklearn and numpy versions, threads.
"""
import json
import os
import sys
import time
import warnings

import numpy as np


def main():
    root, maxiter, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    meta = open(os.path.join(root, "meta.txt")).read().split()
    p, n, layers = int(meta[0]), int(meta[1]), int(meta[2])
    widths = [int(v) for v in meta[3 : 3 + layers]]
    read = lambda name, shape: np.fromfile(os.path.join(root, name), dtype="<f8").reshape(shape)
    x = read("x.f64", (p, n))
    y = read("y.f64", (p,))
    weights, fan_in = [], n
    for l, w in enumerate(widths):
        weights.append(read(f"w{l}.f64", (w, fan_in + 1)))
        fan_in = w

    import sklearn
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    def make(iters):
        mlp = MLPRegressor(
            hidden_layer_sizes=tuple(widths[:-1]),
            activation="logistic",
            solver="lbfgs",
            alpha=0.0,
            max_iter=iters,
            tol=0.0,
            max_fun=10**9,
            warm_start=True,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mlp.fit(x[:2], y[:2])  # allocate coefs_ and intercepts_
        mlp.coefs_ = [w[:, :-1].T.copy() for w in weights]
        mlp.intercepts_ = [w[:, -1].copy() for w in weights]
        return mlp

    mlp = make(maxiter)
    start_loss = float(np.mean((mlp.predict(x) - y) ** 2))

    eval_seconds = float("nan")
    try:
        packed = np.hstack([c.ravel() for c in mlp.coefs_] + [b.ravel() for b in mlp.intercepts_])
        sizes = [n] + widths
        activations = [x] + [np.empty((p, s)) for s in sizes[1:]]
        deltas = [np.empty_like(a) for a in activations[1:]]
        coef_grads = [np.empty((a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
        intercept_grads = [np.empty(b) for b in sizes[1:]]
        mlp._coef_indptr = []
        mlp._intercept_indptr = []
        start = 0
        for a, b in zip(sizes[:-1], sizes[1:]):
            mlp._coef_indptr.append((start, start + a * b, (a, b)))
            start += a * b
        for b in sizes[1:]:
            mlp._intercept_indptr.append((start, start + b))
            start += b
        best = float("inf")
        for _ in range(10):
            t = time.perf_counter()
            try:  # scikit-learn ≥ 1.6: sample_weight after y
                mlp._loss_grad_lbfgs(
                    packed, x, y.reshape(-1, 1), None, activations, deltas, coef_grads, intercept_grads
                )
            except TypeError:
                mlp._loss_grad_lbfgs(packed, x, y.reshape(-1, 1), activations, deltas, coef_grads, intercept_grads)
            best = min(best, time.perf_counter() - t)
        eval_seconds = best
    except Exception:  # a private API: skip the per-evaluation time if it moved
        pass

    seconds, iterations, objective = [], 0, float("nan")
    for _ in range(reps):
        mlp = make(maxiter)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mlp.fit(x, y)
        seconds.append(time.perf_counter() - t)
        iterations = int(mlp.n_iter_)
        objective = float(np.mean((mlp.predict(x) - y) ** 2))
    print(
        json.dumps(
            {
                "start_loss": start_loss,
                "seconds": float(np.median(seconds)),
                "seconds_best": float(min(seconds)),
                "iterations": iterations,
                "objective": objective,
                "eval_seconds": eval_seconds,
                "sklearn": sklearn.__version__,
                "numpy": np.__version__,
                "threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
            }
        )
    )


if __name__ == "__main__":
    main()
