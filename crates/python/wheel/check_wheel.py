"""The installed wheel, checked from outside the build tree (issue 41, item 1).

Run by `cargo xtask wheel --check` (and the Python stage of `cargo xtask
test`) with a fresh virtual environment's interpreter, from a temporary
directory holding only this script and a copy of a shipped data set; no
PYTHONPATH, no LD_LIBRARY_PATH. It checks that

1. `decomp_nn` is imported from the environment's site-packages;
2. the extension's OpenBLAS is the copy bundled in the wheel: `ldd` resolves
   it inside the environment, and after a fit the process has it mapped
   (/proc/self/maps) and no other OpenBLAS;
3. a fit and a predict on the shipped data give a sensible accuracy.

Usage: python check_wheel.py DATA_CSV_GZ
"""

import gzip
import os
import subprocess
import sys

import numpy as np


def fail(message):
    print(f"check_wheel: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def openblas_paths(lines):
    return sorted({line.split()[-1] for line in lines if "openblas" in line.lower() and "/" in line})


def main():
    if len(sys.argv) != 2:
        fail("usage: check_wheel.py DATA_CSV_GZ")
    import decomp_nn
    from decomp_nn import ELMClassifier, _core

    prefix = os.path.realpath(sys.prefix)
    package = os.path.realpath(os.path.dirname(decomp_nn.__file__))
    if not package.startswith(prefix + os.sep):
        fail(f"decomp_nn imported from {package}, not from the environment {prefix}")
    extension = os.path.realpath(_core.__file__)
    print(f"check_wheel: decomp_nn from {package}")

    ldd = subprocess.run(["ldd", extension], capture_output=True, text=True, check=True).stdout
    linked = [line.strip() for line in ldd.splitlines() if "=>" in line]
    blas = [line for line in linked if "openblas" in line.lower()]
    if not blas:
        fail(f"ldd names no OpenBLAS for {extension}:\n{ldd}")
    for line in blas:
        target = os.path.realpath(line.split("=>")[1].split("(")[0].strip())
        if not target.startswith(prefix + os.sep):
            fail(f"ldd resolves OpenBLAS outside the environment: {line}")
    print("check_wheel: ldd: " + "; ".join(blas))

    with gzip.open(sys.argv[1], "rt") as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    data = np.array([[float(v) for v in row] for row in rows[1:]])
    x, y = data[:, :-1], data[:, -1].astype(int)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    cut = (3 * len(y)) // 4
    mean, std = x[:cut].mean(axis=0), x[:cut].std(axis=0) + 1e-12
    x = (x - mean) / std
    model = ELMClassifier(n_hidden=40, random_state=3).fit(x[:cut], y[:cut])
    accuracy = float((model.predict(x[cut:]) == y[cut:]).mean())
    print(f"check_wheel: ELMClassifier(40) on {os.path.basename(sys.argv[1])}: test accuracy {accuracy:.4f}")
    if not accuracy > 0.65:
        fail(f"test accuracy {accuracy:.4f} (a 40-node ELM reaches about 0.75 on pima)")

    with open("/proc/self/maps") as f:
        mapped = openblas_paths(f.readlines())
    outside = [p for p in mapped if not os.path.realpath(p).startswith(prefix + os.sep)]
    if not mapped or outside:
        fail(f"OpenBLAS mapped: {mapped} (outside the environment: {outside})")
    print(f"check_wheel: the process maps OpenBLAS from {mapped[0]} only")


if __name__ == "__main__":
    main()
