#!/usr/bin/env python3
"""Regenerates mv/mv.csv, the synthetic DELVE `mv` regression data shipped as data/mv/mv.csv.gz.

This is the mv part of the shared benchmark folder's generators/generate_synthetic.py, unchanged
(sha256 of that script: 7906bc741c9217833b72346b60bcf2c37a9154a0573b3cf8b813a123c37a92cc); its
ringnorm and twonorm generators are left out because their output is not shipped here.

Usage (from the repository root; only numpy is needed):
    python3 data/generators/generate_mv.py OUT_DIR          # writes OUT_DIR/mv/mv.csv
    gzip -9 -n -c OUT_DIR/mv/mv.csv > data/mv/mv.csv.gz
The CSV has sha256 aa1dbb59a95b4df4f79b655786dad92a4ead34c01d2431c3bd6eac4a97850fc1 (checked with
numpy 2.4.6). numpy.random.default_rng (PCG64) streams are not promised to be equal across numpy
versions, so another numpy may give another draw.

Definition (DELVE "mv" artificial regression data, as described on L. Torgo's Regression
DataSets page and in KEEL's "mv"; 40768 cases), seed 20240003:
  x1 ~ U[-5,5]; x2 ~ U[-15,-10]
  x3 = green if x1 > 0, else red (p=0.4) / brown (p=0.6)
  x4 = x1 + 2*x2 if x3 == green, else x1/2 (p=0.3) / x2/2 (p=0.7)
  x5 ~ U[-1,1]; x6 = x4 * e, e ~ U[0,5]
  x7 = yes (p=0.3) / no (p=0.7); x8 = normal if x5 < 0.5 else large
  x9 ~ U[100,500]; x10 ~ uniform integer in [1000,1200]
  y = 35 - 0.5*x4        if x2 > 2   (never true, since x2 < -10: kept as published)
    = 10 - 2*x1          elif -2 <= x4 <= 2
    = 3 - x1/x4          elif x7 == yes
    = x6 + x1            elif x8 == normal
    = x1/2               otherwise
  Encoding in the CSV: x3 one-hot (x3_red, x3_green, x3_brown), x7 yes=1/no=0,
  x8 large=1/normal=0; all other columns numeric as generated; target y last.
This is a fresh draw from the definition, not the DELVE/KEEL file itself.
"""
import os, sys
import numpy as np


def mv(n=40768, seed=0):
    rng = np.random.default_rng(seed)
    x1 = rng.uniform(-5, 5, n)
    x2 = rng.uniform(-15, -10, n)
    u3 = rng.uniform(size=n)
    x3 = np.where(x1 > 0, "green", np.where(u3 < 0.4, "red", "brown"))
    u4 = rng.uniform(size=n)
    x4 = np.where(x3 == "green", x1 + 2 * x2, np.where(u4 < 0.3, x1 / 2, x2 / 2))
    x5 = rng.uniform(-1, 1, n)
    x6 = x4 * rng.uniform(0, 5, n)
    x7 = np.where(rng.uniform(size=n) < 0.3, "yes", "no")
    x8 = np.where(x5 < 0.5, "normal", "large")
    x9 = rng.uniform(100, 500, n)
    x10 = rng.integers(1000, 1200, endpoint=True, size=n).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x2 > 2, 35 - 0.5 * x4,
            np.where((x4 >= -2) & (x4 <= 2), 10 - 2 * x1,
            np.where(x7 == "yes", 3 - x1 / x4,
            np.where(x8 == "normal", x6 + x1, x1 / 2))))
    cols = {
        "x1": x1, "x2": x2,
        "x3_red": (x3 == "red").astype(int), "x3_green": (x3 == "green").astype(int),
        "x3_brown": (x3 == "brown").astype(int),
        "x4": x4, "x5": x5, "x6": x6,
        "x7_yes": (x7 == "yes").astype(int), "x8_large": (x8 == "large").astype(int),
        "x9": x9, "x10": x10, "target": y,
    }
    assert np.isfinite(y).all()
    return cols


def main(out):
    cols = mv(40768, seed=20240003)
    os.makedirs(os.path.join(out, "mv"), exist_ok=True)
    names = list(cols)
    fmt = {k: ("{:d}" if cols[k].dtype.kind == "i" else "{:.6f}") for k in names}
    fmt["x10"] = "{:.0f}"
    with open(os.path.join(out, "mv", "mv.csv"), "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(len(cols["x1"])):
            f.write(",".join(fmt[k].format(cols[k][i]) for k in names) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
