"""The iterative models' defaults measured as a scikit-learn user meets them
(issue 42, "defaults a user can wait for"), on every shipped set.

Per set: a seeded sample of at most ROWS rows (4,000, the issue's size),
``make_pipeline(StandardScaler(), estimator)`` scored by 3-fold
``cross_val_score`` (stratified for classes; accuracy, or R² for regression,
where every candidate also sees the target standardized through
``TransformedTargetRegressor``). The candidates are this package's
iterative estimators with their earlier defaults (``dfnn-10000-cycles``:
B2LD on [50, 50] up to 10,000 cycles without the cycle rule; ``slfn-20``:
20 units, DEC(10); ``bpls-100``) and the alternatives measured against
them (B2LD's cycle rule at five tolerances and on [100, 100], 50 SLFN units by DEC(10) and
DEC(4), 500 BPLS units), every setting spelled out so that a later change
of the defaults does not change what a name means, beside scikit-learn's ``MLPClassifier()``/``MLPRegressor()`` and
``MLP*((50, 50), activation='logistic')``, the issue's two peers.

Each (set, candidate) is one line of OUT/runs.jsonl: the mean score over
the folds, the seconds of the three fits and predictions, and the
iterations the fits ran (``n_iter_``). A line already there is not run
again (resumable); ``--budget S`` stops starting new cells after S seconds.
``--report`` writes OUT/report.md from the lines: per set the scores and
seconds, then the verdicts, computed here: the geometric mean over the sets
of each candidate's error (1 − accuracy, 1 − R²) over the best candidate's
on the set, and of its seconds over ``mlp-default``'s.

Timing: run it with OPENBLAS_NUM_THREADS=1 (two shards, ``--shard 0/2``
and ``--shard 1/2``, side by side on two cores); seconds compare the
candidates of one set (the same process, the same core), not two sets.

Usage: iterative_defaults.py ROOT OUT [--rows N] [--shard I/N] [--budget S]
       [--sets a,b] [--candidates a,b] [--report]
"""

import argparse
import gzip
import json
import math
import os
import platform
import sys
import time
import warnings

import numpy as np

# name, file, classification
SETS = [
    ("airfoil", "airfoil/airfoil.csv.gz", False),
    ("energy-heating", "energy_efficiency/energy_heating.csv.gz", False),
    ("boston", "boston/boston.csv.gz", False),
    ("protein", "protein/protein.csv.gz", False),
    ("magic", "magic/magic.csv.gz", True),
    ("musk1", "musk1/musk1.csv.gz", True),
    ("pima", "pima/pima.csv.gz", True),
    ("adult", "adult/adult_train.csv.gz", True),
    ("codrna", "codrna/codrna_train.csv.gz", True),
    ("ringnorm", "ringnorm/ringnorm.csv.gz", True),
    ("satellite", "satellite/satellite_train.csv.gz", True),
    ("mv", "mv/mv.csv.gz", False),
    ("california", "california_housing/california_housing.csv.gz", False),
    ("census-house16h", "census_house16h/census_house16h.csv.gz", False),
    ("delta-elevators", "delta_elevators/delta_elevators.csv.gz", False),
    ("elevators", "elevators/elevators.csv.gz", False),
    ("ailerons", "ailerons/ailerons.csv.gz", False),
    ("bike-sharing", "bike_sharing/bike_sharing_hour.csv.gz", False),
    ("beijing-pm25", "beijing_pm25/beijing_pm25.csv.gz", False),
    ("ccpp", "ccpp/ccpp.csv.gz", False),
    ("bank-marketing", "bank_marketing/bank_full.csv.gz", True),
    ("mnist", None, True),
]

SEED = 0
FOLDS = 3
# The most time a default may take, as a multiple of MLPClassifier()'s.
TIME_CAP = 1.5
# Error ratios this close count as a tie, broken by speed.
TIE = 0.01


def load(root, name, path, rows):
    """A seeded sample of at most `rows` rows: (X, y)."""
    if path is None:  # MNIST's training images, pixels as they are (the scaler standardizes)
        base = os.path.join(root, "data", "mnist")

        def idx(p):
            with gzip.open(os.path.join(base, p), "rb") as f:
                data = f.read()
            dims = data[3]
            shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
            return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)

        x = idx("train-images-idx3-ubyte.gz").reshape(60000, -1).astype(np.float64)
        y = idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    else:
        with gzip.open(os.path.join(root, "data", path), "rt") as f:
            table = np.loadtxt(f, delimiter=",", skiprows=1)
        x, y = table[:, :-1], table[:, -1]
    rng = np.random.default_rng(SEED)
    take = rng.permutation(len(y))[: min(rows, len(y))]
    return x[take], y[take]


def candidates(classification):
    """name -> a function making the estimator."""
    import decomp_nn as d
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    if classification:
        dfnn, slfn, bpls, mlp = d.DFNNClassifier, d.SLFNClassifier, d.BPLSClassifier, MLPClassifier
    else:
        dfnn, slfn, bpls, mlp = d.DFNNRegressor, d.SLFNRegressor, d.BPLSRegressor, MLPRegressor
    return {
        "dfnn-10000-cycles": lambda: dfnn((50, 50), max_iter=10_000, tol=0.0, random_state=SEED),
        "dfnn-tol-0.05": lambda: dfnn((50, 50), tol=0.05, n_iter_no_change=5, random_state=SEED),
        "dfnn-tol-0.02": lambda: dfnn((50, 50), tol=0.02, n_iter_no_change=5, random_state=SEED),
        "dfnn-tol-0.1": lambda: dfnn((50, 50), tol=0.1, n_iter_no_change=5, random_state=SEED),
        "dfnn-tol-0.2": lambda: dfnn((50, 50), tol=0.2, n_iter_no_change=5, random_state=SEED),
        "dfnn-tol-0.5": lambda: dfnn((50, 50), tol=0.5, n_iter_no_change=5, random_state=SEED),
        "dfnn-100x100-tol-0.05": lambda: dfnn((100, 100), tol=0.05, n_iter_no_change=5, random_state=SEED),
        "slfn-20": lambda: slfn(20, trainer="dec:10", random_state=SEED),
        "slfn-50": lambda: slfn(50, trainer="dec:10", random_state=SEED),
        "slfn-50-dec4": lambda: slfn(50, trainer="dec:4", random_state=SEED),
        "bpls-100": lambda: bpls((100,), random_state=SEED),
        "bpls-500": lambda: bpls((500,), random_state=SEED),
        "mlp-default": lambda: mlp(random_state=SEED),
        "mlp-50x50-logistic": lambda: mlp(hidden_layer_sizes=(50, 50), activation="logistic", random_state=SEED),
    }


def run_cell(x, y, classification, make):
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.model_selection import KFold, StratifiedKFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    est = make_pipeline(StandardScaler(), make())
    if classification:
        folds = StratifiedKFold(FOLDS, shuffle=True, random_state=SEED)
        scoring = "accuracy"
    else:
        est = TransformedTargetRegressor(regressor=est, transformer=StandardScaler())
        folds = KFold(FOLDS, shuffle=True, random_state=SEED)
        scoring = "r2"
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning at max_iter
        out = cross_validate(est, x, y, cv=folds, scoring=scoring, return_estimator=True, error_score="raise")
    seconds = time.perf_counter() - start
    iters = []
    for e in out["estimator"]:
        last = e.regressor_ if hasattr(e, "regressor_") else e
        iters.append(int(getattr(last[-1], "n_iter_", -1)))
    return float(np.mean(out["test_score"])), seconds, iters


def read_runs(path):
    runs = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    runs[(r["set"], r["candidate"])] = r
    return runs


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def report(out_dir, names, others=()):
    """OUT/report.md from OUT/runs.jsonl and the runs of `others` (runs on
    more rows: their sets are named `set@rows` and count as sets of their
    own in the verdicts)."""
    runs = read_runs(os.path.join(out_dir, "runs.jsonl"))
    sets = [s for s, _, _ in SETS if any((s, c) in runs for c in names)]
    for other in others:
        more = read_runs(os.path.join(other, "runs.jsonl"))
        for (s, c), r in more.items():
            runs[(f"{s}@{r['rows']}", c)] = r
        sets += [f"{s}@{r}" for s, _, _ in SETS for r in sorted({v["rows"] for (t, _), v in more.items() if t == s})]
    lines = [
        "# The iterative models' defaults on every shipped set (issue 42)",
        "",
        "Written by `benches/iterative_defaults.py --report` from `runs.jsonl`; every figure and verdict",
        "below is computed from those lines. Per set: at most 4,000 rows (seeded sample; `set@N`: N rows), a",
        "`StandardScaler` pipeline, 3-fold cross-validation; accuracy, or R² with the target",
        "standardized; seconds for the three fits and their predictions, one thread.",
        "",
    ]
    meta = next(iter(runs.values()), {})
    lines.append(f"Machine: {meta.get('machine', '?')}; run {meta.get('date', '?')}.")
    lines.append("")
    header = "| set | " + " | ".join(names) + " |"
    lines += ["## Score (seconds; iterations of the first fit)", "", header, "|---" * (len(names) + 1) + "|"]
    ratios = {c: [] for c in names}
    times = {c: [] for c in names}
    for s in sets:
        row = [s]
        have = {c: runs[(s, c)] for c in names if (s, c) in runs}
        if "mlp-default" not in have:
            continue
        best_err = min(1.0 - r["score"] for r in have.values())
        base = have.get("mlp-default")
        for c in names:
            r = have.get(c)
            if r is None:
                row.append("—")
                continue
            row.append(f"{r['score']:.4f} ({r['seconds']:.1f} s; {r['iterations'][0]})")
            err = 1.0 - r["score"]
            ratios[c].append(max(err, 1e-6) / max(best_err, 1e-6))
            if base is not None:
                times[c].append(r["seconds"] / base["seconds"])
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## Verdicts", ""]
    lines.append("| candidate | sets | geometric-mean error / best | within 2% of the best | geometric-mean seconds / mlp-default's |")
    lines.append("|---|---|---|---|---|")
    for c in names:
        if ratios[c]:
            near = sum(1 for v in ratios[c] if v <= 1.02)
            lines.append(f"| {c} | {len(ratios[c])} | {geomean(ratios[c]):.4f} | {near} | {geomean(times[c]):.2f} |")
    lines += ["", "## The defaults chosen", ""]
    lines.append(
        f"Rule: per model, the candidate with the lowest geometric-mean error ratio among those whose geometric-mean "
        f"seconds are at most {TIME_CAP}x `mlp-default`'s (a user can wait for what scikit-learn's default takes, "
        f"give or take half); of those within {TIE:.0%} of that ratio, the fastest."
    )
    lines.append("")
    lines.append("| model | chosen | the package's default now |")
    lines.append("|---|---|---|")
    import decomp_nn as d

    default_of = {"dfnn": d.DFNNClassifier, "slfn": d.SLFNClassifier, "bpls": d.BPLSClassifier}
    makers = candidates(True)
    for family, cls in default_of.items():
        members = [c for c in names if c.startswith(family + "-") and ratios[c]]
        affordable = [c for c in members if geomean(times[c]) <= TIME_CAP]
        if not affordable:
            continue
        best = min(geomean(ratios[c]) for c in affordable)
        close = [c for c in affordable if geomean(ratios[c]) <= best * (1 + TIE)]
        chosen = min(close, key=lambda c: geomean(times[c]))
        default = cls().get_params()
        same = [c for c in members if makers[c]().get_params() == default]
        now = same[0] if same else "none of the candidates"
        verdict = "the same" if now == chosen else "differs"
        lines.append(f"| {family} | {chosen} | {now} ({verdict}) |")
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("out")
    p.add_argument("--rows", type=int, default=4000)
    p.add_argument("--shard", default="0/1")
    p.add_argument("--budget", type=float, default=float("inf"))
    p.add_argument("--sets", default="")
    p.add_argument("--candidates", default="")
    p.add_argument("--report", action="store_true")
    p.add_argument("--with", dest="others", action="append", default=[], help="more runs for --report")
    a = p.parse_args()
    try:
        import decomp_nn  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError as e:
        print(f"iterative_defaults.py: skipped ({e}); run it with the package's venv", file=sys.stderr)
        return 0
    os.makedirs(a.out, exist_ok=True)
    all_names = list(candidates(True))
    names = [c for c in a.candidates.split(",") if c] or all_names
    if a.report:
        report(a.out, names, a.others)
        return 0
    shard, shards = (int(v) for v in a.shard.split("/"))
    wanted = [s for s in a.sets.split(",") if s]
    path = os.path.join(a.out, "runs.jsonl")
    done = read_runs(path)
    start = time.perf_counter()
    machine = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            machine = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    for i, (name, file, classification) in enumerate(SETS):
        if i % shards != shard or (wanted and name not in wanted):
            continue
        todo = [c for c in names if (name, c) not in done]
        if not todo:
            continue
        x, y = load(a.root, name, file, a.rows)
        makers = candidates(classification)
        for c in todo:
            if time.perf_counter() - start > a.budget:
                print("budget spent; run again to go on", file=sys.stderr)
                return 0
            score, seconds, iters = run_cell(x, y, classification, makers[c])
            line = {
                "set": name,
                "candidate": c,
                "rows": int(len(y)),
                "score": score,
                "seconds": seconds,
                "iterations": iters,
                "machine": machine,
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            }
            with open(path, "a") as f:
                f.write(json.dumps(line) + "\n")
            print(f"{name:16} {c:20} {score:.4f} {seconds:7.1f} s  {iters}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
