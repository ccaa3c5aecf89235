"""numpy's DGEMM rate, measured as `benches::dgemm_peers` measures the
project's BLAS and faer (issue 37: floors that cannot hide a slow kernel).

Usage: python3 numpy_dgemm.py N THREADS REPS -> prints one JSON line:
{"gflops": best rate in GFLOP/s, "n": N, "threads": THREADS, "threads_seen":
the BLAS's thread count during the timing (threadpoolctl) or null, "numpy":
version, "blas": library and version, "kernel": the kernel set it runs (e.g.
"SkylakeX") or "?", "info_from": where blas and kernel were read, "python":
the interpreter}.

The product: C = A·A with A[i, j] = ((7i + 3j) mod 11) / 11 - 0.5, n×n,
into a preallocated C (`np.matmul(a, a, out=c)`), best of REPS after one
untimed run. The thread count comes from OPENBLAS_NUM_THREADS /
OMP_NUM_THREADS / MKL_NUM_THREADS (the caller sets them) and, when
threadpoolctl is installed, `threadpool_limits(THREADS, user_api="blas")`.
The library's version and kernel come from threadpoolctl when installed,
else from `numpy.show_config(mode="dicts")` and the library's own
`openblas_get_corename` found through ctypes.

Without numpy it prints {"skipped": "numpy not installed ..."} (and the same
on stderr) and exits 0: the report then says numpy was not run.
"""
import json
import sys
import time

try:
    import numpy as np
except Exception as e:  # noqa: BLE001 - report any import failure as a skip
    message = f"numpy not installed ({sys.executable}: {e})"
    print(f"numpy_dgemm.py: skipped: {message}", file=sys.stderr)
    print(json.dumps({"skipped": message}))
    sys.exit(0)

try:
    import threadpoolctl
except Exception:  # noqa: BLE001 - optional
    threadpoolctl = None


def blas_from_threadpoolctl():
    """(blas, kernel, threads) of numpy's BLAS as threadpoolctl sees it, or None."""
    if threadpoolctl is None:
        return None
    for entry in threadpoolctl.threadpool_info():
        if entry.get("user_api") != "blas":
            continue
        api = entry.get("internal_api", "?")
        name = {"openblas": "OpenBLAS", "mkl": "MKL", "blis": "BLIS"}.get(api, api)
        kernel = entry.get("architecture") or entry.get("threading_layer") or "?"
        return f"{name} {entry.get('version', '?')}", kernel, entry.get("num_threads")
    return None


def openblas_corename():
    """The kernel OpenBLAS runs, from the library mapped into this process."""
    import ctypes

    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower() and "/" in line}
    except OSError:
        return "?"
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_", ""):
            for suffix in ("64_", ""):
                fn = getattr(lib, f"{prefix}openblas_get_corename{suffix}", None)
                if fn is not None:
                    fn.restype = ctypes.c_char_p
                    return fn().decode(errors="replace")
    return "?"


def blas_from_numpy():
    """(blas, kernel) from numpy's build configuration (numpy >= 1.26)."""
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        name = blas.get("name", "?")
        if "openblas" in name.lower():
            name = "OpenBLAS"
        return f"{name} {blas.get('version', '?')}", openblas_corename()
    except Exception:  # noqa: BLE001 - older numpy: say what is known
        return "?", openblas_corename()


def main():
    n, threads, reps = (int(v) for v in sys.argv[1:4])
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    a = ((7 * i + 3 * j) % 11) / 11.0 - 0.5
    c = np.empty_like(a)
    limits = (
        threadpoolctl.threadpool_limits(limits=threads, user_api="blas")
        if threadpoolctl is not None
        else None
    )
    try:
        info = blas_from_threadpoolctl()
        if info is not None:
            blas, kernel, seen = info
            source = "threadpoolctl"
        else:
            (blas, kernel), seen = blas_from_numpy(), None
            source = "numpy.show_config"
        best = float("inf")
        for rep in range(max(reps, 1) + 1):
            t = time.perf_counter()
            np.matmul(a, a, out=c)
            dt = time.perf_counter() - t
            if rep > 0:
                best = min(best, dt)
        assert np.isfinite(c[0, 0])
    finally:
        if limits is not None:
            limits.restore_original_limits()
    print(
        json.dumps(
            {
                "gflops": 2.0 * n**3 / best / 1e9,
                "n": n,
                "threads": threads,
                "threads_seen": seen,
                "numpy": np.__version__,
                "blas": blas,
                "kernel": kernel,
                "info_from": source,
                "python": sys.executable,
            }
        )
    )


if __name__ == "__main__":
    main()
