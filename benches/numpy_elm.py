"""numpy's time for the batch ELM fit that `elm-report` measures.

Usage: python3 numpy_elm.py MNIST_DIR SAMPLES NODES  -> prints the best of 3
fit times in seconds. The fit: z-score the pixels (population std, constant
columns left at 0), A = sigmoid(X W + b) with W, b ~ U[-1, 1], then
(AᵀA + λI) W_out = AᵀY with λ = 0.1 by np.linalg.solve. Data loading and
scaling are not timed, as in `elm-report`.
"""
import gzip
import sys
import time

import numpy as np


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    root, samples, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    x = idx(f"{root}/train-images-idx3-ubyte.gz")[:samples].reshape(samples, -1).astype(np.float64)
    labels = idx(f"{root}/train-labels-idx1-ubyte.gz")[:samples]
    std = x.std(axis=0)
    std[std == 0] = 1.0
    x = (x - x.mean(axis=0)) / std
    y = np.eye(10)[labels]
    rng = np.random.default_rng(7)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        w = rng.uniform(-1, 1, (x.shape[1], nodes))
        b = rng.uniform(-1, 1, nodes)
        a = x @ w
        a += b
        np.negative(a, out=a)
        np.exp(a, out=a)
        a += 1.0
        np.reciprocal(a, out=a)
        g = a.T @ a
        g[np.diag_indices_from(g)] += 0.1
        out = np.linalg.solve(g, a.T @ y)
        best = min(best, time.perf_counter() - t)
        assert np.isfinite(out).all()
    print(f"{best:.4f}")


if __name__ == "__main__":
    main()
