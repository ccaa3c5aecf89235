"""scipy's L-BFGS-B on the error of Grippo, Manno & Sciandrone's network,
beside our L-BFGS in `dec-report`.

Usage: python3 scipy_slfn.py DIR MAXITER REPS

DIR is written by `dec-report` (raw little-endian f64, row-major):
x.f64 (P×n, the z-scored features), y.f64 (P×M), w0.f64 (N×(n+1), the
thresholds last), lambda0.f64 (N×M), and meta.txt "P n M N tau_lambda tau_w".

The objective, in numpy with the formulas of `models::slfn::ErrorFunction`:

    H = sigmoid(X Wxᵀ − 1θᵀ),  R = HΛ − Y,
    E = ½‖R‖² + τ_λ/2 ‖Λ‖² + τ_w/2 ‖W‖²,
    ∇_Λ E = HᵀR + τ_λ Λ,  D = (RΛᵀ) ∘ H ∘ (1 − H),
    ∇_Wx E = DᵀX + τ_w Wx,  ∇_θ E = −Σ_p D_p + τ_w θ,

in the variables z = (Λ row-major, W row-major), minimized from z0 = (Λ0, W0)
by scipy.optimize.minimize(method='L-BFGS-B', jac=True) with maxcor=5 (our
memory), ftol = gtol = 0 and maxfun = 10⁹, so that only MAXITER (or a failed
line search) stops it. Timed: the minimize call only (median of REPS).

Prints one JSON object: start_objective (E at z0), seconds (median),
seconds_best, objective, nit, nfev, message, eval_seconds (best of 20 E+∇E
evaluations at z0), threads (OPENBLAS_NUM_THREADS as seen), numpy and scipy
versions. Writes ∇E at z0 to DIR/grad0_py.f64 for the check against ours.
"""
import json
import os
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
import scipy


def main():
    root, maxiter, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    meta = open(os.path.join(root, "meta.txt")).read().split()
    p, n, m, hidden = (int(v) for v in meta[:4])
    tau_l, tau_w = float(meta[4]), float(meta[5])

    def load(name, shape):
        return np.fromfile(os.path.join(root, name), dtype="<f8").reshape(shape)

    x = np.ascontiguousarray(load("x.f64", (p, n)))
    y = np.ascontiguousarray(load("y.f64", (p, m)))
    w0 = load("w0.f64", (hidden, n + 1))
    lam0 = load("lambda0.f64", (hidden, m))
    nl = hidden * m
    z0 = np.concatenate([lam0.ravel(), w0.ravel()])

    def fg(z):
        lam = z[:nl].reshape(hidden, m)
        w = z[nl:].reshape(hidden, n + 1)
        t = x @ w[:, :n].T
        t -= w[:, n]
        h = expit(t)
        r = h @ lam
        r -= y
        e = 0.5 * np.dot(r.ravel(), r.ravel()) + 0.5 * tau_l * np.dot(lam.ravel(), lam.ravel()) \
            + 0.5 * tau_w * np.dot(w.ravel(), w.ravel())
        g = np.empty_like(z)
        g[:nl] = (h.T @ r + tau_l * lam).ravel()
        d = r @ lam.T
        d *= h
        d *= 1.0 - h
        gw = np.empty((hidden, n + 1))
        gw[:, :n] = d.T @ x + tau_w * w[:, :n]
        gw[:, n] = -d.sum(axis=0) + tau_w * w[:, n]
        g[nl:] = gw.ravel()
        return e, g

    e0, g0 = fg(z0)
    g0.astype("<f8").tofile(os.path.join(root, "grad0_py.f64"))
    eval_best = float("inf")
    for _ in range(20):
        t = time.perf_counter()
        fg(z0)
        eval_best = min(eval_best, time.perf_counter() - t)

    times = []
    res = None
    for _ in range(reps):
        z = z0.copy()
        t = time.perf_counter()
        res = minimize(fg, z, method="L-BFGS-B", jac=True,
                       options=dict(maxiter=maxiter, maxcor=5, maxfun=10**9, ftol=0, gtol=0))
        times.append(time.perf_counter() - t)
    times.sort()
    k = len(times)
    med = times[k // 2] if k % 2 else 0.5 * (times[k // 2 - 1] + times[k // 2])
    print(json.dumps({
        "start_objective": float(e0),
        "seconds": med,
        "seconds_best": times[0],
        "objective": float(res.fun),
        "nit": int(res.nit),
        "nfev": int(res.nfev),
        "message": str(res.message).replace('"', "'"),
        "eval_seconds": eval_best,
        "threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
    }))


if __name__ == "__main__":
    main()
