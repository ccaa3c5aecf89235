"""Sparse against dense samples for the ELM and the BLS, through the Python
estimators, beside the scipy ELM a user would write (issue 41, item 4).

The data: a generated text-like classification set (no sparse set ships,
and no registry package carries news20 or rcv1 offline): ROWS documents
over FEATURES terms in 20 classes: about PER_ROW terms per document
(Poisson), each drawn from its class's own 50 terms with probability 0.3,
else from a background vocabulary of Zipf-like popularity
(p_j ∝ (j + 10)^-0.8); tf = log(1 + count), idf weighting, rows scaled to
unit norm (as scikit-learn's TfidfVectorizer gives). 0.4% of the entries
are stored, between rcv1's 0.16% and a short-text set's 1%.

Timed, each the median of RUNS fits in this process (the first run of each
configuration is a warm-up and not counted), the same estimator on the
same values once dense (``X.toarray()``) and once sparse (CSR):
``ELMClassifier(1000)`` and ``BLSClassifier(10, 10, 1000)``; fit,
transform (the hidden layer alone, on the training rows: where the
products with X are) and predict times, test accuracy, and the memory the
samples take. The peer:
the ELM in numpy/scipy with ``X_csr @ W`` (scipy's sparse-dense product)
and the same scale, activation, λ and normal equations.

Usage: python3 sparse_inputs.py [OUT.md] [--quick]
(--quick: 4000 rows, one timed run.) ``cargo xtask bench`` runs it in the
package's virtual environment (``target/python-venv``) with
OPENBLAS_NUM_THREADS unset, as a Python user runs it, and writes
``target/sparse-report.md``.
"""

import os
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import decomp_nn as d


def text_like(rows, features, per_row, classes, seed):
    """A tf-idf-like sparse matrix (CSR, unit rows) and its labels: each
    document has a class, and each of its terms comes from the class's own
    vocabulary of 50 terms with probability 0.3, else from the background
    vocabulary (Zipf-like popularity)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(features) + 10.0) ** 0.8
    p /= p.sum()
    topics = rng.choice(features, size=(classes, 50), replace=False)
    labels = rng.integers(classes, size=rows)
    counts = rng.poisson(per_row, rows).clip(1, features)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    row_of = np.repeat(np.arange(rows), counts)
    from_topic = rng.uniform(size=indptr[-1]) < 0.3
    indices = np.where(
        from_topic,
        topics[labels[row_of], rng.integers(50, size=indptr[-1])],
        rng.choice(features, size=indptr[-1], p=p),
    )
    data = np.log1p(rng.poisson(1.0, size=indptr[-1]) + 1.0)
    x = sp.csr_matrix((data, indices, indptr), shape=(rows, features))
    x.sum_duplicates()
    df = np.bincount(x.indices, minlength=features)
    x = x @ sp.diags(np.log((1.0 + rows) / (1.0 + df)) + 1.0)
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-300)) @ x)
    return x, labels


def median_time(runs, f):
    """The median wall time of ``runs`` calls of ``f`` after one warm-up,
    and the last result."""
    out = f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def scipy_elm(x, labels, x_test, nodes, lam, seed):
    """The ELM in numpy/scipy: sigmoid(X W + b) with W uniform scaled to
    unit pre-activation variance (√(3 / mean ‖x‖²), the package's default),
    biases on [-1, 1), ridge output weights by np.linalg.solve."""
    rng = np.random.default_rng(seed)
    mean_sq = float(x.multiply(x).sum()) / x.shape[0]
    w = rng.uniform(-1.0, 1.0, (x.shape[1], nodes)) * np.sqrt(3.0 / mean_sq)
    b = rng.uniform(-1.0, 1.0, nodes)

    def hidden(z):
        a = np.asarray(z @ w)
        a += b
        return 1.0 / (1.0 + np.exp(-a))

    a = hidden(x)
    y = np.eye(labels.max() + 1)[labels]
    g = a.T @ a
    g[np.diag_indices_from(g)] += lam
    out = np.linalg.solve(g, a.T @ y)
    return (hidden(x_test) @ out).argmax(axis=1)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    rows, features, per_row, runs = (4000, 10000, 40, 1) if quick else (25000, 10000, 40, 3)
    x, labels = text_like(rows, features, per_row, 20, seed=11)
    train = rows * 4 // 5
    xs, ys, xs_test, ys_test = x[:train], labels[:train], x[train:], labels[train:]
    xd, xd_test = xs.toarray(), xs_test.toarray()
    lines = [
        "# Sparse against dense samples (issue 41, item 4)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        f"Data: {rows} text-like rows ({train} training) × {features} features, "
        f"{xs.nnz / train:.1f} stored entries per row ({100 * x.nnz / (rows * features):.2f}%), 20 classes. "
        f"Training samples: {xd.nbytes / 2**20:.0f} MiB dense, "
        f"{(xs.data.nbytes + xs.indices.nbytes + xs.indptr.nbytes) / 2**20:.1f} MiB as CSR. "
        f"Times: median of {runs} after a warm-up.",
        "",
        "| model | samples | fit s | transform s (training rows) | predict s | test accuracy |",
        "|---|---|---|---|---|---|",
    ]
    models = [
        ("ELMClassifier(1000)", lambda: d.ELMClassifier(1000, random_state=0)),
        ("BLSClassifier(10, 10, 1000)", lambda: d.BLSClassifier(10, 10, 1000, random_state=0)),
    ]
    for name, make in models:
        accuracy = {}
        for kind, (xt, xv) in [("dense", (xd, xd_test)), ("sparse (CSR)", (xs, xs_test))]:
            fit_s, est = median_time(runs, lambda: make().fit(xt, ys))
            transform_s, _ = median_time(runs, lambda: est.transform(xt))
            predict_s, pred = median_time(runs, lambda: est.predict(xv))
            accuracy[kind] = float(np.mean(pred == ys_test))
            lines.append(
                f"| {name} | {kind} | {fit_s:.3f} | {transform_s:.3f} | {predict_s:.3f} | {accuracy[kind]:.4f} |"
            )
            print(lines[-1], flush=True)
    peer_s, pred = median_time(runs, lambda: scipy_elm(xs, ys, xs_test, 1000, 0.1, 0))
    lines.append(
        f"| numpy/scipy ELM (1000, `X_csr @ W`), fit and predict | sparse (CSR) | {peer_s:.3f} | — | — | "
        f"{np.mean(pred == ys_test):.4f} |"
    )
    print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args:
        with open(args[0], "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
